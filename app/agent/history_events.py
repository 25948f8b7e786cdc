"""A stored session's timeline as the events its live session emitted (issue 23).

A resumed session's earlier conversation reaches a front end through the same event
vocabulary as everything live (``app/events.py``), so there is one input path into a
pane's state: the TUI applies these exactly as it applies a live turn's events, and a
call from history folds and opens in the pager like one that just ran.

Each compaction stored (``session/compactions.py``) is the :class:`Compacted` it
announced live, after the row that was last when it happened: the person sees where the
model's view of the talk above was shortened, as they did then.

What the timeline never stored is not invented: no stream bytes, no responses, no
token counts. A reply the person interrupted is its text followed by the
``TurnEnded("cancelled")`` that ended it (the key that stopped it is not stored).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from frontier.app.agent.attachments import split_attached
from frontier.app.agent.compaction_event import compaction_event
from frontier.app.events import (
    AssistantText,
    CallReady,
    ContractError,
    Event,
    Notice,
    ReasoningText,
    ToolCall,
    ToolFinished,
    ToolResult,
    ToolStarted,
    TurnEnded,
    UserMessage,
)
from frontier.app.notices import split_notices
from frontier.app.record import record

if TYPE_CHECKING:
    from frontier.app.session.compactions import CompactionStep
    from frontier.app.session.store import SessionStore
    from frontier.app.session.timeline import Failure, LogRecord


class Placed(Protocol):
    """What happened after a timeline row without being one: a failed reply, a compaction."""

    @property
    def log_seq(self) -> int: ...


P = TypeVar("P", bound=Placed)


@record
class HistoryRead:
    """The newest part of a stored timeline as read once, and the events it made:
    :func:`events_since` gives, after more rows were written, the events that follow."""

    records: list[LogRecord]
    failures: list[Failure]
    events: list[Event]
    steps: list[CompactionStep]


def read_tail(store: SessionStore, session_id: str, keep: int | None) -> HistoryRead:
    """The events of a stored session's timeline a front end keeping ``keep`` entries
    shows (``None``: every one), reading only the tail that makes them
    (:func:`history_tail`)."""
    from frontier.app.session.timeline import Failure

    def placed() -> list[Failure | CompactionStep]:
        return [*store.failures(session_id), *store.compactions.steps(session_id)]

    if keep is None:
        records = store.records(session_id)
        marks = placed() if records else []
    else:
        records, marks = history_tail(
            lambda before, limit: store.records_before(session_id, before, limit), placed, keep
        )
    failures = [m for m in marks if isinstance(m, Failure)]
    steps = [m for m in marks if not isinstance(m, Failure)]
    return HistoryRead(records, failures, list(history_events(records, failures, steps)), steps)


def events_since(store: SessionStore, session_id: str, read: HistoryRead) -> list[Event]:
    """The events of the rows written after ``read`` (a resume's reconciled results,
    made after the history was shown): those that follow ``read.events`` when the rows
    read and the new ones are made into events together, so a result finds the call row
    read before (alone it would make the call a second time)."""
    last = read.records[-1].seq if read.records else 0
    newer = store.records_after(session_id, last)
    if not newer:
        return []
    # the failures and compactions read, then any placed after the last row read: the
    # events of the rows read come out exactly as before, and the new ones follow them
    failures = [*read.failures, *(f for f in store.failures(session_id) if f.log_seq > last)]
    later = (s for s in store.compactions.steps(session_id) if s.log_seq > last)
    events = list(history_events([*read.records, *newer], failures, [*read.steps, *later]))
    return events[len(read.events) :]


def history_events(
    records: Iterable[LogRecord],
    failures: Sequence[Failure] = (),
    steps: Sequence[CompactionStep] = (),
) -> Iterator[Event]:
    """The events of ``records`` (a session timeline in commit order): ``user`` →
    :class:`UserMessage` (what the person typed; the undo notes sent with it apart),
    ``assistant`` → :class:`AssistantText` (+ ``TurnEnded cancelled`` when it was
    interrupted), or :class:`ReasoningText` (the model's reasoning, since stop 53),
    ``call``/``started``/``result`` →
    :class:`CallReady`/:class:`ToolStarted`/:class:`ToolFinished`, ``error`` →
    :class:`ContractError`. Unknown row types are skipped (a newer store's rows). Each of
    ``failures`` (the replies that failed: ``Timeline.failures``) is the
    ``TurnEnded`` that ended its turn (``provider_error``, or ``too_long``), after the row it
    followed; each of ``steps`` (``Compactions.steps``, oldest first) is the
    :class:`Compacted` it announced, after the row it followed and before a failure placed
    there too (the request that failed was the one compacted)."""
    calls: dict[int, ToolCall] = {}
    placed: list[tuple[int, int, Event]] = [
        (s.log_seq, 0, compaction_event(s.step, s.detail)) for s in steps
    ]
    placed += [(f.log_seq, 1, TurnEnded(f.reason, f.why)) for f in failures]
    placed.sort(key=lambda p: p[:2])  # stable: steps keep their order
    pending = deque(placed)
    for rec in records:
        while pending and pending[0][0] < rec.seq:
            yield pending.popleft()[2]
        data = rec.data
        if rec.type == "user":  # stored as the model got it: the notes and files come apart
            notices, sent = split_notices(str(data.get("text", "")))
            typed, files = split_attached(sent)
            yield UserMessage(typed, notices)
            for label in files:  # as the TUI said live
                yield Notice(f"attached {label}")
            images = data.get("images")
            for name in images if isinstance(images, list) else ():  # as the TUI said live
                yield Notice(f"attached image {name}")
        elif rec.type == "assistant" and "reasoning" in data:
            yield ReasoningText(str(data["reasoning"]))
        elif rec.type == "assistant":
            if data.get("text") or not data.get("interrupted"):  # else: a stop, no prose
                yield AssistantText(str(data.get("text", "")))
            if data.get("interrupted"):
                yield TurnEnded("cancelled", "")
        elif rec.type == "call":
            call = _call(rec.call_id, data)
            calls[rec.seq] = call
            yield CallReady(call)
        elif rec.type == "started":
            started = calls.get(rec.ref) if rec.ref is not None else None
            if started is not None:
                yield ToolStarted(started)
        elif rec.type == "result":
            known = calls.pop(rec.ref, None) if rec.ref is not None else None
            if known is None:  # denied before a call row was written: the row has the args
                known = _call(rec.call_id, data)
                yield CallReady(known)
            yield ToolFinished(_result(known, data))
        elif rec.type == "error":
            offset = data.get("offset")
            yield ContractError(
                str(data.get("kind", "?")),
                str(data.get("message", "")),
                offset if isinstance(offset, int) else 0,
            )

    for _, _, event in pending:
        yield event


def tail_cut(records: Sequence[LogRecord], keep: int) -> int | None:
    """The index of the latest of ``records`` (commit order) that a front end keeping its
    newest ``keep`` entries can start :func:`history_events` from, or ``None``.

    It is a ``user`` or ``call`` row (a ``UserMessage`` or ``CallReady``: each makes an
    entry, and the reply before it is over); at least ``keep`` rows from it on make one
    of those (a ``result`` without a known call row makes its own ``CallReady``), so
    every entry made before it falls off the head either way; and no ``started`` or
    ``result`` row from it on refers to a call row before it (its event would find no
    row, and make one). Then the events of ``records[cut:]`` (with the failures from its
    row on) are the newest of the events of all of them, and make the same kept entries:
    a resume reads, decodes and applies only that much of a long session's timeline
    (:func:`history_tail`)."""
    made = 0
    waiting: set[int] = set()
    """Call rows a row from here on refers to, not yet seen."""
    for i in range(len(records) - 1, -1, -1):
        rec = records[i]
        if rec.type in ("started", "result"):
            if rec.ref is not None:
                waiting.add(rec.ref)
            elif rec.type == "result":
                made += 1  # denied before a call row was written: its own CallReady
        elif rec.type in ("user", "call"):
            waiting.discard(rec.seq)
            made += 1
            if made >= keep and not waiting:
                return i
    return None


def history_tail(
    page: Callable[[int | None, int], list[LogRecord]],
    failures: Callable[[], Sequence[P]],
    keep: int,
    limit: int | None = None,
) -> tuple[list[LogRecord], list[P]]:
    """The rows and failures (or anything else placed after a row: a compaction)
    :func:`history_events` needs for a front end's newest ``keep`` entries.
    ``page(before, limit)`` gives the newest ``limit`` rows before ``seq = before``
    (``None``: the end) in commit order; pages (the first of ``limit`` rows) double until
    :func:`tail_cut` finds a start, else the whole timeline is read. A failure before the
    first row kept ended a turn that no kept entry shows."""
    records: list[LogRecord] = []
    if limit is None:
        limit = max(256, 8 * keep)  # a call is ~4-5 rows (reply, call, started, result)
    while True:
        older = page(records[0].seq if records else None, limit)
        records[:0] = older
        start = tail_cut(records, keep)
        if start is not None or len(older) < limit:
            break
        limit *= 2
    if start is None or (start == 0 and len(older) < limit):
        return records, list(failures()) if records else []  # all of it
    kept = records[start:]
    return kept, [f for f in failures() if f.log_seq >= kept[0].seq]


def _call(call_id: str | None, data: Mapping[str, Any]) -> ToolCall:
    args = data.get("args")
    offset = data.get("offset")
    origin = data.get("origin")  # the model's command it was run for (`sed -i …`)
    return ToolCall(
        call_id or str(data.get("id", "")),
        str(data.get("name", "")),
        args if isinstance(args, Mapping) else {},
        offset if isinstance(offset, int) else 0,
        origin if isinstance(origin, str) else "",
    )


def _result(call: ToolCall, data: Mapping[str, Any]) -> ToolResult:
    exit_code = data.get("exit")
    elapsed = data.get("elapsed")
    meta = data.get("meta")
    return ToolResult(
        call.id,
        str(data.get("name", call.name)),
        data.get("kind", "error"),
        str(data.get("output", "")),
        exit_code if isinstance(exit_code, int) else None,
        float(elapsed) if isinstance(elapsed, int | float) else 0.0,
        meta if isinstance(meta, Mapping) else {},
    )
