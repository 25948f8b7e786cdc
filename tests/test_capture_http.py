"""Raw HTTP/1.1 captures (``app/session/capture_http.py``): ``curl -i --raw``, Wireshark's
"Follow TCP Stream" saved raw, a logging proxy. A chunked body's size lines fall inside its
SSE lines wherever the server cut it: read as a raw SSE body, nothing could be told."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app.session.capture import capture_sources, raw_responses
from frontier.app.session.capture_sse import CaptureError, sse_response

KEY = "sk-live-9f8e7d6c5b4a39281706"
TOOLS = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]


def chunk(delta: dict[str, object], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return "data: " + json.dumps({"object": "chat.completion.chunk", "choices": [choice]}) + "\n\n"


BODY = (
    chunk({"role": "assistant", "content": "Reading it."})
    + chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "read"}}]})
    + chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "a.py"}'}}]})
    + chunk({}, "tool_calls")
    + "data: [DONE]\n\n"
).encode()


def request(body: dict[str, object] | None = None, path: str = "/v1/chat/completions") -> bytes:
    sent = json.dumps(body or {"model": "qwen", "stream": True, "tools": TOOLS}).encode()
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Bearer {KEY}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(sent)}\r\n\r\n"
    ).encode() + sent


def response(body: bytes, cuts: list[int] | None = None, extra: str = "") -> bytes:
    """A streamed answer; ``cuts``: chunked, cut at those offsets (else a length)."""
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nSet-Cookie: s={KEY}\r\n{extra}"
    if cuts is None:
        return (head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    out = (head + "Transfer-Encoding: chunked\r\n\r\n").encode()
    for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True):
        if b > a:
            out += b"%x\r\n" % (b - a) + body[a:b] + b"\r\n"
    return out + b"0\r\n\r\n"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, len(BODY) - 1), unique=True).map(sorted))
def test_a_chunked_answer_cut_anywhere_reads_as_its_body_does(cuts: list[int]) -> None:
    (raw,) = raw_responses(request() + response(BODY, cuts), "http")
    assert raw.events == sse_response(BODY).events
    assert raw.endpoint == "/v1/chat/completions" and raw.model == "qwen"
    assert raw.request is not None and raw.request["tools"] == TOOLS
    assert not raw.notes and not raw.torn


def test_the_summary_says_what_was_found_and_never_a_header(tmp_path: Path) -> None:
    path = tmp_path / "follow.raw"
    path.write_bytes(request() + response(BODY, [7, 100, 101, 300]))
    (found,) = capture_sources(str(path))
    assert found.summary.startswith("capture: HTTP capture · openai-chat")
    assert "native-inc (the request offered tools)" in found.summary
    assert found.summary.endswith("offered tools: read")
    assert found.recording.finish_reason == "tool_calls"
    assert KEY not in repr(found) and "Cookie" not in repr(found)


def test_a_kept_alive_connection_numbers_its_answers_and_each_can_be_picked(tmp_path: Path) -> None:
    models = b'{"object": "list", "data": [{"id": "qwen"}]}'
    listing = (
        b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"
        + (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % len(models)
        )
        + models
    )
    other = BODY.replace(b"a.py", b"b.py")
    path = tmp_path / "tap.raw"
    path.write_bytes(listing + request() + response(BODY, [50]) + request() + response(other))
    found = capture_sources(str(path))
    assert [f.name for f in found] == [f"{path}#2", f"{path}#3"]
    (second,) = capture_sources(f"{path}#3")
    assert "b.py" in repr(second.recording.events) and "a.py" not in repr(second.recording.events)
    with pytest.raises(
        CaptureError,
        match=r"response #1 is not an event stream or a whole answer; the model's responses are "
        r"#2, #3",
    ):
        capture_sources(f"{path}#1")
    with pytest.raises(CaptureError, match="holds 3 response"):
        capture_sources(f"{path}#4")


def test_a_gzip_body_and_a_torn_end_are_read_and_said() -> None:
    packed = gzip.compress(BODY)
    (raw,) = raw_responses(response(packed, [9], "Content-Encoding: gzip\r\n"), "http")
    assert raw.events == sse_response(BODY).events
    whole = response(BODY, [40, 200])
    (cut,) = raw_responses(whole[: whole.index(b"0\r\n\r\n") - 60], "http")
    assert cut.events and len(cut.events) < len(sse_response(BODY).events)
    assert "the capture ends inside a chunk" in cut.notes
    (raw,) = raw_responses(response(BODY, None, "Content-Encoding: br\r\n"), "http")
    assert raw.events == () and any("Accept-Encoding: identity" in n for n in raw.notes)


def test_an_answer_that_is_no_stream_is_said_and_headers_without_end_refused() -> None:
    plain = b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\r\n{}"
    with pytest.raises(CaptureError, match="none of them an event stream"):
        raw_responses(plain, "http")
    with pytest.raises(CaptureError, match="headers do not end within 64 KiB"):
        raw_responses(b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 20_000, "http")


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_every_prefix_of_a_capture_reads_or_says_why(data: st.DataObject) -> None:
    whole = request() + response(BODY, [33, 150, 151])
    end = data.draw(st.integers(0, len(whole)))
    try:
        found = raw_responses(whole[:end], "http")
    except CaptureError:
        return
    (raw,) = found
    full = sse_response(BODY).events
    assert raw.events == full[: len(raw.events)]


def test_an_answer_without_a_length_runs_to_the_next_message_at_a_line_start() -> None:
    """A server that leaves the length out (an HTTP/1.0 answer, a proxy): the body runs to
    the next message; one quoted inside a line of the body is text, not a message."""
    quoting = BODY.replace(b"Reading it.", b"Reading it. HTTP/1.1 200 OK")
    bare = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
    (one, two) = raw_responses(bare + quoting + bare + BODY, "http")
    assert one.events == sse_response(quoting).events and two.events == sse_response(BODY).events


def test_curl_i_without_raw_keeps_the_chunked_header_over_a_joined_body(tmp_path: Path) -> None:
    """``curl -i`` (without ``--raw``) joins a chunked body yet prints the server's
    ``Transfer-Encoding: chunked``: the body was read as empty ("a chunk size line was
    expected"), and ``check`` said "cannot tell which wire it was spoken on"."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
    (raw,) = raw_responses(head + b"\r\n" + BODY, "http")
    assert raw.events == sse_response(BODY).events
    assert any("holds no chunk sizes" in note for note in raw.notes)
    path = tmp_path / "curl-i.txt"  # two exchanges: the first body ends at the second
    path.write_bytes(head + b"\r\n" + BODY + request() + response(BODY.replace(b"a.py", b"b.py")))
    first, second = capture_sources(str(path))
    assert "a.py" in repr(first.recording.events) and "b.py" not in repr(first.recording.events)
    assert "b.py" in repr(second.recording.events)
