"""``frontier apply-patch`` killed between its renames (issue 21, item 7), as a person would.

A real ``frontier apply-patch`` process, stopped at a known instant without sleeps: the
test puts a ``sitecustomize`` on its ``PYTHONPATH`` that replaces the writer's crash seam
(``atomic._crash_point``, called before every step that changes the disk), prints
``PAUSED after N renames`` on stderr before the rename it is asked to stop at, and waits.
The test then SIGKILLs the process group it started (``start_new_session``), looks at the
disk, and runs ``frontier apply-patch`` again, this time with nothing patched in.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from frontier.tools import atomic, file_journal

pytestmark = pytest.mark.slow

WAIT_S = 30.0
OLD = {name: f"one {name}\ntwo {name}\nthree {name}\n".encode() for name in ("a", "b", "c")}
NEW = {name: data.replace(b"two", b"TWO") for name, data in OLD.items()}
PATCH = "".join(
    f"--- a/{n}.txt\n+++ b/{n}.txt\n@@ -1,3 +1,3 @@\n one {n}\n-two {n}\n+TWO {n}\n three {n}\n"
    for n in OLD
)
SITECUSTOMIZE = """\
import os, sys, time
from frontier.tools import atomic

_stop = int(os.environ["FRONTIER_TEST_STOP_AFTER_RENAMES"])
_renames = 0


def _point(step):
    global _renames
    if step != "rename":
        return
    if _renames == _stop:
        sys.stderr.write(f"PAUSED after {_renames} renames\\n")
        sys.stderr.flush()
        time.sleep(600)  # the test kills it; bounded all the same
    _renames += 1


atomic._crash_point = _point
"""


def cli(root: Path, patch: str = PATCH, *extra: str, stop_after: int | None = None) -> Paused:
    """``frontier apply-patch --root ROOT`` in its own process group, the patch on stdin."""
    env = dict(os.environ)  # FRONTIER_DATA_DIR: the test's own (conftest)
    if stop_after is not None:
        hook = root.parent / "hook"
        hook.mkdir(exist_ok=True)
        (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hook), env.get("PYTHONPATH")]))
        env["FRONTIER_TEST_STOP_AFTER_RENAMES"] = str(stop_after)
    proc = subprocess.Popen(
        [sys.executable, "-m", "frontier.app.cli", "apply-patch", "--root", str(root), *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    return Paused(proc, patch)


class Paused:
    """A CLI process with a bounded reader of its stderr; killed by group on ``kill``."""

    def __init__(self, proc: subprocess.Popen[bytes], patch: str) -> None:
        self.proc = proc
        self.lines: queue.Queue[str | None] = queue.Queue()
        assert proc.stdin is not None
        proc.stdin.write(patch.encode())
        proc.stdin.close()  # the CLI reads the whole patch before it writes anything
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line.decode().rstrip("\n"))
        self.lines.put(None)

    def expect(self, prefix: str) -> str:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.kill()
                pytest.fail(f"frontier apply-patch printed no {prefix!r} within {WAIT_S}s")
            if line is None:
                pytest.fail(f"frontier apply-patch exited ({self.proc.wait()}) before {prefix!r}")
            if line.startswith(prefix):
                return line

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=WAIT_S)

    def finish(self) -> tuple[int, str, str]:
        """Wait for exit: ``(code, stdout, stderr)``."""
        try:
            code = self.proc.wait(timeout=WAIT_S * 2)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail("frontier apply-patch did not finish")
        assert self.proc.stdout is not None
        out = self.proc.stdout.read().decode()
        err: list[str] = []
        while (line := self.lines.get(timeout=WAIT_S)) is not None:
            err.append(line)
        return code, out, "\n".join(err)


@pytest.fixture
def started() -> Iterator[list[Paused]]:
    """Every CLI a test started, killed (by group) if it still runs when the test ends."""
    runs: list[Paused] = []
    yield runs
    for run in runs:
        run.kill()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for name, data in OLD.items():
        (root / f"{name}.txt").write_bytes(data)
    return root


def contents(ws: Path) -> dict[str, str]:
    """``a`` → ``new`` / ``old`` for each target."""
    out = {}
    for name in OLD:
        data = (ws / f"{name}.txt").read_bytes()
        assert data in (OLD[name], NEW[name]), f"{name}.txt is torn"
        out[name] = "new" if data == NEW[name] else "old"
    return out


def leftovers(ws: Path) -> list[str]:
    return sorted(p.name for p in ws.iterdir() if p.name not in {f"{n}.txt" for n in OLD})


def journals() -> Path:
    return Path(os.environ["FRONTIER_DATA_DIR"]) / file_journal.JOURNALS


def kill_after(ws: Path, renames: int, started: list[Paused]) -> None:
    run = cli(ws, stop_after=renames)
    started.append(run)
    assert run.expect("PAUSED") == f"PAUSED after {renames} renames"
    run.kill()


@pytest.mark.parametrize("renames", [0, 1, 2], ids=lambda n: f"after-{n}-of-3-renames")
def test_a_rerun_finishes_the_write_a_kill_interrupted(
    ws: Path, started: list[Paused], renames: int
) -> None:
    kill_after(ws, renames, started)

    # What the kill leaves: the first files renamed, each temp not yet renamed, every
    # pre-image; and the journal, committed before the first rename, naming exactly those.
    assert list(contents(ws).values()) == ["new"] * renames + ["old"] * (3 - renames)
    left = leftovers(ws)
    assert len(left) == (3 - renames) + 3
    path = file_journal.journal_path(journals(), ws)
    doc = json.loads(path.read_bytes())
    assert doc["root"] == os.path.realpath(ws)
    named = {e[k] for e in doc["entries"] for k in ("temp", "pre_image")}
    assert set(left) <= named
    assert len([n for n in left if n.endswith(atomic.TEMP_SUFFIX)]) == 3 - renames

    code, out, err = cli(ws).finish()
    assert code == 0, err
    assert (
        f"an earlier run in {ws} was killed between its renames; finished its write from the "
        "journal (rolled forward): a.txt, b.txt, c.txt"
    ) in err
    assert (
        out == "already applied: every change is already in a.txt, b.txt, c.txt; nothing written\n"
    )
    assert contents(ws) == {"a": "new", "b": "new", "c": "new"}
    assert leftovers(ws) == []
    assert not path.exists()


def test_the_case_from_the_issue_five_temps_then_whole(ws: Path, started: list[Paused]) -> None:
    """Issue 21: killed after ``a.txt``'s rename the rerun used to refuse ("half applied")."""
    kill_after(ws, 1, started)
    assert contents(ws) == {"a": "new", "b": "old", "c": "old"}
    assert len(leftovers(ws)) == 5
    code, out, err = cli(ws).finish()
    assert code == 0 and "half applied" not in out + err, err
    assert contents(ws) == {"a": "new", "b": "new", "c": "new"}


def test_a_lost_temp_rolls_the_write_back_then_the_patch_applies(
    ws: Path, started: list[Paused]
) -> None:
    """A temp gone (a clean-up, another tool): the write cannot be finished, so it is undone
    from the pre-images; then this run applies its own patch whole."""
    kill_after(ws, 1, started)
    (temp,) = [n for n in leftovers(ws) if n.startswith(".c.txt.") and "tmp" in n]
    (ws / temp).unlink()
    code, out, err = cli(ws).finish()
    assert code == 0, err
    assert "undid its write from the journal (rolled back): a.txt, b.txt, c.txt" in err
    assert out.splitlines() == ["M a.txt (+1 −1)", "M b.txt (+1 −1)", "M c.txt (+1 −1)"]
    assert contents(ws) == {"a": "new", "b": "new", "c": "new"}
    assert leftovers(ws) == []


def test_a_different_patch_runs_after_the_interrupted_one_is_finished(
    ws: Path, started: list[Paused]
) -> None:
    kill_after(ws, 1, started)
    follow_up = "--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one b\n TWO b\n-three b\n+THREE b\n"
    code, out, err = cli(ws, follow_up).finish()
    assert code == 0, err
    assert "rolled forward" in err and out == "M b.txt (+1 −1)\n"
    assert (ws / "b.txt").read_bytes() == b"one b\nTWO b\nTHREE b\n"
    assert (ws / "a.txt").read_bytes() == NEW["a"] and (ws / "c.txt").read_bytes() == NEW["c"]
    assert leftovers(ws) == []


def test_a_dry_run_touches_nothing_and_says_a_journal_waits(
    ws: Path, started: list[Paused]
) -> None:
    kill_after(ws, 1, started)
    before = {p.name: p.read_bytes() for p in ws.iterdir()}
    code, _, err = cli(ws, PATCH, "--dry-run").finish()
    assert code == 1  # half applied, as the files are
    assert "a run without --dry-run finishes it first, which is why" in err
    assert "half applied" in err
    assert {p.name: p.read_bytes() for p in ws.iterdir()} == before
    assert file_journal.journal_path(journals(), ws).exists()


def test_a_crafted_cli_journal_is_moved_aside_and_touches_nothing(ws: Path, tmp_path: Path) -> None:
    """The data dir is as untrusted as a session store: the same checks, the same outcome."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    journals().mkdir(parents=True, exist_ok=True)
    path = file_journal.journal_path(journals(), ws)
    entries = [
        {
            "path": "a.txt",
            "dir": ".",
            "name": "a.txt",
            "temp": "../victim.txt",
            "pre_image": str(victim),
            "before": "0" * 64,
            "after": "1" * 64,
        }
    ]
    doc = {"version": 1, "root": os.path.realpath(ws), "entries": entries}
    path.write_text(json.dumps(doc))
    code, _, err = cli(ws).finish()
    assert code == 0, err
    assert victim.read_text() == "precious\n"
    assert f"the intent journal {path} is not one Frontier writes (entry 1 of 1: temp " in err
    assert "nothing was touched, and it was moved to" in err
    assert not path.exists()
    (aside,) = journals().glob("*.invalid-*.json")
    assert json.loads(aside.read_text()) == doc  # kept for a person to read
    assert contents(ws) == {"a": "new", "b": "new", "c": "new"}  # then the patch applied


def test_a_journal_of_another_folder_is_refused(ws: Path, tmp_path: Path) -> None:
    """Copied from elsewhere (or a key collision): the root it names must be this one."""
    other = tmp_path / "other"
    other.mkdir()
    journals().mkdir(parents=True, exist_ok=True)
    path = file_journal.journal_path(journals(), ws)
    path.write_text(json.dumps({"version": 1, "root": str(other), "entries": []}))
    code, _, err = cli(ws).finish()
    assert code == 0, err
    assert "it names another folder" in err


def test_a_second_run_on_the_same_root_waits_for_the_first(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lock: a journal found open under it belongs to a run that died, never to one
    still writing (which a second run would otherwise "recover" under its feet)."""
    monkeypatch.setattr(file_journal, "LOCK_WAIT_S", 0.2)
    busy = pytest.raises(file_journal.JournalBusy, match="another frontier apply-patch")
    same_folder = ws / "sub" / ".."  # spelt otherwise: one real path, one lock
    (ws / "sub").mkdir()
    with (
        file_journal.root_lock(journals(), ws),
        busy,
        file_journal.root_lock(journals(), same_folder),
    ):
        pass
    with file_journal.root_lock(journals(), ws):  # released
        pass


@pytest.mark.parametrize("env", ["set", "unset"])
def test_the_journals_live_in_the_data_dir_the_config_names(
    monkeypatch: pytest.MonkeyPatch, env: str
) -> None:
    """The command finds the data dir without importing ``app.config`` (start-up time):
    the two must agree, with ``FRONTIER_DATA_DIR`` and without."""
    from frontier.app.commands import apply_patch
    from frontier.app.config import data_dir

    if env == "unset":
        monkeypatch.delenv("FRONTIER_DATA_DIR")
    assert apply_patch._journals() == data_dir() / file_journal.JOURNALS


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_a_journal_that_is_no_regular_file_is_refused_unread(
    ws: Path, tmp_path: Path, kind: str
) -> None:
    """Never opened through a link, never waited on (a FIFO would block the read)."""
    journals().mkdir(parents=True, exist_ok=True)
    path = file_journal.journal_path(journals(), ws)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        (tmp_path / "elsewhere.json").write_text("{}")
        path.symlink_to(tmp_path / "elsewhere.json")
    done = file_journal.finish_open(journals(), ws)
    assert done is not None and done.outcome == "invalid"
    assert done.problem == "it is not a regular file"
    assert not path.exists() and not path.is_symlink()
    assert (tmp_path / "elsewhere.json").exists() or kind == "fifo"
    assert contents(ws) == {"a": "old", "b": "old", "c": "old"}


def test_a_cut_short_cli_journal_is_moved_aside_with_a_reason(ws: Path) -> None:
    """A journal cut off mid-write (a full disk, an editor) is not JSON. The command reads
    it without the ``json`` package, and Python 3.11's C scanner then failed with
    ``SystemError`` ("returned NULL without setting an exception"): a traceback, and the
    patch not applied."""
    journals().mkdir(parents=True, exist_ok=True)
    path = file_journal.journal_path(journals(), ws)
    path.write_text('{"version": 1, "root": "' + os.path.realpath(ws) + '", "entries": [{"pa')
    code, _, err = cli(ws).finish()
    assert code == 0, err
    assert f"the intent journal {path} is not one Frontier writes (it is not JSON (" in err
    assert "SystemError" not in err and not path.exists()
    assert contents(ws) == {"a": "new", "b": "new", "c": "new"}  # then the patch applied
