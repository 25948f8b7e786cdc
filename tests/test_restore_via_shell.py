"""`git checkout -- PATH` / `git restore PATH` is the patch putting the index's copies
back (``tools/restore_via_shell.py``): reviewed as a diff of the work it discards,
undoable, done where the sandbox's read-only `.git` made git fail. The files written are
the files git writes, checked against git itself; anything else stays a command, and no
program the repository's config names runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_sandbox_policy import NOBODY, active
from test_tools_fakes import make_boundary

from frontier.app.events import ToolCall
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry
from frontier.tools.restore_via_shell import restore_patch

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

GIT = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=GIT, check=True, capture_output=True, timeout=60)


def repository(root: Path) -> None:
    """Committed files, one change staged, then work on top of everything."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "src").mkdir()
    (root / "f.txt").write_text("a\nb\nc\n")
    (root / "src" / "g.py").write_text("x = 1\n")
    (root / "src" / "h.py").write_text("def h():\n    pass\n")
    (root / "staged.txt").write_text("v1\n")
    git(root, "init", "-q", ".")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    (root / "staged.txt").write_text("v2 staged\n")
    git(root, "add", "staged.txt")
    (root / "staged.txt").write_text("v3 work\n")
    (root / "f.txt").write_text("a\nB\nc\nmy uncommitted work\n")
    (root / "src" / "g.py").write_text("x = 2\n")
    (root / "src" / "h.py").unlink()
    (root / "notes.txt").write_text("untracked: git leaves it\n")


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


PUT_BACK = [
    "git checkout -- f.txt",
    "git checkout -- .",
    "git checkout -q -- src staged.txt",
    "git restore src",
    "git restore --worktree -q -- src/g.py f.txt",
    "git restore staged.txt",  # the index's copy: what was staged, not HEAD's
    "cd src && git checkout -- .",
    "cd src && git restore ../f.txt h.py",
]


@pytest.mark.parametrize("command", PUT_BACK)
async def test_the_files_written_are_the_files_git_writes(tmp_path: Path, command: str) -> None:
    by_git, by_tool = tmp_path / "git", tmp_path / "tool"
    for root in (by_git, by_tool):
        repository(root)
    subprocess.run(["bash", "-c", command], cwd=by_git, env=GIT, check=True, timeout=60)
    name, args = default_registry().meant("shell", {"command": command}, str(by_tool))
    assert name == "apply_patch", command
    result = await make_boundary(by_tool).run(ToolCall("c1", name, dict(args)))
    assert result.ok, result.output
    assert tree(by_tool) == tree(by_git)


async def test_headless_auto_edit_puts_the_file_back_and_undo_brings_the_work_back(
    tmp_path: Path,
) -> None:
    """Under `--approval auto-edit` with nobody to ask, `git checkout -- f.txt` was refused
    as destroying work (and inside the sandbox git failed on the read-only `.git`): now it
    runs as an edit, and the patch's reverse gives the person's work back."""
    repository(tmp_path)
    name, args = default_registry().meant(
        "shell", {"command": "git checkout -- f.txt"}, str(tmp_path)
    )
    approver = PolicyApprover("auto-edit", NOBODY, sandbox=active())
    result = await make_boundary(tmp_path, approver=approver).run(ToolCall("c1", name, dict(args)))
    assert result.ok, result.output
    assert (tmp_path / "f.txt").read_text() == "a\nb\nc\n"
    assert "+my uncommitted work" not in args["patch"] and "-my uncommitted work" in args["patch"]


STAYS = [
    "git checkout f.txt",  # without --, a name may be a branch
    "git checkout HEAD -- f.txt",  # writes the index too
    "git checkout main",
    "git restore --staged f.txt",
    "git restore --source=HEAD~1 f.txt",
    "git restore -s HEAD f.txt",
    "git restore -p f.txt",
    "git restore '*.txt'",  # a pathspec glob
    "git restore ':/f.txt'",  # pathspec magic
    "git checkout -- notes.txt",  # untracked: git's error
    "git checkout -- missing.txt",
    "git checkout -- ../outside.txt",
    "git -C src checkout -- g.py",
    "git checkout -- f.txt && git status",
    "git checkout -- $FILE",
    "git stash",
]


@pytest.mark.parametrize("command", STAYS)
def test_anything_else_stays_a_command(tmp_path: Path, command: str) -> None:
    repository(tmp_path / "ws")
    root = tmp_path / "ws"
    assert default_registry().meant("shell", {"command": command}, str(root))[0] == "shell"


def test_what_a_patch_cannot_put_back_stays_a_command(tmp_path: Path) -> None:
    """A mode change, a link, an executable deleted, CRLF line ends as configured, a
    repository that is none: git's own business, left to the command."""
    root = tmp_path / "ws"
    repository(root)
    (root / "run.sh").write_text("echo hi\n")
    (root / "link").symlink_to("f.txt")
    (root / "tool.sh").write_text("echo tool\n")
    (root / "tool.sh").chmod(0o755)
    git(root, "add", "run.sh", "link", "tool.sh")
    git(root, "commit", "-qm", "more")
    (root / "run.sh").chmod(0o755)
    (root / "link").unlink()
    (root / "link").symlink_to("src/g.py")
    (root / "tool.sh").unlink()
    for path in ("run.sh", "link", "tool.sh"):
        assert restore_patch(f"git checkout -- {path}", {}, str(root)) is None, path
    git(root, "config", "core.autocrlf", "true")
    assert restore_patch("git checkout -- f.txt", {}, str(root)) is None
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "f.txt").write_text("x\n")
    assert restore_patch("git checkout -- f.txt", {}, str(tmp_path / "plain")) is None


def test_no_program_the_repository_names_runs(tmp_path: Path) -> None:
    """The repository's config is the repository's to write: an fsmonitor hook, or a
    filter's smudge (Git LFS's), would run a program outside the sandbox. Neither runs; a
    file whose attributes name a filter stays a command (checkout would run it), and
    every configured driver is switched off for the others."""
    root = tmp_path / "ws"
    repository(root)
    marker = tmp_path / "ran"
    git(root, "config", "core.fsmonitor", f"touch {marker}; echo")
    assert restore_patch("git checkout -- f.txt", {}, str(root)) is not None
    git(root, "config", "filter.lfs.smudge", f"touch {marker}; cat")
    assert restore_patch("git checkout -- f.txt", {}, str(root)) is not None  # not f.txt's
    (root / ".gitattributes").write_text("*.txt filter=lfs\n")
    assert restore_patch("git checkout -- f.txt", {}, str(root)) is None
    (root / ".gitattributes").write_text("")  # the attribute gone, an extension's filter…
    git(root, "config", "filter.lfs.required", "true")
    assert restore_patch("git checkout -- src/g.py", {}, str(root)) is not None
    assert not marker.exists()


def test_a_person_with_git_lfs_installed_still_gets_the_route(tmp_path: Path) -> None:
    """`git lfs install` puts filter.lfs.* in the person's global config, so every
    repository's config names a filter: only a file whose attributes name one stays a
    command, not every file of every repository."""
    root = tmp_path / "ws"
    repository(root)
    git(root, "config", "filter.lfs.smudge", "git-lfs smudge -- %f")
    git(root, "config", "filter.lfs.process", "git-lfs filter-process")
    (root / ".gitattributes").write_text("*.bin filter=lfs diff=lfs merge=lfs -text\n")
    assert restore_patch("git checkout -- f.txt", {}, str(root)) is not None


def test_a_workspace_inside_a_repository_names_its_own_files(tmp_path: Path) -> None:
    """The workspace is a folder of a larger repository: its paths are its own, and `.`
    is only its files."""
    repository(tmp_path / "repo")
    root = tmp_path / "repo" / "src"
    patch = restore_patch("git checkout -- .", {}, str(root))
    assert patch is not None
    assert "+++ b/g.py" in patch and "+++ b/h.py" in patch and "f.txt" not in patch


def test_a_blob_past_what_is_kept_is_not_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's copy is read up to what a patch may keep (4 MiB), never whole: a
    repository's blob is its own to size."""
    from frontier.tools import restore_via_shell

    repository(tmp_path)
    monkeypatch.setattr(restore_via_shell, "KEPT_MAX", 4)
    assert restore_patch("git checkout -- f.txt", {}, str(tmp_path)) is None


async def test_a_crlf_file_is_put_back_with_its_line_ends(tmp_path: Path) -> None:
    """A Windows-made file (CRLF, its last line without an end) comes back byte for byte
    as git writes it."""
    by_git, by_tool = tmp_path / "git", tmp_path / "tool"
    for root in (by_git, by_tool):
        repository(root)
        (root / "win.txt").write_bytes(b"one\r\ntwo\r\nthree")
        git(root, "add", "win.txt")
        git(root, "commit", "-qm", "win")
        (root / "win.txt").write_bytes(b"one\r\nTWO\r\nthree!")
    git(by_git, "checkout", "--", "win.txt")
    name, args = default_registry().meant(
        "shell", {"command": "git checkout -- win.txt"}, str(by_tool)
    )
    assert name == "apply_patch"
    result = await make_boundary(by_tool).run(ToolCall("c1", name, dict(args)))
    assert result.ok, result.output
    assert (by_tool / "win.txt").read_bytes() == (by_git / "win.txt").read_bytes()


def test_a_repository_git_is_slow_on_leaves_the_call_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The git runs of one call share one budget on the event loop (a huge repository's
    `diff-files`): spent, the call stays a command rather than the screen waiting."""
    from frontier.tools import restore_via_shell

    repository(tmp_path)
    monkeypatch.setattr(restore_via_shell, "SECONDS", 0.0)
    assert restore_patch("git checkout -- f.txt", {}, str(tmp_path)) is None
    monkeypatch.setattr(restore_via_shell, "SECONDS", 30.0)
    assert restore_patch("git checkout -- f.txt", {}, str(tmp_path)) is not None
