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
to stream. Everything after the model client is real: ``AgentLoop``, the mode's
transducer, ``ToolBoundary`` with ``PolicyApprover("auto")``, a ``SessionStore``
(WAL, fsync) shared by all runs, ``bash`` in its own process group.

Per mode it prints the turn's wall time (ratio vs native-eos, measured in the
same run), and per call:

* confirm->start: from the simulated client receiving the chunk that held the call's
  confirming byte (for native-eos and xml: the end of the stream) to the
  boundary's ``ToolStarted`` event;
* overhead: the same, but from the moment the call *could* start — the latest
  of its confirmation, the end of the stream (batch modes) and the end of the
  previous call's process (calls run one at a time, in order): Frontier's own
  latency (minus its durable commit: the "added" figure the targets are about);
* spawn: ``ToolStarted`` to bash running (``$EPOCHREALTIME``), for reference;

and the breakdown of the overhead along the path chunk -> transducer -> loop
scheduling -> prepare -> approval -> persist_call -> mark_started -> ToolStarted,
taken with thin timing wrappers around the approver, the persistence adapter
and ``ToolBoundary.run``.

The figure the targets are about splits each sample in two: **the durable commit**
(the ``COMMIT`` statement of the transaction that records the call and its start:
from the store's pre-commit hook to the persistence call's return, i.e. the WAL
write and its fsync) and **Frontier's added latency** (that sample's overhead minus
its own commit: transducer, scheduling, argument check, approval, the store's row
building, the event). Targets: added p99 <= 1 ms at 100 tok/s; commit p99 <= 1.2x a
bare one-row SQLite insert with the same pragmas (WAL, ``synchronous=FULL``).

The bare insert is measured interleaved: after each turn a *shadow turn* replays it
with nothing of Frontier in it, waking at the same offsets as the real turn's chunks
and commits and doing a bare ``INSERT`` + ``COMMIT`` on its own database (same
directory) wherever the real turn committed, so both commits see the same idle gaps
and the same I/O history; the ones standing for a call's commit are the samples. At
every other wake the shadow times a fixed pure-Python workload twice, right after the
idle gap ("cold") and at once again ("hot"): the VM's slowdown of code after an idle
gap, measured in the same run on a fixed workload.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import sqlite3
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
from frontier.app.model.demo_script import Arg, Call, ctl_frame, xml_block
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd, StreamItem, WireEvent
from frontier.app.session.store import SessionStore
from frontier.app.vocab import CTL_MODES, EAGER_MODES, NATIVE_MODES
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

MODES = ("ctl", "ctl-heredoc", "native-inc", "native-eos", "xml")
REFERENCE = "native-eos"
BATCH = tuple(m for m in MODES if m not in EAGER_MODES)
"""Modes whose calls wait for the end of the stream by design."""
TOKEN_BYTES = 4
PROSE = "I'll run the three checks now, one after the other.\n"
CLOSING = "All three checks passed, so the task is done; nothing else needs to change.\n"
TASK = "Run the three checks."
TARGET_ADDED_P99_MS = 1.0
"""Frontier's own latency (overhead minus the sample's durable commit), p99, at 100 tok/s."""
TARGET_RATE = 100.0
TARGET_COMMIT_RATIO = 1.2
"""The store's commit p99 against a bare fsync'd one-row insert's, same run."""
STALL_MS = 5.0
"""A commit this slow is the host stalling the disk (both kinds get them, at random)."""

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
    if mode in NATIVE_MODES:
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
    if mode in CTL_MODES:
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


class SimClient:
    """Plays the scripted responses at a fixed token rate and notes when it yields what.

    A model client (``app.model.client.Client``) on the Chat Completions wire: each chunk
    is decoded by the wire's own adapter *after* its arrival is stamped (as
    ``ModelClient`` decodes a server-sent event once its bytes arrive), so the decoding
    counts in Frontier's latency, as the native transducer's JSON parsing did before."""

    wire = "openai-chat"
    model = "bench-sim"

    def __init__(self, responses: list[tuple[list[dict[str, Any]], str]], rate: float) -> None:
        self.codec = codec(self.wire)
        self.responses = list(responses)
        self.interval = 1.0 / rate
        self.last_yield = 0.0
        """perf_counter() when the chunk the loop is processing was handed over."""
        self.stream_spans: list[tuple[float, float]] = []
        """(first request, StreamEnd yielded) per response."""
        self.yields: list[float] = []
        """perf_counter() of every chunk handed over (the wakes a shadow turn replays)."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        if not self.responses:
            raise RuntimeError("the simulated model was asked for more responses than scripted")
        chunks, finish = self.responses.pop(0)
        decoder = self.codec.decoder()
        t0 = now()
        for i, chunk in enumerate(chunks):
            delay = t0 + (i + 1) * self.interval - now()
            if delay > 0:
                await asyncio.sleep(delay)
            self.last_yield = now()
            self.yields.append(self.last_yield)
            raw = json.dumps(chunk)
            yield WireEvent(raw, self.last_yield - t0, tuple(decoder.feed("message", raw)))
        self.last_yield = now()
        self.yields.append(self.last_yield)
        self.stream_spans.append((t0, self.last_yield))
        yield StreamEnd(finish)

    async def aclose(self) -> None:
        pass


# --------------------------------------------------------------------------- timing wrappers


@dataclass
class CallMarks:
    """perf_counter() stamps along one call's path."""

    confirm: float = 0.0
    ready: float = 0.0
    run: float = 0.0
    approve: tuple[float, float] = (0.0, 0.0)
    persist: tuple[float, float] = (0.0, 0.0)
    commit: tuple[float, float] = (0.0, 0.0)
    """The durable ``COMMIT`` inside ``persist``: pre-commit hook -> the call's return."""
    mark: tuple[float, float] = (0.0, 0.0)
    mark_commit: tuple[float, float] = (0.0, 0.0)
    """``mark_started``'s own COMMIT, on the two-commit path (zero on the one-commit path)."""
    started: float = 0.0
    started_wall: float = 0.0
    exec_end: float = 0.0
    proc_wall: float = 0.0
    result: ToolResult | None = None

    @property
    def commit_s(self) -> float:
        """This sample's durable commit time: its COMMIT statement(s), WAL write + fsync."""
        return (self.commit[1] - self.commit[0]) + (self.mark_commit[1] - self.mark_commit[0])


@dataclass
class Marks:
    calls: dict[str, CallMarks] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    commits: list[tuple[float, str]] = field(default_factory=list)
    """(perf_counter() just before COMMIT, commit point) of every store write in the turn."""

    def pre_commit(self, point: str) -> None:
        """The store's ``fault_hook``: called inside each write transaction before COMMIT."""
        self.commits.append((now(), point))

    def commit_since(self, t: float) -> float:
        """When the latest COMMIT that began after ``t`` began (the one just made)."""
        if not self.commits or self.commits[-1][0] < t:
            raise SystemExit(
                "the store committed without calling its fault_hook before COMMIT: its API "
                "moved; adapt bench/overlap.py's commit timing (Marks.pre_commit)"
            )
        return self.commits[-1][0]

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
        end = now()
        marks = self.marks.of(call.id)
        marks.persist = (t, end)
        marks.commit = (self.marks.commit_since(t), end)

    def mark_started(self, call_id: str) -> None:
        t = now()
        self.inner.mark_started(call_id)
        end = now()
        marks = self.marks.of(call_id)
        marks.mark = (t, end)
        marks.mark_commit = (self.marks.commit_since(t), end)

    def persist_and_start(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        """The boundary's one-commit path (call row + start mark); the start costs 0."""
        t = now()
        self.inner.persist_and_start(call, spec, preview)
        end = now()
        marks = self.marks.of(call.id)
        marks.persist = (t, end)
        marks.commit = (self.marks.commit_since(t), end)
        marks.mark = (end, end)

    def commit_result(self, result: ToolResult) -> None:
        self.marks.of(result.call_id).exec_end = now()  # the process is over and drained
        self.inner.commit_result(result)

    def commit_rejected(self, call: ToolCall, result: ToolResult) -> None:
        self.inner.commit_rejected(call, result)

    def journal(self, call_id: str) -> Any:
        return self.inner.journal(call_id)


class TimedBoundary(ToolBoundary):
    marks: Marks

    async def run(self, call: ToolCall) -> ToolResult:
        self.marks.of(call.id).run = now()
        return await super().run(call)


# --------------------------------------------------------------------------- the shadow turn


def fixed_workload() -> int:
    """The same ~0.1 ms of plain Python every time (dicts, strings, calls, a closure).

    Its cost right after an idle gap vs. back-to-back is the VM's idle slowdown: what
    any code on Frontier's path pays after waiting for the next token.
    """
    counts: dict[str, int] = {}

    def bump(key: str, n: int) -> None:
        counts[key] = counts.get(key, 0) + n

    acc = 0
    for i in range(150):
        word = f"tok{i % 13}"
        bump(word, len(word))
        acc += (i * 7) % 11
        if word.endswith("3"):
            acc ^= hash(word) & 0xFF
    return acc + sum(counts.values())


class BareStore:
    """A bare SQLite database with the store's durability: WAL, ``synchronous=FULL``.

    One ``INSERT`` of one row and its ``COMMIT``, what the cheapest durable record of a
    call could cost on this disk at that moment. Like the store it never checkpoints
    inside a commit (``wal_autocheckpoint=0``; checkpointed before each shadow turn, as
    the loop checkpoints the store before each request).
    """

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        mode = self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise SystemExit(f"{path}: SQLite refused WAL (got {mode!r}); use --dir on a disk")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("PRAGMA wal_autocheckpoint=0")
        self.conn.execute("CREATE TABLE IF NOT EXISTS t (x TEXT)")

    def insert(self) -> tuple[float, float]:
        """(the whole transaction, its COMMIT alone) in seconds."""
        t0 = now()
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute("INSERT INTO t VALUES (?)", ("call c1 shell: echo; sleep",))
        t1 = now()
        self.conn.execute("COMMIT")
        t2 = now()
        return t2 - t0, t2 - t1

    def checkpoint(self) -> None:
        self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def close(self) -> None:
        self.conn.close()


@dataclass
class Shadow:
    """What one shadow turn measured."""

    bare: list[tuple[float, float]] = field(default_factory=list)
    """Per call of the real turn: the bare insert at its wake (transaction, COMMIT)."""
    cold: list[float] = field(default_factory=list)
    """The fixed workload right after an idle gap (one token's wait)."""
    hot: list[float] = field(default_factory=list)
    """The same workload at once again."""


def shadow_plan(
    provider: SimClient, marks: Marks, calls: list[CallMarks], mode: str
) -> tuple[int, list[tuple[float, str]]]:
    """The real turn's wakes as (offset from response 1's start, what happened there).

    ``call``: where a call's path woke (its confirming chunk; batch modes: the end of the
    stream or of the previous call's process) and then committed; ``commit``: every
    other store commit (results, responses, messages) at its own moment; ``token``:
    every other chunk. Returns also how many commits came before the stream began.
    """
    s0 = provider.stream_spans[0][0]
    end = max(m.commit[1] for m in calls)
    call_commits = {m.commit[0] for m in calls} | {m.mark_commit[0] for m in calls}
    frees = free_times(calls, provider.stream_spans[0][1], mode)
    before = sum(1 for t, _ in marks.commits if t < s0)
    events = [(f - s0, "call") for f in frees]
    events += [
        (t - s0, "commit") for t, _ in marks.commits if s0 <= t <= end and t not in call_commits
    ]
    taken = set(frees)
    events += [(y - s0, "token") for y in provider.yields if s0 <= y <= end and y not in taken]
    order = {"token": 0, "call": 1, "commit": 2}
    return before, sorted(events, key=lambda e: (e[0], order[e[1]]))


async def shadow_turn(plan: tuple[int, list[tuple[float, str]]], bare: BareStore) -> Shadow:
    """Replay the real turn's wakes with nothing of Frontier in them (see the module doc)."""
    before, events = plan
    out = Shadow()
    bare.checkpoint()
    for _ in range(before):  # the turn's commits before the stream: message, response
        bare.insert()
    t0 = now()
    for offset, what in events:
        delay = t0 + offset - now()
        if delay > 0:
            await asyncio.sleep(delay)
        if what == "call":
            out.bare.append(bare.insert())
        elif what == "commit":
            bare.insert()
        else:
            a = now()
            fixed_workload()
            b = now()
            fixed_workload()
            out.cold.append(b - a)
            out.hot.append(now() - b)
    return out


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
    shadow: Shadow = field(default_factory=Shadow)


async def run_once(
    mode: str,
    args: argparse.Namespace,
    target_tokens: int,
    base: Path,
    store: SessionStore,
    bare: BareStore,
) -> Run:
    first = padded_calls(mode, args.calls, args.tool_time, target_tokens)
    provider = SimClient([first, closing_response()], args.rate)
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
        if not hasattr(store, "fault_hook"):
            raise SystemExit(
                "SessionStore has no fault_hook (called before each COMMIT): its API moved; "
                "adapt bench/overlap.py's commit timing (Marks.pre_commit)"
            )
        store.fault_hook = marks.pre_commit
        loop = AgentLoop(
            client=provider,
            boundary=boundary,
            registry=registry,
            mode=get_mode(mode),
            emit=observe,
            store=store,
            session_id=sid,
        )
        t0 = now()
        try:
            await loop.send(TASK)
        finally:
            store.fault_hook = None
        wall = now() - t0
    calls = [marks.calls[i] for i in marks.order]
    check(mode, ended, calls, args.calls)
    for m in calls:
        assert m.result is not None
        m.proc_wall = float(m.result.output.split()[0])
    s0, s1 = provider.stream_spans[0]
    overlap = sum(max(0.0, min(m.exec_end, s1) - max(m.started, s0)) for m in calls)
    shadow = await shadow_turn(shadow_plan(provider, marks, calls, mode), bare)
    return Run(mode, wall, s1 - s0, s1, overlap, calls, shadow)


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


def free_times(calls: list[CallMarks], stream_end: float, mode: str) -> list[float]:
    """Per call, when it could start: the latest of its confirmation, the end of the
    stream (batch modes) and the end of the previous call's process (one at a time)."""
    out = []
    prev_end = 0.0
    end = stream_end if mode in BATCH else 0.0
    for m in calls:
        out.append(max(m.confirm, prev_end, end))
        prev_end = m.exec_end
    return out


def latencies(run: Run) -> list[tuple[float, float, float, float, float]]:
    """Per call: (confirm->start, overhead, spawn, commit, added = overhead - commit) in s."""
    out = []
    for m, free in zip(run.calls, free_times(run.calls, run.stream_end, run.mode), strict=True):
        over = m.started - free
        out.append(
            (
                m.started - m.confirm,
                over,
                m.proc_wall - m.started_wall,
                m.commit_s,
                over - m.commit_s,
            )
        )
    return out


SEGMENTS: tuple[tuple[str, Callable[[CallMarks], float]], ...] = (
    ("chunk -> CallReady (transducer, loop feed)", lambda m: m.ready - m.confirm),
    ("CallReady -> boundary.run (scheduling)", lambda m: m.run - m.ready),
    ("run -> approve (coerce, prepare)", lambda m: m.approve[0] - m.run),
    ("approve (PolicyApprover auto)", lambda m: m.approve[1] - m.approve[0]),
    ("approve -> persist", lambda m: m.persist[0] - m.approve[1]),
    ("persist: store work before COMMIT", lambda m: m.commit[0] - m.persist[0]),
    ("persist: COMMIT (WAL write + fsync)", lambda m: m.commit[1] - m.commit[0]),
    ("persist_call -> mark_started", lambda m: m.mark[0] - m.persist[1]),
    ("mark_started (own commit, if any)", lambda m: m.mark[1] - m.mark[0]),
    ("mark_started -> ToolStarted", lambda m: m.started - m.mark[1]),
    ("= total (chunk -> ToolStarted)", lambda m: m.started - m.confirm),
    ("= total - COMMIT", lambda m: m.started - m.confirm - m.commit_s),
)
"""The path of one call, from its confirming chunk. Unlike "added" (which starts when
the call *could* start) the scheduling row and the total include any wait for the
previous call's process (calls run one at a time). Batch columns show the first call
of each batch, whose scheduling row also holds the end-of-response commit."""


def p50_p99(values: Sequence[float]) -> tuple[float, float]:
    return statistics.median(values), pct(values, 99)


def cell(pair: tuple[float, float], width: int = 5, digits: int = 2) -> str:
    return f"{pair[0]:>{width}.{digits}f} / {pair[1]:>{width}.{digits}f}"


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
        col = [[x[i] * ms for x in lat] for i in range(5)]
        wall = statistics.median(r.wall for r in rs)
        bare = [b for r in rs for b in r.shadow.bare]
        row = {
            "wall_s": wall,
            "ratio_vs_eos": wall / ref if ref else None,
            "stream_s": statistics.median(r.stream for r in rs),
            "overlap_s": statistics.median(r.overlap for r in rs),
            "confirm_start_ms": p50_p99(col[0]),
            "overhead_ms": p50_p99(col[1]),
            "spawn_ms": statistics.median(col[2]),
            "commit_ms": p50_p99(col[3]),
            "added_ms": p50_p99(col[4]),
            "bare_commit_ms": p50_p99([b[1] * ms for b in bare]),
            "bare_txn_ms": p50_p99([b[0] * ms for b in bare]),
            "n": len(lat),
            "n_bare": len(bare),
        }
        row["commit_ratio_p99"] = row["commit_ms"][1] / row["bare_commit_ms"][1]
        summary[mode] = row
        ratio = f"{row['ratio_vs_eos']:.2f}x" if ref else "-"
        print(
            f"{mode:<12} {wall:>7.3f} {ratio:>7} {row['stream_s']:>8.3f} {row['overlap_s']:>9.3f}"
            f" {cell(row['confirm_start_ms'], 8, 1)} {cell(row['overhead_ms'])}"
            f" {row['spawn_ms']:>9.2f} {row['n']:>3}"
        )

    print(
        "\nthe split (ms, p50 / p99 over all calls): the durable commit of each sample, "
        "Frontier's added latency\n(overhead - that commit), and the bare one-row insert "
        "measured at the same wakes in the shadow turns"
    )
    head = (
        f"{'mode':<12} {'commit':>15} {'added':>15} {'bare COMMIT':>15} {'bare txn':>15}"
        f" {'commit/bare p99':>16} {'n':>4}"
    )
    print(head)
    print("-" * len(head))
    for mode, row in summary.items():
        print(
            f"{mode:<12} {cell(row['commit_ms'], 6, 3)} {cell(row['added_ms'], 6, 3)}"
            f" {cell(row['bare_commit_ms'], 6, 3)} {cell(row['bare_txn_ms'], 6, 3)}"
            f" {row['commit_ratio_p99']:>15.2f}x {row['n']:>4}"
        )

    cold = [c * ms for r in runs for c in r.shadow.cold]
    hot = [h * ms for r in runs for h in r.shadow.hot]
    idle = {
        "gap_ms": 1e3 / args.rate,
        "cold_ms": p50_p99(cold),
        "hot_ms": p50_p99(hot),
        "n": len(cold),
    }
    idle["slowdown_p50"] = idle["cold_ms"][0] / idle["hot_ms"][0]
    idle["slowdown_p99"] = idle["cold_ms"][1] / idle["hot_ms"][1]
    print(
        f"\nidle slowdown, same run: a fixed pure-Python workload right after a token's idle gap "
        f"(~{idle['gap_ms']:.0f} ms)\n  cold {cell(idle['cold_ms'], 6, 3)} ms, back-to-back "
        f"{cell(idle['hot_ms'], 6, 3)} ms (p50 / p99, n={idle['n']}): "
        f"{idle['slowdown_p50']:.1f}x at p50, {idle['slowdown_p99']:.1f}x at p99"
    )
    summary["_idle"] = idle

    print("\noverhead path, per call (ms, p50 / p99; batch modes: the first call of the batch)")
    cols = [m for m in modes if by_mode[m]]
    print(f"{'segment':<44}" + "".join(f" {m:>15}" for m in cols))
    for name, fn in SEGMENTS:
        cells = []
        for mode in cols:
            rs = by_mode[mode]
            picked = [r.calls[0] for r in rs] if mode in BATCH else [m for r in rs for m in r.calls]
            cells.append(cell(p50_p99([fn(m) * ms for m in picked]), 6, 3))
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
    eager = [m for m in modes if m not in BATCH and by_mode[m]]
    if eager:
        # The commit is the same code in every mode: pool the eager modes' samples, so the
        # p99 is not one outlier of ~100 (at 102 samples it is the 101st).
        commits = [m.commit_s * ms for mode in eager for r in by_mode[mode] for m in r.calls]
        bares = [b[1] * ms for mode in eager for r in by_mode[mode] for b in r.shadow.bare]
        pooled = {
            "commit_ms": p50_p99(commits),
            "bare_commit_ms": p50_p99(bares),
            "n": len(commits),
            "n_bare": len(bares),
        }
        for q in (50, 90, 95, 99):
            pooled[f"ratio_p{q}"] = pct(commits, q) / pct(bares, q)
        pooled["stalls"] = (sum(c > STALL_MS for c in commits), sum(b > STALL_MS for b in bares))
        summary["_commit_pooled"] = pooled
        print(
            "\ncommit vs bare insert, eager modes pooled: ratio at p50 / p90 / p95 / p99 "
            + " / ".join(f"{pooled[f'ratio_p{q}']:.2f}x" for q in (50, 90, 95, 99))
            + f"; samples over {STALL_MS:g} ms (host stalls): commit {pooled['stalls'][0]}, "
            f"bare {pooled['stalls'][1]}"
        )
        worst_added = max(summary[m]["added_ms"][1] for m in eager)
        added = ", ".join(f"{m} {summary[m]['added_ms'][1]:.3f}" for m in eager)
        at = "" if args.rate == TARGET_RATE else f" (the target is set at {TARGET_RATE:g} tok/s)"
        print(
            f"target 2: added latency p99 (eager modes) {added} ms vs {TARGET_ADDED_P99_MS:g} ms"
            f" -> {'MET' if worst_added <= TARGET_ADDED_P99_MS else 'MISSED'}{at}\n"
            f"target 3: commit p99 {pooled['commit_ms'][1]:.3f} ms vs bare insert p99 "
            f"{pooled['bare_commit_ms'][1]:.3f} ms (eager modes pooled, n={pooled['n']} / "
            f"{pooled['n_bare']}): {pooled['ratio_p99']:.2f}x (p50 {pooled['ratio_p50']:.2f}x)"
            f" vs {TARGET_COMMIT_RATIO:g}x -> "
            f"{'MET' if pooled['ratio_p99'] <= TARGET_COMMIT_RATIO else 'MISSED'}"
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
    ap.add_argument(
        "--from-json",
        type=Path,
        default=None,
        metavar="FILE",
        help="re-print the figures of an earlier --json dump instead of running (pass the "
        "flags it ran with)",
    )
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
    if args.from_json is not None:
        runs = load_runs(args.from_json)
        modes = [m for m in args.mode_list if any(r.mode == m for r in runs)]
        report(runs, modes, args, tokens)
        return 0
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
        bare = BareStore(Path(home) / "bare.db")  # same directory, same disk
        stack.callback(bare.close)
        for rep in range(args.repeats):
            order = modes[rep % len(modes) :] + modes[: rep % len(modes)]  # spread machine noise
            for mode in order:
                run = await run_once(mode, args, tokens, base, store, bare)
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
                "stream_end": r.stream_end,
                "overlap": r.overlap,
                "calls": [{k: v for k, v in vars(m).items() if k != "result"} for m in r.calls],
                "shadow": vars(r.shadow),
            }
            for r in runs
        ]
        args.json.write_text(json.dumps({"summary": summary, "runs": raw}, indent=1))
    return 0


def load_runs(path: Path) -> list[Run]:
    """The runs of a ``--json`` dump (dumps without ``stream_end``: eager modes only)."""
    runs = []
    for raw in json.loads(path.read_text())["runs"]:
        calls = [
            CallMarks(**{k: tuple(v) if isinstance(v, list) else v for k, v in c.items()})
            for c in raw["calls"]
        ]
        shadow = Shadow(**{k: [tuple(x) if isinstance(x, list) else x for x in v]
                           for k, v in raw.get("shadow", {}).items()})  # fmt: skip
        end = raw.get("stream_end", 0.0)
        runs.append(
            Run(raw["mode"], raw["wall"], raw["stream"], end, raw["overlap"], calls, shadow)
        )
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    return asyncio.run(main_async(parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
