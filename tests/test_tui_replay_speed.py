"""The second speed pass (issue 23) keeps what a paint builds, never what it shows.

A long reply streams past the kept window (its head dropped) while the Transcript
keeps its finished blocks per reply and measures only new blocks: every paint must
show exactly what a Transcript built from nothing shows for the same entries.
"""

from __future__ import annotations

from textual.app import App, ComposeResult

from frontier.app.events import CallReady, ToolCall, ToolFinished, ToolResult, ToolStarted
from frontier.widgets.prose import ProseBlocks
from frontier.widgets.state import TranscriptEntry, UiState
from frontier.widgets.transcript import Transcript, prose_blocks
from tests.pilot_wait import until

PART = (
    "## Part {n}\n\nThe module *grows* in part {n}: **compute** takes `value_{n}`.\n\n"
    "- the parser keeps its flags\n- nothing else changes\n\n"
    "| file | lines |\n|------|------:|\n| m.py | {n} |\n\n"
    "```python\ndef compute_{n}(value: int) -> int:\n    return value * {n}\n```\n\n"
)


def reply(kept: int) -> TranscriptEntry:
    entry = TranscriptEntry(1, "ai")
    entry.prose = ProseBlocks(kept=kept)
    return entry


def test_a_reply_keeps_the_keys_it_would_build_again() -> None:
    entry = reply(kept=2_000)
    memo: dict = {}
    for n in range(60):
        assert entry.prose is not None
        entry.prose.append(PART.format(n=n)[: 40 + n % 7 * 30])  # cut mid-block too
        entry.prose.append(PART.format(n=n)[40 + n % 7 * 30 :])
        kept = [item[0] for item in prose_blocks(entry, "monokai", memo)]
        fresh = [item[0] for item in prose_blocks(entry, "monokai")]
        assert kept == fresh
    assert entry.prose is not None and entry.prose.dropped  # the head did go


class One(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.view = Transcript(lambda: 0.0)

    def compose(self) -> ComposeResult:
        yield self.view


async def test_a_growing_reply_paints_like_a_fresh_transcript() -> None:
    entry = reply(kept=3_000)
    calls = [TranscriptEntry(2 + n, "note", f"note {n}") for n in range(3)]
    app, fresh = One(), One()
    async with app.run_test(size=(90, 30)) as pilot:
        for n in range(40):
            assert entry.prose is not None
            entry.prose.append(PART.format(n=n))
            app.view.show([*calls, entry], {})
            if n % 5 == 0:
                await pilot.pause()
        await until(pilot, lambda: not app.view._unsettled, "the view settled")
        await pilot.pause()
        shown, on_screen = app.view.plain_lines, screen_lines(app.view)
    async with fresh.run_test(size=(90, 30)) as pilot:
        fresh.view.show([*calls, entry], {})
        await until(pilot, lambda: not fresh.view._unsettled, "the view settled")
        await pilot.pause()
        assert shown == fresh.view.plain_lines
        assert on_screen == screen_lines(fresh.view)
        assert any("Part 39" in line for line in on_screen)  # following the tail


def screen_lines(view: Transcript) -> list[str]:
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


def calls_state(n: int) -> UiState:
    """``n`` finished calls, each a command that wraps at 90 columns and three lines of
    output: call rows of five or six lines."""
    state = UiState(clock=lambda: 0.0)
    for i in range(n):
        call = ToolCall(f"c{i}", "shell", {"command": f"make test-{i} " + "ARG=value " * 12})
        state.apply(CallReady(call))
        state.apply(ToolStarted(call))
        result = ToolResult(call.id, "shell", "ok", f"ok {i}\nran {i} tests\ndone {i}\n", 0, 0.5)
        state.apply(ToolFinished(result))
    return state


async def test_a_resumed_transcript_renders_only_the_call_rows_in_view() -> None:
    """A call row's height is estimated from its text (``Hanging.estimate``), so showing a
    resumed session's 150 calls renders the dozen on screen, not every row; what is on
    screen, at the end and at the top, is what rendering every row gives, and the top says
    that older entries are not shown."""
    state = calls_state(150)
    app = One()
    async with app.run_test(size=(90, 30)) as pilot:
        view = app.view
        view.show(state.transcript, state.tools)
        await until(pilot, lambda: not view._unsettled, "the view settled")
        await pilot.pause()
        rendered = len(view._strips)
        at_end = screen_lines(view)
        every = view.plain_lines  # renders every row: the truth
        assert rendered <= 12, f"{rendered} of 150 rows rendered to show the end"
        assert "c149" in "\n".join(at_end)
        assert at_end == every[-len(at_end) :]
        view.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        assert screen_lines(view) == every[: len(at_end)]
        # more entries than the Transcript shows: its top says the session starts earlier
        assert every[0].rstrip() == "⋯ older entries are not shown here"
        few = calls_state(10)
        view.show(few.transcript, few.tools)
        await until(pilot, lambda: not view._unsettled, "the view settled")
        assert not any("older entries" in line for line in view.plain_lines)
