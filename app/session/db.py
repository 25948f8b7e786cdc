"""The connection to ``sessions.db``: WAL, durable commits, checkpoints, errors that say what to do.

Every part of the store (catalogue, timeline, responses, calls, the intent journal)
writes through :meth:`Database.write`, so there is one place where a transaction
begins (``BEGIN IMMEDIATE``), one place where it commits (``synchronous=FULL``: on
disk before the method returns), one lock for the one connection, and one place
that turns a SQLite error into a :class:`StoreError` naming the next step. Rows a
part keeps in memory between commits — the raw stream, which arrives per token —
*ride* in every transaction (:class:`Rider`), so whatever commits next also makes
them durable.

Secrets: the :class:`~frontier.app.secrets.Scrubber` lives here, next to the one
write path, and every part scrubs each string it writes with :meth:`Database.scrub`.

Checkpoints run where nothing waits for them (:meth:`Database.checkpoint`, see
docs/decisions-session.md "Checkpoints happen where nothing waits"), never inside
the commit that records a call about to start.
"""

from __future__ import annotations

import os
import stat
import time
from _thread import RLock
from collections.abc import Callable, Iterable
from pathlib import Path

from frontier.app.percent import percent_encode
from frontier.app.secret_shapes import SECRET_ENV
from frontier.app.session import schema
from frontier.app.session.sqlite import sqlite3

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

    from frontier.app.secrets import Scrubber

    T = TypeVar("T")

DB_NAME = "sessions.db"
BUSY_TIMEOUT_S = 10.0


class StoreError(RuntimeError):
    """A session-store operation failed; the message says what happened and what to do."""


class SessionNotFound(StoreError):
    """No session (or more than one) matches the id or prefix the user gave."""


if TYPE_CHECKING:  # a type only: typing.Protocol is not imported at run time

    class Rider(Protocol):
        """Rows kept in memory between commits that every transaction also writes."""

        def write_pending(self, c: sqlite3.Connection) -> Callable[[], None] | None:
            """Insert the pending rows inside the open transaction; return what to do once
            it has committed (forget them), or ``None`` when nothing was pending. A
            transaction that fails must leave the rows pending."""
            ...


def default_path() -> Path:
    """``<data dir>/sessions.db`` (``FRONTIER_DATA_DIR`` overrides the platform dir)."""
    from frontier.app.dirs import data_dir  # not app.config: a reading command needs no more

    return data_dir() / DB_NAME


def check_data_dir(directory: Path) -> None:
    """Say plainly when the data dir (or a parent of it) is a file, not "File exists"."""
    env = os.environ.get("FRONTIER_DATA_DIR")
    name = "FRONTIER_DATA_DIR" if env and Path(env) == directory else "the data dir"
    for p in (directory, *directory.parents):
        try:
            st = p.stat()  # one stat: another Frontier may be creating the dir right now
        except OSError:
            continue  # absent (or under a file, which a parent's turn reports)
        if stat.S_ISDIR(st.st_mode):
            return
        where = f"{directory}" if p == directory else f"{directory}: {p}"
        raise StoreError(
            f"{name} {where} is a file, not a directory; point "
            "FRONTIER_DATA_DIR at a directory (or move the file aside)"
        )


def existing_store(path: Path | None = None) -> Path | None:
    """The database a reading command should open, or ``None`` when there is none yet.

    Raises :class:`StoreError` when the data dir is a file (rather than reporting
    "no sessions yet" about a directory that cannot exist).
    """
    db = Path(path) if path is not None else default_path()
    check_data_dir(db.parent)
    return db if db.exists() else None


class Database:
    """One connection to ``sessions.db`` and its one write path. Thread-safe."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        secret_values: Iterable[str | None] | Scrubber = (),
        *,
        readonly: bool = False,
    ) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly
        self.lock = RLock()  # threading's own RLock, without importing threading (start-up)
        self._secret_values = secret_values
        self._scrubber: Scrubber | None = None
        self.riders: list[Rider] = []
        self._columns: set[tuple[str, str]] = set()
        self.fault_hook: Callable[[str], None] | None = None
        """Test hook: called inside each write transaction just before COMMIT with
        the commit point's name (``call``, ``started``, ``result``, ``assistant``,
        ``message``, ``error``, ``response``, ``response_end``, ``recover``…);
        raising there rolls the transaction back exactly as a failing disk would."""

    # ----------------------------------------------------------------- opening

    @classmethod
    def open(
        cls, path: Path | None = None, *, secrets: Iterable[str | None] | Scrubber = ()
    ) -> Database:
        """Open (creating and migrating as needed) the database at ``path``.

        The file is created with mode 0600 in a 0700 directory. ``secrets`` adds
        values to scrub besides the API-key environment variables; a
        :class:`Scrubber` is used as is, so values its owner learns later are
        scrubbed here too.
        """
        path = Path(path) if path is not None else default_path()
        from frontier.app.secrets import Scrubber

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
            raise translate(exc, path, "opening the database") from exc
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
            raise translate(exc, path, "opening the database") from exc
        except BaseException:
            conn.close()
            raise
        return cls(conn, path, values)

    @classmethod
    def open_readonly(cls, path: Path | None = None) -> Database:
        """Open an existing database for reading only: nothing is created, migrated or
        chmod'ed, so a read-only data dir (a backup, another user's sessions) can still
        be listed and exported.

        SQLite needs to write ``-shm`` to read a WAL database; when the directory is
        read-only and no ``-wal`` is waiting there, the file is read as immutable.
        """
        path = Path(path) if path is not None else default_path()
        check_data_dir(path.parent)
        if not path.is_file():
            raise SessionNotFound(f"no stored sessions yet ({path})")
        # from the path's bytes as the system names them: a name that is not UTF-8 is
        # escaped too (``quote`` of the text would raise)
        uri = f"file:{percent_encode(os.fsencode(path.absolute()), b'/')}?mode=ro"
        try:
            conn = _connect_readonly(uri)
        except sqlite3.Error as exc:
            name = getattr(exc, "sqlite_errorname", "") or ""
            wal = Path(f"{path}-wal")
            waiting = wal.exists() and wal.stat().st_size > 0
            if not name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN")) or waiting:
                raise translate(exc, path, "reading", write=False) from exc
            try:
                conn = _connect_readonly(uri + "&immutable=1")
            except sqlite3.Error as again:
                raise translate(again, path, "reading", write=False) from again
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.Error as exc:
            conn.close()
            raise translate(exc, path, "reading", write=False) from exc
        if version > schema.current_version():
            conn.close()
            raise StoreError(
                f"{path}: the session database is schema v{version} but this Frontier knows "
                f"only up to v{schema.current_version()}: upgrade Frontier"
            )
        values = [os.environ.get(name) for name in SECRET_ENV]
        return cls(conn, path, values, readonly=True)

    # ----------------------------------------------------------------- reading & writing

    def write(self, point: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` and every rider's pending rows in one committed transaction."""
        with self.lock:
            c = self.conn
            try:
                c.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise translate(exc, self.path, f"saving {point}") from exc
            try:
                done = [after for r in self.riders if (after := r.write_pending(c)) is not None]
                out = fn(c)
                if self.fault_hook is not None:
                    self.fault_hook(point)
                c.execute("COMMIT")
            except BaseException as exc:
                if c.in_transaction:  # SQLite may already have rolled back (SQLITE_FULL)
                    c.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise translate(exc, self.path, f"saving {point}") from exc
                raise
            for after in done:
                after()
            return out

    def read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise translate(exc, self.path, "reading") from exc

    def has_column(self, table: str, column: str) -> bool:
        """Does ``table`` have ``column``? A database opened read-only is never migrated,
        so a reader of an older schema asks before it selects a newer column."""
        if (table, column) in self._columns:
            return True
        rows = self.read("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", (table, column))
        if rows:
            self._columns.add((table, column))  # columns are only ever added
        return bool(rows)

    @property
    def scrubber(self) -> Scrubber:
        """Shared with the runtime when it passes one: a key resolved later is scrubbed
        too. Made on first use: a reader that writes nothing (``frontier sessions``)
        never loads the scrubbers' patterns."""
        scrubber = self._scrubber
        if scrubber is None:
            from frontier.app.secrets import Scrubber

            with self.lock:  # the writer thread and the loop may both ask first
                if self._scrubber is None:
                    values = self._secret_values
                    self._scrubber = values if isinstance(values, Scrubber) else Scrubber(values)
                scrubber = self._scrubber
        return scrubber

    def scrub(self, text: str) -> str:
        """``text`` without secrets (known values, credential shapes): for every string
        written."""
        return self.scrubber.scrub(text)

    # ----------------------------------------------------------------- the WAL

    def checkpoint(self) -> bool:
        """Copy the WAL into the database file; call it where no tool is waiting to start.

        SQLite's automatic checkpoint is off: it runs inside whichever commit crosses
        1000 pages, and when that is the commit recording a call, the call waits for
        megabytes to be written and fsync'd. The agent loop calls this before each
        model request instead (no call can be pending then), and a long response's
        stream flush calls it once the WAL passes ``responses.WAL_CAP_BYTES``. A
        checkpointed WAL is rewritten from its start, so later commits overwrite blocks
        already allocated and their fsync need not update the file size. ``PASSIVE``: it
        never waits for another process's readers; returns whether the whole WAL was
        copied.
        """
        if self.readonly:
            return True
        with self.lock:
            try:
                busy, frames, copied = self.conn.execute(
                    "PRAGMA wal_checkpoint(PASSIVE)"
                ).fetchone()
            except sqlite3.Error as exc:
                raise translate(exc, self.path, "checkpointing the WAL") from exc
            return not busy and frames == copied

    def wal_bytes(self) -> int:
        try:
            return os.stat(f"{self.path}-wal").st_size
        except FileNotFoundError:
            return 0

    def close(self) -> None:
        with self.lock:
            self.conn.close()


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


def translate(exc: sqlite3.Error, path: Path, doing: str, *, write: bool = True) -> StoreError:
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
