"""A whole (non-streamed) answer saved to a file (a request without ``stream``: an SDK's
default, ``curl`` to a file, a browser's "copy response", ``jq .``) is checked and replayed
as the stream it stands for. A ``chat.completion`` was read as a chunk without a delta
(``check`` said "ok, calls=0" of an answer that made a call), a Responses ``response`` or
an Anthropic ``message`` was "cannot tell which wire it was spoken on; pass --wire", and a
pretty-printed one "line 1: not JSON"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from frontier.app.cli import main
from frontier.app.model import registry
from frontier.app.model.stream import Delta, End, ReasoningBlock, UsageDelta

CALL_ARGS = '{"path": "notes.txt"}'

CHAT = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "deepseek-v4-flash",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Reading.",
                "reasoning_content": "The notes first.",
                "tool_calls": [
                    {"id": "call_a", "type": "function",
                     "function": {"name": "read", "arguments": CALL_ARGS}},
                    {"id": "call_b", "type": "function",
                     "function": {"name": "grep", "arguments": {"pattern": "x"}}},
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
}  # fmt: skip
MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "thinking", "thinking": "The notes first.", "signature": "sig=="},
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"path": "notes.txt"}},
        {"type": "tool_use", "id": "toolu_b", "name": "grep", "input": {"pattern": "x"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 5},
}
RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "status": "completed",
    "model": "gpt-5",
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [
            {"type": "summary_text", "text": "The notes first."}]},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Reading.", "annotations": []}]},
        {"type": "function_call", "id": "fc_a", "call_id": "call_a", "name": "read",
         "arguments": CALL_ARGS, "status": "completed"},
        {"type": "function_call", "id": "fc_b", "call_id": "call_b", "name": "grep",
         "arguments": '{"pattern": "x"}', "status": "completed"},
    ],
    "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
}  # fmt: skip
CUT = {**CHAT, "choices": [{**CHAT["choices"][0], "finish_reason": "length"}]}  # type: ignore[dict-item]
ANSWERS = {"openai-chat": CHAT, "anthropic-messages": MESSAGE, "openai-responses": RESPONSE}


def said(deltas: list[Delta]) -> list[Delta]:
    """What the model said, without the token counts (a stream says them more than once),
    the reasoning kept to send back last (a stream keeps it where the first call starts)."""
    kept = [d for d in deltas if isinstance(d, ReasoningBlock)]
    return [d for d in deltas if not isinstance(d, UsageDelta | End | ReasoningBlock)] + kept


@pytest.mark.parametrize("wire", list(ANSWERS))
def test_a_whole_answer_as_a_stream_decodes_to_what_the_answer_says(wire: str) -> None:
    """Each wire's ``whole_stream`` and ``json_answer`` read one object alike, and no other
    wire takes it for its own."""
    obj = ANSWERS[wire]
    codec = registry.codec(wire)  # type: ignore[arg-type]
    events = codec.whole_stream(obj)
    assert events is not None
    decoder = codec.decoder()
    streamed = [d for name, data in events for d in decoder.feed(name, data)]
    whole = codec.json_answer(obj)
    assert whole is not None and said(streamed) == said(whole)
    others = [c.name for c in registry.codecs() if c.name != wire and c.whole_stream(obj)]
    assert others == []


def test_a_stream_chunk_is_not_a_whole_answer() -> None:
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}}]}
    assert all(c.whole_stream(chunk) is None for c in registry.codecs())


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("pretty", [False, True], ids=["one-line", "pretty-printed"])
@pytest.mark.parametrize("wire", list(ANSWERS))
def test_check_and_replay_read_a_saved_answer_with_its_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], wire: str, pretty: bool
) -> None:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(ANSWERS[wire], indent=2 if pretty else None) + "\n")
    code, out, err = check(capsys, str(path))
    assert code == 0 and "calls=2" in out and "finish=tool_calls" in out, out + err
    assert f"· {wire} " in err and "native-inc" in err
    assert "1 whole (non-streamed) answer(s)" in err
    code = main(["replay", "--headless", str(path)])
    out, _ = capsys.readouterr()
    assert code == 0 and 'read {"path": "notes.txt"}' in out and 'grep {"pattern": "x"}' in out


def test_a_saved_answer_cut_by_its_token_limit_stays_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(CUT))
    code, out, err = check(capsys, str(path))
    assert code == 0 and "finish=length" in out, out + err


def test_a_text_protocol_in_a_saved_answer_is_checked_byte_by_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model that writes CTL in its content, saved whole, cut inside a heredoc: the cut
    call is named, never run."""
    text = "call c1 read\narg path notes.txt\nend\ncall c2 shell\narg command <<EOF\nls\n"
    message: dict[str, Any] = {"role": "assistant", "content": text}
    obj = {"object": "chat.completion", "choices": [
        {"index": 0, "message": message, "finish_reason": "length"}]}  # fmt: skip
    path = tmp_path / "ctl.json"
    path.write_text(json.dumps(obj))
    code, out, err = check(capsys, str(path))
    assert code == 0 and "mode=ctl-heredoc" in out and "calls=1" in out, out + err
    assert "errors=truncated" in out and f"prefixes={len(text)}" in out


def http_exchange(answer: dict[str, Any], status: str = "200 OK") -> bytes:
    """``curl -i`` / a logging proxy's record of one request made without ``stream``."""
    sent = json.dumps({"model": "m", "messages": [], "tools": []}).encode()
    body = json.dumps(answer).encode()
    return (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
        b"application/json\r\nContent-Length: %d\r\n\r\n%s"
        b"HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
        % (len(sent), sent, status.encode(), len(body), body)
    )


def test_an_http_capture_of_an_answer_and_of_an_error_reads_the_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was "none of them an event stream: nothing streamed to read"; an error's JSON
    and a ``/models`` listing beside it are still not answers."""
    error = {"error": {"message": "overloaded", "type": "server_error"}}
    path = tmp_path / "tap.raw"
    path.write_bytes(http_exchange(error, "503 Service Unavailable") + http_exchange(CHAT))
    code, out, err = check(capsys, f"{path}#2")
    assert code == 0 and "calls=2" in out, out + err
    code, out, err = check(capsys, f"{path}#1")
    assert code != 0 and "#1 is not an event stream or a whole answer" in err
    assert "the model's responses are #2" in err


def har_entry(url: str, answer: dict[str, Any] | str, mime: str) -> dict[str, Any]:
    text = answer if isinstance(answer, str) else json.dumps(answer)
    return {
        "startedDateTime": "2026-01-01T00:00:00.000Z",
        "request": {"method": "POST", "url": url, "headers": []},
        "response": {"status": 200, "headers": [], "content": {"mimeType": mime, "text": text}},
        "timings": {"wait": 8, "receive": 2},
    }


def test_a_har_of_answers_lists_each_beside_the_streams(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = "https://api.example.com/v1/"
    entries = [
        har_entry(base + "models", {"object": "list", "data": []}, "application/json"),
        har_entry(base + "chat/completions", CHAT, "application/json"),
        har_entry(base + "messages", MESSAGE, "application/json; charset=utf-8"),
        har_entry(base + "responses", RESPONSE, "application/json"),
        har_entry(base + "chat/completions", {"error": {"message": "no"}}, "application/json"),
    ]
    path = tmp_path / "session.har"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}))
    code, out, err = check(capsys, str(path))
    assert code == 0 and out.count("calls=2") == 3, out + err
    assert "#2" in out and "#3" in out and "#4" in out and "#5" not in out
    code, out, err = check(capsys, f"{path}#5")
    assert code != 0 and "entry #5 is not a model's response; the HAR's are #2, #3, #4" in err
