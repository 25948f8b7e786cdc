"""Listing stored sessions as the store grows: ``frontier sessions`` on a store with
``schema.INDEXES`` (the session list's counts from indexes) beside the same rows in a store
without them (as every store was before), alternating.

    .venv/bin/python bench/session_list.py [--sessions 1000] [--calls 40] [--runs 7]

Each store holds ``--sessions`` sessions of 10 messages, 10 replies and ``--calls``
calls (each with its start and a 1.5 KB result; every fifth session has one call
interrupted: started, no result), written straight into the schema, so both hold the same
rows. ``frontier sessions`` opens a store read-only and makes nothing, so the store without
the indexes is read as a user's store was before. Whole processes, spawn to
exit, output to a pipe; ``python -c pass`` alternates as the floor. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from frontier.app.session import schema


def build(path: Path, indexed: bool, sessions: int, calls: int) -> int:
    """A store holding the synthetic sessions, with ``schema.INDEXES`` or without them;
    its log row count."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    schema.migrate(conn, None if indexed else schema.MIGRATIONS)
    conn.execute("BEGIN")
    insert = "INSERT INTO log (session_id, t, type, call_id, ref, data) VALUES (?, ?, ?, ?, ?, ?)"
    for s in range(sessions):
        sid, t = f"{s:08x}", 1_796_000_000.0 + s * 100
        conn.execute(
            "INSERT INTO sessions (id, created, updated, workspace, model, base_url, mode,"
            " state, wire) VALUES (?, ?, ?, ?, 'm', 'http://127.0.0.1:8080/v1', 'native-inc',"
            " 'done', 'openai-chat')",
            (sid, t, t + 50, f"/home/u/project{s % 20}"),
        )
        for turn in range(10):
            conn.execute(insert, (sid, t, "user", None, None, json.dumps({"text": f"do {turn}"})))
            conn.execute(insert, (sid, t, "assistant", None, None, json.dumps({"text": "ok"})))
        for c in range(calls):
            args = json.dumps({"name": "read", "args": {"path": "x.py"}})
            seq = conn.execute(insert, (sid, t, "call", f"c{c}", None, args)).lastrowid
            conn.execute(insert, (sid, t, "started", f"c{c}", seq, "{}"))
            if not (s % 5 == 0 and c == calls - 1):
                result = json.dumps({"output": "x" * 1500})
                conn.execute(insert, (sid, t, "result", f"c{c}", seq, result))
    conn.execute("COMMIT")
    rows = int(conn.execute("SELECT count(*) FROM log").fetchone()[0])
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return rows


def timed(argv: list[str], env: dict[str, str]) -> float:
    began = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True)
    elapsed = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}\n{done.stderr.decode()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {"with the indexes": Path(tmp) / "indexed", "without": Path(tmp) / "plain"}
        for label, where in dirs.items():
            where.mkdir()
            rows = build(
                where / "sessions.db", label == "with the indexes", args.sessions, args.calls
            )
        frontier = [sys.executable, "-m", "frontier.app.cli", "sessions"]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        cases = {
            "python -c pass": ([sys.executable, "-c", "pass"], env),
            **{
                f"sessions, {label}": (frontier, {**env, "FRONTIER_DATA_DIR": str(d)})
                for label, d in dirs.items()
            },
        }
        for argv, case_env in cases.values():  # compile and warm the page cache, untimed
            timed(argv, case_env)
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (argv, case_env) in cases.items():
                times[name].append(timed(argv, case_env))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"frontier sessions: {args.sessions} sessions, {rows:,} log rows, {args.runs} runs "
        f"alternating; seconds; load {load}"
    )
    plain = statistics.median(times["sessions, without"])
    for name, got in times.items():
        p50 = statistics.median(got)
        print(f"  {name:<28} p50 {p50:6.3f}  min {min(got):6.3f}  ÷ without {p50 / plain:5.2f}x")


if __name__ == "__main__":
    main()
