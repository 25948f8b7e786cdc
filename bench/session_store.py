"""What persist-before-execute costs, next to references measured in the same run.

    .venv/bin/python bench/session_store.py [--calls N] [--events N] [--dir DIR]

Prints, side by side:
- a tool call's three commits (persist_call, mark_started, commit_result) vs. a
  bare SQLite INSERT+COMMIT with the same durability (WAL, synchronous=FULL);
- stream events as the store takes them (buffered, flushed with the next
  commit) vs. committing each event on its own (the design we rejected);
- the latency of the commit that records a call about to start, over a long
  session (``--responses`` responses of ``--events-per-call`` stream events and
  a call, ``--gap`` s idle before each call as while a model streams): with
  Frontier's checkpoint before each request vs. SQLite's automatic checkpoint
  (inside whichever commit crosses 1000 WAL pages, what Frontier did before).
  The two stores take turns, one response each, so noise hits both alike.
Use ``--dir`` on the disk your data dir lives on: fsync cost is the disk's.
"""

from __future__ import annotations

import argparse
import math
import sqlite3
import statistics
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
            store.db.write("stream", lambda c: None)
    store.end_response(rid, "stop")
    return time.perf_counter() - t0


def call_commit_latencies(
    store: SessionStore, sid: str, response: int, calls: int, events: int, gap: float
) -> list[float]:
    """One response: ``events`` stream events, then a call recorded and started, per call."""
    data = '{"choices":[{"index":0,"delta":{"content":"tok "}}]}'
    spec = ToolSpec("shell", "", {}, kind="exec")
    persistence = store.persistence(sid)
    rid = store.begin_response(sid, "ctl", "bench", response)
    out = []
    for i in range(calls):
        for k in range(events):
            store.add_stream_event(rid, k * 0.01, data)
        call = ToolCall(f"c{i}", "shell", {"command": f"echo {i} # " + "pad " * 20})
        time.sleep(gap)
        t0 = time.perf_counter()
        persistence.persist_and_start(call, spec, Preview("command", command=call.args["command"]))
        out.append(time.perf_counter() - t0)
        persistence.commit_result(ToolResult(call.id, "shell", "ok", f"{i}\n", exit_code=0))
    store.end_response(rid, "stop")
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def checkpoint_policies(base: Path, args: argparse.Namespace) -> None:
    ours = SessionStore.open(base / "ours.db")
    sqlite_default = SessionStore.open(base / "auto.db")
    sqlite_default.db.conn.execute("PRAGMA wal_autocheckpoint=1000")
    samples: dict[str, list[float]] = {"frontier": [], "sqlite auto": []}
    try:
        sids = [s.create_session(str(base), "bench", None, "ctl") for s in (ours, sqlite_default)]
        for r in range(args.responses):
            ours.checkpoint()  # what AgentLoop does before each request
            samples["frontier"] += call_commit_latencies(
                ours, sids[0], r, args.calls_per_response, args.events_per_call, args.gap
            )
            samples["sqlite auto"] += call_commit_latencies(
                sqlite_default, sids[1], r, args.calls_per_response, args.events_per_call, args.gap
            )
    finally:
        ours.close()
        sqlite_default.close()
    n = len(samples["frontier"])
    print(
        f"call commit (persist_and_start) over {args.responses} responses x "
        f"{args.calls_per_response} calls, {args.events_per_call} events before each, "
        f"{args.gap * 1e3:g} ms idle: n={n} per policy"
    )
    print(f"  {'checkpoint':<34} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} {'max ms':>7}")
    for name, label in (
        ("frontier", "before each request (Frontier)"),
        ("sqlite auto", "inside commits (SQLite default)"),
    ):
        v = [x * 1e3 for x in samples[name]]
        print(
            f"  {label:<34} {statistics.median(v):7.3f} {pct(v, 90):7.3f} {pct(v, 99):7.3f} "
            f"{max(v):7.3f}"
        )
    a = [x * 1e3 for x in samples["frontier"]]
    b = [x * 1e3 for x in samples["sqlite auto"]]
    print(
        f"  ratio frontier / sqlite auto: p99 {pct(a, 99) / pct(b, 99):.2f}x, "
        f"max {max(a) / max(b):.2f}x"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--events", type=int, default=5000)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--responses", type=int, default=60, help="long-session part (default 60)")
    ap.add_argument("--calls-per-response", type=int, default=5)
    ap.add_argument("--events-per-call", type=int, default=200)
    ap.add_argument("--gap", type=float, default=0.01, help="idle seconds before each call")
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
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        checkpoint_policies(Path(d), args)


if __name__ == "__main__":
    main()
