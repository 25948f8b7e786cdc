"""Failure atomicity: nothing changes unless every file can be written; never a torn file."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.tools import atomic
from frontier.tools.patch_engine import PatchError, apply_patch

FILES = {f"f{i}.txt": "".join(f"file {i} line {n}\n" for n in range(20)) for i in range(5)}


def _setup(root: Path) -> None:
    for name, text in FILES.items():
        (root / name).write_text(text)


def _patch(bad_index: int | None = None) -> str:
    parts = []
    for i, name in enumerate(FILES):
        first = f"file {i} line 0"
        if i == bad_index:
            first = "this context is not in the file"
        parts.append(
            f"--- a/{name}\n+++ b/{name}\n@@ -1,2 +1,2 @@\n {first}\n-file {i} line 1\n"
            f"+changed {i}\n"
        )
    parts.append("--- /dev/null\n+++ b/created.txt\n@@ -0,0 +1 @@\n+new\n")
    return "".join(parts)


def _state(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())}


def test_third_file_failing_leaves_every_file_identical(tmp_path: Path) -> None:
    _setup(tmp_path)
    before = _state(tmp_path)
    with pytest.raises(PatchError, match=r"f2\.txt hunk 1/1"):
        apply_patch(tmp_path, _patch(bad_index=2))
    assert _state(tmp_path) == before


def test_rename_fault_mid_way_restores_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(tmp_path)
    before = _state(tmp_path)
    calls = {"n": 0}
    real = atomic._replace

    def flaky(src: str, dst: str, dir_fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        real(src, dst, dir_fd)

    monkeypatch.setattr(atomic, "_replace", flaky)
    with pytest.raises(PatchError, match=r"No space left on device.*put back; nothing changed"):
        apply_patch(tmp_path, _patch())
    assert _state(tmp_path) == before


@given(st.integers(1, 6), st.booleans())
def test_any_rename_fault_leaves_each_file_old_or_new(
    tmp_path_factory: pytest.TempPathFactory, fail_at: int, rollback_fails: bool
) -> None:
    root = tmp_path_factory.mktemp("atomic")
    _setup(root)
    calls = {"n": 0}
    real = atomic._replace

    def flaky(src: str, dst: str, dir_fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == fail_at or (rollback_fails and calls["n"] > fail_at):
            raise OSError(5, "Input/output error")
        real(src, dst, dir_fd)

    original = atomic._replace
    atomic._replace = flaky
    try:
        with pytest.raises(PatchError):
            apply_patch(root, _patch())
    finally:
        atomic._replace = original
    for i, name in enumerate(FILES):
        data = (root / name).read_text()
        old = FILES[name]
        new = old.replace(f"file {i} line 1\n", f"changed {i}\n")
        assert data in (old, new)
    leftovers = [p.name for p in root.iterdir() if atomic.TEMP_SUFFIX in p.name]
    assert leftovers == []
    if not rollback_fails:
        assert {p.name for p in root.iterdir()} == set(FILES)


def test_unwritable_directory_leaves_no_temp_and_no_change(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    _setup(tmp_path)
    sub = tmp_path / "ro"
    sub.mkdir()
    (sub / "x.txt").write_text("a\n")
    sub.chmod(0o555)
    try:
        before = _state(tmp_path)
        patch = _patch() + "--- a/ro/x.txt\n+++ b/ro/x.txt\n@@ -1 +1 @@\n-a\n+b\n"
        with pytest.raises(PatchError):
            apply_patch(tmp_path, patch)
        assert _state(tmp_path) == before
        assert (sub / "x.txt").read_text() == "a\n"
    finally:
        sub.chmod(0o755)


@pytest.mark.parametrize(
    ("code", "says"),
    [(errno.EROFS, "the file system is read-only"), (errno.ENOSPC, "no space left on the device")],
    ids=["EROFS", "ENOSPC"],
)
def test_a_file_that_cannot_be_written_is_named_not_its_temp_twin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, says: str
) -> None:
    """The message read ``.a.txt.1a67f7c87685.frontier-tmp: the file system is read-only``
    (a name neither the model nor the person ever saw), or ``?: no space left``."""
    (tmp_path / "a.txt").write_text("hello\n")

    def refused(dir_fd: int, target: str, suffix: str, data: bytes, mode: int) -> None:
        raise OSError(code, os.strerror(code), f".{target}.1a67f7c87685{suffix}")

    monkeypatch.setattr(atomic, "_create", refused)
    patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n*** End Patch\n"
    with pytest.raises(PatchError) as info:
        apply_patch(tmp_path, patch)
    assert str(info.value) == f"a.txt: {says}; nothing written"
    assert (tmp_path / "a.txt").read_text() == "hello\n"
