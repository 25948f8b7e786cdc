"""Replay a large recording at "max" speed in a headless TUI and measure what users feel.

Figures, side by side with references measured in the same run:
- total replay time vs. the real ``frontier transduce --summary`` subprocess on
  the same bytes (best of 3) and vs. the bare transducer in process (4 KiB
  chunks, what ``frontier transduce`` does minus start-up and printing);
- event-loop lag: how late a 10 ms asyncio timer fires while the replay runs
  (p50 / p99 / max), against the same timer in the idle app before it;
- how long each replay step held the loop (the replay controller's ``slices``);
- RSS growth of the process across the replay.

Two shapes of recording, each replayed ``--runs`` times in a fresh app, the
Transcript rendering prose as Markdown as it streams:
- ``calls``: one line of prose, then back-to-back apply_patch calls (``--mib``; CTL
  stops a response at prose after a call, so calls and prose cannot interleave);
- ``markdown``: one long Markdown reply — headings, emphasis, lists, tables, fenced
  python — and no call (``--markdown-mib``, 1 MiB by default: "fast on a 1 MB reply").

The last line of each shape is its worst run against the targets. Run:
``.venv/bin/python bench/tui_replay.py --mib 4 --runs 3`` (targets, issue 23: lag p99
≤ 25 ms, replay ≤ 3× transduce, RSS growth ≤ 150 MB); ``--shape calls`` runs one shape.
``bench/tui_markdown.py`` runs the ``markdown`` shape alone.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
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
LAG_TARGET_MS = 25.0
"""Issue 23's target for the loop lag's p99 while a replay runs (issue 14's was 50)."""


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


def make_markdown(size: int) -> str:
    """One long Markdown reply without calls: the shapes a model writes, over and over."""
    parts, total, n = [], 0, 0
    while total < size:
        piece = (
            f"## Part {n}\n\n"
            f"The module *grows* in part {n}: **compute** takes `value_{n}` and a factor, "
            "and each caller passes it on. This paragraph is long enough to wrap in the "
            "Transcript at every width, as explanations are.\n\n"
            "- the parser keeps its flags\n- `greet()` gains an argument\n"
            "  that the tests cover\n- nothing else changes\n\n"
            "| file | change | lines |\n|------|--------|------:|\n"
            f"| m.py | compute({n}) | {n % 97} |\n| test_m.py | a test | 12 |\n\n"
            "```python\n"
            f"def compute_{n}(value: int, factor: int = {n % 7 + 1}) -> int:\n"
            '    """Scale ``value``."""\n'
            "    return value * factor\n"
            "```\n\n"
        )
        parts.append(piece)
        total += len(piece)
        n += 1
    return "".join(parts)


SHAPES = {"calls": make_text, "markdown": make_markdown}


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


def transduce_cli_time(data: bytes) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of ``frontier transduce --summary`` on ``data``."""
    with tempfile.NamedTemporaryFile(suffix=".txt") as f:
        f.write(data)
        f.flush()
        cpu0 = _children_cpu()
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
        return time.perf_counter() - t0, _children_cpu() - cpu0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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
    cpu: float = 0.0
    """CPU seconds the process spent during the replay (steady where wall time is not:
    on a shared box the wall clock counts other processes' turns too)."""


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
        t0, cpu0 = time.perf_counter(), time.process_time()
        assert app.replay is not None
        worker = app.run_worker(app.replay.play(), name="replay")
        await worker.wait()
        # the end is on screen: every changed pane painted (a tree from before
        # ``painting_behind``, run with ``PYTHONPATH`` as a baseline, paints all in one flush)
        if not hasattr(app, "painting_behind"):
            app.flush()
        while getattr(app, "painting_behind", False):
            await asyncio.sleep(0.001)
        # the screen update the next refresh would run, now: ``pilot.pause()`` would add its
        # idle detection (sleeps of ~10 ms until the CPU is quiet) to the figure
        app.screen._on_timer_update()
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        await pilot.pause()
        stop.set()
        await probe
        growth = rss_mb() - rss0
        assert player.finished and app.state.consumed == player.size
        return Run(elapsed, idle, busy, list(app.replay.slices), growth, cpu)


def bench_shape(shape: str, size: int, runs: int) -> None:
    """Replay one shape of recording ``runs`` times and print a row per run."""
    text = SHAPES[shape](size)
    recording = synthesize(text, PROTOCOL, sizes=(16,), rate=0.001)
    with tempfile.TemporaryDirectory() as tmp:
        write_recording(Path(tmp) / "big.jsonl", recording)
    source = source_from_recording(recording, name="big.jsonl")
    del recording, text
    data = source.data
    calls = check_calls(data)
    assert calls == data.count(b"\nend\n"), "the bench stream stopped early"
    ref = min(transduce_time(data) for _ in range(3))
    clis = [transduce_cli_time(data) for _ in range(3)]
    cli, cli_cpu = min(wall for wall, _ in clis), min(cpu for _, cpu in clis)
    print(
        f"{shape}: {len(data) / (1 << 20):.2f} MiB of {PROTOCOL}, "
        f"{len(source.marks):,} deltas, {calls:,} calls; "
        f"transducer {ref:.3f} s in process, `frontier transduce` {cli:.3f} s, "
        f"{cli_cpu:.3f} s CPU (best of 3); load {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'run':>3}{'replay s':>10}{'÷ CLI':>7}{'÷ core':>8}"
        f"{'lag p50':>9}{'lag p99':>9}{'lag max':>9}{'idle p99':>10}"
        f"{'slice p99':>11}{'slice max':>11}{'steps':>7}{'RSS +MB':>9}{'CPU s':>7}{'÷ CLI':>7}"
    )
    results = []
    for i in range(1, runs + 1):
        gc.collect()  # each run starts from the same heap, not the last run's garbage
        run = asyncio.run(run_replay(ReplayPlayer(source)))
        results.append(run)
        print(
            f"{i:>3}{run.elapsed:>10.3f}{run.elapsed / cli:>6.2f}×{run.elapsed / ref:>7.1f}×"
            f"{pct(run.busy, 0.5):>9.1f}{pct(run.busy, 0.99):>9.1f}{pct(run.busy, 1):>9.1f}"
            f"{pct(run.idle, 0.99):>10.1f}{pct(run.slices, 0.99):>11.2f}"
            f"{pct(run.slices, 1):>11.2f}{len(run.slices):>7}{run.growth:>9.1f}"
            f"{run.cpu:>7.2f}{run.cpu / cli_cpu:>6.2f}×"
        )
    worst_ratio = max(r.elapsed for r in results) / cli
    worst_p99 = max(pct(r.busy, 0.99) for r in results)
    worst_rss = max(r.growth for r in results)
    worst_cpu = max(r.cpu for r in results) / cli_cpu
    print(
        f"{shape}, worst of {len(results)}: replay {worst_ratio:.2f}× `frontier transduce` "
        f"({worst_cpu:.2f}× in CPU time) "
        f"(target ≤ 3×), lag p99 {worst_p99:.1f} ms (≤ {LAG_TARGET_MS:.0f}), "
        f"RSS +{worst_rss:.1f} MB (≤ 150); "
        "lag and slices in ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mib", type=float, default=4.0, help="calls recording size (default 4 MiB)"
    )
    parser.add_argument(
        "--markdown-mib", type=float, default=1.0, help="markdown reply size (default 1 MiB)"
    )
    parser.add_argument("--runs", type=int, default=3, help="replays, each in a fresh app")
    parser.add_argument(
        "--shape", choices=[*SHAPES, "all"], default="all", help="which recording (default all)"
    )
    args = parser.parse_args()
    for shape in SHAPES if args.shape == "all" else [args.shape]:
        mib = args.markdown_mib if shape == "markdown" else args.mib
        bench_shape(shape, int(mib * (1 << 20)), args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
