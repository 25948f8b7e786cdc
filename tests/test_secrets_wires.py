"""The SSE scrubber on every wire: a key the model writes in pieces, split across events at
every point, is masked in place (same lengths) in the text and in a call's arguments,
wherever that wire's events carry them (``WireCodec.streamed_text``)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from frontier.app.model.registry import codec
from frontier.app.model.stream import CallArgs, CallDone, text_of
from frontier.app.model.wires.openai_chat import DETAILS
from frontier.app.secrets import Scrubber, SSEScrubber
from frontier.app.session.record import Recording, scrub_recording
from frontier.app.session.store import SessionStore
from frontier.app.vocab import WIRES

KEY = "sk-frontier-TEST-9f2c1e7d4b3a"
MASKED = "*" * len(KEY)


def available(wire: str) -> bool:
    module = wire.replace("-", "_")
    return importlib.util.find_spec(f"frontier.app.model.wires.{module}") is not None


def events(wire: str, text: list[str], args: list[str]) -> list[str]:
    """A reply streaming ``text`` pieces, then one call whose arguments stream in ``args``
    pieces, as ``wire``'s server sends them (SSE data strings)."""
    whole = "".join(args)
    if wire == "openai-chat":

        def chunk(delta: dict[str, object], finish: str | None = None) -> str:
            return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

        call = {"index": 0, "id": "call_1", "type": "function"}
        return [
            *(chunk({"content": p}) for p in text),
            chunk({"tool_calls": [{**call, "function": {"name": "shell", "arguments": ""}}]}),
            *(chunk({"tool_calls": [{"index": 0, "function": {"arguments": a}}]}) for a in args),
            chunk({}, "tool_calls"),
            "[DONE]",
        ]
    if wire == "anthropic-messages":
        message = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
        tool = {"type": "tool_use", "id": "toolu_1", "name": "shell", "input": {}}
        out: list[dict[str, object]] = [
            {"type": "message_start", "message": {**message, "model": "claude", "usage": {}}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            *(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": p},
                }
                for p in text
            ),
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": tool},
            *(
                {
                    "type": "content_block_delta",
                    "index": 1,
                    "delta": {"type": "input_json_delta", "partial_json": a},
                }
                for a in args
            ),
            {"type": "content_block_stop", "index": 1},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
            {"type": "message_stop"},
        ]
        return [json.dumps(e) for e in out]
    assert wire == "openai-responses"
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "shell"}
    out = [
        {"type": "response.created", "response": {"id": "r1", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": message},
        *(
            {
                "type": "response.output_text.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": p,
            }
            for p in text
        ),
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**call, "arguments": ""},
        },
        *(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc_1",
                "output_index": 1,
                "delta": a,
            }
            for a in args
        ),
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "output_index": 1,
            "arguments": whole,
        },
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {**call, "arguments": whole, "status": "completed"},
        },
        {"type": "response.completed", "response": {"id": "r1", "status": "completed"}},
    ]
    return [json.dumps(e) for e in out]


def read(wire: str, data: list[str]) -> tuple[str, str]:
    """The text and the call's arguments (the whole ones when the wire repeats them, else
    the pieces) as ``wire``'s decoder reads them."""
    decoder = codec(wire).decoder()
    text, pieces, whole = "", "", None
    for d in data:
        deltas = decoder.feed("message", d)
        text += text_of(deltas)
        for delta in deltas:
            if isinstance(delta, CallArgs):
                pieces += delta.data
            elif isinstance(delta, CallDone) and delta.arguments is not None:
                whole = delta.arguments
    if whole is not None:
        assert whole == pieces, "the repeated arguments agree with the pieces"
    return text, pieces


@pytest.mark.parametrize("wire", WIRES)
def test_a_key_split_across_events_is_masked_in_place_on_every_wire(wire: str) -> None:
    if not available(wire):
        pytest.skip(f"no {wire} adapter yet")
    fields = codec(wire).streamed_text
    arguments = json.dumps({"command": f"echo {KEY}"})
    at = arguments.index(KEY)
    for cut in range(1, len(KEY)):
        text = ["your key is ", KEY[:cut], KEY[cut:] + " (done)"]
        args = [arguments[: at + cut], arguments[at + cut :]]
        data = events(wire, text, args)
        sse = SSEScrubber(Scrubber([KEY]), fields=fields)
        out = [e for i, d in enumerate(data) for e in sse.feed(float(i), d)] + sse.flush()
        assert [t for t, _ in out] == [float(i) for i in range(len(data))]  # none lost
        for (_, after), before in zip(out, data, strict=True):
            assert len(after.encode()) == len(before.encode())  # offsets stay valid
            assert KEY not in after and KEY[:cut] + KEY[cut:] not in after
        masked = [d for _, d in out]
        said, called = read(wire, masked)
        assert said == f"your key is {MASKED} (done)", (wire, cut)
        assert json.loads(called) == {"command": f"echo {MASKED}"}, (wire, cut)
        assert read(wire, data) == ("".join(text), arguments)  # the test reads what it wrote


@pytest.mark.parametrize("wire", WIRES)
def test_the_store_and_replay_mask_by_the_responses_wire(tmp_path: Path, wire: str) -> None:
    if not available(wire):
        pytest.skip(f"no {wire} adapter yet")
    arguments = json.dumps({"command": f"echo {KEY}"})
    at = arguments.index(KEY) + 5
    data = events(wire, ["key: ", KEY[:7], KEY[7:]], [arguments[:at], arguments[at:]])
    with SessionStore.open(tmp_path / "s.db", secrets=[KEY]) as store:
        sid = store.create_session(str(tmp_path), "m", None, "native-inc", wire=wire)
        rid = store.begin_response(sid, "native-inc", "m", 0, wire=wire)
        for i, d in enumerate(data):
            store.add_stream_event(rid, i / 10, d)
        store.end_response(rid, "tool_calls")
        (response,) = store.recordings(sid)
    stored = [d for _, d in response.events]
    assert all(KEY[:7] not in d and KEY[7:] not in d for d in stored)
    assert read(wire, stored)[0] == f"key: {MASKED}"
    # a recording from elsewhere is masked by its own wire before it is replayed
    raw = Recording("ctl", "m", "", tuple((i / 10, d) for i, d in enumerate(data)), wire=wire)
    scrubbed = scrub_recording(raw, Scrubber([KEY]))
    assert scrubbed.wire == wire and [d for _, d in scrubbed.events] == stored
    assert scrubbed.transducer_input("ctl") == f"key: {MASKED}".encode()


def test_a_key_split_across_openrouters_reasoning_details_is_masked_in_place() -> None:
    """OpenRouter streams reasoning twice: as ``reasoning`` and as ``reasoning_details``
    text pieces; both are the model's words, kept with the response and sent back."""
    fields = codec("openai-chat").streamed_text
    detail = {"type": "reasoning.text", "index": 0, "format": "unknown"}
    for cut in range(1, len(KEY)):
        pieces = ["the key ", KEY[:cut], KEY[cut:] + " is set"]
        data = [
            json.dumps({"choices": [{"index": 0, "delta": {DETAILS: [{**detail, "text": p}]}}]})
            for p in pieces
        ]
        sse = SSEScrubber(Scrubber([KEY]), fields=fields)
        out = [d for i, e in enumerate(data) for _, d in sse.feed(float(i), e)]
        out += [d for _, d in sse.flush()]
        texts = [json.loads(d)["choices"][0]["delta"][DETAILS][0]["text"] for d in out]
        assert "".join(texts) == f"the key {MASKED} is set", cut
