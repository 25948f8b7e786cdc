"""Recovery: calls without results are reconciled from hashes and start marks, never re-run."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app.events import ToolCall, ToolResult
from frontier.app.session.store import SessionStore
from frontier.tools.contract import FilePreview, Preview, ToolSpec
from frontier.tools.workspace_files import BeneathFiles

SHELL = ToolSpec("shell", "", {}, sequential=True, kind="exec")
PATCH = ToolSpec("apply_patch", "", {}, sequential=True, mutates=True, kind="edit")


def h(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def persist_mutation(
    store: SessionStore, sid: str, changes: dict[str, tuple[bytes | None, bytes | None]], cid="p1"
) -> None:
    files = tuple(
        FilePreview(p, None, None, "", h(pre), h(post)) for p, (pre, post) in changes.items()
    )
    persistence = store.persistence(sid)
    persistence.persist_call(
        ToolCall(cid, "apply_patch", {"patch": "…"}), PATCH, Preview("diff", files)
    )
    persistence.mark_started(cid)


def put(root: Path, path: str, data: bytes | None) -> None:
    p = root / path
    if data is None:
        p.unlink(missing_ok=True)
    else:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


@pytest.fixture
def env(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    store = SessionStore.open(tmp_path / "sessions.db")
    sid = store.create_session(str(ws), "m", None, "ctl")
    yield store, sid, ws
    store.close()


CHANGES = {"a.py": (b"old a\n", b"new a\n"), "pkg/b.py": (b"old b\n", b"new b\n")}


def test_mutation_fully_written_is_applied(env) -> None:
    store, sid, ws = env
    persist_mutation(store, sid, CHANGES)
    for path, (_, post) in CHANGES.items():
        put(ws, path, post)
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "applied" and result.ok
    assert "Do not apply it again" in result.output
    assert result.meta["recovered"] is True


def test_mutation_not_written_is_not_applied(env) -> None:
    store, sid, ws = env
    persist_mutation(store, sid, CHANGES)
    for path, (pre, _) in CHANGES.items():
        put(ws, path, pre)
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "not_applied"
    assert "Issue the change again" in result.output


def test_half_written_mutation_is_diverged_and_names_each_file(env) -> None:
    store, sid, ws = env
    persist_mutation(store, sid, CHANGES)
    put(ws, "a.py", b"new a\n")
    put(ws, "pkg/b.py", b"old b\n")
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "diverged"
    assert "a.py: has the approved change" in result.output
    assert "pkg/b.py: unchanged" in result.output
    assert result.meta["files"]["a.py"]["state"] == "applied"


def test_file_changed_by_someone_else_is_diverged_with_hashes(env) -> None:
    store, sid, ws = env
    persist_mutation(store, sid, {"a.py": (b"old\n", b"new\n")})
    put(ws, "a.py", b"edited by hand\n")
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "diverged"
    old, new, now = h(b"old\n")[:12], h(b"new\n")[:12], h(b"edited by hand\n")[:12]
    assert f"expected {old} before or {new} after, found {now}" in result.output
    assert "Read these files" in result.output


def test_creation_and_deletion_compare_by_absence(env) -> None:
    store, sid, ws = env
    persist_mutation(store, sid, {"new.py": (None, b"hello\n"), "gone.py": (b"bye\n", None)})
    put(ws, "new.py", b"hello\n")
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "applied"
    persist_mutation(store, sid, {"new2.py": (None, b"x\n"), "old.py": (b"y\n", None)}, cid="p2")
    put(ws, "old.py", b"y\n")
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "not_applied"


def test_exec_call_that_started_is_interrupted(env) -> None:
    store, sid, _ = env
    p = store.persistence(sid)
    p.persist_call(
        ToolCall("c1", "shell", {"command": "make"}), SHELL, Preview("command", command="make")
    )
    p.mark_started("c1")
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "interrupted"
    assert "outcome unknown: check before retrying" in result.output


def _running_command_held(store: SessionStore, sid: str, held: object) -> None:
    """A started ``shell`` call whose watch kept ``held`` before it ran (as
    ``StoreJournal.hold`` does), then no result: Frontier died while it ran."""
    import json

    p = store.persistence(sid)
    call = ToolCall("c1", "shell", {"command": "sh fmt.sh"})
    p.persist_call(call, SHELL, Preview("command", command="sh fmt.sh"))
    p.mark_started("c1")
    store.db.write(
        "test",
        lambda c: c.execute(
            "INSERT INTO intents (session_id, call_id, t, entries, state) "
            "VALUES (?, 'c1', 0, ?, 'holding')",
            (sid, json.dumps(held)),
        ),
    )


def _held(before: list[list[object]], files: list[str]) -> dict[str, object]:
    return {"held": 1, "files": files, "folders": [], "before": before, "found": [],
            "listed": [], "git": None}  # fmt: skip


def test_a_command_s_changes_are_told_from_what_it_held_and_only_beneath_the_root(
    env, tmp_path: Path
) -> None:
    """What a command's watch held is read back from the store after a crash: a row
    Frontier would not write (a path out of the workspace) is refused whole and touches
    nothing, and the result says what the command changed is not known."""
    store, sid, _ = env
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    crafted = _held([["../outside.txt", h(b"x"), 0o644]], ["../outside.txt"])
    _running_command_held(store, sid, crafted)
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "interrupted"
    assert "[what it changed is not known: what it held before it ran is not a record" in (
        result.output
    )
    assert "targets" not in result.meta and result.meta["unwatched"]
    assert outside.read_text() == "secret\n"
    assert not store.db.read("SELECT 1 FROM intents WHERE state = 'holding'")


def test_a_command_whose_earlier_content_was_not_kept_is_a_change_not_a_creation(env) -> None:
    """A held file whose bytes the store did not keep (a secret in it): the change is still
    named, its hash kept, and an undo cannot take it for a file the command made."""
    store, sid, ws = env
    (ws / "a.py").write_text("changed\n")
    _running_command_held(store, sid, _held([["a.py", h(b"before\n"), 0o644]], ["a.py"]))
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.meta["files"] == ["a.py"]
    (target,) = result.meta["targets"]
    assert target["pre"] == h(b"before\n") and target["post"] == h(b"changed\n")
    assert result.meta["changes"][0]["status"] == "M"
    assert "[the command changed 1 file: M a.py (lines not counted)]" in result.output


def test_a_held_record_that_breaks_its_reading_never_stops_recovery(env) -> None:
    """A hash that is a 64-digit number passes a text check and then breaks SQLite's
    lookup: recovery must still close every call (else the session never opens again)."""
    store, sid, _ = env
    _running_command_held(store, sid, _held([["a.py", int("1" * 64), 0o644]], ["a.py"]))
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "interrupted" and "[what it changed is not known:" in result.output
    assert store.unresolved_calls(sid) == []


def test_call_persisted_and_started_in_one_commit_is_interrupted(env) -> None:
    """The boundary's one-fsync path: a crash after it must never read as not_executed."""
    store, sid, _ = env
    rid = store.begin_response(sid, "ctl", "m", 0)
    p = store.persistence(sid)
    p.persist_and_start(
        ToolCall("c1", "shell", {"command": "make"}), SHELL, Preview("command", command="make")
    )
    (call,) = store.calls(sid)
    assert call.response_id == rid
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "interrupted"


def test_exec_call_never_started_is_not_executed(env) -> None:
    store, sid, _ = env
    p = store.persistence(sid)
    p.persist_call(
        ToolCall("c1", "shell", {"command": "make"}), SHELL, Preview("command", command="make")
    )
    (result,) = store.recover(sid, files=BeneathFiles)
    assert result.kind == "not_executed"
    assert "did not run" in result.output


def test_recovery_is_committed_ordered_and_idempotent(env, tmp_path: Path) -> None:
    store, sid, ws = env
    p = store.persistence(sid)
    p.persist_call(ToolCall("c1", "read", {"path": "x"}), ToolSpec("read", "", {}), Preview("none"))
    p.mark_started("c1")
    p.commit_result(ToolResult("c1", "read", "ok", "done"))
    p.persist_call(ToolCall("c2", "shell", {}), SHELL, Preview("command", command="ls"))
    p.mark_started("c2")
    p.persist_call(ToolCall("c3", "shell", {}), SHELL, Preview("command", command="ls"))
    store.close()
    with SessionStore.open(store.path) as again:
        results = again.recover(sid, ws, files=BeneathFiles)
        assert [(r.call_id, r.kind) for r in results] == [
            ("c2", "interrupted"),
            ("c3", "not_executed"),
        ]
        assert again.recover(sid, ws, files=BeneathFiles) == []
        assert [c.result.kind for c in again.calls(sid)] == ["ok", "interrupted", "not_executed"]
    with SessionStore.open(store.path) as third:
        assert third.unresolved_calls(sid) == []


def test_recovery_uses_the_session_workspace_by_default(env) -> None:
    store, sid, ws = env
    persist_mutation(store, sid, {"a.py": (b"1", b"2")})
    put(ws, "a.py", b"2")
    assert store.recover(sid, files=BeneathFiles)[0].kind == "applied"


STATES = st.sampled_from(["pre", "post", "other", "absent"])


# 60, not the profile's 200: each example creates a store and commits a call with fsync;
# 4 states over at most 4 files are covered many times over
@settings(max_examples=60)
@given(states=st.lists(STATES, min_size=1, max_size=4))
def test_recovery_kind_follows_file_states(tmp_path_factory, states: list[str]) -> None:
    """applied iff every file is at post; not_applied iff every file is at pre; else diverged."""
    root = tmp_path_factory.mktemp("prop")
    ws = root / "ws"
    ws.mkdir()
    with SessionStore.open(root / "s.db") as store:
        sid = store.create_session(str(ws), "m", None, "ctl")
        changes = {
            f"f{i}.txt": (f"pre {i}".encode(), f"post {i}".encode()) for i in range(len(states))
        }
        persist_mutation(store, sid, changes)
        for (path, (pre, post)), state in zip(changes.items(), states, strict=True):
            put(ws, path, {"pre": pre, "post": post, "other": b"zzz", "absent": None}[state])
        (result,) = store.recover(sid, files=BeneathFiles)
    expected = (
        "applied"
        if set(states) == {"post"}
        else "not_applied"
        if set(states) == {"pre"}
        else "diverged"
    )
    assert result.kind == expected
    if expected == "diverged":
        for i, state in enumerate(states):
            assert f"f{i}.txt" in result.output
            assert (
                result.meta["files"][f"f{i}.txt"]["state"]
                == {
                    "pre": "unchanged",
                    "post": "applied",
                    "other": "other",
                    "absent": "other",
                }[state]
            )
