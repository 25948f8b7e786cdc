"""Issue 21, item 10: a long one-line file no longer freezes the TUI.

Reviewing an edit of a 1 MB one-line file took 19 s to open (2 MB: nothing in 20 s):
rich wraps a line character by character on the event loop. Every widget fed from file
content or a preview now renders at most the first and last 2,000 characters of a line,
``… N characters …`` between (``widgets/display.cut_line``). These tests only assert
that the 20 MB review opens, shows both ends and answers keys; how fast is measured in
``bench/review_long_line.py`` (figures in docs/BENCHMARKS.md), never here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_wait import eventually, opened, screen_text, until
from textual.app import App, ComposeResult
from textual.widgets import Static
from tui_fakes import ask, asking_factory

from frontier.app.config import Config
from frontier.app.events import CallReady, ToolCall, ToolOutput
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.diffing import file_preview
from frontier.widgets.command_view import CommandView
from frontier.widgets.confirmed import render_row
from frontier.widgets.diff_view import DiffView, HunkRows
from frontier.widgets.display import LINE_KEEP, cut_line, cut_lines
from frontier.widgets.errors_pane import ErrorsPane, error_label
from frontier.widgets.state import ConfirmedRow, ErrorRow, TranscriptEntry, UiState
from frontier.widgets.tools_pane import tool_lines
from frontier.widgets.transcript import render_entry

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
sizes = pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))

MB20 = 20_000_000
PATCH_SPEC = ToolSpec("apply_patch", "apply a unified diff", {}, mutates=True, kind="edit")
SHELL_SPEC = ToolSpec("shell", "run a command", {}, mutates=True, kind="exec")


def app_for_review() -> FrontierApp:
    """The TUI over a scripted session that sends nothing: questions reach its review
    through the session's ``ApprovalRequested`` events (``tui_fakes.ask``)."""
    factory, _ = asking_factory(Path.cwd())
    return FrontierApp(Config(model="smollm2"), session_factory=factory, remember_theme=False)


@pytest.fixture(scope="module")
def minified() -> Preview:
    """An edit of a 20 MB one-line file (the first and last characters change)."""
    old = "a" + "x" * (MB20 - 2) + "z\n"
    new = "A" + "x" * (MB20 - 2) + "Z\n"
    file = file_preview("dist/app.min.js", old.encode(), new.encode())
    return Preview(kind="diff", files=(file,), summary="M dist/app.min.js (+1 −1)")


@sizes
async def test_the_review_of_a_20_mb_line_opens_with_both_ends(
    size: tuple[int, int], minified: Preview
) -> None:
    app = app_for_review()
    call = ToolCall("c1", "write", {"path": "dist/app.min.js", "content": "…"})
    async with app.run_test(size=size) as pilot:
        worker = app.run_worker(ask(app, call, PATCH_SPEC, minified), exit_on_error=False)
        screen = await opened(pilot, ReviewScreen, "the review of the 20 MB line")
        diff = screen.query_one(DiffView)
        await eventually(pilot, lambda: "- axxxx" in screen_text(app), "the old line's start")
        hunk = screen.query_one("#hunk-0", Static).content
        assert isinstance(hunk, HunkRows)
        shown = [hunk.hl.line(line).plain for line in hunk.hunk.lines]  # what rows are cut from
        assert [text[:2] + text[-2:] for text in shown] == ["axxz", "AxxZ"]
        assert all(f"… {MB20 - 2 * LINE_KEEP:,} characters …" in text for text in shown)
        rows = hunk.rows(diff.scrollable_content_region.width)
        assert sum(len(row.plain) for row in rows) < 8 * LINE_KEEP  # both lines: not 40 MB
        await pilot.press("end")  # the diff scrolls to the new line's end
        await eventually(pilot, lambda: "xxxZ" in screen_text(app), "the new line's end")
        await pilot.press("w")  # one row per line, panned: what pans is the cut line
        await until(pilot, lambda: not diff.wrap, "no wrapping")
        assert 0 < diff.max_x() < 2 * LINE_KEEP + 64
        await pilot.press("a")
        await worker.wait()
    assert worker.result == Decision(True)


@sizes
async def test_a_20_mb_command_line_is_shown_whole(size: tuple[int, int]) -> None:
    """A command is never cut to its ends (the middle is what runs: issue 21, third
    round): the 20 MB line wraps, every character on some row, rows made as drawn."""
    command = "echo " + "x" * MB20 + " ; touch PWNED"
    app = app_for_review()
    call = ToolCall("c2", "shell", {"command": command})
    preview = Preview(kind="command", command=command, summary=f"shell: {command}")
    async with app.run_test(size=size) as pilot:
        worker = app.run_worker(ask(app, call, SHELL_SPEC, preview), exit_on_error=False)
        screen = await opened(pilot, ReviewScreen, "the review of a 20 MB command")
        view = screen.query_one(CommandView)
        await until(pilot, lambda: view.row_count > 0 and view.size.height > 0, "laid out")
        assert view.total == 1
        width = view.row(0).text.cell_len
        assert view.row_count == -(-len(command) // width)  # wrapped, not cut
        ends = [view.row(n).text.plain for n in (0, 1, view.row_count - 1)]
        assert "".join(ends[:2]) == command[: 2 * width]
        assert command.endswith(ends[2]) and ends[2].endswith(" ; touch PWNED")
        await pilot.press("end")
        await until(pilot, lambda: view.end_seen, "the end of the command")
        await eventually(pilot, lambda: "touch PWNED" in screen_text(app), "the command's end")
        await pilot.press("a")
        await worker.wait()
    assert worker.result == Decision(True)


def test_a_20_mb_output_line_stays_bounded_in_the_tools_pane() -> None:
    state = UiState(clock=lambda: 5.0)
    call = ToolCall("c3", "shell", {"command": "cat dist/app.min.js"})
    state.apply(CallReady(call))
    line = "<" + "y" * (MB20 - 2) + ">"
    for start in range(0, len(line), 65_536):  # as the process streams it
        state.apply(ToolOutput(call.id, line[start : start + 65_536]))
        assert len(state.tools[call.id].partial) < 3 * LINE_KEEP  # never the whole line
    row = state.tools[call.id]
    assert row.open_line.startswith("<yyy") and row.open_line.endswith("yyy>")
    assert f"… {MB20 - 2 * LINE_KEEP:,} characters …" in row.open_line
    state.apply(ToolOutput(call.id, "\nnext line\n"))
    assert list(row.tail) == [row.tail[0], "next line"] and row.output_lines == 2
    assert f"… {MB20 - 2 * LINE_KEEP:,} characters …" in row.tail[0]
    (shown,) = tool_lines([row], 5.0, 120)
    assert "2 lines │ next line" in shown.plain


def test_cutting_keeps_both_ends_and_is_idempotent() -> None:
    long = "s" + "m" * 10_000 + "e"
    cut = cut_line(long)
    assert cut.startswith("s" + "m" * (LINE_KEEP - 1)) and cut.endswith("m" * (LINE_KEEP - 1) + "e")
    assert f"… {len(long) - 2 * LINE_KEEP:,} characters …" in cut
    assert cut_line(cut) == cut  # a cut line is never cut again (its count stays true)
    assert cut_line("short") == "short"
    assert cut_lines(f"a\n{long}\nb").split("\n") == ["a", cut, "b"]


# ---------------------------------------------------------------------- the sweep
# Every other sink that can hold a line from a file, the stream or a server: each
# draws a bounded row (one row where the pane is one row a line).
LONG = "<" + "q" * (MB20 - 2) + ">"
CUT = f"… {MB20 - 2 * LINE_KEEP:,} characters …"


def test_transcript_entries_draw_the_ends_of_a_long_line() -> None:
    for role in ("thinking", "stop", "note", "error", "you"):
        text = f"✂ {LONG}" if role == "stop" else LONG
        shown = render_entry(TranscriptEntry(1, role, text), None, 0.0, expanded=True).plain
        assert CUT in shown and len(shown) < 3 * LINE_KEEP, role
        assert "<qqq" in shown and "qqq>" in shown, role
    heading = render_entry(TranscriptEntry(2, "session", f"new session\n{LONG}"), None, 0.0)
    assert "\n" not in heading.plain and CUT in heading.plain


def test_a_finished_calls_files_stay_one_row_each() -> None:
    state = UiState(clock=lambda: 5.0)
    call = ToolCall("c4", "write", {"path": "a.txt", "content": "x"})
    state.set_tool_state(call, "applied")
    row = state.tools["c4"]
    row.changes = (f"M docs/a\nb.md (+1 −0) {LONG}",)
    (line,) = tool_lines([row], 5.0, 120)
    assert "\n" not in line.plain and len(line.plain) < 3 * LINE_KEEP
    (entry,) = [e for e in state.transcript if e.call_id == "c4"]
    shown = render_entry(entry, row, 5.0).plain.split("\n")
    assert len(shown) == 3 and "docs/a⏎b.md" in shown[1] and "characters …" in shown[1]
    assert len(shown[1]) < 3 * LINE_KEEP


def test_confirmed_rows_and_error_labels_are_one_bounded_row() -> None:
    row = ConfirmedRow(1, "call", f"call c1\n{LONG} write", 0)
    assert "\n" not in render_row(row).plain and len(render_row(row).plain) < 1_000
    error = ErrorRow(1, "bad_json", f"line 1:\n{LONG}", 42)
    label = error_label(error).plain
    assert "\n" not in label and len(label) < 100


class ErrorsApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ErrorsPane(id="errors")


async def test_the_error_detail_shows_the_ends_of_a_long_message() -> None:
    app = ErrorsApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(ErrorsPane)
        pane.show([ErrorRow(1, "bad_json", f"could not parse {LONG}", 42)])
        pane.select(0)
        detail = app.query_one("#error-detail", Static)
        await until(pilot, lambda: "characters …" in str(detail.content), "the error's detail")
        assert len(str(detail.content)) < 3 * LINE_KEEP


@pytest.mark.parametrize("width", [80, 120])
def test_a_long_output_line_is_one_row_of_the_tools_pane(width: int) -> None:
    """Textual wraps a long ``Text`` whatever its ``no_wrap``: a 4,000-character output
    line (what the state keeps of a 20 MB one) made one call 40 rows of the pane; now
    at most a row's width of it is drawn (so the call takes two rows at most)."""
    state = UiState(clock=lambda: 5.0)
    call = ToolCall("c5", "shell", {"command": "cat dist/app.min.js"})
    state.apply(CallReady(call))
    state.apply(ToolOutput(call.id, LONG[:1_000_000]))
    (shown,) = tool_lines([state.tools[call.id]], 5.0, width)
    assert shown.cell_len < 2 * width and shown.plain.endswith("…")
    assert "1 lines │ <qqq" in shown.plain
