"""OpenAIProvider against a real HTTP server on 127.0.0.1 (aiohttp), one fault per test.

Each test scripts the server's behaviour and asserts what the agent loop would
see: the chunks, the retries (with the delays it would have waited), the final
``StreamEnd`` or the ``ProviderError`` message a user reads.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from sse_server import serve, sse, start_sse

from frontier.app.events import Retry
from frontier.app.providers.errors import ProviderError
from frontier.app.providers.openai import Chunk, OpenAIProvider, StreamEnd

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
MESSAGES = [{"role": "user", "content": "hi"}]


def delta(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def finish(reason: str = "stop") -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}


USAGE = {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}
HELLO_BODY = sse(delta("Hel")) + sse(delta("lo")) + sse(finish()) + sse(USAGE) + b"data: [DONE]\n\n"


@dataclass
class Server:
    """A scripted chat-completions endpoint; ``handler`` is set by each test."""

    url: str = ""
    handler: Handler | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    connections: list[int] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    """Set at teardown so handlers that hold a connection open return."""

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        self.headers.append(dict(request.headers))
        self.connections.append(id(request.transport))
        assert self.handler is not None
        return await self.handler(request)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    srv = Server()
    async with serve(srv.dispatch) as url:
        srv.url = url
        yield srv
        srv.release.set()


async def ok_stream(request: web.Request) -> web.StreamResponse:
    resp = await start_sse(request)
    await resp.write(HELLO_BODY)
    await resp.write_eof()
    return resp


class Sleeps(list[float]):
    """Injected ``sleep``: records the backoff instead of waiting it out."""

    async def __call__(self, delay: float) -> None:
        self.append(delay)


async def collect(provider: OpenAIProvider, **kw: Any) -> list[Chunk | Retry | StreamEnd]:
    try:
        return [item async for item in provider.stream(MESSAGES, **kw)]
    finally:
        await provider.aclose()


def text_of(items: list[Any]) -> str:
    return "".join(
        c.data["choices"][0]["delta"].get("content") or ""
        for c in items
        if isinstance(c, Chunk) and c.data.get("choices")
    )


# --------------------------------------------------------------------------- happy path


async def test_request_shape_and_usage(server: Server) -> None:
    server.handler = ok_stream
    tools = [{"type": "function", "function": {"name": "read", "parameters": {}}}]
    items = await collect(
        OpenAIProvider(server.url, "qwen", api_key="sk-secret"),
        tools=tools,
        extra={"temperature": 0},
    )
    body = server.requests[0]
    assert body["model"] == "qwen" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["tools"] == tools and body["temperature"] == 0
    assert server.headers[0]["Authorization"] == "Bearer sk-secret"
    assert text_of(items) == "Hello"
    end = items[-1]
    assert end == StreamEnd("stop", USAGE["usage"])
    assert all(isinstance(i, Chunk) for i in items[:-1])
    ts = [i.t for i in items if isinstance(i, Chunk)]
    assert ts == sorted(ts) and ts[0] >= 0


async def test_no_authorization_header_without_key(server: Server) -> None:
    server.handler = ok_stream
    await collect(OpenAIProvider(server.url, "local"))
    assert "Authorization" not in server.headers[0]


async def test_one_byte_tcp_writes_reassemble_exactly(server: Server) -> None:
    """Every byte in its own TCP write (drained), including a UTF-8 char split 3 ways."""
    payload = sse(delta("héllo ✓ wörld")) + sse(finish()) + b"data: [DONE]\n\n"

    async def trickle(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        for i in range(len(payload)):
            await resp.write(payload[i : i + 1])
        await resp.write_eof()
        return resp

    server.handler = trickle
    items = await collect(OpenAIProvider(server.url, "m"))
    assert text_of(items) == "héllo ✓ wörld"
    assert items[-1] == StreamEnd("stop", {})


async def test_malformed_sse_is_skipped_and_counted(server: Server) -> None:
    body = (
        b": keep-alive comment\n\n"
        b"this line is not a field\n\n"
        b"data: {not json\n\n" + sse(delta("ok")) + b"data: [1, 2]\n\n"
        b"event: ping\ndata:\n\n" + sse(delta("!")) + sse(finish()) + b"data: [DONE]\n\n"
    )

    async def messy(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(body)
        await resp.write_eof()
        return resp

    server.handler = messy
    items = await collect(OpenAIProvider(server.url, "m"))
    assert text_of(items) == "ok!"
    assert items[-1].finish_reason == "stop"
    assert items[-1].skipped == 2  # the non-JSON object and the JSON array


async def test_deeply_nested_chunks_and_bodies_never_crash_the_reader(server: Server) -> None:
    """10,000 levels of nesting (a hostile server): skipped like any malformed event, and a
    200 JSON body that deep is reported, never a RecursionError."""
    deep = b"[" * 10_000 + b"]" * 10_000
    body = b"data: " + deep + b"\n\n" + sse(delta("ok")) + sse(finish()) + b"data: [DONE]\n\n"

    async def hostile(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(body)
        await resp.write_eof()
        return resp

    server.handler = hostile
    items = await collect(OpenAIProvider(server.url, "m"))
    assert text_of(items) == "ok" and items[-1].skipped == 1

    async def deep_json(request: web.Request) -> web.Response:
        return web.Response(body=deep, content_type="application/json")

    server.handler = deep_json
    with pytest.raises(ProviderError):
        await collect(OpenAIProvider(server.url, "m"))


# --------------------------------------------------------------------------- mid-stream faults


async def test_disconnect_mid_frame_is_a_truncation(server: Server) -> None:
    """The server dies in the middle of a data line: what arrived is kept, then disconnect."""

    async def dies(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(sse(delta("call c1 read\narg path ")))
        await resp.write(b'data: {"choices":[{"index":0,"delta":{"content":"gre')
        assert request.transport is not None
        request.transport.close()
        return resp

    server.handler = dies
    items = await collect(OpenAIProvider(server.url, "m"))
    assert text_of(items) == "call c1 read\narg path "
    end = items[-1]
    assert isinstance(end, StreamEnd) and end.finish_reason == "disconnect"
    assert "mid-stream" in end.detail
    assert not any(isinstance(i, Retry) for i in items)  # never re-requested after bytes


async def test_read_stall_is_a_disconnect(server: Server) -> None:
    async def stalls(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(sse(delta("partial")))
        await server.release.wait()  # holds the connection open until teardown
        return resp

    server.handler = stalls
    items = await collect(OpenAIProvider(server.url, "m", read_timeout=0.2))
    assert text_of(items) == "partial"
    assert items[-1].finish_reason == "disconnect"
    assert "read stall" in items[-1].detail


async def test_eof_without_finish_reason_is_a_disconnect(server: Server) -> None:
    async def short(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(sse(delta("half")))
        await resp.write_eof()
        return resp

    server.handler = short
    items = await collect(OpenAIProvider(server.url, "m"))
    assert items[-1].finish_reason == "disconnect"


async def test_error_object_inside_200_stream(server: Server) -> None:
    async def errs(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(sse(delta("Some text")))
        await resp.write(sse({"error": {"message": "upstream overloaded", "code": 502}}))
        await resp.write(sse(delta("never seen")))
        await resp.write_eof()
        return resp

    server.handler = errs
    items = await collect(OpenAIProvider(server.url, "m"))
    assert text_of(items) == "Some text"
    end = items[-1]
    assert end.finish_reason == "error"
    assert end.error is not None and "upstream overloaded" in end.error


async def test_length_finish_passes_through_with_usage(server: Server) -> None:
    async def cut(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(sse(delta("call c1 wr")) + sse(finish("length")) + sse(USAGE))
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    server.handler = cut
    items = await collect(OpenAIProvider(server.url, "m"))
    assert items[-1] == StreamEnd("length", USAGE["usage"])


# --------------------------------------------------------------------------- before the first byte


async def test_429_with_retry_after_then_success(server: Server) -> None:
    calls = 0

    async def limited(request: web.Request) -> web.StreamResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            return web.json_response(
                {"error": {"message": "rate limited"}}, status=429, headers={"Retry-After": "2"}
            )
        return await ok_stream(request)

    server.handler = limited
    sleeps = Sleeps()
    items = await collect(OpenAIProvider(server.url, "m", sleep=sleeps))
    retries = [i for i in items if isinstance(i, Retry)]
    assert len(retries) == 1
    assert retries[0].attempt == 1 and retries[0].delay == 2.0
    assert "429" in retries[0].reason and "rate limited" in retries[0].reason
    assert sleeps == [2.0]
    assert text_of(items) == "Hello" and items[-1].finish_reason == "stop"


async def test_500_three_times_then_give_up(server: Server) -> None:
    async def broken(request: web.Request) -> web.StreamResponse:
        return web.Response(status=500, text="boom")

    server.handler = broken
    sleeps = Sleeps()
    provider = OpenAIProvider(server.url, "big-model", max_retries=2, sleep=sleeps)
    seen: list[Any] = []
    with pytest.raises(ProviderError) as info:
        async for item in provider.stream(MESSAGES):
            seen.append(item)
    await provider.aclose()
    err = info.value
    assert len(server.requests) == 3
    assert err.kind == "http" and err.status == 500 and err.attempts == 3
    assert server.url in str(err) and "big-model" in str(err)
    assert "3 attempts" in str(err) and "boom" in str(err)
    assert [r.delay for r in seen] == [0.5, 1.0] == sleeps  # exponential backoff


async def test_huge_retry_after_fails_fast_with_the_figure(server: Server) -> None:
    async def later(request: web.Request) -> web.StreamResponse:
        return web.Response(status=503, headers={"Retry-After": "3600"})

    server.handler = later
    sleeps = Sleeps()
    with pytest.raises(ProviderError, match="3600 s"):
        await collect(OpenAIProvider(server.url, "m", sleep=sleeps))
    assert sleeps == []


@pytest.mark.parametrize(
    ("status", "kind", "key", "hint"),
    [
        (401, "auth", None, "export FRONTIER_API_KEY"),
        (403, "auth", "sk-bad-key-123", "key was rejected"),
        (404, "not_found", None, "check --base-url"),
        (400, "http", None, "context too long"),
    ],
    ids=["401-no-key", "403-bad-key", "404", "400"],
)
async def test_client_errors_name_url_model_and_fix(
    server: Server, status: int, kind: str, key: str | None, hint: str
) -> None:
    async def refuse(request: web.Request) -> web.StreamResponse:
        return web.json_response({"error": {"message": "context too long"}}, status=status)

    server.handler = refuse
    with pytest.raises(ProviderError) as info:
        await collect(OpenAIProvider(server.url, "qwen-7b", api_key=key, sleep=Sleeps()))
    err = info.value
    assert err.kind == kind and err.status == status
    assert len(server.requests) == 1  # never retried
    text = str(err)
    assert f"{server.url}/chat/completions" in text and "qwen-7b" in text and hint in text
    if key:
        assert key not in text and key not in repr(err)


async def test_stale_keep_alive_connection_retried_on_a_fresh_one(server: Server) -> None:
    """The server closes the pooled connection as the second request arrives on it."""
    per_conn: dict[int, int] = {}

    async def closes_reused(request: web.Request) -> web.StreamResponse:
        conn = id(request.transport)
        per_conn[conn] = per_conn.get(conn, 0) + 1
        if per_conn[conn] == 2:
            assert request.transport is not None
            request.transport.close()
            raise asyncio.CancelledError  # aiohttp: drop the request without a response
        return await ok_stream(request)

    server.handler = closes_reused
    sleeps = Sleeps()
    provider = OpenAIProvider(server.url, "m", sleep=sleeps)
    first = [i async for i in provider.stream(MESSAGES)]
    second = [i async for i in provider.stream(MESSAGES)]
    await provider.aclose()
    assert text_of(first) == text_of(second) == "Hello"
    assert server.connections[1] == server.connections[0]  # the pooled one was reused
    assert server.connections[2] != server.connections[0]  # the retry used a fresh one
    retries = [i for i in second if isinstance(i, Retry)]
    assert len(retries) == 1 and retries[0].delay == 0.0 and "fresh connection" in retries[0].reason
    assert sleeps == []
    assert second[-1].finish_reason == "stop"


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_connection_refused_retries_then_explains() -> None:
    url = f"http://127.0.0.1:{_unused_port()}/v1"
    sleeps = Sleeps()
    provider = OpenAIProvider(url, "m", max_retries=3, sleep=sleeps)
    retries: list[Any] = []
    with pytest.raises(ProviderError) as info:
        async for item in provider.stream(MESSAGES):
            retries.append(item)
    await provider.aclose()
    assert info.value.kind == "connect"
    assert "Is the server running" in str(info.value) and url in str(info.value)
    assert [r.attempt for r in retries] == [1, 2, 3] and sleeps == [0.5, 1.0, 2.0]


async def test_server_ignoring_stream_true_still_works(server: Server) -> None:
    async def whole(request: web.Request) -> web.StreamResponse:
        return web.json_response(
            {
                "id": "x",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "All done."}}],
                "usage": {"total_tokens": 4},
            }
        )

    server.handler = whole
    items = await collect(OpenAIProvider(server.url, "m"))
    assert text_of(items) == "All done."
    assert items[-1] == StreamEnd("stop", {"total_tokens": 4})


async def test_stopping_early_closes_the_response(server: Server) -> None:
    """The loop stops reading (text after a confirmed call): the server sees the close."""
    closed = asyncio.Event()

    async def endless(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        try:
            for _ in range(10_000):
                await resp.write(sse(delta("more ")))
                await asyncio.sleep(0)
        except (ConnectionResetError, ConnectionError):
            closed.set()
        return resp

    server.handler = endless
    provider = OpenAIProvider(server.url, "m")
    stream = provider.stream(MESSAGES)
    got = 0
    async for item in stream:
        got += isinstance(item, Chunk)
        if got == 3:
            break
    await stream.aclose()  # type: ignore[attr-defined]
    await asyncio.wait_for(closed.wait(), 5)
    await provider.aclose()


async def test_invalid_utf8_never_crashes_the_stream(server: Server) -> None:
    body = (
        b'data: {"choices":[{"index":0,"delta":{"content":"bad \xff\xfe byte"}}]}\n\n'
        + sse(finish())
        + b"data: [DONE]\n\n"
    )

    async def invalid(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(body)
        await resp.write_eof()
        return resp

    server.handler = invalid
    items = await collect(OpenAIProvider(server.url, "m"))
    assert text_of(items) == "bad \ufffd\ufffd byte"
    assert items[-1].finish_reason == "stop"


def test_provider_modules_do_not_import_textual() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import frontier.app.providers.openai, frontier.app.providers.demo\n"
        "import frontier.app.providers.replay\n"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
