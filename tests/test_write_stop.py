""" "Stopped" means nothing was written, and a write never lands after its result (issue
21, item 4).

A ``write`` into a folder another process had locked used to time out at 30 s, tell the
model it was stopped, and then land when the lock was released: the store said
``timeout``, ``frontier undo --list`` said nothing changed, and the disk said otherwise.
Now the call's deadline and Esc reach the writer: it waits for a folder lock only until
it is asked to stop and says the folder is locked by another process; past its point of
no return (the journal commit) it is never interrupted, and the boundary waits for it
and records what really happened.

The lock is held by a real second process (``flock`` on the folder, as another Frontier
session or an editor writing there would). Everything else is the real thing: the
runtime, its store, the pinned workspace, the tools, the atomic writer. The tests wait
for states — the lock held, the writer waiting, the stop asked — never for time: the
only clock is the call's own deadline, which a held lock cannot beat.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import select
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from test_tools_fakes import model_has_read
from wire_scripts import Call, Text, WireServer, args, script, serve_wire, stream

from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.cli import main as cli
from frontier.app.config import Config
from frontier.app.events import (
    Event,
    ToolCall,
    ToolFinished,
    ToolOutput,
    ToolResult,
    TurnEnded,
)
from frontier.app.session import journal as store_journal
from frontier.app.session.store import SessionStore
from frontier.tools import atomic
from frontier.tools.boundary import ESC_TOO_LATE
from frontier.tools.edit import WriteTool
from frontier.tools.policy import PolicyApprover

BOUND = 30.0
"""The longest any wait here may last (a hang fails the test; nothing waits for time)."""
LIMIT = 1.0
"""The calls' time limit: only has to outlast the writer's way to the lock (or to its
commit), milliseconds; the lock or a pause then holds it there until the limit passes."""
LOCKED_ROOT = (
    "write: timed out after 1 s and was stopped while waiting for the workspace folder, "
    "which is locked by another process; nothing was written. Re-issue the call once the "
    "other process (another Frontier session, an editor or a build writing there) has "
    "finished."
)
COMMIT_CODE = atomic.commit_files.__code__


# ----------------------------------------------------------------------------- helpers


HOLD = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
fcntl.flock(fd, fcntl.LOCK_EX)
sys.stdout.write("locked\\n")
sys.stdout.flush()
sys.stdin.read()
"""


class Holder:
    """Another process holding ``flock`` on a folder until :meth:`release`."""

    def __init__(self, folder: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(folder)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], BOUND)
        assert ready and self.proc.stdout.readline() == "locked\n", "the holder never locked"

    def release(self) -> None:
        """End the holder (its lock goes with it) and wait until it has."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(BOUND)


@contextmanager
def locked_by_another_process(folder: Path) -> Iterator[Holder]:
    holder = Holder(folder)
    try:
        yield holder
    finally:
        holder.release()


def writers_running() -> list[str]:
    """The threads now inside ``atomic.commit_files`` (a writer that could still land)."""
    frames = sys._current_frames()
    running = []
    for thread in threading.enumerate():
        frame: FrameType | None = frames.get(thread.ident or -1)
        while frame is not None:
            if frame.f_code is COMMIT_CODE:
                running.append(thread.name)
                break
            frame = frame.f_back
    return running


def nobody_locks(folder: Path) -> bool:
    """Whether the folder's lock is free now (no process holds it, no writer waits)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


class Log:
    """What happened, in order: each write starting and returning, each call's result."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lines: list[str] = []
        real = atomic.commit_files

        def tracked(*a: Any, **k: Any) -> None:
            self.lines.append("writer started")
            try:
                real(*a, **k)
            finally:
                self.lines.append("writer returned")

        monkeypatch.setattr(atomic, "commit_files", tracked)

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolFinished):
            self.lines.append(f"result {event.result.kind}")


def leftovers(folder: Path) -> list[str]:
    return sorted(
        p.name
        for p in folder.rglob(".*")
        if p.name.endswith((atomic.TEMP_SUFFIX, atomic.OLD_SUFFIX))
    )


def undo_list(sid: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert cli(["undo", sid, "--list"]) == 0
    return capsys.readouterr().out


def stored_results(sid: str) -> dict[str, ToolResult]:
    with SessionStore.open() as store:
        return {c.call_id: c.result for c in store.ledger.calls(sid) if c.result is not None}


def intent_states(sid: str) -> list[str]:
    with SessionStore.open() as store:
        rows = store.db.read("SELECT state FROM intents WHERE session_id = ?", (sid,))
    return [str(state) for (state,) in rows]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("a = 1\n")
    (root / "src" / "b.py").write_text("b = 1\n")
    return root


@pytest.fixture
def limited(monkeypatch: pytest.MonkeyPatch) -> None:
    """``write`` limited to ``LIMIT`` (its spec says 30 s)."""
    monkeypatch.setattr(WriteTool, "spec", replace(WriteTool.spec, timeout=LIMIT))


@pytest.fixture
async def session(ws: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[AgentSession]:
    """A stored session in ``ws`` (no model: calls go through its real tool boundary)."""
    made = create_runtime(
        Config(approval="auto"), approver=PolicyApprover("auto"), workspace=ws, offline=True
    )
    try:
        yield made
    finally:
        await made.close()


async def run(session: AgentSession, name: str, call_id: str = "c1", **a: Any) -> ToolResult:
    """One call through the session's boundary; a file it writes whole the model has read
    first (one never read is refused before the write: tools/file_views.py)."""
    boundary: Any = session._loop.boundary  # type: ignore[attr-defined]
    if name == "write" and (session.workspace / a["path"]).is_file():
        model_has_read(boundary, a["path"])
    return await asyncio.wait_for(boundary.run(ToolCall(call_id, name, a)), BOUND)


def limit_patch(session: AgentSession) -> None:
    boundary: Any = session._loop.boundary  # type: ignore[attr-defined]
    tool = boundary.registry.get("apply_patch")
    tool.spec = replace(tool.spec, timeout=LIMIT)


PATCH = (
    "--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    "--- a/src/b.py\n+++ b/src/b.py\n@@ -1 +1 @@\n-b = 1\n+b = 2\n"
)


# ------------------------------------------------------------------- through a real turn


@pytest.fixture
async def server() -> AsyncIterator[WireServer]:
    srv = WireServer("openai-chat", strict=True)
    async with serve_wire(srv):
        yield srv


async def test_a_write_timed_out_on_a_locked_folder_never_lands(
    ws: Path,
    server: WireServer,
    limited: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's story, as a model and a person meet it: the model's ``write`` times
    out on a folder another process holds; the model is told nothing was written; the
    lock is released; nothing lands — not then, not ever — and the store and ``frontier
    undo --list`` agree with the disk."""
    server.answer(
        stream(script(server.wire, [Call("call_1", "write", args(path="new.txt", content="x"))])),
        stream(script(server.wire, [Text("I will try again later.")])),
    )
    cfg = Config(
        base_url=server.url,
        model="test-model",
        wire="openai-chat",
        protocol="native-inc",
        approval="auto",
        api_key="sk-loopback-0123456789",
        context_window=100_000,
        instructions=False,
    )
    log = Log(monkeypatch)
    with locked_by_another_process(ws) as holder:
        made = create_runtime(cfg, approver=PolicyApprover("auto"), workspace=ws)
        try:
            made.subscribe(log)
            ended = await asyncio.wait_for(made.send("write new.txt"), BOUND)
        finally:
            await made.close()
        assert isinstance(ended, TurnEnded) and ended.reason == "done"
        holder.release()

    assert log.lines == ["writer started", "writer returned", "result timeout"]
    assert writers_running() == [] and nobody_locks(ws)  # no writer left to land it
    assert not (ws / "new.txt").exists() and leftovers(ws) == []
    assert LOCKED_ROOT in server.requests[1].text  # what the model was told
    (result,) = stored_results(made.session_id).values()
    assert (result.kind, result.output, result.meta) == ("timeout", LOCKED_ROOT, {"written": False})
    assert undo_list(made.session_id, capsys) == f"session {made.session_id} changed no file\n"


# ------------------------------------------------------------------ stopped before writing


async def test_esc_while_waiting_for_a_locked_folder_cancels_and_writes_nothing(
    ws: Path,
    session: AgentSession,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    waiting = threading.Event()
    monkeypatch.setattr(atomic, "_waiting_for_lock", lambda folder: waiting.set())
    log = Log(monkeypatch)
    session.subscribe(log)
    with locked_by_another_process(ws / "src") as holder:
        task = asyncio.ensure_future(run(session, "write", path="src/a.py", content="mine\n"))
        assert await asyncio.to_thread(waiting.wait, BOUND), "the writer never waited"
        assert session.cancel_tool()  # Esc
        result = await task
        holder.release()

    assert result.kind == "cancelled"
    assert result.output == (
        "write: cancelled by the user while waiting for the folder 'src', which is locked "
        "by another process; nothing was written. Re-issue the call once the other process "
        "(another Frontier session, an editor or a build writing there) has finished."
    )
    assert log.lines == ["writer started", "writer returned", "result cancelled"]
    assert writers_running() == [] and nobody_locks(ws / "src")
    assert (ws / "src" / "a.py").read_text() == "a = 1\n" and leftovers(ws) == []
    assert stored_results(session.session_id)["c1"].kind == "cancelled"
    assert undo_list(session.session_id, capsys).endswith("changed no file\n")


async def test_a_patch_stopped_on_a_locked_subfolder_journals_nothing(
    ws: Path, session: AgentSession, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two files, one intent journal: stopped before its commit, so no journal row was
    ever written, no temp or pre-image is left, and the text names the locked folder."""
    limit_patch(session)
    with locked_by_another_process(ws / "src"):
        result = await run(session, "apply_patch", patch=PATCH)

    assert result.kind == "timeout", result.output
    assert result.output.startswith(
        "apply_patch: timed out after 1 s and was stopped while waiting for the folder 'src', "
        "which is locked by another process; nothing was written."
    )
    assert writers_running() == [] and nobody_locks(ws / "src")
    assert (ws / "src" / "a.py").read_text() == "a = 1\n"
    assert (ws / "src" / "b.py").read_text() == "b = 1\n"
    assert leftovers(ws) == [] and intent_states(session.session_id) == []
    assert undo_list(session.session_id, capsys).endswith("changed no file\n")


# -------------------------------------------------------------- past the point of no return


async def test_a_patch_past_its_commit_at_the_deadline_finishes_and_is_recorded(
    ws: Path,
    session: AgentSession,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The deadline comes while the write is between its journal commit and its renames
    (held there until the boundary asks it to stop): it is not stopped — stopping there
    would leave it half done — it finishes, and the result says it ran late."""
    limit_patch(session)
    real_begin = store_journal.StoreJournal.begin
    asked: list[bool] = []

    def begin_then_hold(self: store_journal.StoreJournal, entries: Any) -> None:
        real_begin(self, entries)
        stop = atomic.CALL_STOP.get()
        assert stop is not None  # the call's stop reached the writer's thread
        asked.append(stop.until_requested(BOUND))  # until the deadline has come

    monkeypatch.setattr(store_journal.StoreJournal, "begin", begin_then_hold)
    log = Log(monkeypatch)
    session.subscribe(log)
    result = await run(session, "apply_patch", patch=PATCH)

    assert asked == [True]
    assert result.kind == "ok", result.output
    assert result.output.endswith(
        "\n(It ran past its 1 s limit: it had already begun writing when the limit came, so "
        "it was finished, not stopped; the outcome above is what happened.)"
    )
    assert result.meta["overran"] == LIMIT
    assert log.lines == ["writer started", "writer returned", "result ok"]
    assert (ws / "src" / "a.py").read_text() == "a = 2\n"
    assert (ws / "src" / "b.py").read_text() == "b = 2\n"
    assert leftovers(ws) == [] and intent_states(session.session_id) == ["done"]
    assert stored_results(session.session_id)["c1"].kind == "ok"
    listing = undo_list(session.session_id, capsys)
    assert " → c1       apply_patch    in effect        src/a.py, src/b.py\n" in listing


async def test_esc_past_the_point_of_no_return_finishes_and_says_so(
    ws: Path,
    session: AgentSession,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    at_rename = threading.Event()
    asked: list[bool] = []

    def hold_at_rename(step: str) -> None:
        if step == "rename" and not at_rename.is_set():
            at_rename.set()
            stop = atomic.CALL_STOP.get()
            assert stop is not None
            asked.append(stop.until_requested(BOUND))

    monkeypatch.setattr(atomic, "_crash_point", hold_at_rename)
    task = asyncio.ensure_future(run(session, "write", path="src/a.py", content="mine\n"))
    assert await asyncio.to_thread(at_rename.wait, BOUND), "the writer never got there"
    assert session.cancel_tool()  # Esc, too late to stop it
    result = await task

    assert asked == [True]
    assert result.kind == "ok" and result.output.endswith(f"\n{ESC_TOO_LATE}")
    assert result.meta["esc_too_late"] is True
    assert (ws / "src" / "a.py").read_text() == "mine\n" and leftovers(ws) == []
    listing = undo_list(session.session_id, capsys)
    assert " → c1       write          in effect        src/a.py\n" in listing


async def test_a_write_on_a_free_folder_is_not_slowed_or_changed(
    ws: Path, session: AgentSession, limited: None
) -> None:
    """The stop costs nothing when nobody holds the folder: the write is ``ok`` as ever."""
    result = await run(session, "write", path="src/c.py", content="c = 1\n")
    assert result.kind == "ok" and "overran" not in result.meta, result.output
    assert (ws / "src" / "c.py").read_text() == "c = 1\n"


# ------------------------------------------------------------------ a wait is said at once


async def test_a_write_waiting_for_a_locked_folder_says_who_holds_it_then_finishes(
    ws: Path, session: AgentSession
) -> None:
    said: list[str] = []
    waiting = asyncio.Event()

    def observe(event: Event) -> None:
        if isinstance(event, ToolOutput):
            said.append(event.data)
            waiting.set()

    session.subscribe(observe)
    with locked_by_another_process(ws / "src") as holder:
        task = asyncio.ensure_future(run(session, "write", path="src/a.py", content="mine\n"))
        await asyncio.wait_for(waiting.wait(), BOUND)  # said while the lock is still held
        assert not task.done()
        pid = holder.proc.pid
        holder.release()
        result = await task

    assert said == [
        f"waiting for the folder 'src', which another process (pid {pid}) has locked "
        "(another Frontier session, an editor or a build writing there)\n"
    ]
    assert result.kind == "ok", result.output
    assert (ws / "src" / "a.py").read_text() == "mine\n"


async def test_undo_on_the_command_line_says_at_once_that_it_waits_for_a_locked_folder(
    ws: Path, session: AgentSession
) -> None:
    """``frontier undo --yes`` used to wait up to the undo's 60 s time limit in silence."""
    assert (await run(session, "write", path="src/a.py", content="mine\n")).kind == "ok"
    sid = session.session_id
    await session.close()
    with locked_by_another_process(ws / "src") as holder:
        undo = subprocess.Popen(
            [sys.executable, "-m", "frontier.app.cli", "undo", sid, "--yes"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert undo.stderr is not None
        ready, _, _ = await asyncio.to_thread(select.select, [undo.stderr], [], [], BOUND)
        line = undo.stderr.readline() if ready else ""
        assert undo.poll() is None  # still waiting, and said so
        assert line == (
            f"frontier undo: waiting for the folder 'src', which another process (pid "
            f"{holder.proc.pid}) has locked (another Frontier session, an editor or a build "
            "writing there)\n"
        )
        holder.release()
        out, err = await asyncio.to_thread(undo.communicate, timeout=BOUND)
    assert undo.returncode == 0, err
    assert (ws / "src" / "a.py").read_text() == "a = 1\n"
    assert "restored" in out or "recorded as call u1" in out, out


ONE_LINE = b"""--- a/src/a.py
+++ b/src/a.py
@@ -1 +1 @@
-a = 1
+a = 2
"""


def apply_patch_started(ws: Path) -> subprocess.Popen[str]:
    """``frontier apply-patch`` on ``ws``, the patch on its stdin."""
    change = ws.parent / "change.diff"
    change.write_bytes(ONE_LINE)
    with change.open("rb") as stdin:
        return subprocess.Popen(
            [sys.executable, "-m", "frontier.app.cli", "apply-patch", "--root", str(ws)],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


def first_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stderr is not None
    ready, _, _ = select.select([proc.stderr], [], [], BOUND)
    return proc.stderr.readline() if ready else ""


def test_apply_patch_says_at_once_that_it_waits_for_a_locked_folder(ws: Path) -> None:
    """``frontier apply-patch`` used to wait its 10 s in silence, and only then say who
    held the folder."""
    with locked_by_another_process(ws / "src") as holder:
        proc = apply_patch_started(ws)
        line = first_line(proc)
        assert proc.poll() is None  # still waiting, and said so
        assert line == (
            f"frontier apply-patch: waiting for the folder 'src', which another process (pid "
            f"{holder.proc.pid}) has locked (another Frontier session, an editor or a build "
            f"writing there); giving up after {atomic.LOCK_WAIT:g} s\n"
        )
        holder.release()
        out, err = proc.communicate(timeout=BOUND)
    assert proc.returncode == 0, err
    assert out == "M src/a.py (+1 −1)\n"
    assert (ws / "src" / "a.py").read_text() == "a = 2\n"


def test_apply_patch_says_at_once_that_another_run_writes_in_its_root(ws: Path) -> None:
    """Two runs on one root take turns under the journal's lock; the second says so."""
    from frontier.app.dirs import data_dir
    from frontier.tools import file_journal

    with file_journal.root_lock(data_dir() / file_journal.JOURNALS, ws):
        proc = apply_patch_started(ws)
        line = first_line(proc)
        assert proc.poll() is None
    assert line == (
        f"frontier apply-patch: waiting for another frontier apply-patch (pid {os.getpid()}) "
        f"writing in {ws}; giving up after {file_journal.LOCK_WAIT_S:.0f} s\n"
    )
    out, err = proc.communicate(timeout=BOUND)
    assert proc.returncode == 0, err
    assert out == "M src/a.py (+1 −1)\n"
    assert (ws / "src" / "a.py").read_text() == "a = 2\n"
