"""Native tool-call deltas (native-eos / native-inc) and the SSE decoder under them."""

from __future__ import annotations

import json
from typing import Any

from chat_wire import ChatAccumulator, chat_sse, cut_calls

from frontier.app.cst.base import calls_of, errors_of, run_chunks, split
from frontier.app.cst.native import NativeAccumulator
from frontier.app.events import CallStarted, Confirmed, Event
from frontier.app.wire.sse import SSEDecoder, encode_sse


def tc(index: int, args: str, ident: str | None = None, name: str | None = None) -> dict:
    fn: dict[str, Any] = {"arguments": args}
    if name:
        fn["name"] = name
    piece: dict[str, Any] = {"index": index, "function": fn}
    if ident:
        piece["id"] = ident
    return {"choices": [{"delta": {"tool_calls": [piece]}, "finish_reason": None}]}


def finish(reason: str) -> dict:
    return {"choices": [{"delta": {}, "finish_reason": reason}]}


CHUNKS = [
    {"choices": [{"delta": {"content": "Let me look."}}]},
    tc(0, '{"pa', "call_1", "read"),
    tc(0, 'th": "a.py"}'),
    tc(1, "", "call_2", "grep"),
    tc(1, '{"pattern": "d'),
    tc(1, 'ef"}'),
    finish("tool_calls"),
]


def feed_all(acc: NativeAccumulator, chunks: list[dict]) -> list[list[Event]]:
    return [acc.feed_chunk(c) for c in chunks]


def test_native_inc_runs_call_i_when_call_i_plus_1_receives_arguments() -> None:
    acc = ChatAccumulator(incremental=True)
    per_chunk = feed_all(acc, CHUNKS)
    assert calls_of(per_chunk[2]) == []  # args complete but index 1 not seen yet
    assert calls_of(per_chunk[3]) == []  # index 1 announced, no argument bytes: no proof
    [first] = calls_of(per_chunk[4])
    assert (first.id, first.name, first.args) == ("call_1", "read", {"path": "a.py"})
    [second] = calls_of(per_chunk[6])  # at finish_reason
    assert second.args == {"pattern": "def"}
    assert acc.finish(True) == [] and acc.pending() == b""


def test_native_eos_runs_nothing_until_a_clean_end() -> None:
    acc = ChatAccumulator(incremental=False)
    per_chunk = feed_all(acc, CHUNKS)
    assert all(calls_of(events) == [] for events in per_chunk)
    assert acc.pending() == b'{"path": "a.py"}{"pattern": "def"}'
    assert [c.id for c in calls_of(acc.finish(True))] == ["call_1", "call_2"]


def test_native_offsets_count_content_then_argument_bytes() -> None:
    acc = ChatAccumulator(incremental=True)
    events = [e for chunk in feed_all(acc, CHUNKS) for e in chunk]
    text = [e for e in events if isinstance(e, Confirmed) and e.kind == "text"]
    assert text == [Confirmed(0, "text", b"Let me look.")]
    started = [e for e in events if isinstance(e, CallStarted)]
    assert [(s.id, s.offset) for s in started] == [("call_1", 12), ("call_2", 28)]
    assert calls_of(events)[0].offset == 27  # its last argument byte
    assert acc.consumed == 12 + 16 + 18


def test_truncation_length_finish_reason() -> None:
    chunks = [*CHUNKS[:5], finish("length")]
    inc = ChatAccumulator(incremental=True)
    events = [e for chunk in feed_all(inc, chunks) for e in chunk] + inc.finish(True)
    assert [c.id for c in calls_of(events)] == ["call_1"]
    [err] = errors_of(events)
    assert err.kind == "truncated" and "call_2" in err.message
    assert cut_calls(inc) == [("call_2", "grep")]

    eos = ChatAccumulator(incremental=False)
    events = [e for chunk in feed_all(eos, chunks) for e in chunk] + eos.finish(True)
    assert calls_of(events) == []
    assert cut_calls(eos) == [("call_1", "read"), ("call_2", "grep")]


def test_a_clean_finish_inside_the_last_calls_json_is_a_cut_not_bad_json() -> None:
    # vLLM and DeepSeek-style deployments cut a call at their output limit and still say
    # tool_calls: "resend valid JSON" would have the model write the same call into the
    # same limit again; a cut tells it to keep the arguments short.
    chunks = [*CHUNKS[:5], finish("tool_calls")]  # call_2's arguments stop at '{"pattern": "d'
    inc = ChatAccumulator(incremental=True)
    events = [e for chunk in feed_all(inc, chunks) for e in chunk] + inc.finish(True)
    assert [c.id for c in calls_of(events)] == ["call_1"]  # proven before the cut: it ran
    [err] = errors_of(events)
    assert err.kind == "truncated"
    assert "call_2" in err.message and "finish_reason=tool_calls" in err.message
    assert "output token limit" in err.message and "inside a string" in err.message
    assert cut_calls(inc) == [("call_2", "grep")]

    eos = ChatAccumulator(incremental=False)
    events = [e for chunk in feed_all(eos, chunks) for e in chunk] + eos.finish(True)
    assert calls_of(events) == []
    assert eos.truncated_calls == [("call_1", "read", True), ("call_2", "grep", False)]


def test_json_that_broke_is_still_bad_json_at_a_clean_finish() -> None:
    # closed and unparsable, a second value, and a quote missing (every string after it
    # flips, so it ends "inside a string": open, but never the start of valid JSON)
    for args in ('{"path": }', '{"path": "a"}}', '{"a": 1} {', '{path": "a.py"}', '{"a": trux'):
        acc = ChatAccumulator(incremental=True)
        events = [e for c in feed_all(acc, [tc(0, args, "c", "read"), finish("stop")]) for e in c]
        [err] = errors_of(events + acc.finish(True))
        assert err.kind == "bad_json", args


def test_every_way_json_can_stop_short_is_a_cut() -> None:
    starts = ('{"a": 1, ', '{"a"', '{"a": ', '{"a": [1, 2', '{"a": {"b": "c"', '{"a": "x\\', "{")
    # and a literal, a number or a \\uXXXX escape cut inside itself
    starts += ('{"a": tru', '{"a": nul', '{"a": 1.', '{"a": -', '{"a": 2e+', '{"a": "x\\u00')
    for args in starts:
        acc = ChatAccumulator(incremental=True)
        events = [e for c in feed_all(acc, [tc(0, args, "c", "read"), finish("stop")]) for e in c]
        [err] = errors_of(events + acc.finish(True))
        assert err.kind == "truncated", args
        assert acc.truncated_calls == [("c", "read", False)]


def test_an_unclosed_call_before_another_is_bad_json_not_a_cut() -> None:
    # the model moved on to a second call: the first was never cut by a limit
    acc = ChatAccumulator(incremental=True)
    chunks = [tc(0, '{"path": "a', "c1", "read"), tc(1, '{"path": "b', "c2", "read")]
    events = [e for c in feed_all(acc, [*chunks, finish("tool_calls")]) for e in c]
    [err] = errors_of(events + acc.finish(True))
    assert err.kind == "bad_json" and "c1" in err.message


def test_bad_json_names_the_call_and_parse_position() -> None:
    acc = ChatAccumulator(incremental=True)
    per_chunk = feed_all(acc, [tc(0, '{"path" "a"}', "c9", "read"), finish("stop")])
    [err] = errors_of([e for chunk in per_chunk for e in chunk])
    assert err.kind == "bad_json"
    assert "call c9 (read)" in err.message and "char 8" in err.message
    assert err.offset == 8 and acc.stopped


def test_eos_with_one_bad_call_runs_none() -> None:
    acc = ChatAccumulator(incremental=False)
    feed_all(acc, [tc(0, "{}", "a", "read"), tc(1, "[1]", "b", "read"), finish("tool_calls")])
    events = acc.finish(True)
    assert calls_of(events) == [] and errors_of(events)[0].kind == "bad_json"


def test_missing_ids_are_generated_and_empty_arguments_are_an_empty_object() -> None:
    acc = ChatAccumulator(incremental=True)
    feed_all(acc, [tc(0, "", None, "list_files")])
    [call] = calls_of(acc.finish(True))
    assert call.id == "call_0" and call.args == {}


SSE_BODY = encode_sse([json.dumps(c) for c in CHUNKS] + ["[DONE]"])


def test_sse_transducer_is_the_same_for_every_chunk_size_and_line_ending() -> None:
    reference = calls_of(run_chunks(chat_sse(True), [SSE_BODY]))
    assert len(reference) == 2
    crlf = SSE_BODY.replace(b"\n", b"\r\n")
    cr = SSE_BODY.replace(b"\n", b"\r")
    for body in (SSE_BODY, crlf, cr, b": keep-alive\n\n" + SSE_BODY):
        for size in (1, 2, 7, 4096):
            assert calls_of(run_chunks(chat_sse(True), split(body, size))) == reference


def test_sse_decoder_keeps_split_utf8_and_skips_junk() -> None:
    body = 'data: {"x": "héllo €"}\n\ndata: not json\n\n'.encode()
    decoder = SSEDecoder()
    out = [item for i in range(len(body)) for item in decoder.feed(body[i : i + 1])]
    assert out == ['{"x": "héllo €"}', "not json"]
    t = chat_sse(True)
    t.feed(body)
    assert t.skipped == 1  # the non-JSON data line; a chunk without choices is just ignored


def test_arguments_resent_whole_so_far_are_read_once() -> None:
    """A server that resends the arguments so far in every chunk (DeepSeek on Baidu
    Qianfan, GLM-style local servers), cut where a token ends — after the colon too,
    where appending the resend still reads as a nested object."""
    text = '{"path": "a.py", "n": 12}'
    cumulative = [text[:k] for k in (2, 8, 9, 11, 17, 22, len(text))]
    acc = ChatAccumulator(incremental=True)
    chunks = [tc(0, cumulative[0], "c1", "read"), *(tc(0, p) for p in cumulative[1:])]
    events = [e for c in feed_all(acc, [*chunks, finish("tool_calls")]) for e in c]
    [call] = calls_of(events)
    assert call.args == {"path": "a.py", "n": 12} and errors_of(events) == []
    assert acc.consumed == len(text)  # the byte stream a well-behaved server makes
    assert "resent its arguments whole so far" in acc.notes[0]


def test_a_call_repeated_whole_after_its_pieces_runs_once() -> None:
    """Pieces, then each call whole again before the finish (proxies that add the
    consolidated call): the first call was already complete (the second's arguments had
    begun), the second not yet. A repeat that differs is still late."""
    pieces = [
        tc(0, '{"path": ', "c1", "read"),
        tc(0, '"a.py"}'),
        tc(1, '{"pattern": "x"}', "c2", "grep"),
    ]
    again = [tc(0, '{"path": "a.py"}', "c1", "read"), tc(1, '{"pattern": "x"}', "c2", "grep")]
    acc = ChatAccumulator(incremental=True)
    events = [e for c in feed_all(acc, [*pieces, *again, finish("tool_calls")]) for e in c]
    assert [c.id for c in calls_of(events)] == ["c1", "c2"] and errors_of(events) == []
    acc = ChatAccumulator(incremental=True)
    changed = [tc(0, '{"path": "b.py"}', "c1", "read")]
    events = [e for c in feed_all(acc, [*pieces, *changed]) for e in c]
    assert [e.kind for e in errors_of(events)] == ["late_arguments"]


def test_a_well_formed_nested_value_is_never_taken_for_a_resend() -> None:
    # the second piece repeats the first, but only appended is it the start of valid JSON
    acc = ChatAccumulator(incremental=True)
    chunks = [tc(0, '{"a": ', "c1", "edit"), tc(0, '{"a": 1}}'), finish("tool_calls")]
    events = [e for c in feed_all(acc, chunks) for e in c]
    [call] = calls_of(events)
    assert call.args == {"a": {"a": 1}} and acc.notes == []


def whole(index: int, ident: str, args: str, name: str | None = "read") -> dict:
    return tc(index, args, ident, name)


def test_calls_a_server_sends_at_one_index_under_new_ids_are_each_a_call() -> None:
    """Ollama sent every call of a reply at index 0, each whole under its own id: read as
    one call, ``{"path": "a"}{"path": "b"}`` was bad_json and neither ran."""
    acc = ChatAccumulator(incremental=True)
    chunks = [whole(0, "c1", '{"path": "a"}'), whole(0, "c2", '{"path": "b"}', "grep")]
    events = [e for c in feed_all(acc, [*chunks, finish("tool_calls")]) for e in c]
    assert [(c.id, c.name, c.args) for c in calls_of(events)] == [
        ("c1", "read", {"path": "a"}),
        ("c2", "grep", {"path": "b"}),
    ]
    assert errors_of(events) == []


def test_one_call_under_one_id_stays_one_call_whatever_its_indexes() -> None:
    # the id on every piece (vLLM), the same call again at another index (LocalAI), and a
    # proxy that gives each piece a fresh id without a name: one call each time
    for chunks in (
        [whole(0, "c1", '{"path": '), tc(0, '"a"}', "c1")],
        [whole(0, "c1", '{"path": "a"}'), whole(1, "c1", '{"path": "a"}')],
        [whole(0, "c1", '{"path": '), tc(0, '"a"}', "other-id")],
    ):
        acc = ChatAccumulator(incremental=True)
        events = [e for c in feed_all(acc, [*chunks, finish("tool_calls")]) for e in c]
        assert [(c.id, c.args) for c in calls_of(events)] == [("c1", {"path": "a"})], chunks
        assert errors_of(events) == []
