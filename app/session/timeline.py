"""Messages and the timeline: what was said, in the one order it happened.

Two tables, two readers. ``messages`` holds the exact chat message dicts sent to
the model, so a resumed session continues the same conversation. ``log`` is the
session's timeline — ``user`` / ``assistant`` text, ``call``, ``started``,
``result``, ``error`` — ordered by one autoincrement ``seq`` that export, the call
ledger and recovery all read, so nothing ever merges tables by timestamp. Every
timeline row is inserted by :func:`append_log`, which scrubs it.

A ``role: user`` message is also a ``user`` timeline entry (a *turn* in
``frontier sessions``) when the person typed it; result frames and repair prompts
are runtime feedback and are not (``from_user``; without the hint they are known by
their fixed openings).
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from frontier.app.events import json_value
from frontier.app.session.db import Database, StoreError


@dataclass(frozen=True)
class LogRecord:
    """One entry of a session's timeline, in commit order."""

    seq: int
    type: str
    t: float
    call_id: str | None
    ref: int | None
    response_id: int | None
    data: Mapping[str, Any]


_RUNTIME_FEEDBACK = re.compile(
    r"result [A-Za-z0-9_.:-]{1,64} exit=\S+ \d+\n|error (truncated|contract)\b"
)
"""What the agent loop sends back as a ``user`` message: result frames and repair prompts."""


def iso_time(t: float) -> str:
    """A stored time as people read it: local time with offset, to the second."""
    from datetime import datetime

    return datetime.fromtimestamp(t).astimezone().isoformat(timespec="seconds")


def to_json(data: object) -> str:
    """The stored JSON form of a row body (bytes as the event vocabulary writes them)."""
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

    def append_message(
        self, session_id: str, message: Mapping[str, Any], *, from_user: bool | None = None
    ) -> None:
        """Record one chat message exactly as it is (or will be) sent to the model.

        ``from_user`` says whether a ``role: user`` message was typed by the person
        (it then also appears as a ``user`` entry in the timeline and counts as a
        turn); pass ``False`` for result frames and repair prompts. Default: a
        ``role: user`` message counts as typed unless it is runtime feedback (it
        starts with a CTL result frame or ``error truncated``/``error contract``).
        """
        self.append_messages(session_id, [message], from_user=from_user)

    def append_messages(
        self,
        session_id: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        from_user: bool | None = None,
    ) -> None:
        """Record several messages in one transaction (a whole round: the assistant's
        message and the results it gets back), so history is never half a round."""
        rows = []
        for message in messages:
            role = message.get("role")
            if not isinstance(role, str):
                raise ValueError(f"a chat message needs a string 'role', got {message!r:.80}")
            body = self.db.scrub(to_json(message))
            if from_user is None:
                typed = role == "user" and not _RUNTIME_FEEDBACK.match(_message_text(message))
            else:
                typed = from_user and role == "user"
            rows.append((role, body, typed, _message_text(message)))
        now = time.time()

        def insert(c: sqlite3.Connection) -> None:
            for role, body, typed, text in rows:
                if typed:
                    append_log(self.db, c, session_id, "user", {"text": text}, t=now)
                last = c.execute(
                    "SELECT MAX(seq) FROM log WHERE session_id = ?", (session_id,)
                ).fetchone()[0]
                c.execute(
                    "INSERT INTO messages (session_id, t, role, body, log_seq)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (session_id, now, role, body, last),
                )

        self.db.write("message", insert)

    def load_messages(self, session_id: str) -> list[dict[str, Any]]:
        """The conversation as sent to the model, in order (to resume it)."""
        rows = self.db.read(
            "SELECT body FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [json.loads(r[0]) for r in rows]

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

    def records(self, session_id: str) -> list[LogRecord]:
        """The session timeline (user, assistant, call, started, result, error) as stored."""
        rows = self.db.read(
            "SELECT seq, type, t, call_id, ref, response_id, data FROM log"
            " WHERE session_id = ? ORDER BY seq",
            (session_id,),
        )
        return [
            LogRecord(s, ty, t, cid, ref, rid, json.loads(d)) for s, ty, t, cid, ref, rid, d in rows
        ]


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p.get("text", "") for p in content if isinstance(p, Mapping) and p.get("type") == "text"
        )
    return ""


def _json_default(value: object) -> Any:
    return json_value(value) if isinstance(value, bytes) else str(value)
