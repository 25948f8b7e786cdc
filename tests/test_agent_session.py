"""``AgentSession``, the front ends' one seam: ops in, events out, typed facts.

A scripted loop shows what the façade adds (one subscription, the busy guard on
``set_mode``, idempotent close); the real demo session shows the rest end to end
(``set_approval`` reaches the gate, ``export`` reads what was stored).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from frontier.app.agent.modes import Mode, get_mode
from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession, EventHub, SessionBusy, stored_sessions
from frontier.app.config import Config
from frontier.app.events import Event, ResponseStarted, ToolResult, TurnEnded
from frontier.app.model.conversation import Image
from frontier.tools.policy import PolicyApprover


@dataclass
class ScriptedLoop:
    emit: EventHub
    carried: list[ToolResult] = field(default_factory=list)
    mode: Mode = field(default_factory=lambda: get_mode("ctl"))
    mode_pending: bool = False
    release: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: int = 0

    @property
    def frontier(self) -> int:
        return 7

    def pending_bound(self) -> int:
        return 3

    async def send(self, text: str, images: tuple[Image, ...] = ()) -> TurnEnded:
        self.emit.emit(ResponseStarted("ctl", 0))
        await self.release.wait()
        return TurnEnded("done")

    def cancel_turn(self) -> None:
        self.cancelled += 1

    async def stop_turn(self) -> None:
        """Nothing to wait for: the scripted turn ends with the task that runs it."""

    def cancel_tool(self) -> bool:
        return False

    def set_mode(self, mode: Mode) -> None:
        self.mode = mode


def scripted(closers: list[object] | None = None) -> tuple[ScriptedLoop, AgentSession]:
    hub = EventHub()
    loop = ScriptedLoop(hub, carried=[ToolResult("c1", "shell", "interrupted", "?")])
    session = AgentSession(
        loop,
        hub,
        session_id="s1",
        workspace=Path("."),
        model="m",
        closers=closers or [],  # type: ignore[arg-type]
    )
    return loop, session


async def test_one_subscription_fans_out_in_order_until_unsubscribed() -> None:
    loop, session = scripted()
    first: list[Event] = []
    second: list[Event] = []
    session.subscribe(first.append)
    unsubscribe = session.subscribe(second.append)
    loop.release.set()
    await session.send("hi")
    unsubscribe()
    loop.emit.emit(ResponseStarted("ctl", 1))
    assert [e.request_index for e in first] == [0, 1]  # type: ignore[attr-defined]
    assert [e.request_index for e in second] == [0]  # type: ignore[attr-defined]
    assert (session.frontier, session.pending_bound(), session.carried) == (7, 3, 1)


async def test_mode_switches_only_between_turns_and_only_to_a_known_mode() -> None:
    loop, session = scripted()
    assert session.mode == "ctl"  # the session reads the loop's mode (issue 20)
    turn = asyncio.create_task(session.send("hi"))
    await asyncio.sleep(0)
    assert session.busy
    with pytest.raises(SessionBusy):
        session.set_mode("xml")
    loop.release.set()
    assert (await turn).reason == "done"
    assert not session.busy
    session.set_mode("native-inc")
    assert session.mode == "native-inc" and loop.mode == Mode("native-inc")
    with pytest.raises(ValueError, match="unknown protocol"):
        session.set_mode("json-whole")  # a transducer baseline, not a session mode
    assert session.modes == ("native-eos", "native-inc", "ctl", "ctl-heredoc", "xml")


async def test_close_runs_every_closer_once_and_reports_the_first_failure() -> None:
    ran: list[str] = []

    def broken() -> None:
        ran.append("store")
        raise OSError("disk full")

    async def provider() -> None:
        ran.append("provider")

    _, session = scripted([provider, broken, lambda: ran.append("lock")])
    with pytest.raises(OSError, match="disk full"):
        await session.close()
    await session.close()  # nothing left to close
    assert ran == ["provider", "store", "lock"] and session.closed


async def test_a_demo_session_end_to_end(tmp_path: Path) -> None:
    """set_approval reaches the tool gate; export reads back what was stored."""
    session = create_runtime(
        Config(approval="read-only"), approver=PolicyApprover("ask"), demo=True, demo_rate=0
    )
    try:
        assert session.approval == "read-only" and not session.resumed
        assert session.history() == []  # nothing happened before a new session
        session.set_approval("auto")
        with pytest.raises(ValueError, match="unknown approval policy"):
            session.set_approval("sometimes")
        events: list[Event] = []
        session.subscribe(events.append)
        ended = await session.send(session.demo_prompts[0])
        assert ended.reason == "done"
        kinds = [e.result.kind for e in events if e.type == "tool_finished"]  # type: ignore[attr-defined]
        assert "ok" in kinds and "denied" not in kinds  # auto, not read-only, gated the calls
        markdown = await session.export()
        assert f"# Frontier session {session.session_id}" in markdown
        assert session.demo_prompts[0] in markdown
        records = [json.loads(line) for line in (await session.export("jsonl")).splitlines()]
        assert records[0] == {**records[0], "type": "user", "text": session.demo_prompts[0]}
        assert [s.id for s in stored_sessions()] == [session.session_id]
    finally:
        await session.close()
