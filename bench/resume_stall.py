"""Resume: how long the TUI's event loop stops at once while a long session opens.

    .venv/bin/python bench/resume_stall.py                         # 1,000 calls, 5 runs
    .venv/bin/python bench/resume_stall.py --calls 4000 --baseline /tmp/base

A session of ``--calls`` tool calls is made once by ``frontier run`` against the loopback
server of ``bench/wires.py``; then each run is a fresh process that resumes it in Textual's
``run_test`` (120x40) with a 1 ms ticker on the app's loop, for ``--seconds``: the gaps
between ticks are the times no key was read and nothing painted. Printed per tree: the
largest gap (p50 and max over the runs), the second largest, and when the history was in
the Transcript (from the ticker's start). ``--baseline DIR`` (a tree holding
``frontier/``, as ``git archive`` makes it) alternates with this tree in the same run, on
the same session. The figures are the machine's: compare the two trees, not the numbers
across runs (``docs/BENCHMARKS.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import startup  # bench/: the user's environment, as its commands get it
import wires


async def child(session: str, seconds: float) -> dict[str, float]:
    """In the measured process: resume ``session`` and tick the loop."""
    from frontier.app.config import Config
    from frontier.app.frontends.tui.app import FrontierApp

    app = FrontierApp(Config(), session_id=session, remember_theme=False)
    stamps: list[float] = []
    shown = 0.0
    async with app.run_test(size=(120, 40)):
        start = time.perf_counter()
        while (now := time.perf_counter()) - start < seconds:
            stamps.append(now)
            if not shown and len(app.state.transcript) > 10:  # the history is in
                shown = now - start
            await asyncio.sleep(0.001)
    gaps = sorted((b - a for a, b in itertools.pairwise(stamps)), reverse=True)
    return {"largest": gaps[0], "second": gaps[1], "shown": shown}


def run(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.5)
    ap.add_argument("--baseline", metavar="DIR")
    ap.add_argument("--child", metavar="SESSION", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child(args.child, args.seconds))))
        return
    with tempfile.TemporaryDirectory(prefix="resume-stall-") as tmp:
        root = Path(tmp)
        env = startup.base_env(root)
        session = wires.make_session(root / "resume", env, args.calls, native=True)
        me = [sys.executable, __file__, "--child", session, "--seconds", str(args.seconds)]
        trees = {"this tree": env}
        if args.baseline:
            old = {**env, "PYTHONPATH": str(Path(args.baseline).resolve())}
            trees["baseline"] = old | {"PYTHONPYCACHEPREFIX": str(root / "pycache-baseline")}
        for tree_env in trees.values():
            run(me, tree_env)  # warm-up: bytecode compiled, the store's pages cached
        results: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, tree_env in trees.items():
                results[name].append(run(me, tree_env))
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(
            f"resume of a {args.calls}-call session in run_test (120x40), a 1 ms ticker for "
            f"{args.seconds} s; {args.runs} runs alternating; load {load}"
        )
        print(f"{'tree':12} {'largest p50':>12} {'max':>8} {'2nd p50':>8} {'history shown':>14}")
        for name, rows in results.items():
            largest = [r["largest"] * 1000 for r in rows]
            second = [r["second"] * 1000 for r in rows]
            shown = [r["shown"] for r in rows]
            print(
                f"{name:12} {statistics.median(largest):9.1f} ms {max(largest):5.1f} ms "
                f"{statistics.median(second):5.1f} ms {statistics.median(shown):11.3f} s"
            )


if __name__ == "__main__":
    main()
