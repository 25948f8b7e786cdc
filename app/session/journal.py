"""The intent journal of multi-file writes, kept in the session store (DESIGN §5).

A write of several files commits one ``intents`` row before its first rename
(``tools.atomic.commit_files`` calls ``begin`` once every temp file and
pre-image is durable) and closes it when done. A row still ``open`` at start-up
means Frontier died between the renames: recovery finishes the write (every
missing rename still possible) or undoes it from the pre-images
(``tools.atomic.recover_intent``), before the call itself is reconciled by its
hashes — so after any crash a patch is wholly applied or wholly absent
(``recover.recover_intents``).

It writes through the database's one write path (``Database.write``): one
connection, one lock, one place that turns SQLite errors into ``StoreError``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from frontier.app.session.db import Database


class OpenIntent(NamedTuple):
    id: int
    call_id: str
    entries: list[dict[str, Any]]


class StoreJournal:
    """``tools.contract.IntentJournal`` for one call of one session."""

    def __init__(self, db: Database, session_id: str, call_id: str) -> None:
        self.db = db
        self.session_id = session_id
        self.call_id = call_id
        self.intent: int | None = None

    def begin(self, entries: Sequence[Mapping[str, Any]]) -> None:
        body = json.dumps(list(entries), ensure_ascii=False)

        def insert(c: sqlite3.Connection) -> int:
            cur = c.execute(
                "INSERT INTO intents (session_id, call_id, t, entries) VALUES (?, ?, ?, ?)",
                (self.session_id, self.call_id, time.time(), body),
            )
            return int(cur.lastrowid or 0)

        self.intent = self.db.write("the write's intent journal", insert)

    def end(self, outcome: str) -> None:
        if self.intent is not None:
            close_intent(self.db, self.intent, outcome)


def close_intent(db: Database, intent: int, outcome: str) -> None:
    db.write(
        "closing the write's intent journal",
        lambda c: c.execute(
            "UPDATE intents SET state = ?, ended = ? WHERE id = ?", (outcome, time.time(), intent)
        ),
    )


def open_intents(db: Database, session_id: str) -> list[OpenIntent]:
    """The writes a crash interrupted between their renames, oldest first."""
    rows = db.read(
        "SELECT id, call_id, entries FROM intents WHERE session_id = ? AND state = 'open' "
        "ORDER BY id",
        (session_id,),
    )
    return [OpenIntent(int(i), str(cid), json.loads(body)) for i, cid, body in rows]
