"""A file whose name is not UTF-8 in the workspace (issue 21 audit): every turn failed.

``os.scandir`` gives such a name with its bytes as lone surrogates (``x\\udcff.txt``),
which no request body can encode: the environment section of the system prompt listed it
raw and the token estimate raised ``UnicodeEncodeError`` before the first request. A name
reaches the model as text it can read (the bad byte as U+FFFD or ``?``), in the prompt and
in a tool's result, and the turn goes on.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from wire_scripts import (
    WIRES,
    Call,
    Text,
    WireServer,
    args,
    loopback_config,
    problems_of,
    script,
    serve_wire,
    stream,
)

from frontier.app.agent.runtime import create_runtime
from frontier.tools.policy import PolicyApprover

NAME = b"x\xff.txt"


@pytest.mark.parametrize("wire", WIRES)
async def test_a_name_that_is_not_utf8_never_stops_a_turn(
    wire: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FRONTIER_ENVIRONMENT")  # the listing in the system prompt is on
    ws = tmp_path / "ws"
    ws.mkdir()
    with open(os.path.join(os.fsencode(ws), NAME), "wb") as f:
        f.write(b"hello\n")
    server = WireServer(wire)
    server.answer(
        stream(script(wire, [Call("c1", "glob", args(pattern="*.txt"))])),
        stream(script(wire, [Text("Found it.")])),
    )
    async with serve_wire(server):
        config = loopback_config(server.url, wire)
        session = create_runtime(config, approver=PolicyApprover("auto"), workspace=ws)
        try:
            ended = await session.send("which text files are there?")
        finally:
            await session.close()
    assert ended.reason == "done", ended.message
    first, second = server.requests[0], server.requests[-1]
    assert "x\ufffd.txt" in first.text or "x?.txt" in first.text  # the prompt's listing
    assert "x\ufffd.txt" in second.text or "x?.txt" in second.text  # the glob's result
    assert problems_of(wire, second.body) == []
