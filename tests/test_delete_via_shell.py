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
        "rm -r src",  # a folder: a command (asked under auto-edit as destroying work)
        "rm src",
        "rm alias.txt",  # a link: rm removes the link, the patch would read through it
        "rm missing.txt",
        "rm big.log",  # over what the store keeps: nothing to undo with
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
    too; onto a file that exists (lost), a link, a glob or more: a command."""
    assert meant(ws, "mv src/old.py src/new.py") == (
        "apply_patch",
        {"patch": "diff --git a/src/old.py b/src/new.py\nsimilarity index 100%\n"
                  "rename from src/old.py\nrename to src/new.py\n"},
    )  # fmt: skip
    assert "rename to src/notes.txt" in str(meant(ws, "mv notes.txt src/")[1]["patch"])
    assert "rename to lib/old.py" in str(meant(ws, "cd src && mv old.py ../lib/old.py")[1])
    for command in ("mv notes.txt src/old.py", "mv alias.txt x.txt", "mv src/*.py lib/",
                    "mv notes.txt 'a b.txt'", "mv -i notes.txt n.txt", "mv src lib",
                    "mv notes.txt n.txt && ls"):  # fmt: skip
        assert meant(ws, command)[0] == "shell", command
