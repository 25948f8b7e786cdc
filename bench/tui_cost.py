"""The TUI's CPU where a person waits: the main screen's start, a focus change, a review.

    .venv/bin/python bench/tui_cost.py                          # this tree
    .venv/bin/python bench/tui_cost.py --baseline /tmp/base36   # + an older tree, alternating

Each figure is CPU time of the process (``time.process_time``), not wall time: the
Pilot's pauses and the machine's other load do not count, what Textual and Frontier
compute does. Each tree runs in its own process (``PYTHONPATH`` puts a baseline's
``frontier`` first), alternating, ``--rounds`` times:

- **start**: ``FrontierApp`` (CTL, ask) under ``run_test`` at 120x40, from entering the
  context to the first idle; the min and p50 over ``--starts`` Apps per process (the
  first App of a process is dropped: it pays the imports and the CSS parse).
- **focus change**: each focusable widget of the main screen in turn gets the focus,
  ``--focus`` times round; CPU per change, until the App is idle again (the footer's
  bindings change with the focus).
- **first review**: the second App of each process (the first stays up 0.8 s, so that it
  warms what a session warms before any call: imports, the transcript's highlighter) is
  asked to approve a patch of a
  ~200-line Python file, as the session asks (``FrontierApp.review``); CPU from the ask to
  the review screen mounted and idle. The first review of a session pays what no earlier
  screen needed (its CSS, the diff's highlighting); later ones are cheaper.

Nothing is asserted; the figures go to ``docs/BENCHMARKS.md`` with the command.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import asyncio, json, os, sys, tempfile, time
os.environ["FRONTIER_DATA_DIR"] = tempfile.mkdtemp()
os.environ["FRONTIER_CONFIG_DIR"] = tempfile.mkdtemp()
from frontier.app.config import Config
from frontier.app.frontends.tui.app import FrontierApp

starts, rounds = int(sys.argv[1]), int(sys.argv[2])

async def start_once():
    app = FrontierApp(Config(protocol="ctl-heredoc", approval="ask"), remember_theme=False)
    t = time.process_time()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        took = time.process_time() - t
    return took

async def focus_each():
    app = FrontierApp(Config(protocol="ctl-heredoc", approval="ask"), remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(5):
            await pilot.pause()
        chain = list(app.screen.focus_chain)
        t = time.process_time()
        n = 0
        for _ in range(rounds):
            for widget in chain:
                widget.focus()
                await pilot.pause()
                await pilot.pause()
                n += 1
        return (time.process_time() - t) / n, len(chain)

async def first_review():
    from frontier.app.events import ToolCall
    from frontier.app.frontends.tui.screens.review import ReviewScreen
    from frontier.tools.contract import ApprovalRequested, Preview, ToolSpec
    from frontier.tools.diffing import file_preview

    old = "".join(f"def handler_{i}(value):\n    return value + {i}\n\n" for i in range(70))
    new = old.replace("return value + 35", "return value - 35")
    preview = Preview("diff", (file_preview("src/handlers.py", old.encode(), new.encode()),), "")
    spec = ToolSpec("apply_patch", "apply a patch", {}, mutates=True, kind="edit")
    call = ToolCall("c1", "apply_patch", {"patch": preview.files[0].diff}, 1)
    app = FrontierApp(Config(model="m"), welcome=False, autostart=False, remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(5):
            await pilot.pause()
        t = time.process_time()
        app.review(ApprovalRequested("q1", call, spec, preview, ("approve", "deny", "hunks")))
        while not (isinstance(app.screen, ReviewScreen) and app.screen.is_mounted):
            await pilot.pause()
        await pilot.pause()
        return time.process_time() - t

async def warm():
    # a first App up long enough for the transcript to warm its highlighter (0.5 s after
    # mount), as a session does long before its first review
    app = FrontierApp(Config(protocol="ctl-heredoc", approval="ask"), remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.8)

async def main():
    await warm()  # imports, the CSS parse, the transcript's highlighter
    review = await first_review()
    start = [await start_once() for _ in range(starts)]
    focus, chain = await focus_each()
    print(json.dumps({"start": start, "focus": focus, "chain": chain, "review": review}))

asyncio.run(main())
"""


def run(tree: Path | None, starts: int, rounds: int) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    with tempfile.TemporaryDirectory() as cwd:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(starts), str(rounds)],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise SystemExit(f"{tree or 'this tree'}: exit {done.returncode}\n{done.stderr[-2000:]}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--baseline", metavar="DIR", help="an older tree: `git archive` in DIR/frontier"
    )
    ap.add_argument("--rounds", type=int, default=3, help="processes of each tree (default 3)")
    ap.add_argument("--starts", type=int, default=8, help="Apps started per process (default 8)")
    ap.add_argument("--focus", type=int, default=10, help="times round the focus chain")
    args = ap.parse_args()
    trees: dict[str, Path | None] = {"this tree": None}
    if args.baseline:
        trees["baseline"] = Path(args.baseline).resolve()
    starts: dict[str, list[float]] = {name: [] for name in trees}
    focus: dict[str, list[float]] = {name: [] for name in trees}
    chain: dict[str, int] = {}
    review: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            got = run(tree, args.starts, args.focus)
            starts[name] += [float(t) for t in got["start"]]  # type: ignore[attr-defined]
            focus[name].append(float(got["focus"]))  # type: ignore[arg-type]
            chain[name] = int(got["chain"])  # type: ignore[call-overload]
            review[name].append(float(got["review"]))  # type: ignore[arg-type]
    print(f"python {sys.version.split()[0]}, load {os.getloadavg()[0]:.2f}; CPU ms")
    print(
        f"{'tree':<12} {'start p50':>10} {'start min':>10} {'focus change p50':>17} "
        f"{'first review p50':>17} {'min':>6} focusables"
    )
    for name in trees:
        print(
            f"{name:<12} {1000 * statistics.median(starts[name]):10.1f} "
            f"{1000 * min(starts[name]):10.1f} {1000 * statistics.median(focus[name]):17.2f} "
            f"{1000 * statistics.median(review[name]):17.1f} {1000 * min(review[name]):6.1f} "
            f"{chain[name]:>10}"
        )
    if args.baseline:
        s = statistics.median(starts["this tree"]) / statistics.median(starts["baseline"])
        f = statistics.median(focus["this tree"]) / statistics.median(focus["baseline"])
        r = statistics.median(review["this tree"]) / statistics.median(review["baseline"])
        print(f"this tree ÷ baseline: start {s:.2f}x, focus change {f:.2f}x, first review {r:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
