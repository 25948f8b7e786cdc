"""Issue 21, item 1: the command review shows every line that approving runs.

A model's ``echo safe``, 40 blank lines and ``touch PWNED`` showed ``echo safe`` and
blank rows; the key hints went off screen and ``a`` still approved. Here the review
runs over the real tool boundary (the real ``shell`` and ``python`` tools in a
``tmp_path`` workspace, the App's own ``review`` as the approver), so "approved" is
checked by the file the command creates: it exists only after the person saw the end.
Tests read the screen as the terminal shows it and wait on states, never on time.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import eventually, opened, screen_lines, until
from textual.pilot import Pilot
from textual.worker import Worker
from tui_fakes import asking_factory

from frontier.app.config import Config
from frontier.app.events import ToolCall, ToolResult
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.tools.approval_rules import CommandRule, EditRule
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.registry import default_registry
from frontier.widgets.command_view import CommandView, blank_note, fold_items, source_lines
from frontier.widgets.display import command_gist, rule_text
from frontier.widgets.state import UiState, summarize_call
from frontier.widgets.tools_pane import tool_lines
from frontier.widgets.transcript import render_entry

SIZES = {"80x24": (80, 24), "100x40": (100, 40), "120x40": (120, 40)}
sizes = pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))

BLANKS = "echo safe\n" + "\n" * 40 + "touch PWNED"
"""The issue's command: 42 lines, ``touch PWNED`` after 40 blank ones."""
COMMENTS = "echo safe\n" + "#\n" * 60 + "touch PWNED"
"""The same trick without blank lines (nothing to fold): longer than any body here."""
PYTHON = "print('safe')\n" + "pass\n" * 60 + "open('PWNED', 'w').close()\n"


def on_screen(app: Any, needle: str) -> bool:
    return any(needle in line for line in screen_lines(app))


def app_for_review() -> FrontierApp:
    """The TUI over a scripted session that sends nothing: questions reach its review
    through the session's ``ApprovalRequested`` events (``tui_fakes.ask``)."""
    factory, _ = asking_factory(Path.cwd())
    return FrontierApp(Config(model="smollm2"), session_factory=factory, remember_theme=False)


def run_call(app: FrontierApp, root: Path, call: ToolCall) -> Worker[ToolResult]:
    """The call through the real boundary, the App's review as its approver (what a live
    session does): it runs only if the review approves it."""

    async def run() -> ToolResult:
        while app.session is None:  # the state the call needs, not a time
            await asyncio.sleep(0)
        desk = app.session._approvals
        assert desk is not None
        return await ToolBoundary(default_registry(), root, desk, None).run(call)

    return app.run_worker(run(), exit_on_error=False)


async def review_of(pilot: Pilot[Any]) -> ReviewScreen:
    screen = await opened(pilot, ReviewScreen, "the review")
    view = screen.query_one(CommandView)
    await until(pilot, lambda: view.size.height > 0 and view.row_count > 0, "the command laid out")
    return screen


def toasts(app: FrontierApp) -> list[str]:
    """Every toast from now on, as it is raised: ``app._notifications`` drops one after
    its 4 s, and two key presses can take that long on a busy box."""
    told: list[str] = []
    notify = app.notify

    def noted(message: str, **kwargs: Any) -> None:
        told.append(message)
        notify(message, **kwargs)

    app.notify = noted  # type: ignore[method-assign]
    return told


def keys_shown(app: Any) -> None:
    """The hint line is on screen whole (never pushed off by a long command)."""
    assert isinstance(app.screen, ReviewScreen)
    hints = app.screen.query_one("#review-keys").content.plain
    assert any(hints in line for line in screen_lines(app)), hints


# ---------------------------------------------------------------------- the case
@sizes
async def test_forty_blank_lines_fold_and_the_last_line_is_on_screen(
    size: tuple[int, int], tmp_path: Path
) -> None:
    app = app_for_review()
    async with app.run_test(size=size) as pilot:
        worker = run_call(app, tmp_path, ToolCall("c3", "shell", {"command": BLANKS}))
        await review_of(pilot)

        def whole() -> None:
            assert on_screen(app, "touch PWNED")  # the line that runs is on screen
            assert on_screen(app, "⋮ 40 blank lines")  # the blank rows are one row
            assert on_screen(app, "shell: 42 lines")  # the head counts every line
            keys_shown(app)

        await eventually(pilot, whole, "the whole command on screen")
        assert not (tmp_path / "PWNED").exists()
        await pilot.press("a")
        await worker.wait()
    assert worker.result is not None and worker.result.kind == "ok"
    assert (tmp_path / "PWNED").exists()
    assert app.reviews[0].decision == Decision(True)


# slow (3-4 s alone, 10-15 s in the full run): `end` and `home` scroll the 62-line command
# as the person sees it, Textual's animated scroll (~1 s of frames each, every frame painted;
# the suite turns animations off, this test back on), and Pilot waits for the animation to
# end; six sizes and tools
@sizes
@pytest.mark.parametrize(
    ("tool", "arg", "source"), [("shell", "command", COMMENTS), ("python", "code", PYTHON)]
)
async def test_approval_waits_until_the_end_has_been_on_screen(
    size: tuple[int, int], tool: str, arg: str, source: str, tmp_path: Path
) -> None:
    app = app_for_review()
    app.animation_level = "full"  # the scroll a person sees, frame by frame
    lines = source.count("\n") + (not source.endswith("\n"))
    async with app.run_test(size=size) as pilot:
        worker = run_call(app, tmp_path, ToolCall("c4", tool, {arg: source}))
        screen = await review_of(pilot)
        view = screen.query_one(CommandView)

        def announced() -> None:
            assert not on_screen(app, "PWNED")  # below the body...
            assert any(re.search(r"↓ \d+ more lines below", line) for line in screen_lines(app))
            assert on_screen(app, "scroll to the end to approve")  # ...and it says so
            assert on_screen(app, f"{tool}: {lines} lines")
            keys_shown(app)

        await eventually(pilot, announced, "the 'more below' marker")
        told = toasts(app)
        await pilot.press("a", "A")  # neither approves yet
        await until(pilot, lambda: bool(told), "the refusal")
        assert "scroll to the end" in told[0]
        assert screen.is_attached and not app.reviews
        assert not (tmp_path / "PWNED").exists()

        await pilot.press("end")
        await until(pilot, lambda: view.end_seen, "the end scrolled into view")

        def at_end() -> None:
            assert on_screen(app, "PWNED")
            assert on_screen(app, f"■ end of the {'code' if tool == 'python' else 'command'}")
            assert on_screen(app, "a approve")
            keys_shown(app)

        await eventually(pilot, at_end, "the last line on screen")
        await pilot.press("home")  # scrolling back up does not take it back
        await until(pilot, lambda: view.scroll_y == 0, "back at the top")
        await pilot.press("a")
        await worker.wait()
    assert worker.result is not None and worker.result.kind == "ok", worker.result
    assert (tmp_path / "PWNED").exists()


@sizes
async def test_denying_before_the_end_is_always_possible(
    size: tuple[int, int], tmp_path: Path
) -> None:
    app = app_for_review()
    async with app.run_test(size=size) as pilot:
        worker = run_call(app, tmp_path, ToolCall("c5", "shell", {"command": COMMENTS}))
        await review_of(pilot)
        await pilot.press("escape")
        await worker.wait()
    assert worker.result is not None and worker.result.kind == "denied"
    assert not (tmp_path / "PWNED").exists()


async def test_the_reason_box_keeps_the_hints_on_screen(tmp_path: Path) -> None:
    app = app_for_review()
    async with app.run_test(size=(80, 24)) as pilot:
        worker = run_call(app, tmp_path, ToolCall("c6", "shell", {"command": COMMENTS}))
        screen = await review_of(pilot)
        await pilot.press("d")
        await until(pilot, lambda: screen.query_one("#reason").has_focus, "the reason box")

        def hints() -> None:
            keys_shown(app)
            assert on_screen(app, "enter deny")

        await eventually(pilot, hints, "the hints with the reason box open")
        await pilot.press("enter")
        await worker.wait()
    assert worker.result is not None and worker.result.kind == "denied"


# ---------------------------------------------------------------------- every argument
class ArgsApp(FrontierApp):
    """A review of a call with no command: every argument is what approving passes on."""

    def __init__(self, call: ToolCall) -> None:
        super().__init__(
            Config(model="smollm2"), welcome=False, autostart=False, remember_theme=False
        )
        self.call = call
        self.decided: list[Decision] = []

    def on_mount(self) -> None:
        super().on_mount()
        spec = ToolSpec("deploy", "run a deploy", {}, mutates=True, kind="exec")
        screen = ReviewScreen(self.call, spec, Preview(kind="command"))
        self.push_screen(screen, self.decided.append)


async def test_every_argument_of_a_call_without_a_command_is_reviewed_to_the_end() -> None:
    args = {"target": "prod", **{f"flag{n:02d}": "off" for n in range(40)}, "last": "rm -rf /"}
    app = ArgsApp(ToolCall("c7", "deploy", args))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await review_of(pilot)
        total = len(json.dumps(args, indent=2).split("\n"))

        def announced() -> None:
            assert on_screen(app, f"deploy: {total} lines of arguments")
            assert not on_screen(app, "rm -rf /")
            assert on_screen(app, "more lines below")

        await eventually(pilot, announced, "the arguments' marker")
        told = toasts(app)
        await pilot.press("a")
        await until(pilot, lambda: bool(told), "the refusal")
        assert not app.decided
        await pilot.press("end")
        await until(pilot, lambda: screen.query_one(CommandView).end_seen, "the end")
        await eventually(pilot, lambda: on_screen(app, '"last": "rm -rf /"'), "the last argument")
        await pilot.press("a")
        await until(pilot, lambda: bool(app.decided), "the decision")
    assert app.decided == [Decision(True)]


# ---------------------------------------------------------------------- rows elsewhere
def test_transcript_and_tools_rows_say_how_many_more_lines() -> None:
    call = ToolCall("c3", "shell", {"command": BLANKS})
    assert summarize_call(call) == "echo safe (+41 lines)"
    # sent under another agent's name (`cmd`: taken as `command`), the row says the same
    assert summarize_call(ToolCall("c4", "shell", {"cmd": BLANKS})) == "echo safe (+41 lines)"
    state = UiState(clock=lambda: 100.0)
    state.set_tool_state(call, "review")
    row = state.tools["c3"]
    (entry,) = [e for e in state.transcript if e.call_id == "c3"]
    assert "echo safe (+41 lines)" in render_entry(entry, row, 100.0).plain
    for width in (160, 80, 40):  # a narrow row cuts the command, never the count
        (line,) = tool_lines([row], now=100.0, width=width)
        assert "(+41 lines)" in line.plain, (width, line.plain)
    one = ToolCall("c4", "shell", {"command": "pytest -q\n"})
    assert summarize_call(one) == "pytest -q"  # a final newline is not another line


def test_blank_runs_fold_only_from_three_lines() -> None:
    def items(source: str) -> list[tuple[int, int]]:
        return fold_items(source_lines(source))

    assert items("a\n\n\nb") == [(1, 1), (2, 2), (3, 3), (4, 4)]  # Python's two stay
    assert items("a\n" + " \t\n" * 5 + "b\n") == [(1, 1), (2, 6), (7, 7)]
    assert blank_note(2, 6).plain == "⋮ 5 blank lines (2–6)"
    # a line break the shell does not see is a character to show, not a new line
    view = CommandView("echo safe\rtouch PWNED\x0b\u2028", "bash")
    assert view.shown == ["echo safe␍touch PWNED␋\u2028"] and view.total == 1


# ---------------------------------------------------------------------- the rule it offers
class RuleApp(FrontierApp):
    """A review that offers "always allow" (as a live session's does)."""

    def __init__(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        super().__init__(
            Config(model="smollm2"), welcome=False, autostart=False, remember_theme=False
        )
        self.review_args = (call, spec, preview)
        self.decided: list[Decision] = []

    def on_mount(self) -> None:
        super().on_mount()
        screen = ReviewScreen(*self.review_args, always_allow=True)
        self.push_screen(screen, self.decided.append)


SHELL_SPEC = ToolSpec("shell", "run a command", {}, mutates=True, kind="exec")
PYTHON_SPEC = ToolSpec("python", "run python", {}, mutates=True, kind="exec")
RULES = {
    "shell": ("command", BLANKS, "the command `echo safe` … `touch PWNED` (42 lines, 40 blank)"),
    "python": (
        "code",
        PYTHON,
        "python code `print('safe')` … `open('PWNED', 'w').close()` (62 lines)",
    ),
}
"""The rule as the "always allow" line names it when it fits whole."""


def rule_pattern(rule: str) -> re.Pattern[str]:
    """``rule`` or the same with each quoted line cut short (``…``) on a narrow screen."""
    what, first, last, count = re.fullmatch(r"(.*?) `(.*)` … `(.*)` (\(.*\))", rule).groups()
    quoted = [f"`{re.escape(line[:6])}[^`]*`" for line in (first, last)]
    return re.compile(f"{re.escape(what)} {quoted[0]} … {quoted[1]} {re.escape(count)}")


@sizes
@pytest.mark.parametrize("tool", list(RULES))
async def test_the_rule_offered_names_a_many_line_command_by_its_ends_and_count(
    size: tuple[int, int], tool: str
) -> None:
    """The issue's "always allow the command `echo safe⏎⏎⏎⏎…⏎touch" ran off the screen:
    the rule is exactly this command, named by its first and last lines and how many
    lines it has, in a wording that fits (the count is never what the edge cuts)."""
    arg, source, rule = RULES[tool]
    call = ToolCall("c8", tool, {arg: source})
    spec = SHELL_SPEC if tool == "shell" else PYTHON_SPEC
    app = RuleApp(call, spec, Preview(kind="command", command=source, summary=""))
    async with app.run_test(size=size) as pilot:
        screen = await review_of(pilot)
        await pilot.press("end")
        await until(pilot, lambda: screen.query_one(CommandView).end_seen, "the end")

        pattern = rule_pattern(rule)

        def offered() -> None:
            more = screen.query_one("#review-more").content.plain
            assert more.startswith("A ") and pattern.search(more), more
            if size[0] >= 100:
                assert rule in more  # wide enough: both lines whole
            assert "⏎" not in more
            assert any(more in line for line in screen_lines(app)), more  # whole on screen

        await eventually(pilot, offered, "the rule on the line above the keys")
        await pilot.press("A")

        def asked() -> None:
            question = screen.query_one("#review-more").content.plain
            assert question.startswith("Always allow ") and question.endswith("?"), question
            assert pattern.search(question), question
            assert any(question in line for line in screen_lines(app)), question

        await eventually(pilot, asked, "the question")
        await pilot.press("1")
        await until(pilot, lambda: bool(app.decided), "the decision")
    assert app.decided == [Decision(True)]
    assert screen.always is not None and screen.always.rule.command == source.strip()  # exactly it


# ---------------------------------------------------------------------- one long line
SPACED = "echo safe" + " " * 3000 + "; touch PWNED;" + " " * 3000 + "echo done"
"""The third round's case: one line, the payload between two runs of 3,000 spaces. The
review cut it to its ends (``… 2,033 characters …`` where the ``touch`` was) and ``a``
approved it."""


def every_row(view: CommandView) -> list[str]:
    """Every row of the view's body as text (what scrolling through it shows)."""
    return [view.row(n).text.plain for n in range(view.row_count)]


@sizes
async def test_a_payload_between_long_runs_of_spaces_is_on_the_first_screen(
    size: tuple[int, int], tmp_path: Path
) -> None:
    app = app_for_review()
    async with app.run_test(size=size) as pilot:
        worker = run_call(app, tmp_path, ToolCall("c9", "shell", {"command": SPACED}))
        screen = await review_of(pilot)
        view = screen.query_one(CommandView)
        folded = "echo safe⋯ 3,000 spaces ⋯; touch PWNED;⋯ 3,000 spaces ⋯echo done"
        assert "".join(every_row(view)) == folded  # nothing cut: the spaces said, not shown

        def whole() -> None:
            assert on_screen(app, "; touch PWNED;")  # with the rest, at once
            assert on_screen(app, "⋯ 3,000 spaces ⋯") and on_screen(app, "echo done")
            assert not any("characters …" in line for line in screen_lines(app))
            keys_shown(app)
            assert view.end_seen  # marked after the paint that showed it

        await eventually(pilot, whole, "the whole command on the first screen")
        notes = [s for s in view.row(0).text.spans if "reverse" in str(s.style)]
        assert len(notes) == 2  # styled apart from the command's own text
        await pilot.press("a")
        await worker.wait()
    assert worker.result is not None and worker.result.kind == "ok"
    assert (tmp_path / "PWNED").exists()


@sizes
async def test_a_long_line_wraps_whole_and_approval_waits_for_its_end(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """Filler that is not blank is shown, wrapped: every character on some row, none cut,
    and ``a`` waits until the last row has been on screen."""
    command = "echo " + "x" * 6000 + "; touch PWNED; echo " + "y" * 6000
    app = app_for_review()
    async with app.run_test(size=size) as pilot:
        worker = run_call(app, tmp_path, ToolCall("c10", "shell", {"command": command}))
        screen = await review_of(pilot)
        view = screen.query_one(CommandView)
        assert "".join(every_row(view)) == command and view.total == 1
        await eventually(pilot, lambda: on_screen(app, "↓ 1 more line below"), "the marker")
        told = toasts(app)
        await pilot.press("a")
        await until(pilot, lambda: bool(told), "the refusal")
        assert not (tmp_path / "PWNED").exists()
        await pilot.press("end")
        await until(pilot, lambda: view.end_seen, "the end")
        await pilot.press("a")
        await worker.wait()
    assert worker.result is not None and worker.result.kind == "ok"
    assert (tmp_path / "PWNED").exists()


def test_blank_runs_fold_visibly_whatever_the_blank() -> None:
    """Any character a terminal draws blank folds (not only spaces), tabs say tabs; a
    short run (indentation, alignment) stays as it is; controls are still pictured."""
    view = CommandView(
        "a" + "\u3000" * 50 + "b\n" + "\t" * 40 + "c\n" + " " * 39 + "d\n\x1b[2J" + " " * 80,
        "bash",
    )
    assert view.shown == [
        "a⋯ 50 blank characters ⋯b",
        "⋯ 40 tabs ⋯c",
        " " * 39 + "d",
        "␛[2J⋯ 80 spaces ⋯",
    ]
    # lines a terminal draws empty fold with the blank lines, whatever they hold
    lines = source_lines("x\n" + "\u2800\u3164\n" * 3 + " " * 500 + "\ny")
    assert fold_items(lines) == [(1, 1), (2, 5), (6, 6)]


def test_a_command_gist_is_bounded_and_says_what_it_leaves_out() -> None:
    assert command_gist("ls -la") == "`ls -la`"
    assert command_gist("pytest -q\n") == "`pytest -q`"  # a final newline is no line
    assert command_gist(BLANKS) == "`echo safe` … `touch PWNED` (42 lines, 40 blank)"
    assert command_gist("\n\necho a\n\n") == "`echo a` (4 lines, 3 blank)"
    assert command_gist("\n \n\t\n") == "(3 blank lines)"
    long = "echo " + "x" * 20_000_000 + "; touch PWNED"
    gist = command_gist(long)
    assert gist == f"`echo {'x' * 34}…` ({len(long):,} characters)"
    many = "\n".join(f"step {n}" for n in range(200_000))
    assert command_gist(many, limit=12) == "`step 0` … `step 199999` (200,000 lines)"
    hostile = "touch PWNED; \x1b[1K\x1b[1Gecho safe\n\u202eexe\t\x9b2J"
    assert (
        command_gist(hostile) == "`touch PWNED; ␛[1K␛[1Gecho safe` … `\\u202eexe→\\x9b2J` (2 lines)"
    )
    assert rule_text(CommandRule("shell", "pytest", prefix=True)) == (
        "commands starting `pytest` (plain arguments)"
    )
    assert rule_text(EditRule("src/\x1b[2J")) == "edits under src/␛[2J/"
    assert rule_text(EditRule("")) == "edits anywhere in the workspace"
    # blanks cannot fill the gist's row: the payload after them is in it
    assert command_gist(SPACED) == "`echo safe⋯ 3,000 spaces ⋯; touch PWNED;…` (6,032 characters)"


def test_a_row_shows_what_follows_a_run_of_blanks_on_one_line() -> None:
    spaced = "echo safe" + " " * 3000 + "; touch PWNED;" + " " * 3000 + "echo done"
    shown = summarize_call(ToolCall("c5", "shell", {"command": spaced}))
    assert shown.startswith("echo safe⋯ 3,000 spaces ⋯; touch PWNED;")


# ---------------------------------------------------------------------- a key at the first frame
class EarlyKeyApp(FrontierApp):
    """``a`` pressed the moment a one-line command's review opens, before its view is
    laid out (a browser test hit it: the first frame came before the command's rows)."""

    def __init__(self) -> None:
        super().__init__(
            Config(model="smollm2"), welcome=False, autostart=False, remember_theme=False
        )
        self.decided: list[Decision] = []
        self.laid_out_then: list[bool] = []

    def on_mount(self) -> None:
        super().on_mount()
        spec = ToolSpec("shell", "run a command", {}, mutates=True, kind="exec")
        call = ToolCall("c3", "shell", {"command": "python3 -m unittest -v"})
        screen = ReviewScreen(call, spec, Preview(kind="command"))
        self.push_screen(screen, self.decided.append)

        def press() -> None:
            self.laid_out_then.append(screen.query_one(CommandView).laid_out)
            screen.action_approve()

        self.call_later(press)


async def test_approving_as_the_review_opens_waits_for_the_layout_not_refused() -> None:
    app = EarlyKeyApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: bool(app.decided), "the decision")
        assert toasts(app) == []  # no "scroll to the end … 0 more lines below"
    assert app.laid_out_then == [False]  # the case this is about
    assert app.decided == [Decision(True)]
