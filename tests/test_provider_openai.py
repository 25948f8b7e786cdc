"""OpenAIProvider against a real HTTP server on 127.0.0.1 (aiohttp), one fault per test.

Each test scripts the server's behaviour and asserts what the agent loop would
see: the chunks, the retries (with the delays it would have waited), the final
``StreamEnd`` or the ``ProviderError`` message a user reads.
"""

from __future__ import annotations

import asyncio
import socket
import time
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
    items = await collect(OpenAIProvider(server.url, "m", idle_timeout=0.2))
    assert text_of(items) == "partial"
    assert items[-1].finish_reason == "disconnect"
    assert "read stall" in items[-1].detail and "idle_timeout" in items[-1].detail


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
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- not an event stream

NGINX_PAGE = (
    "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head>"
    "<body><h1>Welcome to nginx!</h1></body></html>\n"
)


async def collect_error(provider: OpenAIProvider) -> tuple[ProviderError, list[Any]]:
    """The ``ProviderError`` a stream ends with, and every item it yielded before."""
    seen: list[Any] = []
    try:
        with pytest.raises(ProviderError) as info:
            async for item in provider.stream(MESSAGES):
                seen.append(item)
    finally:
        await provider.aclose()
    return info.value, seen


async def test_html_page_with_200_ends_at_once_naming_base_url(server: Server) -> None:
    """A wrong --base-url hitting a web page: one request, no retry, the message says why."""

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=NGINX_PAGE, content_type="text/html")

    server.handler = page
    sleeps = Sleeps()
    err, seen = await collect_error(OpenAIProvider(server.url, "m", sleep=sleeps))
    assert err.kind == "protocol" and err.status == 200
    text = str(err)
    assert "the server answered text/html, not an event stream; is --base-url right?" in text
    assert "Welcome to nginx!" in text and f"{server.url}/chat/completions" in text
    assert len(server.requests) == 1 and seen == [] and sleeps == []


@pytest.mark.parametrize("ctype", ["text/event-stream", "text/plain", None])
async def test_html_body_under_another_label_is_still_not_a_stream(
    server: Server, ctype: str | None
) -> None:
    async def page(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": ctype} if ctype else {})
        await resp.prepare(request)
        await resp.write(b"  \n<html><head><title>Sign in</title></head></html>")
        await resp.write_eof()
        return resp

    server.handler = page
    err, _ = await collect_error(OpenAIProvider(server.url, "m", sleep=Sleeps()))
    assert err.kind == "protocol"
    assert "(an HTML page), not an event stream" in str(err)
    assert "The page is titled 'Sign in'" in str(err)
    assert len(server.requests) == 1


async def test_plain_text_body_is_not_a_stream_and_quoted(server: Server) -> None:
    async def text(request: web.Request) -> web.Response:
        return web.Response(text="Hello from the captive portal\nplease log in\n")

    server.handler = text
    err, _ = await collect_error(OpenAIProvider(server.url, "m", sleep=Sleeps()))
    assert err.kind == "protocol"
    assert "text/plain, not an event stream; is --base-url right?" in str(err)
    assert "It begins 'Hello from the captive portal please log in'" in str(err)
    assert len(server.requests) == 1


async def test_event_stream_under_an_html_label_is_parsed(server: Server) -> None:
    """The body decides, not the label: a stream mislabelled text/html still works."""

    async def mislabelled(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/html"})
        await resp.prepare(request)
        await resp.write(HELLO_BODY)
        await resp.write_eof()
        return resp

    server.handler = mislabelled
    items = await collect(OpenAIProvider(server.url, "m"))
    assert text_of(items) == "Hello" and items[-1].finish_reason == "stop"


@pytest.mark.parametrize("ctype", ["application/json", "text/event-stream"])
async def test_json_error_with_200_is_the_servers_message(server: Server, ctype: str) -> None:
    """``{"error": ...}`` with HTTP 200 (as JSON, or bare inside a "stream"): nothing of an
    answer exists, so it is a ProviderError with the server's words, after one request."""

    async def refuses(request: web.Request) -> web.Response:
        body = '{"error": {"message": "model \\"qwen\\" is not loaded", "code": "model_not_found"}}'
        return web.Response(text=body, headers={"Content-Type": ctype})

    server.handler = refuses
    err, seen = await collect_error(OpenAIProvider(server.url, "m", sleep=Sleeps()))
    assert err.kind == "http" and err.status == 200
    assert 'the server says: model "qwen" is not loaded (model_not_found)' in str(err)
    assert len(server.requests) == 1 and seen == []


async def test_json_that_is_not_a_completion_is_a_protocol_error(server: Server) -> None:
    async def other(request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "qwen"}]})

    server.handler = other
    err, _ = await collect_error(OpenAIProvider(server.url, "m"))
    assert err.kind == "protocol" and "not a chat completion" in str(err)


async def test_empty_200_body_is_a_disconnect(server: Server) -> None:
    async def empty(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write_eof()
        return resp

    server.handler = empty
    items = await collect(OpenAIProvider(server.url, "m"))
    assert items == [StreamEnd("disconnect", detail="the server answered 200 with an empty body")]


# --------------------------------------------------------------------------- SSE framing


async def test_crlf_and_cr_line_ends_split_across_writes(server: Server) -> None:
    """Lines may end in CRLF, CR or LF (SSE spec); a CRLF split between two TCP writes
    is one line end, and a leading BOM is dropped."""
    body = (
        b"\xef\xbb\xbf: hi\r\n\r\n"
        + sse(delta("a")).replace(b"\n", b"\r\n")
        + sse(delta("b")).replace(b"\n", b"\r")
        + sse(finish()).replace(b"\n", b"\r\n")
        + b"data: [DONE]\r\n\r\n"
    )
    cut = body.index(b"\r\n", body.index(b'"a"')) + 1  # between the CR and the LF

    async def crlf(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(body[:cut])
        await resp.write(body[cut:])
        await resp.write_eof()
        return resp

    server.handler = crlf
    items = await collect(OpenAIProvider(server.url, "m"))
    assert text_of(items) == "ab" and items[-1] == StreamEnd("stop", {})


async def test_sse_parse_is_the_same_wherever_the_reads_split() -> None:
    """Every split point of a body with CRLF, CR, LF, a BOM, a comment, a multi-line
    ``data`` and a UTF-8 character gives the same events (no server: pure parsing)."""
    from frontier.app.providers.openai import _sse_events

    body = "\ufeff: c\r\n\r\nevent: error\rdata: a\r\ndata: é✓\n\ndata:b\r\rid: 1\n\n".encode()
    expected = [("error", "a\né✓"), ("message", "b")]

    async def pieces(parts: list[bytes]) -> AsyncIterator[bytes]:
        for part in parts:
            yield part

    for cut in range(len(body) + 1):
        for head_len in (0, min(cut, 3)):
            head, rest = body[:head_len], [body[head_len:cut], body[cut:]]
            got = [e async for e in _sse_events(head, pieces(rest))]
            assert got == expected, (cut, head_len)


async def test_multi_line_data_and_a_two_megabyte_line(server: Server) -> None:
    big = "x" * (2 << 20)
    payload = sse(delta(big))

    async def large(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        for i in range(0, len(payload), 16_384):
            await resp.write(payload[i : i + 16_384])
        await resp.write(b'data: {"choices": [{"index": 0,\ndata: "delta": {"content": "!"}}]}\n\n')
        await resp.write(sse(finish()) + b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    server.handler = large
    items = await collect(OpenAIProvider(server.url, "m"))
    assert text_of(items) == big + "!"


async def test_eof_after_finish_reason_without_done_stands(server: Server) -> None:
    """Only ``[DONE]`` (or usage) was lost: the finish_reason says the content is complete."""

    async def no_done(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(sse(delta("ok")) + sse(finish("tool_calls")))
        await resp.write_eof()
        return resp

    server.handler = no_done
    items = await collect(OpenAIProvider(server.url, "m"))
    assert items[-1] == StreamEnd("tool_calls", {})


# --------------------------------------------------------------------------- request body


async def test_n_above_one_is_never_requested(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """The loop reads one choice; n > 1 would splice several answers into one text."""
    server.handler = ok_stream
    provider = OpenAIProvider(server.url, "m")
    with caplog.at_level("WARNING", logger="frontier.app.providers.openai"):
        await collect(provider, extra={"n": 3, "temperature": 0.2, "stream": False})
    body = server.requests[0]
    assert "n" not in body and body["stream"] is True and body["temperature"] == 0.2
    assert "not requesting n=3" in caplog.text and "not turning streaming off" in caplog.text


# --------------------------------------------------------------------------- hung servers


async def test_server_that_never_sends_headers_gives_up_after_one_retry(server: Server) -> None:
    """Accepts the request, never answers: first_byte_timeout per attempt, one retry
    (max_retries=1 here), then a ``timeout`` error saying which setting to raise."""

    async def hangs(request: web.Request) -> web.StreamResponse:
        await server.release.wait()
        return web.Response(status=204)

    server.handler = hangs
    sleeps = Sleeps()
    provider = OpenAIProvider(
        server.url,
        "m",
        connect_timeout=30.0,
        first_byte_timeout=0.2,
        idle_timeout=5.0,
        max_retries=1,
        sleep=sleeps,
    )
    began = time.monotonic()
    err, seen = await collect_error(provider)
    # The first-byte clock starts when the request is sent, not when connecting began
    # (connect + first byte would be 2 × 30.2 s here).
    assert time.monotonic() - began < 30.0
    assert err.kind == "timeout" and err.attempts == 2 and len(server.requests) == 2
    assert "no first byte within 0.2 s of sending the request (first_byte_timeout)" in str(err)
    assert "--first-byte-timeout" in str(err)
    assert [(r.attempt, r.delay) for r in seen] == [(1, 0.5)] and sleeps == [0.5]
    assert "first_byte_timeout" in seen[0].reason


async def test_headers_then_silence_is_a_first_byte_timeout_too(server: Server) -> None:
    """200 headers at once (llama.cpp-style), then no body byte: still nothing of an
    answer exists, so it is the first-byte timeout, not a mid-stream stall."""

    async def stalls_at_once(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await server.release.wait()
        return resp

    server.handler = stalls_at_once
    provider = OpenAIProvider(
        server.url, "m", first_byte_timeout=0.2, idle_timeout=5.0, max_retries=0, sleep=Sleeps()
    )
    err, seen = await collect_error(provider)
    assert err.kind == "timeout" and len(server.requests) == 1 and seen == []


async def test_idle_timeout_applies_only_after_the_first_byte(server: Server) -> None:
    """A slow first byte within first_byte_timeout is fine even when idle_timeout is
    shorter; after it, a gap longer than idle_timeout ends the stream as a stall."""
    first = asyncio.Event()

    async def slow_start(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await asyncio.sleep(0.3)  # > idle_timeout, < first_byte_timeout
        await resp.write(sse(delta("late")))
        first.set()
        await server.release.wait()
        return resp

    server.handler = slow_start
    provider = OpenAIProvider(server.url, "m", first_byte_timeout=5.0, idle_timeout=0.1)
    items = await collect(provider)
    assert first.is_set() and text_of(items) == "late"
    assert items[-1].finish_reason == "disconnect"
    assert "no data for 0.1 s (idle_timeout" in items[-1].detail


class FakeClock:
    """A monotonic clock that only the injected sleeps move."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_no_attempt_starts_after_the_retry_window(server: Server) -> None:
    """Backoff 20 s, then 30 s (capped): the third attempt starts at 50 s; a fourth
    would start at 80 s, past the 60 s window, so it gives up after three."""

    async def unavailable(request: web.Request) -> web.StreamResponse:
        return web.Response(status=503, text="loading model")

    clock = FakeClock()
    sleeps = Sleeps()

    async def sleep(delay: float) -> None:
        await sleeps(delay)
        clock.now += delay

    server.handler = unavailable
    provider = OpenAIProvider(server.url, "m", backoff_base=20.0, sleep=sleep, clock=clock)
    err, _ = await collect_error(provider)
    assert len(server.requests) == 3 and sleeps == [20.0, 30.0]
    assert err.kind == "http" and "gave up after 3 attempts in 50 s" in str(err)


async def test_retry_after_past_the_window_fails_with_the_figure(server: Server) -> None:
    async def later(request: web.Request) -> web.StreamResponse:
        return web.Response(status=429, headers={"Retry-After": "75"})

    server.handler = later
    sleeps = Sleeps()
    err, _ = await collect_error(OpenAIProvider(server.url, "m", sleep=sleeps))
    assert "asks to wait 75 s" in str(err) and "60 s retry window" in str(err)
    assert sleeps == [] and len(server.requests) == 1


def test_default_timeouts_give_up_within_two_minutes() -> None:
    """The arithmetic of docs/decisions-providers.md: the last attempt starts within the
    60 s window and lasts at most connect (10 s) + first byte (45 s)."""
    from frontier.app.config import Config

    provider = OpenAIProvider("http://127.0.0.1:9/v1", "m")
    assert provider.worst_case_wait == 60 + 10 + 45 < 120
    config = Config()
    assert (config.connect_timeout, config.first_byte_timeout, config.idle_timeout) == (
        provider.connect_timeout,
        provider.first_byte_timeout,
        provider.idle_timeout,
    )
