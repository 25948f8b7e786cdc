"""Crash-safe multi-file writes: temp file + fsync + ``os.replace`` + directory fsync.

Every new content is first written and fsynced to a temp file next to its
target; only when all temps are durable are they renamed over their targets.
A rename is atomic, so each file is always either its old or its new version,
never torn. After the last rename or delete, each distinct directory (and the
parent of each directory we created) is fsynced once, so the renames are
durable too. If a rename or delete fails part-way, the files already changed
are put back from their old bytes (best effort, reported if it fails) and no
temp file is left behind in any case.

Speed (an fsync costs a journal commit and a device cache flush: milliseconds
on a VM), in the order the steps run:

1. every temp is created and written first, by this thread: creating a file
   needs a journal handle, which waits while a commit is being prepared, so
   no fsync may be in flight yet;
2. writeback of all of them is started at once (``_start_writeback``), then
   they are fsynced concurrently in a shared thread pool (fsync releases the
   GIL), so the fsyncs share one or two journal commits;
3. the renames run here, serially and in order (fault-injection seam
   ``_replace``), again with no fsync in flight;
4. the directory fsyncs run concurrently while the caller's ``verify``
   (read-back) runs here.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

TEMP_SUFFIX = ".frontier-tmp"
_POOL_MIN_FILES = 3
"""Below this many files, threads cost more than they save."""
_POOL_MAX_WORKERS = 16
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_FADVISE = getattr(os, "posix_fadvise", None)
_DONTNEED = getattr(os, "POSIX_FADV_DONTNEED", 0)


class AtomicWriteError(OSError):
    """A multi-file write failed; the message says which file and what was restored."""


class FileWrite(NamedTuple):
    path: Path
    """Real (symlink-resolved) target path."""
    data: bytes | None
    """New content; ``None`` deletes the file."""
    old: bytes | None
    """Content before the write (``None`` = absent), used to roll back."""
    mode: int | None = None
    """Permission bits for the new file; ``None`` keeps the current ones (or the umask default)."""
    old_mode: int | None = None
    """Permission bits before the write, restored on rollback."""


def _replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    """Indirection so tests can inject a rename fault."""
    os.replace(src, dst)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def default_mode() -> int:
    return 0o666 & ~_umask()


def current_mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on directories; the renames are done either way
    finally:
        os.close(fd)


def _create_temp(path: Path, data: bytes, mode: int) -> tuple[Path, int]:
    """A new temp file next to ``path`` holding ``data`` with ``mode``; returns it and its
    still-open descriptor (not yet fsynced). Nothing is left behind if this raises."""
    for _ in range(100):
        name = path.parent / f".{path.name}.{os.urandom(6).hex()}{TEMP_SUFFIX}"
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC, 0o600)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(f"could not create a temp file next to {path}")
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        name.unlink(missing_ok=True)
        raise
    return name, fd


def _start_writeback(fd: int) -> None:
    """Ask the kernel to start writing the file's dirty pages now, without waiting.

    Linux starts asynchronous writeback for ``POSIX_FADV_DONTNEED`` (pages still dirty or
    under writeback are kept cached). With every temp's data already on its way, the fsyncs
    that follow share one or two journal commits instead of queueing a commit each. Only a
    hint: durability comes from the fsync, and a refusal is ignored.
    """
    if _FADVISE is not None:
        try:
            _FADVISE(fd, 0, 0, _DONTNEED)
        except OSError:
            pass  # not supported here (e.g. a pipe-like or FUSE file): the fsync still syncs


def _sync_close(fd: int) -> None:
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_POOL: ThreadPoolExecutor | None = None


def _shared_pool() -> ThreadPoolExecutor:
    """One pool for the process, made on first use: threads are started once, not per patch
    (idle workers cost nothing and are joined at exit). Two first calls racing could each
    make a pool; the extra one only idles, so no lock (and no ``threading`` import) here."""
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=_POOL_MAX_WORKERS, thread_name_prefix="fsync")
    return _POOL


def _write_temps(
    jobs: Sequence[tuple[int, FileWrite, int]],
    temps: dict[int, Path],
    pool: ThreadPoolExecutor | None,
) -> None:
    """Write every temp here, start their writeback, then fsync them all (in the pool when
    given); returns once all are durable. Creating them all first keeps the creations out of
    the journal commits the fsyncs force (a new inode waits while a commit is prepared).
    Every temp created is recorded in ``temps`` (also on failure) so the caller removes it."""
    fds: list[int] = []
    try:
        for i, w, mode in jobs:
            name, fd = _create_temp(w.path, w.data or b"", mode)
            temps[i] = name
            fds.append(fd)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    for fd in fds:
        _start_writeback(fd)
    if pool is None:
        errors: list[BaseException] = []
        for fd in fds:
            try:
                _sync_close(fd)
            except OSError as exc:
                errors.append(exc)
    else:
        futures = [pool.submit(_sync_close, fd) for fd in fds]
        errors = [exc for exc in (fut.exception() for fut in futures) if exc is not None]
    if errors:
        raise errors[0]


def write_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """One file, atomically (used for single-file edits and rollbacks)."""
    commit_files([FileWrite(path=path, data=data, old=None, mode=mode)], rollback=False)


def commit_files(
    writes: Sequence[FileWrite],
    *,
    rollback: bool = True,
    verify: Callable[[], None] | None = None,
) -> None:
    """Write/delete every file or (on failure) restore the ones already changed.

    ``verify`` (e.g. a read-back) runs after the last rename, while the directory fsyncs
    are still in flight; what it raises propagates once they are done (the files stay
    written). Raises ``AtomicWriteError`` naming the failing file; temps are always removed.
    """
    temps: dict[int, Path] = {}
    created_dirs: list[Path] = []
    done: list[FileWrite] = []
    pool: ThreadPoolExecutor | None = None
    syncs: list[Future[None]] = []
    try:
        jobs: list[tuple[int, FileWrite, int]] = []
        parents: set[Path] = set()
        fallback_mode: int | None = None
        for i, w in enumerate(writes):
            if w.data is None:
                continue
            parent = w.path.parent
            if parent not in parents:
                parents.add(parent)
                created_dirs.extend(_make_parents(parent))
            mode = w.mode if w.mode is not None else current_mode(w.path)
            if mode is None:
                if fallback_mode is None:
                    fallback_mode = default_mode()
                mode = fallback_mode
            jobs.append((i, w, mode))
        order = [i for i, w in enumerate(writes) if w.data is not None] + [
            i for i, w in enumerate(writes) if w.data is None
        ]
        if len(writes) >= _POOL_MIN_FILES:
            pool = _shared_pool()
        _write_temps(jobs, temps, pool)
        for i in order:
            w = writes[i]
            try:
                if w.data is None:
                    w.path.unlink()
                else:
                    _replace(temps[i], w.path)
                    del temps[i]
            except OSError as exc:
                restored = _roll_back(done) if rollback else "no rollback attempted"
                raise AtomicWriteError(
                    f"writing {w.path} failed ({exc.strerror or exc}); {restored}"
                ) from exc
            done.append(w)
        # Each directory once, after every rename (an fsync forces a journal commit, and a
        # rename issued while one is being prepared would wait for it); a directory we created
        # is made durable by fsyncing its parent.
        directories = dict.fromkeys([writes[i].path.parent for i in order])
        directories.update(dict.fromkeys(d.parent for d in created_dirs))
        if pool is None:
            for directory in directories:
                _fsync_dir(directory)
        else:
            syncs.extend(pool.submit(_fsync_dir, directory) for directory in directories)
        if verify is not None:
            verify()
    except BaseException:
        for directory in reversed(created_dirs):
            try:
                directory.rmdir()
            except OSError:
                pass  # not empty (the files stayed, or someone else wrote there): keep it
        raise
    finally:
        for fut in syncs:
            fut.result()  # _fsync_dir never raises; this only waits
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)


def _make_parents(directory: Path) -> list[Path]:
    missing: list[Path] = []
    d = directory
    while not d.exists():
        missing.append(d)
        d = d.parent
    for m in reversed(missing):
        m.mkdir()
    return list(reversed(missing))


def _roll_back(done: Sequence[FileWrite]) -> str:
    failed: list[str] = []
    for w in reversed(done):
        try:
            if w.old is None:
                w.path.unlink(missing_ok=True)
            else:
                write_atomic(w.path, w.old, w.old_mode)
        except OSError as exc:
            failed.append(f"{w.path} ({exc.strerror or exc})")
    if failed:
        return "could NOT restore: " + ", ".join(failed) + " — check these files by hand"
    if done:
        return f"the {len(done)} file(s) already written were restored; nothing changed on disk"
    return "nothing changed on disk"
