"""Driving a real program on a pseudo-terminal: read its screen until a marker, and quit it
with ctrl+q. Waits are for states, bounded by a deadline only against a hang."""

from __future__ import annotations

import os
import pty
import select
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress


def read_until(fd: int, marker: bytes, deadline: float) -> bytes:
    """What the program writes until ``marker`` (or the terminal's end); fails naming the
    marker and the last of the screen at ``deadline`` (a ``time.monotonic()``)."""
    seen = b""
    while marker not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"never saw {marker!r}; the screen said {seen[-2000:]!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    return seen


def quit_with_ctrl_q(fd: int, deadline: float) -> bytes:
    """Press ctrl+q until the program has left the alternate screen; what it wrote
    meanwhile. A press before the program put the terminal in raw mode is the line
    discipline's (XON), not the program's: hence pressed again."""
    left = b""
    while b"\x1b[?1049l" not in left:
        assert time.monotonic() < deadline, f"ctrl+q never quit; the screen said {left[-500:]!r}"
        os.write(fd, b"\x11")
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                left += os.read(fd, 65536)
            except OSError:  # the child closed the terminal: it has quit
                break
    return left


@contextmanager
def on_a_pty(argv: list[str], env: dict[str, str]) -> Iterator[tuple[int, int]]:
    """``argv`` run with a new pseudo-terminal as its controlling terminal: yields its pid
    and the terminal's fd; killed (if still running) and reaped after."""
    pid, fd = pty.fork()
    if pid == 0:  # the child
        os.execvpe(argv[0], argv, env)
    try:
        yield pid, fd
    finally:
        with suppress(ProcessLookupError, ChildProcessError):  # it had ended, been reaped
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        with suppress(OSError):  # a test that hung the terminal up has closed it
            os.close(fd)
