"""Every tool's timeout is enforced by the boundary (exec tools enforce their own), a large
edit's prepare — reading and diffing files for the review — runs off the event loop, file
conditions are plain errors, and execution gets the store's intent journal for its call."""

from __future__ import annotations

import asyncio
import errno
import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_tools_fakes import FakeStore, ProbeTool, call, make_boundary

from frontier.app.events import ToolCall
from frontier.tools.base import CancelToken, Outcome, Prepared
from frontier.tools.boundary import INLINE_PREPARE_BYTES
from frontier.tools.contract import Preview, ToolContext
from frontier.tools.registry import Registry

BOUND = 20.0
"""Seconds a test may wait for something that must happen (a hang fails, nothing is timed)."""


class Blocking(ProbeTool):
    """``prepare`` blocks its thread until released; ``execute`` awaits an event."""

    def __init__(self, name: str = "slow", **spec: Any) -> None:
        super().__init__(name, **spec)
        params = {"type": "object", "properties": {"text": {"type": "string"}}}
        params["properties"]["path"] = {"type": "string"}
        self.spec = replace(self.spec, parameters=params)
        self.release = threading.Event()
        self.prepare_threads: list[int] = []
        self.block_prepare = False
        self.go = asyncio.Event()
        self.cancelled = False
        self.stopped_by_token = False

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        self.prepare_threads.append(threading.get_ident())
        if self.block_prepare:
            self.release.wait(BOUND)
        return Prepared(args=args, preview=Preview(kind="none"), needs_approval=False)

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        go, stop = asyncio.ensure_future(self.go.wait()), asyncio.ensure_future(cancel.event.wait())
        try:
            await asyncio.wait({go, stop}, timeout=BOUND, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        finally:
            go.cancel()
            stop.cancel()
        if cancel.cancelled and not self.go.is_set():
            self.stopped_by_token = True
            return Outcome(kind="cancelled", output="slow: stopped before doing anything")
        return Outcome(kind="ok", output="done")


def boundary_with(tmp_path: Path, tool: ProbeTool, store: FakeStore | None = None) -> Any:
    return make_boundary(tmp_path, registry=Registry([tool]), store=store)


BIG = "x" * (INLINE_PREPARE_BYTES + 1)


@pytest.mark.parametrize("where", ["argument", "file"])
async def test_a_large_edits_prepare_runs_in_a_worker_thread(tmp_path: Path, where: str) -> None:
    tool = Blocking(kind="edit")
    tool.go.set()
    (tmp_path / "big.txt").write_text(BIG)
    args = {"text": BIG} if where == "argument" else {"path": "big.txt", "text": "x"}
    r = await boundary_with(tmp_path, tool).run(call("slow", **args))
    assert r.kind == "ok"
    assert tool.prepare_threads and tool.prepare_threads[0] != threading.get_ident()


@pytest.mark.parametrize("kind", ["read", "exec", "edit"])
async def test_small_prepares_stay_inline(tmp_path: Path, kind: str) -> None:
    """The thread hand-off costs ~0.3 ms p50 (up to 5 ms p99) on the confirm -> start path:
    more than an argument check or a small file's diff."""
    tool = Blocking(kind=kind)
    tool.go.set()
    (tmp_path / "small.txt").write_text("x\n")
    await boundary_with(tmp_path, tool).run(call("slow", path="small.txt", text="y"))
    assert tool.prepare_threads == [threading.get_ident()]
    if kind != "edit":
        await boundary_with(tmp_path, tool).run(call("slow", text=BIG))
        assert tool.prepare_threads[-1] == threading.get_ident()


async def test_a_real_write_of_a_large_file_prepares_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from frontier.tools.edit import WriteTool

    threads: list[int] = []
    real = WriteTool.prepare

    def spy(self: WriteTool, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        threads.append(threading.get_ident())
        return real(self, args, ctx)

    monkeypatch.setattr(WriteTool, "prepare", spy)
    r = await make_boundary(tmp_path).run(call("write", path="f.txt", content=BIG))
    assert r.kind == "ok" and threads and threads[0] != threading.get_ident()


async def test_a_prepare_past_its_timeout_is_a_timeout_and_nothing_runs(tmp_path: Path) -> None:
    tool = Blocking(kind="edit", timeout=0.05)
    tool.block_prepare = True
    store = FakeStore()
    try:
        boundary = boundary_with(tmp_path, tool, store)
        r = await asyncio.wait_for(boundary.run(call("slow", text=BIG)), BOUND)
    finally:
        tool.release.set()
    assert r.kind == "timeout"
    assert r.output.startswith("slow: timed out after 0.05 s while preparing the call")
    assert "nothing was run or written" in r.output
    assert [name for name, _ in store.log] == ["commit_result"]
    assert not tool.fired


async def test_the_loop_keeps_running_while_an_edit_prepares(tmp_path: Path) -> None:
    """A ticker on the loop advances while prepare is blocked in its thread."""
    tool = Blocking(kind="edit")
    tool.block_prepare = True
    tool.go.set()
    task = asyncio.ensure_future(boundary_with(tmp_path, tool).run(call("slow", text=BIG)))
    ticks = 0
    while not tool.prepare_threads and ticks < 100_000:
        await asyncio.sleep(0)
        ticks += 1
    for _ in range(10):
        await asyncio.sleep(0)
    assert not task.done()
    tool.release.set()
    r = await asyncio.wait_for(task, BOUND)
    assert r.kind == "ok"


async def test_execute_past_the_spec_timeout_is_stopped(tmp_path: Path) -> None:
    tool = Blocking(kind="read", timeout=0.05)
    r = await asyncio.wait_for(boundary_with(tmp_path, tool).run(call("slow")), BOUND)
    assert r.kind == "timeout"
    assert r.output == (
        "slow: timed out after 0.05 s and was stopped; nothing was returned. Narrow the "
        "request (a smaller path, glob or window)."
    )
    assert tool.cancelled


async def test_a_mutation_past_its_deadline_is_asked_to_stop_and_waited_for(
    tmp_path: Path,
) -> None:
    """Issue 21, item 4: a mutation is never abandoned at its deadline (its writer thread
    would land the write after a result saying it was stopped): its token is cancelled and
    its own outcome awaited (tests/test_write_stop.py has the real writer)."""
    tool = Blocking(kind="edit", mutates=True, timeout=0.05)
    r = await asyncio.wait_for(boundary_with(tmp_path, tool).run(call("slow")), BOUND)
    assert r.kind == "timeout" and r.output == "slow: stopped before doing anything"
    assert tool.stopped_by_token and not tool.cancelled


async def test_a_tool_that_enforces_its_own_timeout_is_not_cut_short(tmp_path: Path) -> None:
    """shell and python kill their process group at the call's own ``timeout`` (which may
    exceed ``spec.timeout``); the boundary must not stop them at the spec's."""
    tool = Blocking(kind="exec", timeout=0.01, enforces_timeout=True)
    asyncio.get_running_loop().call_later(0.2, tool.go.set)
    r = await asyncio.wait_for(boundary_with(tmp_path, tool).run(call("slow")), BOUND)
    assert r.kind == "ok" and not tool.cancelled


async def test_shell_keeps_its_own_longer_timeout(tmp_path: Path) -> None:
    from frontier.tools.process import ShellTool

    assert ShellTool.spec.enforces_timeout
    r = await make_boundary(tmp_path).run(call("shell", command="echo hi", timeout=600))
    assert r.kind == "ok"


class Raising(ProbeTool):
    def __init__(self, exc: BaseException, where: str) -> None:
        super().__init__("raiser")
        self.exc, self.where = exc, where

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        if self.where == "prepare":
            raise self.exc
        return Prepared(args=args)

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        raise self.exc


@pytest.mark.parametrize("where", ["prepare", "execute"])
@pytest.mark.parametrize(
    ("exc", "kind", "says"),
    [
        (OSError(errno.ENAMETOOLONG, "File name too long", "a" * 300), "arg", "shorter path"),
        (OSError(errno.ELOOP, "Too many levels of symbolic links", "loop"), "error", "link loop"),
        (PermissionError(errno.EACCES, "Permission denied", "secret"), "error", "permissions"),
        (TimeoutError(errno.ETIMEDOUT, "Connection timed out"), "runtime", "internal error"),
        (OSError(errno.EBADF, "Bad file descriptor"), "runtime", "internal error"),
    ],
)
async def test_file_conditions_are_plain_errors_not_internal_ones(
    tmp_path: Path, where: str, exc: OSError, kind: str, says: str
) -> None:
    r = await boundary_with(tmp_path, Raising(exc, where)).run(call("raiser"))
    assert r.kind == kind
    assert says in r.output
    if kind != "runtime":
        assert "internal error" not in r.output
        assert r.output.startswith(f"raiser: {exc.strerror}")


class JournalStore(FakeStore):
    def __init__(self, fail: bool = False) -> None:
        super().__init__()
        self.fail = fail
        self.asked: list[str] = []

    def journal(self, call_id: str) -> Any:
        self.asked.append(call_id)
        if self.fail:
            raise OSError(28, "database or disk is full")
        return ("journal of", call_id)


class SeesContext(ProbeTool):
    seen: list[ToolContext]

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        self.seen = [ctx]
        return Outcome(kind="ok", output="ok")


async def test_execute_gets_the_stores_journal_for_the_call(tmp_path: Path) -> None:
    tool, store = SeesContext("probe"), JournalStore()
    r = await boundary_with(tmp_path, tool, store).run(call("probe", 7))
    assert r.kind == "ok"
    assert store.asked == ["c7"] and tool.seen[0].journal == ("journal of", "c7")


async def test_a_journal_that_cannot_be_opened_fails_before_anything_runs(tmp_path: Path) -> None:
    tool, store = SeesContext("probe"), JournalStore(fail=True)
    boundary = boundary_with(tmp_path, tool, store)
    r = await boundary.run(call("probe"))
    assert r.kind == "session_persistence_failed" and not hasattr(tool, "seen")
    assert boundary.persistence_failed
