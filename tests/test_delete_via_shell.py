"""A plain `rm FILE…` is the patch tool's deletion (``tools/delete_via_shell.py``):
reviewed as a diff, undone as any edit, where the command removed the file for good.
Anything else stays a command."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.tools.delete_via_shell import KEPT_MAX, deleted_in_command
from frontier.tools.registry import default_registry


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "old.py").write_text("def old():\n    pass\n")
    (tmp_path / "notes.txt").write_text("mine\n")
    (tmp_path / "big.log").write_bytes(b"x" * (KEPT_MAX + 1))
    (tmp_path / "keys.env").write_text("API_KEY=sk-live-0123456789abcdef\n")
    os.symlink("notes.txt", tmp_path / "alias.txt")
    return tmp_path


def meant(ws: Path, command: object, **more: object) -> tuple[str, dict[str, object]]:
    name, args = default_registry().meant("shell", {"command": command, **more}, str(ws))
    return name, dict(args)


def test_a_plain_rm_is_the_patch_that_deletes_the_files(ws: Path) -> None:
    patch = (
        "*** Begin Patch\n*** Delete File: src/old.py\n*** Delete File: notes.txt\n*** End Patch"
    )
    assert meant(ws, "rm src/old.py notes.txt") == ("apply_patch", {"patch": patch})
    assert meant(ws, "rm -f -- src/old.py ./notes.txt src/old.py")[1] == {"patch": patch}
    assert meant(ws, "cd src && rm old.py")[1]["patch"] == (
        "*** Begin Patch\n*** Delete File: src/old.py\n*** End Patch"
    )
    assert meant(ws, ["bash", "-lc", "rm old.py"], workdir=str(ws / "src"))[0] == "apply_patch"


@pytest.mark.parametrize(
    "command",
    [
        "rm src",
        "rm alias.txt",  # a link: rm removes the link, the patch would read through it
        "rm missing.txt",
        "rm big.log",  # over what the store keeps: nothing to undo with
        "rm keys.env",  # holds a key: the store keeps no copy either
        "rm src/*.py",
        "rm -i notes.txt",
        "rm notes.txt && echo gone",
        "rm notes.txt\nrm src/old.py",
        "rm ../outside.txt",
        "rm $FILE",
        "rm",
    ],
)
def test_anything_else_stays_a_command(ws: Path, command: str) -> None:
    assert meant(ws, command)[0] == "shell"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="rm -fv/.a*$'\"\\\n&;", max_size=60))
def test_any_command_is_read_without_error(command: str) -> None:
    found = deleted_in_command(command, {}, "/nonexistent-root")
    assert found is None or found.startswith("*** Begin Patch")


def test_a_plain_mv_is_the_patch_tools_rename(ws: Path) -> None:
    """`mv OLD NEW` had no review and no undo; it is the patch tool's rename, into a folder
    too; a link, a glob or more: a command (onto a file that exists: below)."""
    assert meant(ws, "mv src/old.py src/new.py") == (
        "apply_patch",
        {"patch": "diff --git a/src/old.py b/src/new.py\nsimilarity index 100%\n"
                  "rename from src/old.py\nrename to src/new.py\n"},
    )  # fmt: skip
    assert "rename to src/notes.txt" in str(meant(ws, "mv notes.txt src/")[1]["patch"])
    assert "rename to lib/old.py" in str(meant(ws, "cd src && mv old.py ../lib/old.py")[1])
    for command in ("mv alias.txt x.txt", "mv src/*.py lib/",
                    "mv notes.txt 'a b.txt'", "mv -i notes.txt n.txt", "mv src lib",
                    "mv notes.txt n.txt && ls"):  # fmt: skip
        assert meant(ws, command)[0] == "shell", command


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Each file's bytes and mode."""
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mode & 0o777)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def swap_workspace(root: Path) -> Path:
    root.mkdir()
    (root / "app.py").write_text("import os\n\n\ndef main():\n    return 1\n")
    (root / "app_new.py").write_text("import os\n\n\ndef main():\n    return 2\n")
    (root / "lib").mkdir()
    (root / "lib" / "app.py").write_text("old lib\n")
    (root / ".env.example").write_text("PORT=8000\n")
    (root / ".env").write_text("PORT=9000\nSECRET=mine\n")
    for p in root.rglob("*"):
        if p.is_file():
            p.chmod(0o644)
    return root


@pytest.mark.parametrize(
    "command",
    [
        "mv app_new.py app.py",
        "mv -f app_new.py app.py",
        "cp app_new.py app.py",
        "cp .env.example .env",
        "mv app.py lib/",  # into a folder, onto its file
        "cp -v app.py lib",
        "cp app_new.py app_v2.py",  # onto a new file (stop 62)
        "cp .env.example .env.local",
        "cp app.py lib/new_app.py",
        "cd lib && cp app.py ../copy.py",
    ],
)
async def test_mv_or_cp_onto_a_file_is_the_patch_of_what_it_does(
    tmp_path: Path, command: str
) -> None:
    """A model swapping in a new version (`mv app_new.py app.py`) or starting from a
    template (`cp .env.example .env`) replaced a file for good, asked as destroying work;
    it is the patch giving the file the lines it gets (`mv`: and deleting the other), the
    files afterwards as bash leaves them, bytes and modes."""
    import subprocess

    from test_tools_fakes import make_boundary

    from frontier.app.events import ToolCall

    ours, bash = swap_workspace(tmp_path / "ours"), swap_workspace(tmp_path / "bash")
    subprocess.run(["bash", "-c", command], cwd=bash, check=True, timeout=60)
    name, args = meant(ours, command)
    assert name == "apply_patch", command
    result = await make_boundary(ours).run(ToolCall("c1", name, args))
    assert result.kind == "ok", result.output
    assert tree(ours) == tree(bash)


def test_mv_or_cp_onto_a_file_stays_a_command_where_a_patch_would_differ(tmp_path: Path) -> None:
    root = swap_workspace(tmp_path / "ws")
    (root / "run.sh").write_text("echo run\n")
    (root / "run.sh").chmod(0o755)
    os.link(root / ".env", root / "env.link")  # two names of one file
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00")
    (root / "long.py").write_text("".join(f"x{i} = {i}\n" for i in range(500)))
    os.symlink("app.py", root / "alias.py")
    os.symlink("gone.py", root / "dangling.py")
    (root / "keys.env").write_text("API_KEY=sk-live-0123456789abcdef\n")
    (root / "keys.env").chmod(0o644)
    for command in (
        "mv -n app_new.py app.py",  # replaces nothing
        "cp -n app_new.py app.py",
        "cp -p app_new.py app.py",
        "cp -r app_new.py app.py",
        "mv -i app_new.py app.py",
        "mv app_new.py run.sh",  # mv gives run.sh app_new.py's mode
        "cp .env.example .env",  # .env has a second name, which cp would change too
        "cp blob.bin app.py",  # not UTF-8
        "cp long.py app.py",  # past the bound of lines a patch may change
        "cp app_new.py alias.py",  # a link
        "cp app.py app.py",
        "mv app_new.py app.py && ls",
        "cp run.sh run2.sh",  # an executable: cp's copy is executable, a patch's is not
        "cp app.py nowhere/new.py",  # no such folder: cp fails, a patch would make it
        "cp app.py dangling.py",  # a dangling link: cp writes through it
        "cp blob.bin blob2.bin",
        "cp long.py long2.py",
        "cp keys.env keys.bak",  # the model would be sent the key
    ):
        assert meant(root, command)[0] == "shell", command


async def test_headless_auto_edit_swaps_the_file_in_as_an_edit(tmp_path: Path) -> None:
    """Under `--approval auto-edit` with nobody to ask, `mv app_new.py app.py` was refused
    as destroying work: it runs as an edit now (undo brings the old file back)."""
    from test_sandbox_policy import NOBODY, active
    from test_tools_fakes import make_boundary

    from frontier.app.events import ToolCall
    from frontier.tools.policy import PolicyApprover

    root = swap_workspace(tmp_path / "ws")
    shell = await make_boundary(
        root, approver=PolicyApprover("auto-edit", NOBODY, sandbox=active())
    ).run(ToolCall("c0", "shell", {"command": "mv app_new.py app.py"}))
    assert shell.kind == "denied" and (root / "app_new.py").exists(), shell.output
    name, args = meant(root, "mv app_new.py app.py")
    approver = PolicyApprover("auto-edit", NOBODY, sandbox=active())
    result = await make_boundary(root, approver=approver).run(ToolCall("c1", name, args))
    assert result.kind == "ok", result.output
    assert (root / "app.py").read_text().endswith("return 2\n")
    assert not (root / "app_new.py").exists()


def test_a_patch_that_would_show_the_model_a_secret_stays_a_command(tmp_path: Path) -> None:
    """The patch made from a file's content is the model's call in every later request,
    sent to its provider: `cp .env.example .env` over a `.env` holding a key would have
    sent the key (the command showed the model nothing). It stays a command; so does a
    `sed -i` whose context lines hold one. An append after such lines is `append`'s call,
    which carries only the model's own text."""
    root = swap_workspace(tmp_path / "ws")
    (root / ".env").write_text("PORT=9000\nAPI_KEY=sk-live-0123456789abcdef\n")
    assert meant(root, "cp .env.example .env")[0] == "shell"
    assert meant(root, "sed -i 's/9000/9001/' .env")[0] == "shell"
    assert meant(root, "echo DEBUG=1 >> .env") == (
        "append", {"path": ".env", "content": "DEBUG=1\n"}
    )  # fmt: skip
    (root / ".env").write_text("PORT=9000\n")
    assert meant(root, "cp .env.example .env")[0] == "apply_patch"
    # a secret in the file replaced, however far from what changes: its content would not
    # be kept for undo (the store keeps no secret), where the command was asked
    (root / ".env").write_text("PORT=9000\n" + "\n" * 20 + "TOKEN=ghp_0123456789abcdef\n")
    assert meant(root, "cp .env.example .env")[0] == "shell"
