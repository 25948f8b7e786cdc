"""A stored session's timeline as the events its live session emitted (issue 23).

A resumed session's earlier conversation reaches a front end through the same event
vocabulary as everything live (``app/events.py``), so there is one input path into a
pane's state: the TUI applies these exactly as it applies a live turn's events, and a
call from history folds and opens in the pager like one that just ran.

What the timeline never stored is not invented: no stream bytes, no responses, no
token counts. A reply the person interrupted is its text followed by the
``TurnEnded("cancelled")`` that ended it (the key that stopped it is not stored).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from frontier.app.agent.undo import split_notices
from frontier.app.events import (
    AssistantText,
    CallReady,
    ContractError,
    Event,
    ToolCall,
    ToolFinished,
    ToolResult,
    ToolStarted,
    TurnEnded,
    UserMessage,
)

if TYPE_CHECKING:
    from frontier.app.session.timeline import Failure, LogRecord


def history_events(
    records: Iterable[LogRecord], failures: Sequence[Failure] = ()
) -> Iterator[Event]:
    """The events of ``records`` (a session timeline in commit order): ``user`` →
    :class:`UserMessage` (what the person typed; the undo notes sent with it apart),
    ``assistant`` → :class:`AssistantText` (+ ``TurnEnded cancelled`` when it was
    interrupted), ``call``/``started``/``result`` →
    :class:`CallReady`/:class:`ToolStarted`/:class:`ToolFinished`, ``error`` →
    :class:`ContractError`. Unknown row types are skipped (a newer store's rows). Each of
    ``failures`` (the replies that failed: ``Timeline.failures``) is the
    ``TurnEnded("provider_error")`` that ended its turn, after the row it followed."""
    calls: dict[int, ToolCall] = {}
    pending = sorted(failures, key=lambda f: f.log_seq)
    for rec in records:
        while pending and pending[0].log_seq < rec.seq:
            yield TurnEnded("provider_error", pending.pop(0).why)
        data = rec.data
        if rec.type == "user":  # stored as the model got it: the undo notes come apart
            notices, typed = split_notices(str(data.get("text", "")))
            yield UserMessage(typed, notices)
        elif rec.type == "assistant":
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

    for failure in pending:
        yield TurnEnded("provider_error", failure.why)


def _call(call_id: str | None, data: Mapping[str, Any]) -> ToolCall:
    args = data.get("args")
    offset = data.get("offset")
    return ToolCall(
        call_id or str(data.get("id", "")),
        str(data.get("name", "")),
        args if isinstance(args, Mapping) else {},
        offset if isinstance(offset, int) else 0,
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
