"""Palette → "Open session…" resumes a stored session; "Export session" never overwrites."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from pilot_wait import eventually, opened, type_into, until
from textual.command import CommandInput, CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from frontier.app.agent import runtime
from frontier.app.agent import session as agent_session
from frontier.app.config import Config
from frontier.app.events import ToolCall
from frontier.app.frontends.tui import live
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.sessions import EMPTY, SessionPicker
from frontier.app.model.conversation import UserText
from frontier.app.model.demo_script import DEMO_MODEL
from frontier.app.model.wires.demo import DEMO_BASE_URL
from frontier.app.session.store import SessionStore
from frontier.widgets.transcript import Transcript, render_entry, tool_of


async def palette(pilot: Pilot, command: str) -> None:
    """Run a command the way a user does: ctrl+p, type its name, Enter (once the
    palette's search, which runs in a worker, has highlighted that command)."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await opened(pilot, CommandPalette, "the command palette")
    await type_into(pilot, lambda: app.screen.query_one(CommandInput), command)

    def listed() -> bool:
        screen = app.screen
        if not isinstance(screen, CommandPalette):
            return False
        if screen.query_one(CommandInput).value != command:
            return False
        options = screen.query_one(CommandList)
        if options.highlighted is None:
            return False
        prompt = options.get_option_at_index(options.highlighted).prompt
        return command in getattr(prompt, "plain", str(prompt))

    await until(pilot, listed, f"{command!r} highlighted in the palette")
    await pilot.press("enter")


async def picker(pilot: Pilot) -> SessionPicker:
    """The session picker, mounted, its filter box focused, the newest session highlighted."""
    screen = await opened(pilot, SessionPicker, "the session picker")
    lists = screen.query(OptionList)
    if lists:
        await until(
            pilot,
            lambda: screen.filter_box.has_focus and lists.first().highlighted == 0,
            "the picker's filter focused",
        )
    return screen


def stored_session(
    monkeypatch: pytest.MonkeyPatch, workspace: Path, started: float, *, interrupted: bool
) -> str:
    """A demo-model session with one typed message (and optionally a call that was running
    when Frontier stopped), stored exactly as a real run leaves it."""
    workspace.mkdir()
    with monkeypatch.context() as m:
        m.setattr(time, "time", lambda: started)
        with SessionStore.open() as store:
            sid = store.create_session(str(workspace), DEMO_MODEL, DEMO_BASE_URL, "ctl-heredoc")
            store.append_items(sid, [UserText("list the files")])
            if interrupted:
                call = ToolCall("c1", "shell", {"command": "sleep 60"})
                store.add_call(sid, call, started=True)
    return sid


@pytest.fixture
def sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """(older, newer); the older one has an interrupted call for recovery to reconcile."""
    older = stored_session(monkeypatch, tmp_path / "ws-old", 1_700_000_000.0, interrupted=True)
    newer = stored_session(monkeypatch, tmp_path / "ws-new", 1_700_000_100.0, interrupted=False)
    return older, newer


def make_app(session_id: str | None, **kw: object) -> FrontierApp:
    return FrontierApp(
        Config(approval="auto"),
        session_id=session_id,
        demo_rate=0,
        welcome=False,
        remember_theme=False,
        **kw,  # type: ignore[arg-type]
    )


def transcript(app: FrontierApp) -> list[str]:
    return [entry.text for entry in app.state.transcript]


async def test_picking_the_older_session_resumes_it_with_its_reconciled_call(
    sessions: tuple[str, str],
) -> None:
    older, newer = sessions
    app = make_app(newer)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None, "the newer session to open")
        first = app.session
        assert first.session_id == newer

        await palette(pilot, "Open session")
        screen = await picker(pilot)
        options = screen.query_one(OptionList)
        assert [options.get_option_at_index(i).id for i in range(2)] == [newer, older]
        assert screen.filter_box.has_focus and options.highlighted == 0  # newest first
        rows = [str(options.get_option_at_index(i).prompt) for i in range(2)]
        assert rows[0].startswith(f"● {newer}  list the files\n")  # the open one is marked
        assert rows[1].startswith(f"  {older}  list the files\n")  # with its first prompt
        assert "1 turn · interrupted\n" in rows[1]  # its process died mid-call
        assert "frontier-demo · ctl-heredoc · " in rows[1]
        assert rows[1].rstrip().endswith("ws-old")

        await pilot.press("down", "enter")
        await until(
            pilot,
            lambda: app.session is not first and app.session is not None,
            "the older session to be resumed",
        )
        await until(pilot, lambda: not isinstance(app.screen, SessionPicker), "the picker closed")
        assert not isinstance(app.screen, SessionPicker)
        assert app.session.session_id == older
        assert app.session.workspace.name == "ws-old"
        lines = transcript(app)
        assert f"── resumed session {older} ──" in lines
        assert "reconciled c1 shell: interrupted" in lines
        assert any("will go with your next message" in line for line in lines)
        await until(
            pilot, lambda: app.focused is not None and app.focused.id == "prompt", "the prompt"
        )
        assert app.focused is not None and app.focused.id == "prompt"
        await until(pilot, lambda: first.closed, "the previous session to close")

        # choosing the session already open changes nothing
        now = app.session
        await palette(pilot, "Open session")
        screen = await picker(pilot)
        options = screen.query_one(OptionList)
        assert str(options.get_option_at_index(1).prompt).startswith("● ")  # older, open now
        await pilot.press("down", "enter")
        await until(
            pilot,
            lambda: any("already open" in n.message for n in app._notifications),
            "the notice that it is open",
        )
        assert app.session is now


async def test_the_picker_is_keyboard_driven_and_esc_keeps_the_session(
    sessions: tuple[str, str],
) -> None:
    _, newer = sessions
    app = make_app(newer)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session to open")
        first = app.session
        app.action_open_session()
        screen = await picker(pilot)
        options = screen.query_one(OptionList)
        await pilot.press("down")
        await until(pilot, lambda: options.highlighted == 1, "down")
        assert options.highlighted == 1
        await pilot.press("up")
        await until(pilot, lambda: options.highlighted == 0, "up")
        assert options.highlighted == 0

        def fits() -> None:
            shown = [options.render_line(y).text.rstrip() for y in range(6)]
            assert shown[0].endswith("list the files")  # every field fits at 80 columns
            assert shown[1].endswith("1 turn · active")
            assert shown[2].endswith("ws-new") and "frontier-demo · ctl-heredoc" in shown[2]

        await eventually(pilot, fits, "the three lines of the session")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SessionPicker), "the picker closed")
        assert not isinstance(app.screen, SessionPicker)
        assert app.session is first and app.session.session_id == newer


async def test_no_session_switch_while_a_turn_runs(sessions: tuple[str, str]) -> None:
    older, newer = sessions
    app = make_app(newer)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session to open")
        first = app.session
        app.state.turn_running = True
        app.live.open_chosen(older)
        await pilot.pause()
        assert app.session is first
        assert any("wait for the turn to end" in n.message for n in app._notifications)
        app.state.turn_running = False


async def test_an_empty_store_says_so_and_esc_closes() -> None:
    app = make_app(None, autostart=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await palette(pilot, "Open session")
        screen = await picker(pilot)
        shown = str(screen.query_one("#sessions-empty", Static).render())
        assert shown == EMPTY
        assert not screen.query(OptionList)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SessionPicker), "the picker closed")
        assert not isinstance(app.screen, SessionPicker)
        assert app.session is None


async def test_export_writes_to_the_current_directory_and_never_overwrites(
    sessions: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, newer = sessions
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)
    app = make_app(newer)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session to open")
        first = out / f"frontier-session-{newer[:8]}.md"
        second = out / f"frontier-session-{newer[:8]}-2.md"

        await palette(pilot, "Export session")
        await until(pilot, first.exists, "the first export")
        await until(
            pilot,
            lambda: any(str(first) in n.message for n in app._notifications),
            "the notification naming the file",
        )
        text = first.read_text("utf-8")
        assert newer in text and "list the files" in text

        first.write_text("my notes\n", "utf-8")  # the user's edits must survive
        await palette(pilot, "Export session")
        await until(pilot, second.exists, "the second export")
        await until(  # the file is made (never over another) before it is written
            pilot,
            lambda: any(str(second) in n.message for n in app._notifications),
            "the notification naming the second file",
        )
        assert first.read_text("utf-8") == "my notes\n"
        assert newer in second.read_text("utf-8")
        assert not (tmp_path / "ws-new" / first.name).exists()  # not in the agent's workspace


async def test_a_resumed_history_is_read_beside_the_build_not_on_the_screens_loop(
    sessions: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a long session's history and making it into events held the screen's loop
    (0.15 s at 4,000 calls: no key, no paint); it is read on the build's thread, once.
    The replies' renderer, which the history's first paint would load on the loop (35-45
    ms), is loaded there first."""
    older, _ = sessions
    read_on: list[int] = []
    warmed_on: list[tuple[int, str, int]] = []
    stored_history = agent_session.stored_history
    warm_renderers = live.warm_renderers

    def recorded(session_id: str, keep: int | None) -> object:
        read_on.append(threading.get_ident())
        return stored_history(session_id, keep)

    def warming(code_theme: str) -> None:
        warmed_on.append((threading.get_ident(), code_theme, len(read_on)))
        warm_renderers(code_theme)

    monkeypatch.setattr(agent_session, "stored_history", recorded)
    monkeypatch.setattr(live, "warm_renderers", warming)
    app = FrontierApp(Config(approval="auto"), session_id=older, remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session to open")
        assert read_on and read_on == [read_on[0]]  # once
        assert read_on[0] != threading.get_ident()  # not on the loop's thread
        code_theme = app.main.query_one(Transcript).code_theme
        assert warmed_on == [(read_on[0], code_theme, 0)]  # the same thread, before the read
        lines = transcript(app)
        assert lines[lines.index(f"── earlier in session {older} ──") + 1] == "list the files"


async def test_resuming_from_the_command_line_shows_the_conversation_so_far(
    sessions: tuple[str, str],
) -> None:
    """`frontier resume ID` with no endpoint flags: no welcome screen, the stored
    conversation in the transcript, the interrupted call with its reconciled outcome."""
    older, _ = sessions
    app = FrontierApp(Config(approval="auto"), session_id=older, remember_theme=False)
    assert app.welcome is False  # the stored session knows its endpoint
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session to open")
        lines = transcript(app)
        start = lines.index(f"── earlier in session {older} ──")
        resumed = lines.index(f"── resumed session {older} ──")
        earlier = lines[start + 1 : resumed]
        assert earlier[0] == "list the files"
        call = next(e for e in app.state.transcript if e.role == "call")
        assert call.tool is not None and earlier[1] == ""  # a tool row: it draws itself
        assert call.tool.state == "interrupted" and call.tool.summary == "sleep 60"
        assert call.tool.whole().startswith("shell call 'c1' was")  # opens in the pager
        assert "reconciled c1 shell: interrupted" in lines[resumed:]


def rendered(app: FrontierApp, session_id: str, workspace: str) -> list[tuple[str, str]]:
    """The Transcript as drawn, entry by entry (the session's id and folder made neutral)."""
    state = app.state
    return [
        (
            e.role,
            render_entry(e, tool_of(e, state.tools), 0.0)
            .plain.replace(session_id, "S")
            .replace(workspace, "W"),
        )
        for e in state.transcript
        if not e.text.startswith("environment:")  # its own clock and entry count
    ]


async def test_a_resume_shows_the_stored_talk_before_the_session_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`frontier resume`: the stored conversation is on the screen while the session is
    still being built (~0.1 s of imports, the lock and recovery after the first paint),
    and the result recovery then writes lands on the call's row shown before it; the
    screen ends as it does when the history is read only once the session is built."""
    early = stored_session(monkeypatch, tmp_path / "ws-a", 1_700_000_000.0, interrupted=True)
    late = stored_session(monkeypatch, tmp_path / "ws-b", 1_700_000_000.0, interrupted=True)
    built = threading.Event()
    real = runtime.create_runtime

    def held(*args: object, **kw: object) -> object:
        assert built.wait(30), "the test never let the build go on"
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(runtime, "create_runtime", held)
    app = make_app(early)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(
            pilot, lambda: f"── earlier in session {early} ──" in transcript(app), "the talk"
        )
        assert app.session is None  # shown while the session is still being built
        (row,) = [e for e in app.state.transcript if e.role == "call"]
        assert tool_of(row, app.state.tools).state == "running"  # as stored: no result yet
        built.set()
        await until(pilot, lambda: "reconciled c1 shell: interrupted" in transcript(app), "built")
        calls = [e for e in app.state.transcript if e.role == "call"]
        assert calls == [row]  # the reconciled result found the row shown before the build
        assert tool_of(row, app.state.tools).state == "interrupted"
        shown = rendered(app, early, "ws-a")

    monkeypatch.setattr(agent_session, "stored_history", lambda *args: None)  # once built
    app = make_app(late)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "reconciled c1 shell: interrupted" in transcript(app), "built")
        assert rendered(app, late, "ws-b") == shown


async def test_resume_with_no_id_opens_on_the_picker_before_any_session_is_built(
    sessions: tuple[str, str],
) -> None:
    """`frontier resume` alone (stop 63: it said "which session?" and exited 2): the
    picker comes first, no session is made for the workspace meanwhile, and the one
    chosen is resumed with its conversation."""
    older, newer = sessions
    app = FrontierApp(Config(approval="auto"), pick_session=True, remember_theme=False)
    assert app.welcome is False  # the session chosen knows its endpoint
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await picker(pilot)
        options = screen.query_one(OptionList)
        assert [options.get_option_at_index(i).id for i in range(2)] == [newer, older]
        assert app.session is None and app.live is not None and not app.live._building
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.session is not None, "the chosen session to open")
        assert app.session.session_id == older
        lines = transcript(app)
        assert f"── earlier in session {older} ──" in lines
        assert "reconciled c1 shell: interrupted" in lines
    with SessionStore.open() as store:
        assert {s.id for s in store.list_sessions()} == {older, newer}  # none made


async def test_esc_on_resumes_picker_starts_a_new_session_here(
    sessions: tuple[str, str], tmp_path: Path
) -> None:
    config = Config(
        approval="auto", base_url="http://127.0.0.1:9/v1", model="m", workspace=str(tmp_path)
    )
    app = FrontierApp(config, pick_session=True, remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await picker(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: app.session is not None, "a new session to open")
        assert app.session.session_id not in sessions
        assert app.session.workspace == tmp_path
        assert "no stored session chosen: a new session in this workspace" in transcript(app)


async def test_esc_with_no_endpoint_configured_offers_the_welcomes_choice(
    sessions: tuple[str, str],
) -> None:
    from frontier.app.frontends.tui.screens.welcome import WelcomeScreen

    app = FrontierApp(Config(approval="auto"), pick_session=True, remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await picker(pilot)
        await pilot.press("escape")
        await opened(pilot, WelcomeScreen, "the welcome screen")
        assert app.session is None


async def submit(pilot: Pilot, text: str) -> None:
    """Type ``text`` into the message box and press Enter, as a person does."""
    app = pilot.app
    await type_into(pilot, lambda: app.screen.query_one("#prompt"), text, "enter")


async def test_slash_resume_opens_the_picker_or_the_session_an_id_names(
    sessions: tuple[str, str],
) -> None:
    older, newer = sessions
    app = make_app(newer)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session to open")
        first = app.session
        await submit(pilot, "/resume")
        await picker(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SessionPicker), "the picker closed")
        assert app.session is first

        await submit(pilot, "/resume nosuch")
        await until(
            pilot,
            lambda: any("no session matches 'nosuch'" in n.message for n in app._notifications),
            "why not",
        )
        assert app.session is first

        await submit(pilot, f"/resume {older[:5]}")
        await until(pilot, lambda: app.session is not first, "the older session to open")
        assert app.session is not None and app.session.session_id == older
        await until(pilot, lambda: first.closed, "the previous session to close")


async def test_slash_resume_lists_this_workspaces_sessions_first(
    sessions: tuple[str, str],
) -> None:
    """As `codex resume` lists the current folder's: the filter starts with the workspace's
    path; emptied, every session is listed."""
    older, newer = sessions
    app = make_app(newer)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session to open")
        here = str(app.session.workspace.resolve())
        await submit(pilot, "/resume")
        screen = await picker(pilot)
        assert screen.filter_box.value == here
        options = screen.query_one(OptionList)
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == [newer]
        screen.filter_box.value = ""
        await until(pilot, lambda: options.option_count == 2, "every session listed")
        assert [options.get_option_at_index(i).id for i in range(2)] == [newer, older]
