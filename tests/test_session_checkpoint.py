"""WAL checkpoints happen where nothing waits on them, and the WAL stays bounded."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest
from inline_boundary import InlineBoundary
from scripted import chat_event

import frontier.app.session.responses as responses_mod
from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.events import ToolCall, ToolResult
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd, StreamItem
from frontier.app.session.store import SessionStore
from frontier.tools.contract import Preview, ToolSpec
from frontier.tools.registry import default_registry

READ = ToolSpec("read", "read a file", {"type": "object"})
MIB = 1 << 20


def wal_size(store: SessionStore) -> int:
    return os.path.getsize(f"{store.path}-wal")


def test_recording_a_call_never_pays_for_a_checkpoint(tmp_path: Path) -> None:
    """SQLite would checkpoint inside the commit crossing 1000 pages (~4 MiB): not here."""
    with SessionStore.open(tmp_path / "sessions.db") as store:
        sid = store.create_session(str(tmp_path), "m", None, "ctl")
        persistence = store.persistence(sid)
        main_before = os.path.getsize(store.path)
        blob = "x" * 60_000
        for i in range(120):  # ~7 MiB of call rows, far past the automatic threshold
            call = ToolCall(f"c{i}", "read", {"path": f"{i}.txt", "note": blob})
            persistence.persist_and_start(call, READ, Preview("none"))
        assert wal_size(store) > 6 * MIB
        # Nothing was copied into the main file by any of those commits.
        assert os.path.getsize(store.path) == main_before

        assert store.checkpoint() is True
        assert os.path.getsize(store.path) > main_before + 6 * MIB
        # The next commits overwrite the WAL from its start instead of growing it.
        wal_after = wal_size(store)
        for i in range(120, 140):
            call = ToolCall(f"c{i}", "read", {"path": f"{i}.txt", "note": blob})
            persistence.persist_and_start(call, READ, Preview("none"))
        assert wal_size(store) == wal_after
        assert len(store.calls(sid)) == 140


def test_a_long_response_checkpoints_at_the_wal_cap(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(responses_mod, "STREAM_FLUSH_EVENTS", 100)
    monkeypatch.setattr(responses_mod, "WAL_CAP_BYTES", 2 * MIB)
    with SessionStore.open(tmp_path / "sessions.db") as store:
        sid = store.create_session(str(tmp_path), "m", None, "ctl-heredoc")
        rid = store.begin_response(sid, "ctl-heredoc", "m", 0)
        event = json.dumps({"choices": [{"delta": {"content": "y" * 1000}}]})
        for i in range(10_000):  # ~10 MiB of stream in one response
            store.add_stream_event(rid, i / 1000, event)
        store.end_response(rid, "stop")
        assert wal_size(store) < 3 * MIB
        assert len(store.recordings(sid)[0].events) == 10_000


class _Client:
    """Each response: ~100 KiB of prose, then one read call (of another file each time:
    the same call a third time would not run); the last: prose only."""

    wire = "openai-chat"
    model = "m"

    def __init__(self, responses: int) -> None:
        self.left = responses

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        self.left -= 1
        text = "Reading the next file now. " * 40 + "\n"
        for _ in range(100):
            yield chat_event({"choices": [{"delta": {"content": text}, "finish_reason": None}]})
        if self.left > 0:
            frame = f"call r{self.left} read\narg path a{self.left}.txt\nend\n"
            yield chat_event({"choices": [{"delta": {"content": frame}, "finish_reason": None}]})
        yield StreamEnd("stop")

    async def aclose(self) -> None:
        return None


class _Boundary(InlineBoundary):
    def __init__(self, store: SessionStore, sid: str) -> None:
        self.persistence = store.persistence(sid)

    async def run(self, call: ToolCall) -> ToolResult:
        self.persistence.persist_and_start(call, READ, Preview("none"))
        result = ToolResult(call.id, call.name, "ok", "contents of a.txt", exit_code=0)
        self.persistence.commit_result(result)
        return result


@pytest.mark.parametrize("requests", [40])
async def test_a_long_session_keeps_its_wal_bounded(tmp_path: Path, requests: int) -> None:
    """The loop checkpoints before every request, so the WAL never holds the whole session."""
    with SessionStore.open(tmp_path / "sessions.db") as store:
        sid = store.create_session(str(tmp_path), "m", None, "ctl-heredoc")
        loop = AgentLoop(
            client=_Client(requests),
            boundary=_Boundary(store, sid),
            registry=default_registry(),
            mode=get_mode("ctl-heredoc"),
            store=store,
            session_id=sid,
            max_turns=requests + 1,
        )
        ended = await loop.send("read a.txt again and again")
        assert ended.reason == "done"
        recordings = store.recordings(sid)
        assert len(recordings) == requests
        stored = sum(len(d) for r in recordings for _, d in r.events)
        assert stored > 4 * MIB  # the session wrote far more than ...
        assert wal_size(store) < MIB  # ... the WAL ever holds
