"""The ways around issue 22's boundary an audit found, each tried as the model did it.

1. A file tool judged the *name* typed, not the file reached: a link ``notes.cfg`` to
   ``.git/config``, folders linked to ``.git`` and ``.git/hooks``, ``.git/commondir`` and
   a worktree's ``.git`` file were written unreviewed. Now the real path decides, through a
   real boundary and the real tools, and a link swapped after review is refused.
2. Frontier's own ``git status`` at start ran a planted ``filter.*.clean`` (with secrets
   in its environment), ``core.fsmonitor``…: now none of them runs.
3. A workspace inside a repository's subfolder could get a ``.git`` of its own.
4. "Stopped by the sandbox" believed the command's words.
5. A ``sandbox_readable`` folder under ``/tmp`` showed the hidden places in it again, and
   a killed Frontier's private folder and mount points stayed forever.

The policy, start-up and mount-planning parts run everywhere; the parts that run real
commands skip, saying why, where no sandbox can be made.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from test_tools_fakes import model_has_read

from frontier.app.agent.environment import gather_environment
from frontier.app.events import ToolCall, ToolResult
from frontier.tools import sandbox as sandbox_module
from frontier.tools.base import CancelToken, Outcome
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Decision, Preview, ToolContext, ToolSpec
from frontier.tools.git_safely import driver_overrides
from frontier.tools.policy import PolicyApprover, is_protected, protected_paths
from frontier.tools.process import ShellTool
from frontier.tools.registry import default_registry
from frontier.tools.sandbox import (
    MOUNTS,
    PRIVATE_PREFIX,
    Sandbox,
    SandboxSettings,
    _process_tag,
    bwrap_args,
    make_sandbox,
    stopped_by,
    sweep_stale,
)

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
_HERE = make_sandbox(SandboxSettings())
needs_sandbox = pytest.mark.skipif(
    not _HERE.active, reason=f"no OS sandbox on this machine ({_HERE.label})"
)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "home" / "ws"
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("one\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-q", "-m", "first")
    return root


class Person:
    """Approves every review and keeps what it was shown."""

    interactive = True

    def __init__(self) -> None:
        self.seen: list[Preview] = []

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        self.seen.append(preview)
        return Decision(True)


class Swapper:
    """A ``Persistence`` that, as the call row is recorded (after the approval, before the
    write), makes ``link`` point at ``target``: the race a review must not lose."""

    def __init__(self, link: Path, target: str) -> None:
        self.link, self.target = link, target

    def _swap(self) -> None:
        self.link.unlink()
        self.link.symlink_to(self.target)

    def persist_call(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        self._swap()

    def persist_and_start(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        self._swap()

    def mark_started(self, call_id: str) -> None:
        pass

    def commit_result(self, result: ToolResult) -> None:
        pass

    def commit_rejected(self, call: ToolCall, result: ToolResult) -> None:
        pass

    def journal(self, call_id: str) -> None:
        return None


def run(root: Path, policy: str, name: str, args: dict[str, Any], **kw: Any) -> ToolResult:
    """One call through a real boundary with the real tools (headless unless ``ask``); a
    file it writes whole the model has read first (one never read is refused before any
    policy is asked: tools/file_views.py)."""
    approver = PolicyApprover(policy, kw.pop("ask", None))
    boundary = ToolBoundary(default_registry(), root, approver, kw.pop("store", None), **kw)
    if name == "write" and (root / args["path"]).is_file():
        model_has_read(boundary, args["path"])
    return asyncio.run(boundary.run(ToolCall("c1", name, args)))


FSMONITOR = "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch /tmp/pwned\n"

# ------------------------------------------------------------ 1. the file reached decides


@pytest.mark.parametrize(
    "path",
    [
        ".git",  # a linked worktree's .git file (gitdir: …)
        "sub/.git",
        ".git/commondir",
        ".git/modules/x/config",
        ".git/description",
        "vendor/lib/.git/config",
        ".GIT./config",
        ".g\u200cit/config",  # HFS+ ignores the zero-width non-joiner
    ],
)
def test_everything_git_reads_is_protected(path: str) -> None:
    assert is_protected(path)


@pytest.mark.parametrize("policy", ["auto-edit", "auto"])
def test_a_link_to_git_config_is_not_written_unreviewed(repo: Path, policy: str) -> None:
    config = (repo / ".git" / "config").read_bytes()
    (repo / "notes.cfg").symlink_to(".git/config")
    result = run(repo, policy, "write", {"path": "notes.cfg", "content": FSMONITOR})
    assert result.kind == "denied", result.output
    assert "notes.cfg (reaches .git/config) is a protected path" in result.output
    assert (repo / ".git" / "config").read_bytes() == config


@pytest.mark.parametrize(
    ("name", "args", "changed"),
    [
        ("write", {"path": ".git/commondir", "content": "../build\n"}, ".git/commondir"),
        ("write", {"path": "sub/.git/hooks/pre-commit", "content": "x"}, "sub"),
        (
            "multi",
            {"path": "g/config", "edits": [{"old": "bare = false", "new": "bare = false\n\tx=1"}]},
            ".git/config",
        ),
        (
            "apply_patch",
            {"patch": "--- /dev/null\n+++ b/hk/pre-commit\n@@ -0,0 +1,1 @@\n+touch /tmp/pwned\n"},
            ".git/hooks/pre-commit",
        ),
        ("write", {"path": "g/modules/x/config", "content": "y"}, ".git/modules"),
    ],
    ids=["commondir", "nested", "multi-via-folder-link", "patch-via-hooks-link", "new-folders"],
)
def test_folders_linked_into_git_are_protected(
    repo: Path, name: str, args: dict[str, Any], changed: str
) -> None:
    (repo / "g").symlink_to(".git")
    (repo / "hk").symlink_to(".git/hooks")
    before = {p: p.read_bytes() for p in (repo / ".git").rglob("*") if p.is_file()}
    result = run(repo, "auto", name, args)
    assert result.kind == "denied", result.output
    assert not (repo / changed).exists() or changed == ".git/config"
    after = {p: p.read_bytes() for p in (repo / ".git").rglob("*") if p.is_file()}
    assert after == before


def test_a_worktrees_git_file_is_protected(tmp_path: Path) -> None:
    ws = tmp_path / "wt"
    ws.mkdir()
    (ws / ".git").write_text("gitdir: /elsewhere/.git/worktrees/wt\n")
    result = run(ws, "auto-edit", "write", {"path": ".git", "content": "gitdir: build/cache\n"})
    assert result.kind == "denied" and ".git is a protected path" in result.output
    assert (ws / ".git").read_text() == "gitdir: /elsewhere/.git/worktrees/wt\n"


def test_a_person_sees_where_the_link_leads_and_may_approve(repo: Path) -> None:
    (repo / "notes.cfg").symlink_to(".git/config")
    person = Person()
    content = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
    result = run(repo, "auto", "write", {"path": "notes.cfg", "content": content}, ask=person)
    assert result.kind == "ok", result.output
    [shown] = person.seen
    assert "protected: notes.cfg reaches .git/config" in shown.summary
    assert (repo / ".git" / "config").read_text() == content


def test_ordinary_links_and_files_keep_their_policy(repo: Path) -> None:
    (repo / "real.txt").write_text("x\n")
    (repo / "alias.txt").symlink_to("real.txt")
    for path in ("alias.txt", "new/file.txt", ".github/ci.yml"):
        result = run(repo, "auto-edit", "write", {"path": path, "content": "y\n"})
        assert result.kind == "ok", (path, result.output)
    assert (repo / "real.txt").read_text() == "y\n"


def test_protected_paths_without_a_root_judge_the_name_only(repo: Path) -> None:
    (repo / "notes.cfg").symlink_to(".git/config")
    from frontier.tools.contract import FilePreview

    preview = Preview("diff", (FilePreview("notes.cfg", "a", "b", "", "x", "y"),))
    assert protected_paths(preview) == []
    assert protected_paths(preview, str(repo)) == ["notes.cfg (reaches .git/config)"]


def test_a_link_repointed_after_approval_is_not_followed(repo: Path) -> None:
    """Approved as an ordinary file; the link is swapped to ``.git/config`` before the
    write: the write resolves again and refuses a path other than the one reviewed."""
    config = (repo / ".git" / "config").read_bytes()
    (repo / "plain.cfg").write_text("plain\n")
    (repo / "notes.cfg").symlink_to("plain.cfg")
    store = Swapper(repo / "notes.cfg", ".git/config")
    result = run(
        repo, "auto-edit", "write", {"path": "notes.cfg", "content": FSMONITOR}, store=store
    )
    assert result.kind == "error" and "not to plain.cfg as reviewed" in result.output
    assert (repo / ".git" / "config").read_bytes() == config
    assert (repo / "plain.cfg").read_text() == "plain\n"


# -------------------------------------------------------- 2. git at start runs nothing


@needs_git
def test_git_at_start_runs_nothing_the_repository_config_names(repo: Path) -> None:
    marks = repo.parent / "marks"
    marks.mkdir()
    programs = repo.parent / "bin"
    programs.mkdir()
    names = ("fsmonitor", "pager", "ssh", "external", "textconv", "clean", "smudge", "process")
    for name in names:
        script = programs / name
        script.write_text(f"#!/bin/sh\nenv > {marks}/{name}\ncat\n")
        script.chmod(0o755)
    (repo / ".gitattributes").write_text("* filter=pwn diff=t\n*.y filter=p2\n")
    (repo / "b.y").write_text("b\n")
    git(repo, "add", ".gitattributes", "b.y")
    git(repo, "commit", "-q", "-m", "attributes")
    settings = {
        "core.fsmonitor": "fsmonitor",
        "core.pager": "pager",
        "core.sshCommand": "ssh",
        "diff.external": "external",
        "diff.t.textconv": "textconv",
        "filter.pwn.clean": "clean",
        "filter.pwn.smudge": "smudge",
        "filter.p2.process": "process",
    }
    for key, name in settings.items():
        git(repo, "config", key, str(programs / name))
    git(repo, "config", "filter.pwn.required", "true")
    stamp = 1_600_000_000
    for path in (repo / "a.txt", repo / "b.y"):  # changed timestamps: git re-reads them
        os.utime(path, (stamp, stamp))
    # the old command line (fsmonitor and hooks off only) ran the filter: the test can tell
    plain = ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"]
    subprocess.run([*plain, "status", "--porcelain"], cwd=repo, capture_output=True, check=False)
    assert (marks / "clean").exists()
    for mark in marks.iterdir():
        mark.unlink()
    for path in (repo / "a.txt", repo / "b.y"):
        os.utime(path, (stamp + 60, stamp + 60))
    environ = {"PATH": os.environ["PATH"], "HOME": str(repo.parent), "GITHUB_TOKEN": "s3cret"}
    found = gather_environment(repo, today=date(2026, 1, 2), environ=environ, home=repo.parent)
    assert found is not None and found.git is not None, found
    assert found.git.branch == "main" and (found.git.changed, found.git.untracked) == (0, 0)
    assert sorted(p.name for p in marks.iterdir()) == []


def with_submodule(repo: Path, path: str) -> Path:
    """``repo`` with a submodule at ``path`` (one file, ``s.txt``), committed; its folder."""
    source = repo.parent / f"src-{path.replace('/', '-')}"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    (source / "s.txt").write_text("s\n")
    git(source, "add", "s.txt")
    git(source, "commit", "-q", "-m", "s")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), path)
    git(repo, "commit", "-q", "-m", path)
    return repo / path


@needs_git
def test_git_around_a_command_runs_nothing_a_submodules_config_names(repo: Path) -> None:
    """A command can write a nested repository's config (a documented limit): the audit's
    made the submodule ``sub`` a repository of its own with ``filter.evil.clean`` and
    touched a file. Frontier's ``git status`` before and after every command (the changes
    it records) went into the submodule and ran the filter there, outside the sandbox: its
    overrides name only the top repository's drivers. Submodules are not looked into."""
    sub = with_submodule(repo, "sub")
    (sub / ".git").unlink()  # what the command did: rm .git && git init . && ...
    git(sub, "init", "-q", "-b", "main")
    git(sub, "add", "s.txt")
    git(sub, "commit", "-q", "-m", "own")
    mark = repo.parent / "PWNED"
    git(sub, "config", "filter.evil.clean", f"sh -c 'echo ran >> {mark}; cat'")
    (sub / ".gitattributes").write_text("* filter=evil\n")
    stamp = 1_600_000_000
    os.utime(sub / "s.txt", (stamp, stamp))  # git reads the file again: its filter runs
    plain = ["git", "--no-optional-locks", "status", "--porcelain"]  # the test can tell
    subprocess.run(plain, cwd=repo, capture_output=True, check=False)
    assert mark.exists()
    mark.unlink()
    os.utime(sub / "s.txt", (stamp + 60, stamp + 60))
    done = asyncio.run(shell("echo new > a.txt", repo, None))
    assert done.kind == "ok" and (repo / "a.txt").read_text() == "new\n"
    assert not mark.exists()


@needs_sandbox
@needs_git
def test_a_command_cannot_replace_a_submodules_git_nor_move_the_submodule(repo: Path) -> None:
    """The same audit: the person's own ``git status`` goes into submodules, so a
    submodule made a repository of its own with a filter ran it outside the sandbox at
    the person's next status. A submodule's ``.git`` is read-only to commands now, and
    its folder and those above it cannot be moved (``mv vendor v2 && git init
    vendor/lib`` would make one at the same path); its files stay writable."""
    lib = with_submodule(repo, "vendor/lib")
    pointer = (lib / ".git").read_text()
    mark = repo.parent / "PWNED"
    attack = (
        "cd vendor/lib && rm .git && git init -q . && "
        f"git config filter.evil.clean 'sh -c \"echo ran >> {mark}; cat\"' && "
        "echo '* filter=evil' > .gitattributes && touch s.txt"
    )
    box = make_sandbox(SandboxSettings())
    try:
        replaced = asyncio.run(shell(attack, repo, box))
        moved = asyncio.run(
            shell("mv vendor v2 && mkdir -p vendor/lib && git init -q vendor/lib", repo, box)
        )
        moved_lib = asyncio.run(shell("mv vendor/lib vendor/old", repo, box))
        edited = asyncio.run(shell("echo more >> vendor/lib/s.txt", repo, box))
    finally:
        box.close()
    assert replaced.kind == "error" and moved.kind == "error" and moved_lib.kind == "error"
    assert (lib / ".git").read_text() == pointer and not (repo / "v2").exists()
    assert edited.kind == "ok" and (lib / "s.txt").read_text() == "s\nmore\n"
    subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, check=False)
    assert not mark.exists()


def test_a_driver_name_git_cannot_be_told_on_its_command_line_leaves_git_out() -> None:
    names = b"core.bare\0filter.a.b.clean\0diff.t.textconv\0filter.x=y.clean\0"
    assert driver_overrides(names) is None
    fine = driver_overrides(b"core.bare\0filter.lfs.process\0diff.t.textconv\0")
    assert fine is not None
    assert "filter.lfs.process=" in fine and "filter.lfs.required=false" in fine
    assert "diff.t.textconv=" in fine


# ------------------------------------------------ 3. no new .git in a repository's subfolder


@pytest.fixture
def outer() -> Iterator[Path]:
    """A repository outside the host's /tmp (which commands do not see), so a command in
    its subfolder finds it as git would."""
    try:
        base = Path(tempfile.mkdtemp(prefix="frontier-bypass-test-", dir="/var/tmp"))
    except OSError:
        pytest.skip("no writable /var/tmp for a repository a command can see")
    git(base, "init", "-q", "-b", "main")
    (base / "a.txt").write_text("one\n")
    git(base, "add", "a.txt")
    git(base, "commit", "-q", "-m", "first")
    yield base
    shutil.rmtree(base, ignore_errors=True)


@needs_sandbox
@needs_git
def test_no_repository_can_be_made_in_a_repositorys_subfolder(outer: Path) -> None:
    ws = outer / "sub"
    ws.mkdir()
    (ws / "f.txt").write_text("f\n")
    box = make_sandbox(SandboxSettings())
    try:
        made = asyncio.run(
            shell("git init -q . && git config filter.x.clean 'sh x' && echo MADE-IT", ws, box)
        )
        assert made.kind == "error" and "MADE-IT" not in made.output
        assert not (ws / ".git").exists()  # the empty mount point is tidied away
        status = asyncio.run(shell("git status --porcelain", ws, box))
        assert status.kind == "ok" and "sub/" in status.output  # the outer repository's
    finally:
        box.close()


async def shell(command: str, root: Path, sandbox: Sandbox | None) -> Outcome:
    tool, args = ShellTool(), {"command": command}
    ctx = ToolContext(root=str(root), sandbox=sandbox)
    call = ToolCall("c1", "shell", args)  # type: ignore[arg-type]
    return await tool.execute(call, tool.prepare(args, ctx), ctx, CancelToken())


# ---------------------------------------------------- 4. stopped needs more than words

MOUNTS_OF_W: dict[str, Any] = {"root": "/w", "protected": ("/w/.git", "/w/.frontier")}


@pytest.mark.parametrize(
    "output",
    [
        "touch: cannot touch 'a.txt': Read-only file system",
        "echo: Read-only file system",
        "curl: (7) Failed to connect to 192.0.2.7 port 80: Connection refused",
        "mv: cannot move 'build' to 'x': Device or resource busy",
    ],
)
def test_words_without_evidence_are_not_a_sandbox_stop(output: str) -> None:
    assert stopped_by(output, "workspace-write", **MOUNTS_OF_W) is None


def test_a_refused_port_counts_only_where_something_listens_outside(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    line = "curl: (7) Failed to connect to localhost port 8123 after 0 ms: Connection refused"
    monkeypatch.setattr(sandbox_module, "host_listening", lambda: set())
    assert stopped_by(line, "workspace-write", **MOUNTS_OF_W) is None  # refused outside too
    monkeypatch.setattr(sandbox_module, "host_listening", lambda: {8123})
    assert "network" in (stopped_by(line, "workspace-write", **MOUNTS_OF_W) or "")


def test_evidence_is_judged_by_the_deepest_mount() -> None:
    line = "OSError: [Errno 30] Read-only file system: '{}'"
    judge = dict(MOUNTS_OF_W, writable=("/srv/cache",), hidden=("/srv/cache/keys",))
    assert stopped_by(line.format("/srv/cache/x"), "workspace-write", **judge) is None
    for path in ("/srv/cache/keys/k", "/srv/other", "/w/.frontier/x"):
        assert stopped_by(line.format(path), "workspace-write", **judge), path
    assert "read-only" in (stopped_by(line.format("/w/a"), "read-only", **judge) or "")
    assert stopped_by(line.format("/tmp/a"), "read-only", **judge) is None


@needs_sandbox
def test_a_command_printing_the_words_is_not_offered_outside(tmp_path: Path) -> None:
    box = make_sandbox(SandboxSettings())
    try:
        fake = "echo \"touch: cannot touch 'a.txt': Read-only file system\" >&2; exit 1"
        out = asyncio.run(shell(fake, tmp_path, box))
        assert out.kind == "error" and "sandbox_stopped" not in out.meta
        real = asyncio.run(shell("touch /usr/frontier-audit-22", tmp_path, box))
        assert real.kind == "error" and "a write outside" in real.meta["sandbox_stopped"]
    finally:
        box.close()


# ------------------------------------------- 5. readable folders under /tmp, stale folders


def test_hidden_places_inside_a_readable_folder_stay_hidden(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "data").mkdir(parents=True)
    (shared / "data" / "sessions.db").write_text("secret")
    ws = shared / "ws"
    ws.mkdir()
    settings = SandboxSettings(readable=(str(shared),), private=(str(shared / "data"),))
    args = bwrap_args(settings, str(ws), str(tmp_path / "tmp"), environ={})
    bound = args.index(str(shared))
    covered = args.index(str(shared / "data"))
    workspace = [i for i, a in enumerate(args) if a == str(ws) and args[i - 2] == "--bind"]
    assert bound < covered  # the cover is laid over the folder shown, not under it
    assert workspace and bound < workspace[0]  # and the workspace stays writable


@needs_sandbox
def test_a_readable_folder_under_tmp_does_not_show_the_session_store(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "data").mkdir(parents=True)
    (shared / "data" / "sessions.db").write_text("secret-sessions")
    (shared / "notes.txt").write_text("shared notes\n")
    ws = shared / "ws"
    ws.mkdir()
    box = make_sandbox(SandboxSettings(readable=(str(shared),), private=(str(shared / "data"),)))
    try:
        out = asyncio.run(shell(f"cat {shared}/notes.txt; cat {shared}/data/sessions.db", ws, box))
        assert "shared notes" in out.output and "secret-sessions" not in out.output
        wrote = asyncio.run(shell("echo x > made.txt", ws, box))
        assert wrote.kind == "ok" and (ws / "made.txt").exists()
    finally:
        box.close()


@pytest.fixture
def temp(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "tmp"
    folder.mkdir()
    yield folder


def test_a_dead_sessions_folder_and_empty_mount_points_are_swept(
    tmp_path: Path, temp: Path
) -> None:
    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc: a process cannot be told alive here")
    ws = tmp_path / "ws"
    (ws / ".frontier").mkdir(parents=True)  # left by a kill -9, empty
    (ws / ".git").mkdir()
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # a real one: kept
    pid = os.getpid()
    dead = temp / f"{PRIVATE_PREFIX}{pid}-1-dead"  # this pid, another start: gone
    (dead / "tmp").mkdir(parents=True)
    (dead / MOUNTS).write_text(f"{ws / '.frontier'}\n{ws / '.git'}\n/etc\n")
    alive = temp / f"{PRIVATE_PREFIX}{_process_tag()}-alive"
    (alive / "tmp").mkdir(parents=True)
    other = temp / "frontier-sandbox-legacy"
    other.mkdir()
    removed = sweep_stale(str(temp))
    assert sorted(removed) == sorted([str(ws / ".frontier"), str(dead)])
    assert alive.exists() and other.exists() and (ws / ".git" / "HEAD").exists()


def test_a_mount_point_a_living_session_uses_is_kept(tmp_path: Path, temp: Path) -> None:
    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc: a process cannot be told alive here")
    place = tmp_path / "ws" / ".frontier"
    place.mkdir(parents=True)
    dead = temp / f"{PRIVATE_PREFIX}{os.getpid()}-1-dead"
    alive = temp / f"{PRIVATE_PREFIX}{_process_tag()}-alive"
    for folder in (dead, alive):
        folder.mkdir()
        (folder / MOUNTS).write_text(f"{place}\n")
    assert sweep_stale(str(temp)) == [str(dead)]
    assert place.exists()


@needs_sandbox
def test_a_sandbox_records_its_mount_points(tmp_path: Path) -> None:
    box = make_sandbox(SandboxSettings())
    try:
        asyncio.run(shell("true", tmp_path, box))
        base = Path(box.temp_dir()).parent
        assert base.name.startswith(f"{PRIVATE_PREFIX}{_process_tag()}-")
        recorded = (base / MOUNTS).read_text().splitlines()
        assert str(tmp_path / ".git") in recorded and str(tmp_path / ".frontier") in recorded
    finally:
        box.close()
