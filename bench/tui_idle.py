"""Idle CPU of the real TUI: only the cursor blinks (issue 23; target ≤ 1 % of a core).

Three processes in tmux at once, over the same ``--seconds`` window (same load):

- ``frontier`` fresh: a live session against a loopback model, nothing sent yet;
- ``frontier`` after a turn: the same, once a short reply has streamed and ended
  (what a user leaves on screen while reading it);
- the reference: a bare Textual app holding one ``Input`` (its cursor blinks too).

CPU is the process's user + system time from ``/proc/<pid>/stat``, as a share of
one core over the window, measured after ``--settle`` seconds of quiet.
Run: ``.venv/bin/python bench/tui_idle.py`` (~40 s).
"""

from __future__ import annotations

import argparse
import sys
import time

from tui_tmux import PYTHON, StreamServer, TmuxApp, frontier_argv

READY = "message the agent"
BARE_APP = """
from textual.app import App
from textual.widgets import Input

class Bare(App):
    def compose(self):
        yield Input(placeholder="bare textual input")

Bare().run()
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="window (default 30 s)")
    parser.add_argument("--settle", type=float, default=3.0, help="quiet before it (s)")
    args = parser.parse_args()
    with (
        StreamServer(rate=500, seconds=1.0) as server,
        TmuxApp("idle-fresh", frontier_argv(server.url)) as fresh,
        TmuxApp("idle-turn", frontier_argv(server.url)) as turn,
        TmuxApp("idle-bare", [str(PYTHON), "-c", BARE_APP]) as bare,
    ):
        for tui in (fresh, turn):
            tui.wait_for(lambda screen: READY in screen)
        bare.wait_for(lambda screen: "bare textual input" in screen)
        turn.keys("go", literal=True)
        turn.keys("Enter")
        if not server.streaming.wait(30):
            raise TimeoutError("the model was never asked")
        while server.streaming.is_set():
            time.sleep(0.05)
        time.sleep(args.settle)
        apps = {
            "frontier (fresh)": fresh,
            "frontier (after a turn)": turn,
            "bare Textual Input": bare,
        }
        before = {name: tui.cpu_seconds() for name, tui in apps.items()}
        t0 = time.perf_counter()
        time.sleep(args.seconds)
        wall = time.perf_counter() - t0
        used = {name: tui.cpu_seconds() - before[name] for name, tui in apps.items()}
    reference = used["bare Textual Input"] / wall
    print(f"idle CPU over {wall:.1f} s, % of one core (target ≤ 1 %)")
    for name, seconds in used.items():
        share = seconds / wall
        print(
            f"{name:>26} {share * 100:6.2f} %   {share / max(reference, 1e-9):6.2f}× the bare app"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
