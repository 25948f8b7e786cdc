"""Replay one recorded model response through a transducer, at any speed or step.

This is the teaching mode's engine and has no Textual in it: the TUI drives it
from a worker, ``frontier replay --headless`` drives it in a plain loop, and
tests drive it directly. Every step returns the events it caused, starting with
the ``StreamBytes`` that were fed, exactly as the live agent loop emits them.
"""

from __future__ import annotations

import codecs
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frontier.app.events import (
    AssistantText,
    Confirmed,
    ContractError,
    Event,
    ResponseEnded,
    ResponseStarted,
    StreamBytes,
)

MIN_SPEED, MAX_SPEED = 0.1, 100.0
SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 25.0, 50.0, 100.0)
MAX_CHUNK = 16 << 10
"""Bytes fed per step at "max" speed when nobody tunes it (``run_all``, headless)."""
MIN_CHUNK, MAX_CHUNK_ADAPTIVE = 1 << 10, 64 << 10
SLICE_BUDGET = 0.004
"""Seconds one "max"-speed step may hold the event loop (the TUI adapts the chunk to it)."""
EVENT_SCAN = 4096
"""``step_event`` feeds single bytes this far, then bigger pieces (see decisions-tui.md)."""


@dataclass(frozen=True)
class ReplaySource:
    """One recorded response as transducer input: bytes with their arrival times."""

    protocol: str
    data: bytes
    marks: tuple[tuple[float, int], ...]
    """``(t, end_offset)``: the bytes before ``end_offset`` had arrived at ``t`` seconds."""
    finish_reason: str = "stop"
    model: str = ""
    name: str = ""

    @property
    def duration(self) -> float:
        return self.marks[-1][0] if self.marks else 0.0


def source_from_chunks(
    protocol: str,
    chunks: Sequence[tuple[float, bytes]],
    finish_reason: str = "stop",
    model: str = "",
    name: str = "",
) -> ReplaySource:
    data = bytearray()
    marks: list[tuple[float, int]] = []
    for t, piece in chunks:
        data += piece
        marks.append((t, len(data)))
    return ReplaySource(protocol, bytes(data), tuple(marks), finish_reason, model, name)


def load_source(path: str | Path, protocol: str | None = None) -> ReplaySource:
    """Read a recording file (docs/recording-format.md) as replay input.

    Text modes replay the concatenated ``delta.content``; native modes replay
    the SSE body, which is what their transducer reads.
    """
    from frontier.app.session.record import read_recording

    return source_from_recording(read_recording(Path(path)), protocol, Path(path).name)


def source_from_recording(
    recording: Any, protocol: str | None = None, name: str = ""
) -> ReplaySource:
    """A ``frontier.app.session.record.Recording`` as replay input for ``protocol``."""
    mode = protocol or recording.mode
    return source_from_chunks(
        mode, recording.pieces(mode), recording.finish_reason, recording.model or "", name
    )


def default_transducer(protocol: str) -> Any:
    from frontier.app.cst.factory import make_transducer

    return make_transducer(protocol)


class ReplayPlayer:
    """Feeds a ``ReplaySource`` into a fresh transducer, by time or by step."""

    def __init__(
        self,
        source: ReplaySource,
        transducer_factory: Callable[[str], Any] = default_transducer,
    ) -> None:
        self.source = source
        self.transducer = transducer_factory(source.protocol)
        self._factory = transducer_factory
        self.position = 0
        self.time = 0.0
        self.finished = False
        self.started = False
        self._times = [t for t, _ in source.marks]
        self.error_offsets = self._scan_errors()
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    # ------------------------------------------------------------------ state
    @property
    def size(self) -> int:
        return len(self.source.data)

    @property
    def at_end(self) -> bool:
        return self.finished

    @property
    def frontier(self) -> int:
        return int(self.transducer.frontier)

    def pending_bound(self) -> int:
        return int(self.transducer.pending_bound())

    def pending(self) -> bytes:
        return bytes(self.transducer.pending())

    # ------------------------------------------------------------------ stepping
    def start(self) -> list[Event]:
        if self.started:
            return []
        self.started = True
        return [ResponseStarted(self.source.protocol, 0)]

    def feed_to(self, end: int) -> list[Event]:
        """Feed the bytes up to ``end`` (and finish the stream when it is reached)."""
        events = self.start()
        end = min(end, self.size)
        if end > self.position and not self.finished:
            piece = self.source.data[self.position : end]
            events.append(StreamBytes(self.position, piece))
            self.position = end
            if not self.transducer.stopped:
                events += self._with_text(self.transducer.feed(piece))
        if self.position >= self.size and not self.finished:
            events += self._finish()
        return events

    def step_bytes(self, n: int = 1) -> list[Event]:
        return self.feed_to(self.position + n)

    def step_line(self) -> list[Event]:
        """Feed through the next ``\\n`` (or to the end)."""
        nl = self.source.data.find(b"\n", self.position)
        return self.feed_to(self.size if nl == -1 else nl + 1)

    def step_event(self) -> list[Event]:
        """Feed until the transducer reports something (a byte at a time, then faster)."""
        events = self.start()
        step = 1
        fed = 0
        while not self.finished:
            got = self.feed_to(self.position + step)
            events += got
            if any(not isinstance(e, StreamBytes) for e in got):
                break
            fed += step
            if fed >= EVENT_SCAN:
                step = min(step * 2, MAX_CHUNK)
        return events

    def next_error(self) -> list[Event]:
        """Jump to the next contract error; to the end if there is none ahead."""
        events = self.start()
        ahead = [o for o in self.error_offsets if o >= self.position]
        if ahead:
            events += self.feed_to(ahead[0])
        while not self.finished:
            got = self.feed_to(self.position + 1)
            events += got
            if any(isinstance(e, ContractError) for e in got):
                break
            if self.transducer.stopped:
                events += self.feed_to(self.size)
        return events

    def advance(self, dt: float, speed: float | None, chunk: int = MAX_CHUNK) -> list[Event]:
        """Play ``dt`` wall seconds at ``speed`` (``None`` = max: one ``chunk`` of bytes)."""
        if speed is None:
            return self.feed_to(self.position + chunk)
        self.time += dt * speed
        i = bisect_right(self._times, self.time)
        end = self.source.marks[i - 1][1] if i else 0
        return self.feed_to(max(end, self.position)) if end > self.position else self.start()

    def run_all(self) -> list[Event]:
        events: list[Event] = []
        while not self.finished:
            events += self.feed_to(self.position + MAX_CHUNK)
        return events

    # ------------------------------------------------------------------ helpers
    def _finish(self) -> list[Event]:
        self.finished = True
        events: list[Event] = []
        if not self.transducer.stopped:
            clean = self.source.finish_reason in ("stop", "tool_calls")
            events += self._with_text(self.transducer.finish(clean))
        tail = self._decoder.decode(b"", final=True)
        if tail:
            events.append(AssistantText(tail))
        events.append(ResponseEnded(self.source.finish_reason))
        return events

    def _with_text(self, events: list[Event]) -> list[Event]:
        """Add the decoded prose the live loop would report, so the transcript fills in."""
        out: list[Event] = []
        for event in events:
            out.append(event)
            if isinstance(event, Confirmed) and event.kind == "text":
                text = self._decoder.decode(event.data)
                if text:
                    out.append(AssistantText(text))
        return out

    def _scan_errors(self) -> list[int]:
        """Offsets of the contract errors in this recording (a dry run at load)."""
        probe = self._factory(self.source.protocol)
        found: list[int] = []
        data = self.source.data
        for start in range(0, len(data), 1 << 16):
            if probe.stopped:
                break
            found += [e.offset for e in probe.feed(data[start : start + (1 << 16)]) if _err(e)]
        if not probe.stopped:
            clean = self.source.finish_reason in ("stop", "tool_calls")
            found += [e.offset for e in probe.finish(clean) if _err(e)]
        return found


def _err(event: Event) -> bool:
    return isinstance(event, ContractError)


def next_chunk(chunk: int, took: float, budget: float = SLICE_BUDGET) -> int:
    """The chunk for the next "max" step so that one step takes about half the budget.

    Transducers differ in cost per byte (SSE + JSON vs. a heredoc body), and so
    do machines: sizing by time keeps every slice short without starving
    throughput. Halve when over budget, double when well under it.
    """
    if took > budget:
        return max(MIN_CHUNK, chunk // 2)
    if took < budget / 4:
        return min(MAX_CHUNK_ADAPTIVE, chunk * 2)
    return chunk


def clamp_speed(speed: float) -> float:
    return max(MIN_SPEED, min(MAX_SPEED, speed))


def faster(speed: float | None) -> float | None:
    """Next speed up; past 100× comes "max" (``None``)."""
    if speed is None:
        return None
    for s in SPEEDS:
        if s > speed + 1e-9:
            return s
    return None


def slower(speed: float | None) -> float:
    if speed is None:
        return SPEEDS[-1]
    for s in reversed(SPEEDS):
        if s < speed - 1e-9:
            return s
    return SPEEDS[0]


def parse_speed(text: str) -> float | None:
    if text.strip().lower() == "max":
        return None
    try:
        return clamp_speed(float(text.rstrip("x×")))
    except ValueError:
        raise ValueError(f"speed {text!r}: use a number from 0.1 to 100, or max") from None
