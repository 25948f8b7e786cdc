"""Keys a person presses in the live TUI, and what happens: ctrl+c interrupts then
quits, ``?`` opens help from an empty message box, shift+Tab cycles the approval
policy, a review's "always allow" stands (and is revoked from the palette), ctrl+o
and ``y`` copy, and the status bar, footer and tabs fit 80 columns."""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import (
    eventually,
    focus_of,
    opened,
    screen_lines,
    showing,
    type_into,
    until,
    workers_done,
)
from rich.console import Console
from textual import events
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widget import Widget
from tui_fakes import NEW, OLD, FakeLoop, FakeRuntime

from frontier.app.agent.approvals import ApprovalDesk
from frontier.app.agent.session import AgentSession, EventHub
from frontier.app.config import Config, load_approvals, save_approvals
from frontier.app.cst.ctl import CtlTransducer
from frontier.app.events import TurnEnded
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.copy import CopyScreen
from frontier.app.frontends.tui.screens.help import HelpScreen, help_text
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.app.model.conversation import Image
from frontier.tools.approval_rules import AllowedRule, ApprovalRules, CommandRule, EditRule
from frontier.tools.policy import PolicyApprover
from frontier.widgets.status_bar import StatusBar


class Clock:
    """The app's clock: ctrl+c's 2 s window is measured on it, so no test sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class StoppableLoop(FakeLoop):
    """The scripted loop, stopped the way ``AgentLoop.cancel_turn`` stops a turn: the
    task is cancelled wherever it waits (a review, a running command)."""

    task: asyncio.Task[Any] | None = None

    async def send(self, text: str, images: tuple[Image, ...] = ()) -> TurnEnded:
        self.task = asyncio.current_task()
        self.transducer = CtlTransducer()  # each turn is a new response
        try:
            return await super().send(text)
        except asyncio.CancelledError:
            if self.task is not None:
                self.task.uncancel()
            ended = TurnEnded("cancelled", "turn cancelled by the user")
            self.emit(ended)
            return ended

    def cancel_turn(self) -> None:
        super().cancel_turn()
        if self.task is not None and not self.task.done():
            self.task.cancel()


def gated_factory(root: Path, holder: list[FakeRuntime], policy: str = "ask", **kw: Any):
    """Sessions whose calls pass a real ``PolicyApprover`` (policy, rules, then the TUI's
    review), remembering rules in the test's own approvals file, as ``create_runtime`` wires."""

    def factory() -> AgentSession:
        events = EventHub()
        desk = ApprovalDesk(events.emit, interactive=True, rules_possible=lambda: True)
        gate = PolicyApprover(policy, desk, ApprovalRules(root))
        loop = StoppableLoop(root, events.emit, gate, **kw)
        session = AgentSession(
            loop,
            events,
            session_id="7f3a2b9c-keys",
            workspace=root,
            model="smollm2",
            policy=gate,
            approvals=desk,
            rules_saver=lambda data: save_approvals(root, data),
        )
        holder.append(FakeRuntime(loop, session))
        return session

    return factory


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "greet.py").write_text(OLD)
    return tmp_path


def make_app(
    workspace: Path,
    holder: list[FakeRuntime],
    clock: Clock | None = None,
    layout: str | None = None,
    **kw: Any,
):
    return FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="smollm2"),
        session_factory=gated_factory(workspace, holder, **kw),
        remember_theme=False,
        clock=clock or Clock(),
        layout=layout,
    )


def prompt_of(pilot: Pilot) -> Widget:
    return pilot.app.screen.query_one("#prompt")


async def send(pilot: Pilot, text: str) -> None:
    """Type ``text`` into the message box and press Enter, as a person does."""
    await until(pilot, lambda: prompt_of(pilot).region.height > 0, "the message box laid out")
    await pilot.click("#prompt")
    await type_into(pilot, lambda: prompt_of(pilot), text, "enter")


def first_hit(app: FrontierApp) -> str:
    """The command palette's highlighted hit, as shown."""
    results = app.screen.query_one(CommandList)
    if not results.option_count or results.highlighted is None:
        return ""
    return str(results.get_option_at_index(results.highlighted).prompt)


def toasts(app: FrontierApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def review_of(app: FrontierApp, kind: str) -> bool:
    return showing(app, ReviewScreen) and app.screen.preview.kind == kind


# ---------------------------------------------------------------------- ctrl+c
async def test_ctrl_c_with_no_turn_says_how_to_quit_and_a_second_within_2_s_quits(
    workspace: Path,
) -> None:
    clock = Clock()
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await focus_of(pilot, lambda: prompt_of(pilot), "the message box")
        await until(pilot, lambda: bool(holder), "the session (built after the first paint)")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: "press ctrl+c again to quit" in toasts(app), "the hint")
        clock.now += 2.5  # too late: this one only says it again
        await pilot.press("ctrl+c")
        await until(pilot, lambda: toasts(app).count("press ctrl+c again to quit") == 2, "again")
        assert app.is_running
        clock.now += 1.5
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running, "the app to quit")
    assert holder[0].closed


async def test_ctrl_c_interrupts_the_turn_at_its_review_then_a_second_quits(
    workspace: Path,
) -> None:
    clock = Clock()
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "add a shout flag")
        await opened(pilot, ReviewScreen, "the patch review")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.state.turn_running, "the turn to stop")
        await until(pilot, lambda: not showing(app, ReviewScreen), "the review to close")
        assert app.is_running
        assert app.state.last_turn == "cancelled"
        assert app.state.tools["c1"].state in ("cancelled", "denied")
        assert not app.state.tools["c1"].running
        assert any("interrupted · press ctrl+c again to quit" in t for t in toasts(app))
        assert (workspace / "greet.py").read_text() == OLD  # the patch never ran
        assert holder[0].loop.results == []
        clock.now += 1.0
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running, "the app to quit")


async def test_ctrl_c_stops_a_running_command_and_the_status_says_idle_again(
    workspace: Path,
) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, policy="auto")  # nothing to review: straight to running
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "run the tests")
        loop = holder[0].loop
        await until(pilot, lambda: loop.shell_started.is_set(), "the shell to start")
        app.flush(force=True)
        assert "esc to interrupt" in str(app.main.query_one(StatusBar).render())
        await pilot.press("ctrl+c")
        await workers_done(app)
        app.flush(force=True)
        assert app.state.last_turn == "cancelled"
        assert str(app.main.query_one(StatusBar).render()).startswith("idle")
        assert app.is_running


async def test_ctrl_c_copies_a_selection_in_the_message_box_instead(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(120, 40)) as pilot:
        await focus_of(pilot, lambda: prompt_of(pilot), "the message box")
        await pilot.press(*"hello")
        prompt = prompt_of(pilot)
        prompt.select_all()  # type: ignore[attr-defined]
        await pilot.press("ctrl+c")
        await until(pilot, lambda: app.clipboard == "hello", "the copy")
        assert not any("quit" in t for t in toasts(app))


# ---------------------------------------------------------------------- ? and tabs
async def test_question_mark_opens_help_from_an_empty_box_and_types_otherwise(
    workspace: Path,
) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(80, 24)) as pilot:
        await focus_of(pilot, lambda: prompt_of(pilot), "the message box")
        await pilot.press("question_mark")
        await opened(pilot, HelpScreen, "the help")
        console = Console(width=100, record=True, file=io.StringIO())
        console.print(help_text())
        text = " ".join(console.export_text().split())
        for words in ("hold shift while dragging", "ctrl+o", "ctrl+c", "shift+tab", "A approve"):
            assert words in text, words
        await pilot.press("question_mark")  # ? closes it again
        await until(pilot, lambda: not showing(app, HelpScreen), "the help to close")
        await focus_of(pilot, lambda: prompt_of(pilot), "the message box again")
        await pilot.press("w", "h", "y", "question_mark")
        await until(pilot, lambda: prompt_of(pilot).text == "why?", "the typed ?")  # type: ignore[attr-defined]
        assert not showing(app, HelpScreen)
        # a burst (a fast typist, a paste without bracketed paste): the `?` is judged
        # after the letters before it reached the box, never before
        prompt_of(pilot).clear()  # type: ignore[attr-defined]
        await until(pilot, lambda: prompt_of(pilot).text == "", "the cleared box")  # type: ignore[attr-defined]
        for key, char in (("o", "o"), ("k", "k"), ("question_mark", "?")):
            app.post_message(events.Key(key, char))
        await until(pilot, lambda: prompt_of(pilot).text == "ok?", "the burst typed")  # type: ignore[attr-defined]
        await pilot.pause()
        assert not showing(app, HelpScreen)


async def test_the_compact_tabs_name_the_keys_that_work_and_all_four_fit(
    workspace: Path,
) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, layout="lab")  # the tabs are the lab's
    async with app.run_test(size=(80, 24)) as pilot:
        await focus_of(pilot, lambda: prompt_of(pilot), "the message box")
        tabs = next(line for line in screen_lines(app) if "f2 Raw" in line)
        for label in ("f2 Raw", "f3 Confirmed", "f4 Pending", "f5 Errors"):
            assert label in tabs, tabs
        for key, pane in (("f5", "errors"), ("f3", "confirmed"), ("f2", "raw")):
            await pilot.press(key)
            await until(pilot, lambda pane=pane: app.main.active_tab == pane, f"the {pane} tab")
        await pilot.press("2")  # a digit is text in the message box, as the tabs imply
        await until(pilot, lambda: prompt_of(pilot).text == "2", "the typed digit")  # type: ignore[attr-defined]
        assert app.main.active_tab == "raw"


# ---------------------------------------------------------------------- shift+Tab
async def test_shift_tab_cycles_the_approval_policy_and_the_status_bar_shows_it(
    workspace: Path,
) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(80, 24)) as pilot:
        await focus_of(pilot, lambda: prompt_of(pilot), "the message box")
        await until(pilot, lambda: bool(holder), "the session (built after the first paint)")
        session = holder[0].session
        seen = [session.approval]
        for _ in range(4):
            await pilot.press("shift+tab")
            await until(pilot, lambda: session.approval != seen[-1], "the next policy")
            seen.append(session.approval)
            app.flush(force=True)
            bar = str(app.main.query_one(StatusBar).render())
            assert f" {session.approval} " in f" {bar} ", bar
        assert seen == ["ask", "auto-edit", "auto", "read-only", "ask"]
        assert app.focused is prompt_of(pilot)  # shift+Tab moved no focus


async def test_auto_edit_from_shift_tab_writes_without_a_review(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, block_shell=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await focus_of(pilot, lambda: prompt_of(pilot), "the message box")
        await until(pilot, lambda: bool(holder), "the session (built after the first paint)")
        await pilot.press("shift+tab")
        await until(pilot, lambda: holder[0].session.approval == "auto-edit", "auto-edit")
        await send(pilot, "add a shout flag")
        await until(pilot, lambda: review_of(app, "command"), "only the command's review")
        assert (workspace / "greet.py").read_text() == NEW
        await pilot.press("a")
        await workers_done(app)
    assert [r.preview.kind for r in app.reviews] == ["command"]


# ---------------------------------------------------------------------- always allow
async def test_always_allow_stands_for_the_session_and_is_remembered_when_asked(
    workspace: Path,
) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, block_shell=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "add a shout flag")
        review = await opened(pilot, ReviewScreen, "the patch review")
        more = str(review.query_one("#review-more").render())
        assert "A approve and always allow edits anywhere in the workspace" in more
        await pilot.press("A")
        await until(pilot, lambda: review.choosing, "the question")
        await pilot.press("1")  # this session only
        await until(pilot, lambda: review_of(app, "command"), "the command review")
        await pilot.press("A")
        await until(pilot, lambda: app.screen.choosing, "the question")  # type: ignore[attr-defined]
        await pilot.press("2")  # and remember it for the workspace
        await workers_done(app)
        session = holder[0].session
        assert session.approval_rules == (
            AllowedRule(EditRule(""), False),
            AllowedRule(CommandRule("shell", "pytest -q"), True),
        )
        assert load_approvals(workspace)[0]["commands"] == ["pytest -q"]
        assert "edits" not in load_approvals(workspace)[0]  # a session rule is not saved
        # the same calls again: neither is asked
        (workspace / "greet.py").write_text(OLD)
        reviews = len(app.reviews)
        await send(pilot, "again")
        loop = holder[0].loop
        await until(pilot, lambda: len(loop.results) == 4, "the second turn's calls")
        await workers_done(app)
        assert len(app.reviews) == reviews
        assert [r.kind for r in holder[0].loop.results[-2:]] == ["ok", "ok"]
        assert (workspace / "greet.py").read_text() == NEW

        # revoked from the palette: the command is asked again and forgotten on disk
        await pilot.press("ctrl+p")
        await opened(pilot, CommandPalette, "the palette")
        await pilot.press(*"Revoke always-allow: the command")

        await until(pilot, lambda: "Revoke always-allow: the command" in first_hit(app), "the hit")
        await pilot.press("enter")
        await until(pilot, lambda: len(session.approval_rules) == 1, "the revoke")
        assert session.approval_rules == (AllowedRule(EditRule(""), False),)
        assert load_approvals(workspace) == ({}, [])


async def test_always_allow_needs_every_hunk_and_y_copies_the_diff(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, block_shell=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "add a shout flag")
        review = await opened(pilot, ReviewScreen, "the patch review")
        await pilot.press("y")
        diff = "".join(f.diff for f in review.preview.files)
        await until(pilot, lambda: app.clipboard == diff, "the copied diff")
        await pilot.press("space")  # decline the hunk: a rule cannot approve part of an edit
        await until(pilot, lambda: review.diff.choices.accepted == 0, "the declined hunk")
        await pilot.press("A")
        await until(pilot, lambda: any("accept every hunk" in t for t in toasts(app)), "why not")
        assert not review.choosing
        await pilot.press("space", "a")
        await until(pilot, lambda: review_of(app, "command"), "the command review")
        await pilot.press("y")
        await until(pilot, lambda: app.clipboard == "pytest -q", "the copied command")
        await pilot.press("a")
        await workers_done(app)
    assert holder[0].session.approval_rules == ()


# ---------------------------------------------------------------------- copy
async def test_ctrl_o_copies_the_chosen_entry_exactly(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, block_shell=False, policy="auto")
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "add a shout flag")
        loop = holder[0].loop
        await until(pilot, lambda: len(loop.results) == 2, "the calls")
        await workers_done(app)
        await focus_of(pilot, lambda: prompt_of(pilot), "the message box")
        await pilot.press("ctrl+o")
        picker = await opened(pilot, CopyScreen, "the copy picker")
        kinds = [item.kind for item in picker.items]
        assert kinds[0] == "output" and "reply" in kinds and "you" in kinds
        assert picker.items[0].text == "3 passed"  # the newest: the shell's result
        await pilot.press("enter")
        await until(pilot, lambda: app.clipboard == "3 passed", "the copy")
        await until(pilot, lambda: not showing(app, CopyScreen), "the picker to close")
        await pilot.press("ctrl+o")
        picker = await opened(pilot, CopyScreen, "the copy picker again")
        mine = next(i for i, item in enumerate(picker.items) if item.kind == "you")
        await pilot.press(*["down"] * mine, "enter")
        await until(pilot, lambda: app.clipboard == "add a shout flag", "the message copied")


# ---------------------------------------------------------------------- 80 columns
async def test_at_80_columns_status_footer_and_tabs_keep_what_matters(workspace: Path) -> None:
    clock = Clock()
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, clock, policy="auto")
    async with app.run_test(size=(80, 24)) as pilot:
        await focus_of(pilot, lambda: prompt_of(pilot), "the message box")
        await until(pilot, lambda: bool(holder), "the session (built after the first paint)")
        app.flush(force=True)

        def bottom() -> tuple[str, str]:
            lines = screen_lines(app)
            return lines[-2], lines[-1]

        def idle_fits() -> None:
            status, footer = bottom()
            for part in ("idle", "auto", "smollm2", "ctl-heredoc", "7f3a2b9c"):
                assert part in status, status
            for part in ("⇧tab Approval", "f1 Help", "^o Copy", "^p palette"):
                assert part in footer, footer

        await eventually(pilot, idle_fits, "the idle status bar")
        await send(pilot, "run the tests")
        loop = holder[0].loop
        await until(pilot, lambda: loop.shell_started.is_set(), "the command running")
        clock.now += 65.2

        def working_fits() -> None:
            app.flush(force=True)
            status, footer = bottom()
            assert "Working 1m05s · " in status and "· esc to interrupt · auto · " in status
            assert "esc Interrupt" in footer and "^p palette" in footer, footer
            assert len(status.rstrip()) <= 80 and len(footer.rstrip()) <= 80

        await eventually(pilot, working_fits, "the working status bar")
        await pilot.press("escape")
        await workers_done(app)


async def test_ctrl_p_under_a_screen_pushed_over_the_palette_opens_no_second_one(
    workspace: Path,
) -> None:
    """A review (any screen) pushed over an open palette: Textual checked only the top
    screen, so ctrl+p pushed a second palette with the same id, and DuplicateIds closed
    the app (found by a key fuzz of the demo, the review arriving as ctrl+p opened the
    palette)."""
    from frontier.app.frontends.tui.screens.help import HelpScreen

    app = make_app(workspace, [])
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await opened(pilot, CommandPalette, "the palette")
        app.push_screen(HelpScreen())
        await opened(pilot, HelpScreen, "a screen over it")
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert app.is_running
        assert sum(isinstance(s, CommandPalette) for s in app.screen_stack) == 1
        await pilot.press("escape")  # the screen over it closes: the palette is back
        await opened(pilot, CommandPalette, "the palette again")


async def test_a_rule_for_a_command_that_looks_like_markup_is_listed_and_revoked(
    workspace: Path,
) -> None:
    """The palette reads a command's title as markup: an always-allow rule for ``echo
    '[/]'`` stopped the TUI as soon as the palette listed it."""
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: bool(holder), "the session")
        session = holder[0].session
        session.allow_always(CommandRule("shell", "echo '[/]' [bold]x"))
        await pilot.press("ctrl+p")
        await opened(pilot, CommandPalette, "the palette")
        await pilot.press(*"Revoke always")

        await until(pilot, lambda: "echo '[/]' [bold]x" in first_hit(app), "the rule, as written")
        await pilot.press("enter")
        await until(pilot, lambda: not session.approval_rules, "the revoke")
