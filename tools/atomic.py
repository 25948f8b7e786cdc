"""Crash-safe multi-file writes: temp file + fsync + ``os.replace`` + directory fsync.

Every new content is first written and fsynced to a temp file next to its
target; only when all temps exist are they renamed over their targets. A
rename is atomic, so each file is always either its old or its new version,
never torn. If a rename or delete fails part-way, the files already changed
are put back from their old bytes (best effort, reported if it fails) and no
temp file is left behind in any case.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

TEMP_SUFFIX = ".frontier-tmp"


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
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_temp(path: Path, data: bytes, mode: int) -> Path:
    for _ in range(100):
        name = path.parent / f".{path.name}.{os.urandom(6).hex()}{TEMP_SUFFIX}"
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(f"could not create a temp file next to {path}")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
    except BaseException:
        name.unlink(missing_ok=True)
        raise
    return name


def _write_temps(jobs: Sequence[tuple[int, FileWrite, int]], temps: dict[int, Path]) -> None:
    """Write and fsync the temps; in threads when there are several (fsync releases the GIL,
    and the filesystem can commit them together)."""
    if len(jobs) <= 2:
        for i, w, mode in jobs:
            temps[i] = _write_temp(w.path, w.data or b"", mode)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(8, len(jobs))) as pool:
        futures = {i: pool.submit(_write_temp, w.path, w.data or b"", mode) for i, w, mode in jobs}
    errors: list[BaseException] = []
    for i, fut in futures.items():
        exc = fut.exception()
        if exc is None:
            temps[i] = fut.result()
        else:
            errors.append(exc)
    if errors:
        raise errors[0]


def write_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """One file, atomically (used for single-file edits and rollbacks)."""
    commit_files([FileWrite(path=path, data=data, old=None, mode=mode)], rollback=False)


def commit_files(writes: Sequence[FileWrite], *, rollback: bool = True) -> None:
    """Write/delete every file or (on failure) restore the ones already changed.

    Raises ``AtomicWriteError`` naming the failing file; temps are always removed.
    """
    temps: dict[int, Path] = {}
    created_dirs: list[Path] = []
    done: list[FileWrite] = []
    try:
        jobs: list[tuple[int, FileWrite, int]] = []
        for i, w in enumerate(writes):
            if w.data is None:
                continue
            created_dirs.extend(_make_parents(w.path.parent))
            mode = w.mode if w.mode is not None else current_mode(w.path)
            jobs.append((i, w, default_mode() if mode is None else mode))
        _write_temps(jobs, temps)
        order = [i for i, w in enumerate(writes) if w.data is not None] + [
            i for i, w in enumerate(writes) if w.data is None
        ]
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
        for directory in {w.path.parent for w in writes}:
            _fsync_dir(directory)
    except BaseException:
        for directory in reversed(created_dirs):
            try:
                directory.rmdir()
            except OSError:
                pass
        raise
    finally:
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
