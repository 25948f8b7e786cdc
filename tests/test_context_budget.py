"""The context budget through the whole loop: the window learned (setting, server, its
own overflow error), compaction before a request would pass the threshold (stubs, then
a summary the model writes), a 400 "context exceeded" compacted and retried once, and a
resumed session starting from the compacted history (docs/context-budget.md)."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from sse_server import serve, sse, start_sse

from frontier.app.agent.budget import DEFAULT_WINDOW, ContextBudget, estimate_tokens
from frontier.app.agent.compaction import (
    SUMMARY_MARK,
    frames,
    is_stub,
    is_summary,
    pairing_problems,
)
from frontier.app.agent.compactor import SUMMARY_PROMPT, Compactor
from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.config import load_config
from frontier.app.events import Compacted, ContextUsage, Event, Summarising, TurnEnded
from frontier.app.providers.context_window import (
    window_from_models,
    window_from_props,
)
from frontier.app.providers.errors import context_overflow
from frontier.app.providers.openai import OpenAIProvider
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


@dataclass
class Rig:
    loop: AgentLoop
    events: list[Event]
    store: SessionStore
    session_id: str
    root: Path
    budget: ContextBudget


@pytest.fixture
def make_rig(tmp_path: Path) -> AsyncIterator[Callable[..., Rig]]:
    stores: list[SessionStore] = []

    def build(
        provider: OpenAIProvider,
        *,
        mode: str = "ctl-heredoc",
        window: int | None = None,
        keep_rounds: int = 1,
        messages: list[dict[str, Any]] | None = None,
    ) -> Rig:
        root = tmp_path / "ws"
        root.mkdir(exist_ok=True)
        (root / "big.txt").write_text(BIG)
        store = SessionStore.open(tmp_path / "sessions.db")
        stores.append(store)
        sid = store.create_session(str(root), "m", "http://test/v1", mode)
        if messages:
            store.append_messages(sid, messages)
        events: list[Event] = []
        registry = default_registry()
        boundary = ToolBoundary(
            registry, root, PolicyApprover("auto"), store.persistence(sid), emit=events.append
        )
        loop = AgentLoop(
            provider=provider,
            boundary=boundary,
            registry=registry,
            mode=get_mode(mode),
            emit=events.append,
            store=store,
            session_id=sid,
            model="m",
            messages=messages,
        )
        budget = ContextBudget(
            window=window, source="config" if window else "", keep_rounds=keep_rounds
        )
        budget.probe = provider.probe_context_window
        loop.compactor = Compactor(budget, store=store, session_id=sid, emit=events.append)
        return Rig(loop, events, store, sid, root, budget)

    yield build  # type: ignore[misc]
    for store in stores:
        store.close()


def read_call(call_id: str) -> str:
    return f"call {call_id} read\narg path big.txt\nend\n"


def write_call(call_id: str, name: str) -> str:
    return f"call {call_id} write\narg path {name}\narg content <<EOF\n{BIG}EOF\nend\n"


def system_of(body: dict[str, Any]) -> dict[str, Any]:
    return body["messages"][0]


# --------------------------------------------------------------------------- threshold: stubs


async def test_old_results_become_stubs_before_the_request_that_would_pass_the_budget(
    make_rig: Callable[..., Rig],
) -> None:
    script = Script([read_call("c1"), read_call("c2"), read_call("c3"), "All read."])
    provider = OpenAIProvider("http://test/v1", "m", transport=httpx.MockTransport(script.handle))
    rig = make_rig(provider, window=6000, keep_rounds=1)
    ended = await rig.loop.send("read big.txt three times")
    assert ended.reason == "done"
    compacted = [e for e in rig.events if isinstance(e, Compacted)]
    assert compacted and all(e.step == "stub" and e.reason == "threshold" for e in compacted)
    assert all(e.after < e.before <= e.window == 6000 for e in compacted)
    assert all(e.before > 0.8 * 6000 for e in compacted)

    first = script.requests[0]
    for body in script.requests:
        # the system prompt is never compacted; the user's message stays first, verbatim
        assert system_of(body) == system_of(first)
        assert body["messages"][1] == {"role": "user", "content": "read big.txt three times"}
        assert pairing_problems(body["messages"][1:]) == []
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
    assert rig.store.load_messages(rig.session_id) == rig.loop.messages
    originals = rig.store.timeline.load_messages(rig.session_id)
    assert len(originals) == len(rig.loop.messages)
    assert sum(is_stub(f.body.decode()) for m in originals for f in frames(m["content"])[0]) == 0


async def test_native_tool_messages_keep_their_ids_when_stubbed(
    make_rig: Callable[..., Rig],
) -> None:
    def read(call_id: str) -> list[dict[str, Any]]:
        args = json.dumps({"path": "big.txt"})
        return [
            {"id": call_id, "type": "function", "function": {"name": "read", "arguments": args}}
        ]

    script = Script([read("call_1"), read("call_2"), read("call_3"), "All read."])
    provider = OpenAIProvider("http://test/v1", "m", transport=httpx.MockTransport(script.handle))
    rig = make_rig(provider, mode="native-eos", window=6000, keep_rounds=1)
    assert (await rig.loop.send("read it")).reason == "done"
    assert any(isinstance(e, Compacted) for e in rig.events)
    last = script.requests[-1]["messages"][1:]
    assert pairing_problems(last) == []
    tools = [m for m in last if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["call_1", "call_2", "call_3"]
    assert tools[0]["content"].startswith("[result of call_1 read (ok, ")
    assert not is_stub(tools[-1]["content"])


# --------------------------------------------------------------------------- threshold: summary


async def test_the_oldest_rounds_are_summarised_by_the_model_when_stubs_are_not_enough(
    make_rig: Callable[..., Rig],
) -> None:
    names = ["a.txt", "b.txt", "c.txt", "d.txt"]
    script = Script([write_call(f"c{i}", n) for i, n in enumerate(names, 1)] + ["Written."])
    provider = OpenAIProvider("http://test/v1", "m", transport=httpx.MockTransport(script.handle))
    rig = make_rig(provider, window=6000, keep_rounds=1)
    assert (await rig.loop.send("write four notes")).reason == "done"
    assert [(rig.root / n).read_text() for n in names] == [BIG] * 4

    # the summary request: the same provider, no tools, the transcript of the old rounds
    assert script.summaries, "a summary was asked for"
    ask = script.summaries[0]
    assert "tools" not in ask and [m["role"] for m in ask["messages"]] == ["system", "user"]
    assert "call c1 write" in ask["messages"][1]["content"]
    assert 128 <= ask["max_tokens"] <= 6000 // 8

    steps = [e for e in rig.events if isinstance(e, Compacted)]
    assert "summary" in [e.step for e in steps]
    assert any(isinstance(e, Summarising) for e in rig.events)
    # the next request: system prompt, the summary (marked), the user's message verbatim,
    # then the kept round(s), paired
    after = next(b for b in script.requests if any(is_summary(m) for m in b["messages"][1:]))
    assert system_of(after) == system_of(script.requests[0])
    sent = after["messages"][1:]
    assert sent[0]["content"].startswith(SUMMARY_MARK) and SUMMARY in sent[0]["content"]
    assert [m["role"] for m in sent[:3]] == ["user", "assistant", "user"]
    assert sent[2] == {"role": "user", "content": "write four notes"}
    assert pairing_problems(sent) == []
    assert estimate_tokens(after["messages"]) < 0.8 * 6000

    # stored: the summary's own response (marked by its compaction row), originals intact
    row = next(r for r in rig.store.compactions.all(rig.session_id) if r.step == "summary")
    assert row.detail["source"] == "model" and row.detail["response_id"]
    recorded = {r.id: r for r in rig.store.recordings(rig.session_id)}
    assert SUMMARY[:20] in "".join(d for _, d in recorded[row.detail["response_id"]].events)
    originals = rig.store.timeline.load_messages(rig.session_id)
    assert sum(m["role"] == "assistant" and "write" in m["content"] for m in originals) == 4
    info, records = read_session(rig.store, rig.session_id)
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

    provider = OpenAIProvider(
        "http://test/v1", "m", transport=httpx.MockTransport(handle), max_retries=0
    )
    rig = make_rig(provider, window=4200, keep_rounds=1)
    assert (await rig.loop.send("write two")).reason == "done"
    summary = next(e for e in rig.events if isinstance(e, Compacted) and e.step == "summary")
    assert "Frontier" in summary.detail and "failed" in summary.detail
    sent = script.requests[-1]["messages"][1:]
    assert is_summary(sent[0]) and "called write (c1)" in sent[0]["content"]


# --------------------------------------------------------------------------- overflow (400)


@dataclass
class Loopback:
    url: str = ""
    answers: list[tuple[int, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        status, body = self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]
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


def long_history() -> list[dict[str, Any]]:
    """Four earlier rounds of big reads: plenty to compact."""
    out: list[dict[str, Any]] = [{"role": "user", "content": "read it four times"}]
    for i in range(1, 5):
        out.append({"role": "assistant", "content": read_call(f"c{i}")})
        body = BIG.encode()
        out.append({"role": "user", "content": f"result c{i} exit=0 {len(body)}\n{BIG}\nend\n"})
    out.append({"role": "assistant", "content": "Read four times."})
    return out


async def test_a_context_overflow_400_compacts_and_retries_once(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    loopback.answers = [(400, LLAMA_OVERFLOW), (200, "Done.")]
    provider = OpenAIProvider(loopback.url, "m")
    rig = make_rig(provider, window=32000, messages=long_history())
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
    assert pairing_problems(retried[1:]) == []
    assert len(json.dumps(retried)) < len(json.dumps(loopback.requests[0]["messages"]))
    assert next(r.step for r in rig.store.compactions.all(rig.session_id)) == "stub"


async def test_a_second_overflow_fails_the_turn_with_the_servers_message(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    loopback.answers = [(400, LLAMA_OVERFLOW)]
    provider = OpenAIProvider(loopback.url, "m")
    rig = make_rig(provider, window=32000, messages=long_history())
    ended = await rig.loop.send("again")
    assert ended.reason == "provider_error"
    assert "exceeds the available context size (4096 tokens)" in ended.message
    # compacted once and retried once, never more
    assert len(loopback.requests) == 2
    assert rig.events[-1] == ended and isinstance(ended, TurnEnded)


async def test_an_overflow_from_one_huge_reply_summarises_all_but_the_users_message(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    """What the rig did: a reply cut by ``length`` after 2,900 tokens of rambling, and the
    next request passed the window. The last resort summarises everything but the user's
    last message instead of failing the turn."""
    loopback.answers = [(400, LLAMA_OVERFLOW), (200, "It rambled about files."), (200, "Done.")]
    earlier = [
        {"role": "user", "content": "read notes.txt"},
        {"role": "assistant", "content": "Here is some code. " * 900},
    ]
    rig = make_rig(OpenAIProvider(loopback.url, "m"), window=32000, messages=earlier)
    ended = await rig.loop.send("just read it")
    assert ended.reason == "done", ended.message
    assert len(loopback.requests) == 3
    summary_request = loopback.requests[1]
    assert "tools" not in summary_request and "Here is some code." in json.dumps(summary_request)
    sent = loopback.requests[2]["messages"][1:]
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant"][: len(sent)]
    assert is_summary(sent[0]) and "It rambled about files." in sent[0]["content"]
    assert sent[2] == {"role": "user", "content": "just read it"}


async def test_an_overflow_with_nothing_to_compact_fails_at_once(
    loopback: Loopback, make_rig: Callable[..., Rig]
) -> None:
    loopback.answers = [(400, LLAMA_OVERFLOW)]
    rig = make_rig(OpenAIProvider(loopback.url, "m"), window=32000)
    ended = await rig.loop.send("x" * 100)
    assert ended.reason == "provider_error" and len(loopback.requests) == 1


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
        provider = OpenAIProvider(url, "m", api_key="sk-test-123")
        info = await provider.probe_context_window(timeout=5)
        await provider.aclose()
    finally:
        await runner.cleanup()
    assert (None if info is None else (info.tokens, info.source)) == expected


async def test_the_window_defaults_when_the_server_says_nothing() -> None:
    async with OpenAIProvider("http://127.0.0.1:9/v1", "m") as provider:  # nothing listens
        assert await provider.probe_context_window(timeout=2) is None
        budget = ContextBudget(probe=provider.probe_context_window)
        await budget.learn()
    assert (budget.window, budget.source) == (DEFAULT_WINDOW, "default")


async def test_props_is_asked_once_for_the_window_and_for_prefill() -> None:
    """Both the context budget and prefill detection read llama.cpp's /props: one GET."""
    asked: list[str] = []

    async def handle(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        if request.url.path == "/props":
            return httpx.Response(200, json={"default_generation_settings": {"n_ctx": 4096}})
        return httpx.Response(404)

    transport = httpx.MockTransport(handle)
    async with OpenAIProvider("http://test/v1", "m", transport=transport) as provider:
        window = await provider.probe_context_window()
        props = await provider.probe_json("props", root=True)
    assert window is not None and window.tokens == 4096
    assert props == {"default_generation_settings": {"n_ctx": 4096}}
    assert asked.count("/props") == 1 and asked.count("/v1/models") == 1


async def test_a_deeply_nested_probe_answer_is_ignored() -> None:
    """The server's answer is untrusted: a body nested past the envelope depth is no window."""

    async def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"[" * 100_000 + b"]" * 100_000)

    transport = httpx.MockTransport(handle)
    async with OpenAIProvider("http://test/v1", "m", transport=transport) as provider:
        assert await provider.probe_context_window() is None


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

    provider = OpenAIProvider("http://test/v1", "m", transport=httpx.MockTransport(handle))
    rig = make_rig(provider)
    assert (await rig.loop.send("hello")).reason == "done"
    (usage,) = [e for e in rig.events if isinstance(e, ContextUsage)]
    assert usage.window == 4096 and usage.source.startswith("server (GET /props")
    assert 1000 < usage.used < 4096


def test_the_budget_counts_usage_plus_an_estimate_of_what_was_added() -> None:
    budget = ContextBudget(window=10_000)
    request = [{"role": "system", "content": "s" * 4000}, {"role": "user", "content": "hi"}]
    budget.sending(request)
    budget.counted({"prompt_tokens": 2000, "completion_tokens": 5})  # the server's count
    assert budget.ratio == pytest.approx(2000 / estimate_tokens(request))
    later = [*request, {"role": "assistant", "content": "a" * 400}]
    added = estimate_tokens(later[2:]) * budget.ratio
    assert budget.used(later) == 2000 + round(added)
    budget.rewritten()  # after a compaction the whole request is estimated again
    assert budget.used(later) == round(estimate_tokens(later) * budget.ratio)


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
    script = Script([read_call("c1"), read_call("c2"), read_call("c3"), "All read."])
    provider = OpenAIProvider("http://test/v1", "m", transport=httpx.MockTransport(script.handle))
    rig = make_rig(provider, window=6000, keep_rounds=1)
    assert (await rig.loop.send("read it")).reason == "done"
    compacted = list(rig.loop.messages)
    assert rig.store.compactions.latest(rig.session_id) is not None
    rig.store.append_message(rig.session_id, {"role": "user", "content": "later"})
    sid, db = rig.session_id, rig.store.path
    rig.store.close()

    with SessionStore.open(db) as store:
        assert store.load_messages(sid) == [*compacted, {"role": "user", "content": "later"}]
        assert len(store.timeline.load_messages(sid)) == len(compacted) + 1  # originals too

    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config

    monkeypatch.setenv("FRONTIER_DATA_DIR", str(db.parent))
    session = create_runtime(
        Config(base_url="http://127.0.0.1:9/v1", model="m", context_window=6000),
        approver=PolicyApprover("auto"),  # type: ignore[arg-type]
        session_id=sid,
    )
    try:
        assert session._loop.messages == [*compacted, {"role": "user", "content": "later"}]  # type: ignore[attr-defined]
        assert session.context_window == 6000
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
