"""Deleting stored sessions: every row a session owns, its content overwritten on disk.

Why: a session keeps everything that passed through it (the prompts, the model's
replies, every tool's output, the streams as they arrived, the files as they were
before an edit), and there was no way to remove one: a key pasted into a prompt that the
scrubber did not know stayed in ``sessions.db`` for good, and the file only grew.

What goes: the session's row, its history (``messages``), its timeline (``log``), its
responses and their stream events, its finished write journal (``intents``), its
compactions, and the pre-images only it referenced (others are shared, deduplicated by
content). SQLite's ``secure_delete`` overwrites the freed content with zeros, and the
write-ahead log is checkpointed and truncated after, so the text is gone from the files,
not only from the tables. The file keeps its size (the freed pages are reused by new
sessions); ``VACUUM`` is not run, since on a large store it takes long and rewrites all.

Refused, naming the fix: a session open in a running Frontier (its lock is held), and
one with an unfinished multi-file write (resume it once so the write is finished or
undone).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from frontier.app.record import record, replace
from frontier.app.session import lock as session_lock
from frontier.app.session.catalogue import Catalogue, SessionInfo, prompt_text
from frontier.app.session.db import Database, StoreError
from frontier.app.session.sqlite import sqlite3

_OWNED = ("messages", "log", "intents", "compactions")
"""Tables whose rows name their session (``session_id``), besides ``responses``."""
_TARGETS = "json_each(CASE WHEN json_valid(log.data) THEN log.data END, '$.targets') t"
"""A call row's target files (a row that is not JSON, in a damaged store, has none)."""
_FOUND = "json_each(CASE WHEN json_valid(log.data) THEN log.data END, '$.meta.targets') t"
"""A result row's target files: what a command was found to change (its call row names
none: ``tools/command_changes.py``)."""
_HELD = "json_each(CASE WHEN json_valid(intents.entries) THEN intents.entries END, '$.before') h"
"""The files a command's watch held before it ran (``journal.HOLDING`` rows: path, hash,
mode), their bytes kept in case a crash came while it ran."""


def _pre_hashes(one_session: bool) -> str:
    """The pre-image hashes calls recorded, on their call rows and (a command's) on their
    result rows, and the hashes of the files commands' watches held; ``one_session``: one
    session's (three ``?``, its id each time)."""
    mine = " AND log.session_id = ?" if one_session else ""
    held = " AND intents.session_id = ?" if one_session else ""
    return (
        f"SELECT json_extract(t.value, '$.pre') FROM log, {_TARGETS} WHERE log.type = 'call'"
        f"{mine} UNION SELECT json_extract(t.value, '$.pre') FROM log, {_FOUND}"
        f" WHERE log.type = 'result'{mine} UNION SELECT json_extract(h.value, '$[1]')"
        f" FROM intents, {_HELD} WHERE json_type(h.value) = 'array'{held}"
    )


@record
class Deleted:
    """A session deleted: what it was, for the person's record."""

    info: SessionInfo
    preimages: int
    """Pre-images removed with it (those no other session referenced)."""
    prompts: int = 0
    """Its prompts removed from the workspace's ↑ history (``prompt_history.py``)."""


def refusal(db: Database, info: SessionInfo) -> str | None:
    """Why ``info`` may not be deleted now; ``None``: it may."""
    if session_lock.is_held(db.path.parent, info.id):
        return f"session {info.id} is open in a running Frontier; close it there first"
    if db.read("SELECT 1 FROM intents WHERE session_id = ? AND state = 'open'", (info.id,)):
        return (
            f"session {info.id} has a write of several files that was never finished; "
            f"`frontier resume {info.id}` finishes or undoes it, then it can be deleted"
        )
    return None


def delete_sessions(db: Database, sessions: Sequence[SessionInfo]) -> list[Deleted]:
    """Delete ``sessions`` (each checked by :func:`refusal` first: ``StoreError`` names
    the first that may not go, and nothing is deleted)."""
    for info in sessions:
        why = refusal(db, info)
        if why is not None:
            raise StoreError(why)
    typed = {info.id: _prompts(db, info.id) for info in sessions}
    with db.lock:
        db.conn.execute("PRAGMA secure_delete = ON")
    try:
        done = [
            Deleted(info, db.write("deleting a session", _deleter(info.id))) for info in sessions
        ]
    finally:
        with db.lock:
            db.conn.execute("PRAGMA secure_delete = OFF")
    with db.lock:  # the old pages leave the write-ahead log too
        db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for info in sessions:
        session_lock.lock_path(db.path.parent, info.id).unlink(missing_ok=True)
    return [replace(d, prompts=_forget_prompts(db, d.info, typed[d.info.id])) for d in done]


def _prompts(db: Database, session_id: str) -> set[str]:
    """What the person typed in the session (its ``user`` rows' text)."""
    rows = db.read("SELECT data FROM log WHERE session_id = ? AND type = 'user'", (session_id,))
    return {text for (data,) in rows if (text := prompt_text(data))}


def _forget_prompts(db: Database, info: SessionInfo, texts: set[str]) -> int:
    """``texts`` out of the ↑ history of the session's workspace: a prompt holding a key
    the scrubber did not know was kept there too."""
    from frontier.app.model.demo_script import DEMO_MODEL
    from frontier.app.session.prompt_history import DEMO_KEY, HISTORY_DIR, PromptHistory

    if not texts:
        return 0
    key = DEMO_KEY if info.model == DEMO_MODEL else info.workspace
    history = PromptHistory.for_workspace(key, directory=db.path.parent / HISTORY_DIR)
    return history.forget(texts)


def _deleter(session_id: str) -> Callable[[sqlite3.Connection], int]:
    """The transaction that deletes ``session_id``; it returns the pre-images it removed."""

    def delete(c: sqlite3.Connection) -> int:
        query = _pre_hashes(one_session=True)
        mine = (session_id,) * 3
        hashes = {h for (h,) in c.execute(query, mine) if isinstance(h, str)}
        c.execute(
            "DELETE FROM stream_events WHERE response_id IN "
            "(SELECT id FROM responses WHERE session_id = ?)",
            (session_id,),
        )
        c.execute("DELETE FROM responses WHERE session_id = ?", (session_id,))
        for table in _OWNED:
            c.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))  # _OWNED's
        c.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        if not hashes:
            return 0
        used = {h for (h,) in c.execute(_pre_hashes(one_session=False))}  # the others' calls
        unused = sorted(hashes - used)
        c.executemany("DELETE FROM preimages WHERE hash = ?", [(h,) for h in unused])
        return len(unused)

    return delete


def older_than(db: Database, days: float, now: float) -> list[SessionInfo]:
    """The sessions last used more than ``days`` ago."""
    cutoff = now - days * 86400
    return [s for s in Catalogue(db).list_sessions() if s.updated < cutoff]
