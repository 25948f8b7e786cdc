"""A crash during an MCP call (issue 26): ``kill -9`` of a real ``frontier run`` while a real
MCP server is running the call. The resumed session shows the call ``interrupted`` with its
outcome unknown — it may have run — tells the model so, and never sends it again; the
server does not outlive the session that started it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from async_wait import gone, until
from sse_server import serve, sse, start_sse

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to tell a zombie"),
]

SERVER = Path(__file__).with_name("mcp_crash_server.py")
WAIT_S = 60.0
"""Bound on every wait: start-up of Frontier and the server on a loaded 2-core VM."""
CALL = "Recording it.\ncall c1 crash__record\narg text <<EOF\nonce\nEOF\nend\n"


def chunk(text: str, finish: str | None = None) -> bytes:
    delta = {"content": text} if text else {}
    return sse({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


@pytest.fixture
async def model() -> AsyncIterator[dict[str, Any]]:
    """A loopback model: the first request gets the MCP call, later ones a plain answer;
    every request body is kept."""
    state: dict[str, Any] = {"bodies": []}

    async def dispatch(request: web.Request) -> web.StreamResponse:
        state["bodies"].append(await request.json())
        text = CALL if len(state["bodies"]) == 1 else "It may have run; I will not repeat it."
        resp = await start_sse(request)
        await resp.write(chunk(text) + chunk("", "stop") + b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    async with serve(dispatch) as url:
        state["url"] = url
        yield state


@pytest.mark.parametrize("busy", [False, True], ids=["reading", "busy"])
async def test_a_crash_mid_mcp_call_is_interrupted_on_resume_and_never_resent(
    tmp_path: Path, model: dict[str, Any], busy: bool
) -> None:
    """``busy``: a server inside a long call, deaf to SIGTERM, never read its closed stdin
    and outlived ``kill -9`` of Frontier, for good; the reaper stops it as a command's."""
    ws, config = tmp_path / "ws", tmp_path / "config"
    ws.mkdir()
    config.mkdir()
    mark, pid_file = tmp_path / "calls.txt", tmp_path / "server.pid"
    (config / "config.toml").write_text(
        "[mcp_servers.crash]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SERVER))}]\n"
        f"env = {{ MCP_MARK = {json.dumps(str(mark))}, MCP_PID = {json.dumps(str(pid_file))}"
        + (', MCP_BUSY = "1"' if busy else "")
        + " }\n"
        "startup_timeout = 60\n"
        "sandbox = false\n",
        "utf-8",
    )
    env = {
        **os.environ,
        "FRONTIER_DATA_DIR": str(tmp_path / "data"),
        "FRONTIER_CONFIG_DIR": str(config),
        "FRONTIER_ENVIRONMENT": "0",
    }
    common = ["--approval", "auto", "--protocol", "ctl", "--base-url", model["url"], "--model", "m"]
    frontier = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "frontier.app.cli", "run", "--prompt", "record once", "--json",
        *common, "--workspace", str(ws),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL, env=env,
        start_new_session=True,
    )  # fmt: skip
    server_pid: int | None = None
    try:

        def reached() -> bool:
            if frontier.returncode is not None:
                pytest.fail(f"frontier run exited {frontier.returncode} before the call ran")
            return mark.exists() and mark.read_text() == "once\n"

        await until(reached, "the MCP call reaching the server", WAIT_S)
        server_pid = int(pid_file.read_text())
        os.kill(frontier.pid, signal.SIGKILL)  # Frontier alone, as `kill -9 PID`
        assert await asyncio.wait_for(frontier.wait(), WAIT_S) == -signal.SIGKILL
        await until(lambda: gone(server_pid), "the MCP server dying with Frontier", WAIT_S)

        listed = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "frontier.app.cli", "sessions", "--json",
            stdout=asyncio.subprocess.PIPE, env=env,
        )  # fmt: skip
        out, _ = await listed.communicate()
        (session,) = json.loads(out)
        assert session["interrupted_calls"], session

        pid_file.unlink()
        resumed = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "frontier.app.cli", "resume", session["id"], "--headless",
            "--prompt", "what happened?", "--json", *common,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
        )  # fmt: skip
        out, err = await asyncio.wait_for(resumed.communicate(), WAIT_S)
        assert resumed.returncode == 0, err.decode()
        server_pid = int(pid_file.read_text())  # the resumed session started it again
    finally:
        if frontier.returncode is None:
            os.killpg(frontier.pid, signal.SIGKILL)
            await frontier.wait()
        if server_pid is not None and not gone(server_pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(server_pid, signal.SIGKILL)  # only on failure: the test's own server
    assert mark.read_text() == "once\n", "the interrupted call was sent again"
    events = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    recovered = [
        e for e in events if e.get("kind") == "interrupted" or "outcome unknown" in json.dumps(e)
    ]
    assert recovered, events
    told = json.dumps(model["bodies"][-1])
    assert "outcome unknown" in told and "crash__record" in told
    await until(lambda: gone(server_pid), "the resumed session's server stopping with it", WAIT_S)
