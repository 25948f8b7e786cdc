"""Pilot tests: what a user does in the TUI and what happens to files and results."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_wait import opened, showing, type_into, until, workers_done
from textual.pilot import Pilot
from textual.widget import Widget
from tui_fakes import NEW, OLD, FakeRuntime, fake_factory

from frontier.app.config import Config
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.widgets.diff_view import DiffView


def command_review(app: FrontierApp) -> bool:
    """The review modal for the shell command is up and mounted."""
    return showing(app, ReviewScreen) and app.screen.preview.kind == "command"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "greet.py").write_text(OLD)
    return tmp_path


def make_app(workspace: Path, holder: list[FakeRuntime], **kw: object) -> FrontierApp:
    return FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="smollm2"),
        session_factory=fake_factory(workspace, holder, **kw),  # type: ignore[arg-type]
        remember_theme=False,
    )


async def send(pilot: Pilot, text: str) -> None:
    """Click the message box, type ``text`` and Enter, as a person does."""

    def prompt() -> Widget:
        return pilot.app.screen.query_one("#prompt")

    await until(pilot, lambda: prompt().region.height > 0, "the message box laid out")
    await pilot.click("#prompt")
    await type_into(pilot, prompt, text, "enter")


async def test_approve_writes_the_file_and_reports_ok(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, block_shell=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "add a shout flag")
        screen = await opened(pilot, ReviewScreen, "the review modal")
        assert screen.query_one("#review").border_title == "Review patch"
        # the modal shows exactly the preview the core computed
        loop = holder[0].loop
        assert screen.preview is loop.preview
        assert screen.query_one(DiffView).files == loop.preview.files
        await pilot.press("a")
        # then the shell command is reviewed in the same modal, titled for commands
        await until(pilot, lambda: command_review(app), "the command review")
        assert app.screen.query_one("#review").border_title == "Review command"
        await pilot.press("a")
        await workers_done(app)
        await pilot.pause()
    assert (workspace / "greet.py").read_text() == NEW
    results = {r.call_id: r for r in loop.results}
    assert results["c1"].kind == "ok"
    assert app.reviews[0].decision.approved
    assert app.reviews[0].preview is loop.preview
    assert app.state.tools["c1"].state == "ok"
    assert holder[0].closed


async def test_deny_with_reason_leaves_file_untouched(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, block_shell=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "add a shout flag")
        await opened(pilot, ReviewScreen, "the review modal")
        await pilot.press("d")
        await type_into(pilot, lambda: app.screen.query_one("#reason"), "use argparse", "enter")
        await until(pilot, lambda: command_review(app), "the command review")
        await pilot.press("escape")
        await workers_done(app)
        await pilot.pause()
        app.flush(force=True)
        assert app.state.tools["c1"].state == "denied"
    assert (workspace / "greet.py").read_text() == OLD
    result = holder[0].loop.results[0]
    assert result.kind == "denied"
    assert "use argparse" in result.output
    assert app.reviews[0].decision.reason == "use argparse"


async def test_ctrl_q_quits_from_the_review_modal_and_nothing_is_written(
    workspace: Path,
) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, block_shell=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "add a shout flag")
        await opened(pilot, ReviewScreen, "the review modal")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running, "the app to quit")
    assert (workspace / "greet.py").read_text() == OLD
    assert holder[0].loop.results == []  # the patch waiting for review never ran
    assert holder[0].closed


async def test_escape_cancels_the_running_shell(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "run the tests")
        await opened(pilot, ReviewScreen, "the review modal")
        await pilot.press("a")
        await until(pilot, lambda: command_review(app), "the command review")
        await pilot.press("a")
        loop = holder[0].loop
        await until(pilot, lambda: loop.shell_started.is_set(), "the shell call")
        app.flush(force=True)
        assert app.state.tools["c2"].running
        await pilot.press("escape")
        await until(pilot, lambda: loop.cancelled_tools == 1, "the cancel")
        await workers_done(app)
        await pilot.pause()
    assert loop.cancelled_tools == 1
    shell = loop.results[-1]
    assert (shell.kind, shell.exit_code) == ("cancelled", 130)
    assert app.state.tools["c2"].state == "cancelled"
    assert app.state.tools["c2"].exit_code == 130


async def test_review_keys_split_and_hunk_navigation(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, block_shell=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "x")
        await opened(pilot, ReviewScreen, "the review modal")
        diff = app.screen.query_one(DiffView)
        assert not diff.split
        await pilot.press("s")
        await until(pilot, lambda: diff.split, "the split view")
        await pilot.press("j")
        assert diff.current == 0  # one hunk: stays on it
        await pilot.press("escape")  # deny without a reason
        await until(pilot, lambda: command_review(app), "the command review")
        await pilot.press("escape")
        await workers_done(app)
    assert holder[0].loop.results[0].kind == "denied"
    assert (workspace / "greet.py").read_text() == OLD


async def test_the_theme_is_remembered_each_time_it_changes(workspace: Path) -> None:
    """dark → light → dark: the next start opens in dark, not in the theme before last."""
    from frontier.app.config import load_config

    app = FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="smollm2", theme="frontier-dark"),
        session_factory=fake_factory(workspace, []),  # type: ignore[arg-type]
    )
    async with app.run_test(size=(120, 40)) as pilot:
        app.theme = "frontier-light"
        await until(pilot, lambda: load_config().theme == "frontier-light", "light saved")
        app.theme = "frontier-dark"
        await until(pilot, lambda: load_config().theme == "frontier-dark", "dark saved")
    assert load_config().theme == "frontier-dark"
