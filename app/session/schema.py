"""The session database schema, versioned with ``PRAGMA user_version``.

Each migration is applied once, in order, inside its own transaction, so a
database written by an older Frontier is upgraded in place on open and a crash
during an upgrade leaves the previous version intact. A database newer than
this code is refused (never downgraded or half-understood).

Tables (all records are append-only except ``sessions.state/workspace/updated``
and a response's end fields):

- ``sessions``: one row per conversation (workspace, model, base URL, mode, wire).
- ``messages``: the history sent to the model, one typed conversation item per row
  (``role`` = ``user`` / ``assistant`` / ``results``, ``body`` = the item's stored JSON:
  ``app/model/conversation.item_to_json``), in order. Rows written before typed items
  hold chat message dicts (``role`` = ``user`` / ``assistant`` / ``tool``); readers
  convert them (``timeline.py``).
- ``log``: the session's timeline — ``user`` / ``assistant`` text, ``call``
  (args, target pre/post hashes), ``started``, ``result``, ``error`` — ordered
  by ``seq``. A ``started``/``result`` row points at its call row via ``ref``
  (CTL call ids are chosen by the model and may repeat across responses).
- ``responses`` / ``stream_events``: each model response's raw SSE ``data``
  strings with arrival times, for replay and ``frontier check``.
- ``intents``: the journal of multi-file writes in progress (v3); also, in state
  ``holding`` until the call's result commits, what a command's watch held before it ran
  (``journal.py``: no schema change, an older Frontier reads only ``open`` rows).
- ``preimages``: file contents before each mutation, by hash, for undo (v5).
- ``sessions.wire`` / ``responses.wire``: the model API spoken (v6).
- ``INDEXES``: the session list's counts from indexes (made where missing, unversioned).
"""

from __future__ import annotations

from collections.abc import Sequence

from frontier.app.session.sqlite import sqlite3

V1 = """
CREATE TABLE sessions (
    id        TEXT PRIMARY KEY,
    created   REAL NOT NULL,
    updated   REAL NOT NULL,
    workspace TEXT NOT NULL,
    model     TEXT NOT NULL,
    base_url  TEXT,
    mode      TEXT NOT NULL,
    state     TEXT NOT NULL DEFAULT 'active'
);
CREATE TABLE messages (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    t          REAL NOT NULL,
    role       TEXT NOT NULL,
    body       TEXT NOT NULL
);
CREATE INDEX messages_session ON messages(session_id, seq);
CREATE TABLE log (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    t           REAL NOT NULL,
    type        TEXT NOT NULL
                CHECK (type IN ('user', 'assistant', 'call', 'started', 'result', 'error')),
    call_id     TEXT,
    ref         INTEGER REFERENCES log(seq),
    response_id INTEGER,
    data        TEXT NOT NULL
);
CREATE INDEX log_session ON log(session_id, seq);
CREATE INDEX log_ref ON log(ref);
CREATE TABLE responses (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id    TEXT NOT NULL REFERENCES sessions(id),
    t             REAL NOT NULL,
    mode          TEXT NOT NULL,
    model         TEXT NOT NULL,
    request_index INTEGER NOT NULL,
    finish_reason TEXT,
    ended         REAL
);
CREATE INDEX responses_session ON responses(session_id, id);
CREATE TABLE stream_events (
    response_id INTEGER NOT NULL REFERENCES responses(id),
    seq         INTEGER NOT NULL,
    t           REAL NOT NULL,
    data        TEXT NOT NULL,
    PRIMARY KEY (response_id, seq)
) WITHOUT ROWID;
"""

V2 = """
ALTER TABLE messages ADD COLUMN log_seq INTEGER;
UPDATE messages SET log_seq = (SELECT MAX(seq) FROM log WHERE log.session_id = messages.session_id);
"""
"""``messages.log_seq``: the last ``log`` row of the session when the message was
appended. Results logged after the last user/tool message never reached the model
(a crash between committing a result and appending the round): resume sends them.
Messages written before v2 are taken to cover every result logged before the upgrade."""

V3 = """
CREATE TABLE intents (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    call_id    TEXT NOT NULL,
    t          REAL NOT NULL,
    entries    TEXT NOT NULL,
    state      TEXT NOT NULL DEFAULT 'open',
    ended      REAL
);
CREATE INDEX intents_open ON intents(session_id, state);
"""
"""``intents``: the journal of multi-file writes (DESIGN §5). A row is committed after
every temp file and pre-image is durable and before the first rename: per target its
path, temp, pre-image and both hashes. ``state`` stays ``open`` only if Frontier died
during the renames; recovery then finishes or undoes the write from ``entries``."""

V4 = """
CREATE TABLE compactions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    t          REAL NOT NULL,
    step       TEXT NOT NULL CHECK (step IN ('stub', 'summary')),
    upto       INTEGER NOT NULL,
    messages   TEXT NOT NULL,
    detail     TEXT NOT NULL
);
CREATE INDEX compactions_session ON compactions(session_id, id);
"""
"""``compactions`` (issue 15, owned by the context budget): each step that shortened the
history sent to the model. ``upto`` is the last ``messages.seq`` it covers; ``messages``
the JSON list that replaces the stored messages up to and including ``upto``; ``detail``
JSON (tokens before/after, rounds stubbed or summarised, the summary request's response
id). The original messages are never changed: the export and the timeline keep them."""

V5 = """
CREATE TABLE preimages (
    hash TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    body BLOB,
    skipped TEXT
);
"""
"""``preimages`` (issue 15, owned by undo): file contents before a mutation, keyed and
deduplicated by their content hash (the ``pre`` hash a call row records), committed in the
call row's own transaction (so before the mutation's first rename). Capped: a file over the
cap, or one holding a secret, gets ``body`` NULL and ``skipped`` saying why, so an undo can
say why it is unavailable (``app/session/preimages.py``). A rowid table, not ``WITHOUT
ROWID``: SQLite advises against the latter for rows of large blobs."""

V6 = """
ALTER TABLE sessions ADD COLUMN wire TEXT;
ALTER TABLE responses ADD COLUMN wire TEXT;
"""
"""``sessions.wire`` and ``responses.wire`` (issue 20, owned by the wires): the model API a
session speaks and each response was spoken on (``openai-chat``, ``openai-responses``,
``anthropic-messages``: DESIGN §4a), which says how a response's stream events are read
(replay, ``check``, the secret scrubber). NULL, as every row written before v6 has it,
means ``openai-chat``: the only wire there was."""

INDEXES = (
    "CREATE INDEX IF NOT EXISTS log_kind ON log(session_id, type, ref)",
    "CREATE INDEX IF NOT EXISTS log_ref_type ON log(ref, type)",
    "DROP INDEX IF EXISTS log_ref",
)
"""Indexes the session list reads (issue 24, owned by the session catalogue), made where
missing at every writable open, after the migrations, and never versioned: a Frontier of
any version reads a database with or without them alike, so they must not make an older
one refuse it (a version bump would: "the session database is schema v7 but this Frontier
knows only up to v6").

Listing sessions counts each one's messages, calls and calls interrupted (a call row
started with no result row). With only ``log(session_id, seq)`` and ``log(ref)``, every
count read every log row of every session, results and all, so ``frontier sessions`` and
the TUI's picker grew with everything ever stored: 0.29-0.37 s at 1,000 sessions of 40
calls, 1.1-1.6 s at 5,000. ``log_kind`` answers the counts from the index alone and
``log_ref_type`` answers "has this call a start, a result" without the row: 0.17 s and
0.64 s. ``log_ref_type`` serves every ``ref = ?`` lookup ``log_ref`` did, which it
replaces. Made once on an existing store: ~2 s for 700,000 log rows."""

MIGRATIONS: Sequence[str] = (V1, V2, V3, V4, V5, V6)
"""``MIGRATIONS[i]`` upgrades a database from version ``i`` to ``i + 1``. Append only."""


class SchemaError(RuntimeError):
    """The database cannot be used by this version of Frontier."""


def current_version() -> int:
    return len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, migrations: Sequence[str] | None = None) -> int:
    """Bring ``conn``'s database up to the newest version, then (for the newest, not a
    test's older ``migrations``) make :data:`INDEXES` where missing; returns the version.

    ``conn`` must be in autocommit mode (``isolation_level=None``): each step
    runs in an explicit ``BEGIN IMMEDIATE`` transaction that re-reads the
    version, so two processes opening a fresh database at once migrate it once.
    """
    steps = MIGRATIONS if migrations is None else migrations
    target = len(steps)
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > target:
                raise SchemaError(
                    f"the session database is schema v{version} but this Frontier knows "
                    f"only up to v{target}: upgrade Frontier, or point FRONTIER_DATA_DIR "
                    "at another directory"
                )
            if version == target:
                if migrations is None:
                    for statement in INDEXES:
                        conn.execute(statement)
                conn.execute("COMMIT")
                return version
            for statement in _statements(steps[version]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (``executescript`` would auto-commit)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        raise SchemaError(f"incomplete statement in migration: {buf.strip()[:60]!r}")
    return out
