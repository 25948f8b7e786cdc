"""``/mcp`` in the TUI (issue 26): the session's servers with their state, tools and log,
the project's servers waiting for trust with what they would run, and ``/mcp trust``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pilot_wait import until
from test_tui_slash import make_app, notes, ready
from tui_fakes import FakeRuntime

from frontier.app.mcp_project import PROJECT_FILE, project_servers
from frontier.tools.mcp_servers import McpHost
from frontier.tools.mcp_settings import ServerSettings

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

            await pilot.press(*"/mcp trust", "enter")
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
