"""Issue 21, item 2 (the TUI half): nothing a terminal would obey reaches it from a pane.

The review head and the "always allow" line printed a command raw (``touch PWNED;
ESC[1K ESC[1G echo safe`` showed only ``echo safe``), and the patch review printed
U+202E raw in file names, the file list and diff lines (a C1 ``\\x9b`` vanished). Every
string from the model, a file, a file name, a workspace or a stored session now becomes
display text through ``widgets/display.display_preview``. Each test reads the rendered
screen (what the terminal gets) and checks two things: the escape's picture is there,
and no character of the unsafe class is anywhere on it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import eventually, opened, replay_step, screen_lines, until
from rich.text import Text
from textual.app import App, ComposeResult

from frontier.app.config import Config
from frontier.app.events import CallReady, Confirmed, ResponseStarted, ToolCall, ToolOutput
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.copy import CopyItem, _row
from frontier.app.frontends.tui.screens.inspector import InspectorScreen
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.app.frontends.tui.screens.sessions import SessionPicker
from frontier.app.replay_player import ReplayPlayer, source_from_recording
from frontier.app.session.catalogue import SessionInfo
from frontier.app.session.record import synthesize
from frontier.themes.palette import THEMES
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.diffing import file_preview
from frontier.widgets.display import display_preview
from frontier.widgets.pending import visible
from frontier.widgets.prompt_input import CompletionList, one_row
from frontier.widgets.raw_stream import display_text
from frontier.widgets.state import UiState
from frontier.widgets.status_bar import StatusInfo, render_status
from frontier.widgets.tools_pane import tool_lines
from frontier.widgets.transcript import render_entry

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
sizes = pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""The class ``terminal_text`` pictures: C0 but newline and tab, DEL, C1, bidi marks."""
HIDING = "touch PWNED; \x1b[1K\x1b[1Gecho safe"
"""Shown raw, the erase-line and cursor-home leave only ``echo safe`` on the row."""
COMMAND = HIDING + " \x9b2J \u202etxt.exe \x07"
FILE = "docs/\u202etxt.exe\x1b[2J.md"
LINE = "colour = '\x9b31mred' # \x1b]0;title\x07 \u2066end"

SHELL_SPEC = ToolSpec("shell", "run a command", {}, mutates=True, kind="exec")
PATCH_SPEC = ToolSpec("apply_patch", "apply a unified diff", {}, mutates=True, kind="edit")


def nothing_raw(app: Any) -> None:
    for line in screen_lines(app):
        found = UNSAFE.search(line)
        assert found is None, f"raw {found.group()!r} on screen: {line!r}"


def on_screen(app: Any, needle: str) -> bool:
    return any(needle in line for line in screen_lines(app))


class ReviewApp(App[None]):
    """One review (with an "always allow" offer) over an empty screen."""

    def __init__(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        super().__init__()
        for theme in THEMES:
            self.register_theme(theme)
        self.call, self.spec, self.preview = call, spec, preview
        self.decisions: list[Decision] = []

    def on_load(self) -> None:
        self.theme = "frontier-dark"

    def on_mount(self) -> None:
        screen = ReviewScreen(self.call, self.spec, self.preview, always_allow=True)
        self.push_screen(screen, self.decisions.append)


# ---------------------------------------------------------------------- review widgets
@sizes
async def test_a_command_with_escapes_is_shown_in_pictures(size: tuple[int, int]) -> None:
    call = ToolCall("c1\x1b[2J", "shell", {"command": COMMAND})
    preview = Preview(kind="command", command=COMMAND, summary=f"shell: {COMMAND}")
    app = ReviewApp(call, SHELL_SPEC, preview)
    async with app.run_test(size=size) as pilot:
        await opened(pilot, ReviewScreen, "the review")

        def pictured() -> None:
            lines = "\n".join(screen_lines(app))
            assert "touch PWNED; ␛[1K␛[1Gecho safe \\x9b2J \\u202etxt.exe ␇" in lines  # body
            assert "c1␛[2J shell: 1 line" in lines  # head
            assert "always allow the command `touch PWNED; ␛[1K␛[1G" in lines
            nothing_raw(app)

        await eventually(pilot, pictured, "the command in pictures")
        await pilot.press("A")  # the question names the rule the same way

        def asking() -> None:
            assert on_screen(app, "Always allow the command `touch PWNED; ␛[1K␛[1G")
            nothing_raw(app)

        await eventually(pilot, asking, "the always-allow question")


@sizes
async def test_a_patch_with_a_hostile_file_name_and_line_is_shown_in_pictures(
    size: tuple[int, int],
) -> None:
    file = file_preview(FILE, b"colour = 'plain'\n", (LINE + "\n").encode())
    preview = Preview(kind="diff", files=(file,), summary=f"M {FILE} (+1 −1)")
    call = ToolCall("c2", "apply_patch", {"patch": file.diff})
    app = ReviewApp(call, PATCH_SPEC, preview)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot, ReviewScreen, "the review")
        name = "docs/\\u202etxt.exe␛[2J.md"

        def pictured() -> None:
            lines = screen_lines(app)
            text = "\n".join(lines)
            assert "\\x9b31mred" in text and "␛]0;title␇" in text and "\\u2066end" in text
            assert sum(name in line for line in lines) >= 2  # title, and the list or header
            if screen.narrow:
                assert f"file 1/1: {name}" in text
            assert f"R {name}" not in text  # (a plain modify)
            nothing_raw(app)

        await eventually(pilot, pictured, "the file name and line in pictures")


# ---------------------------------------------------------------------- sibling sinks
@sizes
async def test_notifications_show_file_names_in_pictures(size: tuple[int, int]) -> None:
    app = FrontierApp(Config(model="smollm2"), welcome=False, autostart=False, remember_theme=False)
    async with app.run_test(size=size, notifications=True) as pilot:
        app.notify(f"exported to /tmp/{FILE} [bold]x[/]", title="saved \x9b")

        def toast() -> None:  # (a toast wraps its message)
            assert on_screen(app, "/tmp/docs/\\u202etxt.exe␛[2J.md")
            assert on_screen(app, "[bold]x[/]")  # text, not markup
            assert on_screen(app, "saved \\x9b")
            nothing_raw(app)

        await eventually(pilot, toast, "the toast")


HOSTILE_SESSION = SessionInfo(
    "ab\x1b[2J", 1_700_000_000.0, f"/home/me/{FILE}", "qwen\x9b", None, "ctl\u202e", "done",
    2, first_prompt="fix it \x1b]52;c;aGk=\x07 please",
)  # fmt: skip


@sizes
async def test_the_session_picker_shows_a_stored_session_in_pictures(
    size: tuple[int, int],
) -> None:
    app = FrontierApp(Config(model="smollm2"), welcome=False, autostart=False, remember_theme=False)
    async with app.run_test(size=size) as pilot:
        app.push_screen(SessionPicker([HOSTILE_SESSION]))
        await opened(pilot, SessionPicker, "the picker")

        def pictured() -> None:
            text = "\n".join(screen_lines(app))
            assert "ab␛[2J" in text and "␛]52;c;aGk=␇" in text
            assert "qwen\\x9b" in text and "ctl\\u202e" in text and "␛[2J.md" in text
            nothing_raw(app)

        await eventually(pilot, pictured, "the stored session in pictures")
        await pilot.press(*"\x1b[", "enter")  # nothing matches: the query is echoed safely
        await eventually(pilot, lambda: nothing_raw(app), "the 'no match' line")


async def test_the_inspector_shows_hostile_bytes_in_pictures(tmp_path: Path) -> None:
    text = "Hi.\ncall c1 re\x1b[2Jad \x9b\u202e\narg path a.py\nend\n"
    source = source_from_recording(synthesize(text, "ctl", sizes=(5,)), name="r\x1b[2J.jsonl")
    app = FrontierApp(
        Config(), player=ReplayPlayer(source), paused=True, token_rate=0.0, remember_theme=False
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await replay_step(pilot, "e")
        await until(pilot, lambda: bool(app.state.errors), "the error")
        nothing_raw(app)  # the stream panes, the transcript, the errors pane
        await pilot.press("e")
        await opened(pilot, InspectorScreen, "the inspector")

        def pictured() -> None:
            assert on_screen(app, "r␛[2J.jsonl")  # the source's name, in the border
            nothing_raw(app)

        await eventually(pilot, pictured, "the inspector in pictures")


class CompletionApp(App[None]):
    def compose(self) -> ComposeResult:
        yield CompletionList(id="complete")


async def test_file_name_completions_are_shown_in_pictures() -> None:
    app = CompletionApp()
    async with app.run_test(size=(80, 10)) as pilot:
        app.query_one(CompletionList).show_paths([FILE, "[b]plain[/b].py"])
        await eventually(
            pilot,
            lambda: on_screen(app, "docs/\\u202etxt.exe␛[2J.md") and on_screen(app, "[b]plain"),
            "the completions",
        )
        nothing_raw(app)


def test_rows_of_the_panes_hold_no_raw_controls() -> None:
    state = UiState(clock=lambda: 1.0)
    call = ToolCall("c\x1b[2J", "shell\u202e", {"command": COMMAND})
    state.apply(ResponseStarted("ctl", 0))
    state.apply(Confirmed(0, b"say \x1b[2J\xc2\x9b", "text"))
    state.apply(CallReady(call))
    state.apply(ToolOutput(call.id, "out \x1b]0;t\x07 \u202e\npartial \x9b"))
    row = state.tools[call.id]
    entry = next(e for e in state.transcript if e.call_id == call.id)
    shown = [
        render_entry(entry, row, 1.0).plain,
        *(line.plain for line in tool_lines([row], 1.0, 120)),
        *(r.preview for r in state.confirmed),
        *row.tail,
        row.open_line,
        _row(CopyItem("command", f"{call.id} {call.name}", COMMAND), 80).plain,
        render_status(
            StatusInfo("m\x1b[31m", "ctl\u202e", 1.0, 0, 0, "s\x9b", activity=f"running {call.id}"),
            200,
        ).plain,
        display_text(COMMAND.encode()),
        visible(COMMAND.encode()),
        one_row(COMMAND),
    ]
    for text in shown:
        assert not UNSAFE.search(text), text
    assert "c␛[2J" in shown[0] and "␛[1K␛[1Gecho safe" in shown[0]


def test_display_preview_is_the_one_conversion() -> None:
    assert display_preview(COMMAND) == ("touch PWNED; ␛[1K␛[1Gecho safe \\x9b2J \\u202etxt.exe ␇")
    assert display_preview("a\nb\tc", one_line=True) == "a⏎b→c"
    assert display_preview("abcdef", limit=4) == "abc…"
    assert display_preview("x\u200fy\u2069z") == "x\\u200fy\\u2069z"
    assert isinstance(Text(display_preview(FILE)), Text)
