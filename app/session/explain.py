"""A stored session read for the framing-error inspector: each response with what the
runtime sent back after it and what became of its calls.

``frontier check --explain SESSION`` and the TUI's inspector ask three things of the
store that no other reader does: the recording of a response, the next user message
recorded after it (the repair prompt, after any result frames: the exact feedback the
model got), and the calls of the response after it with their results (did the resend
work?). This module reads those, read-only, and returns plain records; running a
transducer over them is the agent layer's part (``app/agent/explain.py``), since the
store never imports transducers.

History items carry no response id. A round's items are committed after its response
ended and before the next response began (the agent loop appends each round whole), so
the feedback of response *r* is the first item of runtime feedback stored between *r*'s
end and the start of the response after it: result frames (with the repair request
after them), a repair request alone (``UserText`` of origin ``feedback``), or the repair
note that rides with native results; its text is what the model read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from frontier.app.model.conversation import Item, ToolResults, UserText, user_text
from frontier.app.record import record
from frontier.app.session.calls import CallLedger
from frontier.app.session.catalogue import Catalogue, _existing_store
from frontier.app.session.db import Database
from frontier.app.session.record import Recording
from frontier.app.session.responses import Responses
from frontier.app.session.timeline import StoredItem, Timeline


@record
class StoredCall:
    """A call the store persisted for a response, with how it ended (``None``: no result)."""

    call_id: str
    name: str
    result: str | None
    exit_code: int | None = None


@record
class StoredResponse:
    name: str
    """``SESSION#N``, as ``check`` and ``replay`` name it."""
    request_index: int
    recording: Recording
    feedback: str | None
    """The runtime's next user message after this response (``None``: none was stored —
    the turn ended, or the process died first)."""
    calls: tuple[StoredCall, ...]


@record
class StoredSession:
    session_id: str
    responses: tuple[StoredResponse, ...]

    def find(self, request_index: int) -> StoredResponse | None:
        return next((r for r in self.responses if r.request_index == request_index), None)

    def after(self, request_index: int) -> StoredResponse | None:
        """The response that followed ``request_index`` (the model's next attempt)."""
        later = [r for r in self.responses if r.request_index > request_index]
        return min(later, key=lambda r: r.request_index) if later else None


def load_session(id_or_prefix: str, path: Path | None = None) -> StoredSession:
    """Every response of a stored session with its feedback and calls, oldest first.

    Raises ``SessionNotFound`` / ``StoreError`` with a message fit for the user."""
    db = Database.open_readonly(
        _existing_store(path, f"{id_or_prefix!r} is not a file and there are")
    )
    try:
        info = Catalogue(db).get_session(id_or_prefix)
        responses = Responses(db)
        recorded = responses.recordings(info.id)
        times = {
            int(rid): (float(t), float(ended) if ended is not None else None)
            for rid, t, ended in db.read(
                "SELECT id, t, ended FROM responses WHERE session_id = ?", (info.id,)
            )
        }
        stored = Timeline(db).stored_items(info.id)
        calls: dict[int | None, list[StoredCall]] = {}
        for record in CallLedger(db, responses).calls(info.id):
            result = record.result
            calls.setdefault(record.response_id, []).append(
                StoredCall(
                    record.call_id,
                    record.name,
                    result.kind if result is not None else None,
                    result.exit_code if result is not None else None,
                )
            )
        out: list[StoredResponse] = []
        for i, r in enumerate(recorded):
            begun, ended = times.get(r.id, (r.created, None))
            until = times[recorded[i + 1].id][0] if i + 1 < len(recorded) else None
            out.append(
                StoredResponse(
                    name=r.name,
                    request_index=r.request_index,
                    recording=r.to_recording(),
                    feedback=_feedback(stored, ended if ended is not None else begun, until),
                    calls=tuple(calls.get(r.id, ())),
                )
            )
        return StoredSession(info.id, tuple(out))
    finally:
        db.close()


def _feedback(stored: Sequence[StoredItem], since: float, until: float | None) -> str | None:
    for entry in stored:
        if entry.t < since:
            continue
        if until is not None and entry.t > until:
            return None
        text = feedback_text(entry.item)
        if text is not None:
            return text
    return None


def feedback_text(item: Item) -> str | None:
    """The runtime feedback ``item`` carries as the model read it, or ``None`` when it
    carries none (the person's text, a reply, native results without a repair note)."""
    if isinstance(item, UserText):
        return item.text if item.origin == "feedback" else None
    if isinstance(item, ToolResults):
        if item.framed:
            return user_text(item)
        return item.note or None
    return None
