"""The whole loop against a real HTTP server on 127.0.0.1 (aiohttp), real tools and store.

Each test scripts the server's stream and then checks the files on disk and the
messages the model is sent next: confirmed calls stay executed, nothing
unconfirmed runs, whatever the network does.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from sse_server import serve, sse, start_sse

from frontier.app.agent.explain import explain_session
from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.events import (
    CallReady,
    Event,
    Notice,
    ReasoningText,
    RepairRequested,
    ResponseEnded,
    Retry,
    ToolFinished,
)
from frontier.app.model.registry import codec
from frontier.app.model.think_tags import OPENED
from frontier.app.model.transport import ModelClient, Timeouts
from frontier.app.replay_player import ReplayPlayer, source_from_recording
from frontier.app.session.catalogue import session_recordings
from frontier.app.session.export import read_session, to_markdown
from frontier.app.session.store import SessionStore
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

Handler = Callable[[web.Request, int], Awaitable[web.StreamResponse]]


def content(text: str) -> bytes:
    return sse({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def finish(reason: str = "stop") -> bytes:
    return (
        sse({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}) + b"data: [DONE]\n\n"
    )


def write_call(call_id: str, path: str, text: str) -> str:
    return f"call {call_id} write\narg path {path}\narg content <<EOF\n{text}\nEOF\nend\n"


TWO_AND_A_HALF = (
    "Writing three files.\n"
    + write_call("c1", "one.txt", "first")
    + write_call("c2", "two.txt", "second")
    + "call c3 write\narg path three.txt\narg content <<EOF\nthi"
)
DONE_BODY = content("All done.") + finish()


@dataclass
class Server:
    url: str = ""
    handlers: list[Handler] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        index = len(self.requests) - 1
        handler = self.handlers[min(index, len(self.handlers) - 1)]
        return await handler(request, index)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    srv = Server()
    async with serve(srv.dispatch) as url:
        srv.url = url
        yield srv


def body_handler(body: bytes, *, byte_by_byte: bool = False) -> Handler:
    async def handler(request: web.Request, index: int) -> web.StreamResponse:
        resp = await start_sse(request)
        if byte_by_byte:
            for i in range(len(body)):
                await resp.write(body[i : i + 1])
        else:
            await resp.write(body)
        await resp.write_eof()
        return resp

    return handler


def dropping_handler(body: bytes) -> Handler:
    """Send ``body`` then drop the TCP connection without finishing the response."""

    async def handler(request: web.Request, index: int) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(body)
        assert request.transport is not None
        request.transport.close()
        return resp

    return handler


def stalling_handler(body: bytes, release: asyncio.Event) -> Handler:
    async def handler(request: web.Request, index: int) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(body)
        await release.wait()
        return resp

    return handler


@dataclass
class Rig:
    loop: AgentLoop
    events: list[Event]
    root: Path
    store: SessionStore
    session_id: str


@pytest.fixture
def make_rig(tmp_path: Path) -> Callable[..., Rig]:
    stores: list[SessionStore] = []

    def build(url: str, *, idle_timeout: float = 30.0, sleep: Any = None) -> Rig:
        root = tmp_path / "ws"
        root.mkdir(exist_ok=True)
        store = SessionStore.open(tmp_path / "sessions.db")
        stores.append(store)
        sid = store.create_session(str(root), "m", url, "ctl-heredoc", wire="openai-chat")
        events: list[Event] = []
        registry = default_registry()
        boundary = ToolBoundary(
            registry, root, PolicyApprover("auto"), store.persistence(sid), emit=events.append
        )
        kwargs: dict[str, Any] = {"timeouts": Timeouts(idle=idle_timeout)}
        if sleep is not None:
            kwargs["sleep"] = sleep
        client = ModelClient(codec("openai-chat"), url, "m", **kwargs)
        loop = AgentLoop(
            client=client,
            boundary=boundary,
            registry=registry,
            mode=get_mode("ctl-heredoc"),
            emit=events.append,
            store=store,
            session_id=sid,
        )
        return Rig(loop, events, root, store, sid)

    yield build  # type: ignore[misc]
    for store in stores:
        store.close()


def results(rig: Rig) -> dict[str, str]:
    return {e.result.call_id: e.result.kind for e in rig.events if isinstance(e, ToolFinished)}


async def test_disconnect_mid_frame_keeps_confirmed_calls(server: Server, make_rig) -> None:  # type: ignore[no-untyped-def]
    server.handlers = [dropping_handler(content(TWO_AND_A_HALF)), body_handler(DONE_BODY)]
    rig = make_rig(server.url)
    ended = await rig.loop.send("write the files")
    assert ended.reason == "done"
    assert (rig.root / "one.txt").read_text() == "first\n"
    assert (rig.root / "two.txt").read_text() == "second\n"
    assert not (rig.root / "three.txt").exists()
    assert results(rig) == {"c1": "ok", "c2": "ok", "c3": "truncated"}
    second = server.requests[1]["messages"]
    # the cut reply is kept up to its last confirmed call, and the results and the
    # truncation note go back as one user message (roles alternate)
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"].endswith(write_call("c2", "two.txt", "second"))
    feedback = second[-1]["content"]
    assert feedback.count("result c") == 2 and "error truncated" in feedback and "c3" in feedback
    calls = rig.store.calls(rig.session_id)
    assert sorted(c.call_id for c in calls) == ["c1", "c2"]


async def test_a_call_drafted_in_a_leading_think_block_never_runs(server: Server, make_rig) -> None:  # type: ignore[no-untyped-def]
    """Qwen3 or DeepSeek-R1 behind a server that leaves the thinking in the text (vLLM
    without ``--reasoning-parser``): a call the model drafted while thinking ran at its
    ``end`` line, and the real answer was stopped as text after a call."""
    reply = (
        "<think>\nI could run:\n"
        + write_call("c1", "draft.txt", "draft")
        + "but better to write the real one.\n</think>\n\nWriting it.\n"
        + write_call("c2", "real.txt", "real")
    )
    server.handlers = [body_handler(content(reply) + finish(), byte_by_byte=True)]
    server.handlers.append(body_handler(DONE_BODY))
    rig = make_rig(server.url)
    ended = await rig.loop.send("write real.txt")
    assert ended.reason == "done", ended.message
    assert not (rig.root / "draft.txt").exists()
    assert (rig.root / "real.txt").read_text() == "real\n"
    assert results(rig) == {"c2": "ok"}
    thought = "".join(e.text for e in rig.events if isinstance(e, ReasoningText))
    assert "draft.txt" in thought and "Writing it." not in thought
    # the history gives the model back what it wrote, its thinking in its tags
    said = server.requests[1]["messages"][2]["content"]
    assert said.startswith("<think>\nI could run:\ncall c1 write\n")
    assert "but better to write the real one.\n</think>\n\nWriting it.\n" in said
    # the export quotes the thought, then the reply without the blank lines after </think>
    markdown = to_markdown(*read_session(rig.store.db, rig.session_id))
    assert "> I could run:" in markdown and "## Assistant\n\nWriting it.\n" in markdown


async def test_a_reply_that_ends_with_done_and_no_finish_reason_is_a_normal_end(
    server: Server, make_rig
) -> None:  # type: ignore[no-untyped-def]
    """Proxies in front of Gemini (and servers that never send ``finish_reason``) end each
    reply with ``[DONE]`` alone: every reply was taken for one a dropped connection cut,
    its call never ran, and three repairs ended the turn. The end event proves the stream
    was not cut: it is a normal end, said once."""
    reply = "Writing it.\n" + write_call("c1", "a.txt", "one")
    server.handlers = [
        body_handler(content(reply) + b"data: [DONE]\n\n"),
        body_handler(content("All done.") + b"data: [DONE]\n\n"),
    ]
    rig = make_rig(server.url)
    ended = await rig.loop.send("write a.txt")
    assert ended.reason == "done", ended.message
    assert results(rig) == {"c1": "ok"} and (rig.root / "a.txt").read_text() == "one\n"
    assert [e.finish_reason for e in rig.events if isinstance(e, ResponseEnded)] == ["stop"] * 2
    assert not [e for e in rig.events if isinstance(e, RepairRequested)]
    (said,) = [e.text for e in rig.events if isinstance(e, Notice) and "finish_reason" in e.text]
    assert said.startswith("the server ends its replies without a finish_reason")
    # a body that stops with neither is still a cut
    server.requests.clear()
    server.handlers = [body_handler(content(reply)), body_handler(DONE_BODY)]
    rig = make_rig(server.url)
    assert (await rig.loop.send("write a.txt")).reason == "done"
    assert next(e.finish_reason for e in rig.events if isinstance(e, ResponseEnded)) == "disconnect"


async def test_a_thought_opened_in_the_prompt_is_learned_and_its_drafts_never_run(
    server: Server, make_rig
) -> None:  # type: ignore[no-untyped-def]
    """QwQ, DeepSeek-R1 distills and Qwen3's Thinking-2507 open ``<think>`` in their
    template: behind a server that leaves the thinking in the text, a reply has
    ``</think>`` and no ``<think>``. The first such reply is the evidence; from the next
    on, the text before ``</think>`` is thinking, and a call drafted there never runs —
    in the live run and in every reader of the recording."""
    first = "The user wants a.txt read first.\n</think>\n\ncall c1 read\narg path a.txt\nend\n"
    second = (
        "I could run:\n"
        + write_call("c2", "draft.txt", "draft")
        + "but better not.\n</think>\n\n"
        + write_call("c3", "real.txt", "real")
    )
    server.handlers = [
        body_handler(content(first) + finish(), byte_by_byte=True),
        body_handler(content(second) + finish(), byte_by_byte=True),
        body_handler(content("All written.\n</think>\n\nDone.") + finish()),
    ]
    rig = make_rig(server.url)
    (rig.root / "a.txt").write_text("hi\n")
    ended = await rig.loop.send("write real.txt")
    assert ended.reason == "done", ended.message
    assert results(rig) == {"c1": "ok", "c3": "ok"}
    assert not (rig.root / "draft.txt").exists()
    assert (rig.root / "real.txt").read_text() == "real\n"
    (told,) = [e.text for e in rig.events if isinstance(e, Notice) and "</think>" in e.text]
    assert "from the next reply on, what comes before </think> is read as thinking" in told
    thought = "".join(e.text for e in rig.events if isinstance(e, ReasoningText))
    assert "draft.txt" in thought and "All written." in thought
    # the recordings say it first, so check, the inspector and replay read them the same
    stored = rig.store.db.path
    sources = session_recordings(rig.session_id, stored)
    assert [rec.events[0][1] == OPENED for _, rec in sources] == [False, True, True]
    (name, rec) = sources[1]
    played = ReplayPlayer(source_from_recording(rec, name=name)).run_all()
    assert [e.call.id for e in played if isinstance(e, CallReady)] == ["c3"]
    assert [e for e in explain_session(rig.session_id, stored) if not e.server] == []
    data = b"".join(piece for _, piece in rec.pieces())  # what `check` reads: the text
    assert data.startswith(b"\n\ncall c3 write") and b"draft" not in data


async def test_read_stall_is_a_truncation(server: Server, make_rig) -> None:  # type: ignore[no-untyped-def]
    release = asyncio.Event()
    server.handlers = [stalling_handler(content(TWO_AND_A_HALF), release), body_handler(DONE_BODY)]
    rig = make_rig(server.url, idle_timeout=0.3)
    try:
        ended = await rig.loop.send("write the files")
    finally:
        release.set()
    assert ended.reason == "done"
    assert results(rig) == {"c1": "ok", "c2": "ok", "c3": "truncated"}
    assert not (rig.root / "three.txt").exists()


async def test_one_byte_tcp_writes_give_the_same_outcome(server: Server, make_rig) -> None:  # type: ignore[no-untyped-def]
    text = "Two files.\n" + write_call("c1", "é.txt", "naïve ☃") + write_call("c2", "b.txt", "b")
    body = b"".join(content(text[i : i + 3]) for i in range(0, len(text), 3)) + finish()
    server.handlers = [body_handler(body, byte_by_byte=True), body_handler(DONE_BODY)]
    rig = make_rig(server.url)
    ended = await rig.loop.send("go")
    assert ended.reason == "done"
    assert (rig.root / "é.txt").read_text("utf-8") == "naïve ☃\n"
    assert results(rig) == {"c1": "ok", "c2": "ok"}


async def test_429_then_success_runs_each_call_once(server: Server, make_rig) -> None:  # type: ignore[no-untyped-def]
    async def busy(request: web.Request, index: int) -> web.StreamResponse:
        return web.Response(status=429, headers={"Retry-After": "1"}, text="slow down")

    whole = content("One file.\n" + write_call("c1", "a.txt", "a")) + finish()
    server.handlers = [busy, body_handler(whole), body_handler(DONE_BODY)]
    delays: list[float] = []

    async def fake_sleep(delay: float) -> None:
        delays.append(delay)

    rig = make_rig(server.url, sleep=fake_sleep)
    ended = await rig.loop.send("go")
    assert ended.reason == "done"
    assert delays == [1.0]
    assert [e.attempt for e in rig.events if isinstance(e, Retry)] == [1]
    assert results(rig) == {"c1": "ok"}
    assert len(rig.store.calls(rig.session_id)) == 1


async def test_malformed_sse_lines_are_skipped(server: Server, make_rig) -> None:  # type: ignore[no-untyped-def]
    text = write_call("c1", "a.txt", "a")
    body = (
        b"data: {not json\n\n"
        + content(text[:10])
        + b": comment\n\n"
        + content(text[10:])
        + finish()
    )
    server.handlers = [body_handler(body), body_handler(DONE_BODY)]
    rig = make_rig(server.url)
    ended = await rig.loop.send("go")
    assert ended.reason == "done"
    assert (rig.root / "a.txt").read_text() == "a\n"


async def test_run_reads_a_long_prompt_from_stdin(server: Server, tmp_path: Path) -> None:
    """`frontier run --prompt -` as another program drives it: the task arrives on stdin."""
    server.handlers = [body_handler(DONE_BODY)]
    task = "Rename greet to hello.\nKeep the tests passing.\n" * 50
    env = {**os.environ, "FRONTIER_DATA_DIR": str(tmp_path / "data")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "frontier.app.cli", "run", "--prompt", "-", "--json",
        "--base-url", server.url, "--model", "m", "--workspace", str(tmp_path),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(task.encode()), 60)
    assert proc.returncode == 0, err.decode()
    assert json.loads(out.decode().splitlines()[-1])["reason"] == "done"
    assert server.requests[0]["messages"][-1] == {"role": "user", "content": task}
