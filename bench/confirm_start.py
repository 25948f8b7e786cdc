"""Confirm → start of a file edit, by the edited file's size (issue 24, third bullet).

    .venv/bin/python bench/confirm_start.py [--file-mib 0,1,4] [--repeats 20] [--rate 100]
                                            [--dir DIR] [--baseline DIR] [--json FILE]

``bench/overlap.py``'s machinery with the call made an edit: a simulated model streams, at
``--rate`` tokens/s, a sentence and one CTL ``replace`` call that changes the first line
of ``big.py``, a file of ``--file-mib`` MiB (``0``: one short line), rewritten with fresh
content before every turn so each call's pre-image is a version the store does not have
yet; then a closing sentence. Everything after the model client is real: ``AgentLoop``,
the CTL transducer, ``ToolBoundary`` with ``PolicyApprover("auto")``, one ``SessionStore``
(WAL, ``synchronous=FULL``) for the whole run, the atomic writer.

Per size (p50 / p99 over every sample, nearest rank; below 100 samples p99 = the max):

* **chunk→start** — the confirming chunk (CTL ``end``) to ``ToolStarted``: includes the
  tool's prepare, which reads, hashes and diffs the file for the review;
* **prepare** — argument check + the tool's prepare (the review's diff): before the
  approval, i.e. while a person reads the review under ``ask``;
* **confirm→start** — the approval (the approver's return: a person's "yes") to
  ``ToolStarted``; **COMMIT** — that sample's durable commit (pre-commit hook to the
  persistence call's return: WAL write + fsync); **added** = confirm→start − COMMIT,
  Frontier's own latency after the confirmation. **Target: added p99 ≤ 1 ms at every
  size**, with COMMIT near the bare reference;
* **keep** — storing the pre-image (hash check, secret scan, its own commit), which now
  runs on a worker thread after the start, while the tool runs (``-`` on a tree that
  keeps it inside the call's commit);
* **bare COMMIT** — the same run's reference: a bare one-row ``INSERT`` + ``COMMIT`` on its
  own database in the same directory, same pragmas, at the same wakes as the real turn
  (overlap.py's shadow turn).

One turn per size runs first as a warm-up and is not counted.

``--baseline DIR`` runs the same bench in a child process with ``PYTHONPATH=DIR`` (a copy
of an earlier tree: ``git archive HEAD | tar -x -C DIR/frontier``) right after, and prints
its rows under ours.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # overlap.py, beside this file

from overlap import (
    PROSE,
    BareStore,
    CallMarks,
    Marks,
    SimClient,
    TimedApprover,
    TimedBoundary,
    TimedPersistence,
    closing_response,
    now,
    p50_p99,
    pct,
    shadow_plan,
    shadow_turn,
    text_tokens,
)

from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.events import (
    CallReady,
    Event,
    ToolFinished,
    ToolStarted,
    TurnEnded,
)
from frontier.app.model.demo_script import Arg, Call, ctl_frame
from frontier.app.session.store import SessionStore
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

MIB = 1024 * 1024
LINE = b"value = compute(alpha, beta, gamma)  # an ordinary line of source code\n"
TARGET_ADDED_P99_MS = 1.0
COLUMNS = ("chunk_start", "prepare", "confirm_start", "commit", "added", "keep", "bare")


class KeepTimed(TimedPersistence):
    """overlap.py's timed adapter, plus the pre-image step the boundary runs after the start."""

    keeps: dict[str, float]

    def keep_preimages(self, call_id: str) -> None:
        t = now()
        self.inner.keep_preimages(call_id)
        self.keeps[call_id] = now() - t


def file_bytes(mib: float, sample: int) -> bytes:
    """About ``mib`` MiB of source lines (``0``: none), after a first line unique to the
    sample: every call's pre-image is a version the store does not hold yet."""
    first = f"first_{sample}\n".encode()
    return first + LINE * int(mib * MIB / len(LINE))


def edit_turn(sample: int) -> tuple[list[dict[str, Any]], str]:
    call = Call(
        "c1",
        "replace",
        (Arg("path", "big.py"), Arg("old", f"first_{sample}"), Arg("new", f"done_{sample}")),
    )
    chunks = text_tokens(PROSE + ctl_frame(call))
    chunks[-1]["choices"][0]["finish_reason"] = "stop"
    return chunks, "stop"


async def one_turn(
    mib: float,
    sample: int,
    args: argparse.Namespace,
    base: Path,
    store: SessionStore,
    bare: BareStore,
) -> dict[str, float]:
    provider = SimClient([edit_turn(sample), closing_response()], args.rate)
    marks = Marks()
    ended: list[TurnEnded] = []

    def observe(event: Event) -> None:
        if isinstance(event, CallReady):
            m = marks.of(event.call.id)
            m.ready = now()
            m.confirm = provider.last_yield
        elif isinstance(event, ToolStarted):
            marks.of(event.call.id).started = now()
        elif isinstance(event, ToolFinished):
            marks.of(event.result.call_id).result = event.result
        elif isinstance(event, TurnEnded):
            ended.append(event)

    with tempfile.TemporaryDirectory(prefix="frontier-confirm-", dir=base) as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "big.py").write_bytes(file_bytes(mib, sample))
        sid = store.create_session(str(ws), "bench-sim", None, "ctl")
        registry = default_registry()
        persistence = KeepTimed(store.persistence(sid), marks)
        persistence.keeps = {}
        boundary = TimedBoundary(
            registry,
            ws,
            TimedApprover(PolicyApprover("auto"), marks),
            persistence,
            emit=observe,
        )
        boundary.marks = marks
        store.fault_hook = marks.pre_commit
        loop = AgentLoop(
            client=provider,
            boundary=boundary,
            registry=registry,
            mode=get_mode("ctl"),
            emit=observe,
            store=store,
            session_id=sid,
        )
        try:
            await loop.send("Mark the file done.")
        finally:
            store.fault_hook = None
        edited = (ws / "big.py").read_bytes().startswith(f"done_{sample}\n".encode())
    m: CallMarks = marks.calls["c1"]
    reason = ended[-1].reason if ended else "no TurnEnded"
    if reason != "done" or m.result is None or not m.result.ok or not edited:
        out = m.result.output[:300] if m.result else ""
        raise SystemExit(f"{mib} MiB: the turn ended {reason!r}, result {out!r}: fix the bench")
    shadow = await shadow_turn(shadow_plan(provider, marks, [m], "ctl"), bare)
    return {
        "chunk_start": m.started - m.confirm,
        "prepare": m.approve[0] - m.run,
        "confirm_start": m.started - m.approve[1],
        "commit": m.commit_s,
        "added": m.started - m.approve[1] - m.commit_s,
        "keep": persistence.keeps.get("c1", float("nan")),
        "bare": shadow.bare[0][1],
        # where "added" goes (the slowest samples are printed with it)
        "approve_to_persist": m.persist[0] - m.approve[1],
        "store_before_commit": m.commit[0] - m.persist[0],
        "persist_to_started": m.started - m.persist[1],
    }


def summarize(samples: dict[str, list[dict[str, float]]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for size, rows in samples.items():
        row: dict[str, Any] = {"n": len(rows)}
        for col in COLUMNS:
            values = [r[col] * 1e3 for r in rows if r[col] == r[col]]  # NaN: not measured
            row[col] = p50_p99(values) if values else None
        row["slowest"] = sorted(rows, key=lambda r: r["added"])[-2:]
        row["added_p90"] = pct([r["added"] * 1e3 for r in rows], 90)
        out[size] = row
    return out


def print_table(title: str, summary: dict[str, dict[str, Any]]) -> None:
    heads = ("chunk→start", "prepare", "confirm→start", "COMMIT", "added", "keep", "bare COMMIT")
    print(f"\n{title} (ms, p50 / p99)")
    print(f"{'file':>8} " + " ".join(f"{h:>17}" for h in heads) + f" {'n':>4}")
    for size, row in summary.items():
        cells = []
        for col in COLUMNS:
            pair = row[col]
            cells.append(f"{'-':>17}" if pair is None else f"{pair[0]:>7.2f} / {pair[1]:>7.2f}")
        print(f"{size + ' MiB':>8} " + " ".join(cells) + f" {row['n']:>4}")
    worst = max(row["added"][1] for row in summary.values())
    slowest = [(size, r) for size, row in summary.items() for r in row.get("slowest", ())]
    if slowest:
        print(
            "slowest added, by size (ms): approve→persist + the store's work before COMMIT"
            " + persist→ToolStarted"
        )
        for size, r in slowest:
            print(
                f"  {size:>3} MiB  added {r['added'] * 1e3:6.2f} = "
                f"{r['approve_to_persist'] * 1e3:.2f} + {r['store_before_commit'] * 1e3:.2f}"
                f" + {r['persist_to_started'] * 1e3:.2f}"
            )
    p90 = ", ".join(f"{size} MiB {row['added_p90']:.2f}" for size, row in summary.items())
    print(f"added p90 (the body of the distribution, below the host's stalls): {p90} ms")
    print(
        f"target: added (confirm→start − COMMIT) p99 ≤ {TARGET_ADDED_P99_MS:g} ms at every size"
        f" -> {'MET' if worst <= TARGET_ADDED_P99_MS else 'MISSED'} (worst {worst:.2f} ms)"
    )


async def measure(args: argparse.Namespace) -> dict[str, list[dict[str, float]]]:
    base = args.dir or Path(tempfile.gettempdir())
    samples: dict[str, list[dict[str, float]]] = {f"{m:g}": [] for m in args.sizes}
    with contextlib.ExitStack() as stack:
        home = stack.enter_context(tempfile.TemporaryDirectory(prefix="fo-confirm-", dir=base))
        store = stack.enter_context(SessionStore.open(Path(home) / "sessions.db"))
        bare = BareStore(Path(home) / "bare.db")
        stack.callback(bare.close)
        sample = 0
        for mib in args.sizes:  # warm-up, not counted: a process's first turns run cold code
            sample += 1
            await one_turn(mib, sample, args, base, store, bare)
        for rep in range(args.repeats):
            for mib in args.sizes:  # sizes interleaved: the machine's noise spreads over all
                sample += 1
                row = await one_turn(mib, sample, args, base, store, bare)
                samples[f"{mib:g}"].append(row)
            if not args.quiet:
                print(f"  repeat {rep + 1}/{args.repeats}", flush=True)
    return samples


def baseline(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """The same bench on the tree at ``--baseline`` (a child process), summarized."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        argv = [sys.executable, __file__, "--file-mib", args.file_mib, "--repeats"]
        argv += [str(args.repeats), "--rate", f"{args.rate:g}", "--json", out.name, "--quiet"]
        if args.dir is not None:
            argv += ["--dir", str(args.dir)]
        env = {**os.environ, "PYTHONPATH": str(args.baseline)}
        subprocess.run(argv, env=env, check=True)
        return json.loads(Path(out.name).read_text())["summary"]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file-mib", default="0,1,4", help="edited file sizes, MiB (0,1,4)")
    ap.add_argument("--repeats", type=int, default=20, help="samples per size (20)")
    ap.add_argument("--rate", type=float, default=100.0, help="tokens per second (100)")
    ap.add_argument("--dir", type=Path, default=None, help="temp dir parent (the store's disk)")
    ap.add_argument("--baseline", type=Path, default=None, help="PYTHONPATH of an earlier tree")
    ap.add_argument("--json", type=Path, default=None, help="write samples and summary here")
    ap.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        args.sizes = [float(x) for x in args.file_mib.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--file-mib: sizes in MiB, comma-separated (got {args.file_mib!r})")
    if not args.sizes or min(args.sizes) < 0 or args.repeats < 1 or args.rate <= 0:
        ap.error("sizes must be ≥ 0, repeats ≥ 1, rate > 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.quiet:
        print(f"python {platform.python_version()}, {os.cpu_count()} cpus")
        print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
        print(f"load before: {os.getloadavg()}")
    t0 = time.monotonic()
    samples = asyncio.run(measure(args))
    summary = summarize(samples)
    if args.json is not None:
        args.json.write_text(json.dumps({"summary": summary, "samples": samples}, indent=1))
    if args.quiet:
        return 0
    print(f"load after: {os.getloadavg()} ({time.monotonic() - t0:.0f} s)")
    print_table(f"this tree, {args.rate:g} tok/s, {args.repeats} samples per size", summary)
    if args.baseline is not None:
        print(f"\nbaseline ({args.baseline}) running…", flush=True)
        print_table(f"baseline {args.baseline}", baseline(args))
        print(f"load after the baseline: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
