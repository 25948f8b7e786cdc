"""How much eager execution saves, per protocol mode, and how fast a confirmed call starts.

    .venv/bin/python bench/overlap.py [--rate 50] [--tool-time 0.5] [--repeats 3]
                                      [--calls 3] [--stream-ratio 1.2] [--modes ...]
                                      [--dir DIR] [--json FILE]

A simulated model streams, at ``--rate`` tokens/s (a token = one chunk of 4 bytes,
paced by ``asyncio.sleep`` to absolute deadlines, as a server streams regardless
of its client), a short sentence and ``--calls`` ``shell`` calls
``echo $EPOCHREALTIME; sleep T # padding``; after the results it answers with a
closing sentence (no call: the turn is done). The same content is rendered in
each mode's wire format (CTL frames / heredocs in ``content``, native
``delta.tool_calls`` pieces, a MiniMax XML block), padded so every mode streams
the same number of tokens and each call takes ``--stream-ratio`` x the tool time
to stream. Everything after the provider is real: ``AgentLoop``, the mode's
transducer, ``ToolBoundary`` with ``PolicyApprover("auto")``, a ``SessionStore``
(WAL, fsync) shared by all runs, ``bash`` in its own process group.

Per mode it prints the turn's wall time (ratio vs native-eos, measured in the
same run), and per call:

* confirm->start: from the provider yielding the chunk that held the call's
  confirming byte (for native-eos and xml: the end of the stream) to the
  boundary's ``ToolStarted`` event;
* overhead: the same, but from the moment the call *could* start — the latest
  of its confirmation, the end of the stream (batch modes) and the end of the
  previous call's process (calls run one at a time, in order): Frontier's own
  latency, which the 5 ms target is about;
* spawn: ``ToolStarted`` to bash running (``$EPOCHREALTIME``), for reference;

and the breakdown of the overhead along the path chunk -> transducer -> loop
scheduling -> prepare -> approval -> persist_call -> mark_started -> ToolStarted,
taken with thin timing wrappers around the approver, the persistence adapter
and ``ToolBoundary.run``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.events import CallReady, Event, ToolCall, ToolFinished, ToolResult, TurnEnded
from frontier.app.events import ToolStarted as ToolStartedEvent
from frontier.app.providers.demo_script import Arg, Call, ctl_frame, xml_block
from frontier.app.providers.openai import Chunk, StreamEnd
from frontier.app.session.store import SessionStore
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

MODES = ("ctl", "ctl-heredoc", "native-inc", "native-eos", "xml")
REFERENCE = "native-eos"
BATCH = ("native-eos", "xml")
"""Modes whose calls wait for the end of the stream by design."""
TOKEN_BYTES = 4
PROSE = "I'll run the three checks now, one after the other.\n"
CLOSING = "All three checks passed, so the task is done; nothing else needs to change.\n"
TASK = "Run the three checks."
TARGET_P99_MS = 5.0

now = time.perf_counter


# --------------------------------------------------------------------------- the stream


def command(tool_time: float, pad: int) -> str:
    """The shell call: its first output line is the moment bash started (wall clock)."""
    base = f"echo $EPOCHREALTIME; sleep {tool_time:g}"
    if pad < 3:
        return base
    words = ("padding so the arguments stream about as long as the tool runs " * 64)[: pad - 3]
    return f"{base} # {words}"


def content_chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    delta: dict[str, Any] = {"content": text} if text else {}
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def text_tokens(text: str) -> list[dict[str, Any]]:
    return [content_chunk(text[i : i + TOKEN_BYTES]) for i in range(0, len(text), TOKEN_BYTES)]


def tool_piece(index: int, arguments: str, call_id: str = "", name: str = "") -> dict[str, Any]:
    piece: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if call_id:
        piece.update(id=call_id, type="function")
        piece["function"]["name"] = name
    return {"choices": [{"index": 0, "delta": {"tool_calls": [piece]}, "finish_reason": None}]}


def render_calls(mode: str, commands: Sequence[str]) -> tuple[list[dict[str, Any]], str]:
    """Response 1 in ``mode``'s wire format: token chunks (the last one carries the finish)."""
    if mode in ("native-eos", "native-inc"):
        chunks = text_tokens(PROSE)
        for i, cmd in enumerate(commands):
            chunks.append(tool_piece(i, "", f"call_{i + 1}", "shell"))
            args = json.dumps({"command": cmd})
            chunks += [
                tool_piece(i, args[j : j + TOKEN_BYTES]) for j in range(0, len(args), TOKEN_BYTES)
            ]
        chunks[-1]["choices"][0]["finish_reason"] = "tool_calls"
        return chunks, "tool_calls"
    calls = [
        Call(
            f"c{i + 1}",
            "shell",
            (Arg("command", cmd + "\n", "heredoc"),)
            if mode == "ctl-heredoc"
            else (Arg("command", cmd),),
        )
        for i, cmd in enumerate(commands)
    ]
    if mode in ("ctl", "ctl-heredoc"):
        text = PROSE + "".join(ctl_frame(c) for c in calls)
    elif mode == "xml":
        text = PROSE + xml_block(tuple(calls))
    else:
        raise ValueError(f"unknown mode {mode!r}; choose from {', '.join(MODES)}")
    chunks = text_tokens(text)
    chunks[-1]["choices"][0]["finish_reason"] = "stop"
    return chunks, "stop"


def closing_response() -> tuple[list[dict[str, Any]], str]:
    chunks = text_tokens(CLOSING)
    chunks[-1]["choices"][0]["finish_reason"] = "stop"
    return chunks, "stop"


def padded_calls(
    mode: str, calls: int, tool_time: float, target_tokens: int
) -> tuple[list[dict[str, Any]], str]:
    """Pad each command so response 1 is ``target_tokens`` long (the same in every mode)."""
    pads = [0] * calls
    for _ in range(3):  # 4 more bytes = one more token in every mode: converges at once
        chunks, _ = render_calls(mode, [command(tool_time, p) for p in pads])
        missing = target_tokens - len(chunks)
        if missing == 0:
            break
        for i in range(calls):
            share = missing // calls + (1 if i < missing % calls else 0)
            pad = pads[i] + share * TOKEN_BYTES
            pads[i] = pad if pad >= 3 else 0
    return render_calls(mode, [command(tool_time, p) for p in pads])


class SimProvider:
    """Plays the scripted responses at a fixed token rate and notes when it yields what."""

    def __init__(self, responses: list[tuple[list[dict[str, Any]], str]], rate: float) -> None:
        self.responses = list(responses)
        self.interval = 1.0 / rate
        self.last_yield = 0.0
        """perf_counter() when the chunk the loop is processing was handed over."""
        self.stream_spans: list[tuple[float, float]] = []
        """(first request, StreamEnd yielded) per response."""

    async def stream(
        self, messages: list[dict[str, Any]], *, tools: Any = None
    ) -> AsyncIterator[Chunk | StreamEnd]:
        if not self.responses:
            raise RuntimeError("the simulated model was asked for more responses than scripted")
        chunks, finish = self.responses.pop(0)
        t0 = now()
        for i, chunk in enumerate(chunks):
            delay = t0 + (i + 1) * self.interval - now()
            if delay > 0:
                await asyncio.sleep(delay)
            self.last_yield = now()
            yield Chunk(chunk, json.dumps(chunk), self.last_yield - t0)
        self.last_yield = now()
        self.stream_spans.append((t0, self.last_yield))
        yield StreamEnd(finish)


# --------------------------------------------------------------------------- timing wrappers


@dataclass
class CallMarks:
    """perf_counter() stamps along one call's path."""

    confirm: float = 0.0
    ready: float = 0.0
    run: float = 0.0
    approve: tuple[float, float] = (0.0, 0.0)
    persist: tuple[float, float] = (0.0, 0.0)
    mark: tuple[float, float] = (0.0, 0.0)
    started: float = 0.0
    started_wall: float = 0.0
    exec_end: float = 0.0
    proc_wall: float = 0.0
    result: ToolResult | None = None


@dataclass
class Marks:
    calls: dict[str, CallMarks] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)

    def of(self, call_id: str) -> CallMarks:
        if call_id not in self.calls:
            self.calls[call_id] = CallMarks()
            self.order.append(call_id)
        return self.calls[call_id]


class TimedApprover:
    def __init__(self, inner: PolicyApprover, marks: Marks) -> None:
        self.inner = inner
        self.marks = marks

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        t = now()
        decision = await self.inner.approve(call, spec, preview)
        self.marks.of(call.id).approve = (t, now())
        return decision


class TimedPersistence:
    def __init__(self, inner: Any, marks: Marks) -> None:
        self.inner = inner
        self.marks = marks

    def persist_call(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        t = now()
        self.inner.persist_call(call, spec, preview)
        self.marks.of(call.id).persist = (t, now())

    def mark_started(self, call_id: str) -> None:
        t = now()
        self.inner.mark_started(call_id)
        self.marks.of(call_id).mark = (t, now())

    def persist_and_start(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        """The boundary's one-commit path (call row + start mark); the start costs 0."""
        t = now()
        self.inner.persist_and_start(call, spec, preview)
        end = now()
        marks = self.marks.of(call.id)
        marks.persist = (t, end)
        marks.mark = (end, end)

    def commit_result(self, result: ToolResult) -> None:
        self.marks.of(result.call_id).exec_end = now()  # the process is over and drained
        self.inner.commit_result(result)

    def journal(self, call_id: str) -> Any:
        return self.inner.journal(call_id)


class TimedBoundary(ToolBoundary):
    marks: Marks

    async def run(self, call: ToolCall) -> ToolResult:
        self.marks.of(call.id).run = now()
        return await super().run(call)


# --------------------------------------------------------------------------- one run


@dataclass
class Run:
    mode: str
    wall: float
    stream: float
    """Response 1: request to StreamEnd."""
    stream_end: float
    overlap: float
    """Tool execution time that happened while response 1 was still streaming."""
    calls: list[CallMarks]


async def run_once(
    mode: str, args: argparse.Namespace, target_tokens: int, base: Path, store: SessionStore
) -> Run:
    first = padded_calls(mode, args.calls, args.tool_time, target_tokens)
    provider = SimProvider([first, closing_response()], args.rate)
    marks = Marks()
    ended: list[TurnEnded] = []

    def observe(event: Event) -> None:
        if isinstance(event, CallReady):
            m = marks.of(event.call.id)
            m.ready = now()
            m.confirm = provider.last_yield
        elif isinstance(event, ToolStartedEvent):
            m = marks.of(event.call.id)
            m.started = now()
            m.started_wall = time.time()
        elif isinstance(event, ToolFinished):
            marks.of(event.result.call_id).result = event.result
        elif isinstance(event, TurnEnded):
            ended.append(event)

    with tempfile.TemporaryDirectory(prefix="frontier-overlap-", dir=base) as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        sid = store.create_session(str(workspace), "bench-sim", None, mode)
        registry = default_registry()
        boundary = TimedBoundary(
            registry,
            workspace,
            TimedApprover(PolicyApprover("auto"), marks),
            TimedPersistence(store.persistence(sid), marks),
            emit=observe,
        )
        boundary.marks = marks
        loop = AgentLoop(
            provider=provider,
            boundary=boundary,
            registry=registry,
            mode=get_mode(mode),
            emit=observe,
            store=store,
            session_id=sid,
            model="bench-sim",
        )
        t0 = now()
        await loop.send(TASK)
        wall = now() - t0
    calls = [marks.calls[i] for i in marks.order]
    check(mode, ended, calls, args.calls)
    for m in calls:
        assert m.result is not None
        m.proc_wall = float(m.result.output.split()[0])
    s0, s1 = provider.stream_spans[0]
    overlap = sum(max(0.0, min(m.exec_end, s1) - max(m.started, s0)) for m in calls)
    return Run(mode, wall, s1 - s0, s1, overlap, calls)


def check(mode: str, ended: list[TurnEnded], calls: list[CallMarks], expected: int) -> None:
    """The measurement only counts if the turn did what a user asked for."""
    reason = ended[-1].reason if ended else "no TurnEnded"
    kinds = [m.result.kind if m.result else "none" for m in calls]
    if reason != "done" or kinds != ["ok"] * expected:
        outputs = [m.result.output[:200] if m.result else "" for m in calls]
        raise SystemExit(
            f"{mode}: the turn ended {reason!r} with results {kinds} (expected {expected} x ok); "
            f"outputs: {outputs}. Fix the rendering in bench/overlap.py before trusting figures."
        )


# --------------------------------------------------------------------------- figures


def pct(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (with fewer than 100 samples, p99 is the maximum)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def latencies(run: Run) -> list[tuple[float, float, float]]:
    """Per call: (confirm->start, overhead, spawn) in seconds."""
    out = []
    prev_end = 0.0
    stream_end = run.stream_end if run.mode in BATCH else 0.0
    for m in run.calls:
        free = max(m.confirm, prev_end, stream_end)
        out.append((m.started - m.confirm, m.started - free, m.proc_wall - m.started_wall))
        prev_end = m.exec_end
    return out


SEGMENTS: tuple[tuple[str, Callable[[CallMarks], float]], ...] = (
    ("chunk -> CallReady (transducer, loop feed)", lambda m: m.ready - m.confirm),
    ("CallReady -> boundary.run (scheduling)", lambda m: m.run - m.ready),
    ("run -> approve (coerce, prepare)", lambda m: m.approve[0] - m.run),
    ("approve (PolicyApprover auto)", lambda m: m.approve[1] - m.approve[0]),
    ("approve -> persist_call", lambda m: m.persist[0] - m.approve[1]),
    ("persist call [+start] (commit + fsync)", lambda m: m.persist[1] - m.persist[0]),
    ("persist_call -> mark_started", lambda m: m.mark[0] - m.persist[1]),
    ("mark_started (own commit, if any)", lambda m: m.mark[1] - m.mark[0]),
    ("mark_started -> ToolStarted", lambda m: m.started - m.mark[1]),
    ("= total (chunk -> ToolStarted)", lambda m: m.started - m.confirm),
)


def report(runs: list[Run], modes: Sequence[str], args: argparse.Namespace, tokens: int) -> dict:
    by_mode = {mode: [r for r in runs if r.mode == mode] for mode in modes}
    ref = statistics.median(r.wall for r in by_mode[REFERENCE]) if REFERENCE in by_mode else None
    ms = 1e3
    print(
        f"\nrate {args.rate:g} tok/s ({TOKEN_BYTES} B/token), {args.calls} shell calls x "
        f"{args.tool_time:g} s, response 1 = {tokens} tokens in every mode "
        f"({tokens / args.rate:.2f} s), {args.repeats} repeats; "
        f"medians unless marked; p99 = max below 100 samples\n"
    )
    head = (
        f"{'mode':<12} {'wall s':>7} {'vs eos':>7} {'stream s':>8} {'overlap s':>9}"
        f" {'confirm->start ms':>18} {'overhead ms':>13} {'spawn ms':>9} {'n':>3}"
    )
    print(head)
    print("-" * len(head))
    summary: dict[str, Any] = {}
    for mode, rs in by_mode.items():
        lat = [x for r in rs for x in latencies(r)]
        c2s = [x[0] * ms for x in lat]
        over = [x[1] * ms for x in lat]
        spawn = [x[2] * ms for x in lat]
        wall = statistics.median(r.wall for r in rs)
        row = {
            "wall_s": wall,
            "ratio_vs_eos": wall / ref if ref else None,
            "stream_s": statistics.median(r.stream for r in rs),
            "overlap_s": statistics.median(r.overlap for r in rs),
            "confirm_start_ms": (statistics.median(c2s), pct(c2s, 99)),
            "overhead_ms": (statistics.median(over), pct(over, 99)),
            "spawn_ms": statistics.median(spawn),
            "n": len(lat),
        }
        summary[mode] = row
        ratio = f"{row['ratio_vs_eos']:.2f}x" if ref else "-"
        print(
            f"{mode:<12} {wall:>7.3f} {ratio:>7} {row['stream_s']:>8.3f} {row['overlap_s']:>9.3f}"
            f" {row['confirm_start_ms'][0]:>8.1f} / {row['confirm_start_ms'][1]:>7.1f}"
            f" {row['overhead_ms'][0]:>5.2f} / {row['overhead_ms'][1]:>5.2f}"
            f" {row['spawn_ms']:>9.2f} {row['n']:>3}"
        )

    print("\noverhead path, per call (ms, p50 / p99; batch modes: the first call of the batch)")
    cols = [m for m in modes if by_mode[m]]
    print(f"{'segment':<44}" + "".join(f" {m:>15}" for m in cols))
    for name, fn in SEGMENTS:
        cells = []
        for mode in cols:
            rs = by_mode[mode]
            picked = [r.calls[0] for r in rs] if mode in BATCH else [m for r in rs for m in r.calls]
            vals = [fn(m) * ms for m in picked]
            cells.append(f"{statistics.median(vals):>6.3f} / {pct(vals, 99):>6.3f}")
        print(f"{name:<44}" + "".join(f" {c:>15}" for c in cells))

    if "ctl" in summary and REFERENCE in summary:
        saving = summary[REFERENCE]["wall_s"] - summary["ctl"]["wall_s"]
        nominal = (args.calls - 1) * args.tool_time
        overlap = summary["ctl"]["overlap_s"]
        print(
            f"\ntarget 1: ctl finishes {saving:.3f} s before native-eos; overlappable tool time "
            f"({args.calls - 1} x {args.tool_time:g} s) {nominal:.3f} s -> "
            f"{'MET' if saving >= nominal else 'MISSED'} (measured process time inside the "
            f"ctl stream, incl. bash start-up: {overlap:.3f} s, saving - that = "
            f"{(saving - overlap) * 1e3:+.0f} ms)"
        )
    worst = max(
        (summary[m]["overhead_ms"][1] for m in summary if m not in BATCH), default=float("nan")
    )
    eager = ", ".join(
        f"{m} {summary[m]['confirm_start_ms'][1]:.2f}" for m in summary if m not in BATCH
    )
    print(
        f"target 2: confirm->start p99 (eager modes) {eager} ms; worst overhead p99 "
        f"{worst:.2f} ms vs {TARGET_P99_MS:g} ms -> "
        f"{'MET' if worst < TARGET_P99_MS else 'MISSED'}"
    )
    return summary


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rate", type=float, default=50.0, help="tokens per second (default 50)")
    ap.add_argument("--tool-time", type=float, default=0.5, help="seconds per call (default 0.5)")
    ap.add_argument("--calls", type=int, default=3, help="shell calls in the response (default 3)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per mode (default 3)")
    ap.add_argument(
        "--stream-ratio",
        type=float,
        default=1.2,
        help="streaming time of one call / tool time (default 1.2: each call's tool has "
        "finished before the next call is confirmed)",
    )
    ap.add_argument("--modes", default=",".join(MODES), help="comma-separated subset")
    ap.add_argument("--dir", type=Path, default=None, help="temp dir parent (the store's disk)")
    ap.add_argument("--json", type=Path, default=None, help="write raw per-call samples here")
    args = ap.parse_args(argv)
    args.mode_list = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in args.mode_list if m not in MODES]
    if unknown or args.rate <= 0 or args.tool_time <= 0 or args.calls < 1 or args.repeats < 1:
        ap.error(
            f"bad arguments (unknown modes {unknown}; rate, tool time, calls and repeats must "
            "be positive)"
        )
    return args


async def main_async(args: argparse.Namespace) -> int:
    per_call = round(args.rate * args.tool_time * args.stream_ratio)
    tokens = len(text_tokens(PROSE)) + args.calls * per_call
    floor = max(
        len(render_calls(m, [command(args.tool_time, 0)] * args.calls)[0]) for m in args.mode_list
    )
    tokens = max(tokens, floor)
    base = args.dir or Path(tempfile.gettempdir())
    print(f"python {platform.python_version()}, {os.cpu_count()} cpus, load {os.getloadavg()}")
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    runs: list[Run] = []
    modes = list(args.mode_list)
    with contextlib.ExitStack() as stack:
        # One store for every run, as a user's sessions.db lives across sessions: its WAL
        # grows and is checkpointed as in a long session, not fresh for each run.
        home = stack.enter_context(tempfile.TemporaryDirectory(prefix="fo-store-", dir=base))
        store = stack.enter_context(SessionStore.open(Path(home) / "sessions.db"))
        for rep in range(args.repeats):
            order = modes[rep % len(modes) :] + modes[: rep % len(modes)]  # spread machine noise
            for mode in order:
                run = await run_once(mode, args, tokens, base, store)
                runs.append(run)
                print(f"  repeat {rep + 1} {mode:<12} wall {run.wall:.3f} s", flush=True)
    summary = report(runs, modes, args, tokens)
    print(f"load after: {os.getloadavg()}")
    if args.json is not None:
        raw = [
            {
                "mode": r.mode,
                "wall": r.wall,
                "stream": r.stream,
                "overlap": r.overlap,
                "calls": [{k: v for k, v in vars(m).items() if k != "result"} for m in r.calls],
            }
            for r in runs
        ]
        args.json.write_text(json.dumps({"summary": summary, "runs": raw}, indent=1))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return asyncio.run(main_async(parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
