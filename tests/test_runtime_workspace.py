"""Where a session works: checked before it starts, movable on resume, demo copies kept."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import pytest

from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config, data_dir
from frontier.app.events import ToolCall
from frontier.app.session.store import SessionStore
from frontier.tools.contract import FilePreview, Preview, ToolSpec
from frontier.tools.policy import PolicyApprover

PATCH = ToolSpec("apply_patch", "", {}, sequential=True, mutates=True, kind="edit")
ENDPOINT = Config(base_url="http://127.0.0.1:9/v1", model="m")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sessions() -> list[str]:
    with SessionStore.open() as store:
        return [s.id for s in store.list_sessions()]


async def test_a_new_session_needs_an_existing_workspace(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"not a directory.*--workspace DIR"):
        create_runtime(ENDPOINT, approver=PolicyApprover("auto"), workspace=tmp_path / "missing")
    assert sessions() == []  # nothing was recorded for a session that never started


async def test_a_workspace_whose_path_is_not_utf8_is_refused_naming_it(tmp_path: Path) -> None:
    """It used to fail inside the store with "'utf-8' codec can't encode character"."""
    odd = Path(os.fsdecode(os.fsencode(tmp_path) + b"/ws-\xff"))
    odd.mkdir()
    shown = os.fsencode(odd).decode("utf-8", "backslashreplace")
    says = rf"path is not valid UTF-8 \({re.escape(shown)}\).*Rename the folder"
    with pytest.raises(ValueError, match=says):
        create_runtime(ENDPOINT, approver=PolicyApprover("auto"), workspace=odd)
    assert sessions() == []

    fine = tmp_path / "fine"
    fine.mkdir()
    with SessionStore.open() as store:
        sid = store.create_session(str(fine), "m", ENDPOINT.base_url, "ctl")
    with pytest.raises(ValueError, match=says):
        create_runtime(ENDPOINT, approver=PolicyApprover("auto"), session_id=sid, workspace=odd)
    with SessionStore.open() as store:
        assert store.get_session(sid).workspace == str(fine)  # not moved there


async def test_resume_after_the_project_moved_reconciles_in_the_new_place(tmp_path: Path) -> None:
    """A crash mid-apply_patch, then the user moves the project: resume --workspace finds it."""
    ws = tmp_path / "project"
    ws.mkdir()
    (ws / "a.py").write_bytes(b"new a\n")  # the patch had been written when Frontier died
    with SessionStore.open() as store:
        sid = store.create_session(str(ws), "m", ENDPOINT.base_url, "ctl")
        preview = Preview(
            "diff", (FilePreview("a.py", None, None, "", sha(b"old a\n"), sha(b"new a\n")),)
        )
        store.persistence(sid).persist_and_start(
            ToolCall("p1", "apply_patch", {"patch": "…"}), PATCH, preview
        )
    moved = tmp_path / "renamed"
    ws.rename(moved)

    with pytest.raises(ValueError, match=rf"{ws} no longer exists.*resume {sid} --workspace DIR"):
        create_runtime(ENDPOINT, approver=PolicyApprover("auto"), session_id=sid)

    runtime = create_runtime(
        ENDPOINT, approver=PolicyApprover("auto"), session_id=sid, workspace=moved
    )
    try:
        assert runtime.workspace == moved.resolve()
        assert [(r.call_id, r.kind) for r in runtime.recovered] == [("p1", "applied")]
        assert runtime.notes == [f"workspace moved: {ws} -> {moved.resolve()}"]
    finally:
        await runtime.aclose()
    with SessionStore.open() as store:
        assert store.get_session(sid).workspace == str(moved.resolve())


async def test_demo_copies_live_in_the_data_dir_and_come_back_if_deleted(tmp_path: Path) -> None:
    runtime = create_runtime(Config(), approver=PolicyApprover("auto"), demo=True, demo_rate=0)
    root, sid = runtime.workspace, runtime.session_id
    await runtime.send("hello")  # answered, so closing keeps it (an unused one is discarded)
    await runtime.aclose()
    assert root.parent == data_dir() / "demo-workspaces"
    assert (root / "README.md").is_file()

    shutil.rmtree(root)
    resumed = create_runtime(Config(), approver=PolicyApprover("auto"), session_id=sid)
    try:
        assert (root / "README.md").is_file()
        assert resumed.notes == [
            f"the demo's scratch copy {root} was gone; made a fresh one",
            "project instructions: AGENTS.md (256 B)",  # the fresh copy's, read again
        ]
    finally:
        await resumed.aclose()
