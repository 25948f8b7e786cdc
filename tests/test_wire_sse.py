"""The one SSE reader (``app/wire/sse.py``): both of its shapes agree, and the transport
ends a stream at the decoder's line bound instead of buffering without end."""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.model import transport
from frontier.app.model.conversation import UserText
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd, TextDelta, WireEvent
from frontier.app.model.transport import ModelClient
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


SSE_BYTES = st.lists(
    st.sampled_from(
        [
            b"data: ",
            b"event: e",
            b":c",
            b"x",
            b"\xc3\xa9",
            b"\n",
            b"\r",
            b"\r\n",
            b"\n\n",
            b"\xef\xbb\xbf",
            b"data:{}",
        ]
    ),
    max_size=30,
).map(b"".join)


@given(SSE_BYTES, st.integers(0, 40), st.integers(0, 12))
def test_an_inert_run_changes_nothing_whether_fed_whole_or_a_byte_at_a_time(
    body: bytes, max_line: int, fed: int
) -> None:
    """``check``'s byte-by-byte pass feeds an inert run at once: sound only if every byte
    of it alone returns nothing and the reader then reads the rest as if fed bytewise."""
    fed = min(fed, len(body))
    whole, bytewise = SSEDecoder(max_line), SSEDecoder(max_line)
    before = whole.feed_events(body[:fed])
    assert bytewise.feed_events(body[:fed]) == before
    run = whole.inert(body, fed)
    assert 0 <= run <= len(body) - fed
    assert whole.feed_events(body[fed : fed + run]) == []
    for i in range(fed, fed + run):
        assert bytewise.feed_events(body[i : i + 1]) == []
    rest = body[fed + run :]
    assert whole.feed_events(rest) == bytewise.feed_events(rest)
    assert whole.too_long == bytewise.too_long and whole.comments == bytewise.comments


def test_an_inert_run_ends_before_a_line_end_and_within_the_line_limit() -> None:
    decoder = SSEDecoder(max_line=10)
    assert decoder.inert(b"data: 1234\n", 0) == 0  # nothing read yet: the BOM is undecided
    decoder.feed(b"dat")
    assert decoder.inert(b"data: 1234\n", 3) == 7  # the rest of the limit: 10 - 3
    assert decoder.inert(b"a: b\r\n", 0) == 4
    assert decoder.inert(b"\n", 0) == 0


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


async def test_the_transport_ends_a_stream_at_an_overlong_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(transport, "SSEDecoder", functools.partial(SSEDecoder, max_line=1000))
    ok = json.dumps({"choices": [{"index": 0, "delta": {"content": "hi"}}]})
    parts = [encode_sse([ok]), b"data: " + b"x" * 600, b"x" * 600, encode_sse(["[DONE]"])]
    model = ModelClient(
        codec("openai-chat"), "http://sse.invalid/v1", "m", transport=_Transport(parts)
    )
    items = [i async for i in model.stream(ModelRequest("", (UserText("hi"),)))]
    await model.aclose()
    assert [(e.raw, e.deltas) for e in items if isinstance(e, WireEvent)] == [
        (ok, (TextDelta("hi"),))
    ]
    end = items[-1]
    assert isinstance(end, StreamEnd) and end.finish_reason == "disconnect"
    assert "passed 1,000 bytes" in end.detail
