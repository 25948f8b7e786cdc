"""A command that prints a lot, shown live (issue 24): what Frontier adds to its run.

A person asks for a build, a verbose test run or a ``find``; the command prints tens of
megabytes. The tool's read loop hands each piece to the front end as it is read, on the
same event loop, so whatever the front end does with a piece is time the command's
output waits in its pipe: at stop 44 the TUI took 1.6 s over ``seq 1 3000000`` (20 MB),
which alone takes 0.03 s.

Each arm is a child process that spawns the command and reads its output in 64 KiB
pieces to the end (as ``tools/process.py`` does), timed from the spawn to the end:

- **command** (the reference): the pieces decoded (``IncrementalText``) and dropped;
- **tui**: each piece applied to the TUI's state as ``ToolOutput`` (``UiState.apply``:
  scrubbed, cut, kept for the Tools pane, the Transcript's tail and the pager), with a
  scrubber holding a session's secrets;
- **headless**: each piece given to ``frontier run``'s text front end, printing to
  ``/dev/null``.

``--shape line`` prints the same digits without a newline: one 20 MB line, which the
panes keep by its ends.

With ``--baseline DIR`` (a tree laid out as ``DIR/frontier/...``, e.g. ``git archive`` of
an older commit) the tui and headless arms also run with ``PYTHONPATH=DIR``, alternating.

Run: ``.venv/bin/python bench/tool_output.py [--lines 3000000] [--runs 5]
[--shape line] [--baseline /tmp/base]`` (~30 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import os, subprocess, sys, time
from frontier.tools.output_cap import IncrementalText
arm, lines, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
command = ["seq", "1", str(lines)]
if shape == "line":  # as many bytes, on one line (a minified file cat'ed, a progress bar)
    command = ["sh", "-c", f"seq 1 {lines} | tr -d '\\n'"]
sink = None
if arm == "tui":
    from frontier.app.events import CallReady, ToolCall, ToolOutput, ToolStarted
    from frontier.app.secrets import Scrubber
    from frontier.widgets.state import UiState
    state = UiState(scrubber=Scrubber(["sk-bench-0123456789abcdef", "hunter2-password"]))
    call = ToolCall("c1", "shell", {"command": f"seq 1 {lines}"})
    state.apply(CallReady(call))
    state.apply(ToolStarted(call))
    sink = lambda text: state.apply(ToolOutput(call.id, text))
elif arm == "headless":
    from frontier.app.events import CallReady, ToolCall, ToolOutput, ToolStarted
    from frontier.app.frontends.headless import EventPrinter
    from frontier.app.secrets import Scrubber
    out = open(os.devnull, "w")
    front = EventPrinter(out, scrubber=Scrubber(["sk-bench-0123456789abcdef"]))
    call = ToolCall("c1", "shell", {"command": f"seq 1 {lines}"})
    front(CallReady(call))
    front(ToolStarted(call))
    sink = lambda text: front(ToolOutput(call.id, text))
text = IncrementalText()
begin = time.perf_counter()
proc = subprocess.Popen(command, stdout=subprocess.PIPE)
fd = proc.stdout.fileno()
while True:
    data = os.read(fd, 65536)
    if not data:
        break
    piece = text.feed(data)
    if piece and sink is not None:
        sink(piece)
proc.wait()
print(f"{time.perf_counter() - begin:.6f}")
"""


def run_arm(arm: str, lines: int, shape: str, env: dict[str, str]) -> float:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, arm, str(lines), shape],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{arm}: exit {done.returncode}\n{done.stderr}")
    return float(done.stdout.split()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=3_000_000, help="seq 1 LINES (default 3e6)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--shape",
        choices=("lines", "line"),
        default="lines",
        help="lines: seq's output; line: the same digits with no newline (one long line)",
    )
    ap.add_argument("--baseline", metavar="DIR", help="an older tree: DIR/frontier/...")
    args = ap.parse_args()
    env = dict(os.environ)
    arms = [("command", "command", env), ("tui", "tui", env), ("headless", "headless", env)]
    if args.baseline:
        old = {**env, "PYTHONPATH": str(Path(args.baseline).resolve())}
        arms += [("tui, baseline", "tui", old), ("headless, baseline", "headless", old)]
    times: dict[str, list[float]] = {name: [] for name, _, _ in arms}
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    for _ in range(args.runs):
        for name, arm, arm_env in arms:
            times[name].append(run_arm(arm, args.lines, args.shape, arm_env))
    size = len(subprocess.run(["seq", "1", str(args.lines)], capture_output=True).stdout)
    size -= args.lines if args.shape == "line" else 0  # its newlines
    end = " ".join(f"{x:.2f}" for x in os.getloadavg())
    what = "" if args.shape == "lines" else " on one line"
    print(
        f"seq 1 {args.lines}{what} ({size / 1e6:.1f} MB) read in 64 KiB pieces, spawn to the end; "
        f"{args.runs} runs alternating; seconds; load {load} → {end}"
    )
    ref = statistics.median(times["command"])
    print(f"{'arm':22} {'p50':>7} {'min':>7}  p50 ÷ command")
    for name, values in times.items():
        p50 = statistics.median(values)
        print(f"{name:22} {p50:7.3f} {min(values):7.3f}  {p50 / ref:8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
