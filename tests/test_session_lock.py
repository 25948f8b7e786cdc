"""A session is open in one Frontier at a time; a dead one's session reads `interrupted`."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest
from scripted import chat_event

from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd, StreamItem
from frontier.app.session.store import SessionStore, StoreError
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

HOLDER = textwrap.dedent(
    """
    import sys, time
    from frontier.app.session.store import SessionStore
    store = SessionStore.open()
    lock = store.lock_session(sys.argv[1])
    print("locked", flush=True)
    time.sleep(600)
    """
)


def hold_in_another_process(session_id: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, session_id], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_second_process_cannot_open_a_running_session_and_a_killed_one_is_interrupted(
    tmp_path: Path,
) -> None:
    with SessionStore.open() as store:
        sid = store.create_session(str(tmp_path), "m", "http://127.0.0.1:9/v1", "ctl")
    holder = hold_in_another_process(sid)
    try:
        with SessionStore.open() as store:
            assert store.get_session(sid).state == "active"
        with pytest.raises(
            StoreError, match=rf"{sid} is open in another Frontier \(pid {holder.pid}\)"
        ):
            create_runtime(Config(approval="auto"), approver=PolicyApprover("auto"), session_id=sid)
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    with SessionStore.open() as store:
        assert [s.state for s in store.list_sessions()] == ["interrupted"]
    runtime = create_runtime(
        Config(approval="auto"), approver=PolicyApprover("auto"), session_id=sid
    )
    try:
        with SessionStore.open() as store:
            assert store.get_session(sid).state == "active"  # we hold it now
    finally:
        asyncio.run(runtime.aclose())


class _QuietClient:
    """Streams a sentence, then the model goes silent until the user gives up."""

    wire = "openai-chat"
    model = "m"

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        yield chat_event({"choices": [{"delta": {"content": "Thinking"}, "finish_reason": None}]})
        await asyncio.Event().wait()
        yield StreamEnd("stop")

    async def aclose(self) -> None:
        return None


async def test_a_turn_the_user_cancels_leaves_the_session_interrupted(tmp_path: Path) -> None:
    with SessionStore.open() as store:
        sid = store.create_session(str(tmp_path), "m", None, "ctl")
        loop = AgentLoop(
            client=_QuietClient(),
            boundary=ToolBoundary(default_registry(), tmp_path, PolicyApprover("auto"), None),
            registry=default_registry(),
            mode=get_mode("ctl"),
            store=store,
            session_id=sid,
        )
        turn = asyncio.create_task(loop.send("go"))
        while store.get_session(sid).turns == 0:  # the typed message is committed
            await asyncio.sleep(0)
        loop.cancel_turn()
        assert (await turn).reason == "cancelled"
        held = store.lock_session(sid)  # as if this process were the one running it
        try:
            assert store.get_session(sid).state == "interrupted"
        finally:
            held.release()
