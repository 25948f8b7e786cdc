"""Compactions: each step that shortened the history sent to the model (issue 15).

A row of ``compactions`` (schema v4) says: from now on, the stored history up to and
including ``messages.seq = upto`` is sent as ``messages`` (a JSON list of conversation
items, ``conversation.item_to_json``; rows from before typed items hold chat message
dicts, converted when read) instead. The original items are never changed — the export
and the timeline keep showing them — so the history a resumed session sends
(:meth:`Compactions.history`) is the latest compaction's items followed by every item
stored after its ``upto``.

``detail`` (JSON) records what the step did: ``before``/``after`` (tokens), ``window``,
``rounds``, the stubbed results (``stubbed``: call id, tool, bytes, log row), the
summary request's response id (``response_id``), ``reason`` (``threshold`` or
``overflow``), ``log_seq`` (the last timeline row when it happened: where the export
puts its marker) and ``log_seqs`` — for each item of the list, the timeline row
that was last when the item was first stored (``messages.log_seq``), so a later
stub can still say where its result is kept.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from frontier.app import fastjson
from frontier.app.record import record
from frontier.app.session.db import Database
from frontier.app.session.sqlite import sqlite3
from frontier.app.session.timeline import Timeline, decode_items, loads_body, to_json

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

    from frontier.app.model.conversation import Item

STEPS = ("stub", "summary")


@record
class CompactionRecord:
    id: int
    session_id: str
    t: float
    step: str
    """``stub`` (old results replaced by stubs) or ``summary`` (old rounds summarised)."""
    upto: int
    """The last ``messages.seq`` the step covers."""
    items: list[Item]
    """The history that replaces every stored item up to ``upto``."""
    detail: Mapping[str, Any]
    positions: tuple[int | None, ...] = ()
    """Each item's timeline position (from ``detail["log_seqs"]``; ``None``: unknown)."""

    def positioned(self) -> list[tuple[Item, int | None]]:
        """Each item with its timeline position."""
        seqs = list(self.positions[: len(self.items)])
        seqs += [None] * (len(self.items) - len(seqs))
        return list(zip(self.items, seqs, strict=True))

    @property
    def log_seq(self) -> int | None:
        """The timeline row after which it happened (``None`` for an empty timeline)."""
        value = self.detail.get("log_seq")
        return value if isinstance(value, int) else None


@record
class CompactionStep:
    """A compaction as a resumed session's history shows it: where, and what it did
    (the items it left are not read)."""

    log_seq: int
    """The last timeline row when it happened (``0``: before any): it came after that row."""
    step: str
    detail: Mapping[str, Any]


class Compactions:
    """The ``compactions`` table, and the history with the latest one applied."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add(
        self,
        session_id: str,
        step: str,
        items: Sequence[Item],
        detail: Mapping[str, Any],
        *,
        log_seqs: Sequence[int | None] = (),
    ) -> CompactionRecord:
        """Commit a step that replaces *every* item stored so far with ``items``
        (``log_seqs``: each one's timeline position, see the module doc)."""
        if step not in STEPS:
            raise ValueError(f"unknown compaction step {step!r}; one of {', '.join(STEPS)}")
        from frontier.app.model.conversation import item_to_json  # a writer's: not export's

        body = self.db.scrub(to_json([item_to_json(item) for item in items]))
        now = time.time()

        def insert(c: sqlite3.Connection) -> CompactionRecord:
            upto = c.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            last = c.execute(
                "SELECT MAX(seq) FROM log WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            full = {**detail, "log_seq": last, "log_seqs": list(log_seqs)}
            cur = c.execute(
                "INSERT INTO compactions (session_id, t, step, upto, messages, detail)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, now, step, int(upto), body, self.db.scrub(to_json(full))),
            )
            decoded = _decoded(body, full["log_seqs"])
            return CompactionRecord(
                int(cur.lastrowid or 0),
                session_id,
                now,
                step,
                int(upto),
                [item for item, _ in decoded],
                full,
                tuple(seq for _, seq in decoded),
            )

        return self.db.write("compaction", insert)

    def all(self, session_id: str) -> list[CompactionRecord]:
        """Every compaction of the session, oldest first."""
        rows = self.db.read(
            "SELECT id, session_id, t, step, upto, messages, detail FROM compactions"
            " WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        return [_record(row) for row in rows]

    def steps(self, session_id: str) -> list[CompactionStep]:
        """Every compaction of the session, oldest first, without the items it left (a
        resume's history shows where each happened and what it did)."""
        rows = self.db.read(
            "SELECT step, detail FROM compactions WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        out: list[CompactionStep] = []
        for step, detail_json in rows:
            detail = fastjson.loads(detail_json)
            detail = detail if isinstance(detail, dict) else {}
            log_seq = detail.get("log_seq")
            out.append(CompactionStep(log_seq if isinstance(log_seq, int) else 0, step, detail))
        return out

    def latest(self, session_id: str) -> CompactionRecord | None:
        rows = self.db.read(
            "SELECT id, session_id, t, step, upto, messages, detail FROM compactions"
            " WHERE session_id = ? ORDER BY id DESC LIMIT 1",
            (session_id,),
        )
        return _record(rows[0]) if rows else None

    def history(self, session_id: str) -> list[Item]:
        """The conversation as the model is sent it now: the latest compaction's items, then
        every item stored after it (all stored items when there is none)."""
        return [item for item, _ in self.positioned(session_id)]

    def positioned(self, session_id: str) -> list[tuple[Item, int | None]]:
        """:meth:`history` with each item's timeline position (``messages.log_seq``): the
        results an item carries are the latest result rows at or before it."""
        latest = self.latest(session_id)
        upto = latest.upto if latest is not None else 0
        out: list[tuple[Item, int | None]] = []
        if latest is not None:
            out += latest.positioned()
        out += [(s.item, s.log_seq) for s in Timeline(self.db).stored_items(session_id, after=upto)]
        return out

    def result_row(self, session_id: str, call_id: str, log_seq: int | None) -> tuple[int, str]:
        """``(log seq, tool name)`` of the result of ``call_id`` that a message stored at
        timeline position ``log_seq`` carries (the newest one at or before it), or
        ``(0, "")`` when there is none."""
        rows = self.db.read(
            "SELECT seq, data FROM log WHERE session_id = ? AND type = 'result'"
            " AND call_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
            (session_id, call_id, log_seq if log_seq is not None else 1 << 62),
        )
        if not rows:
            return 0, ""
        seq, data = rows[0]
        try:
            name = str(fastjson.loads(data).get("name") or "")
        except (ValueError, AttributeError):
            name = ""
        return int(seq), name


def _record(row: tuple[Any, ...]) -> CompactionRecord:
    rid, sid, t, step, upto, body, detail_json = row
    detail = fastjson.loads(detail_json)
    seqs = detail.get("log_seqs") if isinstance(detail, dict) else None
    decoded = _decoded(body, seqs if isinstance(seqs, list) else [])
    return CompactionRecord(
        int(rid),
        sid,
        float(t),
        step,
        int(upto),
        [item for item, _ in decoded],
        detail,
        tuple(seq for _, seq in decoded),
    )


def _decoded(body: str, seqs: Sequence[object]) -> list[tuple[Item, int | None]]:
    """A stored list's items (a list of chat dicts from before typed items converted),
    each with its entry of ``seqs`` (``log_seqs``: one per stored entry)."""
    value = loads_body(body)
    entries = value if isinstance(value, list) else []
    places: list[int | None] = []
    for i in range(len(entries)):
        seq = seqs[i] if i < len(seqs) else None
        places.append(seq if isinstance(seq, int) else None)
    return decode_items(list(zip(entries, places, strict=True)))


__all__ = ["STEPS", "CompactionRecord", "CompactionStep", "Compactions"]
