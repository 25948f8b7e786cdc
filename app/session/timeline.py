"""The history and the timeline: what was said, in the one order it happened.

Two tables, two readers. ``messages`` holds the history the model is sent, one typed
conversation item per row (``app/model/conversation.py``: ``role`` is
:func:`~frontier.app.model.conversation.role_of` the item, ``body`` its stored JSON),
so a resumed session continues the same conversation on any wire. ``log`` is the
session's timeline — ``user`` / ``assistant`` text, ``call``, ``started``, ``result``,
``error`` — ordered by one autoincrement ``seq`` that export, the call ledger and
recovery all read, so nothing ever merges tables by timestamp. Every timeline row is
inserted by :func:`append_log`, which scrubs it.

A :class:`~frontier.app.model.conversation.UserText` the person wrote (``origin
"person"``) is also a ``user`` timeline entry (a *turn* in ``frontier sessions``);
results, repair requests, notices and summaries are the runtime's and are not.

Sessions stored before typed items kept chat message dicts (``role`` ``user`` /
``assistant`` / ``tool``); :func:`decode_items` reads them back as items, each run of
them at once (a ``tool`` message belongs to the assistant message before it).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence

from frontier.app import fastjson
from frontier.app.record import record
from frontier.app.session.db import Database, StoreError
from frontier.app.session.sqlite import sqlite3
from frontier.app.session.times import iso_time  # noqa: F401 (re-exported)
from frontier.app.vocab import FAILED_CUT

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from frontier.app.model.conversation import Item

    P = TypeVar("P")


@record
class LogRecord:
    """One entry of a session's timeline, in commit order."""

    seq: int
    type: str
    t: float
    call_id: str | None
    ref: int | None
    response_id: int | None
    data: Mapping[str, Any]


@record
class Failure:
    """A reply that failed, as the history keeps it (:meth:`Timeline.failures`)."""

    log_seq: int
    """The last timeline row when it was stored: it happened after that row."""
    t: float
    why: str

    @property
    def reason(self) -> str:
        """The reason its turn ended: ``too_long`` or ``provider_error``."""
        from frontier.app.model.conversation import failure_reason

        return failure_reason(self.why)


@record
class StoredItem:
    """One item of the history as stored: when, and where in the timeline."""

    item: Item
    t: float
    log_seq: int | None
    """The last timeline row when the item was stored (``messages.log_seq``): the results
    it carries are the newest result rows at or before it."""


def to_json(data: object) -> str:
    """The stored JSON form of a row body (bytes as the event vocabulary writes them)."""
    import json  # writers only (``default=``): readers use fastjson

    return json.dumps(data, ensure_ascii=False, default=_json_default)


def append_log(
    db: Database,
    c: sqlite3.Connection,
    session_id: str,
    type_: str,
    data: Mapping[str, Any],
    *,
    call_id: str | None = None,
    ref: int | None = None,
    response_id: int | None = None,
    t: float | None = None,
) -> int:
    """Insert one timeline row (scrubbed) inside the open transaction ``c``; its ``seq``."""
    body = db.scrub(to_json(data))
    try:
        cur = c.execute(
            "INSERT INTO log (session_id, t, type, call_id, ref, response_id, data)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session_id, time.time() if t is None else t, type_, call_id, ref, response_id, body),
        )
    except sqlite3.IntegrityError as exc:
        raise StoreError(
            f"cannot record {type_} for session {session_id!r}: {exc}; "
            "is the session id right? (`frontier sessions` lists them)"
        ) from exc
    return int(cur.lastrowid or 0)


class Timeline:
    """The ``messages`` and ``log`` tables of every session."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def append_items(self, session_id: str, items: Sequence[Item]) -> None:
        """Record history items in one transaction (a whole round: the reply and the
        results it gets back), so the history is never half a round.

        Each is stored as its JSON (scrubbed); a ``UserText`` the person wrote (``origin
        "person"``) also becomes a ``user`` timeline entry, a turn."""
        # the conversation's vocabulary is imported by writers and history readers only:
        # `check` and `undo --list` read the log without it (start-up, issue 24)
        from frontier.app.model.conversation import (
            AssistantTurn,
            ToolResults,
            UserText,
            item_to_json,
            role_of,
        )

        rows: list[tuple[str, str, dict[str, Any] | None]] = []
        for item in items:
            if not isinstance(item, UserText | AssistantTurn | ToolResults):
                raise TypeError(f"not a conversation item: {item!r:.80}")
            body = self.db.scrub(to_json(item_to_json(item)))
            typed: dict[str, Any] | None = None
            if isinstance(item, UserText) and item.origin == "person":
                typed = {"text": item.text}
                if item.images:  # named in the timeline; the bytes are in the item only
                    typed["images"] = [image.name for image in item.images]
            rows.append((role_of(item), body, typed))
        now = time.time()

        def insert(c: sqlite3.Connection) -> None:
            for role, body, typed in rows:
                if typed is not None:
                    append_log(self.db, c, session_id, "user", typed, t=now)
                last = c.execute(
                    "SELECT MAX(seq) FROM log WHERE session_id = ?", (session_id,)
                ).fetchone()[0]
                c.execute(
                    "INSERT INTO messages (session_id, t, role, body, log_seq)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (session_id, now, role, body, last),
                )

        self.db.write("message", insert)

    def load_items(self, session_id: str) -> list[Item]:
        """Every item stored, in order (the originals: no compaction applied)."""
        return [s.item for s in self.stored_items(session_id)]

    def stored_items(self, session_id: str, *, after: int = 0) -> list[StoredItem]:
        """The items stored after ``messages.seq = after``, with when and where each was
        stored (rows from before typed items converted: :func:`decode_items`)."""
        rows = self.db.read(
            "SELECT body, t, log_seq FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq",
            (session_id, after),
        )
        decoded = decode_items(
            [(loads_body(body), (float(t), log_seq)) for body, t, log_seq in rows]
        )
        return [StoredItem(item, t, log_seq) for item, (t, log_seq) in decoded]

    def add_assistant_text(self, session_id: str, text: str, *, interrupted: bool = False) -> None:
        """Confirmed assistant prose (consecutive pieces are joined on export).

        ``interrupted``: the user stopped the turn while this reply streamed; the row is
        the prose confirmed until then, marked ``"interrupted": true`` so the export and
        a resumed Transcript say the reply was cut short.
        """
        if not text:
            return
        data: dict[str, Any] = {"text": text, **({"interrupted": True} if interrupted else {})}
        self.db.write(
            "assistant",
            lambda c: append_log(self.db, c, session_id, "assistant", data),
        )

    def add_turn_stopped(self, session_id: str, why: str) -> None:
        """The turn was stopped (Esc, a signal) where no reply's prose was being said: before
        the first byte, during a compaction's summary, while a tool ran. An ``assistant``
        row with no text, marked ``interrupted`` with ``why``: without it the export and a
        resumed Transcript showed the person's message, then their next one, as if the
        first had been answered by nothing."""
        data = {"text": "", "interrupted": True, "why": why}
        self.db.write(
            "assistant",
            lambda c: append_log(self.db, c, session_id, "assistant", data),
        )

    def add_reasoning(self, session_id: str, text: str) -> None:
        """The model's reasoning as it streamed (``ReasoningText``), before the prose or
        call it led to: an ``assistant`` row whose data is ``{"reasoning": text}``, so a
        resumed Transcript and the export show what the live one did (it was only in the
        raw stream events). Not what goes back to the model: the API's own reasoning
        blocks travel in the typed history."""
        if not text.strip():
            return
        self.db.write(
            "assistant",
            lambda c: append_log(self.db, c, session_id, "assistant", {"reasoning": text}),
        )

    def add_contract_error(
        self,
        session_id: str,
        kind: str,
        message: str,
        offset: int,
        response_id: int | None = None,
    ) -> None:
        """A framing error of the model's, at a byte offset of the response's input."""
        data = {"kind": kind, "message": message, "offset": offset}
        self.db.write(
            "error",
            lambda c: append_log(self.db, c, session_id, "error", data, response_id=response_id),
        )

    def failures(self, session_id: str) -> list[Failure]:
        """The replies of the session that failed (the server's error, a dropped request),
        each with where in the timeline it happened and what went wrong: read from the
        ``[Reply failed: …]`` cut of the history sent to the model
        (``conversation.failed_cut``), the only place a turn's error is kept. Only the
        rows holding the marker are decoded; the originals, so compaction hides none."""
        rows = self.db.read(
            "SELECT body, t, log_seq FROM messages"
            " WHERE session_id = ? AND role = 'assistant' AND instr(body, ?) > 0 ORDER BY seq",
            (session_id, FAILED_CUT),
        )
        out: list[Failure] = []
        if not rows:
            return out
        # the history's decoding is imported only when a reply failed (an export's start)
        from frontier.app.model.conversation import (
            AssistantTurn,
            failure_of,
            is_item_json,
            item_from_json,
        )

        for body, t, log_seq in rows:
            data = loads_body(body)
            if log_seq is None or not isinstance(data, Mapping) or not is_item_json(data):
                continue  # a row from before v2, or before typed items: its place is unknown
            try:
                item = item_from_json(data)
            except ValueError:  # unreadable: nothing to say of it, and the export goes on
                continue
            why = failure_of(item.cut) if isinstance(item, AssistantTurn) else None
            if why is not None:
                out.append(Failure(int(log_seq), float(t), why))
        return out

    def records(self, session_id: str) -> list[LogRecord]:
        """The session timeline (user, assistant, call, started, result, error) as stored."""
        return self.records_after(session_id, 0)  # seq counts from 1

    def records_after(self, session_id: str, after: int) -> list[LogRecord]:
        """The rows of the timeline after ``seq = after``, in commit order (what a resume
        wrote, reconciling, after its history was read and shown)."""
        rows = self.db.read(
            f"SELECT {_LOG_COLUMNS} FROM log WHERE session_id = ? AND seq > ? ORDER BY seq",
            (session_id, after),
        )
        return _log_records(rows)

    def records_before(self, session_id: str, before: int | None, limit: int) -> list[LogRecord]:
        """The newest ``limit`` rows of the timeline before ``seq = before`` (all: ``None``),
        in commit order: a resume reads a long session's tail a page at a time."""
        rows = self.db.read(
            f"SELECT {_LOG_COLUMNS} FROM log WHERE session_id = ? AND seq < ?"
            " ORDER BY seq DESC LIMIT ?",
            (session_id, (1 << 62) if before is None else before, limit),
        )
        return _log_records(reversed(rows))


_LOG_COLUMNS = "seq, type, t, call_id, ref, response_id, data"
"""The ``log`` columns a :class:`LogRecord` is made of, in its fields' order."""


def _log_records(rows: Iterable[Sequence[Any]]) -> list[LogRecord]:
    return [
        LogRecord(s, ty, t, cid, ref, rid, fastjson.loads(d)) for s, ty, t, cid, ref, rid, d in rows
    ]


def decode_items(stored: Sequence[tuple[object, P]]) -> list[tuple[Item, P]]:
    """Stored history entries (each decoded JSON with its place ``P``) as items.

    An item's JSON is read as it is; a run of chat message dicts (sessions before typed
    items) is converted whole by ``openai_chat.items_from_messages``, each item placed
    where its message was (a run of ``tool`` messages becomes one ``ToolResults``, placed
    at its last message). Anything else (unreadable) is skipped."""
    from frontier.app.model.conversation import is_item_json, item_from_json

    out: list[tuple[Item, P]] = []
    run: list[tuple[Mapping[str, Any], P]] = []

    def convert() -> None:
        if not run:
            return
        # sessions before typed items only: the wire's module stays off every store's start
        from frontier.app.model.wires.openai_chat import items_from_messages

        items = items_from_messages([message for message, _ in run])
        places = _legacy_places(run)
        if len(places) != len(items):  # never: the walk below mirrors the converter
            places = [run[-1][1]] * len(items)
        out.extend(zip(items, places, strict=True))
        run.clear()

    for body, place in stored:
        if is_item_json(body):
            assert isinstance(body, Mapping)
            convert()
            out.append((item_from_json(body), place))
        elif isinstance(body, Mapping) and isinstance(body.get("role"), str):
            run.append((body, place))
    convert()
    return out


def _legacy_places(run: Sequence[tuple[Mapping[str, Any], P]]) -> list[P]:
    """Where each item ``items_from_messages`` makes of ``run`` was stored: a ``user`` or
    ``assistant`` message is one item; consecutive ``tool`` messages one ``ToolResults``
    (closed by any other message); other roles (``system``) none."""
    places: list[P] = []
    tools: list[P] = []
    for message, place in run:
        role = message.get("role")
        if role == "tool":
            tools.append(place)
            continue
        if tools:
            places.append(tools[-1])
            tools = []
        if role in ("user", "assistant"):
            places.append(place)
    if tools:
        places.append(tools[-1])
    return places


def loads_body(body: str) -> object:
    """A stored JSON body, or ``None`` when it is unreadable (skipped by the readers)."""
    try:
        return fastjson.loads(body)
    except ValueError:
        return None


def _json_default(value: object) -> Any:
    from frontier.app.events import json_value

    return json_value(value) if isinstance(value, bytes) else str(value)
