"""Tool output you can read (issue 23): a tool row in the Transcript folds its output,
Enter or a click opens it whole in a searchable pager (from the Tools pane too); the
Tools pane keeps one row per call and says where a command ran; retries of one failure
are one line; an interrupted turn is said once, naming the key; one dispatch table."""

from __future__ import annotations

import importlib
import inspect
import itertools
from pathlib import Path
from types import MethodType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pilot_wait import focus_of, opened, until
from pytest_textual_snapshot import SVGImageExtension
from textual.pilot import Pilot
from textual.widgets import Input, TextArea
from tui_fakes import fake_session

from frontier.app.config import Config
from frontier.app.events import (
    AssistantText,
    CallReady,
    Confirmed,
    Event,
    ResponseStarted,
    Retry,
    ToolCall,
    ToolFinished,
    ToolOutput,
    ToolResult,
    ToolStarted,
    TurnEnded,
    UserMessage,
)
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.pager import PagerScreen, PagerView
from frontier.app.secrets import Scrubber
from frontier.widgets.display import CUT_SLACK, LINE_KEEP, cut_line
from frontier.widgets.pane_state import tool_row
from frontier.widgets.pane_state import tools as tools_model
from frontier.widgets.pane_state.shared import PaneContext
from frontier.widgets.state import FOLD, IGNORED, UiState
from frontier.widgets.tools_pane import ToolsPane, tool_lines
from frontier.widgets.transcript import Transcript, entry_text, tool_of

NOW = 1000.0
SIZES = {"80x24": (80, 24), "140x45": (140, 45)}
THEMES = ("frontier-dark", "frontier-light")  # a dark one and the light one (issue 23)
NEEDLE_LINE = 150
OUTPUT = "".join(
    f"tests/test_m.py::test_{i} {'FAILED needle here' if i == NEEDLE_LINE else 'PASSED'}\n"
    for i in range(240)
)
SANDBOXED = {"sandbox": {"mode": "workspace-write", "network": False}}


@pytest.fixture(autouse=True)
def _snapshots_in_tests_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).parent / "snapshots"

    def dirname(cls: Any, *, test_location: Any) -> str:
        return str(root / test_location.basename)

    monkeypatch.setattr(SVGImageExtension, "dirname", classmethod(dirname))


def shell(call_id: str = "c1", command: str = "pytest -q") -> ToolCall:
    return ToolCall(call_id, "shell", {"command": command})


def finished(state: UiState, output: str = OUTPUT, kind: str = "ok", exit_code: int = 0) -> None:
    """The user asks, the model runs ``pytest -q``, which prints ``output``."""
    call = shell()
    state.apply(UserMessage("run the tests"))
    state.apply(ResponseStarted("ctl-heredoc", 0))
    state.apply(Confirmed(0, "text", b"Running them.\n"))
    state.apply(AssistantText("Running them.\n"))
    state.apply(CallReady(call))
    state.apply(ToolStarted(call))
    state.apply(ToolFinished(ToolResult("c1", "shell", kind, output, exit_code, 1.2, SANDBOXED)))  # type: ignore[arg-type]


def rows(state: UiState, width: int = 80) -> list[str]:
    return [
        line
        for entry in state.transcript
        for line in entry_text(entry, tool_of(entry, state.tools), width)
    ]


# ----------------------------------------------------------------------------- the fold


def test_a_finished_row_folds_to_its_first_lines_and_says_how_many_more() -> None:
    state = UiState(clock=lambda: NOW)
    finished(state)
    call = next(e for e in state.transcript if e.role == "call")
    assert entry_text(call, call.tool, 80) == [
        "▸ c1 shell pytest -q",
        "    tests/test_m.py::test_0 PASSED",
        "    tests/test_m.py::test_1 PASSED",
        "    tests/test_m.py::test_2 PASSED",
        "    tests/test_m.py::test_3 PASSED",
        f"    … {240 - FOLD} more lines",
        "    ok exit=0 · 1.20 s · sandbox: workspace-write · net off",
    ]


def test_a_command_that_printed_only_blank_lines_finishes_like_any_other() -> None:
    """``echo`` alone prints a newline: the row finishes, no message, nothing to open."""
    state = UiState(clock=lambda: NOW)
    finished(state, output="\n  \n")
    call = next(e for e in state.transcript if e.role == "call")
    assert call.tool is not None and call.tool.state == "ok" and call.tool.message == ""
    assert entry_text(call, call.tool, 80)[-1].endswith(
        "ok exit=0 · 1.20 s · sandbox: workspace-write · net off"
    )


def test_a_failed_command_shows_its_last_lines() -> None:
    state = UiState(clock=lambda: NOW)
    finished(state, "".join(f"line {i}\n" for i in range(30)) + "1 failed, 29 passed\n", "ok", 1)
    call = next(e for e in state.transcript if e.role == "call")
    assert entry_text(call, call.tool, 80)[1:] == [
        "    … 27 lines earlier",
        "    line 27",
        "    line 28",
        "    line 29",
        "    1 failed, 29 passed",
        "    ok exit=1 · 1.20 s · sandbox: workspace-write · net off",
    ]


def test_a_running_command_shows_its_live_tail() -> None:
    state = UiState(clock=lambda: NOW)
    call = shell()
    state.apply(CallReady(call))
    state.apply(ToolStarted(call))
    state.apply(ToolOutput("c1", "".join(f"step {i}\n" for i in range(10)) + "step 10 runs"))
    (entry,) = state.transcript
    assert entry_text(entry, entry.tool, 80) == [
        "▸ c1 shell pytest -q  running",
        "    … 7 lines earlier",
        "    step 7",
        "    step 8",
        "    step 9",
        "    step 10 runs",
    ]
    assert state.tools["c1"].whole().endswith("step 9\nstep 10 runs")  # what the pager shows


SECRET = "sk-test-0123456789abcdef"
LONG = 2 * LINE_KEEP + CUT_SLACK  # a line longer than this is cut to its ends
output_line = st.one_of(
    st.text(alphabet="ab \x1b\t\u202e", max_size=12),
    st.sampled_from([SECRET, f"key={SECRET}!", "sk-test-0123"]),
    st.integers(LONG - 2, LONG + 3000).map(lambda n: "L" * n + "end"),
)


def live_output_as_a_line_at_a_time(lines: list[str], keep: int, marks: list[int]) -> None:
    """``lines`` streamed cut at ``marks`` with ``STREAM_KEEP`` set to ``keep``: the pane's
    tail, the line count and the pager's newest ``keep`` characters are each line
    scrubbed, pictured and cut on its own, the newest kept whole."""
    text = "\n".join(lines)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tool_row, "STREAM_KEEP", keep)
        state = UiState(clock=lambda: NOW, scrubber=Scrubber([SECRET]))
        state.apply(CallReady(shell()))
        state.apply(ToolStarted(shell()))
        for start, end in itertools.pairwise(sorted({0, len(text), *marks})):
            state.apply(ToolOutput("c1", text[start:end]))
        row = state.tools["c1"]
        ctx = PaneContext(lambda: NOW, Scrubber([SECRET]))
        complete = [cut_line(ctx.scrub(line)) for line in lines[:-1]]
        assert list(row.tail) == complete[-tool_row.TOOL_TAIL :]
        assert row.output_lines == len(complete)
        kept: list[str] = []
        size = 0
        for line in reversed(complete):  # the newest lines within ``keep`` (one at least)
            if kept and size + len(line) + 1 > keep:
                break
            kept.insert(0, line)
            size += len(line) + 1
        assert row.streamed_chars == size
        opened = [row.open_line] if row.partial else []
        earlier = len(complete) - len(kept)
        note = [f"[… {earlier:,} earlier lines are no longer held here]"] if earlier else []
        assert row.whole() == "\n".join([*note, *kept, *opened])
        assert SECRET not in row.whole() and "\x1b" not in row.whole()
        if lines and lines[-1]:
            assert row.open_line == cut_line(ctx.scrub(lines[-1]))


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(output_line, max_size=60),
    keep=st.one_of(st.integers(1, 64), st.integers(1, 20_000)),
    cuts=st.lists(st.integers(0, 200_000), max_size=12),
)
def test_live_output_in_any_pieces_keeps_what_a_line_at_a_time_would(
    lines: list[str], keep: int, cuts: list[int]
) -> None:
    """A piece's complete lines are scrubbed and kept as one block (3,000,000 short lines
    cost the screen's loop 2.6 s a line at a time), and a key cut between pieces, even
    one a shape hid in the first (``key=sk-test-0``), is never shown in part."""
    size = len("\n".join(lines)) + 1
    live_output_as_a_line_at_a_time(lines, keep, [c % size for c in cuts])


@pytest.mark.parametrize("piece", [1, 2, 5, 64])
def test_the_pagers_copy_is_trimmed_at_every_line_end(piece: int) -> None:
    """Every ``STREAM_KEEP`` that ends the kept text at, just before or just after a
    line's end, with the output in pieces of one to many lines."""
    lines = ["aaa", "bb", "", "c", "dddd", f"key={SECRET}", "ee", "f", "ggg", "open"]
    size = len("\n".join(lines))
    for keep in range(1, size + 3):
        live_output_as_a_line_at_a_time(lines, keep, list(range(0, size, piece)))


def test_only_rows_that_open_have_the_marker() -> None:
    state = UiState(clock=lambda: NOW)
    state.apply(CallReady(shell("c2", "make")))
    state.set_tool_state(shell("c2", "make"), "review")
    (entry,) = state.transcript
    assert entry_text(entry, entry.tool, 80) == ["• c2 shell make  review…"]
    (line,) = tool_lines(state.tools.values(), NOW, 80)
    assert line.plain.startswith("• c2 shell make")


def test_every_role_hangs_its_wrapped_lines_under_its_text() -> None:
    state = UiState(clock=lambda: NOW)
    words = "the quick brown fox jumps over the lazy dog " * 3
    state.add_user(words)
    state.note(words)
    state.note(f"bad_json at byte 3: {words}", "error")
    shown = rows(state, 40)
    assert shown[0].startswith("you  the quick")
    assert all(
        line.startswith("     ") for line in shown[1:] if line[:4].strip() not in ("·", "err")
    )
    continued = [line for line in shown if not line.startswith(("you", "·", "err"))]
    assert len(continued) >= 6 and all(line[:5] == "     " and line[5] != " " for line in continued)


def test_the_whole_output_is_kept_within_a_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tools_model, "OUTPUT_BUDGET", len(OUTPUT) * 2)
    state = UiState(clock=lambda: NOW)
    for n in range(3):
        call = shell(f"c{n}")
        state.apply(CallReady(call))
        state.apply(ToolFinished(ToolResult(call.id, "shell", "ok", OUTPUT, 0, 0.1)))
    first, second, third = (state.tools[f"c{n}"] for n in range(3))
    assert second.output == third.output == OUTPUT
    assert first.output == "" and first.output_dropped == len(OUTPUT)
    assert first.fold and "no longer held" in first.whole() and first.opens


# ----------------------------------------------------------------------------- Tools pane


def test_the_tools_pane_keeps_one_row_and_says_where_it_ran() -> None:
    state = UiState(clock=lambda: NOW)
    call = shell("c1", "pytest -q " + "x" * 300)
    state.apply(CallReady(call))
    state.apply(ToolStarted(call))
    state.apply(ToolOutput("c1", "col\t" * 200 + "\n"))
    state.apply(ToolFinished(ToolResult("c1", "shell", "ok", "done\n", 0, 0.5, SANDBOXED)))
    (line,) = tool_lines(state.tools.values(), NOW, 80)
    assert "\n" not in line.plain and "\t" not in line.plain and line.cell_len <= 78
    assert line.plain.startswith("▸ c1 shell pytest -q xxx")
    assert " sandbox " in line.plain
    escalated = {"sandbox": {"mode": "escalated", "network": True}}
    state.apply(CallReady(shell("c2")))
    state.apply(ToolFinished(ToolResult("c2", "shell", "ok", "x\n", 0, 0.5, escalated)))
    assert state.tools["c2"].where == "outside"


def test_a_call_whose_id_an_earlier_one_had_keeps_that_ones_row() -> None:
    """LM Studio numbers each response's calls from ``call_0``: the second response's call
    took the first's row away, so the Tools pane showed one call of two."""
    state = UiState(clock=lambda: NOW)
    for n, command in enumerate(("make", "make test")):
        call = shell("call_0", command)
        state.apply(ResponseStarted("native-inc", n))
        state.apply(CallReady(call))
        state.apply(ToolStarted(call))
        state.apply(ToolFinished(ToolResult("call_0", "shell", "ok", f"{command} ran\n", 0, 0.1)))
    shown = [line.plain for line in tool_lines(state.tool_rows, NOW, 80)]
    assert [line.split("  ")[0] for line in shown] == [
        "▸ call_0 shell make",
        "▸ call_0 shell make test",
    ]
    assert [row.message for row in state.tool_rows] == ["make ran", "make test ran"]
    assert state.tools["call_0"] is state.tool_rows[-1]  # its id's events go to the newest


def test_the_tools_pane_holds_at_most_its_limit_and_never_drops_a_running_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tools_model, "MAX_TOOLS", 3)
    state = UiState(clock=lambda: NOW)
    first = shell("c0")
    state.apply(CallReady(first))
    state.apply(ToolStarted(first))  # still running
    for n in range(1, 6):
        state.apply(CallReady(shell(f"c{n}")))
        state.apply(ToolFinished(ToolResult(f"c{n}", "shell", "ok", "x\n", 0, 0.1)))
    assert [r.call.id for r in state.tool_rows] == ["c0", "c1", "c2", "c3", "c4", "c5"]
    state.apply(ToolFinished(ToolResult("c0", "shell", "ok", "x\n", 0, 0.1)))
    state.apply(CallReady(shell("c6")))
    assert [r.call.id for r in state.tool_rows] == ["c4", "c5", "c6"]
    assert sorted(state.tools) == ["c4", "c5", "c6"]


# ----------------------------------------------------------------------------- Transcript


def test_retries_of_one_failure_are_one_line_that_updates() -> None:
    state = UiState(clock=lambda: NOW)
    reason = "HTTP 503 Service Unavailable — the server says: overloaded, try later"
    for attempt, delay in ((1, 1.0), (2, 2.0), (3, 4.0)):
        state.apply(Retry(attempt, delay, reason, limit=5))
    (entry,) = state.transcript
    assert entry.text == f"↻ retrying (3/5) in 4 s: {reason}"
    assert entry.version == 2  # updated in place twice
    state.apply(Retry(4, 8.0, "connection closed before a response (reset)", limit=5))
    assert len(state.transcript) == 2  # another failure: another line


def test_an_interrupted_turn_is_said_once_naming_the_key() -> None:
    state = UiState(clock=lambda: NOW)
    state.apply(UserMessage("plan it"))
    state.apply(ResponseStarted("ctl-heredoc", 0))
    state.apply(Confirmed(0, "text", b"First I will "))
    state.stopping("ctrl+c")
    state.apply(TurnEnded("cancelled", "turn cancelled by the user"))
    reply = state.transcript[-1]
    assert reply.role == "ai" and reply.interrupted and reply.interrupted_by == "ctrl+c"
    assert not any("cancelled" in e.text for e in state.transcript)
    # with no reply cut, one line says it
    state.apply(UserMessage("again"))
    state.stopping("Esc")
    state.apply(TurnEnded("cancelled", "turn cancelled by the user"))
    assert state.transcript[-1].text == "⏹ interrupted (Esc): the turn stopped"


def _event_classes() -> set[type[Event]]:
    found: set[type[Event]] = set()
    for name in ("frontier.app.events", "frontier.tools.contract"):
        for _, value in inspect.getmembers(importlib.import_module(name), inspect.isclass):
            if issubclass(value, Event) and value is not Event:
                found.add(value)
    return found


def test_the_dispatch_table_covers_every_event_class() -> None:
    """A new event type must get a handler or be listed as ignored on purpose."""
    classes = _event_classes()
    assert classes, "no event classes found"
    table = UiState().handlers
    missing = {cls.__name__ for cls in classes - set(table) - IGNORED}
    assert not missing, f"UiState has no handler for {sorted(missing)} (add one, or to IGNORED)"
    assert not set(table) & IGNORED


def test_the_dispatch_table_runs_each_events_handlers_in_pane_order() -> None:
    """Stream, confirmed, errors, tools, transcript, status: a handler reading another
    pane's model sees it already updated by the same event."""
    state = UiState()
    order = list(vars(state.models).values())
    for kind, handlers in state.handlers.items():
        owners = [handler.__self__ for handler in handlers if isinstance(handler, MethodType)]
        assert len(owners) == len(handlers), kind
        ranks = [next(i for i, model in enumerate(order) if model is o) for o in owners]
        assert ranks == sorted(set(ranks)), f"{kind.__name__}: {ranks}"


# ----------------------------------------------------------------------------- Pilot


def live_app(theme: str = "frontier-dark") -> FrontierApp:
    app = FrontierApp(
        Config(model="smollm2", theme=theme),
        welcome=False,
        autostart=False,
        clock=lambda: NOW,
        token_rate=68.0,
        remember_theme=False,
    )
    assert app.live is not None
    app.live.session = fake_session(Path("."), session_id="7f3a2b9c").session
    return app


async def settle(pilot: Pilot[Any]) -> FrontierApp:
    app = pilot.app
    assert isinstance(app, FrontierApp)
    await until(pilot, lambda: app.main.is_mounted, "the main screen")
    for box in [*app.query(Input), *app.query(TextArea)]:
        box.cursor_blink = False
    for _ in range(2):
        app.flush(force=True)
        await pilot.pause()
    return app


def prompt_focused(app: FrontierApp) -> bool:
    focused = app.focused
    return focused is not None and focused.id == "prompt"


async def open_the_finished_rows_pager(pilot: Pilot[Any], app: FrontierApp) -> PagerScreen:
    """``pytest -q`` has run (``finished``): Enter on its Transcript row opens the pager."""
    await settle(pilot)
    finished(app.state)
    return await enter_on_the_transcript(pilot, app)


async def enter_on_the_transcript(pilot: Pilot[Any], app: FrontierApp) -> PagerScreen:
    """Enter on the Transcript's tool row (its only one, or the one it holds selected):
    the pager."""
    app.flush(force=True)
    transcript = app.main.query_one(Transcript)
    transcript.focus()
    await focus_of(pilot, transcript, "the Transcript")
    await pilot.press("enter")
    return await opened(pilot, PagerScreen, "the pager")


async def test_enter_on_a_tool_row_opens_the_whole_output_and_search_finds_a_far_line() -> None:
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pager = await open_the_finished_rows_pager(pilot, app)
        view = pager.query_one(PagerView)
        assert view.lines == OUTPUT.rstrip("\n").split("\n")  # the whole output, as sent
        assert view.row_count > view.scrollable_content_region.height  # beyond one screen
        await pilot.press("slash")
        box = pager.query_one("#pager-search", Input)
        await focus_of(pilot, box, "the search box")
        await pilot.press(*"NEEDLE", "enter")
        await until(pilot, lambda: view.current is not None, "a match")
        assert len(view.matches) == 1 and view.matches[0][0] == NEEDLE_LINE
        row = view.row_of(NEEDLE_LINE, view.matches[0][1])
        top = int(view.scroll_offset.y)
        assert top > 0 and top <= row < top + view.scrollable_content_region.height
        current = view.get_component_rich_style("pager--current", partial=True)
        assert current.bgcolor is not None
        assert any(style.bgcolor == current.bgcolor for style in view.row_styles(row))
        await pilot.press("n")  # one match: n stays on it
        assert view.current == 0
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, PagerScreen), "the pager to close")
        await until(pilot, lambda: prompt_focused(app), "the prompt to get the keyboard back")


async def test_the_pager_wraps_once_at_its_own_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mounted before it was laid out, the pager wrapped its text at 8 columns and showed
    that for a moment (a megabyte of a running command's output: 130,000 rows) before the
    resize wrapped it again at its width."""
    from frontier.app.frontends.tui.screens import pager as pager_module

    sized: list[int] = []
    real = pager_module.set_virtual_size
    monkeypatch.setattr(
        pager_module,
        "set_virtual_size",
        lambda view, size: (sized.append(size.width), real(view, size)),
    )
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        pager = await open_the_finished_rows_pager(pilot, app)
        view = pager.query_one(PagerView)
        await until(pilot, lambda: view.row_count > 0, "the pager's rows")
        assert sized == [view.scrollable_content_region.width] != [8]


async def test_a_click_on_a_tool_row_opens_it() -> None:
    app = live_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        finished(app.state)
        app.flush(force=True)
        await pilot.pause()
        transcript = app.main.query_one(Transcript)
        line = next(i for i, text in enumerate(transcript.plain_lines) if text.startswith("▸ c1"))
        top = transcript.content_region.y - transcript.region.y  # below its border
        left = transcript.content_region.x - transcript.region.x
        y = top + line - int(transcript.scroll_offset.y)
        await pilot.click(Transcript, offset=(left + 4, y))
        pager = await opened(pilot, PagerScreen, "the pager")
        assert pager.query_one(PagerView).lines[NEEDLE_LINE].endswith("FAILED needle here")
        await pilot.press("q")
        await until(pilot, lambda: not isinstance(app.screen, PagerScreen), "the pager to close")


async def test_enter_in_the_tools_pane_opens_the_chosen_call() -> None:
    app = live_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        finished(app.state)
        other = shell("c2", "ls")
        app.state.apply(CallReady(other))
        app.state.apply(ToolFinished(ToolResult("c2", "shell", "ok", "README.md\n", 0, 0.1)))
        if hasattr(app.main, "set_layout"):
            app.main.set_layout("lab")  # the Tools pane is a lab pane
        app.flush(force=True)
        await pilot.pause()
        pane = app.main.query_one(ToolsPane)
        pane.focus()
        await focus_of(pilot, pane, "the Tools pane")
        await pilot.press("up", "enter")  # from the newest (c2) to c1
        pager = await opened(pilot, PagerScreen, "the pager")
        assert "c1 shell pytest -q" in str(pager.query_one("#pager").border_title)
        assert pager.query_one(PagerView).lines[NEEDLE_LINE].endswith("FAILED needle here")
        await pilot.press("escape")
        await until(pilot, lambda: prompt_focused(app), "the prompt to get the keyboard back")


# ----------------------------------------------------------------------------- snapshots


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
def test_snapshot_folded_row(snap_compare: Any, size: str, theme: str) -> None:
    app = live_app(theme)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        finished(app.state)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
def test_snapshot_pager_with_a_match(snap_compare: Any, size: str, theme: str) -> None:
    app = live_app(theme)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        finished(app.state)
        await settle(pilot)
        app.push_screen(PagerScreen("c1 shell pytest -q", OUTPUT, subtitle="ok exit=0 · 1.20 s"))
        pager = await opened(pilot, PagerScreen, "the pager")
        await pilot.press("slash", *"needle", "enter")
        view = pager.query_one(PagerView)
        await until(pilot, lambda: view.current is not None, "a match")
        for box in pager.query(Input):
            box.cursor_blink = False
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


async def test_a_running_calls_pager_follows_its_output_until_the_result() -> None:
    """The pager showed a running command's output as it was when opened ("open it again
    for more"): watching a long test run meant closing and opening it over and over."""
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        call = shell()
        app.state.apply(CallReady(call))
        app.state.apply(ToolStarted(call))
        app.state.apply(ToolOutput("c1", "".join(f"step {i}\n" for i in range(40))))
        pager = await enter_on_the_transcript(pilot, app)
        view = pager.query_one(PagerView)
        at_end = lambda: view.scroll_offset.y == view.max_scroll_y > 0  # noqa: E731
        await until(pilot, at_end, "the newest output shown")
        assert view.lines[-1] == "step 39"

        app.state.apply(ToolOutput("c1", "".join(f"step {i}\n" for i in range(40, 80))))
        await until(pilot, lambda: view.lines[-1] == "step 79", "the new output")
        await until(pilot, at_end, "still at the newest line")
        frame = pager.query_one("#pager")
        assert str(frame.border_subtitle).startswith("running · live")

        await pilot.press("home")  # scrolled up: new output does not move the view
        app.state.apply(ToolOutput("c1", "step 80\n"))
        await until(pilot, lambda: view.lines[-1] == "step 80", "more output")
        assert view.scroll_offset.y == 0

        app.state.apply(ToolFinished(ToolResult("c1", "shell", "ok", "all passed\n", 0, 1.5)))
        await until(pilot, lambda: view.lines == ["all passed"], "the result")
        await until(pilot, lambda: pager.follow is None, "no more looks")
        assert str(frame.border_subtitle).startswith("ok exit=0 · 1.50 s")


async def test_a_command_that_looks_like_markup_opens_in_the_pager() -> None:
    """The pager's title is the call's command, the model's text: ``echo '[/]'`` was read
    as markup there (a markup error: the TUI stopped when its output was opened)."""
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        call = shell(command="echo '[/]' [bold]")
        app.state.apply(CallReady(call))
        app.state.apply(ToolStarted(call))
        app.state.apply(ToolFinished(ToolResult("c1", "shell", "ok", "[/]\n", 0, 0.1)))
        pager = await enter_on_the_transcript(pilot, app)
        title = pager.query_one("#pager").border_title
        assert title is not None and "echo '\\[/]' \\[bold]" in title  # shown as typed
