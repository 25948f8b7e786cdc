"""An interrupted reply is kept in the store and the export, marked (the loop's half).

The real loop, model client and store against a loopback server that streams part of
a reply and then waits: cancelling the turn (what Esc does) keeps the confirmed
prose as an ``assistant`` row marked ``interrupted``; ``frontier export`` shows it
marked (an open code fence closed, so the note is not swallowed), and a resumed
Transcript shows it marked too. The history the model is sent next keeps the reply as
an assistant turn carrying the interruption marker. Prose after a finished reply is not marked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import web
from sse_server import serve, sse, start_sse

from frontier.app.agent.history_events import history_events
from frontier.app.agent.loop import INTERRUPTED, AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.config import data_dir
from frontier.app.events import AssistantText, Confirmed, Event, TurnEnded
from frontier.app.model.conversation import AssistantTurn, UserText
from frontier.app.model.registry import codec
from frontier.app.model.transport import ModelClient
from frontier.app.session.export import INTERRUPTED_NOTE, export_records, to_markdown
from frontier.app.session.store import SessionStore
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry
from frontier.widgets.state import UiState

SAID = "Here is the plan:\n\n```python\ndef f():\n"
PENDING = "ca"  # may still become "call …": never confirmed


def content(text: str) -> bytes:
    return sse({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


@dataclass
class Stalling:
    """Streams ``SAID`` then a pending tail, and waits until the test lets it go."""

    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        await request.json()
        resp = await start_sse(request)
        await resp.write(content(SAID) + content(PENDING))
        await self.release.wait()
        with contextlib.suppress(ConnectionError):
            await resp.write_eof()
        return resp


def session_loop(
    store: SessionStore, sid: str, root: Path, url: str, emit: Callable[[Event], None]
) -> tuple[ModelClient, AgentLoop]:
    """The real loop of session ``sid`` (ctl-heredoc, approvals by policy ``auto``) and its
    client against the loopback server at ``url``; the caller closes the client."""
    registry = default_registry()
    boundary = ToolBoundary(
        registry, root, PolicyApprover("auto"), store.persistence(sid), emit=emit
    )
    client = ModelClient(codec("openai-chat"), url, "m")
    loop = AgentLoop(
        client=client,
        boundary=boundary,
        registry=registry,
        mode=get_mode("ctl-heredoc"),
        emit=emit,
        store=store,
        session_id=sid,
    )
    return client, loop


@pytest.fixture
async def stalling() -> AsyncIterator[tuple[Stalling, str]]:
    server = Stalling()
    async with serve(server.dispatch) as url:
        yield server, url
        server.release.set()


async def test_a_cancelled_turn_keeps_its_confirmed_prose_marked(
    stalling: tuple[Stalling, str], tmp_path: Path
) -> None:
    _server, url = stalling
    root = tmp_path / "ws"
    root.mkdir()
    store = SessionStore.open()
    try:
        sid = store.create_session(str(root), "m", url, "ctl-heredoc")
        events: list[Event] = []
        confirmed = asyncio.Event()
        """Set once all of ``SAID`` is confirmed (the pending tail never is)."""

        def emit(event: Event) -> None:
            events.append(event)
            text = b"".join(e.data for e in events if isinstance(e, Confirmed) and e.kind == "text")
            if text == SAID.encode():
                confirmed.set()

        client, loop = session_loop(store, sid, root, url, emit)
        turn = asyncio.create_task(loop.send("plan it"))
        try:
            await asyncio.wait_for(confirmed.wait(), 30)
            loop.cancel_turn()
            ended = await asyncio.wait_for(turn, 30)
        finally:
            await client.aclose()
        assert ended == TurnEnded("cancelled", "turn cancelled by the user")
        assert [e.text for e in events if isinstance(e, AssistantText)] == [SAID]

        said = [r.data for r in store.records(sid) if r.type == "assistant"]
        assert said == [{"text": SAID, "interrupted": True}]
        assert store.get_session(sid).state == "interrupted"
        # the history the model is sent next keeps the reply, marked (issue 20: the next
        # message never follows a user message, and the model learns it was cut)
        assert store.load_items(sid) == [
            UserText("plan it"),
            AssistantTurn(SAID, cut=INTERRUPTED),
        ]
        assert loop.history == store.load_items(sid)
        records = list(export_records(store.records(sid)))
        assert records[-1]["type"] == "assistant" and records[-1]["interrupted"] is True
        markdown = to_markdown(store.get_session(sid), records)
        # the open fence is closed before the note, so the note is not code
        assert f"def f():\n```\n\n_{INTERRUPTED_NOTE}_" in markdown

        # a resumed Transcript shows the reply marked too
        state = UiState()
        state.show_history(history_events(store.records(sid)))
        reply = next(e for e in state.transcript if e.role == "ai")
        assert reply.interrupted and reply.text == SAID
    finally:
        store.close()

    # `frontier export ID` prints it marked (a reader of a session nobody holds)
    env = {**os.environ, "FRONTIER_DATA_DIR": str(data_dir())}
    out = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "export", sid, "--format", "jsonl"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    ).stdout
    exported = [json.loads(line) for line in out.splitlines()]
    assert {"type": "assistant", "text": SAID, "interrupted": True}.items() <= next(
        r for r in exported if r["type"] == "assistant"
    ).items()


def test_a_finished_reply_is_not_marked(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path / "s.db")
    try:
        sid = store.create_session(str(tmp_path), "m", "http://127.0.0.1:9/v1", "ctl")
        store.add_assistant_text(sid, "All of it.\n")
        (record,) = export_records(store.records(sid))
        assert "interrupted" not in record
        assert INTERRUPTED_NOTE not in to_markdown(store.get_session(sid), [record])
    finally:
        store.close()


@dataclass
class Silent:
    """Takes the request and says nothing until the test lets it go (a model still
    reading the prompt, or a compaction's summary being written)."""

    asked: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        await request.json()
        self.asked.set()
        await self.release.wait()
        return web.Response(status=503)


async def test_a_turn_stopped_before_any_reply_is_marked_where_it_stopped(tmp_path: Path) -> None:
    """Esc before the reply's first byte (or during a compaction's summary) kept no row:
    the export showed the person's message and then their next one, as if the first had
    been answered by nothing, and a resumed Transcript showed no stop."""
    server = Silent()
    root = tmp_path / "ws"
    root.mkdir()
    store = SessionStore.open()
    async with serve(server.dispatch) as url:
        try:
            sid = store.create_session(str(root), "m", url, "ctl-heredoc")
            client, loop = session_loop(store, sid, root, url, lambda _e: None)
            turn = asyncio.create_task(loop.send("plan it"))
            try:
                await asyncio.wait_for(server.asked.wait(), 30)
                loop.cancel_turn()
                ended = await asyncio.wait_for(turn, 30)
            finally:
                server.release.set()
                await client.aclose()
            assert ended == TurnEnded("cancelled", "turn cancelled by the user")
            rows = [(r.type, r.data) for r in store.records(sid)]
            assert rows[-1] == (
                "assistant",
                {"text": "", "interrupted": True, "why": "turn cancelled by the user"},
            )
            records = list(export_records(store.records(sid)))
            assert [r["type"] for r in records] == ["user", "ended"]
            assert records[-1]["reason"] == "cancelled"
            markdown = to_markdown(store.get_session(sid), records)
            assert "> **turn ended** `cancelled`: turn cancelled by the user" in markdown
            assert "## Assistant" not in markdown  # nothing was said

            state = UiState()  # a resumed Transcript says the turn stopped, no empty reply
            state.show_history(history_events(store.records(sid)))
            assert not any(e.role == "ai" for e in state.transcript)
            assert any("the turn stopped" in e.text for e in state.transcript)
        finally:
            store.close()
