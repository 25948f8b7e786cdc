"""Real crashes: SIGKILL a process mid-tool, reopen the store, reconcile, check the files.

The driver (tests/session_helpers/driver.py) runs the call through the real
tool boundary (``frontier.tools``: shell tool, apply_patch engine, atomic
multi-file writer) with the real store behind ``SessionPersistence``; it
prints a line at each sync point and waits on stdin where the test wants to
kill it, so every kill lands at a known instant without sleeps. Each driver
runs in its own process group, which the test kills (plus the shell tool's own
process group, which the driver reports) — only processes the test started.
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

from frontier.app.session.store import SessionStore

sys.path.insert(0, str(Path(__file__).parent))
from session_helpers.driver import PATCH_FILES, patch_contents

DRIVER = Path(__file__).parent / "session_helpers" / "driver.py"
WAIT_S = 30.0

pytestmark = pytest.mark.slow


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


@pytest.fixture
def drivers() -> Iterator[list[Driver]]:
    started: list[Driver] = []
    yield started
    for d in started:
        if d.proc.poll() is None:
            os.killpg(d.proc.pid, signal.SIGKILL)
            d.proc.wait(timeout=WAIT_S)


def test_sigkill_while_shell_tool_runs_is_interrupted(tmp_path: Path, drivers) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    db = tmp_path / "sessions.db"
    d = Driver("shell", str(db), str(ws))
    drivers.append(d)
    sid = d.expect("PERSISTED").split()[1]
    d.expect("STARTED")
    pid = int(d.expect("RUNNING").split()[1])
    d.kill()
    # The shell tool runs its command in its own process group: kill that too (we started it).
    os.killpg(pid, signal.SIGKILL)

    assert (ws / "probe.txt").read_text() == "started\n"  # the command really ran, once
    with SessionStore.open(db) as store:
        (call,) = store.unresolved_calls(sid)
        assert call.name == "shell" and call.started is not None
        (result,) = store.recover(sid)
        assert result.kind == "interrupted"
        assert "outcome unknown: check before retrying" in result.output
        assert store.unresolved_calls(sid) == []
    assert (ws / "probe.txt").read_text() == "started\n"  # recovery did not re-run it


def test_sigkill_before_shell_started_is_not_executed(tmp_path: Path, drivers) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    db = tmp_path / "sessions.db"
    d = Driver("shell", str(db), str(ws), "--pause-before-start")
    drivers.append(d)
    sid = d.expect("PERSISTED").split()[1]
    d.expect("PAUSED before start")
    d.kill()

    assert not (ws / "probe.txt").exists()
    with SessionStore.open(db) as store:
        (result,) = store.recover(sid)
        assert result.kind == "not_executed"


EXPECTED = {0: "applied", 1: "applied", 2: "applied", 3: "applied"}
"""Killed with k of 3 files renamed: the intent journal was committed before the first rename,
so recovery finishes the write (every temp is durable): the patch is wholly applied."""


@pytest.mark.parametrize(
    "stop_at", sorted(EXPECTED), ids=[f"after-{n}-of-3-files" for n in EXPECTED]
)
def test_sigkill_between_the_renames_of_a_patch_is_finished_from_the_journal(
    tmp_path: Path, drivers, stop_at: int
) -> None:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    for name in PATCH_FILES:
        (ws / name).write_bytes(patch_contents(name)[0])
    db = tmp_path / "sessions.db"
    d = Driver("patch", str(db), str(ws), "--stop-at", str(stop_at))
    drivers.append(d)
    sid = d.expect("PERSISTED").split()[1]
    d.expect("STARTED")
    d.expect("PAUSED")
    d.kill()

    # No torn file: each target is exactly its old or its new version.
    states = []
    for name in PATCH_FILES:
        pre, post = patch_contents(name)
        data = (ws / name).read_bytes()
        assert data in (pre, post), f"{name} is torn ({len(data)} bytes)"
        states.append("post" if data == post else "pre")
    assert states.count("post") == stop_at

    with SessionStore.open(db) as store:
        (result,) = store.recover(sid)
        assert result.kind == EXPECTED[stop_at]
        if stop_at < len(PATCH_FILES):
            assert "completed from the journal" in result.output
            assert result.meta["journal"] == "rolled forward"
        (call,) = store.calls(sid)
        assert call.result == result
    # Every target has the approved content; no temp or pre-image file is left behind.
    files = {p.relative_to(ws).as_posix() for p in ws.rglob("*") if p.is_file()}
    assert sorted(files - set(PATCH_FILES)) == []
    for name in PATCH_FILES:
        assert (ws / name).read_bytes() == patch_contents(name)[1]
