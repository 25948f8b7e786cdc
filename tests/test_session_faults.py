"""Fault injection at every commit point of a turn, with a side-effect probe.

A small turn runs the way the tool boundary does it (persist call → mark
started → side effect → commit result; the turn ends at the first persistence
failure). Each commit point in turn is made to fail with a real SQLite
"disk full" error inside its transaction. The probe file proves which side
effects happened; after a restart and recovery the store must agree with it
in every case: no effect without a call row, no effect repeated, no result the
model saw that is not on disk, and every call reconciled truthfully.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from test_tools_fakes import model_has_read

from frontier.app.events import ToolCall, ToolResult
from frontier.app.model.conversation import UserText
from frontier.app.session.store import SessionStore, StoreError
from frontier.tools.contract import FilePreview, Preview, ToolSpec
from frontier.tools.workspace_files import BeneathFiles

WRITE = ToolSpec("write", "", {}, sequential=True, mutates=True, kind="edit")
SHELL = ToolSpec("shell", "", {}, sequential=True, kind="exec")
PRE, POST = b"version 1\n", b"version 2\n"
TEXTS = ("I'll update the file. ", "Now the tests. ", "All done.")


@dataclass
class Turn:
    """What the model would have seen, and what the probe says happened."""

    seen: list[ToolResult] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    failed: str | None = None


def probe_lines(ws: Path) -> list[str]:
    p = ws / "probe.log"
    return p.read_text().splitlines() if p.exists() else []


def run_call(
    store: SessionStore,
    sid: str,
    call: ToolCall,
    spec: ToolSpec,
    preview: Preview,
    effect: Callable[[], str],
) -> ToolResult:
    """The boundary's persist → start → execute → commit, as DESIGN §5 orders it."""
    persistence = store.persistence(sid)
    failed = ToolResult(call.id, call.name, "session_persistence_failed", "")
    try:
        persistence.persist_call(call, spec, preview)
        persistence.mark_started(call.id)
    except StoreError as exc:
        return ToolResult(call.id, call.name, "session_persistence_failed", str(exc))
    output = effect()
    result = ToolResult(call.id, call.name, "ok", output, exit_code=0)
    try:
        persistence.commit_result(result)
    except StoreError as exc:
        return ToolResult(call.id, call.name, failed.kind, str(exc))
    return result


def run_turn(store: SessionStore, sid: str, ws: Path) -> Turn:
    turn = Turn()
    probe = ws / "probe.log"

    def write_effect() -> str:
        with probe.open("a") as fh:
            fh.write("write a.txt\n")
        (ws / "a.txt").write_bytes(POST)
        return "wrote a.txt"

    def shell_effect() -> str:
        with probe.open("a") as fh:
            fh.write("shell make test\n")
        return "tests passed"

    preview = Preview(
        "diff",
        files=(
            FilePreview(
                "a.txt",
                "",
                "",
                "",
                hashlib.sha256(PRE).hexdigest(),
                hashlib.sha256(POST).hexdigest(),
            ),
        ),
    )
    steps: list[Callable[[], None]] = []

    def text(t: str) -> Callable[[], None]:
        def go() -> None:
            store.add_assistant_text(sid, t)
            turn.texts.append(t)

        return go

    def call(
        c: ToolCall, spec: ToolSpec, pv: Preview, eff: Callable[[], str]
    ) -> Callable[[], None]:
        def go() -> None:
            result = run_call(store, sid, c, spec, pv, eff)
            if result.kind == "session_persistence_failed":
                raise StoreError(result.output)
            turn.seen.append(result)

        return go

    steps = [
        lambda: store.append_items(sid, [UserText("bump the version")]),
        text(TEXTS[0]),
        call(ToolCall("c1", "write", {"path": "a.txt"}), WRITE, preview, write_effect),
        text(TEXTS[1]),
        call(
            ToolCall("c2", "shell", {"command": "make test"}),
            SHELL,
            Preview("command", command="make test"),
            shell_effect,
        ),
        text(TEXTS[2]),
    ]
    for step in steps:
        try:
            step()
        except StoreError as exc:  # the turn ends session_persistence_failed; nothing more runs
            turn.failed = str(exc)
            break
    return turn


def commit_points(tmp_path: Path) -> list[str]:
    """The commit points of a clean turn, in order (found by running it once)."""
    ws = tmp_path / "clean"
    ws.mkdir()
    (ws / "a.txt").write_bytes(PRE)
    points: list[str] = []
    with SessionStore.open(tmp_path / "clean.db") as store:
        sid = store.create_session(str(ws), "m", None, "ctl")
        store.fault_hook = points.append
        turn = run_turn(store, sid, ws)
    assert turn.failed is None
    return points


CLEAN_POINTS = [
    "message",
    "assistant",
    "call",
    "started",
    "result",
    "assistant",
    "call",
    "started",
    "result",
    "assistant",
]


def test_clean_turn_commit_points(tmp_path: Path) -> None:
    assert commit_points(tmp_path) == CLEAN_POINTS


@pytest.mark.parametrize(
    "index", range(len(CLEAN_POINTS)), ids=[f"{i}-{p}" for i, p in enumerate(CLEAN_POINTS)]
)
def test_fault_at_commit_point(tmp_path: Path, index: int) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_bytes(PRE)
    db = tmp_path / "sessions.db"
    counter = iter(range(10_000))

    def disk_full_at(point: str) -> None:
        if next(counter) == index:
            raise sqlite3.OperationalError("database or disk is full")

    store = SessionStore.open(db)
    sid = store.create_session(str(ws), "m", None, "ctl")
    store.fault_hook = disk_full_at
    turn = run_turn(store, sid, ws)
    store.close()

    # The failure ended the turn visibly, with advice.
    assert turn.failed is not None and "free space in" in turn.failed

    effects = probe_lines(ws)
    # Nothing ran after the failed commit; nothing ran twice.
    expected_effects = ["write a.txt", "shell make test"][
        : sum(1 for p in CLEAN_POINTS[:index] if p == "started")
    ]
    assert effects == expected_effects
    # No torn file: a.txt is exactly one version.
    assert (ws / "a.txt").read_bytes() in (PRE, POST)

    # Restart: reopen, reconcile, compare with the probe.
    with SessionStore.open(db) as again:
        recovered = again.recover(sid, files=BeneathFiles)
        calls = {c.call_id: c for c in again.calls(sid)}
        texts = [r.data["text"] for r in again.records(sid) if r.type == "assistant"]
        assert again.unresolved_calls(sid) == []
        assert again.recover(sid, files=BeneathFiles) == []  # nothing is reconciled twice

    # Persist before execute: every effect has a call row.
    ran = {"write a.txt": "c1", "shell make test": "c2"}
    for effect in effects:
        assert ran[effect] in calls
    # What the model saw is exactly what is committed.
    for seen in turn.seen:
        assert calls[seen.call_id].result == seen
    # Recovery told the truth about every call the probe knows.
    seen_ids = {r.call_id for r in turn.seen}
    for cid, call in calls.items():
        happened = any(ran[e] == cid for e in effects)
        if cid in seen_ids:
            expected = "ok"
        elif cid == "c1":
            expected = "applied" if happened else "not_applied"
        else:
            expected = "interrupted" if happened else "not_executed"
        assert call.result.kind == expected, (cid, happened, call.result)
    if "c1" in calls and calls["c1"].result.kind == "applied":
        assert (ws / "a.txt").read_bytes() == POST
    # Confirmed assistant text is stored up to (not including) a failed text commit.
    assert texts == turn.texts
    # A call is reconciled only when its result commit was what failed or it never got one.
    assert {r.call_id for r in recovered} == {
        c for c, call in calls.items() if call.result.meta.get("recovered")
    }


def test_store_keeps_working_after_a_failed_commit(tmp_path: Path) -> None:
    """A failed transaction rolls back completely; the next write succeeds and nothing leaks."""
    store = SessionStore.open(tmp_path / "s.db")
    sid = store.create_session(str(tmp_path), "m", None, "ctl")
    rid = store.begin_response(sid, "ctl", "m", 0)
    store.add_stream_event(rid, 0.0, "call c1 read\n")

    def fail(point: str) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    store.fault_hook = fail
    with pytest.raises(StoreError, match="free space"):
        store.persistence(sid).persist_call(
            ToolCall("c1", "read", {}), ToolSpec("read", "", {}), Preview("none")
        )
    store.fault_hook = None
    assert store.calls(sid) == []
    store.add_stream_event(rid, 0.1, "end\n")
    store.end_response(rid, "stop")
    assert [d for _, d in store.recordings(sid)[0].events] == ["call c1 read\n", "end\n"]
    store.close()


# --------------------------------------------------------------------------- real boundary

BOUNDARY_CASES = [
    # (failing point, tool) -> the probe and the reconciled kind must agree
    ("call", "write"),
    ("started", "write"),
    ("result", "write"),
    ("call", "shell"),
    ("started", "shell"),
    ("result", "shell"),
]


@pytest.mark.parametrize(
    ("point", "tool"), BOUNDARY_CASES, ids=[f"{t}-{p}" for p, t in BOUNDARY_CASES]
)
async def test_real_boundary_with_a_failing_commit(tmp_path: Path, point: str, tool: str) -> None:
    """The tools' own ToolBoundary over SessionPersistence: a failed commit is
    ``session_persistence_failed``, nothing runs after a failed call/start commit,
    and recovery matches what the probe saw."""
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.policy import PolicyApprover
    from frontier.tools.registry import default_registry

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_bytes(PRE)
    db = tmp_path / "sessions.db"
    store = SessionStore.open(db)
    sid = store.create_session(str(ws), "m", None, "ctl")
    persistence = store.persistence(sid)
    if point == "started":
        # run() records the call and its start in one commit; the separate start commit
        # exists on the two-commit path (parallel batch segments): exercise that one.
        def two_commits(call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
            persistence.persist_call(call, spec, preview)
            persistence.mark_started(call.id)

        persistence.persist_and_start = two_commits  # type: ignore[method-assign]
    boundary = ToolBoundary(default_registry(), ws, PolicyApprover("auto"), persistence)

    def fail(p: str) -> None:
        if p == point:
            raise sqlite3.OperationalError("database or disk is full")

    store.fault_hook = fail
    if tool == "write":
        model_has_read(boundary, "a.txt")
        call = ToolCall("c1", "write", {"path": "a.txt", "content": POST.decode()})
    else:
        call = ToolCall("c1", "shell", {"command": "echo ran >> probe.log"})
    result = await boundary.run(call)
    store.fault_hook = None
    assert result.kind == "session_persistence_failed"
    assert "free space in" in result.output
    store.close()

    happened = (
        (ws / "a.txt").read_bytes() == POST if tool == "write" else probe_lines(ws) == ["ran"]
    )
    assert happened == (point == "result")  # persist-before-execute: no commit, no effect
    assert (ws / "a.txt").read_bytes() in (PRE, POST)
    with SessionStore.open(db) as again:
        recovered = again.recover(sid, files=BeneathFiles)
        calls = again.calls(sid)
    if point == "call":
        assert calls == [] and recovered == []
        return
    (rec,) = recovered
    expected = {
        ("started", "write"): "not_applied",
        ("result", "write"): "applied",
        ("started", "shell"): "not_executed",
        ("result", "shell"): "interrupted",
    }[(point, tool)]
    assert rec.kind == expected
    assert calls[0].result == rec
