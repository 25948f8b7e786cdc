"""A plain `rm -r PATH…` is `remove`'s call (``tools/remove_tree.py``): each file's
deletion reviewed, written by the journaled writer, the emptied folders removed after, as
`rm -r` leaves the workspace (checked against bash), and undone as any edit. Anything it
cannot keep or say stays a command (asked under auto-edit as before).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_sandbox_policy import NOBODY, active
from test_tools_fakes import Approver, make_boundary
from test_undo import Agent, Reviews

from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config
from frontier.app.events import ToolCall
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry
from frontier.tools.remove_tree import MAX_FILES


def workspace(root: Path) -> Path:
    (root / "src" / "legacy" / "deep").mkdir(parents=True)
    (root / "src" / "legacy" / "empty").mkdir()
    (root / "src" / "legacy" / "a.py").write_text("def a():\n    pass\n")
    (root / "src" / "legacy" / "deep" / "b.py").write_bytes(b"\x00binary\xff")
    (root / "src" / "keep.py").write_text("keep = 1\n")
    (root / "notes.txt").write_text("mine\n")
    return root


def listing(root: Path) -> dict[str, bytes | None]:
    """Every file's bytes and every folder (``None``) beneath ``root``."""
    return {
        str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes())
        for p in sorted(root.rglob("*"))
    }


def meant(root: Path, command: str, **more: object) -> tuple[str, dict[str, object]]:
    name, args = default_registry().meant("shell", {"command": command, **more}, str(root))
    return name, dict(args)


@pytest.mark.parametrize(
    "command",
    ["rm -r src/legacy", "rm -rf src/legacy notes.txt", "rm -R -v -- src/legacy/", "rm -rf src"],
)
async def test_rm_r_removes_what_bash_removes(tmp_path: Path, command: str) -> None:
    ours, bash = workspace(tmp_path / "ours"), workspace(tmp_path / "bash")
    subprocess.run(["bash", "-c", command], cwd=bash, check=True, timeout=60)
    name, args = meant(ours, command)
    assert name == "remove", command
    result = await make_boundary(ours).run(ToolCall("c1", name, args))
    assert result.kind == "ok", result.output
    assert listing(ours) == listing(bash)


async def test_the_review_lists_every_file_and_a_declined_one_is_kept(tmp_path: Path) -> None:
    """The person asked sees each file the command would have taken (not the command's
    line alone); a denial removes nothing, and a file whose hunk they decline stays, with
    its folders (the rest go)."""
    from dataclasses import dataclass

    from frontier.tools.contract import Decision, Preview, ToolSpec

    root = workspace(tmp_path / "ws")
    approver = Approver(approve_all=False, reason="no")
    name, args = meant(root, "rm -rf src/legacy")
    denied = await make_boundary(root, approver=approver).run(ToolCall("c1", name, args))
    assert denied.kind == "denied" and (root / "src/legacy/a.py").exists()
    ((_, preview),) = approver.seen
    assert [f.path for f in preview.files] == ["src/legacy/a.py", "src/legacy/deep/b.py"]
    assert all(f.action == "delete" for f in preview.files)

    @dataclass
    class KeepOne:
        async def approve(self, call: ToolCall, spec: ToolSpec, shown: Preview) -> Decision:
            return Decision(True, "keep b", declined=(("src/legacy/deep/b.py", 0),))

    kept = await make_boundary(root, approver=KeepOne()).run(ToolCall("c2", name, args))
    assert kept.kind == "ok", kept.output
    assert not (root / "src/legacy/a.py").exists() and not (root / "src/legacy/empty").exists()
    assert (root / "src/legacy/deep/b.py").read_bytes() == b"\x00binary\xff"


async def test_headless_auto_edit_removes_it_as_an_edit_that_undo_brings_back(
    tmp_path: Path,
) -> None:
    """Under `--approval auto-edit` with nobody to ask, `rm -rf src/legacy` was refused as
    destroying work (a command keeps nothing); as `remove` it runs, and undo puts every
    file back, bytes and folders."""
    ws = workspace(tmp_path / "ws")
    before = listing(ws)
    shell = await make_boundary(
        ws, approver=PolicyApprover("auto-edit", NOBODY, sandbox=active())
    ).run(ToolCall("c0", "shell", {"command": "rm -rf src/legacy"}))
    assert shell.kind == "denied" and (ws / "src/legacy").is_dir(), shell.output

    reviews = Reviews()
    session = create_runtime(
        Config(approval="auto-edit"), approver=reviews, workspace=ws, offline=True
    )
    try:
        agent = Agent(session, reviews, ws)
        name, args = meant(ws, "rm -rf src/legacy")
        await agent.run(name, **args)
        assert not (ws / "src" / "legacy").exists()
        outcome = await session.undo()
        assert outcome.undone, outcome.message
    finally:
        await session.close()
    restored = listing(ws)
    assert restored == {k: v for k, v in before.items() if k != "src/legacy/empty"}


@pytest.fixture
def odd(tmp_path: Path) -> Path:
    root = workspace(tmp_path / "ws")
    (root / "linked").mkdir()
    os.symlink("../notes.txt", root / "linked" / "n.txt")
    (root / "dirlink").mkdir()
    os.symlink("../src", root / "dirlink" / "to-src")
    (root / "many").mkdir()
    for i in range(MAX_FILES + 1):
        (root / "many" / f"f{i}.txt").write_text(f"{i}\n")
    (root / "node_modules" / "x").mkdir(parents=True)
    (root / "node_modules" / "x" / "m.js").write_text("m\n")
    (root / ".git" / "objects").mkdir(parents=True)
    os.mkfifo(root / "src" / "fifo")
    (root / "config").mkdir()
    (root / "config" / "prod.env").write_text("API_KEY=sk-live-0123456789abcdef\n")
    return root


@pytest.mark.parametrize(
    "command",
    [
        "rm -r linked",  # a link inside: rm removes the link, the tool would read through it
        "rm -r dirlink",
        "rm -r many",  # more files than the call keeps
        "rm -rf node_modules",  # a build makes it again: not asked, nothing worth keeping
        "rm -rf .git",
        "rm -rf .",
        "rm -rf src",  # a FIFO inside
        "rm -rf config",  # a file holding a key: the store keeps no copy, so no undo
        "rm -r missing",
        "rm -rf ../outside",
        "rm -rf src/legacy && ls",
        "rm -ri src/legacy",
        "rm -rf $DIR",
    ],
)
def test_what_it_cannot_keep_or_say_stays_a_command(odd: Path, command: str) -> None:
    assert meant(odd, command)[0] == "shell", command


def test_a_row_names_the_paths_and_the_command() -> None:
    from frontier.widgets.pane_state.tools import call_summary

    call = ToolCall("c1", "remove", {"paths": ["src/legacy", "notes.txt"]}, 0, "rm -rf src/legacy")
    assert call_summary(call) == ("src/legacy, notes.txt ← rm -rf src/legacy", 0)


async def test_the_model_reads_the_first_files_and_a_count(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    for i in range(30):
        (tmp_path / "old" / f"f{i:02}.txt").write_text(f"{i}\n")
    name, args = meant(tmp_path, "rm -r old")
    result = await make_boundary(tmp_path).run(ToolCall("c1", name, args))
    assert result.kind == "ok" and not (tmp_path / "old").exists()
    lines = result.output.splitlines()
    assert lines[0] == "D old/f00.txt (+0 −1)" and "… and 10 more files" in lines
    assert lines[-1] == "removed 30 files and 1 folder"
    assert len(result.meta["changes"]) == 30  # the panes list them all


async def test_remove_called_by_name_keeps_its_promise_of_undo(tmp_path: Path) -> None:
    """A model calling `remove` itself on a folder with a file holding a key: refused,
    nothing removed (the store would keep no copy: no undo), as the `rm -r` route leaves
    such a folder to the command."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "a.txt").write_text("a\n")
    (tmp_path / "config" / "prod.env").write_text("API_KEY=sk-live-0123456789abcdef\n")
    result = await make_boundary(tmp_path).run(ToolCall("c1", "remove", {"paths": ["config"]}))
    assert result.kind == "error" and "holds a secret" in result.output, result.output
    assert (tmp_path / "config" / "a.txt").exists() and (tmp_path / "config" / "prod.env").exists()
