"""The OpenAI Responses wire: its events become the neutral deltas, its calls survive any
chunking, and any history encodes as ``input`` the API accepts.

Streams here are written the way the real API (and the servers imitating it) send them;
the real recordings are run by ``test_wire2_conformance.py``.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst.base import calls_of, errors_of
from frontier.app.cst.native import NativeAccumulator, NativeSSETransducer
from frontier.app.events import TokenUsage, ToolCall
from frontier.app.model.conversation import (
    NOT_EXECUTED,
    AssistantTurn,
    CallEntry,
    Item,
    Reasoning,
    ResultEntry,
    ToolResults,
    UserText,
)
from frontier.app.model.registry import codec
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
from frontier.app.model.wires.openai_responses import MAX_ITEM_IDS, Codec, ResponsesDecoder
from frontier.app.secrets import Scrubber, SSEScrubber
from frontier.app.wire import safejson

CODEC = Codec()


# --------------------------------------------------------------------------- stream builders


def added(index: int, call_id: str, name: str, item_id: str = "") -> dict[str, Any]:
    item = {"type": "function_call", "id": item_id or f"fc_{index}", "call_id": call_id}
    item |= {"name": name, "arguments": "", "status": "in_progress"}
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def args_delta(index: int, piece: str, item_id: str = "") -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": item_id or f"fc_{index}",
        "output_index": index,
        "delta": piece,
    }


def args_done(index: int, arguments: str) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.done",
        "item_id": f"fc_{index}",
        "output_index": index,
        "arguments": arguments,
    }


def item_done(
    index: int, call_id: str, name: str, arguments: str, status: str | None = "completed"
) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "function_call", "id": f"fc_{index}", "call_id": call_id}
    item |= {"name": name, "arguments": arguments}
    if status is not None:
        item["status"] = status
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def call_events(
    index: int, call_id: str, name: str, arguments: str, pieces: int = 3
) -> list[dict[str, Any]]:
    """One function call as the API streams it, its arguments in ``pieces`` deltas."""
    step = max(1, -(-len(arguments) // pieces))
    deltas = [args_delta(index, arguments[i : i + step]) for i in range(0, len(arguments), step)]
    return [
        added(index, call_id, name),
        *deltas,
        args_done(index, arguments),
        item_done(index, call_id, name, arguments),
    ]


def text_events(index: int, text: str) -> list[dict[str, Any]]:
    message = {"type": "message", "id": f"msg_{index}", "role": "assistant", "content": []}
    part = {"type": "output_text", "text": text, "annotations": []}
    return [
        {"type": "response.output_item.added", "output_index": index, "item": message},
        *(
            {
                "type": "response.output_text.delta",
                "item_id": f"msg_{index}",
                "output_index": index,
                "content_index": 0,
                "delta": text[i : i + 4],
            }
            for i in range(0, len(text), 4)
        ),
        {
            "type": "response.output_text.done",
            "item_id": f"msg_{index}",
            "output_index": index,
            "content_index": 0,
            "text": text,
        },
        {
            "type": "response.output_item.done",
            "output_index": index,
            "item": message | {"content": [part], "status": "completed"},
        },
    ]


REASONING_ITEM = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "Plan the call."}],
    "encrypted_content": "gAAAAB-opaque",
}


def reasoning_events(index: int) -> list[dict[str, Any]]:
    return [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {"type": "reasoning", "id": "rs_1", "summary": []},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "rs_1",
            "output_index": index,
            "summary_index": 0,
            "delta": "Plan the call.",
        },
        {"type": "response.output_item.done", "output_index": index, "item": REASONING_ITEM},
    ]


USAGE = {
    "input_tokens": 120,
    "input_tokens_details": {"cached_tokens": 100},
    "output_tokens": 30,
    "output_tokens_details": {"reasoning_tokens": 8},
    "total_tokens": 150,
}


def completed(**response: Any) -> dict[str, Any]:
    body = {"id": "resp_1", "object": "response", "status": "completed", "usage": USAGE}
    return {"type": "response.completed", "response": body | response}


def incomplete(reason: str) -> dict[str, Any]:
    response = {"id": "resp_1", "status": "incomplete", "usage": USAGE}
    response["incomplete_details"] = {"reason": reason}
    return {"type": "response.incomplete", "response": response}


def sse(events: list[dict[str, Any]], named: bool = True) -> bytes:
    """The SSE body of ``events`` (``named``: with the ``event:`` lines the API sends)."""
    out = []
    for e in events:
        head = f"event: {e['type']}\n" if named else ""
        out.append(f"{head}data: {json.dumps(e)}\n\n")
    return "".join(out).encode()


def decode(events: list[dict[str, Any]]) -> list[Delta]:
    decoder = CODEC.decoder()
    return [d for e in events for d in decoder.feed(e.get("type", "message"), json.dumps(e))]


def transduce(
    body: bytes, incremental: bool, pieces: list[bytes] | None = None, clean: bool = True
) -> tuple[list[ToolCall], list[str]]:
    t = NativeSSETransducer(incremental, CODEC)
    calls: list[ToolCall] = []
    kinds: list[str] = []
    for piece in pieces if pieces is not None else [body]:
        events = t.feed(piece)
        calls += calls_of(events)
        kinds += [e.kind for e in errors_of(events)]
    events = t.finish(clean)
    return calls + calls_of(events), kinds + [e.kind for e in errors_of(events)]


# --------------------------------------------------------------------------- decoding


def test_the_codec_is_the_registered_responses_wire() -> None:
    wire = codec("openai-responses")
    assert isinstance(wire, Codec)
    assert (wire.name, wire.path) == ("openai-responses", "responses")
    assert wire.signals_call_done and not wire.can_prefill
    assert CODEC.rejected(400, "anything") is None


def test_text_and_reasoning_deltas() -> None:
    deltas = decode([*reasoning_events(0), *text_events(1, "Hello, world")])
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == "Hello, world"
    assert [d for d in deltas if isinstance(d, ReasoningDelta)] == [
        ReasoningDelta("Plan the call.")
    ]
    assert [d for d in deltas if isinstance(d, ReasoningBlock)] == [ReasoningBlock(REASONING_ITEM)]


def test_raw_reasoning_text_and_summary_parts_are_reasoning() -> None:
    deltas = decode(
        [
            {"type": "response.reasoning_text.delta", "output_index": 0, "delta": "think"},
            {
                "type": "response.reasoning_summary_part.added",
                "output_index": 0,
                "summary_index": 1,
            },
            {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "more"},
        ]
    )
    assert deltas == [ReasoningDelta("think"), ReasoningDelta("\n\n"), ReasoningDelta("more")]


def test_a_message_streamed_without_deltas_reads_its_done_text() -> None:
    events = [e for e in text_events(0, "whole") if e["type"] != "response.output_text.delta"]
    assert [d for d in decode(events) if isinstance(d, TextDelta)] == [TextDelta("whole")]
    # Streamed as deltas, the done text is not read a second time.
    assert [d for d in decode(text_events(0, "whole")) if isinstance(d, TextDelta)] == [
        TextDelta("whol"),
        TextDelta("e"),
    ]


def test_a_call_is_keyed_by_output_index_and_proven_at_output_item_done() -> None:
    deltas = decode(call_events(2, "call_a", "read_file", '{"path":"a.py"}', pieces=2))
    assert deltas == [
        CallStart(2, "call_a", "read_file"),
        CallArgs(2, '{"path":'),
        CallArgs(2, '"a.py"}'),
        CallDone(2, arguments='{"path":"a.py"}', proof=False),
        CallDone(2, "call_a", "read_file", '{"path":"a.py"}', proof=True),
    ]


def test_rotated_item_ids_still_reach_their_call() -> None:
    events = [
        added(0, "call_a", "f", item_id="fc_one"),
        args_delta(0, '{"a":', item_id="fc_two"),
        args_delta(0, "1}", item_id="fc_three"),
        item_done(0, "call_a", "f", '{"a":1}'),
        completed(),
    ]
    calls, kinds = transduce(sse(events), incremental=True)
    assert [(c.id, c.args) for c in calls] == [("call_a", {"a": 1})] and not kinds


def unindexed(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` as llama.cpp's ``llama-server`` sends it: with no ``output_index``."""
    return {k: v for k, v in event.items() if k != "output_index"}


@pytest.mark.parametrize("incremental", [True, False], ids=["native-inc", "native-eos"])
@pytest.mark.parametrize(
    "ids", ["distinct", "one-for-all", "none", "added-twice", "none-added-twice", "same-pair"]
)
@given(cuts=st.lists(st.integers(min_value=0), max_size=12))
def test_calls_a_server_names_by_item_id_alone_are_each_their_own(
    incremental: bool, ids: str, cuts: list[int]
) -> None:
    """llama-server sends no ``output_index``, streams its calls one after another and
    their ``output_item.done`` events together at the end: every call was keyed 0, so the
    second call's arguments were read as late bytes of the first (which had run), and the
    rest of the response was lost (a real session against the rig, Responses wire)."""
    calls = [("call_a", '{"path":"a.py"}'), ("call_b", '{"path":"b.py"}'), ("call_c", "{}")]
    events = []
    for n, (ident, arguments) in enumerate(calls):
        events += [added(n, ident, "read_file")] * (2 if ids.endswith("added-twice") else 1)
        events += [args_delta(n, arguments[:5]), args_delta(n, arguments[5:])]
    events += [item_done(n, ident, "read_file", args) for n, (ident, args) in enumerate(calls)]
    events = [unindexed(e) for e in events]
    for e in events:  # one item id for every call, or none at all
        item = e.get("item", e)
        if ids in ("one-for-all", "same-pair"):
            item["id" if "item" in e else "item_id"] = "fc_1"
        elif ids.startswith("none"):
            item.pop("id" if "item" in e else "item_id", None)
        if ids == "same-pair" and "item" in e:
            item["call_id"] = "call_x"  # one call id for every call too
    body = sse([*events, completed()])
    points = sorted({c % (len(body) + 1) for c in cuts} | {0, len(body)})
    pieces = [body[a:b] for a, b in itertools.pairwise(points)]
    got, kinds = transduce(body, incremental, pieces)
    named = [("call_x" if ids == "same-pair" else i, json.loads(a)) for i, a in calls]
    assert [(c.id, c.args) for c in got] == named
    assert not kinds


@pytest.mark.parametrize("incremental", [True, False], ids=["native-inc", "native-eos"])
def test_arguments_only_in_the_done_events(incremental: bool) -> None:
    events = [
        added(0, "call_a", "weather"),
        args_done(0, '{"location":"SF"}'),
        item_done(0, "call_a", "weather", '{"location":"SF"}'),
        completed(),
    ]
    calls, kinds = transduce(sse(events), incremental)
    assert [(c.name, c.args) for c in calls] == [("weather", {"location": "SF"})]
    assert not kinds


@pytest.mark.parametrize("incremental", [True, False], ids=["native-inc", "native-eos"])
def test_the_call_id_of_output_item_done_wins(incremental: bool) -> None:
    events = [
        added(0, "call_announced", "weather"),
        args_delta(0, '{"location":"Rome"}'),
        args_done(0, '{"location":"Rome"}'),
        item_done(0, "call_final", "weather", '{"location":"Rome"}'),
        completed(output=[{"type": "function_call", "call_id": "call_third", "name": "weather"}]),
    ]
    calls, kinds = transduce(sse(events), incremental)
    assert [c.id for c in calls] == ["call_final"] and not kinds


def test_native_inc_runs_a_call_at_output_item_done_before_the_end() -> None:
    first = sse(call_events(0, "call_a", "f", '{"a":1}'))
    rest = sse([*call_events(1, "call_b", "g", '{"b":2}'), completed()])
    t = NativeSSETransducer(True, CODEC)
    assert [c.id for c in calls_of(t.feed(first))] == ["call_a"]
    assert [c.id for c in calls_of(t.feed(rest))] == ["call_b"]


def test_arguments_done_alone_does_not_run_a_call() -> None:
    """``function_call_arguments.done`` closes the call; its id may still change."""
    t = NativeSSETransducer(True, CODEC)
    events = [added(0, "call_a", "f"), args_delta(0, "{}"), args_done(0, "{}")]
    assert not calls_of(t.feed(sse(events)))
    assert calls_of(t.feed(sse([item_done(0, "call_b", "f", "{}")])))[0].id == "call_b"


def test_bytes_after_a_call_was_closed_are_late() -> None:
    events = [added(0, "call_a", "f"), args_done(0, "{}"), args_delta(0, " ")]
    _, kinds = transduce(sse(events), incremental=True)
    assert kinds == ["late_arguments"]


@pytest.mark.parametrize("status", ["incomplete", "in_progress"])
def test_an_unfinished_status_at_output_item_done_is_no_proof(status: str) -> None:
    done = item_done(0, "call_a", "f", "{}", status=status)
    assert decode([done]) == [CallDone(0, "call_a", "f", "{}", proof=False)]
    assert decode([item_done(0, "c", "f", "{}", status=None)])[0] == CallDone(0, "c", "f", "{}")


def test_an_in_progress_call_waits_for_a_clean_end() -> None:
    events = [added(0, "call_a", "f"), args_delta(0, '{"a":1}')]
    events.append(item_done(0, "call_a", "f", '{"a":1}', status="in_progress"))
    t = NativeSSETransducer(True, CODEC)
    assert not calls_of(t.feed(sse(events)))
    assert [c.id for c in calls_of(t.feed(sse([completed()])))] == ["call_a"]


@pytest.mark.parametrize("incremental", [True, False], ids=["native-inc", "native-eos"])
def test_a_call_cut_by_max_output_tokens_never_runs(incremental: bool) -> None:
    events = [added(0, "call_a", "write"), args_delta(0, '{"text":"abc')]
    events += [item_done(0, "call_a", "write", '{"text":"abc', status="incomplete")]
    events.append(incomplete("max_output_tokens"))
    calls, kinds = transduce(sse(events), incremental)
    assert not calls and kinds == ["truncated"]


def test_a_stream_that_ends_mid_call_runs_nothing() -> None:
    events = [added(0, "call_a", "f"), args_delta(0, '{"a":')]
    for incremental in (True, False):
        calls, kinds = transduce(sse(events), incremental)
        assert not calls and kinds == ["truncated"]


@pytest.mark.parametrize(
    "item",
    [
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "code_interpreter_call", "id": "ci_1", "code": "print(1)"},
        {"type": "mcp_call", "id": "mcp_1", "name": "lookup", "arguments": "{}"},
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c1", "name": "x", "input": "y"},
        {"type": "local_shell_call", "id": "ls_1", "call_id": "c2", "action": {}},
        {"type": "mcp_approval_request", "id": "mar_1", "name": "lookup"},
    ],
    ids=lambda item: item["type"],
)
def test_server_tools_are_shown_once_and_never_run(item: dict[str, Any]) -> None:
    events = [
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        completed(),
    ]
    deltas = decode(events)
    shown = [d for d in deltas if isinstance(d, ServerToolCall)]
    assert shown == [ServerToolCall(item.get("name") or item["type"], item["id"])]
    assert not [d for d in deltas if isinstance(d, CallStart | CallArgs | CallDone)]
    assert Finish("stop", "completed") in deltas
    for incremental in (True, False):
        assert transduce(sse(events), incremental) == ([], [])


def test_a_tool_output_item_is_not_shown_as_a_call() -> None:
    item = {"type": "tool_search_output", "id": "tso_1", "tools": []}
    assert decode([{"type": "response.output_item.done", "output_index": 0, "item": item}]) == []


def test_completed_ends_stop_or_tool_calls_with_usage() -> None:
    usage = TokenUsage(prompt=120, completion=30, cached=100)
    assert decode([*text_events(0, "hi"), completed()])[-3:] == [
        Finish("stop", "completed"),
        UsageDelta(usage),
        End(),
    ]
    ended = decode([*call_events(0, "c", "f", "{}"), completed()])
    assert ended[-3] == Finish("tool_calls", "completed")


def test_xai_response_done_ends_like_completed() -> None:
    done = completed() | {"type": "response.done"}
    assert decode([*call_events(0, "c", "f", "{}"), done])[-3:] == [
        Finish("tool_calls", "completed"),
        UsageDelta(TokenUsage(120, 30, 100)),
        End(),
    ]
    decoder = ResponsesDecoder()
    assert decoder.feed("message", "[DONE]") == [] and decoder.skipped == 0


@pytest.mark.parametrize(
    ("reason", "finish"),
    [("max_output_tokens", "length"), ("content_filter", "content_filter"), ("other", "other")],
)
def test_incomplete_is_normalised(reason: str, finish: str) -> None:
    assert decode([incomplete(reason)]) == [
        Finish(finish, reason),  # type: ignore[arg-type]
        UsageDelta(TokenUsage(120, 30, 100)),
        End(),
    ]


def test_failed_is_a_server_error() -> None:
    failed = {
        "type": "response.failed",
        "response": {"status": "failed", "error": {"code": "server_error", "message": "boom"}},
    }
    assert decode([failed]) == [
        ServerError("boom (server_error)"),
        Finish("error", "failed"),
        End(),
    ]


def test_a_failed_response_cuts_an_open_call() -> None:
    failed = {"type": "response.failed", "response": {"error": {"message": "boom"}}}
    events = [added(0, "call_a", "f"), args_delta(0, "{}"), failed]
    assert transduce(sse(events), True) == ([], ["truncated"])


@pytest.mark.parametrize(
    "event",
    [
        {"type": "error", "code": "rate_limit_exceeded", "message": "Rate limit reached"},
        {
            "type": "error",
            "error": {"type": "rate_limit_exceeded", "message": "Rate limit reached"},
        },
        {"error": {"code": "rate_limit_exceeded", "message": "Rate limit reached"}},
    ],
    ids=["flat", "nested", "untyped"],
)
def test_error_events(event: dict[str, Any]) -> None:
    assert decode([event]) == [ServerError("Rate limit reached (rate_limit_exceeded)")]
    assert CODEC.error_text(event) == "Rate limit reached (rate_limit_exceeded)"


def test_the_sse_event_name_is_only_a_fallback() -> None:
    decoder = ResponsesDecoder()
    assert decoder.feed("response.output_text.delta", json.dumps({"delta": "hi"})) == [
        TextDelta("hi")
    ]
    typed = json.dumps({"type": "response.output_text.delta", "delta": "x"})
    assert decoder.feed("something.else", typed) == [TextDelta("x")]
    assert decoder.feed("error", "upstream exploded") == [ServerError("upstream exploded")]


def test_junk_is_skipped_and_deep_nesting_is_malformed() -> None:
    decoder = ResponsesDecoder()
    assert decoder.feed("message", "not json") == [Unreadable("not json")]
    assert decoder.feed("message", "[1, 2]") == [Unreadable("[1, 2]")]
    assert decoder.skipped == 2
    deep = "[" * (safejson.ENVELOPE_DEPTH + 5) + "]" * (safejson.ENVELOPE_DEPTH + 5)
    (malformed,) = decoder.feed("message", json.dumps({"type": "x", "v": json.loads(deep)}))
    assert isinstance(malformed, Malformed)


def test_events_after_the_end_are_ignored() -> None:
    second = call_events(0, "call_again", "f", "{}")
    deltas = decode([*call_events(0, "call_a", "f", "{}"), completed(), *second, completed()])
    assert deltas.count(End()) == 1
    assert [d for d in deltas if isinstance(d, Ignored)] == [
        Ignored("ignored the events after the response ended")
    ]
    calls, kinds = transduce(sse([*call_events(0, "a", "f", "{}"), completed(), *second]), True)
    assert [c.id for c in calls] == ["a"] and not kinds


def test_an_end_with_nothing_streamed_carries_the_answer() -> None:
    call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": '{"x":1}'}
    calls, kinds = transduce(sse([completed(output=[call])]), True)
    assert [(c.id, c.args) for c in calls] == [("c", {"x": 1})] and not kinds


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
event_types = st.sampled_from(
    [
        "response.output_item.added",
        "response.output_item.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_text.delta",
        "response.output_text.done",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "response.done",
        "error",
    ]
)


items = st.fixed_dictionaries(
    {"type": st.sampled_from(["function_call", "message", "reasoning", "web_search_call"])},
    optional={
        "call_id": json_values,
        "name": json_values,
        "arguments": json_values,
        "status": st.sampled_from(["completed", "incomplete", None, 3]),
        "content": json_values,
    },
)
fields = st.dictionaries(
    st.sampled_from(["output_index", "delta", "arguments", "response", "text", "error"]),
    json_values,
    max_size=4,
)
events = st.builds(
    lambda t, body, item: json.dumps({**body, "type": t, "item": item}),
    event_types,
    fields,
    items | json_values,
)


@given(st.lists(st.one_of(st.text(max_size=30), events), max_size=12))
def test_junk_never_raises(datas: list[str]) -> None:
    decoder = ResponsesDecoder()
    accumulator = NativeAccumulator(True, signals_done=True)
    for data in datas:
        accumulator.feed(decoder.feed("message", data))
        list(CODEC.streamed_text(data))
    accumulator.finish(True)


def test_decoder_state_stays_bounded_and_time_linear() -> None:
    decoder = ResponsesDecoder()
    start = time.perf_counter()
    for i in range(5_000):
        for e in call_events(i, f"call_{i}", "f", '{"a":1}', pieces=1):
            decoder.feed("message", json.dumps(e))
    assert time.perf_counter() - start < 10
    unindexed_calls = ResponsesDecoder()  # a server naming its calls by item id alone
    for i in range(5_000):
        for e in call_events(i, f"call_{i}", "f", '{"a":1}', pieces=1):
            unindexed_calls.feed("message", json.dumps(unindexed(e)))
    for state in (vars(decoder), vars(unindexed_calls)):
        kept = [state.pop(name) for name in ("_by_item", "_by_pair", "_open")]
        assert all(len(ids) <= MAX_ITEM_IDS for ids in kept)
        assert len(state.pop("_last_added")) == 3  # the ids and name of one call
        assert all(isinstance(v, int) for v in state.values())


# --------------------------------------------------------------------------- chunkings

CALLS = [
    ("call_read", "read_file", {"path": "src/ä.py", "lines": [1, 20]}),
    ("call_grep", "grep", {"pattern": "def \\w+\\(", "glob": "*.py"}),
    ("call_empty", "list_dir", {}),
]


def full_stream() -> bytes:
    events = [*reasoning_events(0), *text_events(1, "Let me look.")]
    for i, (ident, name, args) in enumerate(CALLS, start=2):
        events += call_events(i, ident, name, json.dumps(args, ensure_ascii=False), pieces=4)
    return sse([*events, completed()], named=False)


@given(
    incremental=st.booleans(),
    cuts=st.lists(st.integers(min_value=0), max_size=60),
)
def test_random_chunkings_give_the_calls_of_the_one_piece_run(
    incremental: bool, cuts: list[int]
) -> None:
    body = full_stream()
    whole = transduce(body, incremental)
    assert [(c.id, c.name, c.args) for c in whole[0]] == CALLS and not whole[1]
    points = sorted({c % (len(body) + 1) for c in cuts} | {0, len(body)})
    pieces = [body[a:b] for a, b in itertools.pairwise(points)]
    assert transduce(body, incremental, pieces) == whole


# --------------------------------------------------------------------------- encoding


def tools() -> tuple[ToolSchema, ...]:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    return (ToolSchema("read_file", "Read a file.", schema),)


def request(items: list[Item], **options: Any) -> ModelRequest:
    options.setdefault("tools", tools())
    return ModelRequest("You are Frontier.", tuple(items), **options)


def test_the_body_asks_for_a_stream_stored_nowhere() -> None:
    body = CODEC.body(
        request([UserText("hi")], max_tokens=512, extra={"reasoning": {"effort": "low"}}),
        "gpt-5",
    )
    assert body["model"] == "gpt-5" and body["instructions"] == "You are Frontier."
    assert body["stream"] is True and body["store"] is False
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["max_output_tokens"] == 512 and body["reasoning"] == {"effort": "low"}
    assert body["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    assert body["tools"] == [
        {
            "type": "function",
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            "strict": False,
        }
    ]
    plain = CODEC.body(request([UserText("hi")], tools=(), extra={"stream": False}), "m")
    assert "tools" not in plain and "max_output_tokens" not in plain and plain["stream"] is True


def test_headers() -> None:
    assert CODEC.headers("sk-test")["Authorization"] == "Bearer sk-test"
    assert CODEC.headers(None)["Accept"] == "text/event-stream"
    assert "Authorization" not in CODEC.headers(None)


def result(call_id: str, body: str = "ok") -> ResultEntry:
    return ResultEntry(call_id, "read_file", "ok", 0, body)


def test_results_are_paired_with_calls_in_order_and_strays_become_text() -> None:
    items: list[Item] = [
        UserText("look"),
        AssistantTurn(
            "Reading.",
            (CallEntry("call_a", "read_file", {"path": "a"}), CallEntry("call_b", "read_file")),
        ),
        ToolResults((result("call_b", "B"), result("call_zz", "stray")), note="go on"),
        UserText("thanks"),
    ]
    got = CODEC.body(request(items), "m")["input"]
    assert got[0] == {"role": "user", "content": [{"type": "input_text", "text": "look"}]}
    assert got[1] == {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Reading."}],
    }
    assert got[2] == {
        "type": "function_call",
        "call_id": "call_a",
        "name": "read_file",
        "arguments": '{"path": "a"}',
    }
    assert got[3]["call_id"] == "call_b"
    assert got[4] == {"type": "function_call_output", "call_id": "call_a", "output": NOT_EXECUTED}
    assert got[5] == {"type": "function_call_output", "call_id": "call_b", "output": "B"}
    (text,) = [p["text"] for p in got[6]["content"]]
    assert "result call_zz" in text and "go on" in text and text.endswith("thanks")
    assert len(got) == 7


def test_reasoning_goes_back_to_this_wire_only_before_the_calls() -> None:
    mine = Reasoning("openai-responses", REASONING_ITEM | {"status": "completed"})
    theirs = Reasoning("anthropic-messages", {"type": "thinking", "signature": "s"})
    unreturnable = Reasoning("openai-responses", {"type": "reasoning", "id": "rs_2"})
    turn = AssistantTurn("", (CallEntry("call_a", "read_file"),), (theirs, mine, unreturnable))
    items: list[Item] = [UserText("go"), turn, ToolResults((result("call_a"),))]
    got = CODEC.body(request(items), "m")["input"]
    assert [i.get("type") for i in got] == [
        None,
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert got[1] == {
        "type": "reasoning",
        "summary": REASONING_ITEM["summary"],
        "encrypted_content": "gAAAAB-opaque",
    }
    chat = codec("openai-chat").body(request(items), "m")
    assert "gAAAAB-opaque" not in json.dumps(chat)


def test_an_interrupted_reply_and_a_crash_recovered_call_still_alternate() -> None:
    items: list[Item] = [
        UserText("start"),
        AssistantTurn("Half a thou", cut="[Reply interrupted by the user]"),
        UserText("never mind"),
        AssistantTurn("", (CallEntry("call_lost", "read_file", {"path": "x"}),)),
        UserText("The call's result was lost in a crash.", origin="carried"),
        AssistantTurn(""),
    ]
    got = CODEC.body(request(items), "m")["input"]
    roles = [i.get("role") or i["type"] for i in got]
    assert roles == [
        "user",
        "assistant",
        "user",
        "function_call",
        "function_call_output",
        "user",
        "assistant",
    ]
    assert got[1]["content"][0]["text"].endswith("[Reply interrupted by the user]")
    assert got[4] == {
        "type": "function_call_output",
        "call_id": "call_lost",
        "output": NOT_EXECUTED,
    }
    assert got[6]["content"][0]["text"] == "[no reply]"


def test_without_tools_calls_and_results_travel_as_text() -> None:
    items: list[Item] = [
        AssistantTurn("Sure.", (CallEntry("call_a", "read_file", {"path": "a"}),)),
        ToolResults((result("call_a", "A"),)),
    ]
    got = CODEC.body(request(items, tools=()), "m")["input"]
    assert got[0]["role"] == "user"  # a history never starts with the assistant
    assert not [i for i in got if i.get("type", "").startswith("function_call")]
    assert "[called read_file (id call_a)" in got[1]["content"][0]["text"]
    assert got[2]["content"][0]["text"].startswith("result call_a exit=0 1\nA\nend\n")


# --------------------------------------------------------------------------- whole answers


def test_json_answer_reads_a_whole_response() -> None:
    response = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [
            REASONING_ITEM,
            {"type": "web_search_call", "id": "ws_1", "status": "completed"},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Reading."}],
            },
            {"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": "{}"},
        ],
        "usage": USAGE,
    }
    deltas = CODEC.json_answer(response)
    assert deltas == [
        ReasoningDelta("Plan the call."),
        ReasoningBlock(REASONING_ITEM),
        ServerToolCall("web_search_call", "ws_1"),
        TextDelta("Reading."),
        CallStart(3, "c1", "read_file"),
        CallDone(3, "c1", "read_file", "{}"),
        Finish("tool_calls", "completed"),
        UsageDelta(TokenUsage(120, 30, 100)),
        End(),
    ]
    accumulator = NativeAccumulator(True, signals_done=True)
    _, events = accumulator.feed(deltas)
    assert [c.id for c in calls_of(events)] == ["c1"]
    assert CODEC.json_answer({"choices": []}) is None
    assert CODEC.json_answer({"object": "chat.completion", "output": [], "status": "x"}) is None
    cut = CODEC.json_answer(
        {
            "status": "incomplete",
            "output": [],
            "incomplete_details": {"reason": "max_output_tokens"},
        }
    )
    assert cut == [Finish("length", "max_output_tokens"), End()]


# --------------------------------------------------------------------------- streamed text


def resolve(obj: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        obj = obj[step]
    return obj


def model_strings(event: dict[str, Any]) -> set[str]:
    """Every string the model wrote in one of this file's events."""
    out: set[str] = set()
    for key in ("delta", "arguments", "text"):
        if isinstance(event.get(key), str):
            out.add(event[key])
    for holder in (event.get("item"), *(event.get("response", {}).get("output") or [])):
        if not isinstance(holder, dict):
            continue
        for key in ("arguments", "code", "input"):
            if holder.get(key):
                out.add(holder[key])
        for part in (*holder.get("content", []), *holder.get("summary", [])):
            out.add(part["text"])
    return {s for s in out if s}


def test_streamed_text_names_every_model_string_where_it_is() -> None:
    final = {"type": "function_call", "call_id": "c", "name": "f", "arguments": '{"k":"v"}'}
    events = [
        *reasoning_events(0),
        *text_events(1, "Some text here"),
        *call_events(2, "c", "f", '{"k":"v"}'),
        {"type": "response.code_interpreter_call_code.delta", "output_index": 3, "delta": "x=1"},
        completed(output=[final]),
    ]
    for event in events:
        data = json.dumps(event)
        found = list(CODEC.streamed_text(data))
        for _key, path, text in found:
            assert resolve(json.loads(data), path) == text
        assert {text for _, _, text in found} >= model_strings(event), event["type"]
        assert all("gAAAAB" not in text for _, _, text in found)


SECRET = "sk-proj-ABCDEFGHIJKLMNOP1234"


def test_a_secret_split_across_argument_deltas_is_masked_in_every_event() -> None:
    arguments = json.dumps({"command": f"export KEY={SECRET}"})
    events = [
        *text_events(0, f"Using {SECRET} now"),
        *call_events(1, "c", "bash", arguments, pieces=7),
        completed(output=[{"type": "function_call", "arguments": arguments}]),
    ]
    scrubber = SSEScrubber(Scrubber([SECRET]), fields=CODEC.streamed_text)
    out: list[tuple[float, str]] = []
    raws = [json.dumps(e) for e in events]
    for t, raw in enumerate(raws):
        out += scrubber.feed(float(t), raw)
    out += scrubber.flush()
    assert [t for t, _ in out] == [float(t) for t in range(len(raws))]
    joined = "".join(data for _, data in out)
    assert SECRET not in joined and SECRET[:8] not in joined
    for (_, masked), raw in zip(out, raws, strict=True):
        assert len(masked.encode()) == len(raw.encode())
        assert json.loads(masked)["type"] == json.loads(raw)["type"]
