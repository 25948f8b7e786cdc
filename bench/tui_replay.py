"""Replay a large recording at "max" speed in a headless TUI and measure what users feel.

Figures, side by side with references measured in the same run:
- total replay time vs. the real ``frontier transduce --summary`` subprocess on
  the same bytes (best of 3) and vs. the bare transducer in process (4 KiB
  chunks, what ``frontier transduce`` does minus start-up and printing);
- event-loop lag: how late a 10 ms asyncio timer fires while the replay runs
  (p50 / p99 / max), against the same timer in the idle app before it;
- how long each replay step held the loop (the replay controller's ``slices``);
- RSS growth of the process across the replay.

Each run replays in a fresh app; the last line is the worst run against the
targets. Run: ``.venv/bin/python bench/tui_replay.py --mib 4 --runs 3``
(targets: lag p99 ≤ 50 ms, replay ≤ 3× transduce, RSS growth ≤ 150 MB).
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from frontier.app.config import Config
from frontier.app.cst.factory import make_transducer
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.replay_player import ReplayPlayer, source_from_recording
from frontier.app.session.record import synthesize, write_recording

PROTOCOL = "ctl-heredoc"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def make_text(size: int) -> str:
    """Prose plus apply_patch calls with heredoc bodies, like a long coding session."""
    body = "".join(f"+    line {i} = compute(value_{i}, other={i * 7})\n" for i in range(60))
    frame = (
        "call c{n} apply_patch\narg patch <<EOF\n--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,61 @@\n"
        " x = 1\n" + body + "EOF\nend\n"
    )
    parts, total, n = ["I'll patch the module in many small steps.\n"], 0, 0
    while total < size:
        piece = frame.replace("{n}", str(n))
        parts.append(piece)
        total += len(piece)
        n += 1
    return "".join(parts)


def check_calls(data: bytes) -> int:
    """How many calls the bytes hold (the bench is void if the stream stops early)."""
    transducer = make_transducer(PROTOCOL)
    events = transducer.feed(data) + transducer.finish(True)
    return sum(1 for e in events if e.type == "call")


def transduce_time(data: bytes) -> float:
    t0 = time.perf_counter()
    transducer = make_transducer(PROTOCOL)
    for start in range(0, len(data), 4096):
        transducer.feed(data[start : start + 4096])
    transducer.finish(True)
    return time.perf_counter() - t0


def transduce_cli_time(data: bytes) -> float:
    with tempfile.NamedTemporaryFile(suffix=".txt") as f:
        f.write(data)
        f.flush()
        t0 = time.perf_counter()
        with open(f.name, "rb") as stdin:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "frontier.app.cli",
                    "transduce",
                    "--protocol",
                    PROTOCOL,
                    "--summary",
                ],
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                check=True,
            )
        return time.perf_counter() - t0


async def lag_probe(stop: asyncio.Event, lags: list[float], period: float = 0.01) -> None:
    while not stop.is_set():
        t0 = time.perf_counter()
        await asyncio.sleep(period)
        lags.append(time.perf_counter() - t0 - period)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


@dataclass(frozen=True)
class Run:
    elapsed: float
    idle: list[float]
    busy: list[float]
    slices: list[float]
    """Seconds each replay step held the event loop."""
    growth: float


async def run_replay(player: ReplayPlayer) -> Run:
    app = FrontierApp(Config(), player=player, speed=None, autostart=False, remember_theme=False)
    async with app.run_test(size=(140, 45)) as pilot:
        idle: list[float] = []
        stop = asyncio.Event()
        probe = asyncio.create_task(lag_probe(stop, idle))
        await pilot.pause(0.5)
        stop.set()
        await probe
        rss0 = rss_mb()
        busy: list[float] = []
        stop = asyncio.Event()
        probe = asyncio.create_task(lag_probe(stop, busy))
        t0 = time.perf_counter()
        assert app.replay is not None
        worker = app.run_worker(app.replay.play(), name="replay")
        await worker.wait()
        elapsed = time.perf_counter() - t0
        app.flush()
        await pilot.pause()
        stop.set()
        await probe
        growth = rss_mb() - rss0
        assert player.finished and app.state.consumed == player.size
        return Run(elapsed, idle, busy, list(app.replay.slices), growth)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=float, default=4.0, help="recording size (default 4 MiB)")
    parser.add_argument("--runs", type=int, default=3, help="replays, each in a fresh app")
    args = parser.parse_args()
    text = make_text(int(args.mib * (1 << 20)))
    recording = synthesize(text, PROTOCOL, sizes=(16,), rate=0.001)
    with tempfile.TemporaryDirectory() as tmp:
        write_recording(Path(tmp) / "big.jsonl", recording)
    source = source_from_recording(recording, name="big.jsonl")
    del recording, text
    data = source.data
    calls = check_calls(data)
    assert calls == data.count(b"\nend\n"), "the bench stream stopped early"
    ref = min(transduce_time(data) for _ in range(3))
    cli = min(transduce_cli_time(data) for _ in range(3))
    print(
        f"recording: {len(data) / (1 << 20):.2f} MiB of {PROTOCOL}, "
        f"{len(source.marks):,} deltas, {calls:,} calls; "
        f"transducer {ref:.3f} s in process, `frontier transduce` {cli:.3f} s (best of 3)"
    )
    print(
        f"{'run':>3}{'replay s':>10}{'÷ CLI':>7}{'÷ core':>8}"
        f"{'lag p50':>9}{'lag p99':>9}{'lag max':>9}{'idle p99':>10}"
        f"{'slice p99':>11}{'slice max':>11}{'steps':>7}{'RSS +MB':>9}"
    )
    runs = []
    for i in range(1, args.runs + 1):
        run = asyncio.run(run_replay(ReplayPlayer(source)))
        runs.append(run)
        print(
            f"{i:>3}{run.elapsed:>10.3f}{run.elapsed / cli:>6.2f}×{run.elapsed / ref:>7.1f}×"
            f"{pct(run.busy, 0.5):>9.1f}{pct(run.busy, 0.99):>9.1f}{pct(run.busy, 1):>9.1f}"
            f"{pct(run.idle, 0.99):>10.1f}{pct(run.slices, 0.99):>11.2f}"
            f"{pct(run.slices, 1):>11.2f}{len(run.slices):>7}{run.growth:>9.1f}"
        )
    worst_ratio = max(r.elapsed for r in runs) / cli
    worst_p99 = max(pct(r.busy, 0.99) for r in runs)
    worst_rss = max(r.growth for r in runs)
    print(
        f"worst of {len(runs)}: replay {worst_ratio:.2f}× `frontier transduce` (target ≤ 3×), "
        f"lag p99 {worst_p99:.1f} ms (≤ 50), RSS +{worst_rss:.1f} MB (≤ 150); "
        "lag and slices in ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
