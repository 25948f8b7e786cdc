"""Two Frontier processes writing separate sessions to one data dir at the same time.

Both writers open the store and create their session, then start together
(a stdin barrier) and commit as fast as they can, so their transactions
contend for the write lock the whole time (SQLite's busy handler arbitrates;
whether their rows interleave is up to the scheduler). Neither may fail,
and afterwards the file must be intact and each session complete.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from frontier.app.model.conversation import UserText
from frontier.app.session.store import SessionStore

DRIVER = Path(__file__).parent / "session_helpers" / "driver.py"
ROUNDS = 100

pytestmark = pytest.mark.slow


def test_two_processes_share_one_database_without_corruption(tmp_path: Path) -> None:
    db = tmp_path / "data" / "sessions.db"
    procs = []
    for n in range(2):
        ws = tmp_path / f"ws{n}"
        ws.mkdir()
        procs.append(
            subprocess.Popen(
                [sys.executable, str(DRIVER), "writer", str(db), str(ws), "--count", str(ROUNDS)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    outputs = []
    try:
        sids = [p.stdout.readline().split()[1] for p in procs]  # both opened, session created
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
            outputs.append(out)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=30)

    assert len(set(sids)) == 2
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()
    with SessionStore.open(db) as store:
        assert {s.id for s in store.list_sessions()} == set(sids)
        for sid in sids:
            info = store.get_session(sid)
            assert info.state == "done" and info.turns == ROUNDS
            calls = store.calls(sid)
            assert [c.call_id for c in calls] == [f"call_{i}" for i in range(ROUNDS)]
            assert all(
                c.result is not None and c.result.output == f"content {i}"
                for i, c in enumerate(calls)
            )
            texts = [m.text for m in store.load_items(sid) if isinstance(m, UserText)]
            assert len(texts) == ROUNDS and len({t.split()[-1] for t in texts}) == 1
            recs = store.recordings(sid)
            assert [r.finish_reason for r in recs] == ["stop"] * ROUNDS
            assert all(len(r.events) == 5 for r in recs)
            assert store.unresolved_calls(sid) == []
