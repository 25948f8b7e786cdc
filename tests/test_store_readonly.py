"""The store seen from the commands: read-only opens, a data dir that is a file, a full
disk at exit, and response names after a resume.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from frontier.app.cli import main
from frontier.app.config import data_dir
from frontier.app.model.conversation import UserText
from frontier.app.session.sqlite import sqlite3 as store_sqlite
from frontier.app.session.store import (
    SessionStore,
    StoreError,
    default_path,
    session_recordings,
)


def make_session() -> str:
    with SessionStore.open() as store:
        sid = store.create_session("/proj", "qwen", None, "ctl")
        store.append_items(sid, [UserText("list the files")])
        rid = store.begin_response(sid, "ctl", "qwen", 0)
        store.add_stream_event(rid, 0.01, '{"choices": [{"delta": {"content": "Done.\\n"}}]}')
        store.end_response(rid, "stop")
        store.add_assistant_text(sid, "Done.\n")
        store.set_state(sid, "done")
    return sid


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- read-only


def test_reading_commands_open_the_database_read_only(capsys, monkeypatch) -> None:
    """By construction, whoever runs the test: every connection of sessions/export/
    check/replay is a ``mode=ro`` URI, and it refuses writes."""
    sid = make_session()
    opened: list[str] = []
    real_connect = store_sqlite.connect  # the module the store connects with

    def spy(database, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(database))
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(store_sqlite, "connect", spy)
    for argv in (
        ["sessions"],
        ["sessions", "--json"],
        ["export", sid, "--format", "jsonl"],
        ["check", sid],
        ["replay", sid, "--headless"],
    ):
        code, _out, err = cli(capsys, *argv)
        assert code == 0, (argv, err)
        assert opened and all("mode=ro" in uri for uri in opened), (argv, opened)
        opened.clear()
    with SessionStore.open_readonly() as store:
        assert store.readonly and store.get_session(sid).id == sid
        with pytest.raises(StoreError, match="cannot write"):
            store.set_state(sid, "failed")


def _as_nobody() -> list[str] | None:
    """A command prefix that drops root, so file permissions are enforced; None if
    this process is not root (they already are) — see ``_enforced``."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory another user can traverse (tmp_path is private to root in CI)."""
    path = Path(tempfile.mkdtemp(prefix="frontier-ro-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for p in (path, *path.rglob("*")):
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("db_mode", [0o444, 0o000], ids=["readable", "unreadable"])
def test_a_read_only_data_dir_still_lists_exports_and_checks(
    shared_dir: Path, monkeypatch, db_mode: int
) -> None:
    prefix = _as_nobody()
    if prefix is None:
        pytest.skip("running as root without setpriv: permissions would not be enforced")
    data = shared_dir / "data"
    monkeypatch.setenv("FRONTIER_DATA_DIR", str(data))
    sid = make_session()  # closed: SQLite has checkpointed and removed the WAL
    assert not Path(f"{default_path()}-wal").exists()
    default_path().chmod(db_mode)
    for p in (data, *data.rglob("*")):
        if p.is_dir():
            p.chmod(0o555)
    env = {**os.environ, "FRONTIER_DATA_DIR": str(data)}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*prefix, sys.executable, "-m", "frontier.app.cli", *argv],
            capture_output=True, text=True, timeout=60, env=env, cwd=shared_dir,
        )  # fmt: skip

    probe = subprocess.run([*prefix, "sh", "-c", f"touch {data}/probe"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip("the data dir is writable despite chmod 555: permissions not enforced")
    runs = {argv[0]: run(*argv) for argv in (("sessions",), ("export", sid), ("check", sid))}
    for name, proc in runs.items():
        assert "Traceback" not in proc.stderr, proc.stderr
        if db_mode == 0o444:
            assert proc.returncode == 0, (name, proc.stderr)
        else:
            assert proc.returncode != 0
            assert "cannot read it" in proc.stderr and str(default_path()) in proc.stderr
    if db_mode == 0o444:
        assert sid in runs["sessions"].stdout and "Done." in runs["export"].stdout
        assert runs["check"].stdout.startswith("ok")


# --------------------------------------------------------------------------- data dir


def test_a_data_dir_that_is_a_file_says_so(capsys, monkeypatch, tmp_path: Path) -> None:
    not_a_dir = tmp_path / "frontier-data"
    not_a_dir.write_text("oops\n")
    monkeypatch.setenv("FRONTIER_DATA_DIR", str(not_a_dir))
    for argv, status in (
        (["sessions"], 1),
        (["export", "abcd"], 2),
        (["check", "abcd"], 2),
        (["demo", "--headless", "--rate", "0", "--protocol", "ctl"], 2),
    ):
        code, out, err = cli(capsys, *argv)
        assert code == status, (argv, out, err)
        assert f"FRONTIER_DATA_DIR {not_a_dir} is a file, not a directory" in err, (argv, err)
        assert "File exists" not in err
    monkeypatch.setenv("FRONTIER_DATA_DIR", str(not_a_dir / "sub"))
    with pytest.raises(StoreError, match=f"{not_a_dir} is a file, not a directory"):
        SessionStore.open()


# --------------------------------------------------------------------------- disk full

FULL_DISK = """
import sqlite3, sys
from frontier.app.session import store as s

real_open = s.SessionStore.open.__func__
failing = {"on": False}

def open_(cls, *args, **kwargs):
    st = real_open(cls, *args, **kwargs)
    def hook(point):
        if point in ("call", "response_end"):
            failing["on"] = True  # the disk fills up with stream events still to write
        if failing["on"]:
            raise sqlite3.OperationalError("database or disk is full")
    st.fault_hook = hook
    return st

s.SessionStore.open = classmethod(open_)
from frontier.app.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_full_disk_ends_with_a_message_not_a_traceback(tmp_path: Path, as_json: bool) -> None:
    env = {**os.environ, "FRONTIER_DATA_DIR": str(tmp_path / "data"), "TMPDIR": str(tmp_path)}
    argv = ["demo", "--headless", "--rate", "0", "--protocol", "ctl-heredoc"]
    proc = subprocess.run(
        [sys.executable, "-c", FULL_DISK, *argv, *(["--json"] if as_json else [])],
        capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    # the failure is said once: its turn_ended line with --json, on stderr as text
    said = proc.stdout if as_json else proc.stderr
    assert "session_persistence_failed" in said
    assert (proc.stdout + proc.stderr).count("turn ended") == (0 if as_json else 1)
    assert "the disk is full; free space in" in proc.stderr


# --------------------------------------------------------------------------- resume


def test_a_resumed_session_continues_its_response_numbers(capsys, tmp_path: Path) -> None:
    """Two runs of one demo session: its responses are #0..#N, never two #0."""
    code, out, err = cli(capsys, "demo", "--headless", "--rate", "0", "--protocol", "ctl")
    assert code == 0, err
    with SessionStore.open() as store:
        (info,) = store.list_sessions()
    first = [name for name, _ in session_recordings(info.id)]
    code, out, err = cli(
        capsys, "resume", info.id, "--headless", "--rate", "0", "--prompt", "once more"
    )
    names = [name for name, _ in session_recordings(info.id)]
    assert len(names) > len(first), (out, err)
    assert len(set(names)) == len(names), names
    assert names == [f"{info.id}#{i}" for i in range(len(names))]
    assert f"── response {len(first) + 1} " in out
    assert data_dir().is_dir()
