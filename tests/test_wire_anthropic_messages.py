"""The Anthropic Messages wire: decoding its events, transducing its calls, encoding its
requests (app/model/wires/anthropic_messages.py)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst.base import calls_of, errors_of
from frontier.app.cst.native import NativeSSETransducer
from frontier.app.events import Event, TokenUsage, ToolCall
from frontier.app.model import conversation as conv
from frontier.app.model.conversation import (
    AssistantTurn,
    CallEntry,
    Item,
    Reasoning,
    ResultEntry,
    ToolResults,
    UserText,
)
from frontier.app.model.request import ModelRequest, ToolSchema
from frontier.app.model.stream import (
    CallArgs,
    CallDone,
    CallStart,
    Delta,
    End,
    Finish,
    Ignored,
    Malformed,
    ReasoningBlock,
    ReasoningDelta,
    ServerError,
    ServerToolCall,
    TextDelta,
    Unreadable,
    UsageDelta,
)
from frontier.app.model.wires import anthropic_messages as am
from frontier.app.model.wires.anthropic_messages import Codec, encode_messages, tool_id

WIRE = "anthropic-messages"

# --------------------------------------------------------------------------- stream builders


def message_start(input_tokens: int = 10, **usage: int) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [],
            "usage": {"input_tokens": input_tokens, "output_tokens": 1, **usage},
        },
    }


def start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, body: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": body}


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def text_block(index: int, *pieces: str) -> list[dict[str, Any]]:
    return [
        start(index, {"type": "text", "text": ""}),
        *(delta(index, {"type": "text_delta", "text": p}) for p in pieces),
        stop(index),
    ]


def tool_block(
    index: int, ident: str, name: str, *pieces: str, start_input: Any = None
) -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": ident, "name": name, "input": start_input or {}}
    return [
        start(index, block),
        *(delta(index, {"type": "input_json_delta", "partial_json": p}) for p in pieces),
        stop(index),
    ]


def thinking_block(index: int, pieces: list[str], signature: list[str]) -> list[dict[str, Any]]:
    return [
        start(index, {"type": "thinking", "thinking": "", "signature": ""}),
        *(delta(index, {"type": "thinking_delta", "thinking": p}) for p in pieces),
        *(delta(index, {"type": "signature_delta", "signature": s}) for s in signature),
        stop(index),
    ]


def message_delta(reason: str | None, output_tokens: int = 5) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": None},
        "usage": {"output_tokens": output_tokens},
    }


PING = {"type": "ping"}
MESSAGE_STOP = {"type": "message_stop"}


def sse(events: list[dict[str, Any]], named: bool = True) -> bytes:
    """An SSE body as the API sends it (``event:`` line, ``data:`` line, blank line)."""
    out = []
    for e in events:
        head = f"event: {e.get('type', 'message')}\n" if named else ""
        out.append(f"{head}data: {json.dumps(e)}\n\n")
    return "".join(out).encode("utf-8")


def decode(events: list[dict[str, Any]]) -> list[Delta]:
    decoder = Codec().decoder()
    out: list[Delta] = []
    for e in events:
        out += decoder.feed(str(e.get("type", "message")), json.dumps(e))
    return out


def transduce(body: bytes, incremental: bool, pieces: list[bytes] | None = None) -> list[Event]:
    t = NativeSSETransducer(incremental, Codec())
    events: list[Event] = []
    for piece in pieces if pieces is not None else [body]:
        events += t.feed(piece)
    return events + t.finish(True)


def call_tuples(calls: list[ToolCall]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(c.id, c.name, dict(c.args)) for c in calls]


TEXT_THEN_CALL = [
    message_start(),
    *text_block(0, "Let me ", "look."),
    PING,
    *tool_block(1, "toolu_1", "read", "", '{"pa', 'th": "a.py"}'),
    message_delta("tool_use"),
    MESSAGE_STOP,
]


# --------------------------------------------------------------------------- decoding


def test_text_then_call_decodes_to_neutral_deltas() -> None:
    deltas = decode(TEXT_THEN_CALL)
    assert [d for d in deltas if isinstance(d, TextDelta)] == [
        TextDelta("Let me "),
        TextDelta("look."),
    ]
    assert CallStart(1, "toolu_1", "read") in deltas
    assert [d.data for d in deltas if isinstance(d, CallArgs)] == ['{"pa', 'th": "a.py"}']
    assert CallDone(1) in deltas
    assert Finish("tool_calls", "tool_use") in deltas
    assert isinstance(deltas[-1], End)


@pytest.mark.parametrize("incremental", [True, False])
def test_text_then_call_runs(incremental: bool) -> None:
    events = transduce(sse(TEXT_THEN_CALL), incremental)
    assert call_tuples(calls_of(events)) == [("toolu_1", "read", {"path": "a.py"})]
    assert errors_of(events) == []


def test_native_inc_runs_a_call_at_its_block_stop() -> None:
    """The stop of block 1 proves call 1 while the stream goes on (DESIGN §4)."""
    t = NativeSSETransducer(True, Codec())
    head = sse(TEXT_THEN_CALL[: TEXT_THEN_CALL.index(stop(1)) + 1])
    assert call_tuples(calls_of(t.feed(head))) == [("toolu_1", "read", {"path": "a.py"})]


def test_usage_counts_the_whole_prompt_and_the_cached_part() -> None:
    deltas = decode(
        [
            message_start(7, cache_read_input_tokens=100, cache_creation_input_tokens=3),
            message_delta("end_turn", output_tokens=42),
        ]
    )
    usages = [d.usage for d in deltas if isinstance(d, UsageDelta)]
    assert usages[0] == TokenUsage(prompt=110, completion=1, cached=100)
    assert usages[-1] == TokenUsage(prompt=110, completion=42, cached=100)


def test_usage_from_message_delta_overrides_the_start() -> None:
    later = message_delta("end_turn", 9)
    later["usage"].update(input_tokens=50, cache_read_input_tokens=0)
    deltas = decode([message_start(7, cache_read_input_tokens=100), later])
    assert [d.usage for d in deltas if isinstance(d, UsageDelta)][-1] == TokenUsage(50, 9, 0)


def test_thinking_with_signature_becomes_one_reasoning_block_before_the_call() -> None:
    events = [
        message_start(),
        *thinking_block(0, ["I should ", "read it."], ["Ep4", "Bx=="]),
        *tool_block(1, "toolu_1", "read", '{"path": "a"}'),
        message_delta("tool_use"),
        MESSAGE_STOP,
    ]
    deltas = decode(events)
    assert [d.text for d in deltas if isinstance(d, ReasoningDelta)] == ["I should ", "read it."]
    blocks = [d for d in deltas if isinstance(d, ReasoningBlock)]
    assert blocks == [
        ReasoningBlock(
            {"type": "thinking", "thinking": "I should read it.", "signature": "Ep4Bx=="}
        )
    ]
    assert deltas.index(blocks[0]) < deltas.index(CallStart(1, "toolu_1", "read"))
    assert not any(isinstance(d, TextDelta) for d in deltas)


def test_redacted_thinking_is_kept_as_it_came() -> None:
    events = [
        message_start(),
        start(0, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}),
        stop(0),
        *text_block(1, "Hi"),
        message_delta("end_turn"),
    ]
    deltas = decode(events)
    assert ReasoningBlock({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}) in deltas
    assert not any(isinstance(d, ReasoningDelta) for d in deltas)


def test_a_thinking_block_past_the_cap_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(am, "MAX_KEPT", 10)
    deltas = decode([*thinking_block(0, ["abcdef", "ghijkl"], ["sig"]), message_delta("end_turn")])
    assert not any(isinstance(d, ReasoningBlock) for d in deltas)
    assert any(isinstance(d, Ignored) and "not kept" in d.note for d in deltas)
    assert [d.text for d in deltas if isinstance(d, ReasoningDelta)] == ["abcdef", "ghijkl"]


def test_an_empty_thinking_block_is_not_sent_back() -> None:
    assert not any(isinstance(d, ReasoningBlock) for d in decode(thinking_block(0, [], [])))
    omitted = decode(thinking_block(0, [], ["EqQB"]))  # thinking hidden, signature kept
    assert ReasoningBlock({"type": "thinking", "thinking": "", "signature": "EqQB"}) in omitted


def test_the_start_input_is_a_placeholder_when_pieces_follow() -> None:
    """``input: {}`` (or anything) in the start is never prepended to the pieces."""
    events = [
        message_start(),
        *tool_block(0, "toolu_1", "grep", '{"q": 1}', start_input={"q": 0}),
        message_delta("tool_use"),
    ]
    assert CallDone(0) in decode(events)
    for incremental in (True, False):
        calls = calls_of(transduce(sse(events), incremental))
        assert call_tuples(calls) == [("toolu_1", "grep", {"q": 1})]


@pytest.mark.parametrize("incremental", [True, False])
def test_input_given_whole_in_the_start_is_the_arguments(incremental: bool) -> None:
    events = [
        message_start(),
        *tool_block(0, "toolu_d", "query", start_input={"sql": "SELECT 1", "n": [1, "é"]}),
        message_delta("tool_use"),
    ]
    assert CallDone(0, arguments='{"sql":"SELECT 1","n":[1,"é"]}') in decode(events)
    calls = calls_of(transduce(sse(events, named=False), incremental))
    assert call_tuples(calls) == [("toolu_d", "query", {"sql": "SELECT 1", "n": [1, "é"]})]


@pytest.mark.parametrize("pieces", [(), ("",)])
@pytest.mark.parametrize("incremental", [True, False])
def test_a_call_without_parameters_has_empty_arguments(
    pieces: tuple[str, ...], incremental: bool
) -> None:
    events = [
        message_start(),
        *tool_block(0, "toolu_e", "version", *pieces),
        message_delta("tool_use"),
        MESSAGE_STOP,
    ]
    events_out = transduce(sse(events), incremental)
    assert call_tuples(calls_of(events_out)) == [("toolu_e", "version", {})]
    assert errors_of(events_out) == []


def test_ping_means_nothing() -> None:
    assert decode([PING]) == []
    assert Codec().decoder().feed("ping", '{"type": "ping"}') == []


def test_an_error_event_is_a_server_error() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert decode([error]) == [ServerError("Overloaded (overloaded_error)")]
    assert Codec().decoder().feed("error", "upstream gone") == [ServerError("upstream gone")]


@pytest.mark.parametrize("incremental", [True, False])
def test_an_error_mid_call_runs_nothing(incremental: bool) -> None:
    events = [
        message_start(),
        start(0, {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {}}),
        delta(0, {"type": "input_json_delta", "partial_json": '{"path": "a"'}),
        {"type": "error", "error": {"type": "api_error", "message": "boom"}},
    ]
    out = transduce(sse(events), incremental)
    assert calls_of(out) == []
    assert [e.kind for e in errors_of(out)] == ["truncated"]


MAX_TOKENS_MID_CALL = [
    message_start(),
    *text_block(0, "Writing two files."),
    *tool_block(1, "toolu_1", "write", '{"path": "a", "text": "x"}'),
    start(2, {"type": "tool_use", "id": "toolu_2", "name": "write", "input": {}}),
    delta(2, {"type": "input_json_delta", "partial_json": '{"path": "b", "te'}),
    message_delta("max_tokens"),
    MESSAGE_STOP,
]


def test_max_tokens_mid_call_native_inc_keeps_the_whole_call_and_truncates_the_cut_one() -> None:
    out = transduce(sse(MAX_TOKENS_MID_CALL), True)
    assert [c.id for c in calls_of(out)] == ["toolu_1"]
    [error] = errors_of(out)
    assert error.kind == "truncated" and "toolu_2" in error.message


def test_max_tokens_mid_call_native_eos_runs_nothing() -> None:
    out = transduce(sse(MAX_TOKENS_MID_CALL), False)
    assert calls_of(out) == []
    assert {e.kind for e in errors_of(out)} == {"truncated"}
    assert Finish("length", "max_tokens") in decode(MAX_TOKENS_MID_CALL)


LLAMA_CUT = [*MAX_TOKENS_MID_CALL[:-2], stop(2), message_delta("max_tokens"), MESSAGE_STOP]
"""llama.cpp's server ends every open block, the one ``max_tokens`` cut too, before it
says ``max_tokens`` (the rig, issue 20's wire: seen in 2 of 6 cut runs)."""


@pytest.mark.parametrize("incremental", [True, False])
@pytest.mark.parametrize("bytewise", [False, True], ids=["whole", "every-byte"])
def test_a_call_cut_by_max_tokens_is_truncated_though_its_block_was_stopped(
    incremental: bool, bytewise: bool
) -> None:
    """Its ``content_block_stop`` proved the call complete, so native-inc parsed it there:
    ``bad_json`` ("send valid JSON"), the response's end never read."""
    body = sse(LLAMA_CUT)
    out = transduce(
        body, incremental, [body[i : i + 1] for i in range(len(body))] if bytewise else None
    )
    assert [c.id for c in calls_of(out)] == (["toolu_1"] if incremental else [])
    kinds = {e.kind for e in errors_of(out)}
    assert kinds == {"truncated"}
    assert any(
        "toolu_2" in e.message and "by finish_reason=length" in e.message for e in errors_of(out)
    )


def test_a_stopped_call_whose_json_never_closed_is_cut_though_the_end_is_clean() -> None:
    """The same bytes with ``tool_use`` as the stop reason: read as Chat's ``tool_calls``
    after a cut call is read (the server's output limit, most likely), never run."""
    out = transduce(sse([*LLAMA_CUT[:-2], message_delta("tool_use"), MESSAGE_STOP]), True)
    assert [c.id for c in calls_of(out)] == ["toolu_1"]
    [error] = errors_of(out)
    assert error.kind == "truncated" and "although the server said" in error.message


def test_a_stopped_call_whose_json_never_closed_then_another_call_is_bad_json() -> None:
    """A call after it proves the model went on: its JSON is broken, not cut, and nothing
    after it runs (calls run in the order they were written)."""
    events = [
        message_start(),
        *tool_block(0, "toolu_1", "write", '{"path": "b", "te'),
        *tool_block(1, "toolu_2", "read", '{"path": "a.py"}'),
        message_delta("tool_use"),
        MESSAGE_STOP,
    ]
    out = transduce(sse(events), True)
    assert calls_of(out) == []
    [error] = errors_of(out)
    assert error.kind == "bad_json" and "toolu_1" in error.message


@pytest.mark.parametrize("incremental", [True, False])
def test_a_second_call_at_a_used_index_is_another_call(incremental: bool) -> None:
    """A server that numbers two ``tool_use`` blocks alike (each started, filled and
    stopped in turn: a counting slip ``check`` names as the server's): the second call's
    arguments were read as late bytes of the first, and it was lost."""
    events = [
        message_start(),
        *tool_block(0, "toolu_1", "read", '{"path": "a.py"}'),
        *text_block(0, "and"),
        *tool_block(0, "toolu_2", "read", '{"path": "b.py"}'),
        *tool_block(1, "toolu_3", "read", '{"path": "c.py"}'),
        message_delta("tool_use"),
        MESSAGE_STOP,
    ]
    out = transduce(sse(events), incremental)
    assert [(c.id, dict(c.args)) for c in calls_of(out)] == [
        ("toolu_1", {"path": "a.py"}),
        ("toolu_2", {"path": "b.py"}),
        ("toolu_3", {"path": "c.py"}),
    ]
    assert errors_of(out) == []


@pytest.mark.parametrize("incremental", [True, False])
def test_pause_turn_is_a_clean_end(incremental: bool) -> None:
    events = [
        message_start(),
        *text_block(0, "Searching"),
        *tool_block(1, "toolu_1", "read", '{"path": "a"}'),
        message_delta("pause_turn"),
    ]
    assert Finish("pause", "pause_turn") in decode(events)
    out = transduce(sse(events), incremental)
    assert [c.id for c in calls_of(out)] == ["toolu_1"]
    assert errors_of(out) == []


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("tool_use", "tool_calls"),
        ("max_tokens", "length"),
        ("pause_turn", "pause"),
        ("refusal", "content_filter"),
        ("model_context_window_exceeded", "length"),
        ("something_new", "other"),
        # Chat's words, from a gateway translating another API (they were "other": the
        # calls of every such message were taken for cut and never ran)
        ("tool_calls", "tool_calls"),
        ("stop", "stop"),
        ("END_TURN", "stop"),
    ],
)
def test_stop_reasons_are_normalised_and_kept_raw(raw: str, reason: str) -> None:
    assert decode([message_delta(raw)])[0] == Finish(reason, raw)  # type: ignore[arg-type]


def test_a_null_stop_reason_is_no_finish() -> None:
    assert not any(isinstance(d, Finish) for d in decode([message_delta(None)]))


@pytest.mark.parametrize("incremental", [True, False])
def test_server_tools_are_shown_and_never_run(incremental: bool) -> None:
    events = [
        message_start(),
        start(
            0, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
        ),
        delta(0, {"type": "input_json_delta", "partial_json": '{"query": "x"}'}),
        stop(0),
        start(1, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}),
        stop(1),
        start(2, {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "db", "input": {"a": 1}}),
        stop(2),
        *text_block(3, "Found it."),
        message_delta("end_turn"),
        MESSAGE_STOP,
    ]
    deltas = decode(events)
    shown = [d for d in deltas if isinstance(d, ServerToolCall)]
    assert shown == [ServerToolCall("web_search", "srvtoolu_1"), ServerToolCall("db", "mcptoolu_1")]
    assert not any(isinstance(d, CallStart | CallArgs | CallDone) for d in deltas)
    out = transduce(sse(events), incremental)
    assert calls_of(out) == [] and errors_of(out) == []


def test_other_blocks_are_passed_over() -> None:
    events = [
        message_start(),
        start(0, {"type": "fallback", "from": {"model": "a"}, "to": {"model": "b"}}),
        stop(0),
        start(1, {"type": "compaction", "content": None}),
        delta(1, {"type": "compaction_delta", "content": "summary"}),
        stop(1),
        *text_block(2, "Hello"),
        message_delta("end_turn"),
    ]
    deltas = decode(events)
    assert [d for d in deltas if isinstance(d, TextDelta)] == [TextDelta("Hello")]


def test_junk_is_skipped_and_counted() -> None:
    decoder = Codec().decoder()
    assert decoder.feed("message", "not json") == [Unreadable("not json")]
    assert decoder.feed("message", "[1, 2]") == [Unreadable("[1, 2]")]
    assert decoder.feed("message", "") == []
    assert decoder.skipped == 2


def test_json_nested_past_the_limit_is_malformed_and_stops_reading() -> None:
    deep = '{"type": "content_block_delta", "index": 0, "delta": ' + "[" * 200 + "]" * 200 + "}"
    assert isinstance(Codec().decoder().feed("message", deep)[0], Malformed)
    body = sse([message_start(), start(0, {"type": "tool_use", "id": "t", "name": "n"})])
    body += f"data: {deep}\n\n".encode()
    out = transduce(body, True)
    assert [e.kind for e in errors_of(out)] == ["bad_json"]


def test_a_partial_json_that_is_not_a_string_is_malformed() -> None:
    events = [
        start(0, {"type": "tool_use", "id": "t", "name": "n", "input": {}}),
        delta(0, {"type": "input_json_delta", "partial_json": {"a": 1}}),
    ]
    assert isinstance(decode(events)[-1], Malformed)


def test_input_for_a_block_never_started_is_ignored() -> None:
    [ignored] = decode([delta(4, {"type": "input_json_delta", "partial_json": "{}"})])
    assert isinstance(ignored, Ignored)


def test_nothing_after_message_stop_belongs_to_the_response() -> None:
    deltas = decode([MESSAGE_STOP, *tool_block(0, "t", "n", "{}")])
    assert deltas[0] == End()
    assert all(isinstance(d, Ignored) for d in deltas[1:])
    decoder = Codec().decoder()
    assert decoder.feed("message", "[DONE]") == [End()]
    assert decoder.feed("message", "[DONE]") == []


@given(st.text(max_size=300), st.sampled_from(["message", "error", "ping", "content_block_delta"]))
def test_the_decoder_never_raises_on_junk(data: str, event: str) -> None:
    decoder = Codec().decoder()
    decoder.feed(event, data)
    list(Codec().streamed_text(data))


JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4), st.floats(allow_nan=False)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


EVENT_TYPES = (
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(EVENT_TYPES),
            st.one_of(st.none(), st.integers(-1, 3), st.text(max_size=2)),
            JSON_VALUES,
        ),
        max_size=12,
    )
)
def test_the_decoder_never_raises_on_wrong_shapes(
    events: list[tuple[str, Any, Any]],
) -> None:
    decoder = Codec().decoder()
    for kind, index, value in events:
        for obj in (
            {"type": kind, "index": index, "delta": value, "content_block": value},
            {"type": kind, "message": value, "usage": value},
            {
                "type": kind,
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": value},
            },
        ):
            data = json.dumps(obj)
            decoder.feed(kind, data)
            for _key, path, text in Codec().streamed_text(data):
                assert _at(json.loads(data), path) == text


# --------------------------------------------------------------------------- chunking


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[tuple[str, str, dict[str, Any]]]]:
    """A response of random blocks and the calls it carries."""
    events: list[dict[str, Any]] = [message_start()]
    calls: list[tuple[str, str, dict[str, Any]]] = []
    count = draw(st.integers(0, 5))
    for index in range(count):
        kind = draw(st.sampled_from(["text", "thinking", "tool", "tool", "server"]))
        if draw(st.booleans()):
            events.append(PING)
        if kind == "text":
            events += text_block(
                index, *draw(st.lists(st.text(min_size=1, max_size=8), max_size=3))
            )
        elif kind == "thinking":
            pieces = draw(st.lists(st.text(min_size=1, max_size=8), max_size=3))
            events += thinking_block(index, pieces, ["sig"])
        elif kind == "server":
            block = {
                "type": "server_tool_use",
                "id": f"srv{index}",
                "name": "web_search",
                "input": {},
            }
            events += [
                start(index, block),
                delta(index, {"type": "input_json_delta", "partial_json": '{"q": "a"}'}),
                stop(index),
            ]
        else:
            args = draw(st.dictionaries(st.text(max_size=4), JSON_SCALARS, max_size=3))
            text = json.dumps(args, ensure_ascii=False)
            ident = f"toolu_{index}"
            if draw(st.booleans()) and args:
                events += tool_block(index, ident, "tool", start_input=args)
            else:
                cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
                pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
                events += tool_block(index, ident, "tool", *pieces)
            calls.append((ident, "tool", args))
    events.append(message_delta("tool_use" if calls else "end_turn"))
    if draw(st.booleans()):
        events.append(MESSAGE_STOP)
    return events, calls


@given(streams(), st.booleans(), st.booleans(), st.data())
def test_any_chunking_gives_the_calls_of_the_one_piece_run(
    stream: tuple[list[dict[str, Any]], list[tuple[str, str, dict[str, Any]]]],
    incremental: bool,
    named: bool,
    data: st.DataObject,
) -> None:
    events, expected = stream
    body = sse(events, named)
    whole = transduce(body, incremental)
    assert call_tuples(calls_of(whole)) == expected
    assert errors_of(whole) == []
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=20)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    chunked = transduce(body, incremental, pieces)
    assert call_tuples(calls_of(chunked)) == expected


# --------------------------------------------------------------------------- streamed text


def test_streamed_text_finds_every_model_string() -> None:
    codec = Codec()
    events = [
        *text_block(0, "sk-secret"),
        *thinking_block(1, ["think sk-"], ["sig"]),
        *tool_block(2, "toolu_1", "read", '{"key": "sk-'),
        start(3, {"type": "tool_use", "id": "t", "name": "run", "input": {"env": ["A=sk-x"]}}),
        start(4, {"type": "text", "text": "first"}),
        start(5, {"type": "thinking", "thinking": "hmm", "signature": ""}),
    ]
    found = {}
    for e in events:
        data = json.dumps(e)
        for key, path, text in codec.streamed_text(data):
            assert _at(json.loads(data), path) == text
            found[text] = key
    assert found["sk-secret"] == ("text", 0)
    assert found["think sk-"] == ("thinking", 1)
    assert found['{"key": "sk-'] == ("input", 2)
    assert found["A=sk-x"] == ("input", 3, "env", 0)
    assert found["run"] == ("name", 3)
    assert found["first"] == ("text", 4) and found["hmm"] == ("thinking", 5)
    assert "sig" not in found  # a signature is the server's, not the model's
    assert list(codec.streamed_text("not json")) == []


def _at(obj: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        obj = obj[step]
    return obj


# --------------------------------------------------------------------------- answers, errors


def test_json_answer_reads_a_message_object() -> None:
    message = {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hm", "signature": "s"},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
            {"type": "tool_use", "id": "toolu_2", "name": "ls", "input": {}},
            {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 5, "output_tokens": 7},
    }
    deltas = Codec().json_answer(message)
    assert deltas is not None
    assert ReasoningBlock({"type": "thinking", "thinking": "hm", "signature": "s"}) in deltas
    assert TextDelta("Reading.") in deltas
    assert ServerToolCall("web_search", "srv") in deltas
    assert Finish("tool_calls", "tool_use") in deltas
    assert UsageDelta(TokenUsage(5, 7, None)) in deltas
    assert deltas[-1] == End()
    from frontier.app.cst.native import NativeAccumulator

    acc = NativeAccumulator(True, signals_done=True)
    _, events = acc.feed(deltas)
    events += acc.finish(True)
    assert call_tuples(calls_of(events)) == [
        ("toolu_1", "read", {"path": "a"}),
        ("toolu_2", "ls", {}),
    ]


@pytest.mark.parametrize("obj", [None, [], {"choices": []}, {"type": "error"}, {"content": "x"}])
def test_json_answer_is_none_for_anything_else(obj: Any) -> None:
    assert Codec().json_answer(obj) is None


def test_error_text() -> None:
    codec = Codec()
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "max_tokens: too big"},
    }
    assert codec.error_text(body) == "max_tokens: too big (invalid_request_error)"
    assert codec.error_text({"type": "overloaded_error", "message": "Overloaded"}) == (
        "Overloaded (overloaded_error)"
    )
    assert codec.error_text("plain") == "plain"
    assert codec.error_text({"error": {"code": 5}}) == '{"code":5}'
    assert len(codec.error_text({"message": "x" * 10_000})) == am.MAX_ERROR
    assert codec.rejected(400, "anything") is None


# --------------------------------------------------------------------------- encoding


def request(*items: Item, tools: bool = True, **kw: Any) -> ModelRequest:
    schemas = (ToolSchema("read", "Read a file.", {"type": "object", "properties": {}}),)
    return ModelRequest("You are Frontier.", tuple(items), schemas if tools else (), **kw)


def test_headers() -> None:
    headers = Codec().headers("sk-ant-1")
    assert headers["x-api-key"] == "sk-ant-1"
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["accept"] == "text/event-stream"
    assert headers["content-type"] == "application/json"
    assert not any(k.lower() == "authorization" for k in headers)
    assert "x-api-key" not in Codec().headers(None)


def uncached() -> Codec:
    """A codec without prompt-cache breakpoints: these tests read the encoding itself
    (``test_prompt_cache_*`` read the breakpoints)."""
    codec = Codec()
    codec.cache = False
    return codec


def test_body_basics() -> None:
    body = uncached().body(
        request(UserText("hi"), extra={"temperature": 0, "stream": False}), "claude"
    )
    assert body["model"] == "claude" and body["system"] == "You are Frontier."
    assert body["max_tokens"] == am.DEFAULT_MAX_TOKENS
    assert body["stream"] is True and body["temperature"] == 0
    assert body["tools"] == [
        {
            "name": "read",
            "description": "Read a file.",
            "input_schema": {"type": "object", "properties": {}},
        }
    ]
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert uncached().body(request(UserText("hi"), max_tokens=1000), "m")["max_tokens"] == 1000
    assert "tools" not in uncached().body(request(UserText("hi"), tools=False), "m")
    assert "system" not in uncached().body(ModelRequest("", (UserText("hi"),)), "m")


def test_a_tool_round_with_reasoning() -> None:
    thinking = {"type": "thinking", "thinking": "Let me read.", "signature": "EqQB"}
    items = (
        UserText("read a"),
        AssistantTurn(
            "",
            (CallEntry("toolu_1", "read", {"path": "a"}),),
            (Reasoning(WIRE, thinking), Reasoning("openai-responses", {"type": "reasoning"})),
        ),
        ToolResults((ResultEntry("toolu_1", "read", "ok", 0, "contents"),)),
    )
    messages = uncached().body(request(*items), "m")["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == [
        thinking,  # first and unchanged; the other wire's item is not sent
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
    ]
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "contents", "is_error": False}
    ]


def test_thinking_is_left_out_where_a_tool_loop_goes_on_without_it() -> None:
    """``/effort high`` mid-turn, or a resume's results for calls made without thinking:
    the API refuses thinking when the assistant message whose results the request sends
    does not start with a thinking block, and that refusal turned thinking off for the
    rest of the session. Left out of that request only; asked again from the next
    message, and wherever the loop's message did think."""
    call = (CallEntry("toolu_1", "read", {"path": "a"}),)
    result = ToolResults((ResultEntry("toolu_1", "read", "ok", 0, "contents"),))
    thought = (Reasoning(WIRE, {"type": "thinking", "thinking": "Hm.", "signature": "Eq"}),)
    codec = uncached()
    unthought = (UserText("read a"), AssistantTurn("", call), result)
    assert "thinking" not in codec.body(request(*unthought, effort="high"), "claude-opus-4-7")
    then = (*unthought, AssistantTurn("It says contents."), UserText("and b?"))
    assert codec.body(request(*then, effort="high"), "claude-opus-4-7")["thinking"] == {
        "type": "adaptive"
    }
    thinking = (UserText("read a"), AssistantTurn("", call, thought), result)
    assert "thinking" in codec.body(request(*thinking, effort="high"), "claude-opus-4-7")
    assert codec.thinking  # nothing refused: nothing turned off


def test_failed_results_are_errors_and_empty_ones_say_so() -> None:
    calls = (CallEntry("a", "run"), CallEntry("b", "apply_patch"), CallEntry("c", "run"))
    results = (
        ResultEntry("a", "run", "error", 1, "[error] exit 1"),
        ResultEntry("b", "apply_patch", "applied", 0, "done"),
        ResultEntry("c", "run", "ok", 0, ""),
    )
    items = (UserText("go"), AssistantTurn("Running.", calls), ToolResults(results))
    content = uncached().body(request(*items), "m")["messages"][2]["content"]
    assert [(b["is_error"], b["content"]) for b in content] == [
        (True, "[error] exit 1"),
        (False, "done"),
        (False, am.EMPTY_RESULT),
    ]


def test_an_interrupted_turn_keeps_alternation() -> None:
    items = (
        UserText("write it"),
        AssistantTurn("I will wr", cut="[Reply interrupted by the user]"),
        UserText("no, stop"),
    )
    messages = uncached().body(request(*items), "m")["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == [
        {"type": "text", "text": "I will wr\n\n[Reply interrupted by the user]"}
    ]


def test_a_crash_recovered_call_is_answered_not_executed() -> None:
    items = (
        UserText("run"),
        AssistantTurn("", (CallEntry("toolu_9", "run", {"cmd": "ls"}),)),
        UserText("results reached you late: ...", "carried"),
    )
    messages = uncached().body(request(*items), "m")["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    result, text = messages[2]["content"]
    assert result["tool_use_id"] == "toolu_9" and result["is_error"] is True
    assert result["content"] == conv.NOT_EXECUTED
    assert text == {"type": "text", "text": "results reached you late: ..."}


def test_no_empty_text_blocks_are_sent() -> None:
    items = (
        UserText("   "),
        AssistantTurn("  \n", (CallEntry("t1", "read"),)),
        ToolResults((ResultEntry("t1", "read", "ok", 0, "x"),)),
        AssistantTurn(""),
    )
    messages = uncached().body(request(*items), "m")["messages"]
    assert messages[0]["content"] == [{"type": "text", "text": am.EMPTY_MESSAGE}]
    assert [b["type"] for b in messages[1]["content"]] == ["tool_use"]
    assert messages[3]["content"] == [{"type": "text", "text": conv.NO_REPLY}]
    for message in messages:
        for block in message["content"]:
            assert block["type"] != "text" or block["text"].strip()


def test_without_tools_calls_and_results_travel_as_text() -> None:
    items = (
        UserText("go"),
        AssistantTurn("ok", (CallEntry("t1", "read", {"p": 1}),)),
        ToolResults((ResultEntry("t1", "read", "ok", 0, "x"),)),
    )
    messages = uncached().body(request(*items, tools=False), "m")["messages"]
    types = {b["type"] for m in messages for b in m["content"]}
    assert types == {"text"}


def test_call_ids_are_made_to_fit_the_api() -> None:
    assert tool_id("toolu_01A-b") == "toolu_01A-b"
    odd = tool_id("functions.read:0")
    assert am._TOOL_ID.fullmatch(odd) and odd.startswith("functionsread0_")
    assert tool_id("a.b") != tool_id("a:b")
    assert am._TOOL_ID.fullmatch(tool_id("")) and am._TOOL_ID.fullmatch(tool_id("....."))
    items = (
        UserText("go"),
        AssistantTurn("", (CallEntry("functions.read:0", "read"),)),
        ToolResults((ResultEntry("functions.read:0", "read", "ok", 0, "x"),)),
    )
    messages = uncached().body(request(*items), "m")["messages"]
    assert messages[1]["content"][0]["id"] == messages[2]["content"][0]["tool_use_id"] == odd


def test_prefill_is_a_trailing_assistant_message() -> None:
    body = uncached().body(request(UserText("go"), prefill='run 1 3\n{"a'), "m")
    assert body["messages"][-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": 'run 1 3\n{"a'}],
    }
    merged = uncached().body(request(UserText("go"), AssistantTurn("Part one."), prefill="x"), "m")
    assert [m["role"] for m in merged["messages"]] == ["user", "assistant"]
    assert merged["messages"][-1]["content"][-1] == {"type": "text", "text": "x"}


@pytest.mark.parametrize("prefill", ["ends in a space ", "ends in a newline\n", " \n"])
def test_a_prefill_ending_in_whitespace_is_refused(prefill: str) -> None:
    with pytest.raises(ValueError, match="whitespace"):
        uncached().body(request(UserText("go"), prefill=prefill), "m")


IDS = st.sampled_from(["toolu_1", "call.2", "fn:3", "x", "toolu_5", "", "a b"])


@st.composite
def histories(draw: st.DrawFn) -> list[Item]:
    """Random histories: typed text, replies with calls (some interrupted), results that
    answer some of the last calls, strays, repeats, or nothing at all."""
    items: list[Item] = []
    serial = 0
    last_calls: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["user", "assistant", "results"]))
        if kind == "user":
            items.append(UserText(draw(st.sampled_from(["hi", "", "  ", "more"]))))
        elif kind == "assistant":
            calls = []
            for _ in range(draw(st.integers(0, 3))):
                serial += 1
                calls.append(CallEntry(f"{draw(IDS)}#{serial}", "read", {"n": serial}))
            last_calls = [c.id for c in calls]
            reasoning = (
                (Reasoning(WIRE, {"type": "thinking", "thinking": "t", "signature": "s"}),)
                if draw(st.booleans())
                else ()
            )
            text = draw(st.sampled_from(["", "ok", " \n", "Reading."]))
            cut = draw(st.sampled_from(["", "[Reply interrupted by the user]"]))
            items.append(AssistantTurn(text, tuple(calls), reasoning, cut))
        else:
            pool = [*last_calls, draw(IDS)]
            answered = draw(st.lists(st.sampled_from(pool), max_size=4))
            results = tuple(ResultEntry(i, "read", "ok", 0, "body") for i in answered)
            items.append(ToolResults(results, draw(st.sampled_from(["", "note"]))))
    return items


@given(histories(), st.booleans())
def test_any_history_encodes_to_valid_messages(items: list[Item], native: bool) -> None:
    messages = encode_messages(items, native=native, wire=WIRE)
    assert messages and messages[0]["role"] == "user"
    for before, after in itertools.pairwise(messages):
        assert before["role"] != after["role"]  # strict alternation
    for i, message in enumerate(messages):
        content = message["content"]
        assert content, "every message has a block"
        for block in content:
            assert block["type"] != "text" or block["text"].strip()
        types = [b["type"] for b in content]
        if message["role"] == "assistant":
            assert "tool_result" not in types
            thinking = [t for t in types if t == "thinking"]
            assert types[: len(thinking)] == thinking, "reasoning blocks come first"
            uses = [b["id"] for b in content if b["type"] == "tool_use"]
            assert all(am._TOOL_ID.fullmatch(u) for u in uses)
            if not native:
                assert not uses
            following = messages[i + 1]["content"] if i + 1 < len(messages) else []
            answers = [b["tool_use_id"] for b in following if b["type"] == "tool_result"]
            assert sorted(answers) == sorted(uses), "each tool_use answered exactly once, next"
            assert len(set(uses)) == len(uses)
        else:
            assert "tool_use" not in types and "thinking" not in types
            results = [j for j, t in enumerate(types) if t == "tool_result"]
            assert results == list(range(len(results))), "results come before text"
            if i == 0:
                assert not results


def test_a_call_id_another_server_reused_is_made_unique_with_its_result() -> None:
    """LM Studio and scripted servers reuse ``call_0`` in every response; the Messages
    API refuses a request naming one ``tool_use`` id twice."""
    from frontier.app.model.conversation import (
        AssistantTurn,
        CallEntry,
        ResultEntry,
        ToolResults,
        UserText,
    )
    from frontier.app.model.request import ModelRequest, ToolSchema
    from frontier.app.model.wires.anthropic_messages import Codec as Messages

    def round_(text: str) -> list[object]:
        call = CallEntry("call_0", "read", {"path": text})
        return [
            AssistantTurn("", (call,)),
            ToolResults((ResultEntry("call_0", "read", "ok", 0, text),)),
        ]

    items = [UserText("go"), *round_("a"), *round_("b"), UserText("and?")]
    tools = (ToolSchema("read", "read a file", {"type": "object"}),)
    body = Messages().body(ModelRequest("s", tuple(items), tools), "m")  # type: ignore[arg-type]
    uses = [b for m in body["messages"] for b in m["content"] if b["type"] == "tool_use"]
    results = [b for m in body["messages"] for b in m["content"] if b["type"] == "tool_result"]
    assert [u["id"] for u in uses] == ["call_0", "call_0_2"]
    assert [r["tool_use_id"] for r in results] == ["call_0", "call_0_2"]
    assert [r["content"] for r in results] == ["a", "b"]


# ----------------------------------------------------------------- prompt caching


def test_prompt_cache_breakpoints_mark_the_system_and_the_last_two_user_messages() -> None:
    """Without ``cache_control`` the API caches nothing: every turn of a session was read
    whole again, its first byte waiting on all of it, billed at the full input price."""
    items = (
        UserText("fix the bug"),
        AssistantTurn("Reading.", (CallEntry("toolu_1", "read", {"path": "a"}),)),
        ToolResults((ResultEntry("toolu_1", "read", "ok", 0, "contents"),)),
        AssistantTurn("Now b.", (CallEntry("toolu_2", "read", {"path": "b"}),)),
        ToolResults((ResultEntry("toolu_2", "read", "ok", 0, "more"),)),
    )
    body = Codec().body(request(*items), "m")
    assert body["system"] == [
        {"type": "text", "text": "You are Frontier.", "cache_control": {"type": "ephemeral"}}
    ]
    marked = [
        (i, m["role"], j)
        for i, m in enumerate(body["messages"])
        for j, block in enumerate(m["content"])
        if "cache_control" in block
    ]
    last = len(body["messages"]) - 1
    assert marked == [(last - 2, "user", 0), (last, "user", 0)]
    assert sum(1 for _ in marked) + 1 <= 4  # the API allows four breakpoints
    assert "cache_control" not in json.dumps(body["tools"])
    plain = uncached().body(request(*items), "m")
    assert json.dumps(body).replace(', "cache_control": {"type": "ephemeral"}', "") == (
        json.dumps({**plain, "system": [{"type": "text", "text": "You are Frontier."}]})
    )


def test_a_server_that_refuses_cache_control_is_asked_again_without_it() -> None:
    codec = Codec()
    assert codec.rejected(400, '{"error": "unknown field: cache_control"}') == (
        "the server rejected cache_control; retrying without prompt caching"
    )
    body = codec.body(request(UserText("hi")), "m")
    assert "cache_control" not in json.dumps(body) and body["system"] == "You are Frontier."
    assert codec.rejected(400, "cache_control") is None  # once: then the refusal is final
    strict = Codec()  # a server that takes the system prompt only as a string
    said = strict.rejected(
        422, '{"detail": [{"loc": ["body", "system"], "msg": "str type expected"}]}'
    )
    assert (
        said is not None
        and strict.body(request(UserText("hi")), "m")["system"] == "You are Frontier."
    )
    assert Codec().rejected(400, "max_tokens: too large") is None


def test_a_cap_over_the_models_own_is_lowered_to_it_and_asked_again() -> None:
    """An alias the catalogue does not know is asked for 32,000 tokens; the API names the
    model's own cap in its refusal."""
    codec = Codec()
    refusal = (
        '{"type": "error", "error": {"type": "invalid_request_error", "message": '
        '"max_tokens: 32000 > 8192, which is the maximum allowed number of output tokens '
        'for claude-3-5-haiku-20241022"}}'
    )
    assert codec.rejected(400, refusal) == "the model allows at most 8,192 output tokens; retrying"
    assert codec.body(request(UserText("hi"), max_tokens=32000), "m")["max_tokens"] == 8192
    assert codec.body(request(UserText("hi"), max_tokens=1000), "m")["max_tokens"] == 1000
    assert codec.rejected(400, refusal) is None  # once: a second refusal is final


def test_a_request_sent_once_marks_no_cache_breakpoint() -> None:
    """A compaction's summary request: a cache write costs a quarter more than the input
    read uncached, and no later request repeats its prefix."""
    body = Codec().body(request(UserText("summarise this"), once=True), "m")
    assert "cache_control" not in json.dumps(body) and body["system"] == "You are Frontier."
