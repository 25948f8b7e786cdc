"""A short helper program's output, read up to a size and a time.

At a shell call's confirmation the loop asks ``sed`` (``tools/sed_via_shell.py``) and
``git`` (``tools/restore_via_shell.py``) what a call would write; both read the
workspace, which is untrusted input: a script that loops, a blob of gigabytes, an edit
that multiplies every line. :func:`run_bounded` reads at most ``limit`` bytes of output
for at most ``seconds`` and then stops the program, so neither the memory nor the wait is
the input's to choose.
"""

from __future__ import annotations

import os
import select
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence


def run_bounded(
    argv: Sequence[str],
    *,
    limit: int,
    seconds: float,
    given: bytes = b"",
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[int, bytes] | None:
    """``(exit status, stdout)`` of ``argv`` run with ``given`` on its stdin (from a
    temporary file, so no write can block on a full pipe) and stderr discarded; ``None``
    when it cannot start, writes more than ``limit`` bytes or runs past ``seconds``."""
    deadline = time.monotonic() + seconds
    with tempfile.TemporaryFile() as source:
        source.write(given)
        source.seek(0)
        try:
            proc = subprocess.Popen(
                list(argv),
                stdin=source,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=cwd,
                env=None if env is None else dict(env),
            )
        except OSError:
            return None
        assert proc.stdout is not None
        out = bytearray()
        try:
            fd = proc.stdout.fileno()
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    return None
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                out += chunk
                if len(out) > limit:
                    return None
            status = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            return None
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
    return status, bytes(out)


class Deadline:
    """The time left of a budget shared by several runs (a call's routing on the event
    loop: the sum of its runs is what a person waits, not each one)."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())
