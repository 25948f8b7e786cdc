"""Calls in flight: a persisted call without a result, and what it means to a reader.

While a Frontier holds the session (``lock.py``), a call without a result is
running, and readers show it as stored. Once no process holds it, that call will
never get a result from the process that ran it: it died. Recovery, on resume,
commits the verdict (``recover.py``); until then a reader — ``frontier export``,
``frontier sessions``, ``frontier check``, the TUI's picker — must not show the call
as if it never ended. It shows the verdict recovery would give a call that is not a
file mutation: ``interrupted`` (it had started: outcome unknown) or ``not_executed``
(it never started). Nothing is written: readers open the store read-only, and a
file mutation's exact verdict (applied / not applied / diverged, from the files'
hashes) is recovery's to give.
"""

from __future__ import annotations

from collections.abc import Sequence

from frontier.app.events import ToolResult
from frontier.app.record import replace
from frontier.app.session.calls import CallLedger, CallRecord, result_to_json
from frontier.app.session.catalogue import Catalogue
from frontier.app.session.responses import Responses
from frontier.app.session.timeline import LogRecord, Timeline

TYPE_CHECKING = False
if TYPE_CHECKING:
    from frontier.app.session.db import Database

RESUME_HINT = "resuming the session reconciles it"


def outcome_unknown(call: CallRecord, meta: dict[str, object]) -> ToolResult:
    """The result of a call whose process died: ``interrupted`` if it had started, else
    ``not_executed`` (the wording recovery commits for a call that is not a mutation)."""
    if call.started is not None:
        return ToolResult(
            call.call_id,
            call.name,
            "interrupted",
            f"{call.name} call {call.call_id!r} was running when Frontier stopped: outcome "
            "unknown: check before retrying (it may have partly or fully run)",
            meta=meta,
        )
    return ToolResult(
        call.call_id,
        call.name,
        "not_executed",
        f"{call.name} call {call.call_id!r} was recorded but never started when Frontier "
        "stopped: it did not run; issue it again if it is still needed",
        meta=meta,
    )


def inferred_result(call: CallRecord) -> ToolResult:
    """What a reader shows for ``call`` of a session nobody holds (never stored)."""
    result = outcome_unknown(call, {"inferred": True, "started": call.started is not None})
    if call.targets:
        note = f"; {RESUME_HINT} by checking its files (applied, not applied or diverged)"
    else:
        note = f"; {RESUME_HINT}"
    return replace(result, output=result.output + note)


def settle(log: Sequence[LogRecord], unresolved: Sequence[CallRecord]) -> list[LogRecord]:
    """The timeline as a reader sees it: ``log`` followed by an inferred result for each
    call in ``unresolved`` (pass none while a process holds the session), where a resume
    would commit its reconciled result. An inferred record has ``seq`` 0: it is not stored."""
    if not unresolved:
        return list(log)
    t = log[-1].t if log else 0.0
    extra = [
        LogRecord(
            seq=0,
            type="result",
            t=t,
            call_id=call.call_id,
            ref=call.seq,
            response_id=call.response_id,
            data=result_to_json(inferred_result(call)),
        )
        for call in unresolved
    ]
    return [*log, *extra]


def records_as_read(db: Database, session_id: str) -> list[LogRecord]:
    """A session's timeline as a reader must show it (:func:`settle`): while no process
    holds the session, each call left without a result ends in its inferred result;
    nothing is written. From the store's parts, so a reader (``frontier export``) opens
    no more of the store than it reads."""
    held = Catalogue(db).is_held(session_id)
    unresolved = [] if held else CallLedger(db, Responses(db)).unresolved_calls(session_id)
    return settle(Timeline(db).records(session_id), unresolved)
