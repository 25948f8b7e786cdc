"""Keep-alives move no deadline (issue 21, item 11), on every wire.

A server that answers 200 and then sends only keep-alive comments, Anthropic ``ping``
events, Responses ``in_progress`` events or Chat chunks with an empty, role-only or
other-choice delta is alive but not answering. ``first_byte_timeout`` runs until the
first *content-bearing* event and ``idle_timeout`` between such events, so the stream
ends ``disconnect`` within the configured timeouts, with a detail that says so, instead
of being waited on forever. Each server below keeps sending forever (until the client
goes away); each test waits for the end with a bounding timeout and never sleeps for
timing.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from aiohttp import web
from wire_scripts import WIRES, Reply, WireServer, serve_wire, sse_data, sse_event

from frontier.app.events import Retry
from frontier.app.model.conversation import UserText
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd, WireEvent, text_of
from frontier.app.model.transport import ModelClient, Timeouts

REQUEST = ModelRequest(system="", items=(UserText("hi"),))
FIRST = 0.4
IDLE = 0.3
BOUND = 10.0
"""The longest a stream may take to end here: past it the test fails."""
KEEP_ALIVE_GAP = 0.02
"""Seconds between the servers' keep-alives: far below both timeouts (a server whose
keep-alives moved the deadline would never be given up on)."""


def _chat_chunk(delta: dict[str, Any], index: int = 0) -> bytes:
    choice = {"index": index, "delta": delta, "finish_reason": None}
    return sse_data({"object": "chat.completion.chunk", "choices": [choice]})


def _responses_event(kind: str, seq: int, **fields: Any) -> bytes:
    return sse_event(kind, {"type": kind, "sequence_number": seq, **fields})


def _anthropic_event(kind: str, **fields: Any) -> bytes:
    return sse_event(kind, {"type": kind, **fields})


RESPONSE = {"id": "resp_1", "object": "response", "model": "m", "output": []}
MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": [],
    "stop_reason": None,
}
"""A ``message_start`` without usage: it carries no content."""

KEEP_ALIVES: dict[str, list[bytes]] = {
    "openai-chat": [
        b": keep-alive\n\n",
        _chat_chunk({}),
        _chat_chunk({"role": "assistant"}),
        _chat_chunk({"content": ""}),
        _chat_chunk({"content": "other choice"}, index=1),  # Ignored: only choice 0 is read
    ],
    "openai-responses": [
        b": keep-alive\n\n",
        _responses_event("response.in_progress", 1, response={**RESPONSE, "status": "in_progress"}),
    ],
    "anthropic-messages": [b": keep-alive\n\n", _anthropic_event("ping")],
}
"""What each wire's server repeats: comments, empty deltas and events without content."""

OPENING: dict[str, list[bytes]] = {
    "openai-chat": [_chat_chunk({"role": "assistant", "content": ""})],
    "openai-responses": [
        _responses_event("response.created", 0, response={**RESPONSE, "status": "in_progress"})
    ],
    "anthropic-messages": [_anthropic_event("message_start", message=MESSAGE)],
}
"""How each wire's stream opens (no content yet)."""

TEXT: dict[str, list[bytes]] = {
    "openai-chat": [_chat_chunk({"content": "partial"})],
    "openai-responses": [
        _responses_event(
            "response.output_item.added",
            2,
            output_index=0,
            item={"id": "msg_0", "type": "message", "role": "assistant", "content": []},
        ),
        _responses_event(
            "response.output_text.delta",
            3,
            item_id="msg_0",
            output_index=0,
            content_index=0,
            delta="partial",
        ),
    ],
    "anthropic-messages": [
        _anthropic_event(
            "content_block_start", index=0, content_block={"type": "text", "text": ""}
        ),
        _anthropic_event(
            "content_block_delta", index=0, delta={"type": "text_delta", "text": "partial"}
        ),
    ],
}
"""One piece of assistant text, as each wire streams it."""

ENDING: dict[str, list[bytes]] = {
    "openai-chat": [
        sse_data({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        b"data: [DONE]\n\n",
    ],
    "openai-responses": [
        _responses_event("response.completed", 9, response={**RESPONSE, "status": "completed"})
    ],
    "anthropic-messages": [
        _anthropic_event("message_delta", delta={"stop_reason": "end_turn"}),
        _anthropic_event("message_stop"),
    ],
}


def keeps_alive(before: list[bytes], *, gap: float = KEEP_ALIVE_GAP) -> Reply:
    """Answer 200, send ``before``, then the wire's keep-alives forever (``gap`` seconds
    apart; 0: as fast as the connection takes them) until the client goes away."""

    async def reply(server: WireServer, request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        try:
            for chunk in before:
                await resp.write(chunk)
            while request.transport is not None and not request.transport.is_closing():
                for chunk in KEEP_ALIVES[server.wire]:
                    await resp.write(chunk)
                await asyncio.sleep(gap)
        except ConnectionError:
            return resp
        return resp

    return reply


def interleaved(parts: list[list[bytes]]) -> Reply:
    """Answer 200 with ``parts``, the wire's keep-alives between every two of them."""

    async def reply(server: WireServer, request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for part in parts:
            for chunk in [*part, *KEEP_ALIVES[server.wire]]:
                await resp.write(chunk)
        await resp.write_eof()
        return resp

    return reply


@pytest.fixture(params=WIRES)
async def server(request: pytest.FixtureRequest) -> AsyncIterator[WireServer]:
    srv = WireServer(request.param)
    async with serve_wire(srv):
        yield srv


def client(server: WireServer, **timeouts: float) -> ModelClient:
    return ModelClient(
        codec(server.wire),
        server.url,
        "m",
        timeouts=Timeouts(**{"first_byte": FIRST, "idle": IDLE, **timeouts}),
        max_retries=0,
    )


async def collect(model: ModelClient) -> tuple[list[WireEvent | Retry | StreamEnd], float]:
    """Every item of one response, and the seconds it took; fails past ``BOUND``."""
    began = time.monotonic()
    items: list[WireEvent | Retry | StreamEnd] = []
    async with model, asyncio.timeout(BOUND):
        async for item in model.stream(REQUEST):
            items.append(item)
    return items, time.monotonic() - began


def text(items: list[WireEvent | Retry | StreamEnd]) -> str:
    return "".join(text_of(i.deltas) for i in items if isinstance(i, WireEvent))


def last(items: list[WireEvent | Retry | StreamEnd]) -> StreamEnd:
    end = items[-1]
    assert isinstance(end, StreamEnd)
    return end


async def test_only_keep_alives_from_the_start_end_at_the_first_byte_timeout(
    server: WireServer,
) -> None:
    """200, the stream's opening, then keep-alives forever: nothing of an answer ever
    comes, so ``first_byte_timeout`` ends it (never re-requested: bytes did arrive)."""
    server.answer(keeps_alive(OPENING[server.wire]))
    items, took = await collect(client(server))
    end = last(items)
    assert end.finish_reason == "disconnect"
    assert f"no content within {FIRST:g} s of sending the request (first_byte_timeout)" in (
        end.detail
    )
    assert "only keep-alives or empty events" in end.detail
    assert took >= FIRST
    assert len(server.requests) == 1 and not any(isinstance(i, Retry) for i in items)


async def test_keep_alives_after_content_end_at_the_idle_timeout(server: WireServer) -> None:
    """Text, then keep-alives forever: the idle deadline counts from the text, and the
    stream ends with what arrived and a detail naming ``idle_timeout``."""
    server.answer(keeps_alive([*OPENING[server.wire], *TEXT[server.wire]]))
    items, took = await collect(client(server, first_byte=5.0))
    end = last(items)
    assert text(items) == "partial"
    assert end.finish_reason == "disconnect"
    assert f"no content for {IDLE:g} s (idle_timeout)" in end.detail
    assert "only keep-alives or empty events" in end.detail
    assert took >= IDLE


async def test_a_flood_of_keep_alives_still_ends(server: WireServer) -> None:
    """Keep-alives as fast as the connection takes them: every read completes at once,
    so the deadline must be checked between reads, not only bound each one."""
    server.answer(keeps_alive(OPENING[server.wire], gap=0))
    items, took = await collect(client(server))
    end = last(items)
    assert end.finish_reason == "disconnect" and "first_byte_timeout" in end.detail
    assert took >= FIRST


async def test_keep_alives_between_content_are_read_and_harmless(server: WireServer) -> None:
    """A live answer with keep-alives between its events reads as it would without
    them: the same text and a clean end."""
    parts = [OPENING[server.wire], TEXT[server.wire], ENDING[server.wire]]
    server.answer(interleaved(parts))
    items, _ = await collect(client(server, first_byte=5.0, idle=5.0))
    assert text(items) == "partial"
    assert last(items).finish_reason == "stop"


async def test_a_silent_body_is_still_a_read_stall(server: WireServer) -> None:
    """Text, then nothing at all: the old wording (a read stall), not keep-alives."""

    async def stalls(srv: WireServer, request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for chunk in [*OPENING[srv.wire], *TEXT[srv.wire]]:
            await resp.write(chunk)
        while request.transport is not None and not request.transport.is_closing():
            await asyncio.sleep(KEEP_ALIVE_GAP)  # holds the connection open, sends nothing
        return resp

    server.answer(stalls)
    items, _ = await collect(client(server, first_byte=5.0))
    end = last(items)
    assert text(items) == "partial"
    assert end.finish_reason == "disconnect"
    assert f"no data for {IDLE:g} s (idle_timeout: a read stall)" == end.detail


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("comment", lambda: b": ping\n\n"),
        ("empty delta", lambda: _chat_chunk({})),
        ("role only", lambda: _chat_chunk({"role": "assistant"})),
        ("too deep to read", lambda: b"data: " + b"[" * 100 + b"]" * 100 + b"\n\n"),
    ],
)
async def test_a_chat_server_looping_one_kind_of_nothing(
    name: str, make: Callable[[], bytes]
) -> None:
    """Each kind of Chat keep-alive on its own (the issue's empty delta is
    ``{"choices":[{"delta":{}}]}``), with the issue's 2 s timeouts scaled down. An event
    nested too deep to read (``Malformed``) is no answer either: the text modes drop it."""
    srv = WireServer("openai-chat")

    async def loops(server: WireServer, request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        try:
            while request.transport is not None and not request.transport.is_closing():
                await resp.write(make())
                await asyncio.sleep(KEEP_ALIVE_GAP)
        except ConnectionError:
            return resp
        return resp

    srv.answer(loops)
    async with serve_wire(srv):
        items, took = await collect(client(srv))
    end = last(items)
    assert end.finish_reason == "disconnect", name
    assert "first_byte_timeout" in end.detail and "keep-alives" in end.detail
    assert took >= FIRST
    body = json.dumps([i.raw for i in items if isinstance(i, WireEvent)])
    assert "partial" not in body


class _EndlessKeepAlives(httpx.AsyncByteStream):
    """An in-process body that always has a keep-alive ready (no read ever waits), for
    at most ``BOUND`` seconds of wall time: the shape that defeats a deadline which only
    bounds each read, since no read gives the event loop a turn to fire it."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        began = time.monotonic()
        while time.monotonic() - began < BOUND:
            yield b": keep-alive\n\n"


class _KeepAliveTransport(httpx.AsyncBaseTransport):
    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"Content-Type": "text/event-stream"}, stream=_EndlessKeepAlives()
        )


async def test_keep_alives_that_never_make_a_read_wait_still_end() -> None:
    """The deadline is checked between reads too: with it only bounding each read, this
    body would run its ``BOUND`` seconds and end as a body without a finish."""
    model = ModelClient(
        codec("openai-chat"),
        "http://in-process/v1",
        "m",
        # in-process: no send is reported, so the first deadline is connect + first byte
        timeouts=Timeouts(connect=0.1, first_byte=FIRST, idle=IDLE),
        transport=_KeepAliveTransport(),
        max_retries=0,
    )
    items, took = await collect(model)
    end = last(items)
    assert end.finish_reason == "disconnect"
    assert "first_byte_timeout" in end.detail and "keep-alives" in end.detail
    assert FIRST <= took < BOUND
