"""`git apply fix.patch` / `git apply <<'EOF'` is the patch of what git writes
(``tools/git_apply_via_shell.py``): reviewed, undoable, where the command changed files
unreviewed and for good. Git itself says the result, on copies; each case here is
checked against `git apply` run in a copy of the workspace. Anything git would read or
write otherwise in the real workspace stays a command, and no program the repository
names runs.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_restore_via_shell import GIT, git
from test_tools_fakes import make_boundary

from frontier.app.events import ToolCall
from frontier.tools.git_apply_via_shell import git_apply_patch
from frontier.tools.registry import default_registry

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


MODIFY = (
    "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,5 +1,5 @@\n"
    " def f():\n-    return 1\n+    return 10\n \n \n def g():\n"
)
CREATE = """\
diff --git a/pkg/new.py b/pkg/new.py
new file mode 100644
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1,2 @@
+x = 1
+y = 2
"""
DELETE = """\
diff --git a/m.py b/m.py
deleted file mode 100644
--- a/m.py
+++ /dev/null
@@ -1,6 +0,0 @@
-def f():
-    return 1
-
-
-def g():
-    return 2
"""
RENAME = "diff --git a/m.py b/n.py\nsimilarity index 100%\nrename from m.py\nrename to n.py\n"
MODE = "diff --git a/m.py b/m.py\nold mode 100644\nnew mode 100755\n"
TRAILING = MODIFY.replace("+    return 10\n", "+    return 10   \n")
P0 = MODIFY.replace("a/m.py", "m.py").replace("b/m.py", "m.py")


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Git's global settings are the test's, not the developer's."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


def workspace(root: Path, *, repo: bool = True) -> Path:
    root.mkdir(parents=True)
    (root / "m.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    if repo:
        git(root, "init", "-q", ".")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "init")
    return root


def by_git(root: Path, command: str) -> dict[str, bytes]:
    """The files of a copy of ``root`` after bash ran ``command`` in it."""
    copy = root.parent / f"{root.name}-by-git"
    shutil.copytree(root, copy)
    subprocess.run(["bash", "-c", command], cwd=copy, env=GIT, check=True, timeout=60)
    return files(copy)


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


async def routed(root: Path, command: str) -> dict[str, bytes]:
    """The files after the call ``command`` is read as ran through the tools."""
    name, args = default_registry().meant("shell", {"command": command}, str(root))
    assert name == "apply_patch", (command, name)
    result = await make_boundary(root).run(ToolCall("c1", name, args))
    assert result.kind == "ok", result.output
    return files(root)


@pytest.mark.parametrize(
    ("diff", "command"),
    [
        (MODIFY, "git apply fix.patch"),
        (MODIFY, "git apply -v fix.patch"),
        (MODIFY + CREATE, "git apply fix.patch"),
        (P0, "git apply -p0 fix.patch"),
        (TRAILING, "git apply --whitespace=fix fix.patch"),
        (TRAILING, "git apply fix.patch"),
    ],
)
async def test_the_patch_writes_what_git_apply_writes(
    tmp_path: Path, diff: str, command: str
) -> None:
    root = workspace(tmp_path / "ws")
    (root / "fix.patch").write_text(diff)
    expected = by_git(root, command)
    assert await routed(root, command) == expected


@pytest.mark.parametrize("quote", ["'EOF'", "EOF", '"EOF"'])
async def test_a_here_document_diff_is_read_as_bash_gives_it(tmp_path: Path, quote: str) -> None:
    root = workspace(tmp_path / "ws", repo=False)  # no repository: git applies it too
    command = f"git apply <<{quote}\n{MODIFY}{CREATE}EOF"
    expected = by_git(root, command)
    assert await routed(root, command) == expected


def test_what_git_would_do_otherwise_stays_a_command(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    (root / "ok.patch").write_text(MODIFY)
    (root / "bad.patch").write_text(MODIFY.replace(" def g():", " def h():"))
    for name, diff in {"del": DELETE, "mv": RENAME, "mode": MODE}.items():
        (root / f"{name}.patch").write_text(diff)
    (root / "big.patch").write_text(MODIFY + "\n" * (64 * 1024))
    (root / "link.patch").symlink_to(root / "ok.patch")
    commands = [
        "git apply --check ok.patch",  # writes nothing
        "git apply --index ok.patch",  # and the index
        "git apply --cached ok.patch",
        "git apply -3 ok.patch",
        "git apply --reject ok.patch",
        "git apply ok.patch missing.patch",
        "git apply bad.patch",  # git refuses it: the command says why
        "git apply del.patch",
        "git apply mv.patch",
        "git apply mode.patch",
        "git apply big.patch",
        "git apply link.patch",
        "git apply ../ok.patch",
        "cd sub && git apply ../ok.patch",  # git reads the diff's paths from there
        f"cd {tmp_path} && git apply ws/ok.patch",  # outside the workspace
        "cd ~ && git apply ok.patch",  # the shell's to expand
        f"cd {root}/no-such-dir/.. && git apply ok.patch",  # bash's cd fails: nothing runs
        f"cd {root}/m.py/.. && git apply ok.patch",  # not a folder: the same
        "cd no-such-dir/.. && git apply ok.patch",
        "cd - && git apply ok.patch",  # $OLDPWD
        "cd -- - && git apply ok.patch",
        "git apply ok.patch && ls",
        f"git apply <<EOF\n{MODIFY.replace('return 10', 'return $X')}EOF",  # bash expands it
        f"git apply <<'EOF'\n{MODIFY}EOF\nls",
    ]
    for command in commands:
        assert git_apply_patch(command, {}, str(root)) is None, command
    assert git_apply_patch("git apply ok.patch", {"workdir": str(root / "sub")}, str(root)) is None
    (root / "sub").mkdir()  # from a workdir, `cd ..` back to the top is the top
    back = git_apply_patch("cd .. && git apply ok.patch", {"workdir": str(root / "sub")}, str(root))
    assert back is not None
    assert git_apply_patch("git apply ok.patch", {}, str(root)) is not None


@pytest.mark.parametrize("cd", [".", "{root}", "{root}/", "sub/..", "-- {root}"])
async def test_a_cd_to_the_top_first_is_the_same_patch(tmp_path: Path, cd: str) -> None:
    """``cd /the/workspace && git apply fix.patch``, as models prefix their commands: it ran
    unreviewed, a command, where the same line without the ``cd`` was the patch."""
    root = workspace(tmp_path / "ws")
    (root / "sub").mkdir()
    (root / "fix.patch").write_text(MODIFY + CREATE)
    folder = cd.format(root=root)
    expected = by_git(root, "git apply fix.patch")  # a cd to the copy's own top: none
    heredoc = f"cd {folder} && git apply <<'EOF'\n{MODIFY}EOF"
    assert git_apply_patch(heredoc, {}, str(root)) is not None
    assert await routed(root, f"cd {folder} && git apply fix.patch") == expected


def test_a_repository_that_converts_what_git_reads_or_writes_stays_a_command(
    tmp_path: Path,
) -> None:
    """`eol=crlf`, `core.autocrlf`, a filter: git in the workspace would write other bytes
    than a run on copies; and in a repository's subfolder git reads paths from its top."""
    root = workspace(tmp_path / "ws")
    (root / "ok.patch").write_text(MODIFY)
    assert git_apply_patch("git apply ok.patch", {}, str(root)) is not None
    (root / ".gitattributes").write_text("*.py eol=crlf\n")
    assert git_apply_patch("git apply ok.patch", {}, str(root)) is None
    (root / ".gitattributes").write_text("*.py filter=lfs\n")
    assert git_apply_patch("git apply ok.patch", {}, str(root)) is None
    (root / ".gitattributes").write_text("* text=auto\n")  # LF files: nothing converted
    assert git_apply_patch("git apply ok.patch", {}, str(root)) is not None
    (root / ".gitattributes").unlink()
    git(root, "config", "core.autocrlf", "true")
    assert git_apply_patch("git apply ok.patch", {}, str(root)) is None
    git(root, "config", "core.autocrlf", "false")
    assert git_apply_patch("git apply ok.patch", {}, str(root)) is not None

    top = tmp_path / "mono"
    sub = workspace(top / "pkg", repo=False)
    git(top, "init", "-q", ".")
    (sub / "ok.patch").write_text(MODIFY)
    assert git_apply_patch("git apply ok.patch", {}, str(sub)) is None


def test_no_program_the_repository_names_runs(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    (root / "ok.patch").write_text(MODIFY)
    marker = tmp_path / "ran"
    for key in ("core.fsmonitor", "core.pager", "filter.x.clean", "filter.x.smudge"):
        git(root, "config", key, f"touch {marker}")
    (root / ".git" / "hooks" / "post-applypatch").write_text(f"#!/bin/sh\ntouch {marker}\n")
    assert git_apply_patch("git apply ok.patch", {}, str(root)) is not None
    assert not marker.exists()


async def test_in_the_loop_the_call_runs_as_the_patch(tmp_path: Path) -> None:
    """Through the agent loop: the model's `git apply fix.patch` runs as `apply_patch`
    (its command kept beside it; reviewed and undone as any patch), the file changed as
    git changes it."""
    import json

    from scripted import ScriptedClient
    from test_agent_loop import DONE, native_chunks
    from test_shell_routes_in_order import END

    from frontier.app.agent.loop import AgentLoop
    from frontier.app.agent.modes import get_mode
    from frontier.app.events import CallReady

    root = workspace(tmp_path / "ws")
    (root / "fix.patch").write_text(MODIFY)
    registry = default_registry()
    events: list[object] = []
    chunks = native_chunks([("s", "shell", json.dumps({"command": "git apply fix.patch"}))])
    loop = AgentLoop(
        client=ScriptedClient([([*chunks, END], "tool_calls"), DONE]),
        boundary=make_boundary(root, registry=registry),
        registry=registry,
        mode=get_mode("native-inc"),
        root=str(root),
        emit=events.append,
    )
    assert (await loop.send("apply it")).reason == "done"
    ready = next(e for e in events if isinstance(e, CallReady))
    assert (ready.call.name, ready.call.origin) == ("apply_patch", "git apply fix.patch")
    assert (root / "m.py").read_text().startswith("def f():\n    return 10\n")


def test_cd_dash_is_no_folder_and_cd_dash_dash_is_cd() -> None:
    """``cd -`` goes to ``$OLDPWD`` (``cd -- -`` too): read as a folder named ``-``, a
    ``cd -- - && rm a.py`` was the review of deleting ``-/a.py``. ``cd -- DIR`` is how a
    call's ``workdir`` is written."""
    from frontier.tools.patch_via_shell import cd_prefix

    for line in ("cd - && rm a.py", "cd -- - && rm a.py"):
        assert cd_prefix(line) == ("", line)
    assert cd_prefix("cd -- pkg && cat a.md") == ("pkg", "cat a.md")
