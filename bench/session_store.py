"""What persist-before-execute costs, next to references measured in the same run.

    .venv/bin/python bench/session_store.py [--calls N] [--events N] [--dir DIR]

Prints, side by side:
- a tool call's three commits (persist_call, mark_started, commit_result) vs. a
  bare SQLite INSERT+COMMIT with the same durability (WAL, synchronous=FULL);
- stream events as the store takes them (buffered, flushed with the next
  commit) vs. committing each event on its own (the design we rejected).
Use ``--dir`` on the disk your data dir lives on: fsync cost is the disk's.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path

from frontier.app.events import ToolCall, ToolResult
from frontier.app.session.store import SessionStore
from frontier.tools.contract import Preview, ToolSpec


def bare_commits(path: Path, n: int) -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE t (x TEXT)")
    t0 = time.perf_counter()
    for i in range(n):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t VALUES (?)", (f"row {i}",))
        conn.execute("COMMIT")
    dt = time.perf_counter() - t0
    conn.close()
    return dt


def store_calls(store: SessionStore, sid: str, n: int) -> float:
    p = store.persistence(sid)
    spec = ToolSpec("shell", "", {}, kind="exec")
    t0 = time.perf_counter()
    for i in range(n):
        call = ToolCall(f"c{i}", "shell", {"command": f"echo {i}"})
        p.persist_call(call, spec, Preview("command", command=f"echo {i}"))
        p.mark_started(call.id)
        p.commit_result(ToolResult(call.id, "shell", "ok", f"{i}\n", exit_code=0))
    return time.perf_counter() - t0


def store_events(store: SessionStore, sid: str, n: int, per_event_commit: bool) -> float:
    data = '{"choices":[{"index":0,"delta":{"content":"tok "}}]}'
    rid = store.begin_response(sid, "ctl", "bench", 0)
    t0 = time.perf_counter()
    for i in range(n):
        store.add_stream_event(rid, i * 0.001, data)
        if per_event_commit:
            store._write("stream", lambda c: None)
    store.end_response(rid, "stop")
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--events", type=int, default=5000)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        base = Path(d)
        ref = bare_commits(base / "ref.db", args.calls * 3)
        with SessionStore.open(base / "sessions.db") as store:
            sid = store.create_session(d, "bench", None, "ctl")
            calls = store_calls(store, sid, args.calls)
            buffered = store_events(store, sid, args.events, per_event_commit=False)
            unbuffered = store_events(store, sid, args.events, per_event_commit=True)
    per_call = calls / args.calls * 1e3
    per_ref = ref / args.calls * 1e3
    print(f"dir: {args.dir or tempfile.gettempdir()}")
    print(
        f"tool call (3 commits):  {per_call:7.3f} ms/call   bare 3×INSERT+COMMIT "
        f"{per_ref:7.3f} ms   ratio {per_call / per_ref:5.2f}×"
    )
    print(
        f"stream events buffered: {buffered / args.events * 1e6:7.2f} µs/event   "
        f"commit per event {unbuffered / args.events * 1e6:9.2f} µs   "
        f"ratio {unbuffered / buffered:7.1f}× faster buffered"
    )


if __name__ == "__main__":
    main()
