"""Replay recorded model responses through a transducer, at any speed or step.

This is the teaching mode's engine and has no Textual in it: the TUI drives it
from a worker, ``frontier replay --headless`` drives it in a plain loop, and
tests drive it directly. Every step returns the events it caused, starting with
the ``StreamBytes`` that were fed, exactly as the live agent loop emits them.
``ReplayPlayer`` plays one response; ``PlaylistPlayer`` plays a stored session's
responses in order behind the same interface, so the TUI drives either alike.
"""

from __future__ import annotations

import codecs
from bisect import bisect_right
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from frontier.app.events import (
    AssistantText,
    Confirmed,
    ContractError,
    Event,
    ReasoningText,
    ResponseContinued,
    ResponseEnded,
    ResponseStarted,
    StreamBytes,
)
from frontier.app.record import record
from frontier.app.stream_events import coalesce_confirmed
from frontier.app.transducers import transducer_factory as transducer_factory_for
from frontier.app.vocab import DEFAULT_WIRE, NATIVE_MODES, is_clean

if TYPE_CHECKING:
    from typing import TypeGuard

    from frontier.app.session.record import Recording

MIN_SPEED, MAX_SPEED = 0.1, 100.0
SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 25.0, 50.0, 100.0)
MAX_CHUNK = 16 << 10
"""Bytes fed per step at "max" speed when nobody tunes it (``run_all``, headless)."""
MIN_CHUNK, MAX_CHUNK_ADAPTIVE = 1 << 10, 64 << 10
SLICE_BUDGET = 0.004
"""Seconds one "max"-speed step may hold the event loop (the TUI adapts the chunk to it)."""
EVENT_SCAN = 4096
"""``step_event`` feeds single bytes this far, then bigger pieces (see decisions-tui.md)."""


@record
class ReplaySource:
    """One recorded response as transducer input: bytes with their arrival times."""

    protocol: str
    data: bytes
    marks: tuple[tuple[float, int], ...]
    """``(t, end_offset)``: the bytes before ``end_offset`` had arrived at ``t`` seconds."""
    finish_reason: str = "stop"
    model: str = ""
    name: str = ""
    joins: tuple[tuple[int, int], ...] = ()
    """``(offset, echo_skipped)`` where a continued response was joined (a
    ``ResponseContinued`` is played there)."""
    wire: str = DEFAULT_WIRE
    """The API the response was spoken on: the native protocols read its SSE body."""
    recorded: str = ""
    """The protocol the response was streamed in (``""``: not known); when it is not
    ``protocol``, :func:`protocol_warning` says what the replay cannot show."""
    events: tuple[tuple[float, str], ...] = ()
    """The recorded events (``data`` strings), kept for a text protocol played as it was
    streamed: the errors its live adapter raised beside the text (a native tool call, an
    unreadable event inside a frame: ``agent.explain.errors_beside``) are found from
    them when the response is played, and played at their offsets."""

    @property
    def duration(self) -> float:
        return self.marks[-1][0] if self.marks else 0.0

    def pieces(self) -> list[bytes]:
        """The input in the pieces it arrived in (what the inspector re-feeds)."""
        out, start = [], 0
        for _, end in self.marks:
            out.append(self.data[start:end])
            start = end
        return out


def source_from_chunks(
    protocol: str,
    chunks: Sequence[tuple[float, bytes]],
    finish_reason: str = "stop",
    model: str = "",
    name: str = "",
    joins: Sequence[tuple[int, int]] = (),
    wire: str = DEFAULT_WIRE,
    recorded: str = "",
    events: Sequence[tuple[float, str]] = (),
) -> ReplaySource:
    data = bytearray()
    marks: list[tuple[float, int]] = []
    for t, piece in chunks:
        data += piece
        marks.append((t, len(data)))
    return ReplaySource(
        protocol,
        bytes(data),
        tuple(marks),
        finish_reason,
        model,
        name,
        tuple(joins),
        wire,
        recorded or protocol,
        tuple(events),
    )


def load_source(path: str | Path, protocol: str | None = None) -> ReplaySource:
    """Read a recording file (docs/recording-format.md) or a one-response capture (raw
    SSE, a chunk log, ``FILE#N`` of a HAR: ``app/session/capture.py``) as replay input.

    Text modes replay the assistant text the recording's wire carries; native modes
    replay the SSE body, which is what their transducer reads.
    """
    from frontier.app.session.capture import capture_sources

    found = capture_sources(str(path), protocol=protocol)
    if len(found) != 1:
        raise ValueError(f"{path}: holds {len(found)} responses; pick one with FILE#N")
    return source_from_recording(found[0].recording, protocol, Path(found[0].name).name)


def source_from_recording(
    recording: Recording, protocol: str | None = None, name: str = ""
) -> ReplaySource:
    """A ``frontier.app.session.record.Recording`` as replay input for ``protocol``."""
    mode = protocol or recording.mode
    joins = recording.joins() if mode not in NATIVE_MODES else []
    found = [(j.offset, j.echo_skipped) for j in joins]
    as_streamed = mode == recording.mode and mode not in NATIVE_MODES
    return source_from_chunks(
        mode,
        recording.pieces(mode),
        recording.finish_reason,
        recording.model or "",
        name,
        found,
        recording.wire,
        recording.mode,
        recording.events if as_streamed else (),
    )


def protocol_warning(sources: Sequence[ReplaySource]) -> str | None:
    """What a replay under another protocol than the one the responses were streamed in
    cannot show, in one sentence (``None`` when every response plays as recorded).

    Re-framing a recording is a fair experiment (what would ctl make of this prose?),
    so replay does it; but the calls it drops or misreads are the point of the session,
    so this is said where the person looks (the Transcript, stderr), never left silent.
    """
    off = [s for s in sources if s.recorded and s.recorded != s.protocol]
    if not off:
        return None
    protocol = off[0].protocol
    recorded = sorted({s.recorded for s in off})
    streamed = " and ".join(recorded)
    whose = "this session's responses were" if len(sources) > 1 else "this response was"
    native_then = any(r in NATIVE_MODES for r in recorded)
    if protocol in NATIVE_MODES and native_then:
        when = "once its arguments close" if protocol == "native-inc" else "when the reply ends"
        what = f"the same calls play, but under {protocol} each is confirmed {when}"
    elif native_then:
        what = (
            f"under {protocol} no call can be confirmed from them: their calls travelled in "
            f"the API's tool-call fields, and {protocol} reads only the prose"
        )
    elif protocol in NATIVE_MODES:
        what = (
            f"under {protocol} only the API's tool-call fields make calls: the calls written "
            "in the text stay prose"
        )
    else:
        what = f"under {protocol} the calls framed for {streamed} may read as prose or errors"
    back = f" (or with --protocol {recorded[0]})" if len(recorded) == 1 else ""
    return (
        f"{whose} streamed in {streamed}; {what}. To see them as they ran, replay without "
        f"--protocol{back}."
    )


class ReplayPlayer:
    """Feeds a ``ReplaySource`` into a fresh transducer, by time or by step."""

    index = 0
    """Which response of the replay is playing (0-based); one response here."""
    count = 1
    """How many responses the replay has."""

    def __init__(
        self,
        source: ReplaySource,
        transducer_factory: Callable[[str], Any] | None = None,
    ) -> None:
        """``transducer_factory``: protocol → fresh transducer (default: the one that
        reads the source's wire)."""
        self.source = source
        if transducer_factory is None:
            transducer_factory = transducer_factory_for(source.wire)
        self.transducer = transducer_factory(source.protocol)
        self._factory = transducer_factory
        self.position = 0
        self.time = 0.0
        self.finished = False
        self.started = False
        self._times = [t for t, _ in source.marks]
        self._beside = _beside(source)
        """Errors raised beside the text still to play (``ReplaySource.events``)."""
        self._thoughts = _reasoning_at(source)
        """A text protocol's reasoning still to play, at the offset of the text before it
        (a native transducer reads its own off the events)."""
        self.error_offsets = self._scan_errors()
        self.errors_seen = 0
        """Contract errors reported so far; once all the dry run found have, none is ahead."""
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._joined = 0
        """Joins already played (``ResponseContinued`` emitted)."""
        self._read_bytes = 0
        """Bytes of transducer input a native source's SSE body has carried so far."""
        self._halted = False
        """One of them was played: the live run read no more of this response."""

    # ------------------------------------------------------------------ state
    @property
    def size(self) -> int:
        return len(self.source.data)

    @property
    def frontier(self) -> int:
        return int(self.transducer.frontier)

    def pending_bound(self) -> int:
        return int(self.transducer.pending_bound())

    def pending(self) -> bytes:
        return bytes(self.transducer.pending())

    def summary(self) -> str:
        """What the transcript says when the replay opens."""
        name = self.source.name or "a recording"
        return f"replaying {name} ({self.size:,} bytes, {self.source.protocol})"

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
        while end > self.position and not self.finished:
            events += self._thoughts_here()
            events += self._joins_here()
            events += self._beside_here()
            stops = [o for o, _ in self.source.joins if self.position < o < end]
            stops += [e.offset for e in self._beside if self.position < e.offset < end]
            stops += [o for o, _ in self._thoughts[:1] if self.position < o < end]
            stop = min([end, *stops])
            piece = self.source.data[self.position : stop]
            events += self._read(piece)
            self.position = stop
        if self.position >= self.size and not self.finished:
            events += self._thoughts_here()
            events += self._joins_here()
            events += self._beside_here()
            events += self._finish()
        return events

    def _thoughts_here(self) -> list[Event]:
        """The reasoning streamed before the text at the current position, once."""
        out: list[Event] = []
        while self._thoughts and self._thoughts[0][0] <= self.position:
            out.append(ReasoningText(self._thoughts.pop(0)[1]))
        return out

    def _beside_here(self) -> list[Event]:
        """The first error raised beside the text, once play reaches its offset (unless
        the transducer's own error came first); the live run then read no further."""
        out: list[Event] = []
        while self._beside and self._beside[0].offset <= self.position:
            error = self._beside.pop(0)
            if not self._halted and not self.transducer.stopped:
                self._halted = True
                out += self._with_text([error])
        return out

    def _read(self, piece: bytes) -> list[Event]:
        """``StreamBytes`` of what the transducer reads of ``piece``, then its events.

        A native transducer reads an SSE body but its input (offsets, frontier, pending)
        is the text and argument bytes the body carries: those are what the live loop
        shows in the Raw stream, so they are what replay shows too, never the JSON."""
        transducer = self.transducer
        reader = getattr(transducer, "feed_input", None)
        if reader is None:
            head: list[Event] = [StreamBytes(self.position, piece)]
            if transducer.stopped or self._halted:
                return head
            return head + self._with_text(transducer.feed(piece))
        if transducer.stopped:
            return []
        data, found = reader(piece)
        head = [StreamBytes(self._read_bytes, data)] if data else []
        self._read_bytes += len(data)
        return head + self._with_text(found)

    def _joins_here(self) -> list[Event]:
        """A join at the current position, once, before the bytes after it."""
        out: list[Event] = []
        for attempt, (offset, echo) in enumerate(self.source.joins, 1):
            if offset == self.position and attempt > self._joined:
                self._joined = attempt
                out.append(ResponseContinued(offset, echo, attempt))
        return out

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
        if self.errors_seen >= len(self.error_offsets):
            return events + self.feed_to(self.size)  # none ahead: no byte-by-byte walk
        ahead = [o for o in self.error_offsets if o >= self.position]
        if ahead:
            events += self.feed_to(ahead[0])
        while not self.finished:
            got = self.feed_to(self.position + 1)
            events += got
            if any(isinstance(e, ContractError) for e in got):
                break
            if self.transducer.stopped or self._halted:
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
        cut = None
        if not self.transducer.stopped and not self._halted:
            clean = is_clean(self.source.finish_reason)
            events += self._with_text(self.transducer.finish(clean))
            cut = _cut(self.source.finish_reason, self.transducer.consumed, self.errors_seen)
        tail = self._decoder.decode(b"", final=True)
        if tail:
            events.append(AssistantText(tail))
        if cut is not None:  # after the prose, as the live loop raises it
            events += self._with_text([cut])
        events.append(ResponseEnded(self.source.finish_reason))
        return events

    def _with_text(self, events: list[Event]) -> list[Event]:
        """Add the decoded prose the live loop would report, so the transcript fills in;
        the lines of prose one read confirmed are one ``Confirmed`` (``coalesce_confirmed``:
        a 1 MiB reply is then a few thousand events, not ~80,000)."""
        out: list[Event] = []
        for event in coalesce_confirmed(events):
            out.append(event)
            if isinstance(event, ContractError):
                self.errors_seen += 1
            elif isinstance(event, Confirmed) and event.kind == "text":
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
            clean = is_clean(self.source.finish_reason)
            found += [e.offset for e in probe.finish(clean) if _err(e)]
            cut = _cut(self.source.finish_reason, probe.consumed, len(found))
            found += [cut.offset] if cut is not None else []
        beside = self._beside[:1]  # the first: the live run read no further
        if beside and (not found or beside[0].offset <= found[0]):
            found = [beside[0].offset]
        return found


class PlaylistPlayer:
    """Recorded responses (``ReplaySource``) played in order, as ``ReplayPlayer`` plays one.

    A stored session is many responses; a teacher replays all of them. Each
    response gets a fresh ``ReplayPlayer`` (so its own ``ResponseStarted`` and
    offsets from 0) when play reaches it; a step that finds the current response
    ended crosses into the next one. ``position``, ``size``, ``frontier`` and
    ``source`` describe the response playing now; ``finished`` means the last
    one ended. Players are made lazily: each one's error dry run happens only
    when play or an error jump reaches it.
    """

    def __init__(
        self,
        sources: Sequence[ReplaySource],
        transducer_factory: Callable[[str], Any] | None = None,
        name: str = "",
    ) -> None:
        if not sources:
            raise ValueError("a playlist needs at least one recorded response")
        self.sources = tuple(sources)
        self.name = name
        self._factory = transducer_factory
        self.index = 0
        self.current = ReplayPlayer(self.sources[0], transducer_factory)

    # ------------------------------------------------------------------ state
    @property
    def count(self) -> int:
        return len(self.sources)

    @property
    def source(self) -> ReplaySource:
        return self.current.source

    @property
    def transducer(self) -> Any:
        return self.current.transducer

    @property
    def size(self) -> int:
        return self.current.size

    @property
    def position(self) -> int:
        return self.current.position

    @property
    def started(self) -> bool:
        return self.current.started

    @property
    def finished(self) -> bool:
        return self.index == self.count - 1 and self.current.finished

    @property
    def frontier(self) -> int:
        return self.current.frontier

    @property
    def error_offsets(self) -> list[int]:
        return self.current.error_offsets

    def pending_bound(self) -> int:
        return self.current.pending_bound()

    def pending(self) -> bytes:
        return self.current.pending()

    def summary(self) -> str:
        total = sum(len(s.data) for s in self.sources)
        name = self.name or self.sources[0].name or "a session"
        return f"replaying {name}: {self.count} responses, {total:,} bytes"

    # ------------------------------------------------------------------ stepping
    def _live(self) -> ReplayPlayer:
        """The player the next step feeds: the next response once this one ended."""
        if self.current.finished and self.index + 1 < self.count:
            self.index += 1
            self.current = ReplayPlayer(self.sources[self.index], self._factory)
        return self.current

    def start(self) -> list[Event]:
        return self._live().start()

    def feed_to(self, end: int) -> list[Event]:
        """Feed the current response up to ``end`` (offsets of the response playing)."""
        return self._live().feed_to(end)

    def step_bytes(self, n: int = 1) -> list[Event]:
        return self._live().step_bytes(n)

    def step_line(self) -> list[Event]:
        return self._live().step_line()

    def step_event(self) -> list[Event]:
        return self._live().step_event()

    def next_error(self) -> list[Event]:
        """Jump to the next contract error in this or a later response; else to the end."""
        events: list[Event] = []
        while True:
            got = self._live().next_error()
            events += got
            if any(isinstance(e, ContractError) for e in got) or self.finished:
                return events

    def advance(self, dt: float, speed: float | None, chunk: int = MAX_CHUNK) -> list[Event]:
        return self._live().advance(dt, speed, chunk)

    def run_all(self) -> list[Event]:
        events: list[Event] = []
        while not self.finished:
            events += self._live().run_all()
        return events


def _beside(source: ReplaySource) -> list[ContractError]:
    """The errors a text protocol's live adapter raised beside ``source``'s text, in
    offset order: replayed from its events when its player is made (a session's replay
    makes each player as play reaches it; at load this doubled the decoding)."""
    if not source.events:
        return []
    from frontier.app.agent.explain import errors_beside

    found = errors_beside(source.protocol, source.wire, source.events)
    return sorted(found, key=lambda e: e.offset)


def _reasoning_at(source: ReplaySource) -> list[tuple[int, str]]:
    """A text protocol's reasoning as streamed (``ReplaySource.events``), each piece at the
    offset of the text before it, as ``text_pieces`` counts the text (a continuation's
    echo skipped): ``replay`` showed none of a reasoning model's thinking."""
    if not source.events:
        return []
    from frontier.app.model import registry
    from frontier.app.model.stream import ReasoningDelta, TextDelta
    from frontier.app.wire.continuation import read_join

    decoder = registry.codec(source.wire).decoder()
    out: list[tuple[int, str]] = []
    size = skip = 0
    for _, data in source.events:
        join = read_join(data)
        if join is not None:
            skip = join.echo_skipped if join.offset == size else skip
            continue
        deltas = decoder.feed("message", data)
        thought = "".join(d.text for d in deltas if type(d) is ReasoningDelta)  # type: ignore[union-attr]
        if thought:
            out.append((size, thought))
        piece = "".join(d.text for d in deltas if type(d) is TextDelta).encode("utf-8")  # type: ignore[union-attr]
        cut = min(skip, len(piece))
        size, skip = size + len(piece) - cut, skip - cut
    return out


def _cut(finish_reason: str, offset: int, errors: int) -> ContractError | None:
    """The error the live loop raises at the end of a response cut off with no call
    open (``AgentLoop._truncated``): the transducer raises none there."""
    from frontier.app.agent.repair import recorded_cut

    said = "" if errors else recorded_cut(finish_reason)
    return ContractError("truncated", said, offset) if said else None


def _err(event: Event) -> TypeGuard[ContractError]:
    return isinstance(event, ContractError)


def next_chunk(chunk: int, took: float, budget: float = SLICE_BUDGET) -> int:
    """The chunk for the next "max" step so that one step takes half the budget to all
    of it.

    Transducers differ in cost per byte (SSE + JSON vs. a heredoc body), and so
    do machines: sizing by time keeps every slice short without starving
    throughput. Halve when over budget, double when under half of it: each step
    has a cost of its own (the state's per-reply work, a turn of the loop), so a
    1 MiB Markdown replay in 16 KiB steps took twice the CPU of one in 32 KiB.
    """
    if took > budget:
        return max(MIN_CHUNK, chunk // 2)
    if took < budget / 2:
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
