"""Frontier's own files are replaced whole and durably (issue 21, item 14).

``export -o``, ``config.toml`` and ``approvals.toml`` were replaced without ``fsync``:
after a power loss the rename can reach the disk before the data, leaving an empty
file. One helper, ``app/files.write_atomic``: a temp file in the same folder, fsynced,
renamed over the target, then the folder fsynced; the file's mode kept; the temp never
left behind on failure. These tests check each of those steps, every writer that uses
it, and that no other code outside the tool boundary writes a file its own way.
"""

from __future__ import annotations

import ast
import errno
import os
import signal
import stat
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from frontier.app import files
from frontier.app.config import approvals_path, config_path, save_approvals, save_setting
from frontier.app.files import write_atomic

ROOT = Path(__file__).resolve().parent.parent


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What ``write_atomic`` does to the disk, in order: ``fsync file``, ``fsync dir``,
    ``replace``."""
    seen: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        kind = "dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
        seen.append(f"fsync {kind}")
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        seen.append("replace")
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "fsync", fsync)
    monkeypatch.setattr(files.os, "replace", replace)
    yield seen


def test_the_file_is_synced_renamed_then_its_folder_synced(
    tmp_path: Path, steps: list[str]
) -> None:
    target = tmp_path / "config.toml"
    target.write_text("old\n")
    assert write_atomic(target, "new\n") == target
    assert target.read_text() == "new\n"
    assert steps == ["fsync file", "replace", "fsync dir"]
    assert leftovers(tmp_path) == []


def test_bytes_and_undecodable_text_are_written_as_given(tmp_path: Path) -> None:
    write_atomic(tmp_path / "a.png", b"\x89PNG\r\n\x00")
    assert (tmp_path / "a.png").read_bytes() == b"\x89PNG\r\n\x00"
    write_atomic(tmp_path / "h", "caf\udce9\n")  # read with surrogateescape
    assert (tmp_path / "h").read_bytes() == b"caf\xe9\n"


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
def test_an_existing_file_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "approvals.toml"
    target.write_text("old\n")
    target.chmod(mode)
    write_atomic(target, "new\n")
    assert stat.S_IMODE(target.stat().st_mode) == mode


def test_a_new_file_gets_the_mode_asked_less_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "plain", "x")
        write_atomic(tmp_path / "private", "x", mode=0o600)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "plain").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "private").stat().st_mode) == 0o600


@pytest.mark.parametrize("fails", ["fsync", "replace", "write"])
def test_a_failure_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    target = tmp_path / "config.toml"
    target.write_text("theme = 'old'\n")

    def broken(*args: Any, **kw: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    if fails == "write":
        real_fdopen = os.fdopen

        class Full:
            def __init__(self, fd: int, mode: str) -> None:
                self.handle = real_fdopen(fd, mode)

            def __enter__(self) -> Full:
                return self

            def __exit__(self, *exc: object) -> None:
                self.handle.close()

            def fileno(self) -> int:
                return self.handle.fileno()

            def write(self, data: bytes) -> None:
                self.handle.write(data[:3])
                raise KeyboardInterrupt  # even an interrupt midway leaves nothing behind

        monkeypatch.setattr(files.os, "fdopen", Full)
        with pytest.raises(KeyboardInterrupt):
            write_atomic(target, "theme = 'new'\n")
    else:
        monkeypatch.setattr(files.os, fails, broken)
        with pytest.raises(OSError, match="No space left"):
            write_atomic(target, "theme = 'new'\n")
    assert target.read_text() == "theme = 'old'\n"
    assert leftovers(tmp_path) == []


def test_a_folder_that_cannot_be_synced_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "Invalid argument")
        real_fsync(fd)

    monkeypatch.setattr(files.os, "fsync", fsync)
    write_atomic(tmp_path / "f", "x")
    assert (tmp_path / "f").read_text() == "x"


def test_a_symlink_is_written_through_and_stays(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "config.toml"
    real.write_text("old\n")
    real.chmod(0o600)
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    write_atomic(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert leftovers(tmp_path) == [] and leftovers(dotfiles) == []


def test_exclusive_never_overwrites_and_gives_the_name_back_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = tmp_path / "export.md"
    taken.write_text("someone else's\n")
    with pytest.raises(FileExistsError):
        write_atomic(taken, "mine\n", exclusive=True)
    assert taken.read_text() == "someone else's\n"
    fresh = tmp_path / "export-2.md"
    write_atomic(fresh, "mine\n", exclusive=True)
    assert fresh.read_text() == "mine\n"

    def broken(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(files.os, "fsync", broken)
    with pytest.raises(OSError, match="Input/output"):
        write_atomic(tmp_path / "export-3.md", "mine\n", exclusive=True)
    assert not (tmp_path / "export-3.md").exists() and leftovers(tmp_path) == []


def test_a_folder_in_the_way_is_refused_without_a_temp(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path / "out", "x")
    assert leftovers(tmp_path) == []


CHILD = """
import os, sys, time
from frontier.app import files
real = os.fsync
def fsync(fd):
    real(fd)
    print("synced", flush=True)
    time.sleep(60)   # killed here: the new text is in the temp, not yet renamed
files.os.fsync = fsync
files.write_atomic(sys.argv[1], "theme = 'new'\\n" * 1000)
"""


def test_killed_before_the_rename_the_old_file_is_whole(tmp_path: Path) -> None:
    """A real process killed with SIGKILL at the step between the temp's fsync and the
    rename: the target still holds the old text, whole (its temp stays behind, as no
    process can clean up after SIGKILL; it is a dot-file named for the target)."""
    target = tmp_path / "config.toml"
    target.write_text("theme = 'old'\n")
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(target)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "synced"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert target.read_text() == "theme = 'old'\n"
    [temp] = leftovers(tmp_path)
    assert temp.startswith(".config.toml.")
    assert (tmp_path / temp).read_text() == "theme = 'new'\n" * 1000


# --------------------------------------------------------------------------- the writers


def test_save_setting_and_save_approvals_go_through_it(tmp_path: Path, steps: list[str]) -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text('# mine\ntheme = "dark"\n')
    config_path().chmod(0o600)
    save_setting("theme", "light")
    assert tomllib.loads(config_path().read_text())["theme"] == "light"
    assert "# mine" in config_path().read_text()
    assert stat.S_IMODE(config_path().stat().st_mode) == 0o600
    assert steps == ["fsync file", "replace", "fsync dir"]
    steps.clear()
    save_approvals(tmp_path, {"commands": ["make test"]})
    entry = tomllib.loads(approvals_path().read_text())["workspace"][0]
    assert entry["commands"] == ["make test"]
    assert steps == ["fsync file", "replace", "fsync dir"]
    assert leftovers(config_path().parent) == []


def test_export_output_goes_through_it(
    tmp_path: Path, steps: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from frontier.app.cli import main

    assert main(["demo", "--headless", "--rate", "0", "--protocol", "ctl"]) == 0
    from frontier.app.session.catalogue import newest_session

    newest = newest_session()
    assert newest is not None
    session = newest.id
    out = tmp_path / "exports" / "s.md"
    steps.clear()
    assert main(["export", session, "-o", str(out)]) == 0
    assert out.read_text().strip()
    assert steps == ["fsync file", "replace", "fsync dir"]
    assert leftovers(out.parent) == []


def test_the_prompt_history_compaction_goes_through_it(tmp_path: Path, steps: list[str]) -> None:
    from frontier.app.session.prompt_history import PromptHistory

    path = tmp_path / "history.jsonl"
    history = PromptHistory(path, cap=2)
    for n in range(5):
        history.add(f"prompt {n}")
    assert history.problem is None
    assert "fsync file" in steps and "fsync dir" in steps
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and leftovers(tmp_path) == []


ALLOWED = {
    ("app/session/record.py", "open"): "a recording is streamed line by line as the "
    "response arrives (a torn last line reads as a disconnect); nothing is replaced",
    ("app/files.py", "*"): "the helper itself",
}
"""Writes outside ``write_atomic`` that stay, and why."""


def _writes(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Calls that write or replace a file: ``write_text``/``write_bytes``, ``open`` with a
    writing mode, ``os.replace``/``os.rename``, ``mkstemp``, ``savefig`` to a path."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("write_text", "write_bytes", "mkstemp", "NamedTemporaryFile", "rename"):
            yield node.lineno, name
        elif name == "replace" and isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id == "os":
                yield node.lineno, "os.replace"
        elif name == "open":
            modes = [a for a in node.args[1:2]] + [
                k.value for k in node.keywords if k.arg == "mode"
            ]
            if isinstance(func, ast.Attribute) and node.args:
                modes.append(node.args[0])  # Path.open("w")
            for mode in modes:
                text = mode.value if isinstance(mode, ast.Constant) else None
                if isinstance(text, str) and set(text) & set("wx+"):
                    yield node.lineno, "open"


def test_no_file_is_written_outside_the_helper() -> None:
    """Every module outside the tool boundary (which journals its own writes) writes
    files through ``write_atomic``; the exceptions are listed with their reason."""
    found: list[str] = []
    for folder in ("app", "widgets", "themes"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for line, call in _writes(ast.parse(path.read_text("utf-8"))):
                if (rel, call) in ALLOWED or (rel, "*") in ALLOWED:
                    continue
                found.append(f"{rel}:{line}: {call}")
    assert found == [], "write these with app/files.write_atomic"
