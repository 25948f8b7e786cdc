"""Keystroke-to-screen latency in the message box after a long bracketed paste (issue 24).

A person pastes a CI log into the message box and types their question after it. The
TUI runs in a detached tmux session (``tui_tmux``); in one TUI process:

- **empty** (the reference): ``Q`` typed into the empty box, a key at a time, each
  timed from ``tmux send-keys`` until ``capture-pane`` shows one more ``Q``;
- **paste**: ``--lines`` lines of log (~83 bytes each) pasted with ``tmux paste-buffer
  -p`` (bracketed, as a terminal pastes), timed until the last line is on screen;
- **after**: ``Q`` typed after the pasted text, timed the same way;
- **send**: Enter, timed until the message's last line is drawn in the Transcript
  (a long message is drawn folded by its ends since stop 43: all 20,000 lines were
  wrapped on the screen's loop first). The bench's server takes no body over 1 MB
  (aiohttp's default), so since stop 44 the turn then ends ``too_long`` and the text goes
  back to the box; the column still times the drawing of the message.

With ``--baseline DIR`` (a tree laid out as ``DIR/frontier/...``, e.g. ``git archive``
of an older commit) each round runs the same three phases again with
``PYTHONPATH=DIR``, alternating, so both trees meet the same machine load.

Run: ``.venv/bin/python bench/prompt_paste.py [--lines 20000] [--rounds 2]
[--baseline /tmp/base]`` (~20 s a round).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tui_keystroke import READY, type_keys
from tui_tmux import StreamServer, TmuxApp, frontier_argv, pct


def log_text(lines: int) -> str:
    """A CI log of ``lines`` lines, without a ``Q`` (the keys typed are counted as Qs)."""
    return "\n".join(
        f"{n:06d} ERROR something failed at module_{n * 7 % 977}.py line {n * 13 % 9973}: "
        f"value=0.{n * 7919 % 100000:05d}"
        for n in range(lines)
    )


def paste(tui: TmuxApp, path: Path, last: str) -> float:
    """Seconds from a bracketed paste of ``path`` until ``last`` is on the screen."""
    buffer = f"bench-{os.getpid()}"
    subprocess.run(["tmux", "load-buffer", "-b", buffer, str(path)], check=True)
    t0 = time.perf_counter()
    subprocess.run(["tmux", "paste-buffer", "-p", "-d", "-b", buffer, "-t", tui.name], check=True)
    tui.wait_for(lambda screen: last in screen, timeout=120)
    return time.perf_counter() - t0


def measure(
    args: argparse.Namespace, path: Path, last: str
) -> tuple[list[float], float, list[float], float]:
    """One TUI: the empty box's keys, the paste's seconds, the keys after the paste, and
    the seconds from Enter to the message's last line drawn in the Transcript."""
    with (
        StreamServer(1.0, 1.0) as server,
        TmuxApp("paste", frontier_argv(server.url), width=args.width, height=args.height) as tui,
    ):
        tui.wait_for(lambda screen: READY in screen)
        time.sleep(1.0)  # the first paint's aftermath (gc.freeze, the highlighter warm-up)
        empty = type_keys(tui, args.keys, args.gap)
        tui.keys("C-u")
        tui.wait_for(lambda screen: "Q" not in screen)
        seconds = paste(tui, path, last)
        time.sleep(0.5)  # the paste's own repaint settles
        after = type_keys(tui, args.keys, args.gap)
        t0 = time.perf_counter()
        tui.keys("Enter")
        drawn = "│     " + last  # the Transcript's row (its border, the gutter)
        tui.wait_for(lambda screen: drawn in screen, timeout=120)
        return empty, seconds, after, time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000, help="lines pasted (default 20000)")
    parser.add_argument("--keys", type=int, default=30, help="keys per phase (default 30)")
    parser.add_argument("--gap", type=float, default=0.06, help="seconds between keys")
    parser.add_argument("--rounds", type=int, default=1, help="fresh TUIs per tree (default 1)")
    parser.add_argument("--baseline", type=Path, help="an older tree, alternated (PYTHONPATH)")
    parser.add_argument("--width", type=int, default=120)
    parser.add_argument("--height", type=int, default=40)
    args = parser.parse_args()
    text = log_text(args.lines)
    last = text.rsplit("\n", 1)[-1][:40]
    trees: list[tuple[str, str | None]] = [("this tree", None)]
    if args.baseline is not None:
        trees.append(("baseline", str(args.baseline)))
    with tempfile.TemporaryDirectory(prefix="frontier-paste-") as tmp:
        path = Path(tmp) / "log.txt"
        path.write_text(text)
        print(
            f"message box in tmux {args.width}×{args.height}: key → screen (ms), empty and "
            f"after a paste of {args.lines:,} lines ({len(text.encode()) / 1e6:.1f} MB); "
            f"load {os.getloadavg()[0]:.2f}"
        )
        print(
            f"{'tree':>10}{'round':>6}{'empty p50':>11}{'p90':>7}{'after p50':>11}{'p90':>7}"
            f"{'max':>7}{'÷ empty':>9}{'paste s':>9}{'send s':>8}"
        )
        for i in range(1, args.rounds + 1):
            for name, pythonpath in trees:
                if pythonpath is None:
                    os.environ.pop("PYTHONPATH", None)
                else:
                    os.environ["PYTHONPATH"] = pythonpath
                empty, seconds, after, send = measure(args, path, last)
                ratio = pct(after, 0.5) / max(1e-9, pct(empty, 0.5))
                print(
                    f"{name:>10}{i:>6}{pct(empty, 0.5):>11.1f}{pct(empty, 0.9):>7.1f}"
                    f"{pct(after, 0.5):>11.1f}{pct(after, 0.9):>7.1f}{pct(after, 1):>7.1f}"
                    f"{ratio:>8.2f}×{seconds:>9.2f}{send:>8.2f}"
                )
        os.environ.pop("PYTHONPATH", None)
    print(f"load {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
