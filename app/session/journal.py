"""The intent journal of multi-file writes, kept in the session store (DESIGN §5).

A write of several files commits one ``intents`` row before its first rename
(``tools.atomic.commit_files`` calls ``begin`` once every temp file and
pre-image is durable) and closes it when done. A row still ``open`` at start-up
means Frontier died between the renames: recovery finishes the write (every
missing rename still possible) or undoes it from the pre-images
(``tools.atomic.recover_intent``), before the call itself is reconciled by its
hashes — so after any crash a patch is wholly applied or wholly absent.

It writes through the store's own transaction helper (``SessionStore._write``):
one connection, one lock, one place that turns SQLite errors into ``StoreError``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from frontier.app.session.store import SessionStore


class OpenIntent(NamedTuple):
    id: int
    call_id: str
    entries: list[dict[str, Any]]


class StoreJournal:
    """``tools.contract.IntentJournal`` for one call of one session."""

    def __init__(self, store: SessionStore, session_id: str, call_id: str) -> None:
        self.store = store
        self.session_id = session_id
        self.call_id = call_id
        self.intent: int | None = None

    def begin(self, entries: Sequence[Mapping[str, Any]]) -> None:
        body = json.dumps(list(entries), ensure_ascii=False)

        def insert(c: Any) -> int:
            cur = c.execute(
                "INSERT INTO intents (session_id, call_id, t, entries) VALUES (?, ?, ?, ?)",
                (self.session_id, self.call_id, time.time(), body),
            )
            return int(cur.lastrowid or 0)

        self.intent = self.store._write("the write's intent journal", insert)

    def end(self, outcome: str) -> None:
        if self.intent is not None:
            close_intent(self.store, self.intent, outcome)


def close_intent(store: SessionStore, intent: int, outcome: str) -> None:
    store._write(
        "closing the write's intent journal",
        lambda c: c.execute(
            "UPDATE intents SET state = ?, ended = ? WHERE id = ?", (outcome, time.time(), intent)
        ),
    )


def open_intents(store: SessionStore, session_id: str) -> list[OpenIntent]:
    rows = store._read(
        "SELECT id, call_id, entries FROM intents WHERE session_id = ? AND state = 'open' "
        "ORDER BY id",
        (session_id,),
    )
    return [OpenIntent(int(i), str(cid), json.loads(body)) for i, cid, body in rows]


def recover_intents(store: SessionStore, session_id: str, root: Path) -> dict[str, str]:
    """Finish or undo every write a crash interrupted; ``call id → what was done``."""
    from frontier.tools.atomic import recover_intent

    done: dict[str, str] = {}
    for intent in open_intents(store, session_id):
        try:
            outcome = recover_intent(root, intent.entries)
        except OSError as exc:
            outcome = f"could not be completed nor undone ({exc.strerror or exc})"
        close_intent(store, intent.id, outcome)
        done[intent.call_id] = outcome
    return done
