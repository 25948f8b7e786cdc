"""The session store: SQLite, append-only, persist-before-execute (DESIGN §7).

Every write method commits its own transaction (``BEGIN IMMEDIATE`` …
``COMMIT``, WAL, ``synchronous=FULL``) before it returns, so when a call row
has been persisted a crash at any later instant cannot lose it, and a result
the model is about to see is already on disk. Raw stream events are the one
exception: they are buffered in memory (they arrive per token) and written in
the same transaction as the next commit of any kind — at the latest when a
call is persisted or the response ends — so the stream that *proves* a call is
always durable before the call runs.

A failed write raises :class:`StoreError` whose message says what to do
(``free space in <dir>``, ``close the other Frontier``…); the tool boundary
turns it into ``session_persistence_failed`` and ends the turn.

Secrets (``app/secrets.py``): every string written is scrubbed of the secrets
the store was opened with (the resolved API key, base-URL credentials) and of the
values of ``FRONTIER_API_KEY`` / ``OPENAI_API_KEY`` — a model can echo a key it
read from ``env`` — and of credential shapes (``Authorization: Bearer …``). Raw
stream events are masked in place with same-length masks, across event
boundaries (:class:`~frontier.app.secrets.SSEScrubber`), so a key echoed in
pieces is never stored in pieces and every stored offset stays valid. A base
URL loses its user-info and credential-like query values.

Commands that only read (``sessions``, ``export``, ``check``, ``replay``) open
the database read-only (:meth:`SessionStore.open_readonly`), so a read-only data
dir does not stop them.
"""

from __future__ import annotations

import json
import os
import re
import secrets as _secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

from frontier.app.events import ToolCall, ToolResult, json_value
from frontier.app.secrets import SECRET_ENV, Scrubber, SSEScrubber, redact_url
from frontier.app.session import lock as session_lock
from frontier.app.session import schema

if TYPE_CHECKING:
    from frontier.app.session.persistence import SessionPersistence
    from frontier.app.session.record import Recording
    from frontier.tools.contract import Preview, ToolSpec

T = TypeVar("T")

DB_NAME = "sessions.db"
STATES = ("active", "done", "failed", "interrupted")
BUSY_TIMEOUT_S = 10.0
STREAM_FLUSH_EVENTS = 4096
"""Buffered stream events are also flushed on their own once this many pile up."""
WAL_CAP_BYTES = 64 << 20
"""A WAL this large is checkpointed at the next stream flush even mid-response."""


class StoreError(RuntimeError):
    """A session-store operation failed; the message says what happened and what to do."""


class SessionNotFound(StoreError):
    """No session (or more than one) matches the id or prefix the user gave."""


def session_recordings(id_or_prefix: str, path: Path | None = None) -> list[tuple[str, Recording]]:
    """``(name, Recording)`` for every response of a stored session, oldest first.

    What ``frontier check SESSION`` / ``frontier replay SESSION`` resolve a session
    id to. Raises :class:`SessionNotFound` (unknown or ambiguous id, or no store
    yet) with a message fit for the user.
    """
    db = _existing_store(path, f"{id_or_prefix!r} is not a file and there are")
    with SessionStore.open_readonly(db) as store:
        info = store.get_session(id_or_prefix)
        return [(r.name, r.to_recording()) for r in store.recordings(info.id)]


def find_session(id_or_prefix: str, path: Path | None = None) -> SessionInfo:
    """The stored session an id or unique prefix names (``SessionNotFound`` otherwise).

    Never creates a database: commands check the id before opening a TUI on it.
    """
    db = _existing_store(path, f"no session {id_or_prefix!r}: there are")
    with SessionStore.open_readonly(db) as store:
        return store.get_session(id_or_prefix)


def existing_store(path: Path | None = None) -> Path | None:
    """The database a reading command should open, or ``None`` when there is none yet.

    Raises :class:`StoreError` when the data dir is a file (rather than reporting
    "no sessions yet" about a directory that cannot exist).
    """
    db = Path(path) if path is not None else default_path()
    check_data_dir(db.parent)
    return db if db.exists() else None


def _existing_store(path: Path | None, problem: str) -> Path:
    db = existing_store(path)
    if db is None:
        db = Path(path) if path is not None else default_path()
        raise SessionNotFound(f"{problem} no stored sessions yet ({db})")
    return db


def check_data_dir(directory: Path) -> None:
    """Say plainly when the data dir (or a parent of it) is a file, not "File exists"."""
    env = os.environ.get("FRONTIER_DATA_DIR")
    name = "FRONTIER_DATA_DIR" if env and Path(env) == directory else "the data dir"
    for p in (directory, *directory.parents):
        if p.is_dir():
            return
        if p.exists():
            where = f"{directory}" if p == directory else f"{directory}: {p}"
            raise StoreError(
                f"{name} {where} is a file, not a directory; point "
                "FRONTIER_DATA_DIR at a directory (or move the file aside)"
            )


def default_path() -> Path:
    """``<data dir>/sessions.db`` (``FRONTIER_DATA_DIR`` overrides the platform dir)."""
    from frontier.app.config import data_dir

    return data_dir() / DB_NAME


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class SessionInfo:
    """One row of ``frontier sessions``."""

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

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "started": iso_time(self.started),
            "workspace": self.workspace,
            "model": self.model,
            "mode": self.mode,
            "turns": self.turns,
            "state": self.state,
            "base_url": self.base_url,
            "calls": self.calls,
        }


@dataclass(frozen=True)
class Target:
    """A file a mutation changes, with the hashes recovery compares against."""

    path: str
    pre: str | None
    """sha256 of the file as previewed/approved (``None`` = did not exist)."""
    post: str | None
    """sha256 the approved change produces (``None`` = the change deletes it)."""


@dataclass(frozen=True)
class CallRecord:
    """A persisted call with its start mark and (if committed) its result."""

    seq: int
    call_id: str
    name: str
    args: Mapping[str, Any]
    t: float
    kind: str
    """``read`` / ``edit`` / ``exec`` (the tool's policy class)."""
    mutates: bool
    targets: tuple[Target, ...]
    command: str | None
    started: float | None
    result: ToolResult | None
    response_id: int | None = None


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


@dataclass(frozen=True)
class RecordedResponse:
    """One model response's raw stream, enough to rebuild a recording file."""

    id: int
    session_id: str
    mode: str
    model: str
    request_index: int
    created: float
    finish_reason: str | None
    """``None`` when the process died before the response ended."""
    events: tuple[tuple[float, str], ...] = field(default=())
    """``(seconds since the request, SSE data string)`` in arrival order."""

    @property
    def name(self) -> str:
        """How ``check``/``replay`` name it: ``<session>#<request index>``."""
        return f"{self.session_id}#{self.request_index}"

    def to_recording(self) -> Recording:
        """The same response as a ``session.record.Recording`` (a process that died
        mid-response reads back as ``disconnect``, as an unterminated file does)."""
        from frontier.app.session.record import Recording

        return Recording(
            mode=self.mode,
            model=self.model,
            created=iso_time(self.created),
            events=self.events,
            finish_reason=self.finish_reason or "disconnect",
            meta={"session": self.session_id, "request_index": self.request_index},
        )


def iso_time(t: float) -> str:
    """Local time with offset, to the second (what people read in listings)."""
    from datetime import datetime

    return datetime.fromtimestamp(t).astimezone().isoformat(timespec="seconds")


# --------------------------------------------------------------------------- store


class SessionStore:
    """All reads and writes of ``sessions.db``. Thread-safe; one connection per store."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        secret_values: Iterable[str | None] | Scrubber = (),
        *,
        readonly: bool = False,
    ) -> None:
        self._conn = conn
        self.path = path
        self.readonly = readonly
        self._lock = threading.RLock()
        self._scrubber = (
            secret_values if isinstance(secret_values, Scrubber) else Scrubber(secret_values)
        )
        """Shared with the runtime when it passes one: a key resolved later is scrubbed too."""
        self._sse: dict[int, SSEScrubber] = {}
        """Per open response: masks secrets across its stream events before buffering."""
        self._stream_buf: dict[int, list[tuple[float, str]]] = {}
        self._stream_written: dict[int, int] = {}
        self._latest_response: dict[str, int] = {}
        """Per session, the response most recently begun: the one whose calls run now."""
        self.fault_hook: Callable[[str], None] | None = None
        """Test hook: called inside each write transaction just before COMMIT with
        the commit point's name (``call``, ``started``, ``result``, ``assistant``,
        ``message``, ``error``, ``response``, ``response_end``, ``recover``…);
        raising there rolls the transaction back exactly as a failing disk would."""

    # ----------------------------------------------------------------- opening

    @classmethod
    def open(
        cls, path: Path | None = None, *, secrets: Iterable[str | None] | Scrubber = ()
    ) -> SessionStore:
        """Open (creating and migrating as needed) the store at ``path``.

        The file is created with mode 0600 in a 0700 directory. ``secrets`` adds
        values to scrub besides the API-key environment variables (the resolved
        key, base-URL credentials); a :class:`Scrubber` is used as is, so values
        its owner learns later are scrubbed here too.
        """
        path = Path(path) if path is not None else default_path()
        env = [os.environ.get(name) for name in SECRET_ENV]
        if isinstance(secrets, Scrubber):
            secrets.add(*env)
            values: Iterable[str | None] | Scrubber = secrets
        else:
            values = [*env, *secrets]
        check_data_dir(path.parent)
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
            os.close(fd)
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)
        except OSError as exc:
            raise StoreError(
                f"cannot create the session database {path}: {exc.strerror or exc}; "
                "check permissions or set FRONTIER_DATA_DIR to a writable directory"
            ) from exc
        try:
            conn = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S
            )
        except sqlite3.Error as exc:
            raise _translate(exc, path, "opening the database") from exc
        try:
            mode = _enable_wal(conn)
            if str(mode).lower() != "wal":
                raise StoreError(
                    f"{path}: SQLite refused WAL mode (got {mode!r}); "
                    "put FRONTIER_DATA_DIR on a local disk"
                )
            conn.execute("PRAGMA synchronous=FULL")
            # Checkpoints run where nothing waits on them (:meth:`checkpoint`), never
            # inside the commit that records a call about to start.
            conn.execute("PRAGMA wal_autocheckpoint=0")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            schema.migrate(conn)
        except schema.SchemaError as exc:
            conn.close()
            raise StoreError(f"{path}: {exc}") from exc
        except sqlite3.Error as exc:
            conn.close()
            raise _translate(exc, path, "opening the database") from exc
        except BaseException:
            conn.close()
            raise
        return cls(conn, path, values)

    @classmethod
    def open_readonly(cls, path: Path | None = None) -> SessionStore:
        """Open an existing store for reading only (``sessions``, ``export``, ``check``,
        ``replay``): nothing is created, migrated or chmod'ed, so a read-only data dir
        (a backup, another user's sessions) can still be listed and exported.

        SQLite needs to write ``-shm`` to read a WAL database; when the directory is
        read-only and no ``-wal`` is waiting there, the file is read as immutable.
        """
        path = Path(path) if path is not None else default_path()
        check_data_dir(path.parent)
        if not path.is_file():
            raise SessionNotFound(f"no stored sessions yet ({path})")
        uri = f"file:{quote(str(path.absolute()))}?mode=ro"
        try:
            conn = _connect_readonly(uri)
        except sqlite3.Error as exc:
            name = getattr(exc, "sqlite_errorname", "") or ""
            wal = Path(f"{path}-wal")
            waiting = wal.exists() and wal.stat().st_size > 0
            if not name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN")) or waiting:
                raise _translate(exc, path, "reading", write=False) from exc
            try:
                conn = _connect_readonly(uri + "&immutable=1")
            except sqlite3.Error as again:
                raise _translate(again, path, "reading", write=False) from again
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.Error as exc:
            conn.close()
            raise _translate(exc, path, "reading", write=False) from exc
        if version > schema.current_version():
            conn.close()
            raise StoreError(
                f"{path}: the session database is schema v{version} but this Frontier knows "
                f"only up to v{schema.current_version()}: upgrade Frontier"
            )
        values = [os.environ.get(name) for name in SECRET_ENV]
        return cls(conn, path, values, readonly=True)

    def checkpoint(self) -> bool:
        """Copy the WAL into the database file; call it where no tool is waiting to start.

        SQLite's automatic checkpoint is off: it runs inside whichever commit crosses
        1000 pages, and when that is the commit recording a call, the call waits for
        megabytes to be written and fsync'd. The agent loop calls this before each
        model request instead (no call can be pending then), and a long response's
        stream flush calls it once the WAL passes ``WAL_CAP_BYTES``. A checkpointed WAL
        is rewritten from its start, so later commits overwrite blocks already
        allocated and their fsync need not update the file size. ``PASSIVE``: it never
        waits for another process's readers; returns whether the whole WAL was copied.
        """
        if self.readonly:
            return True
        with self._lock:
            try:
                busy, frames, copied = self._conn.execute(
                    "PRAGMA wal_checkpoint(PASSIVE)"
                ).fetchone()
            except sqlite3.Error as exc:
                raise _translate(exc, self.path, "checkpointing the WAL") from exc
            return not busy and frames == copied

    def close(self) -> None:
        """Flush buffered stream events (best effort is not enough: errors raise) and close.

        The connection is closed even when that last flush fails (a full disk), so
        the caller can report the :class:`StoreError` and exit without a traceback.
        """
        with self._lock:
            try:
                for rid, sse in self._sse.items():
                    self._stream_buf.setdefault(rid, []).extend(sse.flush())
                self._sse.clear()
                if any(self._stream_buf.values()):
                    self._write("stream", lambda c: None)
            finally:
                self._conn.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- sessions

    def create_session(self, workspace: str, model: str, base_url: str | None, mode: str) -> str:
        """A new session; returns its short hex id."""
        now = time.time()
        ws = os.path.abspath(workspace)
        url = sanitize_url(base_url)

        def insert(c: sqlite3.Connection) -> str:
            for _ in range(16):
                sid = _secrets.token_hex(4)
                if c.execute("SELECT 1 FROM sessions WHERE id = ?", (sid,)).fetchone():
                    continue
                c.execute(
                    "INSERT INTO sessions (id, created, updated, workspace, model, base_url,"
                    " mode, state) VALUES (?, ?, ?, ?, ?, ?, ?, 'active')",
                    (sid, now, now, self._r(ws), self._r(model), self._r(url), mode),
                )
                return sid
            raise StoreError("could not allocate a unique session id after 16 tries")

        return self._write("session", insert)

    def set_workspace(self, session_id: str, workspace: str) -> None:
        """The project moved: later tools and recovery use ``workspace`` (resume --workspace)."""
        ws = os.path.abspath(workspace)
        self._write(
            "workspace",
            lambda c: self._check_rowcount(
                c.execute(
                    "UPDATE sessions SET workspace = ?, updated = ? WHERE id = ?",
                    (self._r(ws), time.time(), session_id),
                ),
                session_id,
            ),
        )

    def set_state(self, session_id: str, state: str) -> None:
        if state not in STATES:
            raise ValueError(f"unknown session state {state!r}; one of {', '.join(STATES)}")
        self._write(
            "state",
            lambda c: self._check_rowcount(
                c.execute(
                    "UPDATE sessions SET state = ?, updated = ? WHERE id = ?",
                    (state, time.time(), session_id),
                ),
                session_id,
            ),
        )

    def list_sessions(self) -> list[SessionInfo]:
        """Every session, newest first."""
        return [self._info(row) for row in self._read(_SESSION_QUERY + " ORDER BY s.created DESC")]

    def get_session(self, id_or_prefix: str) -> SessionInfo:
        """The session with this id, or the only one whose id starts with it."""
        key = id_or_prefix.strip().lower()
        if not key:
            raise SessionNotFound("no session id given; `frontier sessions` lists them")
        rows = self._read(_SESSION_QUERY + " WHERE s.id = ?", (key,))
        if not rows:
            escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            rows = self._read(
                _SESSION_QUERY + " WHERE s.id LIKE ? ESCAPE '\\' ORDER BY s.created DESC",
                (escaped + "%",),
            )
        if not rows:
            raise SessionNotFound(
                f"no session matches {id_or_prefix!r} in {self.path}; "
                "`frontier sessions` lists them"
            )
        if len(rows) > 1:
            ids = ", ".join(r[0] for r in rows[:5])
            raise SessionNotFound(
                f"{id_or_prefix!r} matches {len(rows)} sessions ({ids}); give more characters"
            )
        return self._info(rows[0])

    # ----------------------------------------------------------------- messages & text

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
            body = self._r(json.dumps(message, ensure_ascii=False, default=_json_default))
            if from_user is None:
                typed = role == "user" and not _RUNTIME_FEEDBACK.match(_message_text(message))
            else:
                typed = from_user and role == "user"
            rows.append((role, body, typed, _message_text(message)))
        now = time.time()

        def insert(c: sqlite3.Connection) -> None:
            for role, body, typed, text in rows:
                if typed:
                    self._log(c, session_id, "user", {"text": text}, t=now)
                last = c.execute(
                    "SELECT MAX(seq) FROM log WHERE session_id = ?", (session_id,)
                ).fetchone()[0]
                c.execute(
                    "INSERT INTO messages (session_id, t, role, body, log_seq)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (session_id, now, role, body, last),
                )

        self._write("message", insert)

    def undelivered_results(self, session_id: str) -> list[ToolResult]:
        """Committed results the model never saw (logged after its last user/tool message).

        A crash between committing a result and appending the round leaves such
        results; resume must report them, or a model would redo a done side effect.
        """
        rows = self._read(
            "SELECT data FROM log WHERE session_id = ? AND type = 'result' AND seq > "
            "COALESCE((SELECT MAX(log_seq) FROM messages WHERE session_id = ?"
            " AND role IN ('user', 'tool')), 0) ORDER BY seq",
            (session_id, session_id),
        )
        return [result_from_json(json.loads(r[0])) for r in rows]

    def load_messages(self, session_id: str) -> list[dict[str, Any]]:
        """The conversation as sent to the model, in order (to resume it)."""
        rows = self._read(
            "SELECT body FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [json.loads(r[0]) for r in rows]

    def add_user_text(self, session_id: str, text: str) -> None:
        """A typed user message for the timeline only (when the message dict is stored apart)."""
        self._write("user", lambda c: self._log(c, session_id, "user", {"text": text}))

    def add_assistant_text(self, session_id: str, text: str) -> None:
        """Confirmed assistant prose (consecutive pieces are joined on export)."""
        if not text:
            return
        self._write("assistant", lambda c: self._log(c, session_id, "assistant", {"text": text}))

    def add_contract_error(
        self,
        session_id: str,
        kind: str,
        message: str,
        offset: int,
        response_id: int | None = None,
    ) -> None:
        data = {"kind": kind, "message": message, "offset": offset}
        self._write(
            "error",
            lambda c: self._log(c, session_id, "error", data, response_id=response_id),
        )

    # ----------------------------------------------------------------- responses

    def begin_response(self, session_id: str, mode: str, model: str, request_index: int) -> int:
        """Start recording one model response; returns its id."""
        now = time.time()

        def insert(c: sqlite3.Connection) -> int:
            cur = c.execute(
                "INSERT INTO responses (session_id, t, mode, model, request_index)"
                " VALUES (?, ?, ?, ?, ?)",
                (session_id, now, mode, self._r(model), request_index),
            )
            return int(cur.lastrowid or 0)

        rid = self._write("response", insert)
        with self._lock:
            self._sse[rid] = SSEScrubber(self._scrubber)
            self._stream_buf[rid] = []
            self._stream_written[rid] = 0
            self._latest_response[session_id] = rid
        return rid

    def add_stream_event(self, response_id: int, t: float, data: str) -> None:
        """Buffer one SSE ``data`` string with its arrival time (seconds since the request).

        Secrets are masked in place first, across events: an event that ends in what
        may be the start of a secret is buffered once the next event decides it (at
        the latest at :meth:`end_response`), so no commit writes a secret in pieces.
        """
        with self._lock:
            buf = self._stream_buf.get(response_id)
            sse = self._sse.get(response_id)
            if buf is None or sse is None:
                raise ValueError(
                    f"response {response_id} is not open in this store: call begin_response "
                    "first (and not after end_response)"
                )
            buf.extend(sse.feed(float(t), data))
            if len(buf) >= STREAM_FLUSH_EVENTS:
                self._write("stream", lambda c: None)
                if self._wal_bytes() > WAL_CAP_BYTES:
                    self.checkpoint()

    def _wal_bytes(self) -> int:
        try:
            return os.stat(f"{self.path}-wal").st_size
        except FileNotFoundError:
            return 0

    def end_response(self, response_id: int, finish_reason: str) -> None:
        """Flush the response's stream and record how it ended."""
        now = time.time()
        with self._lock:
            sse = self._sse.pop(response_id, None)
            if sse is not None:
                self._stream_buf.setdefault(response_id, []).extend(sse.flush())
                self._stream_written.setdefault(response_id, 0)
        self._write(
            "response_end",
            lambda c: c.execute(
                "UPDATE responses SET finish_reason = ?, ended = ? WHERE id = ?",
                (finish_reason, now, response_id),
            ),
        )
        with self._lock:
            self._stream_buf.pop(response_id, None)
            self._stream_written.pop(response_id, None)

    def recordings(self, session_id: str) -> list[RecordedResponse]:
        """Every response of the session with its raw stream, oldest first."""
        rows = self._read(
            "SELECT id, session_id, mode, model, request_index, t, finish_reason"
            " FROM responses WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        out: list[RecordedResponse] = []
        for rid, sid, mode, model, index, t, finish in rows:
            events = self._read(
                "SELECT t, data FROM stream_events WHERE response_id = ? ORDER BY seq", (rid,)
            )
            with self._lock:
                pending = list(self._stream_buf.get(rid, ()))
            out.append(
                RecordedResponse(
                    id=rid,
                    session_id=sid,
                    mode=mode,
                    model=model,
                    request_index=index,
                    created=t,
                    finish_reason=finish,
                    events=tuple((float(a), b) for a, b in events) + tuple(pending),
                )
            )
        return out

    # ----------------------------------------------------------------- calls & results

    def persistence(self, session_id: str) -> SessionPersistence:
        """The :class:`tools.contract.Persistence` the tool boundary uses for this session."""
        from frontier.app.session.persistence import SessionPersistence

        return SessionPersistence(self, session_id)

    def add_call(
        self,
        session_id: str,
        call: ToolCall,
        spec: ToolSpec | None = None,
        preview: Preview | None = None,
        response_id: int | None = None,
        *,
        started: bool = False,
    ) -> int:
        """Commit a call row (with each target file's pre/post hashes); returns its ``seq``.

        ``started`` also records, in the same transaction, that execution begins now:
        one fsync instead of two on the path from confirmation to the tool starting.
        A crash right after it reconciles as ``interrupted`` (the safe reading).
        """
        targets = [
            {"path": f.path, "pre": f.old_hash, "post": f.new_hash}
            for f in (preview.files if preview is not None else ())
        ]
        data = {
            "id": call.id,
            "name": call.name,
            "args": call.json_args(),
            "offset": call.offset,
            "kind": spec.kind if spec is not None else "read",
            "mutates": bool(spec.mutates) if spec is not None else False,
            "targets": targets,
            "command": preview.command if preview is not None else None,
            "summary": preview.summary if preview is not None else "",
        }
        if response_id is None:
            response_id = self._open_response(session_id)

        def insert(c: sqlite3.Connection) -> int:
            seq = self._log(c, session_id, "call", data, call_id=call.id, response_id=response_id)
            if started:
                self._log(c, session_id, "started", {}, call_id=call.id, ref=seq)
            return seq

        self._release_streams()
        return self._write("call", insert)

    def _release_streams(self) -> None:
        """Every buffered stream event goes into the next commit, even one whose end may
        start a secret (masked in advance): the bytes that prove a call are durable before
        the call runs (DESIGN §7)."""
        with self._lock:
            for rid, sse in self._sse.items():
                self._stream_buf.setdefault(rid, []).extend(sse.release_all())

    def _open_response(self, session_id: str) -> int | None:
        """The response that confirmed the calls being recorded (the latest one begun)."""
        with self._lock:
            return self._latest_response.get(session_id)

    def add_started(self, session_id: str, ref: int, call_id: str) -> None:
        """Commit that the call at ``ref`` is about to execute."""
        self._write(
            "started",
            lambda c: self._log(c, session_id, "started", {}, call_id=call_id, ref=ref),
        )

    def add_result(
        self, session_id: str, ref: int | None, result: ToolResult, *, point: str = "result"
    ) -> None:
        """Commit a result row (``ref`` = its call's ``seq``; ``None``: never persisted)."""
        data = {
            "id": result.call_id,
            "name": result.name,
            "kind": result.kind,
            "output": result.output,
            "exit": result.exit_code,
            "elapsed": result.elapsed,
            "meta": dict(result.meta),
        }

        def insert(c: sqlite3.Connection) -> int:
            if (
                ref is not None
                and c.execute(
                    "SELECT 1 FROM log WHERE ref = ? AND type = 'result'", (ref,)
                ).fetchone()
            ):
                raise StoreError(
                    f"call {result.call_id!r} (row {ref}) already has a committed result; "
                    "a call is paired with exactly one result"
                )
            return self._log(c, session_id, "result", data, call_id=result.call_id, ref=ref)

        self._write(point, insert)

    def find_open_call(self, session_id: str, call_id: str) -> int | None:
        """``seq`` of the newest call row with this id that has no result yet."""
        rows = self._read(
            "SELECT c.seq FROM log c WHERE c.session_id = ? AND c.type = 'call'"
            " AND c.call_id = ? AND NOT EXISTS"
            " (SELECT 1 FROM log r WHERE r.ref = c.seq AND r.type = 'result')"
            " ORDER BY c.seq DESC LIMIT 1",
            (session_id, call_id),
        )
        return int(rows[0][0]) if rows else None

    def calls(self, session_id: str) -> list[CallRecord]:
        """Every persisted call of the session, in order, with start mark and result."""
        rows = self._read(
            "SELECT c.seq, c.t, c.response_id, c.data,"
            " (SELECT s.t FROM log s WHERE s.ref = c.seq AND s.type = 'started' LIMIT 1),"
            " (SELECT r.data FROM log r WHERE r.ref = c.seq AND r.type = 'result' LIMIT 1)"
            " FROM log c WHERE c.session_id = ? AND c.type = 'call' ORDER BY c.seq",
            (session_id,),
        )
        out = []
        for seq, t, rid, data, started, result in rows:
            d = json.loads(data)
            out.append(
                CallRecord(
                    seq=seq,
                    call_id=d["id"],
                    name=d["name"],
                    args=d.get("args", {}),
                    t=t,
                    kind=d.get("kind", "read"),
                    mutates=bool(d.get("mutates")),
                    targets=tuple(
                        Target(x["path"], x.get("pre"), x.get("post")) for x in d.get("targets", ())
                    ),
                    command=d.get("command"),
                    started=started,
                    result=result_from_json(json.loads(result)) if result else None,
                    response_id=rid,
                )
            )
        return out

    def unresolved_calls(self, session_id: str) -> list[CallRecord]:
        """Calls persisted without a committed result (what recovery reconciles)."""
        return [c for c in self.calls(session_id) if c.result is None]

    def recover(self, session_id: str, workspace: str | Path | None = None) -> list[ToolResult]:
        """Reconcile every call without a result, commit and return the results (§7)."""
        from frontier.app.session.recover import recover_session

        return recover_session(self, session_id, workspace)

    def records(self, session_id: str) -> list[LogRecord]:
        """The session timeline (user, assistant, call, started, result, error) in order."""
        rows = self._read(
            "SELECT seq, type, t, call_id, ref, response_id, data FROM log"
            " WHERE session_id = ? ORDER BY seq",
            (session_id,),
        )
        return [
            LogRecord(s, ty, t, cid, ref, rid, json.loads(d)) for s, ty, t, cid, ref, rid, d in rows
        ]

    # ----------------------------------------------------------------- internals

    def _log(
        self,
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
        body = self._r(json.dumps(data, ensure_ascii=False, default=_json_default))
        try:
            cur = c.execute(
                "INSERT INTO log (session_id, t, type, call_id, ref, response_id, data)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    time.time() if t is None else t,
                    type_,
                    call_id,
                    ref,
                    response_id,
                    body,
                ),
            )
        except sqlite3.IntegrityError as exc:
            raise StoreError(
                f"cannot record {type_} for session {session_id!r}: {exc}; "
                "is the session id right? (`frontier sessions` lists them)"
            ) from exc
        return int(cur.lastrowid or 0)

    def _write(self, point: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` and flush buffered stream events in one committed transaction."""
        with self._lock:
            c = self._conn
            try:
                c.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _translate(exc, self.path, f"saving {point}") from exc
            try:
                flushed = self._flush_streams(c)
                out = fn(c)
                if self.fault_hook is not None:
                    self.fault_hook(point)
                c.execute("COMMIT")
            except BaseException as exc:
                if c.in_transaction:  # SQLite may already have rolled back (SQLITE_FULL)
                    c.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise _translate(exc, self.path, f"saving {point}") from exc
                raise
            for rid, n in flushed.items():
                self._stream_written[rid] += n
                del self._stream_buf[rid][:n]
            return out

    def _flush_streams(self, c: sqlite3.Connection) -> dict[int, int]:
        flushed: dict[int, int] = {}
        for rid, buf in self._stream_buf.items():
            if not buf:
                continue
            start = self._stream_written[rid]
            c.executemany(
                "INSERT INTO stream_events (response_id, seq, t, data) VALUES (?, ?, ?, ?)",
                ((rid, start + i, t, d) for i, (t, d) in enumerate(buf)),
            )
            flushed[rid] = len(buf)
        return flushed

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise _translate(exc, self.path, "reading") from exc

    def _info(self, row: tuple[Any, ...]) -> SessionInfo:
        sid, created, workspace, model, base_url, mode, state, turns, calls = row
        if state == "active" and not session_lock.is_held(self.path.parent, sid):
            state = "interrupted"  # its process died mid-turn (nothing holds its lock)
        return SessionInfo(sid, created, workspace, model, base_url, mode, state, turns, calls)

    def lock_session(self, session_id: str) -> session_lock.SessionLock:
        """Open ``session_id`` for this process alone (``StoreError`` if another has it)."""
        try:
            return session_lock.acquire(self.path.parent, session_id)
        except session_lock.SessionBusy as exc:
            raise StoreError(str(exc)) from None
        except OSError as exc:
            raise StoreError(
                f"cannot lock session {session_id} in {self.path.parent}: "
                f"{exc.strerror or exc}; check permissions on the data dir"
            ) from exc

    @staticmethod
    def _check_rowcount(cur: sqlite3.Cursor, session_id: str) -> None:
        if cur.rowcount == 0:
            raise SessionNotFound(f"no session {session_id!r}; `frontier sessions` lists them")

    def _r(self, text: str | None) -> Any:
        """Scrub secrets (known values, credential shapes) out of a string about to be written."""
        return text if text is None else self._scrubber.scrub(text)

    def add_secrets(self, *values: str | None) -> None:
        """Scrub these values too from now on (a key resolved after opening)."""
        self._scrubber.add(*values)

    def next_request_index(self, session_id: str) -> int:
        """The request index the session's next response gets (resume continues the
        numbering, so ``SESSION#N`` names one response)."""
        rows = self._read(
            "SELECT COALESCE(MAX(request_index) + 1, 0) FROM responses WHERE session_id = ?",
            (session_id,),
        )
        return int(rows[0][0])


_SESSION_QUERY = (
    "SELECT s.id, s.created, s.workspace, s.model, s.base_url, s.mode, s.state,"
    " (SELECT count(*) FROM log l WHERE l.session_id = s.id AND l.type = 'user'),"
    " (SELECT count(*) FROM log l WHERE l.session_id = s.id AND l.type = 'call')"
    " FROM sessions s"
)


# --------------------------------------------------------------------------- helpers


def _enable_wal(conn: sqlite3.Connection) -> str:
    """Switch to WAL, waiting for another process that is doing the same.

    Changing the journal mode needs an exclusive lock and SQLite reports
    ``database is locked`` at once, without its busy handler, when a second
    Frontier opens a fresh database at the same moment; so wait here, bounded.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def result_from_json(d: Mapping[str, Any]) -> ToolResult:
    return ToolResult(
        call_id=d["id"],
        name=d.get("name", ""),
        kind=d["kind"],
        output=d.get("output", ""),
        exit_code=d.get("exit"),
        elapsed=float(d.get("elapsed") or 0.0),
        meta=d.get("meta") or {},
    )


def sanitize_url(url: str | None) -> str | None:
    """A base URL as stored: user-info dropped, credential-like query values ``[REDACTED]``."""
    return redact_url(url, userinfo="")


_RUNTIME_FEEDBACK = re.compile(
    r"result [A-Za-z0-9_.:-]{1,64} exit=\S+ \d+\n|error (truncated|contract)\b"
)
"""What the agent loop sends back as a ``user`` message: result frames and repair prompts."""


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


def _connect_readonly(uri: str) -> sqlite3.Connection:
    conn = sqlite3.connect(
        uri, uri=True, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S
    )
    try:
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # really open it
    except BaseException:
        conn.close()
        raise
    return conn


def _translate(exc: sqlite3.Error, path: Path, doing: str, *, write: bool = True) -> StoreError:
    """Turn a SQLite error into one that says what to do next."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    where = f"session store {path} ({doing})"
    if name.startswith("SQLITE_FULL") or "disk is full" in text:
        return StoreError(f"{where}: the disk is full; free space in {path.parent} and retry")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return StoreError(
            f"{where}: the database stayed locked for {BUSY_TIMEOUT_S:.0f}s by another "
            f"process; close other Frontier instances using {path.parent} and retry"
        )
    if not write and (
        name.startswith(("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_CANTOPEN", "SQLITE_AUTH"))
        or "unable to open" in text
        or "readonly" in text
    ):
        return StoreError(
            f"{where}: cannot read it ({text}); check that you may read {path} and "
            f"{path.parent}, or make {path.parent} writable (a WAL database needs its -shm)"
        )
    if name.startswith(("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_CANTOPEN")) or (
        "readonly" in text or "unable to open" in text
    ):
        return StoreError(
            f"{where}: cannot write ({text}); check the permissions of {path.parent} "
            "or set FRONTIER_DATA_DIR to a writable directory"
        )
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or "not a database" in text:
        return StoreError(
            f"{where}: the file is not a usable Frontier database ({text}); move it aside "
            "(sessions start afresh) or set FRONTIER_DATA_DIR to another directory"
        )
    if name.startswith("SQLITE_IOERR") or "I/O error" in text:
        return StoreError(f"{where}: disk I/O error ({text}); check the disk holding {path.parent}")
    return StoreError(f"{where}: {text}")
