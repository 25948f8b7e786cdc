"""The session catalogue: which sessions exist, how they stand, and the look-ups commands make.

``frontier sessions``, the TUI's picker, ``resume``, ``check SESSION`` and ``replay
SESSION`` all read sessions through here, so a session reads the same everywhere:
its ``state`` says ``interrupted`` when the store says ``active`` but no process
holds its lock (its process died), and ``interrupted_calls`` counts the calls that
were running then (``inflight.py``). The look-ups open the database read-only and
never create one. Lives in the core so the picker and the CLI command both import
it, and neither imports the other.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from pathlib import Path

from frontier.app import fastjson
from frontier.app.notices import typed_part
from frontier.app.secret_shapes import redact_url
from frontier.app.session import lock as session_lock
from frontier.app.session.db import (
    Database,
    SessionNotFound,
    StoreError,
    default_path,
    existing_store,
)
from frontier.app.session.sqlite import sqlite3
from frontier.app.vocab import DEFAULT_WIRE, WIRES

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from frontier.app.record import NamedTuple

if TYPE_CHECKING:
    from frontier.app.session.record import Recording

STATES = ("active", "done", "failed", "interrupted")


class SessionInfo(NamedTuple):
    """One row of ``frontier sessions``. A named tuple, not a frozen dataclass: building
    one of those costs ~0.5 ms at import, with ``dataclasses`` and ``inspect`` (~5 ms) —
    most of what ``frontier sessions`` added to the interpreter's start-up."""

    id: str
    started: float
    workspace: str
    model: str
    base_url: str | None
    mode: str
    state: str
    turns: int
    """User messages typed by the person (not result frames or repair prompts)."""
    calls: int = 0
    interrupted_calls: int = 0
    """Calls that had started and have no result while no process holds the session:
    their outcome is unknown until a resume reconciles them (0 while one holds it)."""
    first_prompt: str = ""
    """What the person typed first, as typed ("" before the first message): how a
    person recognises a session in a list, where an id and a time say little."""
    updated: float = 0.0
    """When the session last changed state (a turn began or ended): "used last"."""
    wire: str = DEFAULT_WIRE
    """The model API the session speaks (``openai-chat`` for sessions from before wires)."""

    def to_json(self) -> dict[str, Any]:
        from frontier.app.session.times import iso_time

        return {
            "id": self.id,
            "started": iso_time(self.started),
            "workspace": self.workspace,
            "model": self.model,
            "mode": self.mode,
            "wire": self.wire,
            "turns": self.turns,
            "state": self.state,
            "base_url": self.base_url,
            "calls": self.calls,
            "interrupted_calls": self.interrupted_calls,
            "first_prompt": self.first_prompt,
            "updated": iso_time(self.updated or self.started),
        }


_INTERRUPTED = (
    "c.type = 'call'"
    " AND EXISTS (SELECT 1 FROM log x WHERE x.ref = c.seq AND x.type = 'started')"
    " AND NOT EXISTS (SELECT 1 FROM log x WHERE x.ref = c.seq AND x.type = 'result')"
)
"""A call row ``c`` that was started and has no result: its process died while it ran
(what recovery reconciles; ``CallLedger.unresolved_calls`` with a start mark)."""

_SESSION_QUERY = (
    "SELECT s.id, s.created, s.workspace, s.model, s.base_url, s.mode, s.state,"
    " (SELECT count(*) FROM log l WHERE l.session_id = s.id AND l.type = 'user'),"
    " (SELECT count(*) FROM log l WHERE l.session_id = s.id AND l.type = 'call'),"
    f" (SELECT count(*) FROM log c WHERE c.session_id = s.id AND {_INTERRUPTED}),"
    " (SELECT l.data FROM log l WHERE l.session_id = s.id AND l.type = 'user'"
    "   ORDER BY l.seq LIMIT 1),"
    " s.updated, {wire}"
    " FROM sessions s"
)
"""``{wire}``: ``s.wire``, or ``NULL`` in a database older than v6 read without migrating."""


def sanitize_url(url: str | None) -> str | None:
    """A base URL as stored: user-info dropped, credential-like query values ``[REDACTED]``."""
    return redact_url(url, userinfo="")


class Catalogue:
    """The ``sessions`` table, and who holds each session."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create_session(
        self,
        workspace: str,
        model: str,
        base_url: str | None,
        mode: str,
        *,
        wire: str | None = None,
    ) -> str:
        """A new session speaking ``wire`` (``None``: ``openai-chat``, stored as NULL);
        returns its short hex id."""
        if wire is not None and wire not in WIRES:
            raise ValueError(f"unknown wire {wire!r}; one of {', '.join(WIRES)}")
        now = time.time()
        ws = os.path.abspath(workspace)
        url = sanitize_url(base_url)
        scrub = self.db.scrub

        import secrets as _secrets  # here: listing sessions never needs it

        def insert(c: sqlite3.Connection) -> str:
            for _ in range(16):
                sid = _secrets.token_hex(4)
                if c.execute("SELECT 1 FROM sessions WHERE id = ?", (sid,)).fetchone():
                    continue
                c.execute(
                    "INSERT INTO sessions (id, created, updated, workspace, model, base_url,"
                    " mode, state, wire) VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?)",
                    (
                        sid,
                        now,
                        now,
                        scrub(ws),
                        scrub(model),
                        None if url is None else scrub(url),
                        mode,
                        wire,
                    ),
                )
                return sid
            raise StoreError("could not allocate a unique session id after 16 tries")

        return self.db.write("session", insert)

    def set_workspace(self, session_id: str, workspace: str) -> None:
        """The project moved: later tools and recovery use ``workspace`` (resume --workspace)."""
        ws = os.path.abspath(workspace)
        self._update(
            "workspace",
            session_id,
            "UPDATE sessions SET workspace = ?, updated = ? WHERE id = ?",
            (self.db.scrub(ws), time.time(), session_id),
        )

    def set_mode(self, session_id: str, mode: str) -> None:
        """The protocol mode the session settled on (``--protocol auto`` asks the server
        before the first request; the row was made with the mode assumed until then)."""
        self._update(
            "mode",
            session_id,
            "UPDATE sessions SET mode = ?, updated = ? WHERE id = ?",
            (mode, time.time(), session_id),
        )

    def set_model(self, session_id: str, model: str, base_url: str | None, wire: str) -> None:
        """``/model`` switched the model (and maybe the endpoint and wire): a resume
        continues with it (issue 23). The URL is stored without credentials."""
        if wire not in WIRES:
            raise ValueError(f"unknown wire {wire!r}; one of {', '.join(WIRES)}")
        url = sanitize_url(base_url)
        scrub = self.db.scrub
        self._update(
            "model",
            session_id,
            "UPDATE sessions SET model = ?, base_url = ?, wire = ?, updated = ? WHERE id = ?",
            (scrub(model), None if url is None else scrub(url), wire, time.time(), session_id),
        )

    def set_state(self, session_id: str, state: str) -> None:
        if state not in STATES:
            raise ValueError(f"unknown session state {state!r}; one of {', '.join(STATES)}")
        self._update(
            "state",
            session_id,
            "UPDATE sessions SET state = ?, updated = ? WHERE id = ?",
            (state, time.time(), session_id),
        )

    def query(self) -> str:
        """The ``SELECT`` every :class:`SessionInfo` is read with (see ``_SESSION_QUERY``)."""
        has_wire = self.db.has_column("sessions", "wire")
        return _SESSION_QUERY.format(wire="s.wire" if has_wire else "NULL")

    def list_sessions(self) -> list[SessionInfo]:
        """Every session, newest first."""
        return [self._info(r) for r in self.db.read(self.query() + " ORDER BY s.created DESC")]

    def last_used(self, workspace: str | Path) -> SessionInfo | None:
        """The session of ``workspace`` used last (``frontier -c``, ``resume --last``), or
        None. The directory matches as typed or with its symlinks resolved, since a
        session stores the absolute path it was started in."""
        keys = sorted({os.path.abspath(workspace), os.path.realpath(workspace)})
        marks = ", ".join("?" for _ in keys)
        rows = self.db.read(
            self.query() + f" WHERE s.workspace IN ({marks})"
            " ORDER BY s.updated DESC, s.created DESC LIMIT 1",
            tuple(self.db.scrub(k) for k in keys),
        )
        return self._info(rows[0]) if rows else None

    def discard_if_empty(self, session_id: str) -> bool:
        """Delete ``session_id`` if the model never sent it a byte and it holds nothing
        but the person's own messages (a first connection that failed, or a TUI opened
        and closed); True when it was deleted.

        Such a session cannot be continued in any useful way, and leaving it would put a
        ``failed`` row with nothing in it at the top of ``frontier sessions`` and make it
        what ``frontier -c`` continues. Checked and deleted in one transaction, so a
        session that got an answer meanwhile is never lost (docs/decisions-session.md).
        """

        def discard(c: sqlite3.Connection) -> bool:
            answered = c.execute(
                "SELECT 1 FROM stream_events e JOIN responses r ON r.id = e.response_id"
                " WHERE r.session_id = ? LIMIT 1",
                (session_id,),
            ).fetchone()
            recorded = c.execute(
                "SELECT 1 FROM log WHERE session_id = ? AND type != 'user' LIMIT 1",
                (session_id,),
            ).fetchone()
            journal = c.execute(
                "SELECT 1 FROM intents WHERE session_id = ? LIMIT 1", (session_id,)
            ).fetchone()
            if answered or recorded or journal:
                return False
            c.execute(
                "DELETE FROM stream_events WHERE response_id IN"
                " (SELECT id FROM responses WHERE session_id = ?)",
                (session_id,),
            )
            for table in ("responses", "messages", "log"):
                c.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))
            return c.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

        return self.db.write("discard", discard)

    def get_session(self, id_or_prefix: str) -> SessionInfo:
        """The session with this id, or the only one whose id starts with it."""
        key = id_or_prefix.strip().lower()
        if not key:
            raise SessionNotFound("no session id given; `frontier sessions` lists them")
        rows = self.db.read(self.query() + " WHERE s.id = ?", (key,))
        if not rows:
            escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            rows = self.db.read(
                self.query() + " WHERE s.id LIKE ? ESCAPE '\\' ORDER BY s.created DESC",
                (escaped + "%",),
            )
        if not rows:
            raise SessionNotFound(
                f"no session matches {id_or_prefix!r} in {self.db.path}; "
                "`frontier sessions` lists them"
            )
        if len(rows) > 1:
            ids = ", ".join(r[0] for r in rows[:5])
            raise SessionNotFound(
                f"{id_or_prefix!r} matches {len(rows)} sessions ({ids}); give more characters"
            )
        return self._info(rows[0])

    def is_held(self, session_id: str) -> bool:
        """Does a running Frontier (this process included) have the session open?

        A lock file this process may not open (another user's data dir) proves nothing
        either way: the session reads as held, i.e. as stored, never as died."""
        try:
            return session_lock.is_held(self.db.path.parent, session_id)
        except OSError:
            return True

    def lock_session(self, session_id: str) -> session_lock.SessionLock:
        """Open ``session_id`` for this process alone (``StoreError`` if another has it)."""
        try:
            return session_lock.acquire(self.db.path.parent, session_id)
        except session_lock.SessionBusy as exc:
            raise StoreError(str(exc)) from None
        except OSError as exc:
            raise StoreError(
                f"cannot lock session {session_id} in {self.db.path.parent}: "
                f"{exc.strerror or exc}; check permissions on the data dir"
            ) from exc

    def _update(self, point: str, session_id: str, sql: str, params: tuple[Any, ...]) -> None:
        def update(c: sqlite3.Connection) -> None:
            if c.execute(sql, params).rowcount == 0:
                raise SessionNotFound(f"no session {session_id!r}; `frontier sessions` lists them")

        self.db.write(point, update)

    def _info(self, row: tuple[Any, ...]) -> SessionInfo:
        sid, created, workspace, model, base_url, mode, state, turns, calls, running = row[:10]
        first, updated, wire = row[10:13]
        held = (state == "active" or running > 0) and self.is_held(sid)
        if state == "active" and not held:
            state = "interrupted"  # its process died mid-turn (nothing holds its lock)
        return SessionInfo(
            sid,
            created,
            workspace,
            model,
            base_url,
            mode,
            state,
            turns,
            calls,
            0 if held else running,
            prompt_text(first),
            updated or created,
            wire or DEFAULT_WIRE,
        )


def prompt_text(data: str | None) -> str:
    """What the person typed of a stored ``user`` row, without the notes a message opens
    with ("" when there is none or it is unreadable): a session begun with ``!pytest``
    is listed by what was asked next, not by the command's output."""
    if not data:
        return ""
    try:
        value = fastjson.loads(data)
    except ValueError:
        return ""
    text = value.get("text") if isinstance(value, dict) else None
    if not isinstance(text, str):
        return ""
    return typed_part(text)


# --------------------------------------------------------------------------- look-ups


def find_session(id_or_prefix: str, path: Path | None = None) -> SessionInfo:
    """The stored session an id or unique prefix names (``SessionNotFound`` otherwise).

    Never creates a database: commands check the id before opening a TUI on it.
    """
    db = Database.open_readonly(_existing_store(path, f"no session {id_or_prefix!r}: there are"))
    try:
        return Catalogue(db).get_session(id_or_prefix)
    finally:
        db.close()


def last_used_session(workspace: str | Path, path: Path | None = None) -> SessionInfo | None:
    """The session of ``workspace`` used last, or None (no store yet, or none there).

    Read-only, like every look-up here: ``frontier -c`` never creates a database."""
    where = existing_store(path)
    if where is None:
        return None
    db = Database.open_readonly(where)
    try:
        return Catalogue(db).last_used(workspace)
    finally:
        db.close()


def newest_session(path: Path | None = None) -> SessionInfo | None:
    """The newest stored session anywhere (to point at when this workspace has none)."""
    where = existing_store(path)
    if where is None:
        return None
    db = Database.open_readonly(where)
    try:
        catalogue = Catalogue(db)
        # the id first: ordering the whole query made every session's counts (0.32 s at 5,000)
        rows = db.read(
            catalogue.query() + " WHERE s.id = (SELECT id FROM sessions"
            " ORDER BY updated DESC, created DESC LIMIT 1)"
        )
        return catalogue._info(rows[0]) if rows else None
    finally:
        db.close()


def one_line(text: str, limit: int) -> str:
    """``text`` on one line (runs of whitespace as one space), cut to ``limit`` with ``…``:
    a first prompt in a table or a picker row."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(1, limit - 1)] + "…"


def session_recordings(id_or_prefix: str, path: Path | None = None) -> list[tuple[str, Recording]]:
    """``(name, Recording)`` for every response of a stored session, oldest first.

    What ``frontier check SESSION`` / ``frontier replay SESSION`` resolve a session
    id to. A response whose calls were running when the session's process died
    carries their ids as ``meta["interrupted"]``. Raises :class:`SessionNotFound`
    (unknown or ambiguous id, or no store yet) with a message fit for the user.
    """
    from frontier.app.session.responses import Responses  # here: `sessions` never needs it

    where = _existing_store(path, f"{id_or_prefix!r} is not a file and there are")
    db = Database.open_readonly(where)
    try:
        catalogue = Catalogue(db)
        info = catalogue.get_session(id_or_prefix)
        responses = Responses(db)
        running: dict[int | None, list[str]] = defaultdict(list)
        if not catalogue.is_held(info.id):
            rows = db.read(
                f"SELECT c.response_id, c.call_id FROM log c WHERE c.session_id = ?"
                f" AND {_INTERRUPTED} ORDER BY c.seq",
                (info.id,),
            )
            for response_id, call_id in rows:
                running[response_id].append(call_id)
        out = []
        for r in responses.recordings(info.id):
            meta = {"interrupted": running[r.id]} if running.get(r.id) else {}
            out.append((r.name, r.to_recording(**meta)))
        return out
    finally:
        db.close()


def _existing_store(path: Path | None, problem: str) -> Path:
    db = existing_store(path)
    if db is None:
        db = Path(path) if path is not None else default_path()
        raise SessionNotFound(f"{problem} no stored sessions yet ({db})")
    return db


def short_path(path: str, limit: int = 40) -> str:
    """``~`` for the home directory; long paths keep their end (the project's name)."""
    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        path = "~" + path[len(home) :]
    if len(path) > limit:
        path = "…" + path[-(limit - 1) :]
    return path
