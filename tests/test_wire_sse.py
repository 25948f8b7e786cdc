"""The one SSE reader (``app/wire/sse.py``): both of its shapes agree, and the transport
ends a stream at the decoder's line bound instead of buffering without end."""

from __future__ import annotations

import functools
import itertools
import json
import re
import tracemalloc
from collections.abc import AsyncIterator

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app.model import transport
from frontier.app.model.conversation import UserText
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd, TextDelta, WireEvent
from frontier.app.model.transport import ModelClient
from frontier.app.wire import sse
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


def _spec_events(body: bytes) -> tuple[list[tuple[str, str]], int]:
    """The events and comment lines of ``body`` read by the module docstring's rules, one
    line at a time and whole: what any chunking must give."""
    body = body.removeprefix(b"\xef\xbb\xbf")
    *lines, _unfinished = re.split(rb"\r\n|\r|\n", body)
    events: list[tuple[str, str]] = []
    data: list[str] = []
    name, comments = "", 0
    for line in lines:
        if not line:
            if data:
                events.append((name or "message", "\n".join(data)))
            data, name = [], ""
        elif line.startswith(b":"):
            comments += 1
        else:
            field, _, value = line.partition(b":")
            value = value.removeprefix(b" ")
            if field == b"data":
                data.append(value.decode("utf-8", "replace"))
            elif field == b"event":
                name = value.decode("utf-8", "replace")
    return events, comments


BLANK_RUNS = st.lists(
    st.one_of(
        st.sampled_from([b"data: ", b"event: e", b":c", b"x", b"data:{}", b"\xef\xbb\xbf"]),
        st.lists(st.sampled_from([b"\n", b"\r", b"\r\n"]), max_size=12).map(b"".join),
    ),
    max_size=30,
).map(b"".join)


@settings(max_examples=300)
@given(BLANK_RUNS, st.lists(st.integers(0, 200), max_size=6), st.integers(1, 9))
def test_runs_of_blank_lines_read_as_the_spec_says_at_any_chunking(
    body: bytes, cuts: list[int], window: int
) -> None:
    """Runs of line ends (LF, CR, CRLF, split anywhere, a CR at a window's end) read as the
    rules say, line by line, fed whole or in pieces, whatever the window a chunk is read in
    and whether its runs are collapsed (every window dense) or not."""
    want = _spec_events(body)
    bounds = [0, *sorted(min(c, len(body)) for c in cuts), len(body)]
    for dense in (sse.DENSE, 10**9):
        saved = sse.WINDOW, sse.DENSE
        sse.WINDOW, sse.DENSE = window, dense
        try:
            whole, pieces = SSEDecoder(), SSEDecoder()
            got_whole = whole.feed_events(body)
            got_pieces = [
                e for a, b in itertools.pairwise(bounds) for e in pieces.feed_events(body[a:b])
            ]
        finally:
            sse.WINDOW, sse.DENSE = saved
        assert (got_whole, whole.comments) == want
        assert (got_pieces, pieces.comments) == want


def test_a_body_of_blank_lines_is_read_in_a_few_lines_and_bounded_memory() -> None:
    """64 MiB of bare newlines was 64 million lines read one by one (~12 s), and fed at once
    a list of 64 million: now each run reads as the blank line it amounts to, and a chunk
    is split :data:`sse.WINDOW` bytes at a time."""
    decoder = SSEDecoder()
    lines: list[bytes] = []
    read_line = decoder._line

    def counted(line: bytes, out: list[object]) -> None:
        lines.append(line)
        read_line(line, out)

    decoder._line = counted  # type: ignore[method-assign]
    body = b"data: 1\n" + b"\n" * (4 << 20) + b"data: 2\r\n" + b"\r\n" * (2 << 20) + b"\r"
    tracemalloc.start()
    try:
        got = decoder.feed_events(body)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == [("message", "1"), ("message", "2")]
    assert len(lines) < 10_000  # a few a window of 64 KiB, not 8 million
    assert peak < 8 << 20  # the body is 8 MiB; a list of its lines was 64 MB


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
