"""native-inc's completion rule and the server quirks around it (DESIGN §4, docs/protocol.md).

Each test is the smallest stream that shows one quirk; each fails on the rule it replaced
("a higher index appeared, so index i is complete").
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from chat_wire import CHAT, ChatAccumulator, chat_sse, cut_calls
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst import native
from frontier.app.cst.base import calls_of, errors_of, run_chunks, split
from frontier.app.cst.native import NativeAccumulator, _Closure
from frontier.app.cst.props import check_stream
from frontier.app.events import CONTRACT_ERROR_KINDS, Confirmed, Event
from frontier.app.wire import safejson
from frontier.app.wire.sse import encode_sse


def piece(index: int, args: Any = "", ident: str = "", name: str = "") -> dict[str, Any]:
    fn: dict[str, Any] = {"arguments": args}
    if name:
        fn["name"] = name
    out: dict[str, Any] = {"index": index, "function": fn}
    if ident:
        out["id"] = ident
    return out


def chunk(*pieces: dict[str, Any], choice: int | None = 0) -> dict[str, Any]:
    body: dict[str, Any] = {"delta": {"tool_calls": list(pieces)}, "finish_reason": None}
    if choice is not None:
        body["index"] = choice
    return {"choices": [body]}


FINISH = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


def per_chunk(acc: NativeAccumulator, chunks: list[dict[str, Any]]) -> list[list[Event]]:
    return [acc.feed_chunk(c) for c in chunks]


def flat(lists: list[list[Event]]) -> list[Event]:
    return [e for events in lists for e in events]


def sse(chunks: list[dict[str, Any]], done: bool = True) -> bytes:
    return encode_sse([json.dumps(c) for c in chunks] + (["[DONE]"] if done else []))


# ------------------------------------------------------------------ the completion rule

ANNOUNCED_TOGETHER = [
    chunk(piece(0, "", "paris", "get_weather"), piece(1, "", "london", "get_weather")),
    chunk(piece(0, '{"location":"Paris"}')),
    chunk(piece(1, '{"location":"London"}')),
    FINISH,
]


def test_an_announced_higher_index_proves_nothing() -> None:
    """Gemini announces every call first: index 0 must not run with `{}` at the announcement."""
    acc = ChatAccumulator(incremental=True)
    events = per_chunk(acc, ANNOUNCED_TOGETHER)
    assert calls_of(events[0]) == [] and calls_of(events[1]) == []
    [paris] = calls_of(events[2])  # index 1's first argument bytes: index 0 is complete
    [london] = calls_of(events[3])  # finish_reason
    assert (paris.id, paris.args) == ("paris", {"location": "Paris"})
    assert (london.id, london.args) == ("london", {"location": "London"})
    assert errors_of(flat(events) + acc.finish(True)) == []


def test_a_higher_index_with_bytes_does_not_complete_unparsable_arguments() -> None:
    """Interleaved pieces: index 0 is not a JSON object yet when index 1 begins; it waits
    (no bad_json), and index 1, complete first, waits for it: calls run in index order."""
    acc = ChatAccumulator(incremental=True)
    events = per_chunk(
        acc,
        [
            chunk(piece(0, '{"path": "a', "c0", "read")),
            chunk(piece(1, '{"path": "b"}', "c1", "read")),
            chunk(piece(2, '{"path": "c"}', "c2", "read")),  # index 1 provably complete...
            chunk(piece(0, '.py"}')),  # ...but runs only after index 0
            FINISH,
        ],
    )
    assert [calls_of(e) for e in events[:3]] == [[], [], []]
    assert errors_of(flat(events[:3])) == []
    assert [c.id for c in calls_of(events[3])] == ["c0", "c1"]
    assert calls_of(events[3])[0].args == {"path": "a.py"}
    [last] = calls_of(events[4])
    assert last.id == "c2" and errors_of(flat(events)) == []


def test_an_open_call_whose_arguments_parse_still_waits_without_a_later_call() -> None:
    acc = ChatAccumulator(incremental=True)
    assert calls_of(acc.feed_chunk(chunk(piece(0, "{}", "c0", "ls")))) == []
    assert [c.id for c in calls_of(acc.feed_chunk(FINISH))] == ["c0"]


def test_arguments_that_never_parse_are_bad_json_at_the_finish_and_block_later_calls() -> None:
    acc = ChatAccumulator(incremental=True)
    events = per_chunk(
        acc, [chunk(piece(0, '{"a" 1}', "c0", "f")), chunk(piece(1, "{}", "c1", "f")), FINISH]
    )
    assert calls_of(flat(events)) == []
    [error] = errors_of(flat(events))
    assert error.kind == "bad_json" and "index 0" in error.message


# ------------------------------------------------------------------ late_arguments

LATE = [
    chunk(piece(0, '{"a": 1}', "c0", "f")),
    chunk(piece(1, '{"b": ', "c1", "f")),  # index 0 parses and index 1 has bytes: c0 runs
    chunk(piece(0, " ")),  # bytes for a call that may have run
    chunk(piece(1, "2}")),
    FINISH,
]


def test_bytes_for_an_executed_call_are_late_arguments() -> None:
    assert "late_arguments" in CONTRACT_ERROR_KINDS
    acc = ChatAccumulator(incremental=True)
    events = flat(per_chunk(acc, LATE)) + acc.finish(True)
    assert [c.id for c in calls_of(events)] == ["c0"]  # c1 is never read to its end
    [error] = errors_of(events)
    assert error.kind == "late_arguments"
    assert "call c0 (f), index 0" in error.message and "when index 1's" in error.message
    assert error.offset == len('{"a": 1}{"b": ')  # where the late byte would have gone
    assert acc.stopped and acc.pending() == b""


def test_check_reports_late_arguments_as_s2() -> None:
    report = check_stream(sse(LATE), "native-inc", clean=True, wire=CHAT)
    assert report.errors == ("late_arguments",)
    assert [v.prop for v in report.violations] == ["S2"]
    assert "late_arguments" in report.violations[0].message


def test_a_well_behaved_stream_has_no_s2_in_check() -> None:
    report = check_stream(sse(ANNOUNCED_TOGETHER), "native-inc", clean=True, wire=CHAT)
    assert report.ok and report.calls == 2, report.violations


# ------------------------------------------------------------------ server variations


def test_arguments_sent_as_an_object_are_serialised_canonically() -> None:
    acc = ChatAccumulator(incremental=False)
    events = flat(per_chunk(acc, [chunk(piece(0, {"path": "é", "n": 1}, "c0", "read"))]))
    events += acc.finish(True)
    [call] = calls_of(events)
    assert call.args == {"path": "é", "n": 1}
    body = b"".join(e.data for e in events if isinstance(e, Confirmed) and e.kind == "body")
    assert body == '{"path":"é","n":1}'.encode()
    assert acc.consumed == len(body)


def test_arguments_sent_as_a_non_object_value_are_bad_json_not_an_empty_call() -> None:
    acc = ChatAccumulator(incremental=True)
    events = flat(per_chunk(acc, [chunk(piece(0, ["a.py"], "c0", "read")), FINISH]))
    assert calls_of(events) == []
    [error] = errors_of(events)
    assert error.kind == "bad_json" and "got list" in error.message


def test_chunks_for_another_choice_are_ignored_with_a_note() -> None:
    acc = ChatAccumulator(incremental=True)
    other = chunk(piece(0, '{"cmd": "rm -rf /"}', "x", "shell"), choice=1)
    other["choices"][0]["delta"]["content"] = "choice one's prose"
    events = acc.feed_chunk(other)
    assert events == [] and acc.consumed == 0
    assert acc.ignored_chunks == 1 and "choice 1" in acc.notes[0]
    # a chunk carrying several choices: choice 0 is read wherever it is in the list
    both = {"choices": [other["choices"][0], chunk(piece(0, "{}", "c0", "ls"))["choices"][0]]}
    acc.feed_chunk(both)
    [call] = calls_of(acc.feed_chunk(FINISH))
    assert (call.id, call.name) == ("c0", "ls")
    # a missing index is choice 0 (single-choice servers often omit it)
    bare = ChatAccumulator(incremental=True)
    bare.feed_chunk(chunk(piece(0, "{}", "c0", "ls"), choice=None))
    assert len(calls_of(bare.finish(True))) == 1 and bare.notes == []


def test_notes_are_bounded() -> None:
    acc = ChatAccumulator(incremental=True)
    for _ in range(1000):
        acc.feed_chunk(chunk(piece(0, "{}", "x", "f"), choice=3))
    assert acc.ignored_chunks == 1000 and len(acc.notes) == native.MAX_NOTES


@pytest.mark.parametrize("incremental", [True, False])
def test_a_body_without_done_or_finish_reason_is_a_truncation(incremental: bool) -> None:
    body = sse([chunk(piece(0, '{"path": "a.py"}', "c0", "read"))], done=False)
    t = chat_sse(incremental)
    events = run_chunks(t, split(body, 7), clean=True)
    assert calls_of(events) == []
    [error] = errors_of(events)
    assert error.kind == "truncated" and "c0" in error.message
    assert cut_calls(t.accumulator) == [("c0", "read")]
    # either end marker alone is a finish
    for chunks, done in (([*chunks_of(body)], True), ([*chunks_of(body), FINISH], False)):
        assert len(calls_of(run_chunks(chat_sse(incremental), [sse(chunks, done)]))) == 1


def chunks_of(body: bytes) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data")]


def test_an_unclean_finish_never_runs_an_open_call_even_if_it_parses() -> None:
    acc = ChatAccumulator(incremental=True)
    acc.feed_chunk(chunk(piece(0, '{"path": "a.py"}', "c0", "read")))
    events = acc.finish(False)
    assert calls_of(events) == [] and [e.kind for e in errors_of(events)] == ["truncated"]


# ------------------------------------------------------------------ cost


def test_a_covered_call_is_parsed_early_at_most_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """20,000 pieces ending in `}` inside a JSON string, after index 1 began: parsing on
    every piece would be quadratic; the bracket scanner parses only when the object closes."""
    parses = 0
    real = safejson.loads

    def counting(text: str, *args: Any, **kwargs: Any) -> Any:
        nonlocal parses
        if "max_depth" not in kwargs:  # an argument parse (chunks are parsed as envelopes)
            parses += 1
        return real(text, *args, **kwargs)

    monkeypatch.setattr(native.safejson, "loads", counting)
    acc = ChatAccumulator(incremental=True)
    acc.feed_chunk(chunk(piece(0, '{"content": "', "c0", "write")))
    acc.feed_chunk(chunk(piece(1, "{", "c1", "write")))
    for _ in range(20_000):
        assert acc.feed_chunk(chunk(piece(0, "x}"))) == []
    [call] = calls_of(acc.feed_chunk(chunk(piece(0, '"}'))))
    assert call.args == {"content": "x}" * 20_000}
    assert parses == 1


# ------------------------------------------------------------------ the bracket scanner

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='a{}[]"\\é \n', max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)


@given(
    value=st.dictionaries(st.text(alphabet='k{}"\\', max_size=3), JSON, max_size=3),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    ascii_only=st.booleans(),
)
def test_closure_says_closed_exactly_at_the_end_of_an_object(
    value: dict[str, Any], cuts: list[int], ascii_only: bool
) -> None:
    data = json.dumps(value, ensure_ascii=ascii_only).encode()
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    closure = _Closure()
    for a, b in itertools.pairwise(points):
        closure.feed(data[a:b])
        assert closure.closed() == (b == len(data)), (data, b)
    assert not closure.broken
