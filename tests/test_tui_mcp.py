"""``/mcp`` in the TUI (issue 26): the session's servers with their state, tools and log,
the project's servers waiting for trust with what they would run, and ``/mcp trust``."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from pilot_wait import screen_text, until
from test_tui_slash import make_app, notes, ready
from tui_fakes import FakeRuntime, fake_session

from frontier.app.config import Config
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.mcp_project import PROJECT_FILE, project_servers
from frontier.tools.mcp_servers import McpHost
from frontier.tools.mcp_settings import ServerSettings
from frontier.widgets.status_bar import StatusBar

FIXTURE = Path(__file__).with_name("mcp_server_fixture.py")


async def test_mcp_lists_running_servers_and_trusts_waiting_project_ones(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".frontier").mkdir(parents=True)
    (ws / PROJECT_FILE).write_text(
        '[mcp_servers.tracker]\ncommand = "tracker-mcp"\nargs = ["--stdio"]\n', "utf-8"
    )
    host = McpHost(tmp_path / "logs")
    try:
        host.start(
            [
                ServerSettings(
                    name="srv",
                    command=sys.executable,
                    args=(str(FIXTURE),),
                    startup_timeout=60,
                )
            ]
        )
        holder: list[FakeRuntime] = []
        app = make_app(ws, holder)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            holder[0].session.mcp = host
            await pilot.press(*"/mcp", "enter")
            await until(pilot, lambda: any(n.startswith("/mcp\n") for n in notes(app)), "/mcp")
            (shown,) = [n for n in notes(app) if n.startswith("/mcp\n")]
            assert "srv  stdio  running" in shown and "srv__echo" in shown
            assert str(tmp_path / "logs" / "srv.log") in shown
            assert "tracker  project  not trusted yet" in shown
            assert "stdio tracker-mcp --stdio" in shown
            assert holder[0].loop.sent == []  # never went to the model

            await pilot.press(*"/mcp trust", "enter")  # a question first, every server in it
            from frontier.app.frontends.tui.screens.trust import TrustScreen

            await until(pilot, lambda: isinstance(app.screen, TrustScreen), "the question")
            assert any("stdio tracker-mcp --stdio" in line for line in app.screen.lines)
            await pilot.press("n")
            await until(pilot, lambda: any("not trusted" in n for n in notes(app)), "declined")
            assert [p.state for p in project_servers(ws)[0]] == ["new"]
            await pilot.press(*"/mcp trust", "enter")
            await until(pilot, lambda: isinstance(app.screen, TrustScreen), "asked again")
            await pilot.press("y")
            await until(
                pilot, lambda: any("trusted for this workspace" in n for n in notes(app)), "trust"
            )
            assert [p.state for p in project_servers(ws)[0]] == ["trusted"]
            assert json.dumps(notes(app)).count("tracker-mcp") >= 2
    finally:
        host.close()


async def test_mcp_without_servers_says_where_they_are_declared(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    holder: list[FakeRuntime] = []
    app = make_app(ws, holder)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"/mcp", "enter")
        await until(pilot, lambda: any("no MCP servers" in n for n in notes(app)), "/mcp")
        await pilot.press(*"/mcp nonsense", "enter")
        assert any("/mcp takes nothing or `trust`" in str(t.message) for t in app._notifications)


class NotingHost:
    """What of ``McpHost`` a session routes: ``on_note`` and ``on_change``, set when the
    TUI subscribes, called here from a thread as the servers' thread calls them, and
    ``starting()``, the servers still starting."""

    def __init__(self, starting: tuple[str, ...] = ()) -> None:
        self.on_note: Callable[[str], None] | None = None
        self.on_change: Callable[[], None] | None = None
        self.pending = starting

    def starting(self) -> tuple[str, ...]:
        return self.pending


def app_with(tmp_path: Path, host: NotingHost) -> FrontierApp:
    """The TUI over a fake session whose MCP host is ``host`` (the fake runtime is kept
    alive by the factory, which the app holds)."""
    kept: list[FakeRuntime] = []

    def factory() -> object:
        runtime = fake_session(tmp_path, block_shell=False)
        runtime.session.mcp = host  # type: ignore[assignment]
        kept.append(runtime)
        return runtime.session

    return FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="smollm2"),
        session_factory=factory,  # type: ignore[arg-type]
        remember_theme=False,
    )


async def test_a_note_from_the_servers_thread_shows_and_the_screen_keeps_painting(
    tmp_path: Path,
) -> None:
    """A server that stops mid-session is told at once in the Transcript. Told on another
    thread while the TUI is idle (its flush timer slowed), the note used to be handed to
    the loop without the app's context: the timer the TUI then made died with
    ``LookupError`` and the screen never painted again."""
    from frontier.app.frontends.tui.app import IDLE_HZ

    host = NotingHost()
    app = app_with(tmp_path, host)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.flush_rate == IDLE_HZ, "the idle flush rate")
        assert host.on_note is not None
        said = "MCP server srv stopped by itself"
        told = threading.Thread(target=host.on_note, args=(said,))
        told.start()
        told.join()
        await until(pilot, lambda: said in screen_text(app), "the note on screen")
        await pilot.press(*"still here")
        await until(pilot, lambda: "still here" in screen_text(app), "typing painted")


async def test_the_status_bar_says_which_servers_are_still_starting(tmp_path: Path) -> None:
    """A person's session starts its MCP servers in the background: while one starts, the
    idle status bar names it; when its start ends (told from the servers' thread) it
    says ``idle`` again."""
    host = NotingHost(starting=("slow", "other"))
    app = app_with(tmp_path, host)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        status = app.query_one(StatusBar)
        await until(
            pilot,
            lambda: "idle · MCP servers slow, other starting" in str(status.render()),
            "the servers starting in the status bar",
        )
        assert host.on_change is not None
        host.pending = ()
        ended = threading.Thread(target=host.on_change)
        ended.start()
        ended.join()
        await until(pilot, lambda: "MCP server" not in str(status.render()), "the start ended")
        assert " idle " in f" {status.render()} "
