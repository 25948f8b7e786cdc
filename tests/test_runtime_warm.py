"""A session built for a person (the TUI builds it on a thread of its own) has imported
what its first request needs: anyio's event-loop backend (httpx's pool imports it at
the first request, 30-40 ms) and the protocol's transducer and prompt. Imported at the
first request they ran on the screen's loop, as the person's first message was drawn.

Run in a fresh interpreter: this process has imported everything long ago."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from aiohttp import web
from sse_server import serve, sse, start_sse

SCRIPT = """
import asyncio, json, sys
from pathlib import Path
from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config

url, mode, interactive, root = sys.argv[1], sys.argv[2], sys.argv[3] == "1", Path(sys.argv[4])
config = Config(base_url=url, model="m", protocol=mode, approval="auto", context_window=8192)
session = create_runtime(config, interactive=interactive, workspace=root)
before = set(sys.modules)

async def turn():
    ended = await session.send("hello")
    await session.close()
    return ended

ended = asyncio.run(turn())
print(json.dumps({"reason": ended.reason, "imported": sorted(set(sys.modules) - before)}))
"""


async def reply(request: web.Request) -> web.StreamResponse:
    await request.read()
    resp = await start_sse(request)
    delta = {"role": "assistant", "content": "Hello there."}
    await resp.write(sse({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}))
    await resp.write(sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
    await resp.write(b"data: [DONE]\n\n")
    await resp.write_eof()
    return resp


async def first_turn_imports(url: str, mode: str, interactive: bool, tmp: Path) -> list[str]:
    env = {**os.environ, "FRONTIER_DATA_DIR": str(tmp / "data")}
    env["FRONTIER_CONFIG_DIR"] = str(tmp / "config")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        SCRIPT,
        url,
        mode,
        "1" if interactive else "0",
        str(tmp),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    found = json.loads(out.decode().strip().splitlines()[-1])
    assert found["reason"] == "done"
    return [str(m) for m in found["imported"]]


def slow(imported: list[str]) -> list[str]:
    """The first request's own imports: anyio's, the transducers', the prompts'."""
    return [
        m
        for m in imported
        if m.startswith(("anyio", "frontier.app.cst", "frontier.app.agent.prompts"))
    ]


@pytest.mark.parametrize("mode", ["ctl-heredoc", "native-inc"])
async def test_a_session_built_for_a_person_leaves_nothing_to_import_at_the_first_request(
    tmp_path: Path, mode: str
) -> None:
    async with serve(reply) as url:
        person = await first_turn_imports(url, mode, True, tmp_path / "person")
        batch = await first_turn_imports(url, mode, False, tmp_path / "batch")
    assert slow(person) == []
    # the same turn of a session built for no person imports them then: the check sees
    assert any(m.startswith("anyio") for m in slow(batch))
