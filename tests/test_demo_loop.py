"""The demo script through the real loop, tools and store, in-process.

Each scripted behaviour is checked three ways: the events a viewer sees, the
files in the scratch workspace, and the exact messages sent back to the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.events import ContractError, Event, StreamStopped, ToolFinished
from frontier.app.model.demo_script import DEMO_TASK
from frontier.app.model.registry import codec
from frontier.app.model.transport import ModelClient
from frontier.app.model.wires.demo import DEMO_BASE_URL, DemoTransport, make_demo_workspace
from frontier.app.session.store import SessionStore
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry


class Capturing(httpx.AsyncBaseTransport):
    """Wraps the demo model and keeps every request body the loop sent."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.bodies: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        return await self.inner.handle_async_request(request)


async def run_demo(
    tmp_path: Path, mode: str
) -> tuple[list[Event], Capturing, Path, SessionStore, str]:
    root = make_demo_workspace(tmp_path / "ws")
    store = SessionStore.open(tmp_path / "s.db")
    sid = store.create_session(str(root), "demo", DEMO_BASE_URL, mode, wire="openai-chat")
    events: list[Event] = []
    transport = Capturing(DemoTransport(mode, rate=0))
    registry = default_registry()
    loop = AgentLoop(
        client=ModelClient(codec("openai-chat"), DEMO_BASE_URL, "demo", transport=transport),
        boundary=ToolBoundary(
            registry, root, PolicyApprover("auto"), store.persistence(sid), emit=events.append
        ),
        registry=registry,
        mode=get_mode(mode),
        emit=events.append,
        store=store,
        session_id=sid,
    )
    ended = await loop.send(DEMO_TASK)
    assert ended.reason == "done", ended
    return events, transport, root, store, sid


def sent(transport: Capturing, request: int) -> list[dict[str, Any]]:
    """The conversation (without the system prompt) as sent in request ``request``."""
    return transport.bodies[request]["messages"][1:]


@pytest.mark.parametrize("mode", ["ctl", "ctl-heredoc"])
async def test_ctl_demo_story(tmp_path: Path, mode: str) -> None:
    events, transport, root, store, sid = await run_demo(tmp_path, mode)
    finished = {e.result.call_id: e.result for e in events if isinstance(e, ToolFinished)}

    # 1. read: the result frame carries numbered lines with an exact byte count.
    frame = sent(transport, 1)[-1]["content"]
    header, rest = frame.split("\n", 1)
    assert header.startswith("result c1 exit=0 ")
    assert len(rest.encode()) == int(header.split()[-1]) + len("\nend\n")
    assert "build_parser" in rest

    # 2. apply_patch + 3. shell: the patch landed and the tests ran green.
    assert "--shout" in (root / "greet" / "cli.py").read_text()
    assert finished["c3"].kind == "ok" and finished["c3"].exit_code == 0
    assert "OK" in finished["c3"].output

    # 4. the miscounted length prefix: a contract error naming declared vs arrived.
    errors = [e for e in events if isinstance(e, ContractError)]
    assert errors[0].kind == ("body_eof" if mode == "ctl-heredoc" else "unexpected_line")
    assert "declared" in errors[0].message
    repair = sent(transport, 4)[-1]["content"]
    assert repair.startswith("error contract (") and "declared" in repair
    # 5. resent as a heredoc: the note exists exactly once.
    assert (root / "NOTES.md").read_text().startswith("# Notes")

    # 6. hallucinated result: the stream stopped and the invented text never reaches history.
    stops = [e for e in events if isinstance(e, StreamStopped)]
    assert len(stops) == 1
    assistant = sent(transport, 6)[-2]
    assert assistant["role"] == "assistant"
    assert assistant["content"].endswith("end\n") and "result c5" not in assistant["content"]
    assert sent(transport, 6)[-1]["content"].startswith("result c5 exit=0")

    # 7. truncation: c6 did not run first time; the resend applied it once.
    assert "error truncated" in sent(transport, 7)[-1]["content"]
    assert (root / "README.md").read_text().count("--shout Ada") == 1
    assert finished["c6"].kind == "ok"

    # The store agrees: every call paired with one result, nothing left open.
    assert store.unresolved_calls(sid) == []
    store.close()


async def test_native_inc_demo_story(tmp_path: Path) -> None:
    _events, transport, root, store, sid = await run_demo(tmp_path, "native-inc")
    second = sent(transport, 1)
    assert second[-3]["role"] == "assistant" and len(second[-3]["tool_calls"]) == 2
    assert [m["role"] for m in second[-2:]] == ["tool", "tool"]
    assert "--shout" in (root / "greet" / "cli.py").read_text()
    assert store.unresolved_calls(sid) == []
    store.close()
