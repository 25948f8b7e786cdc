"""One running Frontier per session: an advisory lock file per open session.

Two processes driving one conversation would interleave its messages, and the
second one's recovery would reconcile the first one's *running* calls as
interrupted. So a process holds ``<data dir>/locks/<session>.lock`` (``flock``,
released by the kernel however the process ends) while the session is open, and
a session whose stored state is ``active`` but whose lock nobody holds was left by
a process that died: ``frontier sessions`` shows it as ``interrupted``.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

LOCK_DIR = "locks"
BUSY_TRIES = 5


class SessionBusy(RuntimeError):
    """Another process has the session open."""


class SessionLock:
    """Held from :func:`acquire` until :meth:`release` (or the process ends)."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


def lock_path(data_dir: Path, session_id: str) -> Path:
    return data_dir / LOCK_DIR / f"{session_id}.lock"


def acquire(data_dir: Path, session_id: str) -> SessionLock:
    """Lock ``session_id`` for this process or raise :class:`SessionBusy` naming the holder."""
    path = lock_path(data_dir, session_id)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        for attempt in range(BUSY_TRIES):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt + 1 == BUSY_TRIES:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
                    raise SessionBusy(
                        f"session {session_id} is open in another Frontier (pid {holder}); "
                        "close it there first, or start a new session"
                    ) from None
                time.sleep(0.02)  # `frontier sessions` may be peeking (is_held) right now
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return SessionLock(fd, path)


def is_held(data_dir: Path, session_id: str) -> bool:
    """Does some process (this one included) have the session open right now?"""
    try:
        fd = os.open(lock_path(data_dir, session_id), os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
