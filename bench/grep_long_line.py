"""grep in a workspace holding one long minified line matched all over (stop 57).

    .venv/bin/python bench/grep_long_line.py                       # 2 MB, 3 runs
    .venv/bin/python bench/grep_long_line.py --mb 8 --runs 3
    .venv/bin/python bench/grep_long_line.py --baseline /tmp/base  # an earlier tree too

A workspace of a few small files and one ``bundle.min.js`` of ``--mb`` MB on one line of
``x``; ``grep`` for ``x`` through the real tool (``ToolBoundary``), each run a child process
so its peak memory (``ru_maxrss``) is its own. Rows: this tree with ripgrep, the same tree's
Python searcher (the reference: its cost follows the text), and with ``--baseline DIR`` (a
tree holding ``frontier/``) that tree with ripgrep. Wall seconds are the best of
``--runs``; memory is the peak of the child. Before stop 57 ripgrep's ``--json`` (an object
per match) made the 2 MB case 105 MB of JSON to read.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import asyncio, json, resource, sys, time
if sys.argv[1] != "-":
    sys.path.insert(0, sys.argv[1])
from frontier.tools import search
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry
from frontier.app.events import ToolCall

search.GrepTool.use_ripgrep = sys.argv[3] == "rg"

async def main():
    boundary = ToolBoundary(default_registry(), sys.argv[2], PolicyApprover("read-only"), None)
    start = time.perf_counter()
    result = await boundary.run(ToolCall("c1", "grep", {"pattern": "x"}))
    return time.perf_counter() - start, result

took, result = asyncio.run(main())
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"s": took, "mb": peak, "kind": result.kind, "tail": result.output[-60:]}))
"""


def run(tree: str, workspace: str, searcher: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, tree, workspace, searcher],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", help="an earlier tree (DIR holding frontier/)")
    args = parser.parse_args()
    here = "-"  # the installed tree (this venv's)
    with tempfile.TemporaryDirectory() as workspace:
        Path(workspace, "bundle.min.js").write_text("x" * int(args.mb * 1_000_000) + "\n")
        for i in range(5):
            Path(workspace, f"m{i}.py").write_text(f"x{i} = {i}\n")
        rows = [("this tree, ripgrep", here, "rg"), ("this tree, Python (reference)", here, "py")]
        if args.baseline:
            rows.append((f"{args.baseline}, ripgrep", os.path.abspath(args.baseline), "rg"))
        print(f"grep x, {args.mb:g} MB line; best of {args.runs}")
        print(f"{'':34} {'wall s':>8} {'peak MB':>8}  result")
        for name, tree, searcher in rows:
            best = min((run(tree, workspace, searcher) for _ in range(args.runs)), key=_s)
            print(f"{name:34} {_s(best):8.3f} {float(str(best['mb'])):8.0f}  {best['tail']!r}")


def _s(row: dict[str, object]) -> float:
    return float(str(row["s"]))


if __name__ == "__main__":
    main()
