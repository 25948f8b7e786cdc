"""A session whose process died reads as such: its running call is ``interrupted``.

Before the fix, after a SIGKILL during a shell call, ``frontier export ID`` showed the
call ``started: true`` with no result until someone resumed the session. Now every
reader (``export``, ``sessions``, ``check``, the picker's list) shows the call as
``interrupted`` (outcome unknown) as soon as no process holds the session — without a
resume and without writing to the store — and shows it as stored while it runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
from pathlib import Path

import pytest

from frontier.app.cli import main
from frontier.app.events import ToolCall
from frontier.app.session.store import SessionStore
from frontier.tools.contract import FilePreview, Preview, ToolSpec
from frontier.tools.workspace_files import BeneathFiles

sys.path.insert(0, str(Path(__file__).parent))
from session_helpers import proc
from session_helpers.proc import Driver

drivers = pytest.fixture(proc.drivers)

SHELL = ToolSpec("shell", "", {}, kind="exec")
WRITE = ToolSpec("write", "", {}, mutates=True, kind="edit")


def data_dir() -> Path:
    return Path(os.environ["FRONTIER_DATA_DIR"])


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def export_jsonl(capsys: pytest.CaptureFixture[str], sid: str) -> list[dict]:
    code, out, err = cli(capsys, "export", sid, "--format", "jsonl")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def store_bytes() -> dict[str, str]:
    """Hashes of the database and its WAL: what "nothing was written" is checked against."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(data_dir().glob("sessions.db*"))
        if not p.name.endswith("-shm")  # SQLite's shared-memory index, not the store
    }


@pytest.mark.slow
def test_sigkill_mid_shell_call_reads_interrupted_everywhere_without_a_resume(
    tmp_path: Path, drivers: list[Driver], capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    d = Driver("shell", str(data_dir() / "sessions.db"), str(ws))
    drivers.append(d)
    sid = d.expect("PERSISTED").split()[1]
    d.expect("STARTED")
    pid = int(d.expect("RUNNING").split()[1])

    # While the driver holds the session, the call is running: shown as stored.
    records = export_jsonl(capsys, sid)
    (call,) = [r for r in records if r["type"] == "call"]
    assert call["id"] == "c1" and call["started"] is True
    assert [r for r in records if r["type"] == "result"] == []
    code, out, _ = cli(capsys, "sessions", "--json")
    (row,) = json.loads(out)
    assert (row["state"], row["interrupted_calls"]) == ("active", 0)

    d.kill()
    os.killpg(pid, signal.SIGKILL)  # the shell tool's own group (we started it)
    before = store_bytes()

    records = export_jsonl(capsys, sid)
    assert [r["type"] for r in records] == ["call", "result"]
    call, result = records
    assert call["started"] is True and call["args"]["command"].startswith("echo $$")
    assert (result["id"], result["kind"], result["inferred"]) == ("c1", "interrupted", True)
    assert result["recovered"] is False and result["exit"] is None
    assert "outcome unknown" in result["output"]

    code, out, _ = cli(capsys, "export", sid, "--format", "markdown")
    assert code == 0 and "**result** `interrupted`" in out
    assert "(its Frontier stopped; not reconciled yet)" in out

    code, out, _ = cli(capsys, "sessions", "--json")
    (row,) = json.loads(out)
    assert (row["state"], row["interrupted_calls"]) == ("interrupted", 1)
    code, out, _ = cli(capsys, "sessions")
    header, row_line = out.splitlines()[:2]
    assert row_line[header.index("STATE") :].split()[0] == "interrupted"
    assert f"{sid}: a call was running when its Frontier stopped: outcome unknown" in out

    code, out, err = cli(capsys, "check", sid)
    assert code == 0, out + err
    assert f"{sid}#0: mode=ctl finish=disconnect" in out and " interrupted=c1 " in out

    with SessionStore.open_readonly() as store:  # the picker's data
        (info,) = store.list_sessions()
        assert (info.state, info.interrupted_calls) == ("interrupted", 1)
    assert store_bytes() == before  # read, never written

    # A resume commits the reconciled verdict; the export then shows that one alone.
    with SessionStore.open() as store:
        (recovered,) = store.recover(sid, files=BeneathFiles)
        assert recovered.kind == "interrupted"
    records = export_jsonl(capsys, sid)
    (result,) = [r for r in records if r["type"] == "result"]
    assert result["recovered"] is True and "inferred" not in result


def test_an_unheld_session_settles_its_calls_for_readers_only(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    target = FilePreview("a.txt", "", "", "", None, hashlib.sha256(b"new\n").hexdigest())
    with SessionStore.open() as store:
        sid = store.create_session(str(ws), "m", None, "ctl")
        p = store.persistence(sid)
        p.persist_and_start(ToolCall("c1", "shell", {"command": "make"}), SHELL, Preview("none"))
        p.persist_call(ToolCall("c2", "shell", {"command": "ls"}), SHELL, Preview("none"))
        p.persist_and_start(
            ToolCall("c3", "write", {"path": "a.txt", "content": "new\n"}),
            WRITE,
            Preview("diff", files=(target,)),
        )
        stored = store.records(sid)
        read = store.records_as_read(sid)
        assert len(store.unresolved_calls(sid)) == 3  # nothing was committed
    inferred = read[len(stored) :]
    assert read[: len(stored)] == stored
    assert [(r.call_id, r.data["kind"]) for r in inferred] == [
        ("c1", "interrupted"),
        ("c2", "not_executed"),
        ("c3", "interrupted"),
    ]
    assert all(r.seq == 0 and r.data["meta"]["inferred"] for r in inferred)
    assert "checking its files" in inferred[2].data["output"]
    assert "did not run" in inferred[1].data["output"]


def test_a_held_session_reads_as_stored(tmp_path: Path) -> None:
    with SessionStore.open() as store:
        sid = store.create_session(str(tmp_path), "m", None, "ctl")
        lock = store.lock_session(sid)
        try:
            store.persistence(sid).persist_and_start(
                ToolCall("c1", "shell", {"command": "make"}), SHELL, Preview("none")
            )
            assert store.records_as_read(sid) == store.records(sid)
            (info,) = store.list_sessions()
            assert (info.state, info.interrupted_calls) == ("active", 0)
        finally:
            lock.release()
        (info,) = store.list_sessions()
        assert (info.state, info.interrupted_calls) == ("interrupted", 1)


async def test_denied_calls_keep_their_arguments_in_the_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.policy import PolicyApprover
    from frontier.tools.registry import default_registry

    ws = tmp_path / "ws"
    ws.mkdir()
    with SessionStore.open() as store:
        sid = store.create_session(str(ws), "m", None, "ctl")
        boundary = ToolBoundary(
            default_registry(), ws, PolicyApprover("read-only"), store.persistence(sid)
        )
        result = await boundary.run(ToolCall("c1", "shell", {"command": "rm -rf build"}))
        assert result.kind == "denied"
        assert store.calls(sid) == []  # a rejected call gets no call row
    call, result_record = export_jsonl(capsys, sid)
    assert call["type"] == "call" and call["id"] == "c1" and call["started"] is False
    assert call["args"] == {"command": "rm -rf build"}
    assert (result_record["type"], result_record["kind"]) == ("result", "denied")
    code, out, _ = cli(capsys, "export", sid, "--format", "markdown")
    assert code == 0
    assert "### ▸ shell `c1` (not started)" in out and "rm -rf build" in out


def test_a_recording_names_only_the_calls_started_without_a_result(tmp_path: Path) -> None:
    """What ``check`` and ``replay`` read: per response, the calls that were started and
    have no result (c2, c4), not a finished one (c1) nor one never started (c3)."""
    from frontier.app.events import ToolResult
    from frontier.app.session.catalogue import session_recordings
    from frontier.tools.contract import Preview as NoPreview

    db = tmp_path / "s.db"
    store = SessionStore.open(db)
    sid = store.create_session(str(tmp_path), "m", None, "ctl")
    persistence = store.persistence(sid)
    for index, ids in enumerate((("c1", "c2", "c3"), ("c4",))):
        rid = store.begin_response(sid, "ctl", "m", index)
        store.add_stream_event(rid, 0.0, "".join(f"call {c} shell\nend\n" for c in ids))
        for c in ids:
            persistence.persist_call(ToolCall(c, "shell", {}), SHELL, NoPreview("none"))
        store.end_response(rid, "stop")
    persistence.mark_started("c1")
    persistence.commit_result(ToolResult("c1", "shell", "ok", "", exit_code=0))
    persistence.mark_started("c2")
    persistence.mark_started("c4")
    store.close()

    found = session_recordings(sid, db)
    assert [r.meta.get("interrupted") for _, r in found] == [["c2"], ["c4"]]
