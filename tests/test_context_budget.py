"""The context budget through the whole loop: the window learned (setting, server, its
own overflow error), compaction before a request would pass the threshold (stubs, then
a summary the model writes), a 400 "context exceeded" compacted and retried once, and a
resumed session starting from the compacted history (docs/context-budget.md)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from request_validity import chat_problems
from scripted import chat_messages
from sse_server import serve, sse, start_sse

from frontier.app.agent.budget import (
    ASSUMED,
    DEFAULT_WINDOW,
    MESSAGE_OVERHEAD,
    ContextBudget,
    estimate_items,
    estimate_tokens,
)
from frontier.app.agent.compaction import (
    SUMMARY_MARK,
    is_stub,
    is_summary,
    pairing_problems,
)
from frontier.app.agent.compactor import SUMMARY_PROMPT, Compactor
from frontier.app.agent.loop import AgentLoop, RequestCounter
from frontier.app.agent.modes import get_mode
from frontier.app.config import load_config
from frontier.app.events import (
    Compacted,
    ContextUsage,
    Event,
    Summarising,
    TokenUsage,
    TurnEnded,
)
from frontier.app.model import ollama
from frontier.app.model.catalogue import lookup
from frontier.app.model.conversation import (
    AssistantTurn,
    Item,
    ResultEntry,
    ToolResults,
    UserText,
)
from frontier.app.model.errors import context_overflow
from frontier.app.model.probe import (
    WindowInfo,
    window_from_models,
    window_from_props,
)
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest, ToolSchema
from frontier.app.model.stream import StreamItem
from frontier.app.model.transport import ModelClient
from frontier.app.session.export import read_session, to_markdown
from frontier.app.session.store import SessionStore
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

LLAMA_OVERFLOW = {
    "error": {
        "code": 400,
        "message": "request (6033 tokens) exceeds the available context size (4096 tokens), "
        "try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 6033,
        "n_ctx": 4096,
    }
}
"""What the rig's llama-server answers an oversized request (captured with curl)."""
SUMMARY = "The user asked for notes; a.txt through d.txt were written with long text."
BIG = "".join(f"line {i:04d} of the big file, padded to be long enough\n" for i in range(120))


# --------------------------------------------------------------------------- a scripted model


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def sse_body(text: str, prompt_tokens: int, *, calls: list[dict[str, Any]] | None = None) -> bytes:
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": text[i : i + 40]}) for i in range(0, len(text), 40)]
    for i, call in enumerate(calls or []):
        events.append(chunk({"tool_calls": [{"index": i, **call}]}))
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    events.append(
        {"choices": [], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 9}}
    )
    return b"".join(sse(e) for e in events) + b"data: [DONE]\n\n"


def prompt_tokens(body: dict[str, Any]) -> int:
    """What a server would count: the bytes of the messages (and tools) over 4."""
    return math.ceil(len(json.dumps([body["messages"], body.get("tools")])) / 4)


@dataclass
class Script:
    """The model's turns, in order; summary requests are answered on the side."""

    replies: list[str | list[dict[str, Any]]]
    requests: list[dict[str, Any]] = field(default_factory=list)
    summaries: list[dict[str, Any]] = field(default_factory=list)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        headers = {"content-type": "text/event-stream"}
        if body["messages"][0]["content"].startswith(SUMMARY_PROMPT[:40]):
            self.summaries.append(body)
            return httpx.Response(200, headers=headers, content=sse_body(SUMMARY, 50))
        self.requests.append(body)
        reply = self.replies[min(len(self.requests) - 1, len(self.replies) - 1)]
        if isinstance(reply, list):
            return httpx.Response(
                200, headers=headers, content=sse_body("", prompt_tokens(body), calls=reply)
            )
        return httpx.Response(200, headers=headers, content=sse_body(reply, prompt_tokens(body)))


def is_summary_request(request: ModelRequest) -> bool:
    return request.system.startswith(SUMMARY_PROMPT[:40])


class Sent:
    """The rig's model client: the real chat client, keeping every typed request the loop
    and the compactor hand it (what each wire encodes), beside the chat bodies the
    scripted server reads."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self.wire = client.wire
        self.model = client.model
        self.sent: list[ModelRequest] = []

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        self.sent.append(request)
        return self.client.stream(request)

    async def aclose(self) -> None:
        await self.client.aclose()

    @property
    def turns(self) -> list[ModelRequest]:
        """The loop's requests (summary requests left out), in order."""
        return [r for r in self.sent if not is_summary_request(r)]

    @property
    def summaries(self) -> list[ModelRequest]:
        return [r for r in self.sent if is_summary_request(r)]


def chat_client(url: str, model: str = "m", **kwargs: Any) -> ModelClient:
    """A Chat Completions client for ``url`` (``transport=``: a mock server)."""
    return ModelClient(codec("openai-chat"), url, model, **kwargs)


def mock_client(handle: Callable[..., Any], **kwargs: Any) -> ModelClient:
    return chat_client("http://test/v1", transport=httpx.MockTransport(handle), **kwargs)


@dataclass
class Rig:
    loop: AgentLoop
    events: list[Event]
    store: SessionStore
    session_id: str
    root: Path
    budget: ContextBudget
    client: Sent


@pytest.fixture
async def make_rig(tmp_path: Path) -> AsyncIterator[Callable[..., Rig]]:
    stores: list[SessionStore] = []
    clients: list[ModelClient] = []

    def build(
        client: ModelClient,
        *,
        mode: str = "ctl-heredoc",
        window: int | None = None,
        keep_rounds: int = 1,
        history: list[Item] | None = None,
    ) -> Rig:
        root = tmp_path / "ws"
        root.mkdir(exist_ok=True)
        (root / "big.txt").write_text(BIG)
        (root / "copy.txt").write_text(BIG)  # a third identical read in a row is not run
        store = SessionStore.open(tmp_path / "sessions.db")
        stores.append(store)
        sid = store.create_session(str(root), "m", "http://test/v1", mode)
        if history:
            store.append_items(sid, history)
        events: list[Event] = []
        registry = default_registry()
        boundary = ToolBoundary(
            registry, root, PolicyApprover("auto"), store.persistence(sid), emit=events.append
        )
        budget = ContextBudget(
            window=window, source="config" if window else "", keep_rounds=keep_rounds
        )
        budget.probe = client.probe_context_window
        clients.append(client)
        sent = Sent(client)
        requests = RequestCounter()
        compactor = Compactor(
            budget, client=sent, requests=requests, store=store, session_id=sid, emit=events.append
        )
        loop = AgentLoop(
            client=sent,
            boundary=boundary,
            registry=registry,
            mode=get_mode(mode),
            emit=events.append,
            store=store,
            session_id=sid,
            history=history or (),
            signals_call_done=client.codec.signals_call_done,
            compactor=compactor,
            requests=requests,
        )
        return Rig(loop, events, store, sid, root, budget, sent)

    yield build
    for client in clients:
        await client.aclose()
    for store in stores:
        store.close()


def read_call(call_id: str, path: str = "big.txt") -> str:
    return f"call {call_id} read\narg path {path}\nend\n"


def write_call(call_id: str, name: str) -> str:
    return f"call {call_id} write\narg path {name}\narg content <<EOF\n{BIG}EOF\nend\n"


def system_of(body: dict[str, Any]) -> dict[str, Any]:
    return body["messages"][0]


@dataclass(frozen=True)
class Frame:
    call_id: str
    body: bytes


_FRAME = re.compile(rb"result ([A-Za-z0-9_.:-]{1,64}) exit=(-?\d+) (\d+)\n")


def frames(text: str) -> tuple[list[Frame], bytes]:
    """The result frames a request's user message starts with, and what follows them:
    read from what went over the wire (compaction no longer parses frames; a frame is
    written from its result's body when a request is encoded)."""
    data, pos, found = text.encode("utf-8"), 0, []
    while (match := _FRAME.match(data, pos)) is not None:
        end = match.end() + int(match.group(3))
        if data[end : end + 5] != b"\nend\n":
            break
        found.append(Frame(match.group(1).decode(), data[match.end() : end]))
        pos = end + 5
    return found, data[pos:]


# --------------------------------------------------------------------------- threshold: stubs


async def test_old_results_become_stubs_before_the_request_that_would_pass_the_budget(
    make_rig: Callable[..., Rig],
) -> None:
    script = Script([read_call("c1"), read_call("c2", "copy.txt"), read_call("c3"), "All read."])
    rig = make_rig(mock_client(script.handle), window=6000, keep_rounds=1)
    ended = await rig.loop.send("read big.txt three times")
    assert ended.reason == "done"
    compacted = [e for e in rig.events if isinstance(e, Compacted)]
    assert compacted and all(e.step == "stub" and e.reason == "threshold" for e in compacted)
    assert all(e.after < e.before <= e.window == 6000 for e in compacted)
    assert all(e.before > 0.8 * 6000 for e in compacted)

    first = script.requests[0]
    assert len(rig.client.turns) == len(script.requests)
    for body, request in zip(script.requests, rig.client.turns, strict=True):
        # the system prompt is never compacted; the user's message stays first, verbatim
        assert system_of(body) == system_of(first)
        assert body["messages"][1] == {"role": "user", "content": "read big.txt three times"}
        assert request.items[0] == UserText("read big.txt three times")
        # the typed history never splits a call from its result; the body is one the
        # API accepts
        assert pairing_problems(request.items) == []
        assert chat_problems(body) == []
    last = script.requests[-1]["messages"][1:]
    feedback = [m["content"] for m in last if m["role"] == "user"][1:]
    (old,), _ = frames(feedback[0])
    (new,), _ = frames(feedback[-1])
    stub = old.body.decode()
    assert is_stub(stub) and stub.startswith("[result of c1 read (ok, ")
    assert f"session {rig.session_id[:8]} log #" in stub
    assert not is_stub(new.body.decode()) and b"line 0119" in new.body  # the last round whole
    # every request within the budget by the count that was sent
    usage = [e for e in rig.events if isinstance(e, ContextUsage)]
    assert len(usage) == len(script.requests)
    assert all(e.used <= 0.8 * 6000 and e.window == 6000 for e in usage)
    # recorded: the compaction rows, the history a resume sends, the originals kept
    rows = rig.store.compactions.all(rig.session_id)
    assert [r.step for r in rows] == ["stub"] * len(compacted)
    assert rig.store.load_items(rig.session_id) == rig.loop.history
    originals = rig.store.timeline.load_items(rig.session_id)
    assert len(originals) == len(rig.loop.history)
    bodies = [r.body for i in originals if isinstance(i, ToolResults) for r in i.results]
    assert len(bodies) == 3 and sum(is_stub(b) for b in bodies) == 0


async def test_native_tool_messages_keep_their_ids_when_stubbed(
    make_rig: Callable[..., Rig],
) -> None:
    def read(call_id: str) -> list[dict[str, Any]]:
        args = json.dumps({"path": "big.txt"})
        return [
            {"id": call_id, "type": "function", "function": {"name": "read", "arguments": args}}
        ]

    script = Script([read("call_1"), read("call_2"), read("call_3"), "All read."])
    rig = make_rig(mock_client(script.handle), mode="native-eos", window=6000, keep_rounds=1)
    assert (await rig.loop.send("read it")).reason == "done"
    assert any(isinstance(e, Compacted) for e in rig.events)
    assert pairing_problems(rig.client.turns[-1].items) == []
    assert chat_problems(script.requests[-1]) == []
    last = script.requests[-1]["messages"][1:]
    tools = [m for m in last if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["call_1", "call_2", "call_3"]
    assert tools[0]["content"].startswith("[result of call_1 read (ok, ")
    assert not is_stub(tools[-1]["content"])


async def test_results_the_model_has_not_read_are_cut_to_their_ends_not_stubbed(
    make_rig: Callable[..., Rig],
) -> None:
    """A reply whose results alone pass the window (a 32 KB log in an 8k context): before,
    every result of it was stubbed, so the model never saw what its calls did — a short
    error among them — and was told to call again (a command's side effects twice). The
    results it has not read are cut to their two ends instead, the short ones whole."""

    def read(call_id: str, path: str) -> dict[str, Any]:
        args = json.dumps({"path": path})
        return {"id": call_id, "type": "function", "function": {"name": "read", "arguments": args}}

    error = "".join(f"E{i}: the build failed: missing module frontier_{i}\n" for i in range(8))
    huge = "".join(f"log line {i:05d} of a long build, padded out to length\n" for i in range(600))
    script = Script([[read("call_1", "error.txt"), read("call_2", "huge.txt")], "Seen."])
    rig = make_rig(mock_client(script.handle), mode="native-eos", window=6000, keep_rounds=1)
    (rig.root / "error.txt").write_text(error)
    (rig.root / "huge.txt").write_text(huge)
    assert (await rig.loop.send("build it")).reason == "done"

    tools = [m for m in script.requests[-1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["call_1", "call_2"]
    assert "E7: the build failed: missing module frontier_7" in tools[0]["content"]
    assert not is_stub(tools[1]["content"])
    assert "log line 00000 of a long build" in tools[1]["content"]  # the first lines
    assert tools[1]["content"].endswith("to continue]")  # and the last: where to go on
    assert "bytes of output omitted (kept first 60% and last 40%)" in tools[1]["content"]
    assert chat_problems(script.requests[-1]) == []
    (compacted,) = [e for e in rig.events if isinstance(e, Compacted)]
    assert compacted.step == "stub" and compacted.after <= 0.8 * 6000 < 6000 < compacted.before
    assert compacted.detail.startswith("1 tool result of the latest round (")
    assert "cut to its first 60% and last 40%" in compacted.detail
    # recorded: a resume sends the same, the originals stay whole in the store
    assert rig.store.load_items(rig.session_id) == rig.loop.history
    originals = rig.store.timeline.load_items(rig.session_id)
    bodies = [r.body for i in originals if isinstance(i, ToolResults) for r in i.results]
    assert any("log line 00300 of a long build" in b for b in bodies)
    info, records = read_session(rig.store.db, rig.session_id)
    (mark,) = [r for r in records if r["type"] == "compaction"]
    assert mark["trimmed"] == 1
    assert "the latest tool results cut to their first 60% and last 40%" in to_markdown(
        info, records
    )


# --------------------------------------------------------------------------- threshold: summary


async def test_a_summary_is_asked_at_the_models_own_effort(
    make_rig: Callable[..., Rig],
) -> None:
    """``--reasoning-effort high`` went with the summary request too: a Claude summary
    spent half its ``max_tokens`` thinking, an OpenAI one its time."""
    names = ["a.txt", "b.txt", "c.txt", "d.txt"]
    script = Script([write_call(f"c{i}", n) for i, n in enumerate(names, 1)] + ["Written."])
    rig = make_rig(mock_client(script.handle, effort="high"), window=6000, keep_rounds=1)
    assert (await rig.loop.send("write four notes")).reason == "done"
    assert script.summaries, "a summary was asked for"
    assert all("reasoning_effort" not in ask for ask in script.summaries)
    turns = [r for r in script.requests if r not in script.summaries]
    assert turns and all(r.get("reasoning_effort") == "high" for r in turns)


async def test_the_oldest_rounds_are_summarised_by_the_model_when_stubs_are_not_enough(
    make_rig: Callable[..., Rig],
) -> None:
    names = ["a.txt", "b.txt", "c.txt", "d.txt"]
    script = Script([write_call(f"c{i}", n) for i, n in enumerate(names, 1)] + ["Written."])
    rig = make_rig(mock_client(script.handle), window=6000, keep_rounds=1)
    assert (await rig.loop.send("write four notes")).reason == "done"
    assert [(rig.root / n).read_text() for n in names] == [BIG] * 4

    # the summary request: the same provider, no tools, the transcript of the old rounds
    assert script.summaries, "a summary was asked for"
    ask = script.summaries[0]
    assert "tools" not in ask and [m["role"] for m in ask["messages"]] == ["system", "user"]
    assert "call c1 write" in ask["messages"][1]["content"]
    assert 128 <= ask["max_tokens"] <= 6000 // 8
    (typed_ask, *_) = rig.client.summaries
    assert typed_ask.tools == () and typed_ask.max_tokens == ask["max_tokens"]

    steps = [e for e in rig.events if isinstance(e, Compacted)]
    assert "summary" in [e.step for e in steps]
    assert any(isinstance(e, Summarising) for e in rig.events)
    # the next request: system prompt, the summary (marked), the user's message verbatim,
    # then the kept round(s), paired
    turns = rig.client.turns
    at = next(i for i, r in enumerate(turns) if any(is_summary(item) for item in r.items))
    after, typed = script.requests[at], turns[at]
    assert system_of(after) == system_of(script.requests[0])
    assert is_summary(typed.items[0])
    sent = after["messages"][1:]
    assert sent[0]["content"].startswith(SUMMARY_MARK) and SUMMARY in sent[0]["content"]
    assert [m["role"] for m in sent[:3]] == ["user", "assistant", "user"]
    assert sent[2] == {"role": "user", "content": "write four notes"}
    assert pairing_problems(typed.items) == [] and chat_problems(after) == []
    assert estimate_tokens(typed) < 0.8 * 6000

    # stored: the summary's own response (marked by its compaction row), originals intact
    row = next(r for r in rig.store.compactions.all(rig.session_id) if r.step == "summary")
    assert row.detail["source"] == "model" and row.detail["response_id"]
    recorded = {r.id: r for r in rig.store.recordings(rig.session_id)}
    assert SUMMARY[:20] in "".join(d for _, d in recorded[row.detail["response_id"]].events)
    originals = rig.store.timeline.load_items(rig.session_id)
    assert sum(isinstance(i, AssistantTurn) and "write" in i.text for i in originals) == 4
    info, records = read_session(rig.store.db, rig.session_id)
    assert [r["name"] for r in records if r["type"] == "call"] == ["write"] * 4
    assert any(r["type"] == "compaction" and r["step"] == "summary" for r in records)
    assert "⇣ **compacted**" in to_markdown(info, records)


async def test_a_failed_summary_request_falls_back_to_frontiers_own(
    make_rig: Callable[..., Rig],
) -> None:
    script = Script([write_call("c1", "a.txt"), write_call("c2", "b.txt"), "Done."])

    async def handle(request: httpx.Request) -> httpx.Response:
        if SUMMARY_PROMPT[:40] in request.content.decode():
            return httpx.Response(500, json={"error": {"message": "boom"}})
        return await script.handle(request)

    rig = make_rig(mock_client(handle, max_retries=0), window=4200, keep_rounds=1)
    assert (await rig.loop.send("write two")).reason == "done"
    summary = next(e for e in rig.events if isinstance(e, Compacted) and e.step == "summary")
    assert "Frontier" in summary.detail and "failed" in summary.detail
    first = rig.client.turns[-1].items[0]
    assert is_summary(first) and isinstance(first, UserText) and "called write (c1)" in first.text
    sent = script.requests[-1]["messages"][1:]
    assert sent[0]["content"].startswith(SUMMARY_MARK) and "called write (c1)" in sent[0]["content"]


# --------------------------------------------------------------------------- overflow (400)


@dataclass
class Loopback:
    url: str = ""
    answers: list[tuple[int, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        status, body = self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]
        if status != 200 and isinstance(body, str):  # a proxy's page
            return web.Response(text=body, status=status, content_type="text/html")
        if status != 200:
            return web.json_response(body, status=status)
        resp = await start_sse(request)
        await resp.write(sse_body(body, 100))
        await resp.write_eof()
        return resp


@pytest.fixture
async def loopback() -> AsyncIterator[Loopback]:
    server = Loopback()
    async with serve(server.dispatch) as url:
        server.url = url
        yield server


def long_history() -> list[Item]:
    """Four earlier rounds of big reads: plenty to compact."""
    out: list[Item] = [UserText("read it four times")]
    for i in range(1, 5):
        out.append(AssistantTurn(read_call(f"c{i}")))
        out.append(ToolResults((ResultEntry(f"c{i}", "read", "ok", 0, BIG),), framed=True))
    out.append(AssistantTurn("Read four times."))
    return out


def test_the_long_history_is_sent_as_result_frames() -> None:
    """The typed history above goes over the wire as the chat history it stands for."""
    body = BIG.encode()
    sent = chat_messages(ModelRequest("s", tuple(long_history())))[1:]
    assert sent[2] == {"role": "user", "content": f"result c1 exit=0 {len(body)}\n{BIG}\nend\n"}
    assert [m["role"] for m in sent] == ["user", *["assistant", "user"] * 4, "assistant"]


async def test_a_context_overflow_400_compacts_and_retries_once(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    loopback.answers = [(400, LLAMA_OVERFLOW), (200, "Done.")]
    rig = make_rig(chat_client(loopback.url), window=32000, history=long_history())
    ended = await rig.loop.send("and now summarise the file")
    assert ended.reason == "done", ended.message
    assert len(loopback.requests) == 2
    # the server's numbers are learned: the window is exactly its n_ctx
    assert rig.budget.window == 4096 and rig.budget.source == "overflow"
    (step, *_) = [e for e in rig.events if isinstance(e, Compacted)]
    assert step.reason == "overflow" and step.window == 4096
    retried = loopback.requests[1]["messages"]
    assert retried[0] == loopback.requests[0]["messages"][0]  # the system prompt
    assert retried[-1] == {"role": "user", "content": "and now summarise the file"}
    (_refused, retry) = rig.client.turns
    assert retry.items[-1] == UserText("and now summarise the file")
    assert pairing_problems(retry.items) == [] and chat_problems(loopback.requests[1]) == []
    assert len(json.dumps(retried)) < len(json.dumps(loopback.requests[0]["messages"]))
    assert next(r.step for r in rig.store.compactions.all(rig.session_id)) == "stub"


NGINX_413 = (
    "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n"
    "<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)
"""nginx's own page when a body passes ``client_max_body_size`` (1 MB by default)."""


async def test_a_body_too_large_for_a_proxy_compacts_and_retries_once(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    """A 413 says the body is over a size limit, not which window: the history is
    compacted as for an overflow and sent once more, and the window is not changed."""
    loopback.answers = [(413, NGINX_413), (200, "Done.")]
    rig = make_rig(chat_client(loopback.url), window=32000, history=long_history())
    ended = await rig.loop.send("and now summarise the file")
    assert ended.reason == "done", ended.message
    assert len(loopback.requests) == 2
    assert rig.budget.window == 32000
    (step, *_) = [e for e in rig.events if isinstance(e, Compacted)]
    assert step.reason == "overflow"
    assert len(json.dumps(loopback.requests[1])) < len(json.dumps(loopback.requests[0]))
    assert chat_problems(loopback.requests[1]) == []


async def test_a_second_overflow_fails_the_turn_with_the_servers_message(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    loopback.answers = [(400, LLAMA_OVERFLOW)]
    rig = make_rig(chat_client(loopback.url), window=32000, history=long_history())
    ended = await rig.loop.send("again")
    assert ended.reason == "provider_error"
    assert "exceeds the available context size (4096 tokens)" in ended.message
    # compacted once and retried once, never more
    assert len(loopback.requests) == 2
    assert rig.events[-1] == ended and isinstance(ended, TurnEnded)
    # the failed reply is kept as an assistant turn with its marker (issue 20): the next
    # message the person types never follows theirs, and the model learns it failed
    kept = rig.loop.history[-1]
    assert isinstance(kept, AssistantTurn) and kept.cut.startswith("[Reply failed:")
    assert "exceeds the available context size" in kept.cut
    assert rig.loop.history[-2] == UserText("again")
    assert rig.store.load_items(rig.session_id) == rig.loop.history


async def test_an_overflow_from_one_huge_reply_summarises_all_but_the_users_message(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    """What the rig did: a reply cut by ``length`` after 2,900 tokens of rambling, and the
    next request passed the window. The last resort summarises everything but the user's
    last message instead of failing the turn."""
    loopback.answers = [(400, LLAMA_OVERFLOW), (200, "It rambled about files."), (200, "Done.")]
    earlier: list[Item] = [UserText("read notes.txt"), AssistantTurn("Here is some code. " * 900)]
    rig = make_rig(chat_client(loopback.url), window=32000, history=earlier)
    ended = await rig.loop.send("just read it")
    assert ended.reason == "done", ended.message
    assert len(loopback.requests) == 3
    summary_request = loopback.requests[1]
    assert "tools" not in summary_request and "Here is some code." in json.dumps(summary_request)
    sent = loopback.requests[2]["messages"][1:]
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant"][: len(sent)]
    assert is_summary(rig.client.turns[-1].items[0])
    assert sent[0]["content"].startswith(SUMMARY_MARK)
    assert "It rambled about files." in sent[0]["content"]
    assert sent[2] == {"role": "user", "content": "just read it"}


async def test_an_overflow_with_nothing_to_compact_fails_at_once(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    loopback.answers = [(400, LLAMA_OVERFLOW)]
    rig = make_rig(chat_client(loopback.url), window=32000)
    ended = await rig.loop.send("x" * 100)
    # the server counted 6,033 tokens for the instructions, the tools and 100 bytes: the
    # count is believable, so no compaction could help and the person is told what would
    assert ended.reason == "too_long" and len(loopback.requests) == 1
    assert "the instructions and the tools alone need about" in ended.message
    kept = rig.loop.history[-1]  # the failed reply, marked (issue 20)
    assert isinstance(kept, AssistantTurn) and kept.cut.startswith("[Reply failed:")


PASTED_LOG = "".join(
    f"2026-12-05 00:{i % 60:02d} worker {i} failed: timeout\n" for i in range(1200)
)
"""A pasted log of ~50 KB: ~12,000 tokens by the estimate, past a 4,096 window alone."""


async def test_a_message_larger_than_a_stated_window_is_never_sent(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    """No compaction can make the person's message fit a window someone stated, so it
    is not sent, not summarised around, not kept for the model: the session goes on as
    it was, and the person is told the sizes and what to do."""
    loopback.answers = [(200, "Done.")]
    rig = make_rig(chat_client(loopback.url), window=4096, history=long_history())
    ended = await rig.loop.send(PASTED_LOG)
    assert ended.reason == "too_long"
    assert loopback.requests == []  # neither the message nor a summary request went
    assert not any(isinstance(e, Compacted | Summarising) for e in rig.events)
    assert rig.loop.history == long_history()
    assert rig.store.load_items(rig.session_id) == long_history()
    size = len(PASTED_LOG.encode())
    assert f"your message ({size:,} bytes) is too long" in ended.message
    assert "context window is 4,096 (the context_window setting), so it was not sent" in (
        ended.message
    )
    assert "Shorten it" in ended.message
    # listed as it was (a resume said "it reached its limit of requests or of repairs")
    assert rig.store.get_session(rig.session_id).state == "done"
    # the session is not wedged: the next message goes, with the history as it was
    assert (await rig.loop.send("just count the lines")).reason == "done"
    sent = loopback.requests[0]["messages"]
    assert sent[-1] == {"role": "user", "content": "just count the lines"}
    assert PASTED_LOG not in json.dumps(sent)


async def test_a_window_smaller_than_the_instructions_is_said_as_such(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    """A server run with a tiny context (llama.cpp ``-c 2048 -np 2``: 1,024 a slot) cannot
    take even the instructions: the person is told that, not that "hi" is too long."""
    rig = make_rig(chat_client(loopback.url), window=600)
    ended = await rig.loop.send("hi")
    assert ended.reason == "too_long" and loopback.requests == []
    assert ended.message.startswith("the model's context window is 600 tokens")
    assert "the instructions and the tools alone need about" in ended.message
    assert "your message" not in ended.message


async def test_under_an_assumed_window_a_large_message_goes_as_it_is(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    """Nobody said the window (8,192 assumed): the server may take far more, so the
    message goes, and the history is not summarised away for a window that may be wrong."""
    loopback.answers = [(200, "Counted.")]
    rig = make_rig(chat_client(loopback.url), history=long_history())
    message = PASTED_LOG * 3
    ended = await rig.loop.send(message)
    assert ended.reason == "done", ended.message
    assert rig.budget.assumed
    assert not any(isinstance(e, Compacted | Summarising) for e in rig.events)
    (request,) = loopback.requests
    assert request["messages"][-1] == {"role": "user", "content": message}
    assert json.dumps(BIG)[1:-1] in json.dumps(request)  # the old results went whole


async def test_a_refused_message_no_compaction_can_fit_ends_the_turn_at_once(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    """The server refuses it and says its window (4,096): the message alone is larger,
    so there is no summary of everything else and no retry, and the turn says why. The
    message is withdrawn from what the model is sent (a line says it was there), so the
    next turn neither carries it nor pays a summary request to shorten it."""
    loopback.answers = [(400, LLAMA_OVERFLOW), (200, "Hello.")]
    rig = make_rig(chat_client(loopback.url), history=long_history())
    ended = await rig.loop.send(PASTED_LOG)
    assert ended.reason == "too_long"
    assert len(loopback.requests) == 1
    assert not any(isinstance(e, Summarising) for e in rig.events)
    assert "context window is 4,096 (as the server's refusal said), and the server refused it" in (
        ended.message
    )
    assert "the server says: request (6033 tokens) exceeds the available context" in ended.message
    assert rig.budget.window == 4096
    (withdrawn,) = [e for e in rig.events if isinstance(e, Compacted)]
    assert (withdrawn.step, withdrawn.reason) == ("stub", "too_long")
    # the refused turn is kept marked, as any failed reply (issue 20), after a line in
    # place of the message; the store keeps the original, and resumes with this history
    kept = rig.loop.history[-1]
    assert isinstance(kept, AssistantTurn) and kept.cut.startswith("[Reply failed:")
    size = len(PASTED_LOG.encode())
    assert rig.loop.history[-2] == UserText(
        f"[The person sent a message of {size:,} bytes here, too long for the model's "
        "context window (4,096 tokens): it was withdrawn, and they were asked to shorten it.]",
        "notice",
    )
    assert rig.loop.history[:-2] == long_history()
    assert rig.store.load_items(rig.session_id) == rig.loop.history  # what a resume sends
    _, records = read_session(rig.store.db, rig.session_id)  # what the export keeps
    assert PASTED_LOG in [r.get("text") for r in records if r["type"] == "user"]
    # the export and a resumed session name the reason the turn ended with
    assert [r["reason"] for r in records if r["type"] == "ended"] == ["too_long"]
    assert rig.store.get_session(rig.session_id).state == "failed"  # its failure kept, named
    assert "the message above withdrawn, too long for the model" in to_markdown(
        *read_session(rig.store.db, rig.session_id)
    )
    # the window is now stated: a message as large is refused before it is sent
    again = await rig.loop.send(PASTED_LOG)
    assert again.reason == "too_long" and len(loopback.requests) == 1
    # and a short one goes at once, without the log and without a summary request
    assert (await rig.loop.send("just say hello")).reason == "done"
    assert len(loopback.requests) == 2
    sent = json.dumps(loopback.requests[1])
    assert "worker 1199 failed" not in sent and "it was withdrawn" in sent
    assert not any(isinstance(e, Summarising) for e in rig.events)


@pytest.mark.parametrize(
    ("body", "window", "requested"),
    [
        (LLAMA_OVERFLOW, 4096, 6033),
        (
            {
                "error": {
                    "message": "This model's maximum context length is 8192 tokens. However, "
                    "your messages resulted in 9000 tokens. Please reduce the length of the "
                    "messages.",
                    "type": "invalid_request_error",
                    "param": "messages",
                    "code": "context_length_exceeded",
                }
            },
            8192,
            9000,
        ),
        (
            {
                "object": "error",
                "message": "This model's maximum context length is 2048 tokens. However, you "
                "requested 2100 tokens (2000 in the messages, 100 in the completion). Please "
                "reduce the length of the messages or completion.",
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            },
            2048,
            2100,
        ),
        (
            {
                "error": {
                    "message": "The decoder prompt (length 5000) is longer than the "
                    "maximum model length of 4096."
                }
            },
            4096,
            5000,
        ),
        (
            {
                "error": {
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                }
            },
            None,
            None,
        ),
    ],
    ids=["llama.cpp", "openai", "vllm", "vllm-decoder", "llama.cpp-old"],
)
def test_overflow_messages_are_recognised_with_their_numbers(
    body: dict[str, Any], window: int | None, requested: int | None
) -> None:
    found = context_overflow(json.dumps(body))
    assert found is not None and (found.window, found.requested) == (window, requested)


@pytest.mark.parametrize(
    "text", ['{"error": {"message": "model not found"}}', "Bad Request", '{"detail": "nope"}']
)
def test_other_errors_are_not_overflows(text: str) -> None:
    assert context_overflow(text) is None


# --------------------------------------------------------------------------- the window


def test_window_shapes_of_real_servers() -> None:
    props = {"default_generation_settings": {"n_ctx": 4096, "params": {}}, "total_slots": 2}
    assert window_from_props(props) == 4096
    assert window_from_props({"n_ctx": 2048}) == 2048  # older llama.cpp
    llama = {"data": [{"id": "smollm2-135m", "meta": {"n_ctx": 4096, "n_ctx_train": 8192}}]}
    assert window_from_models(llama, "smollm2") == (4096, "meta.n_ctx")  # the only model
    vllm = {"data": [{"id": "a", "max_model_len": 1024}, {"id": "qwen", "max_model_len": 32768}]}
    assert window_from_models(vllm, "qwen") == (32768, "max_model_len")
    assert window_from_models(vllm, "other") is None  # two models, neither named
    assert window_from_models({"data": [{"id": "x", "context_length": 131072}]}, "x") == (
        131072,
        "context_length",
    )
    assert window_from_models({"data": [{"id": "gpt-4o"}]}, "gpt-4o") is None


async def window_server(routes: dict[str, Any]) -> tuple[web.AppRunner, str]:
    app = web.Application()
    for path, body in routes.items():

        async def answer(request: web.Request, body: Any = body) -> web.Response:
            return web.json_response(body)

        app.router.add_get(path, answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}/v1"


@pytest.mark.parametrize(
    ("routes", "expected"),
    [
        (
            {
                "/props": {"default_generation_settings": {"n_ctx": 4096}},
                "/v1/models": {"data": [{"id": "m", "meta": {"n_ctx_train": 8192}}]},
            },
            (4096, "GET /props default_generation_settings.n_ctx"),
        ),
        (
            {"/v1/models": {"data": [{"id": "m", "max_model_len": 16384}]}},
            (16384, "GET /models max_model_len"),
        ),
        ({"/v1/models": {"data": [{"id": "m"}]}}, None),
    ],
    ids=["llama.cpp", "vllm", "silent"],
)
async def test_the_server_is_asked_for_its_window(
    routes: dict[str, Any], expected: tuple[int, str] | None
) -> None:
    runner, url = await window_server(routes)
    try:
        client = chat_client(url, api_key="sk-test-123")
        info = await client.probe_context_window(timeout=5)
        await client.aclose()
    finally:
        await runner.cleanup()
    assert (None if info is None else (info.tokens, info.source)) == expected


async def test_the_window_is_assumed_when_the_server_says_nothing() -> None:
    """Nobody said (no setting, a silent server, a model the catalogue does not know): the
    default is used and marked *assumed* (issue 20: it was "default", silently)."""
    async with chat_client("http://127.0.0.1:9/v1") as client:  # nothing listens
        assert await client.probe_context_window(timeout=2) is None
        budget = ContextBudget(probe=client.probe_context_window)
        await budget.learn()
    assert (budget.window, budget.source) == (DEFAULT_WINDOW, ASSUMED) == (8192, "assumed")
    assert budget.assumed


async def test_the_window_comes_from_the_setting_then_the_server_then_the_catalogue() -> None:
    gpt = lookup("gpt-4.1")
    assert gpt is not None and gpt.context_window == 1_047_576
    catalogue = (gpt.context_window, gpt.source)
    asked: list[str] = []

    async def server() -> WindowInfo | None:
        asked.append("server")
        return WindowInfo(4096, "GET /props default_generation_settings.n_ctx")

    async def silent() -> WindowInfo | None:
        asked.append("silent")
        return None

    async def broken() -> WindowInfo | None:
        raise RuntimeError("boom")  # a probe only helps: never fatal

    configured = ContextBudget(window=2048, source="config", probe=server, catalogue=catalogue)
    await configured.learn()
    assert (configured.window, configured.source, asked) == (2048, "config", [])
    served = ContextBudget(probe=server, catalogue=catalogue)
    await served.learn()
    assert (served.window, served.source) == (
        4096,
        "server (GET /props default_generation_settings.n_ctx)",
    )
    for probe in (silent, broken):
        listed = ContextBudget(probe=probe, catalogue=catalogue)
        await listed.learn()
        assert (listed.window, listed.source) == (1_047_576, "catalogue (gpt-4.1)")
        assert not listed.assumed
    assert asked == ["server", "silent"]  # the setting asks no server


async def test_props_is_asked_once_for_the_window_and_for_prefill() -> None:
    """Both the context budget and prefill detection read llama.cpp's /props: one GET."""
    asked: list[str] = []

    async def handle(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        if request.url.path == "/props":
            return httpx.Response(200, json={"default_generation_settings": {"n_ctx": 4096}})
        return httpx.Response(404)

    async with mock_client(handle) as client:
        window = await client.probe_context_window()
        props = await client.probe_json("props", root=True)
    assert window is not None and window.tokens == 4096
    assert props == {"default_generation_settings": {"n_ctx": 4096}}
    assert asked.count("/props") == 1 and asked.count("/v1/models") == 1


async def test_a_deeply_nested_probe_answer_is_ignored() -> None:
    """The server's answer is untrusted: a body nested past the envelope depth is no window."""

    async def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"[" * 100_000 + b"]" * 100_000)

    async with mock_client(handle) as client:
        assert await client.probe_context_window() is None


async def test_the_first_request_learns_the_window_from_the_server(
    make_rig: Callable[..., Rig],
) -> None:
    async def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/props":
            return httpx.Response(200, json={"default_generation_settings": {"n_ctx": 4096}})
        if request.method == "GET":
            return httpx.Response(404)
        body = json.loads(request.content)
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            content=sse_body("Hi.", prompt_tokens(body)),
        )

    rig = make_rig(mock_client(handle))
    assert (await rig.loop.send("hello")).reason == "done"
    (usage,) = [e for e in rig.events if isinstance(e, ContextUsage)]
    assert usage.window == 4096 and usage.source.startswith("server (GET /props")
    assert 1000 < usage.used < 4096


def test_the_budget_counts_usage_plus_an_estimate_of_what_was_added() -> None:
    budget = ContextBudget(window=10_000)
    request = ModelRequest("s" * 4000, (UserText("hi"),))
    budget.sending(request)
    budget.counted(TokenUsage(prompt=2000, completion=5))  # the server's count
    assert budget.ratio == pytest.approx(2000 / estimate_tokens(request))
    later = ModelRequest(request.system, (*request.items, AssistantTurn("a" * 400)))
    added = estimate_items(later.items[1:]) * budget.ratio
    assert budget.used(later) == 2000 + round(added)
    budget.rewritten()  # after a compaction the whole request is estimated again
    assert budget.used(later) == round(estimate_tokens(later) * budget.ratio)


def test_the_estimate_counts_the_system_prompt_the_items_and_the_tools() -> None:
    items = (UserText("u" * 400), AssistantTurn("a" * 400))
    assert estimate_items(items) == 200 + 2 * MESSAGE_OVERHEAD
    bare = ModelRequest("", items)
    assert estimate_tokens(bare) == estimate_items(items)
    system = ModelRequest("s" * 400, items)
    assert estimate_tokens(system) == 300 + 3 * MESSAGE_OVERHEAD
    schema = ToolSchema("read", "Read a file.", {"type": "object", "properties": {}})
    tools = ModelRequest(system.system, items, (schema,))
    assert estimate_tokens(tools) > estimate_tokens(system)  # tools[] is sent too
    cut = ModelRequest(system.system, items, prefill="p" * 400)
    assert estimate_tokens(cut) > estimate_tokens(system)  # so is the reply it continues


def test_a_request_without_a_count_leaves_the_estimate_alone() -> None:
    budget = ContextBudget(window=1000)
    budget.counted(TokenUsage(prompt=500))  # nothing was sent: nothing to compare
    request = ModelRequest("s" * 4000, (UserText("hi"),))
    budget.sending(request)
    budget.counted(TokenUsage(completion=5))  # a server that counts no prompt
    assert budget.ratio == 1.0 and budget.used(request) == estimate_tokens(request)
    budget.counted(TokenUsage(prompt=100 * estimate_tokens(request)))  # not believed
    assert budget.ratio == 1.0
    assert budget.over(request) == (estimate_tokens(request) > 800)


def test_an_overflow_sets_the_window_and_corrects_the_estimate() -> None:
    budget = ContextBudget(window=32_000)
    request = ModelRequest("s" * 4000, (UserText("hi"),))
    budget.sending(request)
    budget.counted(TokenUsage(prompt=estimate_tokens(request)))
    budget.overflowed(4096, 2 * estimate_tokens(request))
    assert (budget.window, budget.source) == (4096, "overflow")
    assert budget.ratio == pytest.approx(2.0)
    assert budget.used(request) == round(2 * estimate_tokens(request))  # the count is gone


def test_settings_for_the_window_and_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTIER_CONTEXT_WINDOW", "16384")
    monkeypatch.setenv("FRONTIER_COMPACT_THRESHOLD", "75%")
    config = load_config()
    assert (config.context_window, config.compact_threshold) == (16384, 0.75)
    assert load_config(context_window=2048).context_window == 2048
    monkeypatch.setenv("FRONTIER_COMPACT_THRESHOLD", "1.5")
    with pytest.raises(ValueError, match="compact_threshold must be a share"):
        load_config()


# --------------------------------------------------------------------------- resume


async def test_a_resumed_session_starts_from_the_compacted_history(
    make_rig: Callable[..., Rig], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = Script([read_call("c1"), read_call("c2", "copy.txt"), read_call("c3"), "All read."])
    rig = make_rig(mock_client(script.handle), window=6000, keep_rounds=1)
    assert (await rig.loop.send("read it")).reason == "done"
    compacted = list(rig.loop.history)
    assert rig.store.compactions.latest(rig.session_id) is not None
    rig.store.append_items(rig.session_id, [UserText("later")])
    sid, db = rig.session_id, rig.store.path
    rig.store.close()

    with SessionStore.open(db) as store:
        assert store.load_items(sid) == [*compacted, UserText("later")]
        assert len(store.timeline.load_items(sid)) == len(compacted) + 1  # originals too

    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config

    monkeypatch.setenv("FRONTIER_DATA_DIR", str(db.parent))
    session = create_runtime(
        Config(base_url="http://127.0.0.1:9/v1", model="m", context_window=6000),
        approver=PolicyApprover("auto"),  # type: ignore[arg-type]
        session_id=sid,
    )
    try:
        assert session._loop.history == [*compacted, UserText("later")]  # type: ignore[attr-defined]
        assert session.context_window == 6000 and not session.context_assumed
    finally:
        await session.close()


# --------------------------------------------------------------------------- front ends


def test_the_transcript_and_the_status_bar_show_compaction() -> None:
    from frontier.widgets.state import UiState

    state = UiState(clock=lambda: 0.0)
    state.apply(ContextUsage(3500, 4096, "server (GET /props ...)"))
    assert state.progress.context_used == 3500
    state.apply(Summarising(4, 3500, 4096))
    state.apply(
        Compacted("summary", 3500, 1200, 4096, 4, "threshold", "4 rounds summarised by the model")
    )
    notes = [e.text for e in state.transcript if e.role == "note"]
    assert notes[0].startswith("⇣ summarising 4 earlier rounds")
    assert notes[1] == (
        "⇣ compacted (context budget): 4 rounds summarised by the model; 3,500 → 1,200 of "
        "4,096 tokens (the originals stay in the session)"
    )
    assert state.progress.context_used == 1200


def test_the_status_bar_shows_no_old_rate_while_a_summary_is_written() -> None:
    """The summary's request streams no chunk to the status bar: the last reply's tok/s,
    still shown, read as the summary's (the rig's TUI drive); it says it summarises."""
    from frontier.app.events import ResponseEnded, ResponseStarted, StreamBytes, TokenUsage
    from frontier.widgets.state import UiState

    now = [0.0]
    state = UiState(clock=lambda: now[0])
    state.apply(ResponseStarted("ctl"))
    for i in range(20):
        now[0] += 0.05
        state.apply(StreamBytes(i, b"x"))
    state.apply(ResponseEnded("stop", TokenUsage(100, 40)))
    assert state.token_rate() > 0 and not state.summarising
    state.apply(Summarising(4, 3500, 4096))
    assert state.token_rate() == 0.0 and state.summarising
    state.apply(Compacted("summary", 3500, 1200, 4096, 4, "threshold", "summarised"))
    assert not state.summarising


def test_the_headless_log_says_compaction_and_the_context_at_the_end_of_a_turn() -> None:
    import io

    from frontier.app.frontends.headless import EventPrinter

    out = io.StringIO()
    printer = EventPrinter(out)
    printer(ContextUsage(3000, 4096))
    printer(Compacted("stub", 3500, 2000, 4096, 2, "overflow", "3 tool results stubbed"))
    printer(TurnEnded("done"))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("⇣ compacted after the server said the request was too long")
    assert lines[1] == "context 2,000 of 4,096 tokens (49%)"
    assert lines[2] == "turn ended: done"


def test_an_assumed_window_is_said_once_by_the_transcript_and_the_headless_log() -> None:
    """Issue 20: a window nobody said (no setting, a silent server, a model the catalogue
    does not know) is not used silently; both front ends say so, with the fix, once."""
    import io

    from frontier.app.frontends.headless import EventPrinter
    from frontier.widgets.state import UiState

    told = "context window assumed: 8,192 — set --context-window"
    state = UiState(clock=lambda: 0.0)
    state.apply(ContextUsage(1000, 8192, ASSUMED))
    state.apply(ContextUsage(2000, 8192, ASSUMED))
    assert [e.text for e in state.transcript].count(told) == 1
    out = io.StringIO()
    printer = EventPrinter(out)
    printer(ContextUsage(1000, 8192, ASSUMED))
    printer(ContextUsage(2000, 8192, ASSUMED))
    printer(TurnEnded("done"))
    assert out.getvalue().splitlines() == [
        told,
        "context 2,000 of 8,192 tokens (24%)",
        "turn ended: done",
    ]
    quiet = io.StringIO()
    EventPrinter(quiet)(ContextUsage(1000, 8192, "config"))
    assert "assumed" not in quiet.getvalue()


async def test_ollama_is_asked_what_context_it_runs_the_model_with() -> None:
    """Ollama's /v1 says no window, so the catalogue's was taken (qwen2.5-coder: 32,768)
    while Ollama ran the model with 4,096 and cut the history without a word. A model not
    loaded yet is loaded (``POST /api/generate``, no prompt), then ``/api/ps`` asked again."""
    loaded: list[str] = []
    asked: list[tuple[str, str]] = []

    async def handle(request: httpx.Request) -> httpx.Response:
        asked.append((request.method, request.url.path))
        if request.url.path == "/api/generate":
            loaded.append(json.loads(request.content)["model"])
            return httpx.Response(200, json={"done": True, "done_reason": "load"})
        if request.url.path == "/api/ps":
            running = [
                {"name": f"{m}:latest", "model": f"{m}:latest", "context_length": 4096}
                for m in loaded
            ]
            return httpx.Response(200, json={"models": running})
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"object": "list", "data": [{"id": "qwen2.5-coder"}]})
        return httpx.Response(404)

    async with mock_client(handle, model="qwen2.5-coder") as client:
        window = await client.probe_context_window()
        budget = ContextBudget(probe=client.probe_context_window, catalogue=(32768, "catalogue"))
        await budget.learn()
    assert window is not None and (window.tokens, window.source) == (4096, ollama.SOURCE)
    assert loaded == ["qwen2.5-coder"]  # once: the second probe found it running
    assert (budget.window, budget.source) == (4096, f"server ({ollama.SOURCE})")
    assert asked.count(("POST", "/api/generate")) == 1


async def test_a_server_that_is_not_ollama_is_never_asked_to_load_anything() -> None:
    asked: list[tuple[str, str]] = []

    async def handle(request: httpx.Request) -> httpx.Response:
        asked.append((request.method, request.url.path))
        return httpx.Response(404)

    async with mock_client(handle) as client:
        assert await client.probe_context_window() is None
    assert {m for m, _ in asked} == {"GET"}  # looked up only: nothing loaded
    assert sorted(p for _, p in asked) == [
        "/api/ps",
        "/api/v1/models",
        "/props",
        "/v1/models",
        "/v1/models/m",
    ]


def test_a_window_too_small_for_the_tools_names_the_mcp_servers_that_fill_it() -> None:
    """GitHub's MCP server lists ~90 tools with long descriptions, more than a local
    model's whole window: the refusal named only the window."""
    from frontier.app.agent.compactor import _servers_share

    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    tools = tuple(
        ToolSchema(f"github__tool_{i}", "Search issues. " * 40, schema) for i in range(90)
    )
    tools += (ToolSchema("read", "Read a file.", schema), ToolSchema("fs__ls", "List.", schema))
    request = ModelRequest("system", (), tools)
    said = _servers_share(request, 1.0, estimate_tokens(request))
    assert said.startswith(" (the tools of MCP servers take about ")
    assert ": github ~" in said and ", fs ~" in said
    assert "deny = [...] in [mcp_servers.NAME], or enabled = false)" in said
    few = ModelRequest("s" * 40_000, (), tools[-2:])
    assert _servers_share(few, 1.0, estimate_tokens(few)) == ""  # not where the room went


@pytest.mark.parametrize(
    ("base", "window"),
    [("https://api.openai.com/v1", 128_000), ("http://127.0.0.1:8080/v1", DEFAULT_WINDOW)],
)
async def test_an_unknown_model_on_a_vendors_own_api_is_assumed_a_vendors_window(
    base: str, window: int
) -> None:
    """``gpt-6`` on api.openai.com, which no probe describes: 8,192 assumed compacted the
    session every few messages, and no overflow ever came to say better."""
    from frontier.app.agent.runtime import context_budget
    from frontier.app.config import Config

    nothing = httpx.MockTransport(lambda request: httpx.Response(404, json={}))
    client = ModelClient(codec("openai-chat"), base, "gpt-6", transport=nothing)
    try:
        budget = context_budget(Config(base_url=base, model="gpt-6"), client, None, demo=False)
        await budget.learn()
    finally:
        await client.aclose()
    assert (budget.window, budget.assumed) == (window, True)
