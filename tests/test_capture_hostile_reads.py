"""Captures that read as nothing, or as something else: a response with no event is never
"ok" (it is said why it holds none), one such response does not make a capture unreadable,
a typed chunk-log wrapper is read for its chunk, ``curl -i`` of HTTP/2 is a capture, a time
that is no finite number is refused, a key in the URL path is masked, and a ``#`` pick that
names no response says so (``docs/captures.md``)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from frontier.app.cli import main
from frontier.app.session.capture import capture_sources
from frontier.app.session.capture_sse import CaptureError

CHUNK = '{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}'
BODY = f"data: {CHUNK}\n\ndata: [DONE]\n\n".encode()
PATH_KEY = "sk-proj-Abcdefghijklmnop1234567890QRSTUV"


def answer(body: bytes, *, status: str = "200 OK", extra: str = "") -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Type: text/event-stream\r\n{extra}"
    return (head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def har(*responses: dict[str, Any], url: str = "https://h/v1/chat/completions") -> bytes:
    entries = [{"request": {"method": "POST", "url": url}, "response": r} for r in responses]
    return json.dumps({"log": {"entries": entries}}).encode()


def streamed(text: str | None, status: int = 200, **content: Any) -> dict[str, Any]:
    got: dict[str, Any] = {"mimeType": "text/event-stream", **content}
    if text is not None:
        got["text"] = text
    return {"status": status, "headers": content.pop("headers", []), "content": got}


def write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


# ------------------------------------------------- 3: no events is never a passing check


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("empty.har", har(streamed("")), "holds no body"),
        (
            "err.har",
            har(streamed('{"error":{"message":"Rate limit exceeded","type":"rate"}}', 429)),
            "429",
        ),
        (
            "zstd.har",
            har(
                {
                    "status": 200,
                    "headers": [{"name": "content-encoding", "value": "zstd"}],
                    "content": {
                        "mimeType": "text/event-stream",
                        "encoding": "base64",
                        "text": base64.b64encode(b"\x28\xb5\x2f\xfd" + bytes(20)).decode(),
                    },
                }
            ),
            "zstd-encoded",
        ),
        ("br.http", answer(b"\x8b\x03\x80abc", extra="Content-Encoding: br\r\n"), "br-encoded"),
        ("empty.http", answer(b""), "its body is empty"),
        (
            "err.http",
            answer(b'{"error":{"message":"Rate limit exceeded"}}', status="429 Too Many"),
            "Rate limit exceeded",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) and "." in value else "",
)
def test_a_response_with_no_event_is_refused_saying_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes, said: str
) -> None:
    """``check`` said "ok … 0 events … finish disconnect" and exited 0 of each of these:
    nothing was checked. Refused as an empty raw SSE body is (exit 2), with the reason."""
    path = write(tmp_path, name, data)
    with pytest.raises(CaptureError, match="holds no events") as refused:
        capture_sources(path)
    assert said in str(refused.value)
    capsys.readouterr()
    assert main(["check", path]) == 2
    out, err = capsys.readouterr()
    assert "ok " not in out and said in err


def test_one_empty_response_does_not_make_the_others_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty second response made the whole capture "cannot tell which wire", exit 2,
    without naming it; now the others are checked and it is named in a note."""
    path = write(tmp_path, "two.http", answer(BODY) + answer(b": keep-alive\n\n"))
    (only,) = capture_sources(path)
    assert only.name.endswith("#1")
    assert "#2: its body holds no SSE event" in only.summary
    assert main(["check", path]) == 0
    assert "#2" in capsys.readouterr().err


def test_a_response_whose_wire_cannot_be_told_is_named(tmp_path: Path) -> None:
    path = write(tmp_path, "two.http", answer(BODY) + answer(b'data: {"a": 1}\n\n'))
    with pytest.raises(CaptureError, match="response #2: cannot tell which wire"):
        capture_sources(path)


# ---------------------------------------------------------- 6: a typed wrapper's chunk


def test_a_typed_wrapper_line_is_read_for_its_chunk(tmp_path: Path) -> None:
    """``{"type": "chunk", "data": {…}}`` was taken for the chunk itself (it has ``type``):
    "cannot tell which wire", and ``--wire openai-chat`` then "ok calls=0"."""
    call = {"index": 0, "id": "c0", "type": "function"}
    call["function"] = {"name": "read", "arguments": '{"path":"a"}'}
    first = {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}
    last = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    lines = [
        {"type": "chunk", "t": 0.1, "data": first},
        {"type": "chunk", "t": 0.3, "data": last},
        {"type": "chunk", "t": 0.4, "data": "[DONE]"},
    ]
    path = write(tmp_path, "log.jsonl", "".join(json.dumps(x) + "\n" for x in lines).encode())
    (source,) = capture_sources(path)
    rec = source.recording
    assert rec.wire == "openai-chat" and rec.mode == "native-inc"
    assert [t for t, _ in rec.events] == [0.0, 0.2, 0.3]
    assert json.loads(rec.events[0][1])["choices"][0]["delta"]["tool_calls"][0]["id"] == "c0"


def test_a_chunk_with_a_type_is_still_a_chunk(tmp_path: Path) -> None:
    """An Anthropic event has ``type`` and no payload key: still the chunk itself."""
    events = [{"type": "message_start", "message": {"id": "m"}}, {"type": "message_stop"}]
    path = write(tmp_path, "a.jsonl", "".join(json.dumps(e) + "\n" for e in events).encode())
    (source,) = capture_sources(path)
    assert source.recording.wire == "anthropic-messages"


# ------------------------------------------------------------------- 7: curl -i, HTTP/2


def test_curl_i_of_an_http2_server_is_an_http_capture(tmp_path: Path) -> None:
    h2 = b"HTTP/2 200 \r\ncontent-type: text/event-stream\r\nx-request-id: r\r\n\r\n" + BODY
    (source,) = capture_sources(write(tmp_path, "h2.txt", h2))
    assert source.summary.startswith("capture: HTTP capture") and len(source.recording.events) == 2
    proxied = b"HTTP/1.1 200 Connection established\r\n\r\n" + h2
    (through,) = capture_sources(write(tmp_path, "proxy.txt", proxied))
    assert through.name.endswith("proxy.txt")  # the proxy's answer is not one of them
    assert through.recording.events == source.recording.events


# ------------------------------------------------------------ 9: times that are no time


@pytest.mark.parametrize("t", ["1e400", '"NaN"', '"inf"'])
def test_a_chunk_log_time_that_is_no_finite_number_is_refused(tmp_path: Path, t: str) -> None:
    """``1e400`` was written as ``"t": Infinity`` (not JSON); ``"NaN"`` became 0."""
    lines = f'{{"t": 0, "chunk": {CHUNK}}}\n{{"t": {t}, "chunk": {CHUNK}}}\n'
    with pytest.raises(CaptureError, match="line 2: its time is not a finite number"):
        capture_sources(write(tmp_path, "t.jsonl", lines.encode()))


# --------------------------------------------------------------- a key in the URL path


@pytest.mark.parametrize("kind", ["har", "http"])
def test_a_key_in_the_url_path_is_masked_in_the_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """A gateway's ``/key/sk-proj-…/v1/chat/completions`` was kept in the recording's
    ``endpoint`` and printed in the detection line."""
    route = f"/key/{PATH_KEY}/v1/chat/completions"
    if kind == "har":
        data = har(streamed('data: {"a": 1}\n\n'), url=f"https://gw{route}")
    else:
        request = f"POST {route} HTTP/1.1\r\nContent-Length: 2\r\n\r\n{{}}".encode()
        data = request + answer(b'data: {"a": 1}\n\n')
    path = write(tmp_path, f"k.{kind}", data)
    (source,) = capture_sources(path)
    assert source.recording.meta["endpoint"] == "/key/[REDACTED]/v1/chat/completions"
    assert PATH_KEY not in source.summary and "from endpoint" in source.summary
    out = tmp_path / "out.jsonl"
    assert main(["import", path, "-o", str(out)]) == 0
    assert PATH_KEY not in out.read_text() + "".join(capsys.readouterr())


# ------------------------------------------------------------------ 10: picks that miss


def test_a_pick_that_is_no_number_names_the_file_it_follows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``x.har#1#2`` said "'x.har' is not a file" (looked up as a session) of a file."""
    path = write(tmp_path, "x.http", answer(BODY))
    assert main(["check", f"{path}#1#2"]) == 2
    err = capsys.readouterr().err
    assert "'#1#2'" in err and "picks no response" in err and "not a file" not in err


def test_pick_zero_says_responses_count_from_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``#0`` said "#0 is not an event stream" of a response that does not exist."""
    path = write(tmp_path, "x.http", answer(BODY))
    with pytest.raises(CaptureError, match="#0 does not exist"):
        capture_sources(f"{path}#0")
