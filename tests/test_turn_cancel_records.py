"""Stopping the turn while a command runs (ctrl+c in ``frontier run``, ctrl+c or Esc with
no call of its own in the TUI) kills the command and records its result: ``cancelled``,
exit 130, with what it printed. A turn that awaited its calls together cancelled them
with it, so the result was never committed: the session read the call as "its Frontier
stopped: outcome unknown", as after a crash, and the text form never printed its end."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from inline_boundary import InlineBoundary
from scripted import ScriptedClient
from wire_scripts import Call, Text, WireServer, args, loopback_config, script, serve_wire
from wire_scripts import stream as reply

from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.agent.runtime import create_runtime
from frontier.app.events import Event, ToolCall, ToolFinished, ToolOutput, ToolResult, TurnEnded
from frontier.app.record import replace
from frontier.tools.registry import default_registry


@pytest.mark.parametrize("protocol", ["native-inc", "native-eos"])
async def test_a_command_stopped_with_its_turn_has_its_result_recorded(
    tmp_path: Path, protocol: str
) -> None:
    wire = "openai-chat"
    command = f"{sys.executable} -c \"print('started', flush=True); import time; time.sleep(60)\""
    later = f"{sys.executable} -c \"open('second.txt', 'w').write('ran')\""
    server = WireServer(wire)
    calls = [Call("c1", "shell", args(command=command)), Call("c2", "shell", args(command=later))]
    server.answer(
        reply(script(wire, [Text("Running it."), *calls])),
        reply(script(wire, [Text("Done.")])),
    )
    async with serve_wire(server) as url:
        config = replace(loopback_config(url, wire), protocol=protocol, sandbox="off")
        session = create_runtime(config, workspace=tmp_path)
        events: list[Event] = []
        session.subscribe(events.append)
        try:
            turn = asyncio.create_task(session.send("go"))
            async with asyncio.timeout(60):  # a state, not a time: the command has printed
                while not any(isinstance(e, ToolOutput) and "started" in e.data for e in events):
                    await asyncio.sleep(0.01)
            session.cancel_turn()
            ended = await turn
            sid = session.session_id
            await session.send("and now?")  # the model is told what happened to each call
        finally:
            await session.close()
    assert ended == TurnEnded("cancelled", "turn cancelled by the user")
    finished = [e.result for e in events if isinstance(e, ToolFinished)]
    assert (finished[0].call_id, finished[0].kind, finished[0].exit_code) == (
        "c1",
        "cancelled",
        130,
    )
    assert "started" in finished[0].output
    assert not (tmp_path / "second.txt").exists()  # the call after it never started
    told = server.requests[-1].text
    assert "started" in told and "cancelled by the user: process group killed" in told
    assert told.count("not run") + told.count("not executed") == 1  # c2's, not c1's

    again = create_runtime(config, session_id=sid, workspace=tmp_path)
    try:
        assert again.recovered == []  # nothing to reconcile: the result is stored
        markdown = await again.export("markdown")
    finally:
        await again.close()
    assert "**result** `cancelled`" in markdown and "its Frontier stopped" not in markdown


class Finishing(InlineBoundary):
    """``c1`` has run and is finishing (its pre-images kept, say) when the turn stops:
    in flight, as ``ToolBoundary.running`` reports it, until ``done`` is set."""

    def __init__(self) -> None:
        self.finishing = asyncio.Event()
        self.done = asyncio.Event()
        self.in_flight: set[str] = set()

    async def run(self, call: ToolCall) -> ToolResult:
        self.in_flight.add(call.id)
        try:
            self.finishing.set()
            await self.done.wait()
            return ToolResult(call.id, call.name, "ok", "wrote a.txt", exit_code=0)
        finally:
            self.in_flight.discard(call.id)

    @property
    def running(self) -> list[str]:
        return sorted(self.in_flight)


@pytest.mark.parametrize("mode", ["ctl-heredoc", "native-eos"])
async def test_a_call_in_flight_when_the_turn_stops_keeps_its_own_result(mode: str) -> None:
    """A call past its start and not yet committed is never cancelled by a stopped turn
    (that is the session closing: no result): the turn waits for its result, and the
    model is told it, not "not run"."""
    from test_agent_loop import native_chunks, text_chunks

    if mode == "ctl-heredoc":
        first = text_chunks("call c1 write\narg path a.txt\narg content <<E\nhi\nE\nend\n")
    else:
        first = native_chunks([("c1", "write", '{"path": "a.txt", "content": "hi"}')])
    client = ScriptedClient([(first, "stop"), (text_chunks("Noted."), "stop")])
    boundary = Finishing()
    loop = AgentLoop(
        client=client, boundary=boundary, registry=default_registry(), mode=get_mode(mode)
    )
    turn = asyncio.create_task(loop.send("write it"))
    await boundary.finishing.wait()
    loop.cancel_turn()
    for _ in range(50):  # let the stop run its course: it must wait for c1, not cancel it
        await asyncio.sleep(0)
    assert not turn.done()
    boundary.done.set()
    ended = await turn
    assert ended.reason == "cancelled"
    await loop.send("and?")
    told = json.dumps(client.requests[-1])
    assert "wrote a.txt" in told and "not run" not in told


@pytest.mark.parametrize("cancelled_first", [True, False])
async def test_closing_the_session_mid_command_commits_the_result_first(
    tmp_path: Path, cancelled_first: bool
) -> None:
    """The TUI quitting (ctrl+q, SIGTERM) cancels the turn's task and closes the session in
    the same breath: the store was closed before the killed command's result came, and the
    session read as a crash. Closing now stops the turn and waits for its results."""
    wire = "openai-chat"
    command = f"{sys.executable} -c \"print('started', flush=True); import time; time.sleep(60)\""
    server = WireServer(wire)
    server.answer(
        reply(script(wire, [Text("Running it."), Call("c1", "shell", args(command=command))])),
        reply(script(wire, [Text("Done.")])),
    )
    async with serve_wire(server) as url:
        config = replace(loopback_config(url, wire), protocol="native-inc", sandbox="off")
        session = create_runtime(config, workspace=tmp_path)
        events: list[Event] = []
        session.subscribe(events.append)
        turn = asyncio.create_task(session.send("go"))
        async with asyncio.timeout(60):  # a state, not a time: the command has printed
            while not any(isinstance(e, ToolOutput) and "started" in e.data for e in events):
                await asyncio.sleep(0.01)
        if cancelled_first:  # as Textual cancels its workers before the app unmounts
            turn.cancel()
        await session.close()
        again = create_runtime(config, session_id=session.session_id, workspace=tmp_path)
        try:
            recovered = again.recovered
            markdown = await again.export("markdown")
        finally:
            await again.close()
        ended = await turn
    assert recovered == []  # nothing to reconcile: the result is stored
    assert "**result** `cancelled` · exit 130" in markdown and "started" in markdown
    assert ended.reason == "cancelled"
