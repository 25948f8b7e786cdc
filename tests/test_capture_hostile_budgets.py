"""Captures built to cost: credentials repeated on every request (one shared, deduplicated
tuple, not a copy per response), gzip bodies that unpack to far more than they weigh (one
budget for the whole capture, not one per body), and gzip files of several members or cut
short (``docs/captures.md``, "Bounds")."""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from typing import Any

import pytest

from frontier.app.session import capture_har
from frontier.app.session.capture import as_read, capture_sources, raw_responses
from frontier.app.session.capture_har import har_responses
from frontier.app.session.capture_sse import CaptureError

KEY = "sk-live-budget-0123456789abcdef"
COOKIE = "sid=cookie-budget-77665544"
CHUNK = b'data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}\n\n'
BODY = CHUNK + b"data: [DONE]\n\n"


def exchange(body: bytes = BODY, *, coding: str = "", request_coding: str = "") -> bytes:
    """A request carrying a key and a cookie, and its streamed answer."""
    sent = b'{"model": "m", "stream": true}'
    if request_coding:
        sent = gzip.compress(sent)
    request = (
        "POST /v1/chat/completions HTTP/1.1\r\nHost: h\r\n"
        f"Authorization: Bearer {KEY}\r\nCookie: {COOKIE}\r\n"
        + (f"Content-Encoding: {request_coding}\r\n" if request_coding else "")
        + f"Content-Length: {len(sent)}\r\n\r\n"
    ).encode() + sent
    head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
    head += f"Content-Encoding: {coding}\r\n" if coding else ""
    return request + (head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def har_entry(n: int) -> dict[str, Any]:
    return {
        "request": {
            "method": "POST",
            "url": f"https://h/v1/chat/completions?n={n}",
            "headers": [
                {"name": "Authorization", "value": f"Bearer {KEY}"},
                {"name": "Cookie", "value": COOKIE},
            ],
        },
        "response": {
            "status": 200,
            "headers": [],
            "content": {"mimeType": "text/event-stream", "text": BODY.decode()},
        },
    }


# ----------------------------------------------------------- 1: one credentials tuple


@pytest.mark.parametrize("kind", ["http", "har"])
def test_every_response_shares_one_deduplicated_credentials_tuple(tmp_path: Any, kind: str) -> None:
    """Each source held its own copy of the whole capture's credential list, duplicates
    and all: memory grew with the square of the responses (780 MB for 4,000 pairs)."""
    path = tmp_path / f"many.{kind}"
    if kind == "http":
        path.write_bytes(b"".join(exchange() for _ in range(200)))
    else:
        path.write_text(json.dumps({"log": {"entries": [har_entry(i) for i in range(200)]}}))
    sources = capture_sources(str(path))
    assert len(sources) == 200
    first = sources[0].credentials
    assert all(source.credentials is first for source in sources)
    assert len(first) == len(set(first)) <= 6  # the key and the cookie, each once or so
    assert KEY in first


# ------------------------------------------------------ 2: one decompression budget


def test_gzip_bodies_share_one_budget_for_the_whole_capture(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four bodies each under the cap passed, each unpacked to the cap (a 256 KB file was
    80 s of work); now their sum is held to it, and the capture is refused naming it
    before any of them is read as SSE."""
    budget = 1 << 20
    monkeypatch.setattr(capture_har, "MAX_CAPTURE", budget, raising=False)
    unpacked: list[int] = []
    real = getattr(capture_har, "inflate", None)

    def counted(data: bytes, wbits: int, most: int) -> tuple[bytes, bool]:
        assert real is not None
        out = real(data, wbits, most)
        unpacked.append(len(out[0]))
        return out

    monkeypatch.setattr(capture_har, "inflate", counted, raising=False)
    bomb = gzip.compress(CHUNK + b"\n" * (budget // 2))
    path = tmp_path / "bomb.http"
    path.write_bytes(b"".join(exchange(bomb, coding="gzip") for _ in range(4)))
    with pytest.raises(CaptureError) as refused:
        capture_sources(str(path))
    assert "1 MiB" in str(refused.value) and "response #2" in str(refused.value)
    assert sum(unpacked) <= budget + 1


def test_request_bodies_take_from_the_same_budget(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(capture_har, "MAX_CAPTURE", 2000, raising=False)
    path = tmp_path / "req.http"
    path.write_bytes(b"".join(exchange(request_coding="gzip") for _ in range(3)))
    assert len(capture_sources(str(path))) == 3  # small bodies fit
    padded = gzip.compress(b" " * 3000 + b'{"model": "m"}')
    data = (
        b"POST /v1/chat/completions HTTP/1.1\r\nContent-Encoding: gzip\r\n"
        + f"Content-Length: {len(padded)}\r\n\r\n".encode()
        + padded
        + exchange()[exchange().index(b"HTTP/1.1 200") :]
    )
    path.write_bytes(data)
    with pytest.raises(CaptureError, match="the request before response #1"):
        capture_sources(str(path))


def test_a_bodys_gzip_that_fits_is_read_whole() -> None:
    """Within the budget nothing changes: a gzip body is its events."""
    (read,) = raw_responses(exchange(gzip.compress(BODY), coding="gzip"), "http")
    (plain,) = raw_responses(exchange(), "http")
    assert read.events == plain.events and read.events


# ------------------------------------------------- 5: gzip members, and a cut-off file


def test_a_gzip_file_of_several_members_is_read_whole() -> None:
    """``cat a.gz b.gz`` is one gzip file (``gzip -d`` reads both): only the first was read."""
    a, b = CHUNK, b"data: [DONE]\n\n"
    assert as_read(gzip.compress(a) + gzip.compress(b), 1 << 20) == a + b


def test_a_cut_off_gzip_file_is_said_to_be_damaged() -> None:
    packed = gzip.compress(BODY * 50)
    with pytest.raises(CaptureError, match="gzip-compressed, but damaged"):
        as_read(packed[: len(packed) // 2], 1 << 20)


def test_inflate_bounds_what_it_unpacks_and_refuses_trailing_bytes() -> None:
    from frontier.app.session.capture_raw import InflateError, inflate  # new with the fix

    zeros = gzip.compress(b"\0" * 100_000)
    out, cut = inflate(zeros * 3, 31, 1000)
    assert len(out) == 1001 and not cut  # one past the cap: the caller tells it is over
    with pytest.raises(InflateError, match="after the compressed data"):
        inflate(gzip.compress(b"a") + b"junk", 31, 1000)
    assert inflate(gzip.compress(b"a") + b"\0\0", 31, 1000) == (b"a", False)  # padding
    assert inflate(zlib.compress(b"abc"), 15, 1000) == (b"abc", False)


def test_a_hars_base64_gzip_body_is_decoded_within_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entry = har_entry(1)
    entry["response"]["headers"] = [{"name": "Content-Encoding", "value": "gzip"}]
    packed = base64.b64encode(gzip.compress(BODY + b"\n" * 5000)).decode()
    entry["response"]["content"].update(text=packed, encoding="base64")
    data = json.dumps({"log": {"entries": [entry, entry]}}).encode()
    (one, two) = har_responses(data)
    assert len(one.events) == 2 and one.events == two.events
    monkeypatch.setattr(capture_har, "MAX_CAPTURE", 6000, raising=False)
    with pytest.raises(CaptureError, match="entry #2"):
        har_responses(data)
