"""End to end: the real demo runtime (rate 0) driven through the TUI with Pilot.

Approve writes the file and yields ``ok``; deny with a reason leaves it untouched
and the ``denied`` result carries the reason; Esc on a running shell ends it
with exit 130 ``cancelled``.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import pytest
from pilot_wait import showing, type_into, until, workers_done

from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.config import Config
from frontier.app.events import Event, ToolFinished, ToolResult
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.review import ReviewScreen


@pytest.fixture
def project(tmp_path: Path) -> Path:
    source = resources.files("frontier.app") / "demo_project"
    with resources.as_file(source) as src:
        shutil.copytree(src, tmp_path / "ws", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "ws"


def demo_app(workspace: Path, events: list[Event]) -> FrontierApp:
    def factory() -> AgentSession:
        session = create_runtime(
            Config(protocol="ctl-heredoc"),
            interactive=True,
            demo=True,
            demo_rate=0,
            workspace=workspace,
        )
        session.subscribe(events.append)  # before the App's observer: as a second front end
        return session

    return FrontierApp(Config(), session_factory=factory, remember_theme=False)


def reviewing(app: FrontierApp, name: str) -> bool:
    """The review modal for a ``name`` call is up and mounted (its title is set)."""
    return showing(app, ReviewScreen) and app.screen.call.name == name


def results(events: list[Event], name: str) -> list[ToolResult]:
    return [e.result for e in events if isinstance(e, ToolFinished) and e.result.name == name]


async def test_demo_approve_writes_the_patch(project: Path) -> None:
    events: list[Event] = []
    app = demo_app(project, events)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: reviewing(app, "apply_patch"), "the patch review")
        assert app.screen.query_one("#review").border_title == "Review patch"
        await pilot.press("a")
        await until(pilot, lambda: bool(results(events, "apply_patch")), "the patch result")
        await until(pilot, lambda: reviewing(app, "shell"), "the shell review")
        await pilot.press("escape")
        app.session.cancel_turn()
        await workers_done(app)
    assert "--shout" in (project / "greet" / "cli.py").read_text()
    assert results(events, "apply_patch")[0].kind == "ok"


# slow in the full suite (13.4 s there under load, 5.9 s alone): the real demo session, its
# review answered by keys, then the rest of its script denied one review at a time
async def test_demo_deny_with_reason_keeps_the_file(project: Path) -> None:
    before = (project / "greet" / "cli.py").read_text()
    events: list[Event] = []
    app = demo_app(project, events)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: reviewing(app, "apply_patch"), "the patch review")
        await pilot.press("d")
        await type_into(pilot, lambda: app.screen.query_one("#reason"), "keep the old flag name")
        await pilot.press("enter")
        await until(pilot, lambda: bool(results(events, "apply_patch")), "the patch result")
        app.session.cancel_turn()
        for _ in range(20):  # deny anything else the script still asks for
            if showing(app, ReviewScreen):
                await pilot.press("escape")
            await pilot.pause()
        await workers_done(app)
    assert (project / "greet" / "cli.py").read_text() == before
    denied = results(events, "apply_patch")[0]
    assert denied.kind == "denied"
    assert "keep the old flag name" in denied.output


async def test_demo_escape_cancels_the_running_shell(project: Path) -> None:
    # a test that blocks, so the shell is certainly still running when Esc arrives
    (project / "tests" / "test_slow.py").write_text(
        "import time, unittest\n\n"
        "class Slow(unittest.TestCase):\n"
        "    def test_slow(self):\n"
        "        time.sleep(60)\n"
    )
    events: list[Event] = []
    app = demo_app(project, events)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: reviewing(app, "apply_patch"), "the patch review")
        await pilot.press("a")
        await until(pilot, lambda: reviewing(app, "shell"), "the shell review")
        await pilot.press("a")
        await until(pilot, lambda: bool(app.state.running_tools()), "the running shell")
        await pilot.press("escape")
        await until(pilot, lambda: bool(results(events, "shell")), "the shell result")
        app.session.cancel_turn()
        await workers_done(app)
    shell = results(events, "shell")[0]
    assert (shell.kind, shell.exit_code) == ("cancelled", 130)
