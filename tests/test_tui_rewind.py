"""``/rewind`` in the TUI: the picker of the person's messages, the choice of what to take
back, the files' review, the files and the conversation put back, the message in the box."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_wait import showing, type_into, until, workers_done
from test_tui_undo import demo_app, demo_done, notes, project, prompt_of
from textual.widgets import OptionList

from frontier.app.events import Compacted, Event
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.app.frontends.tui.screens.rewind import RewindScreen
from frontier.app.session.store import SessionStore

__all__ = ["project"]  # the fixture, shared with the undo tests


def files_of(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


async def test_rewind_picks_a_message_reviews_the_files_and_gives_the_message_back(
    project: Path,
) -> None:
    before = files_of(project)
    events: list[Event] = []
    app = demo_app(project, events)
    async with app.run_test(size=(120, 40)) as pilot:
        await demo_done(pilot, app, events)
        assert app.session is not None
        sent = app.session.demo_prompts[0]
        assert files_of(project) != before  # the demo edited and made files

        await type_into(pilot, lambda: prompt_of(app), "/rewind", "enter")
        await until(pilot, lambda: showing(app, RewindScreen), "the rewind picker")
        picker = app.screen
        assert isinstance(picker, RewindScreen)
        rows = picker.query_one(OptionList)
        assert rows.option_count == 1  # the demo's one message
        assert "since: " in str(rows.get_option_at_index(0).prompt)
        await pilot.press("enter")
        await until(pilot, lambda: picker.chosen is not None, "the choices")
        choice = str(picker.query_one(OptionList).get_option_at_index(0).prompt)
        assert choice.startswith("Take back the conversation and the files")
        await pilot.press("enter")

        await until(pilot, lambda: showing(app, ReviewScreen), "the files' review")
        review = app.screen
        assert isinstance(review, ReviewScreen) and review.call.name == "undo"
        assert review.query_one("#review").border_title == "Review rewind to before message 1"
        assert review.offer is None  # the person's own action: no "always allow"
        await pilot.press("a")
        await until(
            pilot,
            lambda: any(
                n.startswith("rewound to before your message 1: the conversation and the files")
                for n in notes(app)
            ),
            "the transcript's note",
        )
        await workers_done(app)
        # every file the demo changed is back, the files it made are gone
        assert files_of(project) == before
        assert prompt_of(app).text == sent  # the message back, to send again
        assert any(isinstance(e, Compacted) and e.reason == "rewind" for e in events)
        assert any(n.startswith("⇤ rewound (/rewind) to before your message 1") for n in notes(app))
        # what the model no longer gets is dimmed from the message on (the demo's reply
        # and calls), not the rewind's own undo nor its lines
        entries = list(app.state.transcript)
        first = next(i for i, e in enumerate(entries) if e.role == "you")
        assert entries[first].text == sent and entries[first].forgotten
        assert all(e.forgotten for e in entries[first:] if e.role in ("ai", "you"))
        calls = [e for e in entries[first:] if e.role == "call" and e.tool is not None]
        assert {e.forgotten for e in calls if e.tool.call.name != "undo"} == {True}
        assert [e.forgotten for e in calls if e.tool.call.name == "undo"] == [False]
        assert not any(e.forgotten for e in entries[:first] + entries[-2:])
        session_id = app.session.session_id
    with SessionStore.open() as store:
        history = store.compactions.history(session_id)
    assert history == []  # the model's next request starts from nothing


async def test_esc_goes_back_then_closes_and_nothing_changes(project: Path) -> None:
    events: list[Event] = []
    app = demo_app(project, events)
    async with app.run_test(size=(80, 24)) as pilot:
        await demo_done(pilot, app, events)
        readme = (project / "README.md").read_text()
        await type_into(pilot, lambda: prompt_of(app), "/rewind", "enter")
        await until(pilot, lambda: showing(app, RewindScreen), "the rewind picker")
        picker = app.screen
        assert isinstance(picker, RewindScreen)
        await pilot.press("enter")
        await until(pilot, lambda: picker.chosen is not None, "the choices")
        await pilot.press("escape")
        await until(pilot, lambda: picker.chosen is None, "the messages again")
        await pilot.press("escape")
        await until(pilot, lambda: not showing(app, RewindScreen), "the picker closed")
        await workers_done(app)
        assert (project / "README.md").read_text() == readme
        assert not any(isinstance(e, Compacted) for e in events)


async def first_esc(pilot: Any, app: FrontierApp) -> None:
    """One Esc at the idle, empty box: armed for a second."""
    await pilot.press("escape")
    await until(pilot, lambda: app.live is not None and app.live._rewind_armed, "armed")


async def test_esc_twice_at_an_idle_empty_box_opens_the_picker(project: Path) -> None:
    events: list[Event] = []
    app = demo_app(project, events)
    async with app.run_test(size=(100, 30)) as pilot:
        await demo_done(pilot, app, events)
        await first_esc(pilot, app)
        assert not showing(app, RewindScreen)  # one Esc only says what a second does
        await pilot.press("escape")
        await until(pilot, lambda: showing(app, RewindScreen), "the rewind picker")
        await pilot.press("escape")  # and Esc closes it
        await until(pilot, lambda: not showing(app, RewindScreen), "the picker closed")
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Rewind to before one of your messages" in titles  # the palette has it too


async def test_typing_between_the_two_escs_disarms_them(project: Path) -> None:
    events: list[Event] = []
    app = demo_app(project, events)
    async with app.run_test(size=(100, 30)) as pilot:
        await demo_done(pilot, app, events)
        await first_esc(pilot, app)
        await type_into(pilot, lambda: prompt_of(app), "x", "backspace")
        await pilot.press("escape")  # the box is empty again, but something was typed
        await workers_done(app)
        assert not showing(app, RewindScreen)


async def test_a_message_and_file_names_that_look_like_markup_are_shown_as_text() -> None:
    """The message is the person's and the paths the workspace's: ``[/]`` in either was
    read as markup by the choices' list (a markup error: the TUI stopped)."""
    from textual.app import App

    from frontier.app.agent.rewind import RewindPoint

    point = RewindPoint(
        1, "fix [/] and [bold]this[/bold]", 0, 1, ("[red]a.py",), 1, ("c1 shell",), 1
    )

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(RewindScreen([point]))

    app = Host()
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RewindScreen), "the picker")
        picker = app.screen
        assert isinstance(picker, RewindScreen)
        await pilot.press("enter")
        await until(pilot, lambda: picker.chosen is not None, "the choices")
        rows = picker.query_one(OptionList)
        shown = [str(rows.get_option_at_index(i).prompt) for i in range(rows.option_count)]
        assert shown[0] == "Take back the conversation and the files ([red]a.py)"
        what = str(picker.query_one("#rewind-what").render())
        assert "fix [/] and [bold]this[/bold]" in what
