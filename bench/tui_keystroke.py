"""Keystroke-to-screen latency in the real TUI while a fast stream renders (issue 23).

The TUI runs in a detached tmux session against a loopback model (``tui_tmux``).
A "user" types ``Q`` into the message box a key at a time (``tmux send-keys``) and
polls ``tmux capture-pane`` until the screen shows one more ``Q``; the time from
the key to the screen is one sample. Two phases in the same TUI process:

- **idle** (the reference): nothing streams;
- **stream**: the prompt ``go`` was sent and the model streams a long Markdown reply
  at ``--rate`` tokens/s (one SSE event per token); typing starts after ``--warmup``
  seconds so the reply is already long.

Keys are ``--gap`` seconds apart (a quick typist) plus the wait for the screen.
Prints p50 / p90 / max per phase, their ratio, and the rate the server achieved
(it slows down when the client stops reading). Target: stream p90 ≤ 50 ms.
Run: ``.venv/bin/python bench/tui_keystroke.py`` (~1 min; ``--rounds 2`` repeats
the whole measure in a fresh TUI).
"""

from __future__ import annotations

import argparse
import sys
import time

from tui_tmux import StreamServer, TmuxApp, frontier_argv, pct

READY = "message the agent"


def type_keys(tui: TmuxApp, count: int, gap: float) -> list[float]:
    """Type ``count`` Qs; the seconds each took to show (the box holds no Q before)."""
    shown = tui.screen().count("Q")
    samples: list[float] = []
    for _ in range(count):
        t0 = time.perf_counter()
        tui.keys("Q", literal=True)
        while tui.screen().count("Q") <= shown:
            if time.perf_counter() - t0 > 10:
                raise TimeoutError("a key never reached the screen")
        samples.append(time.perf_counter() - t0)
        shown += 1
        time.sleep(gap)
    return samples


def clear_prompt(tui: TmuxApp) -> None:
    tui.keys("C-u")
    tui.wait_for(lambda screen: "Q" not in screen)


def measure(args: argparse.Namespace) -> tuple[list[float], list[float], float, float]:
    """Idle samples, stream samples, the tokens/s achieved, and the TUI's CPU share
    (of one core) while the stream phase was typed."""
    with (
        StreamServer(args.rate, args.seconds) as server,
        TmuxApp("kbd", frontier_argv(server.url), width=args.width, height=args.height) as tui,
    ):
        tui.wait_for(lambda screen: READY in screen)
        time.sleep(1.0)  # the first paint's aftermath (gc.freeze, the highlighter warm-up)
        idle = type_keys(tui, args.keys, args.gap)
        clear_prompt(tui)
        tui.keys("go", literal=True)
        tui.keys("Enter")
        if not server.streaming.wait(30):
            raise TimeoutError("the model was never asked")
        time.sleep(args.warmup)
        cpu0, t0 = tui.cpu_seconds(), time.perf_counter()
        stream = type_keys(tui, args.keys, args.gap)
        busy = (tui.cpu_seconds() - cpu0) / (time.perf_counter() - t0)
        if not server.streaming.is_set():
            print("warning: the stream ended before the last key", file=sys.stderr)
        return idle, stream, server.achieved, busy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=1000.0, help="tokens/s (default 1000)")
    parser.add_argument("--keys", type=int, default=40, help="keys per phase (default 40)")
    parser.add_argument("--gap", type=float, default=0.06, help="seconds between keys")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of stream first")
    parser.add_argument("--seconds", type=float, default=40.0, help="stream length (s)")
    parser.add_argument("--rounds", type=int, default=1, help="fresh TUIs (default 1)")
    parser.add_argument("--width", type=int, default=120)
    parser.add_argument("--height", type=int, default=40)
    args = parser.parse_args()
    print(
        f"keystroke → screen in tmux {args.width}×{args.height}, {args.keys} keys per phase, "
        f"stream {args.rate:,.0f} tok/s (ms)"
    )
    print(f"{'round':>5}{'phase':>8}{'p50':>8}{'p90':>8}{'max':>8}{'tok/s':>9}")
    worst = 0.0
    for i in range(1, args.rounds + 1):
        idle, stream, achieved, busy = measure(args)
        for phase, samples, rate in (("idle", idle, ""), ("stream", stream, f"{achieved:,.0f}")):
            print(
                f"{i:>5}{phase:>8}{pct(samples, 0.5):>8.1f}{pct(samples, 0.9):>8.1f}"
                f"{pct(samples, 1):>8.1f}{rate:>9}"
            )
        ratio = pct(stream, 0.9) / max(1e-9, pct(idle, 0.9))
        print(f"{i:>5}{'ratio':>8}{'':>8}{ratio:>7.2f}×   TUI CPU {busy:.0%} of a core streaming")
        worst = max(worst, pct(stream, 0.9))
    print(f"worst stream p90 {worst:.1f} ms (target ≤ 50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
