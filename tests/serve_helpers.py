"""Start `frontier serve` as a process and stop it; shared by the serve tests.

Every wait is bounded and polls for a state (a printed line, a listening port), never a
fixed sleep; only the processes started here are signalled."""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

URL = re.compile(r"Frontier in a browser: (http://\S+?)/?$")


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str
    port: int
    lines: list[str] = field(default_factory=list)
    _queue: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def wait_for_line(self, pattern: str, timeout: float = 10.0) -> str:
        """The first line of output (from now on, or already seen) matching ``pattern``."""
        found = re.compile(pattern)
        for line in self.lines:
            if found.search(line):
                return line
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            if found.search(line):
                return line
        raise AssertionError(f"no line matching {pattern!r}; output so far:\n{self.output}")

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def descendants(self) -> list[int]:
        """The server's live child processes (textual-serve's shells and their frontiers)."""
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(entry))
        found, todo = [], [self.process.pid]
        while todo:
            for child in children.get(todo.pop(), []):
                found.append(child)
                todo.append(child)
        return found


def _pump(process: subprocess.Popen[str], served: Served) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        served.lines.append(line)
        served._queue.put(line)
    served._queue.put(None)


def wait_listening(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"nothing listens on port {port} after {timeout} s") from None
            time.sleep(0.05)


@contextmanager
def serving(args: Sequence[str] = (), *, timeout: float = 20.0) -> Iterator[Served]:
    """``frontier serve --port 0 ARGS`` until the block ends, then Ctrl+C (SIGINT to its
    process group, as a terminal sends it) and a bounded wait; killed if it hangs."""
    process = subprocess.Popen(
        [sys.executable, "-m", "frontier.app.cli", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # its own group, so the signal reaches only what it started
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    served = Served(process=process, url="", port=0)
    threading.Thread(target=_pump, args=(process, served), daemon=True).start()
    try:
        line = served.wait_for_line(URL.pattern, timeout=timeout)
        match = URL.search(line.strip())
        assert match is not None
        served.url = match.group(1)
        served.port = int(served.url.rsplit(":", 1)[1])
        wait_listening(served.port, timeout=timeout)
        yield served
    finally:
        stop(served)


def stop(served: Served, timeout: float = 20.0) -> None:
    process = served.process
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)
            raise AssertionError(
                f"frontier serve did not stop within {timeout} s of Ctrl+C:\n{served.output}"
            ) from None
