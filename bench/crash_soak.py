"""Crash soak: SIGKILL headless demo runs at random instants, recover, resume, check the files.

Usage::

    .venv/bin/python bench/crash_soak.py [--runs 80] [--seed 1] [--rate 0]
        [--resume-cli] [--strict] [--keep] [--between-renames]

One un-killed reference run measures the demo's duration T and its final
workspace. Then each of N runs (``frontier demo --headless --json --protocol
ctl-heredoc --approval auto --rate R``, its own ``FRONTIER_DATA_DIR`` and
``TMPDIR``) is SIGKILLed at an instant drawn uniformly from [0, T) by a seeded
RNG. The store is reopened, the run's session recovered (``store.recover``)
and the workspace checked; then the session is resumed headless to the end
(``run_headless(..., session_id=ID, prompts=["continue"])`` in a child
process at the same rate, or the real ``frontier resume ID --headless`` CLI
with ``--resume-cli``, whose demo rate is fixed at 60 tokens/s) and checked
again. Must be 0 (exit 1 otherwise):

* lost calls — a side effect visible with no call row: a changed file no call
  targets, a ``tool_started`` line without a started call row, the shell test
  run's bytecode cache without a started ``shell`` row;
* duplicated side effects — a mutation step executed twice, or a file in a
  state the demo never produces (README.md with the line twice);
* torn files — content that is neither the pre- nor the post-image of any
  recorded call (nor the file's original);
* unreconciled calls — calls without a result after recovery (and after resume);
* misreconciled calls — a recovered verdict the files contradict;
* resume failures — a resumed run that does not end in the demo's final state
  for a reason other than the demo script's own step counting (reported apart).

* half-applied patches — after recovery, the demo's two-file patch is on disk for
  one file and not the other.

``--between-renames``: instead of a random instant, run *i* dies by SIGKILL at
step ``i mod 8`` of the demo's two-file patch write (each temp, each pre-image,
each rename, each pre-image removal): the demo runs in a child of this script
whose ``tools.atomic`` crash seam kills the process there, so every step of a
multi-file write is hit, and the intent journal must make recovery finish or
undo the patch.

The kill is delivered as SIGSTOP to the run's process group, then SIGKILL: the
freeze lets the bench list the shell tool's own process group (a child in a
new session) without racing a fork, and nothing runs in Frontier after the
STOP, so the kill instant is the STOP instant. Only processes this script
started (and their descendants) are signalled.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import queue
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROTOCOL = "ctl-heredoc"
TEMP_SUFFIX = ".frontier-tmp"
OLD_SUFFIX = ".frontier-old"
"""Pre-images a multi-file write keeps (hard links) until it is done."""
EXECUTED = ("ok", "applied", "diverged")
"""Result kinds that mean a mutation's change (or part of it) reached the disk."""
MUTATION_FILES = {
    "patch": ("greet/cli.py", "tests/test_cli.py"),
    "notes": ("NOTES.md",),
    "readme": ("README.md",),
}
RUN_TIMEOUT_S = 60.0
RESUME_TIMEOUT_S = 120.0
Files = dict[str, bytes]


# --------------------------------------------------------------------------- demo states


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class DemoStates:
    """The demo workspace before the task and after the whole script (every file's 2 states)."""

    original: Files
    final: Files

    @classmethod
    def compute(cls) -> DemoStates:
        """Derive both states from the bundled project and the script itself."""
        from frontier.app.model.demo_script import NOTES, README_NEW, README_OLD, SHOUT_PATCH
        from frontier.app.model.wires.demo import demo_project_dir
        from frontier.tools.patch_engine import plan_patch

        root = demo_project_dir()
        original = snapshot(root)[0]
        final = dict(original)
        for change in plan_patch(root, SHOUT_PATCH).changes:
            assert change.new is not None
            final[change.path] = change.new
        final["NOTES.md"] = NOTES.encode()
        readme = original["README.md"].decode()
        final["README.md"] = readme.replace(README_OLD, README_NEW, 1).encode()
        return cls(original, final)

    def known(self, path: str) -> set[str | None]:
        return {sha(self.original.get(path)), sha(self.final.get(path))}


def snapshot(root: Path) -> tuple[Files, list[str]]:
    """(files by relative path, leftover atomic-write temps and pre-images); bytecode caches
    skipped."""
    files: Files = {}
    temps: list[str] = []
    if not root.is_dir():
        return files, temps
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if "__pycache__" in p.parts or not p.is_file():
            continue
        if p.name.endswith((TEMP_SUFFIX, OLD_SUFFIX)):
            temps.append(rel)
        else:
            files[rel] = p.read_bytes()
    return files, temps


def step_of(name: str, args: Mapping[str, Any]) -> str:
    """Which demo step a call row belongs to (by tool and arguments)."""
    from frontier.app.model.demo_script import TEST_COMMAND, TRY_COMMAND

    if name == "read":
        return "read"
    if name == "apply_patch":
        return "patch"
    if name == "shell":
        command = args.get("command")
        return "tests" if command == TEST_COMMAND else "try" if command == TRY_COMMAND else "shell?"
    if name == "write" and args.get("path") == "NOTES.md":
        return "notes"
    if name == "replace" and args.get("path") == "README.md":
        return "readme"
    return f"{name}?"


# --------------------------------------------------------------------------- processes


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (from /proc; empty where /proc is missing)."""
    if not os.path.isdir("/proc"):
        return []
    kids = _children_map()
    out: list[int] = []
    todo = list(kids.get(pid, ()))
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, ()))
    return out


class DemoProcess:
    """A child process (own process group) whose stdout lines are collected as they arrive."""

    def __init__(self, argv: list[str], env: Mapping[str, str], cwd: Path) -> None:
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stdout: list[bytes] = []
        self.stderr = b""
        self._out = threading.Thread(target=self._pump, daemon=True)
        self._err = threading.Thread(target=self._pump_err, daemon=True)
        self._out.start()
        self._err.start()
        self.killed_at: float | None = None

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.stdout.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def _pump_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def wait_event(self, match: Callable[[dict[str, Any]], bool], timeout: float) -> dict:
        """Block until a JSON event line satisfying ``match`` arrives (bounded)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching event within {timeout:.0f}s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise EOFError(f"the run exited before the event: {self.stderr[-500:]!r}")
            event = _parse(line)
            if event is not None and match(event):
                return event

    def wait(self, timeout: float) -> bool:
        """True if the process exited within ``timeout`` seconds."""
        try:
            self.proc.wait(timeout=max(timeout, 0.0))
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill(self) -> None:
        """Freeze the run, SIGKILL it and every process it spawned (the shell tool's groups)."""
        pid = self.proc.pid
        if self.proc.poll() is None:
            try:
                os.killpg(pid, signal.SIGSTOP)
            except ProcessLookupError:
                pass
            self.killed_at = time.monotonic() - self.t0
            spawned = descendants(pid)
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            for child in spawned:
                _kill_group_of(child)
            _wait_gone(spawned, 10.0)
        self.finish()

    def finish(self, timeout: float = 10.0) -> None:
        self.proc.wait(timeout=timeout)
        self._out.join(timeout)
        self._err.join(timeout)

    def events(self) -> list[dict[str, Any]]:
        return [e for e in map(_parse, self.stdout) if e is not None]


def _kill_group_of(pid: int) -> None:
    try:
        pgid = os.getpgid(pid)
    except ProcessLookupError:
        return
    try:
        if pgid == pid:  # a group leader the run spawned (the shell tool's new session)
            os.killpg(pgid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return


def _wait_gone(pids: Iterable[int], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    for pid in pids:
        while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
            try:
                with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as fh:
                    if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                        break  # dead, waiting for its new parent to reap it
            except OSError:
                break
            time.sleep(0.005)


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None  # a line cut by the kill, or not an event
    return event if isinstance(event, dict) and "type" in event else None


# --------------------------------------------------------------------------- one run


@dataclass
class RunDir:
    """One run's isolated data dir (the demo workspace lands there), TMPDIR and config dir."""

    root: Path
    pycache: Path

    def __post_init__(self) -> None:
        for sub in ("data", "tmp", "config"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    @property
    def db(self) -> Path:
        return self.root / "data" / "sessions.db"

    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("FRONTIER_", "OPENAI_")) and k != "PYTHONDONTWRITEBYTECODE"
        }
        env.update(
            FRONTIER_DATA_DIR=str(self.root / "data"),
            FRONTIER_CONFIG_DIR=str(self.root / "config"),
            TMPDIR=str(self.root / "tmp"),
            # Bytecode goes to a cache outside the workspace; the test run's cache entry
            # for tests/test_cli.py is the shell step's visible side effect.
            PYTHONPYCACHEPREFIX=str(self.pycache),
        )
        return env

    def workspaces(self) -> list[Path]:
        return sorted((self.root / "data" / "demo-workspaces").glob("*"))

    def tests_ran_in(self, workspace: Path) -> bool:
        """Did ``python3 -m unittest`` run in this workspace (its bytecode cache says so)?"""
        where = self.pycache / str(workspace.resolve()).lstrip("/") / "tests"
        return any(where.glob("test_cli*.pyc"))


def frontier_cmd() -> list[str]:
    """The venv's ``frontier`` script (or the module, where the script is missing)."""
    frontier = Path(sys.executable).parent / "frontier"
    return [str(frontier)] if frontier.exists() else [sys.executable, "-m", "frontier.app.cli"]


def demo_argv(rate: float) -> list[str]:
    return [
        *frontier_cmd(),
        *("demo", "--headless", "--json", "--protocol", PROTOCOL),
        *("--approval", "auto", "--rate", f"{rate:g}"),
    ]


def start_demo(run: RunDir, rate: float) -> DemoProcess:
    return DemoProcess(demo_argv(rate), run.env(), run.root)


@dataclass
class Check:
    """What one kill-and-recover cycle found (lists name each problem)."""

    session: str | None = None
    workspace: Path | None = None
    phase: str = "before"
    detail: str = ""
    last_event: str = "-"
    recovered: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)
    unreconciled: list[str] = field(default_factory=list)
    misreconciled: list[str] = field(default_factory=list)
    temps_removed: int = 0
    recover_ms: float = 0.0
    resume: str = "-"
    resume_failed: list[str] = field(default_factory=list)
    rerun: list[str] = field(default_factory=list)
    """Non-mutating steps run again after resume (informational)."""
    half: list[str] = field(default_factory=list)
    """After recovery: a multi-file patch on disk for some of its files only."""
    unseen: list[str] = field(default_factory=list)
    """After resume: results whose frame is not in the model-facing history (informational:
    the model cannot know those calls ran; see docs/benchmarks/crash_soak.md)."""
    resume_s: float = 0.0

    def bad(self) -> int:
        return (
            len(self.lost)
            + len(self.duplicated)
            + len(self.torn)
            + len(self.unreconciled)
            + len(self.misreconciled)
            + len(self.resume_failed)
            + len(self.half)
        )


def check_files(files: Files, calls: list[Any], states: DemoStates, out: Check, when: str) -> None:
    """Torn / lost / duplicated by content: every file must be a state some call explains."""
    recorded: dict[str, set[str | None]] = {}
    for call in calls:
        for t in call.targets:
            recorded.setdefault(t.path, set()).update((t.pre, t.post))
    for path in sorted(set(files) | set(states.original) | set(recorded)):
        now = sha(files.get(path))
        original = sha(states.original.get(path))
        if now == original:
            continue
        if path not in recorded:
            out.lost.append(f"{when}: {path} changed but no call row targets it")
        elif now not in recorded[path]:
            out.torn.append(f"{when}: {path} is neither pre- nor post-image of any call")
        elif now not in states.known(path):
            out.duplicated.append(f"{when}: {path} is in a state the demo never produces")
    readme = files.get("README.md", b"").decode(errors="replace")
    if readme.count("--shout Ada") > 1:
        out.duplicated.append(
            f"{when}: README.md has the --shout line {readme.count('--shout Ada')}×"
        )
    cli = files.get("greet/cli.py", b"").decode(errors="replace")
    if cli.count('"--shout"') > 1:
        out.duplicated.append(
            f"{when}: greet/cli.py adds --shout {cli.count(chr(34) + '--shout')}×"
        )


def check_verdicts(results: list[Any], calls: list[Any], files: Files, out: Check) -> None:
    """A recovered verdict must agree with the files (else the model is told a falsehood)."""
    unresolved = [c for c in calls if c.result is None]
    if len(results) != len(unresolved):
        out.unreconciled.append(f"recover gave {len(results)} results for {len(unresolved)} calls")
    for call, result in zip(unresolved, results, strict=False):
        at = [sha(files.get(t.path)) for t in call.targets]
        if result.kind == "applied" and at != [t.post for t in call.targets]:
            out.misreconciled.append(f"{call.call_id} said applied, files are not at post")
        if result.kind == "not_applied" and at != [t.pre for t in call.targets]:
            out.misreconciled.append(f"{call.call_id} said not_applied, files are not at pre")
        if not call.targets and result.kind not in ("interrupted", "not_executed"):
            out.misreconciled.append(f"{call.call_id} ({call.name}) recovered as {result.kind}")
        if not call.targets and (result.kind == "interrupted") != (call.started is not None):
            out.misreconciled.append(f"{call.call_id} started={call.started} → {result.kind}")


def unseen_results(calls: list[Any], items: list[Any]) -> list[str]:
    """Call rows with a committed result that no result in the history reports.

    Per call id, the newest results are the unreported ones (history is appended in
    order, so a crash can only leave a tail out). Each is labelled ``recovered``
    (reconciled after the crash) or ``committed`` (its own result, committed before
    the crash, whose history append the crash cut off).
    """
    from frontier.app.model.conversation import ToolResults

    framed: Counter[str] = Counter()
    for item in items:
        if isinstance(item, ToolResults):
            framed.update(r.call_id for r in item.results)
    out: list[str] = []
    done = [c for c in calls if c.result is not None]
    for call_id, n in (Counter(c.call_id for c in done) - framed).items():
        for c in [c for c in done if c.call_id == call_id][-n:]:
            how = "recovered" if c.result.meta.get("recovered") else "committed"
            out.append(f"{how}: {c.call_id} ({c.name}, {c.result.kind}) is not in the history")
    return out


def inspect_killed(run: RunDir, events: list[dict[str, Any]], states: DemoStates) -> Check:
    """Reopen the store after the kill, check the workspace, recover, check again."""
    from frontier.app.session.store import SessionStore
    from frontier.tools.workspace_files import BeneathFiles

    out = Check()
    if events:
        last = events[-1]
        out.last_event = last["type"] + (f" {last['id']}" if "id" in last else "")
    workspaces = run.workspaces()
    if len(workspaces) > 1:
        out.lost.append(f"{len(workspaces)} demo workspaces for one run")
    sessions = []
    if run.db.exists():
        with SessionStore.open(run.db) as store:
            sessions = store.list_sessions()
    if len(sessions) > 1:
        out.lost.append(f"{len(sessions)} sessions for one run")
    if not sessions:
        out.detail = "no session yet"
        for ws in workspaces:  # copied before the session row exists: no tool touched it
            files, temps = snapshot(ws)
            if files != states.original:
                out.detail = "no session yet, workspace copy cut off"
            for path, data in files.items():
                if not states.original.get(path, b"\0").startswith(data):
                    out.lost.append(f"kill: {path} is not (a prefix of) the original copy")
            out.lost += [f"kill: temp file {t} with no call row" for t in temps]
        if any(e["type"] in ("call", "tool_started") for e in events):
            out.lost.append("events show a call but the store has no session")
        return out
    info = sessions[0]
    out.session = info.id
    ws = out.workspace = Path(info.workspace)
    with SessionStore.open(run.db) as store:
        calls = store.calls(info.id)
        files, temps = snapshot(ws)
        # Lost: every visible side effect must have a call row.
        started = Counter(c.call_id for c in calls if c.started is not None)
        shown = Counter(e["id"] for e in events if e["type"] == "tool_started")
        for call_id, n in shown.items():
            if started[call_id] < n:
                out.lost.append(f"{call_id}: tool_started printed, no started call row")
        if run.tests_ran_in(ws) and not any(
            step_of(c.name, c.args) == "tests" and c.started is not None for c in calls
        ):
            out.lost.append("the test run's bytecode exists, no started shell row")
        targeted = {t.path for c in calls for t in c.targets}
        for tmp in temps:
            name = Path(tmp).name[1:].rsplit(".", 2)[0]
            target = str(Path(tmp).parent / name) if Path(tmp).parent != Path(".") else name
            if target not in targeted:
                out.lost.append(f"kill: temp file {tmp} for {target}, which no call targets")
        check_files(files, calls, states, out, "kill")
        # Phase: a call in flight (during), a result the last thing committed (after),
        # else the model was streaming / between responses (before).
        open_calls = [c for c in calls if c.result is None]
        results = [r for r in store.records(info.id) if r.type == "result"]
        begun = [r.created for r in store.recordings(info.id)]
        if open_calls:
            out.phase = "during"
        elif results and (
            not any(t > results[-1].t for t in begun)
            or any(step_of(c.name, c.args) == "readme" and c.result is not None for c in calls)
        ):
            out.phase = "after"  # a result was the last commit, or the script's last tool ran
        t0 = time.perf_counter()
        recovered = store.recover(info.id, ws, files=BeneathFiles)
        out.recover_ms = (time.perf_counter() - t0) * 1000
        out.recovered = [r.kind for r in recovered]
        out.detail = ", ".join(
            f"{c.call_id} {c.name} → {r.kind}" for c, r in zip(open_calls, recovered, strict=False)
        ) or (f"after {results[-1].call_id}" if out.phase == "after" and results else "")
        after_files, after_temps = snapshot(ws)
        out.temps_removed = len(temps) - len(after_temps)
        check_verdicts(recovered, calls, after_files, out)
        out.unreconciled += [
            f"{c.call_id} ({c.name}) has no result after recover"
            for c in store.unresolved_calls(info.id)
        ]
        out.unreconciled += [f"temp file {t} left after recover" for t in after_temps]
        check_files(after_files, store.calls(info.id), states, out, "recover")
        check_whole(after_files, store.calls(info.id), out)
    return out


def check_whole(files: Files, calls: list[Any], out: Check) -> None:
    """Every multi-file mutation is on disk for all of its files or for none."""
    for c in calls:
        if len(c.targets) < 2:
            continue
        states = {
            "post"
            if sha(files.get(t.path)) == t.post
            else "pre"
            if sha(files.get(t.path)) == t.pre
            else "other"
            for t in c.targets
        }
        if states == {"pre", "post"}:
            out.half.append(f"{c.call_id} ({c.name}) is on disk for some files only")


# --------------------------------------------------------------------------- resume


def resume_argv(session_id: str, rate: float, cli: bool) -> list[str]:
    if cli:
        return [
            *frontier_cmd(),
            *("resume", session_id, "--headless", "--json"),
            *("--prompt", "continue", "--approval", "auto"),
        ]
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        *("--resume-child", session_id, "--rate", f"{rate:g}"),
    ]


def resume_and_check(
    run: RunDir, out: Check, states: DemoStates, rate: float, *, cli: bool = False
) -> None:
    """Resume the killed session to the end; the workspace must reach the final state once."""
    from frontier.app.session.store import SessionStore

    if out.session is None or out.workspace is None:
        out.resume = "no session to resume"
        return
    proc = DemoProcess(resume_argv(out.session, rate, cli), run.env(), run.root)
    if not proc.wait(RESUME_TIMEOUT_S):
        proc.kill()
        out.resume_failed.append(f"resume did not finish within {RESUME_TIMEOUT_S:.0f}s")
        return
    proc.finish()
    out.resume_s = time.monotonic() - proc.t0
    ended = [e for e in proc.events() if e["type"] == "turn_ended"]
    with SessionStore.open(run.db) as store:
        calls = store.calls(out.session)
        out.unseen += unseen_results(calls, store.load_items(out.session))
    out.unreconciled += [
        f"after resume: {c.call_id} ({c.name}) has no result" for c in calls if c.result is None
    ]
    executed = Counter(
        step_of(c.name, c.args) for c in calls if c.result is not None and c.result.kind in EXECUTED
    )
    for step in MUTATION_FILES:
        if executed[step] > 1:
            out.duplicated.append(f"resume: step {step} executed {executed[step]}×")
    out.rerun = [f"{s}×{n}" for s, n in executed.items() if s not in MUTATION_FILES and n > 1]
    files, temps = snapshot(out.workspace)
    check_files(files, calls, states, out, "resume")
    if proc.proc.returncode != 0 or not ended or ended[-1].get("reason") != "done":
        reason = ended[-1].get("reason") if ended else "no turn_ended"
        out.resume_failed.append(
            f"resume exit {proc.proc.returncode} ({reason}): {proc.stderr[-300:]!r}"
        )
    missing = sorted(
        p for p in set(files) | set(states.final) if files.get(p) != states.final.get(p)
    )
    if temps:
        out.resume_failed.append(f"temp files left: {temps}")
    if not missing:
        out.resume = "final state"
        return
    skipped = [s for s, paths in MUTATION_FILES.items() if executed[s] == 0]
    explained = {p for s in skipped for p in MUTATION_FILES[s]}
    if set(missing) <= explained and all(files.get(p) == states.original.get(p) for p in missing):
        out.resume = "demo skipped " + "+".join(skipped)
    else:
        out.resume_failed.append(f"not the final state: {missing}")
        out.resume = "FAILED"


def _demo_child(crash_at: int, rate: float) -> int:
    """The headless demo in this process, SIGKILLed at step ``crash_at`` of its first
    multi-file write (``tools.atomic``'s crash seam: before each temp, pre-image, rename,
    pre-image removal). Nothing of it runs after the kill: no cleanup, no finally."""
    from frontier.app.cli import main as frontier_main
    from frontier.tools import atomic

    real_commit = atomic.commit_files
    state = {"steps": 0, "multi": False}

    def point(step: str) -> None:
        if state["multi"]:
            if state["steps"] == crash_at:
                os.kill(os.getpid(), signal.SIGKILL)
            state["steps"] += 1

    def commit(root: Any, writes: Any, **kwargs: Any) -> None:
        state["multi"] = len(writes) > 1
        try:
            real_commit(root, writes, **kwargs)
        finally:
            state["multi"] = False

    atomic._crash_point = point  # type: ignore[assignment]
    atomic.commit_files = commit  # type: ignore[assignment]
    argv = ["demo", "--headless", "--json", "--protocol", PROTOCOL, "--approval", "auto"]
    return frontier_main([*argv, "--rate", f"{rate:g}"])


def _resume_child(session_id: str, rate: float) -> int:
    """In-process resume at the soak's rate (``frontier resume`` has no --rate flag)."""
    import asyncio

    from frontier.app.config import load_config
    from frontier.app.frontends.headless import run_headless

    config = load_config(approval="auto")
    return asyncio.run(
        run_headless(
            config, prompts=["continue"], as_json=True, session_id=session_id, demo_rate=rate
        )
    )


# --------------------------------------------------------------------------- the soak


def reference_run(
    base: Path, pycache: Path, rate: float, states: DemoStates, name: str = "reference"
) -> float:
    """One un-killed run: its duration (what kill instants are drawn over) and its end state."""
    run = RunDir(base / name, pycache)
    proc = start_demo(run, rate)
    if not proc.wait(RUN_TIMEOUT_S):
        proc.kill()
        raise SystemExit(f"reference run did not finish within {RUN_TIMEOUT_S:.0f}s")
    duration = time.monotonic() - proc.t0
    proc.finish()
    if proc.proc.returncode != 0:
        raise SystemExit(f"reference run failed ({proc.proc.returncode}): {proc.stderr!r}")
    (ws,) = run.workspaces()
    if snapshot(ws)[0] != states.final:
        raise SystemExit(f"reference run did not end in the demo's final state ({ws})")
    return duration


RENAME_STEPS = 8
"""Crash points of the demo's two-file patch: 2 temps, 2 pre-images, 2 renames, 2 removals."""


def soak(
    runs: int,
    seed: int,
    rate: float,
    cli: bool,
    keep: bool,
    strict: bool = False,
    between_renames: bool = False,
) -> int:
    states = DemoStates.compute()
    base = Path(tempfile.mkdtemp(prefix="frontier-soak-"))
    pycache = base / "pycache"
    rng = random.Random(seed)
    print(f"crash soak: {runs} runs, seed {seed}, rate {rate:g} tok/s, scratch {base}")
    try:
        reference_run(base, pycache, rate, states, "warm-up")  # fills the bytecode cache
        duration = reference_run(base, pycache, rate, states)
    except SystemExit:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)
        raise
    print(f"reference run (not killed): {duration:.2f}s, ends in the demo's final state")
    head = (
        f"{'run':>3} {'kill@s':>6} {'phase':<6} {'in flight → recovered / last commit':<38} "
        f"{'last event':<18} {'lost':>4} {'dup':>3} {'torn':>4} {'unrec':>5} {'rec ms':>6} "
        f"{'unseen':>6}  resume"
    )
    print(head)
    print("-" * len(head))
    checks: list[tuple[float, bool, Check]] = []
    t_start = time.monotonic()
    for i in range(runs):
        at = rng.uniform(0.0, duration)
        run = RunDir(base / f"run-{i:03d}", pycache)
        if between_renames:
            at = float(i % RENAME_STEPS)  # the step, shown in the kill@ column
            argv = [sys.executable, __file__, "--demo-child", str(i % RENAME_STEPS)]
            proc = DemoProcess([*argv, "--rate", f"{rate:g}"], run.env(), run.root)
            try:
                finished = proc.wait(RUN_TIMEOUT_S) and proc.proc.returncode == 0
            finally:
                if proc.proc.poll() is None:
                    proc.kill()
        else:
            proc = start_demo(run, rate)
            try:
                finished = proc.wait(at - (time.monotonic() - proc.t0))
            finally:  # also on Ctrl-C: never leave a run behind
                if proc.proc.poll() is None:
                    proc.kill()
        proc.finish()
        check = inspect_killed(run, proc.events(), states)
        if finished:
            check.phase = "done"
        resume_and_check(run, check, states, rate, cli=cli)
        checks.append((at, not finished, check))
        print(
            f"{i:>3} {at:>6.2f} {check.phase:<6} {check.detail[:38]:<38} "
            f"{check.last_event[:18]:<18} {len(check.lost):>4} {len(check.duplicated):>3} "
            f"{len(check.torn):>4} {len(check.unreconciled) + len(check.misreconciled):>5} "
            f"{check.recover_ms:>6.1f} {len(check.unseen):>6}  {check.resume}"
            + (f" (rerun {', '.join(check.rerun)})" if check.rerun else ""),
            flush=True,
        )
        for note in check.unseen:
            print(f"      ~ {note}")
        for problem in (
            check.lost
            + check.duplicated
            + check.torn
            + check.unreconciled
            + check.misreconciled
            + check.resume_failed
            + check.half
        ):
            print(f"      ! {problem}")
        if not keep:
            shutil.rmtree(run.root, ignore_errors=True)
    wall = time.monotonic() - t_start
    return report(checks, duration, wall, base, keep, strict)


def report(
    checks: list[tuple[float, bool, Check]],
    duration: float,
    wall: float,
    base: Path,
    keep: bool,
    strict: bool = False,
) -> int:
    cs = [c for _, _, c in checks]
    phases = Counter(c.phase for c in cs)
    kinds = Counter(k for c in cs for k in c.recovered)
    resumes = Counter(c.resume for c in cs)
    totals = {
        "lost calls": sum(len(c.lost) for c in cs),
        "duplicated side effects": sum(len(c.duplicated) for c in cs),
        "torn files": sum(len(c.torn) for c in cs),
        "unreconciled calls": sum(len(c.unreconciled) for c in cs),
        "misreconciled calls": sum(len(c.misreconciled) for c in cs),
        "resume failures": sum(len(c.resume_failed) for c in cs),
        "half-applied patches": sum(len(c.half) for c in cs),
    }
    if strict:
        totals["unseen results"] = sum(len(c.unseen) for c in cs)
    print()
    print(
        f"kills: {sum(k for _, k, _ in checks)} of {len(cs)} runs "
        f"(before a tool {phases['before']}, during a tool {phases['during']}, "
        f"after a tool {phases['after']}; finished before the kill instant {phases['done']})"
    )
    print("recovered verdicts: " + (", ".join(f"{k} {n}" for k, n in kinds.most_common()) or "-"))
    print("resume: " + ", ".join(f"{k} {n}" for k, n in resumes.most_common()))
    unseen = Counter(u.split(":")[0] for c in cs for u in c.unseen)
    print(
        "results the resumed model never sees (not in its history): "
        f"{unseen['committed']} committed before the kill, {unseen['recovered']} recovered "
        "(must be 0 with --strict; see docs/benchmarks/crash_soak.md)"
    )
    reruns = Counter(r for c in cs for r in c.rerun)
    if reruns:
        print(
            "non-mutating steps run again after resume: "
            + ", ".join(f"{k} {n}" for k, n in reruns.items())
        )
    rec = [c.recover_ms for c in cs if c.session]
    res = [c.resume_s for c in cs if c.resume_s]
    if rec:
        print(f"recover: median {statistics.median(rec):.1f} ms, max {max(rec):.1f} ms")
    if res:
        print(
            f"resume to the end: median {statistics.median(res):.2f}s "
            f"= {statistics.median(res) / duration:.2f}× the un-killed reference run "
            f"({duration:.2f}s)"
        )
    print(f"soak wall time: {wall:.1f}s")
    for name, n in totals.items():
        print(f"{name:<24} {n}   (must be 0)")
    if keep:
        print(f"run directories kept in {base}")
    else:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if any(totals.values()) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=80, help="killed runs (default 80)")
    parser.add_argument("--seed", type=int, default=1, help="RNG seed for the kill instants")
    parser.add_argument(
        "--rate", type=float, default=0.0, help="demo tokens/s (default 0: as fast as possible)"
    )
    parser.add_argument(
        "--resume-cli",
        action="store_true",
        help="resume with `frontier resume ID --headless` (demo rate fixed at 60 tok/s: slow)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the run directories")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="also fail on committed results missing from the model-facing history",
    )
    parser.add_argument(
        "--between-renames",
        action="store_true",
        help="kill each run at a step of the demo's two-file patch write (cycling through all)",
    )
    parser.add_argument("--resume-child", metavar="ID", help=argparse.SUPPRESS)
    parser.add_argument("--demo-child", type=int, metavar="STEP", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.resume_child:
        return _resume_child(args.resume_child, args.rate)
    if args.demo_child is not None:
        return _demo_child(args.demo_child, args.rate)
    return soak(
        args.runs,
        args.seed,
        args.rate,
        args.resume_cli,
        args.keep,
        args.strict,
        args.between_renames,
    )


if __name__ == "__main__":
    sys.exit(main())
