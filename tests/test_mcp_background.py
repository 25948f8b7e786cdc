"""MCP servers started in the background (issue 24, docs/mcp.md "Starting"): a person's
session is built without waiting for them; its first request waits a grace for those still
starting (the whole start for a ``required`` one), goes without the tools of a server still
starting and says so, and a server that starts later joins from the next request, told.

A slow server here is the fixture behind a FIFO (``MCP_GATE``): it answers nothing until the
test writes there, so every wait is for a state the test makes, never for time."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from async_wait import gone, until
from test_tools_fakes import Approver, call, make_boundary
from wire_scripts import Text, WireServer, script, serve_wire, stream

from frontier.app.agent import mcp_wait
from frontier.app.config import Config, config_path
from frontier.app.events import Event, McpStarting, Notice
from frontier.app.record import replace
from frontier.tools import mcp_sdk
from frontier.tools.mcp_servers import McpHost
from frontier.tools.mcp_settings import ServerSettings
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import Registry, default_registry

FIXTURE = Path(__file__).with_name("mcp_server_fixture.py")


def gated(name: str, gate: Path, *, required: bool = False) -> ServerSettings:
    return ServerSettings(
        name=name,
        command=sys.executable,
        args=(str(FIXTURE),),
        env={"MCP_GATE": str(gate)},
        startup_timeout=30,
        required=required,
    )


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def open_gate(gate: Path) -> None:
    """Let the gated server start (a writer blocks until the server opens the FIFO)."""
    threading.Thread(target=gate.write_bytes, args=(b"go",), daemon=True).start()


async def test_each_server_joins_the_registry_when_it_starts_and_a_missed_one_is_told(
    tmp_path: Path,
) -> None:
    host = McpHost(tmp_path / "mcp-logs")
    told: list[str] = []
    host.on_note = told.append
    registry = default_registry()
    gate = fifo(tmp_path / "gate")
    fast = ServerSettings(name="fast", command=sys.executable, args=(str(FIXTURE),))
    try:
        host.launch([gated("slow", gate), fast], registry)  # returns at once
        assert {s.name: s.state for s in host.states()}["slow"] == "starting"
        await until(lambda: registry.get("fast__echo") is not None, "the fast server's tools")
        assert registry.get("slow__echo") is None
        assert await host.wait_started(0) == ("slow",)
        open_gate(gate)
        await until(lambda: registry.get("slow__echo") is not None, "the slow server's tools")
        await until(lambda: bool(told), "the note that it started")
        assert told == [
            "MCP server slow has started: its 9 tools are offered from the next request"
        ]
        assert {s.name: s.state for s in host.states()} == {"slow": "running", "fast": "running"}
        b = make_boundary(tmp_path, registry=registry, approver=Approver())
        assert (await b.run(call("slow__echo", text="late"))).output == "late"
        assert await host.wait_started(0) == ()
    finally:
        host.close()


async def test_a_required_server_is_waited_for_and_the_others_only_for_the_grace(
    tmp_path: Path,
) -> None:
    """Grace 0: an optional server still starting is not waited for; the required one is,
    however long it takes (here, until the test opens its gate after the wait began)."""
    host = McpHost(tmp_path / "mcp-logs")
    registry = default_registry()
    must, may = fifo(tmp_path / "must"), fifo(tmp_path / "may")
    try:
        host.launch([gated("must", must, required=True), gated("may", may)], registry)
        waiting = asyncio.ensure_future(host.wait_started(0))
        open_gate(must)
        assert await waiting == ("may",)
        assert registry.get("must__echo") is not None and registry.get("may__echo") is None
    finally:
        host.close()  # "may", still starting, is hung up on


async def test_a_server_that_fails_in_the_background_is_told_once_someone_listens(
    tmp_path: Path,
) -> None:
    """Notes made before a front end subscribed are not lost: told the moment it does."""
    host = McpHost(tmp_path / "mcp-logs")
    broken = ServerSettings(name="broken", command=str(tmp_path / "no-such-server"))
    try:
        host.launch([broken], default_registry())
        assert await host.wait_started(30) == ()  # its start has ended (it failed)
        told: list[str] = []
        host.on_note = told.append
        (note,) = told
        assert note.startswith("MCP server broken did not start (")
        assert note.endswith(f"see {tmp_path / 'mcp-logs' / 'broken.log'}")
    finally:
        host.close()


async def test_closing_beside_a_server_stuck_starting_hangs_it_up_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that never finished ``initialize`` is sent SIGTERM when stopped, not first
    given the SDK's grace to exit on its closed stdin (2 s of every quit beside one). That
    grace is made endless here: ``close`` ends only because of the hang-up (or fails,
    naming the server, after its own 15 s bound)."""
    (stdio,) = mcp_sdk.load(("mcp.client.stdio",))
    monkeypatch.setattr(stdio, "PROCESS_TERMINATION_TIMEOUT", 3600.0)
    log = tmp_path / "mcp-logs" / "stuck.log"
    host = McpHost(tmp_path / "mcp-logs")
    host.launch([gated("stuck", fifo(tmp_path / "gate"))], default_registry())
    await until(lambda: log.exists() and " started\n" in log.read_text(), "its process")
    (pid,) = re.findall(r"process (\d+) started", log.read_text())
    await asyncio.to_thread(host.close)
    await until(lambda: gone(int(pid)), "the stuck server's end")
    assert "never started: its process group sent SIGTERM" in log.read_text()


@pytest.fixture
async def model() -> AsyncIterator[WireServer]:
    srv = WireServer("openai-chat")
    async with serve_wire(srv):
        yield srv


async def test_the_first_request_goes_without_a_slow_server_and_the_next_has_its_tools(
    tmp_path: Path, model: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the real runtime as the TUI builds it: the build and the first request do
    not wait for the server; the person is told; once it starts its tools are offered."""
    monkeypatch.setattr(mcp_wait, "MCP_GRACE", 0.0)
    gate = fifo(tmp_path / "gate")
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(
        f'[mcp_servers.srv]\ncommand = "{sys.executable}"\nargs = ["{FIXTURE}"]\n'
        f'env = {{ MCP_GATE = "{gate}" }}\nsandbox = false\n',
        "utf-8",
    )
    from frontier.app.agent.runtime import create_runtime

    model.answer(stream(script(model.wire, [Text("ok")])))
    config = Config(
        base_url=model.url,
        model="m",
        wire="openai-chat",
        protocol="native-inc",
        api_key="sk-loopback-0123456789",
        context_window=100_000,
        instructions=False,
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    session = create_runtime(
        config, approver=PolicyApprover("auto"), workspace=ws, mcp_in_background=True
    )
    events: list[Event] = []
    try:
        session.subscribe(events.append)
        assert (await session.send("hello")).reason == "done"
        tools = [t["function"]["name"] for t in model.requests[0].body["tools"]]
        assert "read" in tools and not any(t.startswith("srv__") for t in tools)
        notices = [e.text for e in events if isinstance(e, Notice)]
        assert notices == [mcp_wait.still_starting(("srv",))]
        assert not any(t.name.startswith("srv__") for t in session.tools)
        open_gate(gate)
        started = "MCP server srv has started: its 9 tools are offered from the next request"
        await until(
            lambda: any(isinstance(e, Notice) and e.text == started for e in events),
            "the notice that the server started",
        )
        assert "srv__echo" in {t.name for t in session.tools}  # the live registry's
        assert (await session.send("again")).reason == "done"
        tools = [t["function"]["name"] for t in model.requests[1].body["tools"]]
        assert "srv__echo" in tools
        # what the status bar shows: told at the subscription, then when the start ended
        told = [e.servers for e in events if isinstance(e, McpStarting)]
        assert told == [("srv",), ()]
    finally:
        await session.close()


def test_required_is_read_from_the_table_and_editing_it_keeps_a_project_servers_trust(
    tmp_path: Path,
) -> None:
    from frontier.app.config import ConfigError
    from frontier.app.mcp_config import parse_mcp_servers
    from frontier.app.mcp_project import fingerprint

    path = tmp_path / "config.toml"
    table = {"command": "srv"}
    (plain,) = parse_mcp_servers({"mcp_servers": {"s": table}}, path)
    (must,) = parse_mcp_servers({"mcp_servers": {"s": {**table, "required": True}}}, path)
    assert (plain.required, must.required) == (False, True)
    assert fingerprint(plain) == fingerprint(must)
    with pytest.raises(ConfigError, match=r"\[mcp_servers.s\] in .*: required must be true or"):
        parse_mcp_servers({"mcp_servers": {"s": {**table, "required": "yes"}}}, path)


def test_a_start_that_times_out_says_what_it_last_said_and_which_setting_gives_it_longer(
    tmp_path: Path,
) -> None:
    """A first ``npx`` run downloads the server: the note said only "did not start within
    10 s". The gate never opens, so each start times out whatever the machine's load."""
    npx = tmp_path / "bin" / "npx"
    npx.parent.mkdir()
    npx.symlink_to(sys.executable)
    slow = replace(gated("slow", fifo(tmp_path / "slow")), startup_timeout=0.5)
    fetching = replace(
        gated("fetch", fifo(tmp_path / "fetch")),
        command=str(npx),
        args=(
            "-c",
            "import sys, time; print('npm warn exec installing', file=sys.stderr, "
            "flush=True); time.sleep(60)",
        ),
        startup_timeout=0.5,
    )
    host = McpHost(tmp_path / "mcp-logs")
    try:
        host.start([slow, fetching], Registry())
    finally:
        host.close()
    why = {s.name: s.why for s in host.states()}
    assert why["slow"] == (
        "did not start within 0.5 s (if it is only slow, raise startup_timeout in "
        "[mcp_servers.slow])"
    )
    assert why["fetch"] is not None and why["fetch"].endswith(
        "(a first npx run downloads the server: raise startup_timeout in [mcp_servers.fetch])"
    )
