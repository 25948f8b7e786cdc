"""The generic transport (``ModelClient``) through the chat wire, against a real HTTP
server on 127.0.0.1 (aiohttp), one fault per test.

Each test scripts the server's behaviour and asserts what the agent loop would
see: the wire events and their deltas, the retries (with the delays it would have
waited), the final ``StreamEnd`` or the ``ModelError`` message a user reads.
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
from sse_server import Sleeps, serve, sse, start_sse

from frontier.app.events import Retry, TokenUsage
from frontier.app.model import stream as neutral
from frontier.app.model.conversation import UserText
from frontier.app.model.errors import (
    AuthRefused,
    ConnectFailed,
    EndpointNotFound,
    ModelError,
    NoFirstByte,
    NotAStream,
    StatusError,
)
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest, ToolSchema
from frontier.app.model.stream import (
    End,
    Finish,
    Malformed,
    ServerError,
    StreamEnd,
    TextDelta,
    Unreadable,
    UsageDelta,
    WireEvent,
)
from frontier.app.model.transport import ModelClient, Timeouts

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
REQUEST = ModelRequest(system="", items=(UserText("hi"),))


def delta(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def finish(reason: str = "stop") -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}


USAGE = {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}
USED = TokenUsage(prompt=3, completion=2)
HELLO_BODY = sse(delta("Hel")) + sse(delta("lo")) + sse(finish()) + sse(USAGE) + b"data: [DONE]\n\n"


def end(reason: str, usage: TokenUsage | None = None, **kw: Any) -> StreamEnd:
    """The ``StreamEnd`` of a clean chat stream (the raw finish reason kept beside it)."""
    return StreamEnd(reason, usage or TokenUsage(), raw_reason=reason, **kw)


def client(url: str, model: str = "m", api_key: str | None = None, **kw: Any) -> ModelClient:
    """A chat-completions client on the generic transport."""
    return ModelClient(codec("openai-chat"), url, model, api_key, **kw)


@dataclass
class Server:
    """A scripted chat-completions endpoint; ``handler`` is set by each test."""

    url: str = ""
    handler: Handler | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    connections: list[object] = field(default_factory=list)
    """Each request's connection, by the client's address and port: a closed transport's
    ``id`` can be reused by the next one, which made a fresh connection look pooled."""
    release: asyncio.Event = field(default_factory=asyncio.Event)
    """Set at teardown so handlers that hold a connection open return."""

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        self.headers.append(dict(request.headers))
        transport = request.transport
        self.connections.append(transport.get_extra_info("peername") if transport else None)
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


async def collect(
    model: ModelClient, request: ModelRequest = REQUEST
) -> list[WireEvent | Retry | StreamEnd]:
    try:
        return [item async for item in model.stream(request)]
    finally:
        await model.aclose()


def text_of(items: list[Any]) -> str:
    """The assistant text the wire events carry (their ``TextDelta``\\ s)."""
    return "".join(neutral.text_of(i.deltas) for i in items if isinstance(i, WireEvent))


def wire_events(items: list[Any]) -> list[WireEvent]:
    return [i for i in items if isinstance(i, WireEvent)]


# --------------------------------------------------------------------------- happy path


async def test_request_shape_and_usage(server: Server) -> None:
    server.handler = ok_stream
    params = {"type": "object", "properties": {"path": {"type": "string"}}}
    request = ModelRequest(
        system="be brief",
        items=(UserText("hi"),),
        tools=(ToolSchema("read", "Read a file.", params),),
        extra={"temperature": 0},
    )
    items = await collect(client(server.url, "qwen", api_key="sk-secret"), request)
    body = server.requests[0]
    assert body["model"] == "qwen" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "read", "description": "Read a file.", "parameters": params},
        }
    ]
    assert body["temperature"] == 0 and "max_tokens" not in body
    assert server.headers[0]["Authorization"] == "Bearer sk-secret"
    assert server.headers[0]["Accept"] == "text/event-stream"
    assert text_of(items) == "Hello"
    assert items[-1] == end("stop", USED)
    events = items[:-1]
    assert all(isinstance(i, WireEvent) for i in events)
    # each SSE event's data is kept exactly, with its deltas; [DONE] carries nothing and
    # is not an event of its own
    assert [e.raw for e in wire_events(events)] == [
        sse(c).decode()[len("data: ") : -2] for c in (delta("Hel"), delta("lo"), finish(), USAGE)
    ]
    assert [e.deltas for e in wire_events(events)] == [
        (TextDelta("Hel"),),
        (TextDelta("lo"),),
        (Finish("stop", "stop"),),
        (UsageDelta(USED),),
    ]
    ts = [i.t for i in wire_events(items)]
    assert ts == sorted(ts) and ts[0] >= 0


async def test_max_tokens_is_the_clients_cap_unless_the_request_names_one(
    server: Server,
) -> None:
    server.handler = ok_stream
    await collect(client(server.url, max_tokens=77))
    await collect(client(server.url, max_tokens=77), ModelRequest("", REQUEST.items, max_tokens=5))
    await collect(client(server.url))
    assert [b.get("max_tokens") for b in server.requests] == [77, 5, None]


async def test_no_authorization_header_without_key(server: Server) -> None:
    server.handler = ok_stream
    await collect(client(server.url, "local"))
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
    items = await collect(client(server.url))
    assert text_of(items) == "héllo ✓ wörld"
    assert items[-1] == end("stop")


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
    items = await collect(client(server.url))
    assert text_of(items) == "ok!"
    assert items[-1].finish_reason == "stop"
    assert items[-1].skipped == 2  # the non-JSON object and the JSON array
    # each comes through as Unreadable (the mode decides: modes.py); what carries
    # nothing (the comment, the stray line, the empty ping) is no event
    events = wire_events(items)
    assert [d.preview for e in events for d in e.deltas if isinstance(d, Unreadable)] == [
        "{not json",
        "[1, 2]",
    ]
    assert len(events) == 5


async def test_deeply_nested_chunks_and_bodies_never_crash_the_reader(server: Server) -> None:
    """10,000 levels of nesting (a hostile server): never a RecursionError. An event that
    deep is not junk to skip (it may have carried a call's arguments): it comes through
    as a ``Malformed`` delta the native accumulator stops at, uncounted; a 200 JSON body
    that deep is reported."""
    deep = b"[" * 10_000 + b"]" * 10_000
    body = b"data: " + deep + b"\n\n" + sse(delta("ok")) + sse(finish()) + b"data: [DONE]\n\n"

    async def hostile(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(body)
        await resp.write_eof()
        return resp

    server.handler = hostile
    items = await collect(client(server.url))
    assert text_of(items) == "ok" and items[-1].skipped == 0
    assert items[-1].finish_reason == "stop"
    first = wire_events(items)[0]
    assert first.raw == deep.decode() and len(first.deltas) == 1
    assert isinstance(first.deltas[0], Malformed) and "resend" in first.deltas[0].message

    async def deep_json(request: web.Request) -> web.Response:
        return web.Response(body=deep, content_type="application/json")

    server.handler = deep_json
    with pytest.raises(NotAStream) as info:
        await collect(client(server.url))
    assert info.value.kind == "protocol" and info.value.status == 200


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
    items = await collect(client(server.url))
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
    items = await collect(client(server.url, timeouts=Timeouts(idle=0.2)))
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
    items = await collect(client(server.url))
    assert text_of(items) == "half"
    assert items[-1].finish_reason == "disconnect"
    assert items[-1].detail == "the stream ended without a finish or its end event"


async def test_error_object_inside_200_stream(server: Server) -> None:
    async def errs(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(sse(delta("Some text")))
        await resp.write(sse({"error": {"message": "upstream overloaded", "code": 502}}))
        await resp.write(sse(delta("never seen")))
        await resp.write_eof()
        return resp

    server.handler = errs
    items = await collect(client(server.url))
    assert text_of(items) == "Some text"
    last = items[-1]
    assert isinstance(last, StreamEnd) and last.finish_reason == "error"
    assert last.error is not None and "upstream overloaded" in last.error
    # the error event itself is yielded (recorded) just before the end; nothing after it
    error_event = items[-2]
    assert isinstance(error_event, WireEvent) and "upstream overloaded" in error_event.raw
    assert error_event.deltas == (ServerError("upstream overloaded (502)"),)
    assert len(items) == 3


async def test_length_finish_passes_through_with_usage(server: Server) -> None:
    async def cut(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(sse(delta("call c1 wr")) + sse(finish("length")) + sse(USAGE))
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    server.handler = cut
    items = await collect(client(server.url))
    assert items[-1] == end("length", USED)


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
    items = await collect(client(server.url, sleep=sleeps))
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
    model = client(server.url, "big-model", max_retries=2, sleep=sleeps)
    seen: list[Any] = []
    with pytest.raises(StatusError) as info:
        async for item in model.stream(REQUEST):
            seen.append(item)
    await model.aclose()
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
    with pytest.raises(StatusError, match="3600 s") as info:
        await collect(client(server.url, sleep=sleeps))
    assert sleeps == [] and info.value.status == 503 and len(server.requests) == 1


@pytest.mark.parametrize(
    ("status", "kind", "cls", "key", "hint"),
    [
        (401, "auth", AuthRefused, None, "export FRONTIER_API_KEY"),
        (403, "auth", AuthRefused, "sk-bad-key-123", "key was rejected"),
        (404, "not_found", EndpointNotFound, None, "check --base-url"),
        (400, "http", StatusError, None, "context too long"),
    ],
    ids=["401-no-key", "403-bad-key", "404", "400"],
)
async def test_client_errors_name_url_model_and_fix(
    server: Server, status: int, kind: str, cls: type[ModelError], key: str | None, hint: str
) -> None:
    async def refuse(request: web.Request) -> web.StreamResponse:
        return web.json_response({"error": {"message": "context too long"}}, status=status)

    server.handler = refuse
    with pytest.raises(ModelError) as info:
        await collect(client(server.url, "qwen-7b", api_key=key, sleep=Sleeps()))
    err = info.value
    assert type(err) is cls and err.kind == kind and err.status == status
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
    model = client(server.url, sleep=sleeps)
    first = [i async for i in model.stream(REQUEST)]
    second = [i async for i in model.stream(REQUEST)]
    await model.aclose()
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
    model = client(url, max_retries=3, sleep=sleeps)
    retries: list[Any] = []
    with pytest.raises(ConnectFailed) as info:
        async for item in model.stream(REQUEST):
            retries.append(item)
    await model.aclose()
    assert info.value.kind == "connect" and info.value.attempts == 4
    assert "Is the server running" in str(info.value) and url in str(info.value)
    assert [r.attempt for r in retries] == [1, 2, 3] and sleeps == [0.5, 1.0, 2.0]


async def test_server_ignoring_stream_true_still_works(server: Server) -> None:
    async def whole(request: web.Request) -> web.StreamResponse:
        return web.json_response(
            {
                "id": "x",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "All done."}}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
            }
        )

    server.handler = whole
    items = await collect(client(server.url))
    assert text_of(items) == "All done."
    # the whole answer is one wire event carrying every delta a stream would have
    (event,) = wire_events(items)
    assert event.raw.startswith('{"id": "x"') and len(items) == 2
    assert event.deltas == (
        TextDelta("All done."),
        Finish("stop", "stop"),
        UsageDelta(TokenUsage(prompt=3, completion=1)),
        End(),
    )
    assert items[-1] == end("stop", TokenUsage(prompt=3, completion=1))


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
    model = client(server.url)
    stream = model.stream(REQUEST)
    got = 0
    async for item in stream:
        got += isinstance(item, WireEvent)
        if got == 3:
            break
    await stream.aclose()
    await asyncio.wait_for(closed.wait(), 5)
    await model.aclose()


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
    items = await collect(client(server.url))
    assert text_of(items) == "bad \ufffd\ufffd byte"
    assert items[-1].finish_reason == "stop"


def test_model_modules_do_not_import_textual() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import frontier.app.model.transport, frontier.app.model.wires.openai_chat\n"
        "import frontier.app.model.wires.demo, frontier.app.model.registry\n"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- not an event stream

NGINX_PAGE = (
    "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head>"
    "<body><h1>Welcome to nginx!</h1></body></html>\n"
)


async def collect_error(model: ModelClient) -> tuple[ModelError, list[Any]]:
    """The ``ModelError`` a stream ends with, and every item it yielded before."""
    seen: list[Any] = []
    try:
        with pytest.raises(ModelError) as info:
            async for item in model.stream(REQUEST):
                seen.append(item)
    finally:
        await model.aclose()
    return info.value, seen


async def test_html_page_with_200_ends_at_once_naming_base_url(server: Server) -> None:
    """A wrong --base-url hitting a web page: one request, no retry, the message says why."""

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=NGINX_PAGE, content_type="text/html")

    server.handler = page
    sleeps = Sleeps()
    err, seen = await collect_error(client(server.url, sleep=sleeps))
    assert isinstance(err, NotAStream) and err.kind == "protocol" and err.status == 200
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
    err, _ = await collect_error(client(server.url, sleep=Sleeps()))
    assert isinstance(err, NotAStream) and err.kind == "protocol"
    assert "(an HTML page), not an event stream" in str(err)
    assert "The page is titled 'Sign in'" in str(err)
    assert len(server.requests) == 1


async def test_plain_text_body_is_not_a_stream_and_quoted(server: Server) -> None:
    async def text(request: web.Request) -> web.Response:
        return web.Response(text="Hello from the captive portal\nplease log in\n")

    server.handler = text
    err, _ = await collect_error(client(server.url, sleep=Sleeps()))
    assert isinstance(err, NotAStream) and err.kind == "protocol"
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
    items = await collect(client(server.url))
    assert text_of(items) == "Hello" and items[-1].finish_reason == "stop"


@pytest.mark.parametrize("ctype", ["application/json", "text/event-stream"])
async def test_json_error_with_200_is_the_servers_message(server: Server, ctype: str) -> None:
    """``{"error": ...}`` with HTTP 200 (as JSON, or bare inside a "stream"): nothing of an
    answer exists, so it is a ModelError with the server's words, after one request."""

    async def refuses(request: web.Request) -> web.Response:
        body = '{"error": {"message": "model \\"qwen\\" is not loaded", "code": "model_not_found"}}'
        return web.Response(text=body, headers={"Content-Type": ctype})

    server.handler = refuses
    err, seen = await collect_error(client(server.url, sleep=Sleeps()))
    assert isinstance(err, StatusError) and err.kind == "http" and err.status == 200
    assert 'the server says: model "qwen" is not loaded (model_not_found)' in str(err)
    assert len(server.requests) == 1 and seen == []


async def test_json_that_is_not_a_completion_is_a_protocol_error(server: Server) -> None:
    async def other(request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "qwen"}]})

    server.handler = other
    err, _ = await collect_error(client(server.url))
    assert isinstance(err, NotAStream) and err.kind == "protocol" and err.status == 200
    assert "a JSON body that is not an openai-chat answer" in str(err)
    assert "is --wire right" in str(err) and len(server.requests) == 1


async def test_empty_200_body_is_a_disconnect(server: Server) -> None:
    async def empty(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write_eof()
        return resp

    server.handler = empty
    items = await collect(client(server.url))
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
    items = await collect(client(server.url))
    assert text_of(items) == "ab" and items[-1] == end("stop")


async def test_sse_parse_is_the_same_wherever_the_reads_split() -> None:
    """Every split point of a body with CRLF, CR, LF, a BOM, a comment, a multi-line
    ``data`` and a UTF-8 character gives the same events (no server: pure parsing)."""
    from frontier.app.model.transport import _sse_events

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
    items = await collect(client(server.url))
    assert text_of(items) == big + "!"


async def test_eof_after_finish_reason_without_done_stands(server: Server) -> None:
    """Only ``[DONE]`` (or usage) was lost: the finish_reason says the content is complete."""

    async def no_done(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(sse(delta("ok")) + sse(finish("tool_calls")))
        await resp.write_eof()
        return resp

    server.handler = no_done
    items = await collect(client(server.url))
    assert items[-1] == end("tool_calls")


# --------------------------------------------------------------------------- request body


async def test_n_above_one_is_never_requested(server: Server) -> None:
    """The loop reads one choice; n > 1 would splice several answers into one text.
    (The chat wire drops ``n`` and ``stream`` from ``extra`` silently now: no caller puts
    them there, so the old warnings are gone.)"""
    server.handler = ok_stream
    request = ModelRequest("", REQUEST.items, extra={"n": 3, "temperature": 0.2, "stream": False})
    items = await collect(client(server.url), request)
    body = server.requests[0]
    assert "n" not in body and body["stream"] is True and body["temperature"] == 0.2
    assert text_of(items) == "Hello"


# --------------------------------------------------------------------------- hung servers


async def test_server_that_never_sends_headers_gives_up_after_one_retry(server: Server) -> None:
    """Accepts the request, never answers: first_byte_timeout per attempt, one retry
    (max_retries=1 here), then a ``timeout`` error saying which setting to raise."""

    async def hangs(request: web.Request) -> web.StreamResponse:
        await server.release.wait()
        return web.Response(status=204)

    server.handler = hangs
    sleeps = Sleeps()
    model = client(
        server.url,
        timeouts=Timeouts(connect=30.0, first_byte=0.2, idle=5.0),
        max_retries=1,
        sleep=sleeps,
    )
    began = time.monotonic()
    err, seen = await collect_error(model)
    # The first-byte clock starts when the request is sent, not when connecting began
    # (connect + first byte would be 2 × 30.2 s here).
    assert time.monotonic() - began < 30.0
    assert isinstance(err, NoFirstByte)
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
    model = client(
        server.url, timeouts=Timeouts(first_byte=0.2, idle=5.0), max_retries=0, sleep=Sleeps()
    )
    err, seen = await collect_error(model)
    assert isinstance(err, NoFirstByte)
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
    model = client(server.url, timeouts=Timeouts(first_byte=5.0, idle=0.1))
    items = await collect(model)
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
    model = client(server.url, backoff_base=20.0, sleep=sleep, clock=clock)
    err, _ = await collect_error(model)
    assert len(server.requests) == 3 and sleeps == [20.0, 30.0]
    assert err.kind == "http" and "gave up after 3 attempts in 50 s" in str(err)


async def test_retry_after_past_the_window_fails_with_the_figure(server: Server) -> None:
    async def later(request: web.Request) -> web.StreamResponse:
        return web.Response(status=429, headers={"Retry-After": "75"})

    server.handler = later
    sleeps = Sleeps()
    err, _ = await collect_error(client(server.url, sleep=sleeps))
    assert err.kind == "http" and err.status == 429
    assert "asks to wait 75 s" in str(err) and "60 s retry window" in str(err)
    assert sleeps == [] and len(server.requests) == 1


def test_default_timeouts_give_up_within_two_minutes() -> None:
    """The arithmetic of docs/decisions-providers.md: the last attempt starts within the
    60 s window and lasts at most connect (10 s) + first byte (45 s)."""
    from frontier.app.config import Config

    model = client("http://127.0.0.1:9/v1")
    assert model.worst_case_wait == model.timeouts.worst_case_wait == 60 + 10 + 45 < 120
    assert model.timeouts == Timeouts()
    config = Config()  # unset: the model's defaults (tests/test_config_timeouts.py)
    assert config.connect_timeout == model.timeouts.connect
    assert config.first_byte_timeout is None and config.idle_timeout is None


# --------------------------------------------------------------------------- wire adjustments


async def test_529_overloaded_is_retried_like_a_5xx(server: Server) -> None:
    """Anthropic's "overloaded" status: worth another attempt, on every wire."""
    calls = 0

    async def overloaded(request: web.Request) -> web.StreamResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            return web.json_response({"error": {"message": "overloaded"}}, status=529)
        return await ok_stream(request)

    server.handler = overloaded
    sleeps = Sleeps()
    items = await collect(client(server.url, sleep=sleeps))
    retries = [i for i in items if isinstance(i, Retry)]
    assert [(r.attempt, r.delay) for r in retries] == [(1, 0.5)] and sleeps == [0.5]
    assert "HTTP 529" in retries[0].reason and "overloaded" in retries[0].reason
    assert text_of(items) == "Hello" and len(server.requests) == 2


async def test_a_server_rejecting_stream_options_is_asked_again_without_it(
    server: Server,
) -> None:
    """An older server refuses ``stream_options`` (400 naming it): resent at once without
    the usage option, and never sent again by that client."""

    async def old_server(request: web.Request) -> web.StreamResponse:
        if "stream_options" in server.requests[-1]:
            return web.json_response(
                {"error": {"message": "Unrecognized request argument: stream_options"}},
                status=400,
            )
        return await ok_stream(request)

    server.handler = old_server
    sleeps = Sleeps()
    model = client(server.url, sleep=sleeps)
    first = [i async for i in model.stream(REQUEST)]
    second = [i async for i in model.stream(REQUEST)]
    await model.aclose()
    assert ["stream_options" in b for b in server.requests] == [True, False, False]
    retries = [i for i in first if isinstance(i, Retry)]
    assert len(retries) == 1 and retries[0].delay == 0.0 and sleeps == []
    assert "rejected stream_options" in retries[0].reason
    assert text_of(first) == text_of(second) == "Hello"
    assert first[-1] == second[-1] == end("stop", USED)
    assert not any(isinstance(i, Retry) for i in second)


async def test_a_model_refusing_max_tokens_is_asked_again_with_max_completion_tokens(
    server: Server,
) -> None:
    """OpenAI's reasoning models over Chat Completions refuse ``max_tokens`` (a compaction
    always sends a cap, so a full session of such a model could not be compacted)."""

    async def reasoning_model(request: web.Request) -> web.StreamResponse:
        if "max_tokens" in server.requests[-1]:
            message = (
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead."
            )
            error = {"message": message, "type": "invalid_request_error", "param": "max_tokens"}
            return web.json_response({"error": error}, status=400)
        return await ok_stream(request)

    server.handler = reasoning_model
    model = client(server.url, sleep=Sleeps(), max_tokens=4000)
    first = [i async for i in model.stream(REQUEST)]
    second = [i async for i in model.stream(REQUEST)]
    await model.aclose()
    caps = [(b.get("max_tokens"), b.get("max_completion_tokens")) for b in server.requests]
    assert caps == [(4000, None), (None, 4000), (None, 4000)]
    (retry,) = [i for i in first if isinstance(i, Retry)]
    assert retry.reason.startswith("the model refused max_tokens")
    assert text_of(first) == text_of(second) == "Hello"


async def test_a_400_that_does_not_name_stream_options_is_final(server: Server) -> None:
    async def refuse(request: web.Request) -> web.StreamResponse:
        return web.json_response({"error": {"message": "bad temperature"}}, status=400)

    server.handler = refuse
    err, seen = await collect_error(client(server.url, sleep=Sleeps()))
    assert isinstance(err, StatusError) and err.status == 400 and err.overflow is None
    assert len(server.requests) == 1 and seen == []
    assert "stream_options" in server.requests[0]


async def test_an_overflow_400_carries_the_window(server: Server) -> None:
    """The server's "longer than the context window": the error says so, with numbers."""

    async def too_long(request: web.Request) -> web.StreamResponse:
        error = {
            "code": "context_length_exceeded",
            "message": "This model's maximum context length is 8192 tokens. However, your "
            "messages resulted in 9000 tokens.",
        }
        return web.json_response({"error": error}, status=400)

    server.handler = too_long
    err, _ = await collect_error(client(server.url, sleep=Sleeps()))
    assert isinstance(err, StatusError) and err.overflow is not None
    assert (err.overflow.window, err.overflow.requested) == (8192, 9000)


# --------------------------------------------------------------------------- after [DONE]


async def test_a_stream_held_open_after_done_ends_at_done(server: Server) -> None:
    """``[DONE]`` ends the response even when the server keeps the body open: the rest
    is drained briefly, never waited out to the idle timeout."""

    async def lingers(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(HELLO_BODY)
        await server.release.wait()
        return resp

    server.handler = lingers
    began = time.monotonic()
    items = await collect(client(server.url, timeouts=Timeouts(idle=20.0)))
    assert time.monotonic() - began < 10.0
    assert text_of(items) == "Hello" and items[-1] == end("stop", USED)
    assert not any(e.raw.strip() == "[DONE]" for e in wire_events(items))


async def test_the_end_of_the_body_is_drained_so_the_connection_is_reused(
    server: Server,
) -> None:
    """What follows ``[DONE]`` (here the end of the chunked body, a little later) is read,
    so the keep-alive connection goes back to the pool for the next request."""

    async def late_eof(request: web.Request) -> web.StreamResponse:
        resp = await start_sse(request)
        await resp.write(HELLO_BODY)
        await asyncio.sleep(0.1)
        await resp.write(b": trailing comment\n\n")
        await resp.write_eof()
        return resp

    server.handler = late_eof
    model = client(server.url)
    first = [i async for i in model.stream(REQUEST)]
    second = [i async for i in model.stream(REQUEST)]
    await model.aclose()
    assert first[-1] == second[-1] == end("stop", USED)
    assert server.connections[0] == server.connections[1]


# --------------------------------------------------------------------------- secrets


KEY = "sk-transport-SECRET-0123456789"


async def test_the_key_is_never_quoted_in_retries_errors_or_stream_errors(
    server: Server,
) -> None:
    """A server that echoes the key (in an error body, in an error event): every text the
    transport makes of the server's words is scrubbed."""
    calls = 0

    async def echoes(request: web.Request) -> web.StreamResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            return web.Response(status=500, text=f"upstream said Authorization: Bearer {KEY}")
        resp = await start_sse(request)
        await resp.write(sse(delta("partial")))
        await resp.write(sse({"error": {"message": f"key {KEY} is over quota"}}))
        await resp.write_eof()
        return resp

    server.handler = echoes
    items = await collect(client(server.url, api_key=KEY, sleep=Sleeps()))
    (retry,) = [i for i in items if isinstance(i, Retry)]
    assert KEY not in retry.reason and "HTTP 500" in retry.reason
    last = items[-1]
    assert isinstance(last, StreamEnd) and last.finish_reason == "error"
    assert last.error is not None and "over quota" in last.error and KEY not in last.error

    async def refuses(request: web.Request) -> web.StreamResponse:
        return web.Response(status=403, text=f"key {KEY} revoked")

    server.handler = refuses
    err, _ = await collect_error(client(server.url, api_key=KEY, sleep=Sleeps()))
    assert isinstance(err, AuthRefused) and "revoked" in str(err)
    assert KEY not in str(err) and KEY not in repr(err)
    assert KEY not in repr(client(server.url, api_key=KEY))


async def test_credentials_in_the_base_url_are_never_shown(server: Server) -> None:
    password = "url-pass-SECRET-42"
    url = server.url.replace("http://", f"http://user:{password}@")

    async def missing(request: web.Request) -> web.StreamResponse:
        return web.Response(status=404, text=f"no such route (you sent {password})")

    server.handler = missing
    model = client(url, sleep=Sleeps())
    assert password not in model.url and password not in repr(model)
    assert model.url == server.url.replace("http://", "http://***@") + "/chat/completions"
    err, _ = await collect_error(model)
    assert isinstance(err, EndpointNotFound)
    assert password not in str(err) and "***@" in str(err) and password not in err.url


async def test_a_providers_headers_go_with_every_request_and_never_into_a_message(
    server: Server,
) -> None:
    """Azure OpenAI's ``api-key``, a gateway's token (``[providers.NAME] headers``)."""
    token = "gw-token-5c2b9e71d04f"

    async def refuse(request: web.Request) -> web.StreamResponse:
        return web.json_response({"error": {"message": f"bad api-key {token}"}}, status=401)

    server.handler = ok_stream
    model = client(server.url, headers={"api-key": token, "X-Team": "core"})
    assert text_of([i async for i in model.stream(REQUEST)]) == "Hello"
    server.handler = refuse
    err, _ = await collect_error(model)
    await model.aclose()
    assert [(h.get("api-key"), h.get("X-Team")) for h in server.headers] == [(token, "core")] * 2
    assert token not in str(err)


async def test_a_headers_plain_words_stay_in_what_the_model_is_sent(server: Server) -> None:
    """OpenRouter's ``X-Title: Frontier`` is no secret: taken for one, the word went to the
    model as [REDACTED] wherever the person or a file said it. A credential's header and
    a token-shaped value still never go."""
    token = "gw-token-5c2b9e71d04f"
    server.handler = ok_stream
    plain = {
        "X-Title": "Frontier",
        "HTTP-Referer": "http://localhost:3000",
        "anthropic-version": "2023-06-01",
        "X-Region": "us-east-1",
        "User-Agent": "frontier/0.12.3",
    }
    model = client(server.url, headers={**plain, "api-key": "plainsecretword", "X-Gateway": token})
    words = " ".join(plain.values())
    said = ModelRequest(system="", items=(UserText(f"{words}: plainsecretword {token}"),))
    assert text_of([i async for i in model.stream(said)]) == "Hello"
    await model.aclose()
    (sent,) = server.requests
    assert sent["messages"][-1]["content"] == f"{words}: [REDACTED] [REDACTED]"


@pytest.mark.parametrize(
    ("wire", "base", "url"),
    [
        (
            "anthropic-messages",
            "https://api.anthropic.com/v1",
            "https://api.anthropic.com/v1/messages",
        ),
        (
            "anthropic-messages",
            "https://api.anthropic.com",
            "https://api.anthropic.com/v1/messages",
        ),
        (
            "anthropic-messages",
            "https://api.deepseek.com/anthropic/",
            "https://api.deepseek.com/anthropic/v1/messages",
        ),
        ("anthropic-messages", "http://127.0.0.1:4000", "http://127.0.0.1:4000/v1/messages"),
        ("openai-chat", "https://api.deepseek.com", "https://api.deepseek.com/chat/completions"),
        ("openai-responses", "https://api.openai.com/v1", "https://api.openai.com/v1/responses"),
    ],
)
def test_a_base_url_given_as_the_vendors_sdk_takes_it_reaches_the_endpoint(
    wire: str, base: str, url: str
) -> None:
    """``ANTHROPIC_BASE_URL`` (Claude Code, the SDK) and the Anthropic-compatible base URLs
    DeepSeek, Kimi and z.ai document come without ``/v1``, which the SDK adds: Frontier
    posted to ``…/anthropic/messages`` and got a 404."""
    assert ModelClient(codec(wire), base, "m").url == url


@pytest.mark.parametrize(
    ("wire", "endpoint"),
    [
        ("openai-chat", "/chat/completions"),
        ("anthropic-messages", "/messages"),
        ("openai-responses", "/chat/completions/"),  # another wire's endpoint, a slash after
    ],
)
async def test_a_404_for_a_base_url_that_is_an_endpoint_says_which_to_give(
    server: Server, wire: str, endpoint: str
) -> None:
    """A URL pasted from an API reference (``…/v1/chat/completions``) went to
    ``…/chat/completions/chat/completions``, and the hint said only "it usually ends in
    /v1" (it does, nearly)."""

    async def missing(request: web.Request) -> web.StreamResponse:
        return web.json_response({"error": {"message": "not found"}}, status=404)

    server.handler = missing
    model = ModelClient(codec(wire), server.url + endpoint, "m", "k", sleep=Sleeps())
    err, _ = await collect_error(model)
    assert isinstance(err, EndpointNotFound)
    said = endpoint.strip("/")
    assert f"it ends in /{said}, an endpoint's own path" in err.message
    assert f"give {server.url}" in err.message and "usually ends in /v1" not in err.message


async def test_a_404_on_the_messages_api_does_not_ask_for_a_v1_it_adds(server: Server) -> None:
    """On anthropic-messages the ``/v1`` is added to a base URL without it: the hint says
    so rather than "it usually ends in /v1" (the person would add one it already has)."""

    async def missing(request: web.Request) -> web.StreamResponse:
        return web.json_response({"error": {"message": "not found"}}, status=404)

    server.handler = missing
    base = server.url.removesuffix("/v1")
    model = ModelClient(codec("anthropic-messages"), base, "m", "k", sleep=Sleeps())
    err, _ = await collect_error(model)
    assert isinstance(err, EndpointNotFound)
    assert "the /v1 is added when it does not end in it" in err.message
    assert "usually ends in /v1" not in err.message
    err, _ = await collect_error(client(server.url, sleep=Sleeps()))
    assert "check --base-url (it usually ends in /v1)" in err.message
