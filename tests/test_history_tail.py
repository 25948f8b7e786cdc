"""A resume reads and applies only the history the Transcript keeps, and shows exactly
what reading and applying all of it showed: the timeline's tail from where
``history_events.tail_cut`` allows, read a page at a time from the end
(``history_events.history_tail``). At 4,000 calls 0.2-0.4 s of reading and 160 ms of the
screen's loop became ~0.02 s and ~8 ms. UiState only, no Textual."""

from __future__ import annotations

from collections import deque
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from frontier.app.agent.history_events import (
    events_since,
    history_events,
    history_tail,
    read_tail,
    tail_cut,
)
from frontier.app.events import Event
from frontier.app.session.compactions import CompactionStep
from frontier.app.session.store import LogRecord
from frontier.app.session.timeline import Failure
from frontier.widgets.state import UiState
from frontier.widgets.transcript import render_entry, tool_of

IDS = ("c1", "c2", "c3")
"""Few ids: a call resent under an earlier one's id happens often."""

op = st.one_of(
    st.tuples(st.just("user"), st.sampled_from(["", "fix it", "and the tests"]), st.booleans()),
    st.tuples(st.just("assistant"), st.sampled_from(["", " ", "Reading.", "Done"]), st.booleans()),
    st.tuples(st.just("call"), st.sampled_from(IDS), st.booleans()),
    st.tuples(st.just("started"), st.integers(0, 3), st.booleans()),
    st.tuples(
        st.just("result"), st.integers(0, 3), st.sampled_from(["ok", "error", "denied", "not_run"])
    ),
    st.tuples(st.just("error"), st.just(""), st.booleans()),
    st.tuples(st.just("failed"), st.just(""), st.booleans()),
    st.tuples(st.just("compacted"), st.sampled_from(["stub", "summary"]), st.booleans()),
)


Timeline = tuple[list[LogRecord], list[Failure], list[CompactionStep]]


def timeline(ops: list[tuple[str, Any, Any]]) -> Timeline:
    """Timeline rows as a store holds them: calls started and finished in any order, some
    never; results without a call row (denied before it was written); failed replies;
    compactions."""
    records: list[LogRecord] = []
    failures: list[Failure] = []
    steps: list[CompactionStep] = []
    open_calls: list[tuple[int, str]] = []  # (the call row's seq, its id)
    for kind, a, b in ops:
        seq = len(records) + 1
        if kind == "user":
            records.append(LogRecord(seq, "user", 0.0, None, None, None, {"text": a}))
        elif kind == "assistant":
            data = {"text": a, "interrupted": True} if b else {"text": a}
            records.append(LogRecord(seq, "assistant", 0.0, None, None, None, data))
        elif kind == "call":
            data = {"name": "shell", "args": {"command": f"make {seq}"}}
            records.append(LogRecord(seq, "call", 0.0, a, None, None, data))
            open_calls.append((seq, a))
        elif kind == "started" and open_calls:
            ref, call_id = open_calls[a % len(open_calls)]
            records.append(LogRecord(seq, "started", 0.0, call_id, ref, None, {}))
        elif kind == "result":
            if open_calls:
                ref, call_id = open_calls.pop(a % len(open_calls))
            else:
                ref, call_id = seq + 100, IDS[a % len(IDS)]  # no call row
            data = {"name": "shell", "kind": b, "output": f"line {seq}\nmore\n", "exit": 0}
            records.append(LogRecord(seq, "result", 0.0, call_id, ref, None, data))
        elif kind == "error":
            data = {"kind": "body_eof", "message": "short", "offset": seq}
            records.append(LogRecord(seq, "error", 0.0, None, None, None, data))
        elif kind == "failed":
            failures.append(Failure(seq - 1, 0.0, f"HTTP 500 after row {seq - 1}"))
        elif kind == "compacted":
            detail = {"reason": "too_long" if b else "threshold", "rounds": seq, "withdrawn": seq}
            steps.append(CompactionStep(seq - 1, a, detail))
    return records, failures, steps


def shown(events: list[Event], keep: int) -> list[tuple[str, str]]:
    """The Transcript's entries as a person reads them, after ``show_history``."""
    state = UiState(clock=lambda: 0.0)
    state.models.transcript.entries = deque(maxlen=keep)
    state.show_history(events)
    return [(e.role, render_entry(e, tool_of(e, state.tools), 0.0).plain) for e in state.transcript]


def test_a_long_turn_of_calls_applies_only_its_tail() -> None:
    """One message, 4,000 calls: the Transcript keeps 200 entries, and about that many
    calls' events are applied, not 16,000."""
    ops: list[tuple[str, Any, Any]] = [("user", "fix it", False)]
    for n in range(4_000):
        ops += [("assistant", "Reading.", False), ("call", IDS[n % 3], False)]
        ops += [("started", 0, False), ("result", 0, "ok")]
    records, _, _ = timeline(ops)
    keep = UiState().models.transcript.entries.maxlen or 0
    cut = tail_cut(records, keep)
    assert cut is not None
    events = list(history_events(records[cut:]))
    assert len(events) <= 4 * keep  # a call's 3 events and its reply: ~2 entries
    assert shown(events, keep) == shown(list(history_events(records)), keep)


def test_a_call_finished_after_the_cut_it_would_need_moves_the_start_before_it() -> None:
    """A call made early and finished at the end (a long command) keeps its row: the
    history starts at that call, not after it."""
    ops: list[tuple[str, Any, Any]] = [("user", "build", False), ("call", "long", False)]
    ops += [("started", 0, False)]
    for n in range(20):
        ops += [("call", f"q{n}", False), ("result", 1, "ok")]  # each quick call finishes
    ops += [("result", 0, "ok")]  # the long one
    records, _, _ = timeline(ops)
    assert tail_cut(records, 5) == 1  # the long call's row
    assert shown(list(history_events(records[1:])), 5) == shown(list(history_events(records)), 5)


@given(st.lists(op, max_size=60), st.integers(1, 8), st.integers(1, 12))
def test_the_timeline_read_from_its_end_shows_what_all_of_it_showed(
    ops: list[tuple[str, Any, Any]], keep: int, limit: int
) -> None:
    """The rows read from the end (pages of ``limit`` rows, doubling) make the newest of
    the events every row makes (failed replies before the rows kept are left with them),
    and applied whole they give the same Transcript."""
    records, failures, steps = timeline(ops)
    pages: list[int] = []

    def page(before: int | None, size: int) -> list[LogRecord]:
        rows = [r for r in records if before is None or r.seq < before][-size:]
        pages.append(len(rows))
        return rows

    placed: list[Failure | CompactionStep] = [*failures, *steps]
    tail, kept = history_tail(page, lambda: placed, keep, limit)
    kept_failures = [k for k in kept if isinstance(k, Failure)]
    kept_steps = [k for k in kept if isinstance(k, CompactionStep)]
    assert tail == records[len(records) - len(tail) :]
    assert sum(pages) <= 2 * len(records) + limit  # each page at most doubles the last
    every = list(history_events(records, *((failures, steps) if records else ())))  # no rows
    events = list(history_events(tail, kept_failures, kept_steps))
    assert events == every[len(every) - len(events) :]  # the same events, the newest
    assert shown(events, keep) == shown(every, keep)


class Rows:
    """The parts of a store ``read_tail`` and ``events_since`` read, over a timeline that
    grows (``upto``: the rows written so far)."""

    def __init__(
        self, records: list[LogRecord], failures: list[Failure], steps: list[CompactionStep]
    ) -> None:
        self.all_records, self.all_failures, self.upto = records, failures, 0
        self.all_steps = steps
        self.compactions = self  # ``store.compactions.steps``

    def _written(self) -> list[LogRecord]:
        return self.all_records[: self.upto]

    def records(self, session_id: str) -> list[LogRecord]:
        return self._written()

    def records_before(self, session_id: str, before: int | None, limit: int) -> list[LogRecord]:
        return [r for r in self._written() if before is None or r.seq < before][-limit:]

    def records_after(self, session_id: str, after: int) -> list[LogRecord]:
        return [r for r in self._written() if r.seq > after]

    def failures(self, session_id: str) -> list[Failure]:
        written = {r.seq for r in self._written()}
        return [f for f in self.all_failures if f.log_seq in written]

    def steps(self, session_id: str) -> list[CompactionStep]:
        written = {r.seq for r in self._written()}
        return [s for s in self.all_steps if s.log_seq in written]


@given(st.lists(op, max_size=60), st.floats(0, 1), st.integers(1, 8))
def test_rows_written_after_the_history_was_shown_follow_it_on_the_same_rows(
    ops: list[tuple[str, Any, Any]], at: float, keep: int
) -> None:
    """A resume shows the stored talk, then what its build wrote (a reconciled result):
    shown in two parts, the Transcript reads as if all of it had been read at the end, and
    a result finds the call row shown before instead of making one."""
    records, failures, steps = timeline(ops)
    store = Rows(records, failures, steps)
    store.upto = int(at * len(records))  # the rows stored when the history was read
    read = read_tail(store, "s", keep)  # type: ignore[arg-type]
    store.upto = len(records)
    rest = events_since(store, "s", read)  # type: ignore[arg-type]
    state = UiState(clock=lambda: 0.0)
    state.models.transcript.entries = deque(maxlen=keep)
    state.show_history(read.events, more=True)
    state.show_history(rest)
    parts = [
        (e.role, render_entry(e, tool_of(e, state.tools), 0.0).plain) for e in state.transcript
    ]
    whole = read_tail(store, "s", keep)  # type: ignore[arg-type]
    assert parts == shown(whole.events, keep)
