"""Where a stream broke its framing: each contract error with the bytes around it and
the frame the transducer was parsing (the byte half of the framing-error inspector).

:func:`locate_errors` re-runs a fresh transducer over a response's input and stops
it just before the byte that caused the error, so the :class:`FrameSnapshot` it takes
is the frame *as parsed so far* — the call, its arguments, the length it was counting
down, the TAG it was waiting for — not the wreck the error leaves behind. Three
linear passes, no state that grows with the stream beyond the window it keeps:

1. the input as it arrived (its pieces), to find the piece whose bytes (or whose end
   of stream) raised the first error;
2. again, with that piece fed a byte at a time (then in doubling steps past
   ``STEP_BYTES``), to find where inside it the error fires;
3. again, to just before that byte: the snapshot; then the rest of the step and the
   events it raises.

Transducers are chunking-invariant (``frontier check`` proves it), so stopping them
anywhere shows the state they had there. Offsets are the transducer's own: the text
bytes for text modes; for native modes the content and argument bytes in arrival
order (docs/protocol.md), rebuilt here from the events and the held pieces.

The other half — the feedback the model got and its next attempt — needs the session
store and the repair text: ``app/agent/explain.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import pairwise

from frontier.app.cst.factory import make_transducer
from frontier.app.cst.native import NativeSSETransducer
from frontier.app.cst.snapshot import ArgState, FrameSnapshot, can_snapshot
from frontier.app.record import record
from frontier.app.stream_events import (
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    ToolCall,
)
from frontier.app.vocab import NATIVE_MODES

TYPE_CHECKING = False  # DeltaSource is a type only (a Protocol: app/cst/native.py)
if TYPE_CHECKING:
    from typing import Literal

    from frontier.app.cst.native import DeltaSource

NAMED_CALL = re.compile(r"call (\S+) \(([^)]*)\)[:;,]")
"""How an error message names the call it is about: ``call c1 (write): …`` (CTL,
XML truncation) and ``call call_a (read), index 0: …`` (native)."""
_NAMED = NAMED_CALL

WINDOW_BEFORE = 96
"""Bytes of the stream kept before an error's offset (six hex rows)."""
WINDOW_AFTER = 48
"""And after it (the bytes the transducer never read, or read and refused)."""
ALIGN = 16
"""The window starts at a multiple of this (hex rows of 16 or 8 bytes line up)."""
WINDOW_REACH = 192
"""An error raised this few bytes after its offset gets a window through the raising byte."""
STEP_BYTES = 4096
"""The fatal piece is fed a byte at a time this far, then in doubling steps: a piece of
a megabyte costs a few dozen feeds, and a snapshot lands at most a step early there."""


@record
class ErrorSite:
    """One contract error of a response, where it happened and what was parsed by then."""

    kind: str
    message: str
    offset: int
    number: int
    """1-based among the errors of this response (all-or-none modes report a truncation
    once per call)."""
    count: int
    """How many errors the response had."""
    at_finish: bool
    """Raised by the end of the stream (``body_eof``, ``heredoc_eof``, ``truncated``…),
    not by a byte."""
    frame: FrameSnapshot
    """The transducer just before the byte (or the end of stream) that caused it."""
    window_start: int
    window: bytes
    """The stream's bytes from ``window_start``, around ``offset``."""
    size: int
    """All the response's bytes (as its offsets count them)."""
    call: tuple[str, str] | None
    """``(id, tool)`` of the call the error is about, where there is one."""
    open_calls: tuple[tuple[str, str], ...]
    """Calls started and not confirmed when it fired (the runtime's ``truncated`` text
    names them)."""
    confirmed: tuple[ToolCall, ...]
    """Calls confirmed before it (they stand: they may have run)."""
    written: int | None = None
    """``unexpected_line`` after a length-prefixed body: how many bytes the model seems to
    have meant — up to the next line that is ``end`` or starts ``arg `` (a hint)."""

    @property
    def counted(self) -> ArgState | None:
        """The argument whose bytes were being counted: the one still open, or a
        length-prefixed one that had just ended (a length declared too small)."""
        arg = self.frame.open_arg
        if arg is None and self.frame.args and self.frame.args[-1].declared is not None:
            arg = self.frame.args[-1]
        return arg

    @property
    def declared(self) -> int | None:
        """The byte count that argument's header declared (length-prefixed only)."""
        arg = self.counted
        return arg.declared if arg is not None else None

    @property
    def arrived(self) -> int | None:
        """The bytes of that argument that had arrived."""
        arg = self.counted
        return arg.size if arg is not None else None


@record
class StreamReport:
    """What re-running a response found: its confirmed calls and every contract error."""

    mode: str
    clean: bool
    size: int
    calls: tuple[ToolCall, ...]
    errors: tuple[ErrorSite, ...]
    truncated: tuple[tuple[str, str, bool], ...] = ()
    """Native modes: the calls a truncation reported, ``(id, name, complete)``."""
    held: tuple[tuple[str, str], ...] = ()
    """Native modes: ``(id, arguments)`` of the complete calls among ``truncated``."""


def locate_errors(
    pieces: Sequence[bytes],
    mode: str,
    clean: bool,
    wire: DeltaSource | None = None,
    *,
    cut_said: str = "",
) -> StreamReport:
    """Every contract error of the response whose transducer input is ``pieces`` (in
    arrival order), each with its window and frame; ``clean``: finish_reason ``stop``;
    ``wire``: the adapter of the API a native protocol's SSE body is in. ``cut_said``: what
    the agent loop says of a response cut off with no call open (the transducer raises
    nothing then): a ``truncated`` error at its end with those words."""
    fatal, first_events = _first_error(pieces, mode, clean, wire)
    calls = tuple(e.call for e in first_events if isinstance(e, CallReady))
    if fatal is None and (clean or not cut_said):
        return StreamReport(mode, clean, _size(pieces, mode, first_events), calls, ())
    if fatal is None:
        fatal = len(pieces)
    at_finish = fatal == len(pieces)
    cut = 0 if at_finish else _cut_in(pieces, fatal, mode, wire)
    t = make_transducer(mode, wire=wire)
    seen = _Seen(mode)
    for piece in pieces[:fatal]:
        seen.add(t.feed(piece))
    if cut:
        seen.add(t.feed(pieces[fatal][:cut]))
    frame = t.snapshot() if can_snapshot(t) else _generic(t)
    open_calls = tuple(seen.open.items())
    confirmed = tuple(seen.calls)
    tail = t.finish(clean) if at_finish else t.feed(pieces[fatal][cut:])
    fired = t.consumed
    seen.add(tail)
    errors = [e for e in tail if isinstance(e, ContractError)]
    data = _stream(pieces, mode, seen, frame)
    size = max(t.consumed if mode in NATIVE_MODES else len(data.full), seen.end)
    if not errors:  # cut with no call open: the loop's own truncation, at the end
        errors = [ContractError("truncated", cut_said, size)]
    out: list[ErrorSite] = []
    for number, error in enumerate(errors, 1):
        start = max(0, error.offset - WINDOW_BEFORE) // ALIGN * ALIGN
        # through the byte that raised it, when that came soon after (an XML block's
        # closing tag, the newline of a long line), else the usual margin
        reach = fired if fired - error.offset <= WINDOW_REACH else error.offset
        window = data.slice(start, max(error.offset + WINDOW_AFTER, reach + ALIGN))
        out.append(
            ErrorSite(
                kind=error.kind,
                message=error.message,
                offset=error.offset,
                number=number,
                count=len(errors),
                at_finish=at_finish,
                frame=frame,
                window_start=start,
                window=window,
                size=size,
                call=_call_of(error, number, len(errors), frame, open_calls, mode),
                open_calls=open_calls,
                confirmed=confirmed,
                written=_written(error, frame, data.full),
            )
        )
    native = t if isinstance(t, NativeSSETransducer) else None
    return StreamReport(
        mode,
        clean,
        size,
        confirmed,
        tuple(out),
        tuple(native.truncated_calls) if native is not None else (),
        tuple(native.held_arguments.items()) if native is not None else (),
    )


def site_beside(pieces: Sequence[bytes], mode: str, error: ContractError) -> ErrorSite:
    """The site of a contract error a text protocol's response raised beside its text
    (the live adapter's: a native tool call, an unreadable event inside a frame), at the
    text byte ``error.offset``: the frame as parsed to there, the window around it. One
    linear pass."""
    data = b"".join(pieces)
    t = make_transducer(mode)
    seen = _Seen(mode)
    seen.add(t.feed(data[: error.offset]))
    frame = t.snapshot() if can_snapshot(t) else _generic(t)
    start = max(0, error.offset - WINDOW_BEFORE) // ALIGN * ALIGN
    open_calls = tuple(seen.open.items())
    return ErrorSite(
        kind=error.kind,
        message=error.message,
        offset=error.offset,
        number=1,
        count=1,
        at_finish=False,
        frame=frame,
        window_start=start,
        window=data[start : error.offset + WINDOW_AFTER],
        size=len(data),
        call=_call_of(error, 1, 1, frame, open_calls, mode),
        open_calls=open_calls,
        confirmed=tuple(seen.calls),
    )


# --------------------------------------------------------------------------- views

if TYPE_CHECKING:  # a type only: typing is not imported at run time (start-up)
    ByteKind = Literal["confirmed", "pending", "error", "unread"]
"""How a byte of the window stood: before the frontier; after it, not yet decided; the
byte at the error offset; after that (never read, or refused)."""


@record
class Span:
    """A run of window bytes of one kind, or (``data`` empty) a mark: ``frontier`` where
    the confirmed part ends, ``end`` where an error sits past the last byte."""

    kind: str
    data: bytes = b""


@record
class HexRow:
    offset: int
    data: bytes
    kinds: tuple[ByteKind, ...]
    frontier: int | None
    """Index in the row before which the frontier lies (``len(data)``: after the last)."""
    error: int | None
    """Index in the row of the error offset (``len(data)``: the end of the stream)."""


def byte_kind(site: ErrorSite, offset: int) -> ByteKind:
    if offset == site.offset:
        return "error"
    if offset < site.frame.frontier:
        return "confirmed"
    return "pending" if offset < site.offset else "unread"


def hex_rows(site: ErrorSite, per_row: int = 16) -> list[HexRow]:
    """The window as rows of ``per_row`` bytes at multiples of ``per_row``, with the
    frontier and the error offset placed (a mark at the end of the stream sits just past
    the last byte of the last row)."""
    start, data = site.window_start, site.window
    end = start + len(data)
    frontier, error = site.frame.frontier, site.offset

    def place(mark: int, lo: int, hi: int) -> int | None:
        return mark - lo if lo <= mark < hi or mark == hi == end else None

    rows: list[HexRow] = []
    for lo in range(start // per_row * per_row, end, per_row):
        lo = max(lo, start)
        hi = min(lo // per_row * per_row + per_row, end)
        row = data[lo - start : hi - start]
        kinds = tuple(byte_kind(site, lo + i) for i in range(len(row)))
        rows.append(HexRow(lo, row, kinds, place(frontier, lo, hi), place(error, lo, hi)))
    if not rows:  # an empty stream: its marks still need a row
        rows.append(HexRow(start, b"", (), place(frontier, start, end), place(error, start, end)))
    return rows


def text_lines(site: ErrorSite) -> list[list[Span]]:
    """The window as text lines (each ending with its ``\n``), split into spans by kind,
    with the ``frontier`` mark and (past the last byte) the ``end`` mark placed."""
    start, data = site.window_start, site.window
    cuts = sorted(
        {0, len(data)}
        | {o - start for o in (site.frame.frontier, site.offset, site.offset + 1)}
        & set(range(len(data) + 1))
        | {i + 1 for i in range(len(data)) if data[i] == 0x0A}
    )
    lines: list[list[Span]] = [[]]
    for a, b in pairwise(cuts):
        if start + a == site.frame.frontier:
            lines[-1].append(Span("frontier"))
        lines[-1].append(Span(byte_kind(site, start + a), data[a:b]))
        if data[b - 1 : b] == b"\n":
            lines.append([])
    end = start + len(data)
    if site.frame.frontier == end:
        lines[-1].append(Span("frontier"))
    if site.offset >= end:
        lines[-1].append(Span("end"))
    return [line for line in lines if line]


# --------------------------------------------------------------------------- the passes


def _first_error(
    pieces: Sequence[bytes], mode: str, clean: bool, wire: DeltaSource | None
) -> tuple[int | None, list[Event]]:
    """Pass 1: the index of the piece that raised the first error (``len(pieces)`` for
    the end of stream; ``None``: no error), and the events up to it."""
    t = make_transducer(mode, wire=wire)
    events: list[Event] = []
    for k, piece in enumerate(pieces):
        got = t.feed(piece)
        events += got
        if any(isinstance(e, ContractError) for e in got):
            return k, events
        if t.stopped:
            return None, events
    got = t.finish(clean)
    events += got
    return (len(pieces) if any(isinstance(e, ContractError) for e in got) else None), events


def _cut_in(pieces: Sequence[bytes], fatal: int, mode: str, wire: DeltaSource | None) -> int:
    """Pass 2: how many bytes of piece ``fatal`` go in before the step that raises the
    error (a byte at a time for ``STEP_BYTES``, then doubling)."""
    t = make_transducer(mode, wire=wire)
    for piece in pieces[:fatal]:
        t.feed(piece)
    piece = pieces[fatal]
    at, step = 0, 1
    while at < len(piece):
        got = t.feed(piece[at : at + step])
        if any(isinstance(e, ContractError) for e in got):
            return at
        at += step
        if at >= STEP_BYTES:
            step *= 2
    return at  # not reached: pass 1 saw this piece raise it


class _Seen:
    """What the events of pass 3 said: calls open and confirmed, and (native) the
    confirmed bytes near the error."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.open: dict[str, str] = {}
        self.calls: list[ToolCall] = []
        self.pieces: list[tuple[int, bytes]] = []
        self.end = 0

    def add(self, events: Iterable[Event]) -> None:
        for event in events:
            if isinstance(event, CallStarted):
                self.open.pop(event.replaces, None)
                self.open[event.id] = event.name
            elif isinstance(event, CallReady):
                self.open.pop(event.call.id, None)
                self.calls.append(event.call)
            elif isinstance(event, Confirmed):
                self.end = max(self.end, event.offset + len(event.data))
                if self.mode in NATIVE_MODES:
                    self.pieces.append((event.offset, event.data))


@record
class _Data:
    """The stream as its offsets count it: the input itself (text modes), or the
    content and argument bytes placed at their offsets (native)."""

    full: bytes
    """Text modes: the whole input; native: empty (see ``pieces``)."""
    pieces: tuple[tuple[int, bytes], ...] = ()

    def slice(self, start: int, end: int) -> bytes:
        if self.full or not self.pieces:
            return self.full[start:end]
        out = bytearray()
        for offset, data in sorted(self.pieces):
            lo, hi = max(start, offset), min(end, offset + len(data))
            if hi <= lo or lo < start + len(out):
                continue
            if lo > start + len(out):
                break  # a gap: bytes this stream never had (not expected)
            out += data[lo - offset : hi - offset]
        return bytes(out)


def _stream(pieces: Sequence[bytes], mode: str, seen: _Seen, frame: FrameSnapshot) -> _Data:
    if mode not in NATIVE_MODES:
        return _Data(b"".join(pieces))
    return _Data(b"", tuple(seen.pieces) + frame.held)


def _size(pieces: Sequence[bytes], mode: str, events: list[Event]) -> int:
    if mode not in NATIVE_MODES:
        return sum(len(p) for p in pieces)
    return max((e.offset + len(e.data) for e in events if isinstance(e, Confirmed)), default=0)


def _generic(t: object) -> FrameSnapshot:
    """A transducer without ``snapshot`` (the JSON baselines): where it stood."""
    frontier = int(getattr(t, "frontier", 0))
    consumed = int(getattr(t, "consumed", 0))
    return FrameSnapshot("reading a JSON document", frontier, consumed, consumed - frontier)


def _call_of(
    error: ContractError,
    number: int,
    count: int,
    frame: FrameSnapshot,
    open_calls: tuple[tuple[str, str], ...],
    mode: str,
) -> tuple[str, str] | None:
    named = _NAMED.match(error.message)
    if named is not None:  # (native ``late_arguments``: a call no longer open)
        return named[1], named[2]
    if count > 1 and len(open_calls) == count:
        return open_calls[number - 1]  # one truncation per call, in the same order
    if frame.call_id and frame.tool:
        return frame.call_id, frame.tool
    return open_calls[-1] if open_calls else None


def _written(error: ContractError, frame: FrameSnapshot, data: bytes) -> int | None:
    """For a length declared too small: the bytes up to the next ``end`` / ``arg`` line."""
    last = frame.args[-1] if frame.args else None
    if error.kind != "unexpected_line" or last is None or last.declared is None or not data:
        return None
    start = data.find(b"\n", error.offset) + 1
    while 0 < start < len(data):
        nl = data.find(b"\n", start)
        line = data[start:] if nl < 0 else data[start:nl]
        if line.rstrip(b"\r") == b"end" or line.startswith(b"arg "):
            return last.declared + (start - error.offset)
        start = nl + 1
    return None
