"""``/undo`` in the TUI: the real demo session, the review modal, the file restored, the
model told with the next message; a refusal names the file and writes nothing."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import pytest
from pilot_wait import showing, type_into, until, workers_done

from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.config import Config
from frontier.app.events import Event, ToolFinished, TurnEnded
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.app.model.conversation import UserMessage, wire_messages
from frontier.app.session.store import SessionStore
from frontier.widgets.prompt_input import PromptInput


@pytest.fixture
def project(tmp_path: Path) -> Path:
    source = resources.files("frontier.app") / "demo_project"
    with resources.as_file(source) as src:
        shutil.copytree(src, tmp_path / "ws", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "ws"


def demo_app(workspace: Path, events: list[Event]) -> FrontierApp:
    def factory() -> AgentSession:
        session = create_runtime(
            # the model's calls run without asking; the undo is still reviewed
            Config(protocol="ctl-heredoc", approval="auto"),
            interactive=True,
            demo=True,
            demo_rate=0,
            workspace=workspace,
        )
        session.subscribe(events.append)
        return session

    return FrontierApp(Config(), session_factory=factory, remember_theme=False)


def finished(events: list[Event], call_id: str) -> bool:
    return any(isinstance(e, ToolFinished) and e.result.call_id == call_id for e in events)


def prompt_of(app: FrontierApp) -> PromptInput:
    return app.main.query_one("#prompt", PromptInput)


def notes(app: FrontierApp) -> list[str]:
    return [e.text for e in app.state.transcript if e.role == "note"]


async def demo_done(pilot: object, app: FrontierApp, events: list[Event]) -> None:
    await until(pilot, lambda: finished(events, "c6"), "the demo's last edit")  # type: ignore[arg-type]
    await until(pilot, lambda: not app.state.turn_running, "the demo turn to end")  # type: ignore[arg-type]
    await workers_done(app)


async def test_slash_undo_reviews_restores_and_tells_the_model(project: Path) -> None:
    readme = project / "README.md"
    before = readme.read_text()
    events: list[Event] = []
    app = demo_app(project, events)
    async with app.run_test(size=(120, 40)) as pilot:
        await demo_done(pilot, app, events)
        assert readme.read_text() != before  # c6 replace added the --shout line
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Undo last file change" in titles

        await type_into(pilot, lambda: prompt_of(app), "/undo", "enter")
        await until(pilot, lambda: showing(app, ReviewScreen), "the undo review")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        assert review.call.name == "undo"
        assert review.query_one("#review").border_title == "Review undo c6"
        assert [f.path for f in review.preview.files] == ["README.md"]
        assert review.offer is None  # no "always allow" for the person's own undo
        await pilot.press("a")
        await until(pilot, lambda: readme.read_text() == before, "README.md restored")
        await until(pilot, lambda: finished(events, "u1"), "the undo's result")
        await until(
            pilot,
            lambda: any(n.startswith("undid c6 replace: restored README.md") for n in notes(app)),
            "the transcript's note",
        )
        assert prompt_of(app).text == ""

        ended = sum(isinstance(e, TurnEnded) for e in events)
        await type_into(pilot, lambda: prompt_of(app), "thanks", "enter")
        await until(
            pilot, lambda: sum(isinstance(e, TurnEnded) for e in events) > ended, "the next turn"
        )
        await workers_done(app)
        session_id = app.session.session_id if app.session else ""
    with SessionStore.open() as store:
        items = store.load_items(session_id)
    sent = wire_messages(items, native=False, wire="openai-chat")
    last = [m for m in sent if isinstance(m, UserMessage)][-1]
    assert last.text == (
        "(The user undid call c6 replace: restored README.md. Those files are as they were "
        "before that call; re-read them before editing them.)\n\nthanks"
    )


async def test_a_refused_undo_names_the_file_and_opens_no_review(project: Path) -> None:
    events: list[Event] = []
    app = demo_app(project, events)
    async with app.run_test(size=(80, 24)) as pilot:
        await demo_done(pilot, app, events)
        (project / "README.md").write_text("edited by hand\n")
        await type_into(pilot, lambda: prompt_of(app), "/undo", "enter")
        await until(
            pilot,
            lambda: any(
                n.startswith("undo: refused: README.md changed since c6") for n in notes(app)
            ),
            "the refusal",
        )
        assert not showing(app, ReviewScreen)
        assert (project / "README.md").read_text() == "edited by hand\n"
        await type_into(pilot, lambda: prompt_of(app), "/undo c4", "enter")  # NOTES.md
        await until(pilot, lambda: showing(app, ReviewScreen), "the review of undo c4")
        await pilot.press("a")
        await until(pilot, lambda: not (project / "NOTES.md").exists(), "NOTES.md deleted")
        await workers_done(app)
