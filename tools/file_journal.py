"""An intent journal in a file, for multi-file writes outside a session (``frontier apply-patch``).

The agent journals a multi-file write in its session store (``app/session/journal.py``)
and finishes it when the session resumes. ``frontier apply-patch`` has no session, yet a
kill between its renames leaves some files new and some old, and a rerun then refuses the
patch as half applied. So the command keeps the same journal (``atomic._entry``'s entries)
in a file, one per workspace root:
``<journals>/<sha256 of the root's real path, 32 hex>.json``, written, fsynced and its
folder fsynced before the first rename (``contract.IntentJournal.begin``), removed when
the write is over.

Every writing run holds the root's lock (:func:`root_lock`: two runs on one root never
take each other's journal for an interrupted one) and first finishes a journal an earlier
run left open (:func:`finish_open`), as the agent's recovery does: every entry checked, then
rolled forward or back (``workspace_files.BeneathFiles``). A journal file is as untrusted as
a session store (the data dir can be copied, edited, shared): one that is not what this
module writes is moved aside as ``…invalid-<time>.json`` and touches nothing.

The journals folder is given by the caller (the command passes ``<data dir>/patch-journals``),
so the tool layer needs no idea of where Frontier keeps its data.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from frontier.app import fastjson  # json without the package (~2 ms of start-up)
from frontier.app.hashes import sha256_hex

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from frontier.app.record import NamedTuple

JOURNALS = "patch-journals"
"""The folder of the data dir the command keeps these journals in."""
VERSION = 1
MAX_BYTES = 16 << 20
"""A larger file is no journal this module wrote (a write of thousands of files is a few
hundred KiB): refused unread."""
LOCK_WAIT_S = 10.0
"""How long a run waits for another run on the same root before giving up."""
_POLL_S = 0.05


class JournalBusy(OSError):
    """Another run holds the root's lock: nothing was read or written."""


class JournalUnavailable(OSError):
    """The journals folder or the root's lock cannot be made (a read-only data dir, a file
    in the way): no write may start without its journal."""


class Finished(NamedTuple):
    """What a run did with the journal an earlier run left open."""

    outcome: str
    """``workspace_files.BeneathFiles.finish_write``'s outcome (``rolled forward``, ``rolled
    back``, ``done``, …), or ``invalid`` (nothing touched)."""
    paths: tuple[str, ...]
    """The workspace paths the interrupted write named (empty when invalid)."""
    journal: Path
    problem: str | None = None
    """Why the journal was refused, when ``outcome`` is ``invalid``."""
    moved_to: Path | None = None
    """Where a refused journal was moved (kept for a person to read, never acted on)."""


def _key(root: str | os.PathLike[str]) -> str:
    return sha256_hex(os.path.realpath(root).encode("utf-8", "surrogateescape"))


def journal_path(journals: Path, root: str | os.PathLike[str]) -> Path:
    """The journal file of the workspace at ``root`` (keyed by its real path, so the same
    folder reached by another path or a link is the same journal)."""
    return journals / f"{_key(root)[:32]}.json"


@contextlib.contextmanager
def root_lock(
    journals: Path,
    root: str | os.PathLike[str],
    on_wait: Callable[[str], object] | None = None,
) -> Iterator[None]:
    """Hold the exclusive lock of ``root``'s journal for the block: the journal found open
    under it belongs to a run that died, never to one still writing.

    Waits up to :data:`LOCK_WAIT_S` (telling ``on_wait`` once as the wait begins, naming
    the holder's pid when the system tells), then raises :class:`JournalBusy`. Makes
    ``journals`` (and fsyncs its parent, so a journal written there is found after a power
    cut)."""
    lock = journals / f"{_key(root)[:32]}.lock"
    try:
        _make_dir(journals)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise JournalUnavailable(
            exc.errno, f"cannot keep the intent journal in {journals} ({exc.strerror or exc})"
        ) from exc
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if on_wait is not None:
                    on_wait(_waiting_text(fd, root))
                    on_wait = None
                if time.monotonic() >= deadline:
                    raise JournalBusy(
                        errno.EWOULDBLOCK,
                        f"another frontier apply-patch has been writing in {root} for over "
                        f"{LOCK_WAIT_S:.0f} s (lock {lock}); try again when it has finished",
                    ) from None
                time.sleep(_POLL_S)
        yield
    finally:
        os.close(fd)  # releases the lock


def _waiting_text(fd: int, root: str | os.PathLike[str]) -> str:
    from frontier.tools.atomic import held_by  # only when another run holds the lock

    return (
        f"waiting for another frontier apply-patch{held_by(fd)} writing in {root}; giving up "
        f"after {LOCK_WAIT_S:.0f} s\n"
    )


class FileJournal:
    """``contract.IntentJournal`` for one write beneath ``root``, kept in ``path``."""

    def __init__(self, path: Path, root: str | os.PathLike[str]) -> None:
        self.path = path
        self.root = os.path.realpath(root)

    def begin(self, entries: Sequence[Mapping[str, Any]]) -> None:
        """Commit the plan before the first rename: the file and its folder fsynced."""
        doc = {
            "version": VERSION,
            "root": self.root,
            "pid": os.getpid(),
            "started": time.time(),
            "entries": [dict(e) for e in entries],
        }
        _write_durably(self.path, fastjson.dumps(doc, ensure_ascii=False).encode("utf-8"))

    def end(self, outcome: str) -> None:
        """The write is over (``done`` or ``rolled back``): nothing is left to recover."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        _fsync_dir(self.path.parent)


def pending(journals: Path, root: str | os.PathLike[str]) -> Path | None:
    """The journal an earlier run left open for ``root``, without acting on it."""
    path = journal_path(journals, root)
    return path if path.exists() else None


def finish_open(journals: Path, root: str | os.PathLike[str]) -> Finished | None:
    """Finish the write an earlier run left open for ``root`` (hold :func:`root_lock`);
    ``None`` when there is none.

    The journal is checked whole before any file is touched: it must be this module's
    (version, the root's real path) and every entry one the writer could have written
    (``workspace_files.check_intent``); else it is moved aside and nothing is touched.
    A valid one is rolled forward or back (``BeneathFiles.finish_write``) and removed.
    Raises ``OSError`` when the files could not be put right: the journal then stays, for
    the next run to try again."""
    path = journal_path(journals, root)
    try:
        raw = _read_regular(path)
    except FileNotFoundError:
        return None
    # Here, not at the top: a dry run only asks whether a journal waits (``pending``), and
    # the writer's modules are most of what ``frontier apply-patch --dry-run`` would load.
    from frontier.tools.workspace_files import BeneathFiles

    doc, problem = _parse(raw, os.path.realpath(root))
    files = BeneathFiles(root)
    if problem is None:
        entries = doc["entries"]
        try:
            outcome = files.finish_write(entries)
        except ValueError as exc:  # refused before any file was touched
            problem = str(exc)
        else:
            path.unlink()
            _fsync_dir(journals)
            return Finished(outcome, tuple(str(e["path"]) for e in entries), path)
    aside = path.with_name(f"{path.stem}.invalid-{time.time_ns()}.json")
    os.replace(path, aside)
    _fsync_dir(journals)
    return Finished("invalid", (), path, problem, aside)


def _read_regular(path: Path) -> bytes | None:
    """Up to ``MAX_BYTES + 1`` bytes of ``path``; ``None`` when it is not a regular file
    (a link, a FIFO someone put there: never followed, never waited on)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None  # a symbolic link
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_BYTES and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _parse(raw: bytes | None, root: str) -> tuple[dict[str, Any], str | None]:
    """The journal document, or why it is not one this module wrote."""
    from frontier.tools.workspace_files import check_intent

    if raw is None:
        return {}, "it is not a regular file"
    if len(raw) > MAX_BYTES:
        return {}, f"it is over {MAX_BYTES >> 20} MiB"
    try:
        doc = fastjson.loads(raw)
    except (ValueError, RecursionError) as exc:  # not UTF-8 / not JSON / nested too deep
        return {}, f"it is not JSON ({exc})"
    if not isinstance(doc, dict):
        return {}, f"it is a JSON {type(doc).__name__}, not an object"
    if doc.get("version") != VERSION:
        return doc, f"its version is {doc.get('version')!r:.40}, not {VERSION}"
    if doc.get("root") != root:
        return doc, f"it names another folder ({doc.get('root')!r:.200}), not {root!r}"
    return doc, check_intent(doc.get("entries"))


def _make_dir(folder: Path) -> None:
    if folder.is_dir():
        return
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    _fsync_dir(folder.parent)


def _write_durably(path: Path, data: bytes) -> None:
    """``path`` replaced by ``data`` whole: a temp next to it fsynced, renamed, the folder
    fsynced — after a crash the journal is either absent or complete, never torn."""
    temp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """fsync a folder, so a rename or unlink in it is durable (where folders can be
    fsynced: some file systems refuse, and then there is nothing more to do)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)
