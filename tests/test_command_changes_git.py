"""What a command changed among a git work tree's files it does not name
(``tools/command_changes_git.py``, through ``command_changes.Watch``): git says which,
the index's copy what they were; any doubt records only the named files."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_restore_via_shell import GIT, git

from frontier.tools import command_changes_git
from frontier.tools.command_changes import Watch, recorded

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Committed files (one executable), one of them with uncommitted work, one untracked."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "a.py").write_text("a = 1\n")
    (root / "src" / "b.py").write_text("b = 1\n")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    git(root, "init", "-q", ".")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    (root / "a.py").write_text("a = 1\nmy work\n")
    (root / "notes.txt").write_text("untracked\n")
    return root


def run(root: Path, script: str) -> None:
    subprocess.run(["sh", "-c", script], cwd=root, check=True, timeout=60)


def test_a_command_naming_nothing_is_recorded_whole_in_a_repository(repo: Path) -> None:
    """`cargo fmt`, `npm run format`, `make`: no path on the line, every file git knows."""
    watch = Watch.take(str(repo), "npm run format")
    assert isinstance(watch, Watch)
    assert set(watch.before) == {"a.py", "notes.txt"}  # what git cannot give back: held
    run(
        repo,
        "echo more >> a.py; echo 'b = 2' > src/b.py; rm run.sh; rm notes.txt; echo n > new.txt",
    )

    found = watch.changes()
    assert isinstance(found, list)
    got = {c.path: (c.old, c.old_mode, c.new) for c in found}
    assert got == {
        "a.py": (b"a = 1\nmy work\n", got["a.py"][1], b"a = 1\nmy work\nmore\n"),
        "src/b.py": (b"b = 1\n", 0o644, b"b = 2\n"),  # unchanged before: the index's copy
        "run.sh": (b"#!/bin/sh\n", 0o755, None),  # its mode as git has it
        "notes.txt": (b"untracked\n", got["notes.txt"][1], None),
        "new.txt": (None, None, b"n\n"),
    }
    record = recorded(found, str(repo))
    assert record is not None and set(record.kept.values()) == {
        b"a = 1\nmy work\n",
        b"b = 1\n",
        b"#!/bin/sh\n",
        b"untracked\n",
    }


def test_line_ends_come_back_as_checkout_wrote_them(repo: Path) -> None:
    (repo / ".gitattributes").write_text("*.txt eol=crlf\n")
    (repo / "d.txt").write_text("one\ntwo\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "crlf")
    (repo / "d.txt").unlink()
    git(repo, "checkout", "--", "d.txt")
    assert (repo / "d.txt").read_bytes() == b"one\r\ntwo\r\n"
    watch = Watch.take(str(repo), "make")
    assert isinstance(watch, Watch)
    run(repo, "printf 'three\\r\\n' > d.txt")
    found = watch.changes()
    assert isinstance(found, list)
    assert [(c.path, c.old) for c in found] == [("d.txt", b"one\r\ntwo\r\n")]


def test_a_reader_s_line_asks_git_nothing(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no(*_: object) -> None:
        raise AssertionError("git asked for a line that only reads")

    monkeypatch.setattr(command_changes_git, "before", no)
    assert Watch.take(str(repo), "cat a.py | grep a 2>&1 >/dev/null; git diff; ls src") is None


@pytest.mark.parametrize(
    "doubt",
    ["index changed", "filter", "too many entries", "not a repository", "git missing"],
)
def test_any_doubt_records_the_named_files_alone(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, doubt: str
) -> None:
    script = "echo 'b = 2' > src/b.py; echo x > named.txt"
    if doubt == "index changed":  # outside the sandbox a command can stage: the copies move
        script += "; git add src/b.py; echo 'b = 3' > src/b.py"  # its copy: not b's before
    elif doubt == "filter":  # checkout would run the filter's program (Git LFS)
        (repo / ".gitattributes").write_text("*.py filter=lfs\n")
        git(repo, "add", ".gitattributes")
        git(repo, "commit", "-qm", "attrs")
    elif doubt == "too many entries":
        monkeypatch.setattr(command_changes_git, "INDEX_MAX", 2)
    elif doubt == "not a repository":
        shutil.rmtree(repo / ".git")
    else:
        monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    watch = Watch.take(str(repo), "sh -c 'true' > named.txt")
    assert isinstance(watch, Watch)
    monkeypatch.setenv("PATH", os.environ["PATH"])
    subprocess.run(["sh", "-c", script], cwd=repo, env=GIT, check=True, timeout=60)
    found = watch.changes()
    assert isinstance(found, list)
    assert [c.path for c in found] == ["named.txt"]


def test_an_index_git_status_rewrote_still_says_what_the_files_were(repo: Path) -> None:
    """`git status` rewrites the index with fresh timestamps whenever a file's were stale —
    in the command (`make && git status`, outside the sandbox) or by the person after a
    crash, before resuming: its entries are the same, so its copies still say what the
    files were, during the run and when the watch is taken up again from the store."""
    watch = Watch.take(str(repo), "make")
    assert isinstance(watch, Watch)
    held, bodies = watch.held()
    index = (repo / ".git" / "index").stat()
    os.utime(repo / "run.sh", ns=(10**9, 10**9))  # its entry's timestamps now stale
    run(repo, "echo 'b = 2' > src/b.py; git status --short >/dev/null")
    after = (repo / ".git" / "index").stat()
    assert (after.st_ino, after.st_mtime_ns) != (index.st_ino, index.st_mtime_ns)  # rewritten

    for found in (watch.changes(), Watch.resumed(str(repo), held, bodies.get).changes()):
        assert isinstance(found, list)
        assert [(c.path, c.old) for c in found] == [("src/b.py", b"b = 1\n")]


def test_no_program_the_repository_names_runs(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    git(repo, "config", "core.fsmonitor", f"touch {marker}; echo")
    git(repo, "config", "filter.x.clean", f"touch {marker}; cat")
    git(repo, "config", "filter.x.smudge", f"touch {marker}; cat")
    (repo / ".gitattributes").write_text("*.md filter=x\n")
    watch = Watch.take(str(repo), "make")
    assert isinstance(watch, Watch)
    run(repo, "echo 'b = 2' > src/b.py")
    found = watch.changes()
    assert isinstance(found, list) and [c.path for c in found] == ["src/b.py"]
    assert not marker.exists()


def test_a_workspace_inside_a_repository_records_its_own_files(repo: Path) -> None:
    root = repo / "src"
    watch = Watch.take(str(root), "make")
    assert isinstance(watch, Watch)
    run(root, "echo 'b = 2' > b.py; echo x > ../outside.txt; echo y > made.py")
    found = watch.changes()
    assert isinstance(found, list)
    assert [(c.path, c.old) for c in found] == [("b.py", b"b = 1\n"), ("made.py", None)]


def test_permission_bits_come_back_as_they_were_not_as_git_writes_them(repo: Path) -> None:
    """git keeps only whether a file is executable: the rest of its bits (a group umask's
    0o664) are the file's own, and a command that only made it executable changed that."""
    (repo / "src" / "b.py").chmod(0o664)
    watch = Watch.take(str(repo), "make")
    assert isinstance(watch, Watch)
    run(repo, "echo 'b = 2' > src/b.py; chmod +x src/b.py")
    found = watch.changes()
    assert isinstance(found, list)
    [changed] = [c for c in found if c.path == "src/b.py"]
    assert (changed.old_mode, changed.new_mode) == (0o664, 0o775)


def test_a_folder_named_in_a_repository_is_git_s_to_answer_for_however_big(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ruff check --fix .` in a repository of more files than a watch holds: git says
    which changed and the index what they were; nothing of the folder is read before."""
    from frontier.tools import command_changes

    for i in range(5):
        (repo / "src" / f"m{i}.py").write_text(f"m = {i}\n")
    git(repo, "add", "src")
    git(repo, "commit", "-qm", "more")
    monkeypatch.setattr(command_changes, "WATCH_FILES", 3)
    watch = Watch.take(str(repo), "ruff check --fix .")
    assert isinstance(watch, Watch)
    assert set(watch.before) == {"a.py", "notes.txt"}  # what git cannot give back
    run(repo, "echo 'm = 9' > src/m3.py")
    found = watch.changes()
    assert isinstance(found, list)
    assert [(c.path, c.old, c.new) for c in found] == [("src/m3.py", b"m = 3\n", b"m = 9\n")]


def test_more_uncommitted_files_than_a_watch_holds_are_not_read_to_be_dropped(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repository with thousands of untracked files: git's answer is given up without
    reading them (each command read up to 2,000 files only to drop them); deleted files,
    with nothing on disk, do not count."""
    from frontier.tools import beneath, command_changes

    monkeypatch.setattr(command_changes, "WATCH_FILES", 3)
    reads: list[str] = []
    real_read = beneath.read_in

    def counted(fd: int, name: str, cap: int | None = None) -> tuple[bytes | None, int | None]:
        reads.append(name)
        return real_read(fd, name, cap)

    monkeypatch.setattr(beneath, "read_in", counted)
    for i in range(3):
        (repo / f"data{i}.csv").write_text("1\n")  # with a.py and notes.txt: 5 listed
    watch = Watch.take(str(repo), "make")
    assert watch is None and reads == []  # nothing named, git's answer too big: no watch

    (repo / "notes.txt").unlink()
    git(repo, "add", "data0.csv", "data1.csv", "data2.csv")
    git(repo, "commit", "-qm", "data")
    for i in range(3):
        (repo / f"data{i}.csv").unlink()  # with run.sh, 4 listed as deleted: none on disk
    (repo / "run.sh").unlink()
    watch = Watch.take(str(repo), "make")
    assert isinstance(watch, Watch) and set(watch.before) == {"a.py"}
    run(repo, "echo 'b = 2' > src/b.py")
    found = watch.changes()
    assert isinstance(found, list) and [c.path for c in found] == ["src/b.py"]
