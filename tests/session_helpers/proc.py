"""A driver process (``driver.py``) under a test's control: bounded waits, killed by group.

Shared by the crash tests: each driver runs in its own process group, which the test
kills — only processes the test started.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

DRIVER = Path(__file__).parent / "driver.py"
WAIT_S = 30.0


class Driver:
    """A driver process with a bounded line reader."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(DRIVER), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, prefix: str) -> str:
        """The next line starting with ``prefix`` (skipping others), within WAIT_S."""
        while True:
            try:
                line = self.lines.get(timeout=WAIT_S)
            except queue.Empty:
                self.kill()
                pytest.fail(f"driver printed no {prefix!r} within {WAIT_S}s")
            if line is None:
                err = self.proc.stderr.read() if self.proc.stderr else ""
                pytest.fail(f"driver exited before {prefix!r}: {err}")
            if line.startswith(prefix):
                return line

    def kill(self) -> None:
        """SIGKILL the driver's process group (only what this test started)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=WAIT_S)
        assert self.proc.returncode in (-signal.SIGKILL, 0)


def drivers() -> Iterator[list[Driver]]:
    """The drivers a test started, killed (by group) when it ends: use as a fixture,
    ``drivers = pytest.fixture(proc.drivers)``."""
    started: list[Driver] = []
    yield started
    for d in started:
        if d.proc.poll() is None:
            os.killpg(d.proc.pid, signal.SIGKILL)
            d.proc.wait(timeout=WAIT_S)
