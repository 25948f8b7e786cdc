"""The intent journal of multi-file writes, kept in the session store (DESIGN §5).

A write of several files commits one ``intents`` row before its first rename
(``tools.atomic.commit_files`` calls ``begin`` once every temp file and
pre-image is durable) and closes it when done. A row still ``open`` at start-up
means Frontier died between the renames: recovery finishes the write (every
missing rename still possible) or undoes it from the pre-images
(``tools.atomic.recover_intent``), before the call itself is reconciled by its
hashes — so after any crash a patch is wholly applied or wholly absent
(``recover.recover_intents``).

A row is read as untrusted input: a session store travels (people send each other
sessions to debug), and recovery renames and deletes the files a row names. So this
module only parses rows; the tool layer, which knows what its writer writes, checks every
entry before anything is touched, and a row it refuses is closed ``invalid: …``.

A command's watch (``tools/command_changes.py``) keeps a row here too, in state
:data:`HOLDING`: what it held just before the command ran (each file's hash and
permission bits; the bytes go to ``preimages``), so that a crash while the command runs
does not lose what it changed — recovery compares the files with it and records the
changes on the reconciled result, as the command's own result would have
(``recover.py``). The call's result row closes it in the same transaction
(:func:`close_holds`): a row still holding at start-up belongs to a call that has none.

It writes through the database's one write path (``Database.write``): one
connection, one lock, one place that turns SQLite errors into ``StoreError``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from frontier.app.session.db import Database
from frontier.app.session.sqlite import sqlite3

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from frontier.app.record import NamedTuple


class OpenIntent(NamedTuple):
    id: int
    call_id: str
    entries: object
    """The entries as stored: parsed, never trusted. A store is untrusted input (people send
    each other sessions to debug), so recovery has the tool layer check them
    (``recover.WorkspaceFiles.check_write``) before any file is touched."""
    problem: str | None = None
    """Why the row could not be read at all (not JSON): then nothing is touched."""


HOLDING = "holding"
"""The state of a command's held-files row until its call's result commits (a write's
rows are ``open`` until done: recovery acts on those, and only reads these)."""
HELD = "ran"
"""The state a held-files row is closed with when its call's result commits."""
LEFT = "recovered"
"""The state recovery closes a held-files row with that no call without a result owns."""


class StoreJournal:
    """``tools.contract.IntentJournal`` for one call of one session."""

    def __init__(self, db: Database, session_id: str, call_id: str) -> None:
        self.db = db
        self.session_id = session_id
        self.call_id = call_id
        self.intent: int | None = None

    def begin(self, entries: Sequence[Mapping[str, Any]]) -> None:
        import json  # only a write of several files keeps a journal (issue 24: start-up)

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

    def hold(self, record: Mapping[str, Any], bodies: Mapping[str, bytes]) -> None:
        """``tools.contract.HoldsWatch``: the bytes (as pre-images: scanned, capped,
        deduplicated) and the record, in one commit."""
        import json

        from frontier.app.session.preimages import Preimages, settle

        body = json.dumps(record)  # ASCII: a file name not in UTF-8 comes back as it was
        rows = Preimages(self.db).verdicts(bodies.items())

        def insert(c: sqlite3.Connection) -> None:
            settle(c, rows)  # with the row that names them: never one without the other
            c.execute(
                "INSERT INTO intents (session_id, call_id, t, entries, state)"
                " VALUES (?, ?, ?, ?, ?)",
                (self.session_id, self.call_id, time.time(), body, HOLDING),
            )

        self.db.write("the command's held files", insert)


def close_holds(c: sqlite3.Connection, session_id: str, call_id: str) -> None:
    """Close the call's held-files rows, inside the transaction that commits its result.
    Only the held files' hashes stay (``forget.py`` finds the bytes a session's commands
    kept by them): the names and git's listing served a recovery that is not needed."""
    c.execute(
        "UPDATE intents SET state = ?, ended = ?,"
        " entries = CASE WHEN json_valid(entries)"
        " THEN json_object('before', json_extract(entries, '$.before')) ELSE entries END"
        " WHERE session_id = ? AND state = ? AND call_id = ?",
        (HELD, time.time(), session_id, HOLDING, call_id),
    )


def held_files(db: Database, session_id: str) -> dict[str, list[object]]:
    """Per call id, the records of its held-files rows still holding (oldest first), parsed
    but never trusted (``None`` for one that is not JSON)."""
    rows = db.read(
        "SELECT call_id, entries FROM intents WHERE session_id = ? AND state = ? ORDER BY id",
        (session_id, HOLDING),
    )
    out: dict[str, list[object]] = {}
    for call_id, body in rows:
        out.setdefault(str(call_id), []).append(_parsed(body))
    return out


def _parsed(body: object) -> object:
    import json

    if not isinstance(body, str):
        return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def close_intent(db: Database, intent: int, outcome: str) -> None:
    db.write(
        "closing the write's intent journal",
        lambda c: c.execute(
            "UPDATE intents SET state = ?, ended = ? WHERE id = ?", (outcome, time.time(), intent)
        ),
    )


def open_intents(db: Database, session_id: str) -> list[OpenIntent]:
    """The writes a crash interrupted between their renames, oldest first; a row whose
    entries are not JSON comes back with its ``problem`` said, not as an exception that
    would stop every later row (and the session) from being recovered."""
    rows = db.read(
        "SELECT id, call_id, entries FROM intents WHERE session_id = ? AND state = 'open' "
        "ORDER BY id",
        (session_id,),
    )
    return [_open_intent(int(i), str(cid), body) for i, cid, body in rows]


def _open_intent(intent: int, call_id: str, body: object) -> OpenIntent:
    if not isinstance(body, str):
        return OpenIntent(intent, call_id, None, f"its entries are {type(body).__name__}")
    import json

    try:
        return OpenIntent(intent, call_id, json.loads(body))
    except (ValueError, RecursionError) as exc:  # not JSON, a huge number, deep nesting
        return OpenIntent(intent, call_id, None, f"its entries are not JSON ({exc})")
