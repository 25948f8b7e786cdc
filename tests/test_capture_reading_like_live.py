"""A capture is read as the live session reads the same bytes (the capture audit).

- After ``data: [DONE]`` the transport stops reading; ``check``, ``transduce`` and
  ``import`` read on, so a call after it (two streams joined with ``cat``, a stray chunk)
  was reported as the model's and ``check`` failed a stream whose live run was fine.
- ``{"n": NaN}`` is no JSON (RFC 8259): the arguments were a runnable call, printed by
  ``transduce`` as JSON lines no reader takes.
- An SSE line over the limit read under a text protocol (``transduce --wire W
  --protocol ctl-heredoc``) ended the text in silence: ``errors=0``, exit 0.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst.base import errors_of
from frontier.app.cst.factory import make_transducer
from frontier.app.model.registry import codec
from frontier.app.model.stream import CallStart, End, Ignored
from frontier.app.stream_events import CallReady, ContractError
from frontier.app.wire import safejson


def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    body = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


TEXT = chunk({"content": "Done."}) + chunk({}, "stop") + b"data: [DONE]\n\n"
CALL = chunk(
    {"tool_calls": [{"index": 0, "id": "c9", "type": "function",
                     "function": {"name": "shell", "arguments": '{"command": "rm -rf /"}'}}]}
) + chunk({}, "tool_calls") + b"data: [DONE]\n\n"  # fmt: skip


def test_the_chat_decoder_reads_nothing_after_done() -> None:
    decoder = codec("openai-chat").decoder()
    assert any(type(d) is End for d in decoder.feed("", "[DONE]"))
    after = decoder.feed("", CALL.split(b"\n\n")[0].removeprefix(b"data: ").decode())
    assert after == [Ignored("ignored an event after [DONE]")]
    assert not any(type(d) is CallStart for d in after)


def test_a_call_after_done_is_not_confirmed_by_the_native_transducer() -> None:
    t = make_transducer("native-inc", wire=codec("openai-chat"))
    events = t.feed(TEXT + CALL) + t.finish(True)
    assert not [e for e in events if isinstance(e, CallReady)]
    assert not errors_of(events)


def run(*args: str, data: bytes) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *args],
        input=data.decode(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_check_of_two_streams_joined_reads_the_first_as_live(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    joined = tmp_path / "cat.sse"
    joined.write_bytes(TEXT + CALL)
    out = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "check", str(joined)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "calls=0" in out.stdout and "finish=stop" in out.stdout
    assert "came after data: [DONE]" in out.stdout  # the server's framing, said


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_arguments_holding_a_constant_json_lacks_are_bad_json(constant: str) -> None:
    args = '{"n": %s}' % constant  # noqa: UP031  (the braces are the JSON's)
    stream = (
        chunk({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                               "function": {"name": "write", "arguments": args}}]})
        + chunk({}, "tool_calls") + b"data: [DONE]\n\n"
    )  # fmt: skip
    t = make_transducer("native-inc", wire=codec("openai-chat"))
    events = t.feed(stream) + t.finish(True)
    assert not [e for e in events if isinstance(e, CallReady)]
    (error,) = errors_of(events)
    assert error.kind == "bad_json" and f"{constant} is not a JSON value" in error.message
    assert error.offset == len('{"n": ')  # where it stands in the arguments


@given(st.recursive(st.none() | st.booleans() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.integers() | st.text(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                    max_leaves=20))  # fmt: skip
def test_standard_json_reads_as_before(value: object) -> None:
    text = json.dumps(value)
    assert safejson.loads(text, standard=True) == json.loads(text)


def test_a_string_saying_nan_is_a_string() -> None:
    assert safejson.loads('{"a": "NaN", "b": "x\\"NaN"}', standard=True) == {
        "a": "NaN",
        "b": 'x"NaN',
    }
    with pytest.raises(ValueError, match="NaN is not a JSON value") as err:
        safejson.loads('{"a": "NaN", "b": NaN}', standard=True)
    assert getattr(err.value, "pos", None) == len('{"a": "NaN", "b": ')
    assert math.isnan(json.loads("NaN"))  # Python's own json is left as it is


def test_an_sse_line_over_the_limit_is_an_error_under_a_text_protocol() -> None:
    from frontier.app.cst.sse_text import TextSSETransducer

    t = make_transducer("ctl-heredoc", wire=codec("openai-chat"), sse=True)
    assert isinstance(t, TextSSETransducer)
    t._sse.max_line = 1024  # the limit, made small
    head = chunk({"content": "Looking.\n"})
    events = t.feed(head + b"data: " + b"x" * 4096 + b"\n\n") + t.finish(True)
    errors = errors_of(events)
    assert [e.kind for e in errors] == ["limit"], events
    assert isinstance(errors[0], ContractError) and "passed 1024 bytes" in errors[0].message
    assert t.feed(chunk({"content": "more"})) == []  # nothing more is read


def test_an_envelope_holding_infinity_keeps_its_text() -> None:
    """``"logprob": -Infinity`` in a chunk (a server's log-probabilities): the chunk was
    read as unreadable and its text lost once safejson refused the constant everywhere."""
    from frontier.app.model.stream import TextDelta

    decoder = codec("openai-chat").decoder()
    chunk_text = (
        '{"choices":[{"index":0,"delta":{"content":"Hello"},'
        '"logprobs":{"content":[{"token":"Hello","logprob":-Infinity}]}}]}'
    )
    assert TextDelta("Hello") in decoder.feed("message", chunk_text)
