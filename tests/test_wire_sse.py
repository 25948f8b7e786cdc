"""The one SSE reader (``app/wire/sse.py``): both of its shapes agree, and the provider
ends a stream at the decoder's line bound instead of buffering without end."""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from frontier.app.providers import openai
from frontier.app.providers.openai import Chunk, OpenAIProvider, StreamEnd
from frontier.app.wire.sse import SSEDecoder, encode_sse

BODY = (
    "\ufeff: keep-alive\r\n\r\n"
    "event: error\rdata: a\r\ndata: é✓\n\n"
    "event: ignored\n\n"  # a blank line with no data resets the name
    "data:b\r\rid: 1\nretry: 5\nnonsense\n\n"
    "data: cut at EOF"
).encode()
EVENTS = [("error", "a\né✓"), ("message", "b")]


def test_feed_and_feed_events_agree_wherever_the_body_is_split() -> None:
    for cut in range(len(BODY) + 1):
        named, plain = SSEDecoder(), SSEDecoder()
        got = named.feed_events(BODY[:cut]) + named.feed_events(BODY[cut:])
        data = plain.feed(BODY[:cut]) + plain.feed(BODY[cut:])
        assert got == EVENTS, cut
        assert data == [d for _, d in EVENTS], cut
        assert named.comments == plain.comments == 1


def test_encode_sse_round_trips_multi_line_data() -> None:
    items = ["one", "two\nlines", "", "[DONE]"]  # "data:" alone is an event with empty data
    assert SSEDecoder().feed(encode_sse(items)) == items


class _Body(httpx.AsyncByteStream):
    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            yield part


class _Transport(httpx.AsyncBaseTransport):
    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=_Body(self.parts)
        )


async def test_the_provider_ends_a_stream_at_an_overlong_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(openai, "SSEDecoder", functools.partial(SSEDecoder, max_line=1000))
    ok = json.dumps({"choices": [{"index": 0, "delta": {"content": "hi"}}]})
    parts = [encode_sse([ok]), b"data: " + b"x" * 600, b"x" * 600, encode_sse(["[DONE]"])]
    provider = OpenAIProvider("http://sse.invalid/v1", "m", transport=_Transport(parts))
    items = [i async for i in provider.stream([{"role": "user", "content": "hi"}])]
    await provider.aclose()
    assert [c.data["choices"][0]["delta"]["content"] for c in items if isinstance(c, Chunk)] == [
        "hi"
    ]
    end = items[-1]
    assert isinstance(end, StreamEnd) and end.finish_reason == "disconnect"
    assert "passed 1,000 bytes" in end.detail
