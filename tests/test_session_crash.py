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

import contextlib
import os
import signal
import sys
from pathlib import Path

import pytest

from frontier.app.session.store import SessionStore
from frontier.tools.workspace_files import BeneathFiles

sys.path.insert(0, str(Path(__file__).parent))
from session_helpers import proc
from session_helpers.driver import PATCH_FILES, patch_contents
from session_helpers.proc import Driver

drivers = pytest.fixture(proc.drivers)

pytestmark = pytest.mark.slow


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
    # Frontier's reaper may already have stopped it when the driver died.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)

    assert (ws / "probe.txt").read_text() == "started\n"  # the command really ran, once
    with SessionStore.open(db) as store:
        (call,) = store.unresolved_calls(sid)
        assert call.name == "shell" and call.started is not None
        (result,) = store.recover(sid, files=BeneathFiles)
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
        (result,) = store.recover(sid, files=BeneathFiles)
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
        (result,) = store.recover(sid, files=BeneathFiles)
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


def _git(ws: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    import subprocess

    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=ws,
        env=env,
        check=True,
        capture_output=True,
    )


@pytest.mark.parametrize("in_git", [False, True], ids=["named", "git"])
def test_a_command_killed_with_frontier_keeps_what_it_changed_recorded_and_undoable(
    tmp_path: Path, drivers, in_git: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL while a command that rewrites files runs (a formatter, a script): before it
    ran, the store kept what its files were (tools/command_changes.py ``Watch.held``), so
    recovery records what it had changed by then and `frontier undo` puts it back — in a
    git work tree also a file the line never names (the index says what it was)."""
    import shutil

    if in_git and shutil.which("git") is None:
        pytest.skip("git is not installed")
    from frontier.app.cli import main as cli

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("x = 1\n")
    (ws / "new.py").write_text("x = 2\n")
    (ws / "keep.py").write_text("kept\n")
    if in_git:  # the script names no file of the repository: git lists what it changed
        (ws / "fmt.py").write_text(
            "import pathlib\nfor p in sorted(pathlib.Path('.').glob('[ak]*.py')):\n"
            "    p.write_text(p.read_text().upper())\n"
        )
        _git(ws, "init", "-q", ".")
        _git(ws, "add", "-A")
        _git(ws, "commit", "-qm", "init")
        command = "echo $$ > pid.txt; python3 fmt.py; echo started >> probe.txt; exec sleep 30"
    else:
        command = "echo $$ > pid.txt; cp new.py a.py; echo started >> probe.txt; exec sleep 30"
    with SessionStore.open() as store:
        db = store.db.path
    d = Driver("shell", str(db), str(ws), "--command", command)
    drivers.append(d)
    sid = d.expect("PERSISTED").split()[1]
    pid = int(d.expect("RUNNING").split()[1])
    d.kill()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)

    with SessionStore.open(db) as store:
        (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "interrupted"
    assert "outcome unknown: check before retrying" in result.output
    changed = (
        ["a.py", "keep.py", "pid.txt", "probe.txt"] if in_git else ["a.py", "pid.txt", "probe.txt"]
    )
    assert result.meta["files"] == changed
    assert "\n[the command changed " in result.output and "M a.py (+1 −1)" in result.output
    from frontier.tools.patch_summary import interrupted_changes, output_first

    said = f" · it had changed {', '.join(changed)}: an undo puts them back"
    assert interrupted_changes(result.meta) == said  # the resume's "reconciled …" line
    assert output_first(result.meta)  # its row says it was interrupted, then the files
    with SessionStore.open(db) as store:  # its held files' row is closed with the result
        assert not store.db.read("SELECT 1 FROM intents WHERE state = 'holding'")

    assert cli(["undo", sid, "--yes"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("undid c1 shell: restored a.py"), out
    assert (ws / "a.py").read_text() == "x = 1\n"
    assert (ws / "keep.py").read_text() == "kept\n"
    assert not (ws / "probe.txt").exists() and not (ws / "pid.txt").exists()
