"""Captures as sources (issue 25): a ``curl -N`` body or a chunk log from anywhere is
checked, replayed, imported and evaluated as Frontier's own recordings are, with what
was detected said first and no header ever written or shown."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app.cli import main
from frontier.app.cst.base import calls_of
from frontier.app.cst.factory import make_transducer
from frontier.app.events import ToolCall
from frontier.app.session import capture, capture_jsonl, capture_sse, record
from frontier.app.session.capture import capture_sources, detect_kind
from frontier.app.session.capture_sse import CaptureError
from frontier.app.session.record import read_recording, synthesize, write_recording

SECRET = "sk-live-0123456789abcdef"


def chat(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


CHAT_CALL = [
    chat({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "read"}}]}),
    chat({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "a.txt"}'}}]}),
    chat({}, "tool_calls"),
]
RESPONSES_CALL = [
    ("response.created", {"type": "response.created", "response": {"id": "r1"}}),
    (
        "response.output_item.added",
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "function_call", "id": "fc1", "call_id": "c1", "name": "read"},
        },
    ),
    (
        "response.function_call_arguments.delta",
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 0,
            "item_id": "fc1",
            "delta": '{"path": "a.txt"}',
        },
    ),
    (
        "response.output_item.done",
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                "type": "function_call",
                "id": "fc1",
                "call_id": "c1",
                "name": "read",
                "arguments": '{"path": "a.txt"}',
            },
        },
    ),
    (
        "response.completed",
        {"type": "response.completed", "response": {"id": "r1", "status": "completed"}},
    ),
]


def chat_sse(chunks: list[dict[str, Any]], eol: bytes = b"\n", done: bool = True) -> bytes:
    body = b": keep-alive" + eol + eol
    for c in chunks:
        body += b"data: " + json.dumps(c).encode() + eol + eol
    return body + (b"data: [DONE]" + eol + eol if done else b"")


def named_sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(f"event: {name}\ndata: {json.dumps(obj)}\n\n".encode() for name, obj in events)


def calls_of_source(source: capture.CaptureSource) -> list[ToolCall]:
    """The calls the detected mode reads in a capture's response, ended cleanly."""
    t = make_transducer(source.recording.mode)
    events = [e for _, piece in source.recording.pieces() for e in t.feed(piece)]
    return calls_of([*events, *t.finish(True)])


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("done", [True, False], ids=["done", "no-done"])
def test_a_curl_chat_body_checks_with_what_was_detected_said_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], eol: bytes, done: bool
) -> None:
    path = tmp_path / "body.txt"  # the kind comes from the bytes, not the name
    path.write_bytes(chat_sse(CHAT_CALL, eol, done))
    code, out, err = run(capsys, "check", str(path))
    assert code == 0 and out.startswith("ok ") and "calls=1" in out
    assert "finish=tool_calls" in out and "mode=native-inc" in out
    assert "capture: raw SSE · openai-chat (from choices chunks)" in err
    events = 4 if done else 3
    assert "native-inc (a tool_calls delta)" in err and f"{events} events" in err
    assert "1 comment or keep-alive line(s) skipped" in err


def test_a_responses_body_with_a_torn_last_event_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cap"
    path.write_bytes(named_sse(RESPONSES_CALL) + b'event: response.completed\ndata: {"ty')
    (source,) = capture_sources(str(path))
    assert source.recording.meta["torn"] is True and source.recording.wire == "openai-responses"
    code, out, err = run(capsys, "check", str(path))
    assert code == 0 and "calls=1" in out
    assert "openai-responses (from event names) · native-inc (a function_call item)" in err
    assert "a torn end" in err


def test_stdin_and_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    body = chat_sse(CHAT_CALL)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(body)))
    code, out, err = run(capsys, "check", "-", "--protocol", "native-eos")
    assert code == 0 and "<stdin>: mode=native-eos" in out and "native-eos (--protocol)" in err
    path = tmp_path / "cap.sse"
    path.write_bytes(body)
    code, _, err = run(capsys, "check", str(path), "--wire", "openai-chat")
    assert code == 0 and "openai-chat (from --wire)" in err


@pytest.mark.parametrize(
    ("text", "protocol", "why"),
    [
        ("I'll read it.\ncall c1 read\narg path a\nend\n", "ctl-heredoc", "a `call ID NAME` line"),
        (
            'Reading.\n<minimax:tool_call>\n<invoke name="read">\n<parameter name="path">a'
            "</parameter>\n</invoke>\n</minimax:tool_call>",
            "xml",
            "a <minimax:tool_call> block",
        ),
        ('<call name="read"><arg name="path">a</arg></call>', "ctl-heredoc", "no call in the text"),
        ("Just prose.", "ctl-heredoc", "the default text mode"),
    ],
)
def test_a_text_stream_is_read_by_its_own_markers(
    tmp_path: Path, text: str, protocol: str, why: str
) -> None:
    chunks = [chat({"content": text[i : i + 5]}) for i in range(0, len(text), 5)]
    path = tmp_path / "cap"
    path.write_bytes(chat_sse([*chunks, chat({}, "stop")]))
    (source,) = capture_sources(str(path))
    assert source.recording.mode == protocol and why in source.summary
    if protocol == "xml":  # the detected mode reads the calls the text holds
        (call,) = calls_of_source(source)
        assert call.name == "read" and call.args == {"path": "a"}


def test_a_chunk_log_with_timestamps_and_headers_imports_without_the_headers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        json.dumps({"t": 10.0, "chunk": CHAT_CALL[0], "headers": {"Authorization": SECRET}}),
        json.dumps({"timestamp": 10.25, "data": CHAT_CALL[1]}),
        "[10.5] " + json.dumps(CHAT_CALL[2]),
        json.dumps({"t": 10.5, "data": "[DONE]", "headers": {"x-api-key": SECRET}}),
    ]
    log = tmp_path / "sdk.log"
    log.write_text("\n".join(lines) + "\n")
    assert detect_kind(log.read_bytes()) == "jsonl"
    out_path = tmp_path / "lesson.jsonl"
    code, out, err = run(capsys, "import", str(log), "-o", str(out_path))
    assert code == 0 and "JSON-lines chunk log" in err
    written = out_path.read_text()
    assert SECRET not in written + out + err and "Authorization" not in written
    rec = read_recording(out_path)
    assert [t for t, _ in rec.events] == [0.0, 0.25, 0.5, 0.5]  # the log's own clock
    assert rec.meta["source"] == "jsonl" and rec.meta["timing"] == "capture"
    assert rec.meta["detected"] == {"wire": "choices chunks", "protocol": "a tool_calls delta"}
    assert rec.wire == "openai-chat" and rec.mode == "native-inc"
    code, out, _ = run(capsys, "check", str(out_path))  # the lesson checks as a recording
    assert code == 0 and "calls=1" in out


def ollama_line(at: float, message: dict[str, Any], done: bool = False, **more: Any) -> str:
    stamp = f"2026-12-05T10:00:{at:09.6f}Z"
    line = {"model": "qwen3:8b", "created_at": stamp, "message": {"role": "assistant", **message}}
    return json.dumps({**line, "done": done, **more})


def test_ollamas_native_stream_checks_as_the_chat_chunks_it_stands_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``curl localhost:11434/api/chat`` saves NDJSON of Ollama's own shape: thinking,
    content, whole tool calls with object arguments, a done line with ``done_reason``
    "stop" even after calls. It was "not a frontier recording nor a chunk log"."""
    read = {"function": {"name": "read", "arguments": {"path": "a.txt"}}}
    grep = {"function": {"index": 1, "name": "grep", "arguments": {"pattern": "x"}}}
    lines = [
        ollama_line(0.1, {"content": "", "thinking": "Read a.txt first."}),
        ollama_line(0.2, {"content": "Reading."}),
        ollama_line(0.3, {"content": "", "tool_calls": [read]}),
        ollama_line(0.4, {"content": "", "tool_calls": [grep]}),
        ollama_line(0.5, {"content": ""}, True, done_reason="stop", prompt_eval_count=50,
                    eval_count=20),
    ]  # fmt: skip
    log = tmp_path / "ollama.ndjson"
    log.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "check", str(log))
    assert code == 0 and "calls=2" in out and "finish=tool_calls" in out, out + err
    assert "5 line(s) of Ollama's native stream" in err and "native-inc" in err
    (source,) = capture_sources(log)
    assert [round(t, 3) for t, _ in source.recording.events] == [0.0, 0.1, 0.2, 0.3, 0.4]
    code, out, _ = run(capsys, "replay", "--headless", str(log))
    assert code == 0
    assert 'call call_0 read {"path": "a.txt"}' in out
    assert 'call call_1 grep {"pattern": "x"}' in out


def test_an_ollama_reply_cut_by_its_token_limit_stays_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    read = {"function": {"name": "read", "arguments": {"path": "a.txt"}}}
    lines = [
        ollama_line(0.1, {"content": "", "tool_calls": [read]}),
        ollama_line(0.2, {"content": "and then"}, True, done_reason="length"),
    ]
    log = tmp_path / "cut.ndjson"
    log.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "check", str(log))
    assert code == 0 and "finish=length" in out, out + err


def test_a_wire_that_reads_nothing_in_the_capture_is_refused_with_the_one_that_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chat.sse"
    path.write_bytes(chat_sse(CHAT_CALL))
    code, out, err = run(capsys, "check", str(path), "--wire", "openai-responses")
    assert code != 0 and "ok" not in out
    assert "--wire openai-responses reads nothing" in err and "--wire openai-chat" in err, err


@pytest.mark.parametrize("stamp", ["[0.00]", "0.00", "2026-01-01T10:00:00.000Z", "[12:00:01.5]"])
def test_a_chunk_log_whose_every_line_starts_with_a_time_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stamp: str
) -> None:
    log = tmp_path / "server.log"
    log.write_text("".join(f"{stamp} {json.dumps(chunk)}\n" for chunk in CHAT_CALL))
    assert detect_kind(log.read_bytes()) == "jsonl"
    code, out, err = run(capsys, "check", str(log))
    assert code == 0 and "calls=1" in out and "JSON-lines chunk log" in err, out + err


def test_import_paces_an_untimed_capture_at_the_chosen_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = tmp_path / "cap.sse"
    cap.write_bytes(chat_sse(CHAT_CALL))
    code, out, _ = run(capsys, "import", str(cap), "--rate", "10")
    made = tmp_path / "cap.sse.recording.jsonl"
    assert code == 0 and str(made) in out
    rec = read_recording(made)
    assert [t for t, _ in rec.events] == [0.0, 0.1, 0.2, 0.3]
    assert rec.meta["timing"] == "paced 10 events/s" and rec.finish_reason == "tool_calls"


def test_replay_headless_and_eval_read_a_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = tmp_path / "cap.sse"
    cap.write_bytes(chat_sse(CHAT_CALL))
    code, out, err = run(capsys, "replay", str(cap), "--headless")
    assert code == 0 and "call c1 read" in out and "capture: raw SSE" in err
    code, out, err = run(capsys, "eval", "--session", str(cap), "--cuts", "2", "--json")
    assert code == 0 and json.loads(out)["workload"].startswith(f"{cap}: 1 calls")
    assert f"{cap}: capture: raw SSE · openai-chat (from choices chunks)" in err  # said first
    code, out, err = run(capsys, "eval", "counts", str(cap), "--protocol", "native-eos")
    assert code == 0 and "native-eos (--protocol)" in err, err
    code, _, err = run(capsys, "eval", "--wire", "openai-chat", "--cuts", "2")
    assert code == 2 and "--wire and --protocol are for a capture" in err


def test_recordings_and_picks_keep_working(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "odd#1.jsonl"  # a '#' in an existing file's name is not a pick
    write_recording(rec, synthesize("call c1 read\narg path a\nend\n", "ctl"))
    code, out, err = run(capsys, "check", str(rec))
    assert code == 0 and "calls=1" in out and err == ""
    cap = tmp_path / "cap.sse"
    cap.write_bytes(chat_sse(CHAT_CALL))
    code, out, _ = run(capsys, "check", f"{cap}#1")
    assert code == 0 and f"{cap}#1: mode=native-inc" in out
    code, _, err = run(capsys, "check", f"{cap}#2")
    assert code == 2 and "#2 does not exist" in err


def test_untrusted_captures_are_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"chunk": ' + "[" * 5000 + "]" * 5000 + "}\n")
    code, _, err = run(capsys, "check", str(deep))
    assert code == 2 and "nested" in err
    monkeypatch.setattr(capture, "MAX_CAPTURE", 1 << 10)
    big = tmp_path / "big.sse"
    big.write_bytes(chat_sse(CHAT_CALL * 20))
    code, _, err = run(capsys, "check", str(big))
    assert code == 2 and "over 1,024 bytes, the cap for a capture" in err
    with pytest.raises(CaptureError, match="not a capture"):
        detect_kind(b"hello\nworld\n")


def test_the_events_a_capture_holds_are_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """64 MiB of ``data: 1`` events is 7 million events (39 s and 2.5 GB to be told the
    wire could not be told): past ``MAX_EVENTS`` a raw SSE body is refused once that many
    are found, and a chunk log too, or past twice that many lines before they are split."""
    monkeypatch.setattr(capture_sse, "MAX_EVENTS", 5)
    monkeypatch.setattr(capture_jsonl, "MAX_EVENTS", 5)
    monkeypatch.setattr(capture_sse, "PIECE", 64)
    fits = tmp_path / "fits.sse"
    fits.write_bytes(chat_sse(CHAT_CALL))  # 3 chunks, [DONE] and a keep-alive: 4 events
    assert run(capsys, "check", str(fits))[0] == 0
    many = tmp_path / "many.sse"
    many.write_bytes(b"data: 1\n\n" * 1000)
    code, _, err = run(capsys, "check", str(many))
    assert code == 2 and "over 5 events, the cap for a capture; cut it to the part" in err
    log = tmp_path / "many.jsonl"
    log.write_text("".join(json.dumps({"chunk": c}) + "\n" for c in CHAT_CALL * 2))
    code, _, err = run(capsys, "check", str(log))
    assert code == 2 and "over 5 events, the cap for a capture" in err
    log.write_text(json.dumps({"chunk": CHAT_CALL[0]}) + "\n" * 11)
    code, _, err = run(capsys, "check", str(log))
    assert code == 2 and "over 10 lines, the cap for a chunk log" in err
    monkeypatch.setattr(record, "MAX_EVENTS", 5)
    rec = tmp_path / "many.jsonl"
    header = {"format": "frontier-recording", "version": 1, "mode": "native-inc"}
    rec.write_text(json.dumps(header) + "\n" + '{"t": 0, "data": "1"}\n' * 6)
    code, _, err = run(capsys, "check", str(rec))
    assert code == 2 and "many.jsonl:7: over 5 events, the cap for a recording" in err


def test_a_capture_read_in_pieces_splits_its_events_as_read_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The SSE body is fed a piece at a time (so the count is checked as it grows): a CRLF,
    a CR or an event cut between two pieces comes out as the whole body does."""
    body = chat_sse(CHAT_CALL, eol=b"\r\n") + chat_sse(CHAT_CALL, eol=b"\r")
    whole = capture_sse.sse_response(body)
    for piece in (1, 2, 3, 7, 64):
        monkeypatch.setattr(capture_sse, "PIECE", piece)
        assert capture_sse.sse_response(body) == whole


def test_import_masks_a_key_the_environment_knows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A capture is someone else's bytes: a key it holds (a model echoing it, a log that
    kept it) is masked before the recording exists, as Frontier's own recordings are."""
    key = "sk-capture-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    chunk = {"choices": [{"index": 0, "delta": {"content": f"the key is {key}"}}]}
    stop = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    cap = tmp_path / "leak.sse"
    cap.write_bytes(f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(stop)}\n\n".encode())
    code, out, err = run(capsys, "import", str(cap), "-o", str(tmp_path / "leak.jsonl"))
    assert code == 0 and key not in out + err
    text = (tmp_path / "leak.jsonl").read_text()
    assert key not in text and "the key is" in text


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from([b"data:", b"x", b"\r", b"\n", b"\r\n", b":", b"id:", b"ev", b"ent:"])
    ),
    st.integers(1, 6),
)
def test_an_sse_body_is_told_by_its_first_lines_as_splitlines_ends_them(
    pieces: list[bytes], lines: int
) -> None:
    """Detection looks at the first lines without splitting the rest (64 MiB of short lines
    was 14 million objects made to look at 64): the same lines ``bytes.splitlines`` gives."""
    text = b"".join(pieces)
    fields = (b"data:", b"event:", b":", b"id:", b"retry:")
    expected = any(line.startswith(fields) for line in text.splitlines()[:lines])
    assert capture._sse_within(text, lines) == expected


def _gzip(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data)


@pytest.mark.parametrize(
    "saved",
    [
        _gzip,  # curl without --compressed keeps the body as the server sent it
        lambda b: b"\xff\xfe" + b.decode().encode("utf-16-le"),  # PowerShell 5's `>`
        lambda b: b"\xfe\xff" + b.decode().encode("utf-16-be"),
        lambda b: _gzip(b"\xff\xfe" + b.decode().encode("utf-16-le")),
    ],
    ids=["gzip", "utf-16-le", "utf-16-be", "gzip-of-utf-16"],
)
def test_a_capture_saved_compressed_or_as_utf16_checks_as_its_text_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], saved: Any
) -> None:
    """Each was "not a capture Frontier reads"."""
    path = tmp_path / "capture"
    path.write_bytes(saved(chat_sse(CHAT_CALL)))
    code, out, err = run(capsys, "check", str(path))
    assert code == 0, err
    assert out.startswith("ok ") and "calls=1" in out and "finish=tool_calls" in out


def test_a_compressed_capture_is_bounded_as_it_is_unpacked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few KB of gzip can hold gigabytes: at most one byte past the cap is unpacked."""
    bomb = _gzip(b"data: " + b"x" * (8 << 20) + b"\n\n")
    assert len(bomb) < 64 << 10
    assert len(capture.as_read(bomb, 1 << 20)) == (1 << 20) + 1
    monkeypatch.setattr(capture, "MAX_CAPTURE", 1 << 20)
    monkeypatch.setattr(capture, "MAX_HAR_BYTES", 1 << 20)
    path = tmp_path / "bomb.sse.gz"
    path.write_bytes(bomb)
    code, _, err = run(capsys, "check", str(path))
    assert code == 2 and "over 1 MiB, the cap for a capture" in err


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"\x1f\x8b\x08\x00" + b"\xff" * 40, "gzip-compressed, but damaged"),
        (b"\xff\xfed\x00a\x00\x00\xd8", "UTF-16 text (its byte order mark says so), but byte 6"),
    ],
    ids=["damaged gzip", "broken utf-16"],
)
def test_a_damaged_compressed_or_utf16_capture_says_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, says: str
) -> None:
    path = tmp_path / "capture"
    path.write_bytes(data)
    code, _, err = run(capsys, "check", str(path))
    assert code == 2 and says in err, err


def test_a_capture_on_stdin_that_is_the_terminal_is_refused_not_waited_for(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``frontier check -`` typed at a prompt waited, silent, for ctrl+d."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal())
    code, _, err = run(capsys, "check", "-")
    assert code == 2 and "stdin is the terminal: pipe a capture in" in err


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (
            {"error": {"message": "File Not Found", "type": "not_found_error", "code": 404}},
            "File Not Found",
        ),
        ({"error": "model 'x' not found"}, "model 'x' not found"),
        (  # was "ok ... finish=error", exit 0: a one-event stream that ended in an error
            {
                "type": "error",
                "error": {"type": "overloaded_error", "message": "Overloaded"},
                "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy",
            },
            "Overloaded",
        ),
    ],
    ids=["llama.cpp", "a-string", "anthropic"],
)
def test_an_apis_error_answer_is_named_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: dict[str, Any], said: str
) -> None:
    """What ``curl`` printed for a failed request was "not a frontier recording nor a
    chunk log": it is the API's answer that nothing streamed, with its message."""
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(body))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"an API's error answer, not a streamed response ({said!r})" in err
    path.write_text("\ufeff" + json.dumps(body), encoding="utf-8")  # with a byte order mark
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"an API's error answer, not a streamed response ({said!r})" in err
    assert "nothing to check" in err and "chunk log" not in err


def test_an_error_answer_quoting_the_key_hides_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-quoted-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    path = tmp_path / "answer.json"
    path.write_text(json.dumps({"error": {"message": f"Incorrect API key provided: {key}"}}))
    assert main(["replay", str(path), "--headless"]) == 2
    err = capsys.readouterr().err
    assert "Incorrect API key provided: [REDACTED]" in err and key not in err
