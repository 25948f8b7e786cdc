"""Native OpenAI tool calls (modes ``native-eos`` and ``native-inc``, DESIGN §4).

The accumulator takes parsed ``chat.completion.chunk`` objects. Its byte
stream — the one its offsets count — is the concatenation, in arrival order,
of ``delta.content`` bytes (assistant prose, confirmed at once) and
``delta.tool_calls[].function.arguments`` bytes (confirmed when their call
completes). ``id`` and ``name`` may arrive once, arguments in any pieces;
``arguments`` sent as a JSON value instead of a string is serialised
compactly (``_canonical``) and read as those bytes. Only choice 0 is read: a
chunk for another choice (``n > 1``) is ignored and noted in ``notes``.

Completion rules:

* ``native-inc``: call *i* completes when the stream finishes
  (``finish_reason`` other than ``length``, ``[DONE]``, a clean ``finish``),
  or when a call with a higher index has received argument *bytes* and call
  *i*'s arguments already parse as a JSON object. A higher index that is
  merely announced proves nothing (Gemini's endpoint announces every call in
  its first chunk and streams the arguments afterwards), and a JSON object
  that parses can only be followed by whitespace, so such a call can no
  longer change. Calls complete in index order (a call waits for the lower
  ones), so they run in the order the model wrote them. At the finish a call
  that does not parse is ``bad_json`` (naming the call and the position).
  Argument bytes for a call that already completed are ``late_arguments``:
  it may have run, so the stream broke the proof and reading stops.
* ``native-eos``: nothing completes before ``finish(clean=True)``; then every
  call must parse, or none runs (the first bad one is reported).

Truncation (``finish_reason == "length"`` or ``finish(clean=False)``; for the
SSE transducer also a body that ended with neither ``finish_reason`` nor
``[DONE]``): calls that never completed each get a
``ContractError(kind="truncated")`` naming the call (for native-eos: every
call of the message), and ``truncated_calls`` lists their ``(id, name)`` so
the loop can pair each with a ``truncated`` result.

Hostile input costs linear time and bounded memory: arguments are parsed by
``safejson`` (nesting over ``MAX_DEPTH`` is ``bad_json``, never a
``RecursionError``); whether the lowest open call's arguments have closed is
tracked by a bracket scanner (``_Closure``) that reads each byte once, so
they are parsed early at most once, not once per piece; the argument bytes
held for calls not yet complete are capped by ``max_held`` (``limit``); open
calls, ids and the frontier are kept in heaps and dicts, so a message with
100,000 calls costs no per-call scan.
"""

from __future__ import annotations

import heapq
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from frontier.app.cst.base import preview
from frontier.app.cst.snapshot import PREVIEW, ArgState, FrameSnapshot
from frontier.app.events import CallReady, CallStarted, Confirmed, ContractError, Event, ToolCall
from frontier.app.wire import safejson
from frontier.app.wire.sse import SSEDecoder

MAX_HELD = safejson.MAX_CHARS
"""Argument bytes a response may hold in calls not yet complete (all of them in native-eos)."""

MAX_NOTES = 16
"""Notes kept per response (``ignored_chunks`` keeps counting past them)."""

_OUTSIDE = re.compile(rb'[][{}"]')
"""Outside a JSON string only brackets and quotes matter to whether the value has closed."""
_INSIDE = re.compile(rb'["\\]')
"""Inside one, only its closing quote and escapes (UTF-8 never reuses ASCII bytes)."""


class _Closure:
    """Whether the JSON text fed so far (bytes, in any pieces) ends right after its closing bracket.

    A JSON object parses only when its last bracket has closed and nothing but
    whitespace follows, so the accumulator parses an open call's arguments
    early only when this says so: once per close, not once per piece (a long
    string of ``}`` pieces inside a JSON string would otherwise be parsed again
    and again). Each byte is looked at once, by a C-level regex search.
    """

    __slots__ = ("broken", "depth", "escape", "in_string", "opened")

    def __init__(self) -> None:
        self.depth = 0
        self.opened = False
        self.in_string = False
        self.escape = False
        self.broken = False
        """A bracket closed that never opened: the text can never parse."""

    def feed(self, data: bytes) -> None:
        i, n = 0, len(data)
        if self.escape and n:
            self.escape, i = False, 1
        while i < n and not self.broken:
            if self.in_string:
                m = _INSIDE.search(data, i)
                if m is None:
                    return
                i = m.end()
                if m[0] == b"\\":
                    if i == n:
                        self.escape = True
                        return
                    i += 1
                else:
                    self.in_string = False
                continue
            m = _OUTSIDE.search(data, i)
            if m is None:
                return
            i = m.end()
            c = m[0]
            if c == b'"':
                self.in_string = True
            elif c in (b"{", b"["):
                self.depth += 1
                self.opened = True
            else:
                self.depth -= 1
                self.broken = self.depth < 0

    def closed(self) -> bool:
        return self.opened and not self.depth and not self.in_string and not self.broken


def _canonical(value: Any) -> str:
    """``arguments`` a server sent as a JSON value instead of a string, as the string.

    Compact separators, keys in the order sent, non-ASCII as is: the bytes the
    offsets count are then the same whichever way a server encodes the value.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass
class _Call:
    index: int
    seq: int = 0
    """Creation order (a piece without ``index`` is matched to the first call with its id)."""
    id: str = ""
    name: str = ""
    announced: bool = False
    done: bool = False
    size: int = 0
    pieces: list[tuple[int, bytes]] = field(default_factory=list)
    closure: _Closure | None = None
    """Created when the call is first tested for early completion (native-inc)."""
    scanned: int = 0
    """How many of ``pieces`` ``closure`` has read."""
    settled: bool = False
    """Its arguments closed but do not parse as an object: they never will (the finish says why)."""
    why: str = ""
    """What completed it, for a ``late_arguments`` message."""

    def label(self) -> str:
        return f"call {self.id or '?'} ({self.name or 'no name'}), index {self.index}"


class NativeAccumulator:
    """Accumulates ``delta.tool_calls`` of one streamed response into executable calls."""

    def __init__(self, incremental: bool, max_held: int = MAX_HELD) -> None:
        self.incremental = incremental
        self.max_held = max_held
        self.consumed = 0
        self.stopped = False
        self.finish_reason: str | None = None
        self.truncated_calls: list[tuple[str, str]] = []
        """(id, name) of each call reported ``truncated``: none of them ran."""
        self.notes: list[str] = []
        """What was read but deliberately not used (at most ``MAX_NOTES``), e.g. another choice."""
        self.ignored_chunks = 0
        """Chunks ignored because they belong to a choice other than 0."""
        self._calls: dict[int, _Call] = {}
        self._by_id: dict[str, _Call] = {}
        """The first-created call with each id."""
        self._max_index = -1
        self._max_with_args = -1
        """The highest index that has received argument bytes (native-inc completion)."""
        self._open_heap: list[int] = []
        """Indices of calls not yet complete (completed ones are dropped lazily)."""
        self._starts: list[tuple[int, int]] = []
        """(offset of the first argument byte, index) of calls with arguments (lazily pruned)."""
        self._finished = False
        self._pending = 0
        """``len(self.pending())``, kept as pieces arrive and calls complete."""

    # ------------------------------------------------------------------ state

    @property
    def frontier(self) -> int:
        starts = self._starts
        while starts and self._calls[starts[0][1]].done:
            heapq.heappop(starts)
        return starts[0][0] if starts else self.consumed

    def pending(self) -> bytes:
        if self.stopped:
            return b""
        return b"".join(p for c in self._open() for _, p in c.pieces)

    def pending_size(self) -> int:
        return self._pending

    def pending_bound(self) -> int:
        return self.consumed

    def _open(self) -> list[_Call]:
        return [self._calls[i] for i in sorted(self._open_heap) if not self._calls[i].done]

    def snapshot(self) -> FrameSnapshot:
        """The call whose arguments the stream must complete next, and its JSON so far
        (the inspector's view: the open calls' pieces are the only copy of their bytes)."""
        open_calls = [] if self._finished and self.stopped else self._open()
        held = tuple(piece for c in open_calls for piece in c.pieces)
        if open_calls:
            call = open_calls[0]
            where = f"in the arguments of {call.label()}"
        elif self._calls:
            call = self._calls[self._max_index]
            where = f"after {call.label()} became executable {call.why}".rstrip()
        else:
            return FrameSnapshot("in prose (no tool call yet)", self.frontier, self.consumed)
        closure = _Closure()
        for _, data in call.pieces:
            closure.feed(data)
        if not call.pieces:
            state = "no argument bytes held" if call.done else "no argument bytes yet"
        elif closure.broken:
            state = "broken: a bracket closed that never opened"
        elif closure.closed():
            state = "a complete JSON value"
        else:
            inside = ", inside a string" if closure.in_string else ""
            state = f"open: {closure.depth} bracket(s) unclosed{inside}"
        first = bytearray()
        for _, data in call.pieces:
            first += data[: PREVIEW - len(first)]
            if len(first) >= PREVIEW:
                break
        arg = ArgState("arguments", "json", call.size, bytes(first), complete=call.done)
        return FrameSnapshot(
            where,
            self.frontier,
            self.consumed,
            self._pending,
            call_id=call.id or None,
            tool=call.name or None,
            args=(arg,),
            json=state,
            held=held,
        )

    def _next_open(self) -> _Call | None:
        """The open call with the lowest index, or ``None``."""
        heap = self._open_heap
        while heap and self._calls[heap[0]].done:
            heapq.heappop(heap)
        return self._calls[heap[0]] if heap else None

    def _set_id(self, call: _Call, ident: str) -> None:
        call.id = ident
        known = self._by_id.get(ident)
        if known is None or call.seq < known.seq:
            self._by_id[ident] = call

    def fail(self, kind: str, message: str) -> list[Event]:
        """Stop reading this response with a contract error (e.g. an unreadable SSE line)."""
        ev: list[Event] = []
        if not self.stopped and not self._finished:
            self._fail(kind, message, self.consumed, ev)
        return ev

    def _note(self, message: str) -> None:
        if len(self.notes) < MAX_NOTES:
            self.notes.append(message)

    # ------------------------------------------------------------------ input

    def feed_chunk(self, chunk: Mapping[str, Any]) -> list[Event]:
        """One parsed ``chat.completion.chunk``; chunks without choices (usage) are ignored.

        Only choice 0 is this response: the first choice whose ``index`` is 0
        (or absent) is read; a chunk with none is ignored — no prose, no call,
        no finish from it — and counted in ``ignored_chunks`` with a note.
        """
        ev: list[Event] = []
        if self.stopped or self._finished:
            return ev
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices:
            return ev
        choice = next((c for c in choices if isinstance(c, dict) and _choice_index(c) == 0), None)
        if choice is None:
            if isinstance(choices[0], dict):
                self.ignored_chunks += 1
                self._note(
                    f"ignored a chunk for choice {choices[0].get('index')!r} at byte "
                    f"{self.consumed}: only choice 0 is read (was n > 1 requested?)"
                )
            return ev
        delta = choice.get("delta") or {}
        content = delta.get("content") if isinstance(delta, dict) else None
        if isinstance(content, str) and content:
            data = content.encode("utf-8", "replace")
            ev.append(Confirmed(self.consumed, "text", data))
            self.consumed += len(data)
        tool_calls = delta.get("tool_calls") if isinstance(delta, dict) else None
        if isinstance(tool_calls, list):
            for piece in tool_calls:
                if isinstance(piece, dict) and not self._tool_piece(piece, ev):
                    return ev
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self.finish_reason = reason
            if self.incremental and reason != "length":
                self._ready_open(f"at finish_reason={reason}", ev)
        return ev

    def done(self) -> list[Event]:
        """The ``[DONE]`` sentinel: in native-inc, open calls complete (unless truncated)."""
        ev: list[Event] = []
        live = not self.stopped and not self._finished
        if self.incremental and live and self.finish_reason != "length":
            self._ready_open("at [DONE]", ev)
        return ev

    def finish(self, clean: bool) -> list[Event]:
        ev: list[Event] = []
        if self.stopped or self._finished:
            return ev
        self._finished = True
        clean = clean and self.finish_reason != "length"
        why = (
            "finish_reason=length (the model hit its token limit)"
            if self.finish_reason == "length"
            else "the stream ending without a finish_reason"
        )
        if self.incremental:
            if clean:
                self._ready_open("at the end of the stream", ev)
            else:
                for call in self._open():
                    self._truncate(call, f"{call.label()} was cut off by {why}", ev)
            return ev
        calls = [self._calls[i] for i in sorted(self._calls)]
        if not clean:
            for call in calls:
                self._truncate(
                    call,
                    f"{call.label()}: the response was cut off by {why}, so none of its "
                    f"{len(calls)} call(s) ran",
                    ev,
                )
            return ev
        parsed: list[tuple[_Call, dict[str, Any]]] = []
        for call in calls:
            args = self._parse(call, ev)
            if args is None:
                return ev
            parsed.append((call, args))
        for call, args in parsed:
            self._emit_ready(call, args, ev)
        return ev

    # ------------------------------------------------------------------ internals

    def _tool_piece(self, piece: Mapping[str, Any], ev: list[Event]) -> bool:
        index = piece.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            ident = piece.get("id")
            known = self._by_id.get(ident) if isinstance(ident, str) and ident else None
            if known is not None:
                index = known.index
            elif ident or not self._calls:
                index = self._max_index + 1
            else:
                index = self._max_index
        call = self._calls.get(index)
        if call is None:
            call = self._calls[index] = _Call(index, seq=len(self._calls))
            self._max_index = max(self._max_index, index)
            heapq.heappush(self._open_heap, index)
        fn = piece.get("function")
        fn = fn if isinstance(fn, dict) else {}
        ident = piece.get("id")
        if isinstance(ident, str) and ident and not call.id:
            self._set_id(call, ident)
        name = fn.get("name")
        if isinstance(name, str) and name and not call.name:
            call.name = name
        if call.name and not call.announced:
            if not call.id:
                self._set_id(call, f"call_{index}")
            call.announced = True
            ev.append(CallStarted(call.id, call.name, self.consumed))
        args = fn.get("arguments")
        if args is not None and not isinstance(args, str):
            args = _canonical(args)
        if not args:
            return True
        data = args.encode("utf-8", "replace")
        if call.done:
            count = f"{len(data)} more argument byte{'s' if len(data) != 1 else ''}"
            self._fail(
                "late_arguments",
                f"{call.label()}: {count} ({preview(data)}) arrived after the call became "
                f"executable {call.why} (it may have run with the arguments it had then); the "
                f"later bytes were not used and the rest of the response was not read. Stream "
                f"each call's arguments whole before starting the next call's",
                self.consumed,
                ev,
                resend=False,
            )
            return False
        if self._pending + len(data) > self.max_held:
            self._fail(
                "limit",
                f"{call.label()}: the arguments of the calls not yet complete passed "
                f"{self.max_held} bytes; send smaller calls (split large content)",
                self.consumed + self.max_held - self._pending,
                ev,
            )
            return False
        if not call.pieces:
            heapq.heappush(self._starts, (self.consumed, index))
        call.pieces.append((self.consumed, data))
        call.size += len(data)
        self.consumed += len(data)
        self._pending += len(data)
        if self.incremental:
            if index > self._max_with_args:
                self._max_with_args = index
            self._advance(ev)
        return True

    def _advance(self, ev: list[Event]) -> None:
        """Complete open calls, lowest index first, while the early rule proves them complete:
        a higher index has argument bytes and the call's own arguments parse as an object."""
        while (call := self._next_open()) is not None and call.index < self._max_with_args:
            if not call.size or not call.name or call.settled:
                return
            closure = call.closure
            if closure is None:
                closure = call.closure = _Closure()
            pieces = call.pieces
            while call.scanned < len(pieces):
                closure.feed(pieces[call.scanned][1])
                call.scanned += 1
            if closure.broken:
                call.settled = True
                return
            if not closure.closed():
                return
            args, _ = self._decode(call)
            if args is None:
                call.settled = True  # a closed JSON text that does not parse never will
                return
            higher = self._max_with_args
            self._emit_ready(call, args, ev, f"when index {higher}'s arguments began")

    def _ready_open(self, why: str, ev: list[Event]) -> None:
        while (call := self._next_open()) is not None:
            args = self._parse(call, ev)
            if args is None:
                return
            self._emit_ready(call, args, ev, why)

    def _start(self, call: _Call) -> int:
        return call.pieces[0][0] if call.pieces else self.consumed

    def _decode(self, call: _Call) -> tuple[dict[str, Any] | None, tuple[str, str, int]]:
        """The arguments as a dict, or ``None`` and (kind, message, offset) saying why not."""
        raw = b"".join(p for _, p in call.pieces)
        text = raw.decode("utf-8", "replace")
        if not call.name:
            return None, ("bad_call", f"{call.label()} has no function name", self._start(call))
        if not text.strip():
            return {}, ("", "", 0)
        try:
            args = safejson.loads(text)
        except safejson.JsonLimitError as exc:
            at = self._start(call) + len(text[: exc.pos].encode("utf-8"))
            kind = "limit" if exc.kind == "size" else "bad_json"
            return None, (kind, f"{call.label()}: arguments are {exc}", at)
        except json.JSONDecodeError as exc:
            at = self._start(call) + len(text[: exc.pos].encode("utf-8"))
            message = (
                f"{call.label()}: arguments are not valid JSON: {exc.msg} at char {exc.pos} "
                f"(line {exc.lineno}, column {exc.colno}) "
                f"near {preview(raw[max(0, exc.pos - 20) :])}"
            )
            return None, ("bad_json", message, at)
        if not isinstance(args, dict):
            message = f"{call.label()}: arguments must be a JSON object, got {type(args).__name__}"
            return None, ("bad_json", message, self._start(call))
        return args, ("", "", 0)

    def _parse(self, call: _Call, ev: list[Event]) -> dict[str, Any] | None:
        """The call's arguments as a dict, or ``None`` after reporting why they are unusable."""
        args, (kind, message, offset) = self._decode(call)
        if args is None:
            self._fail(kind, message, offset, ev)
        return args

    def _emit_ready(
        self, call: _Call, args: dict[str, Any], ev: list[Event], why: str = "at the end"
    ) -> None:
        # Contiguous pieces become one Confirmed run; joined once (``bytes +=`` would
        # copy the run for every piece: quadratic in a long argument).
        runs: list[tuple[int, list[bytes]]] = []
        end = -1
        for offset, data in call.pieces:
            if runs and offset == end:
                runs[-1][1].append(data)
            else:
                runs.append((offset, [data]))
            end = offset + len(data)
        for start, parts in runs:
            ev.append(Confirmed(start, "body", b"".join(parts)))
        # Its last argument byte; a call with no argument bytes is confirmed by the chunk that
        # completed it, which adds none: then the last byte before it (0 at the very start).
        last = (
            call.pieces[-1][0] + len(call.pieces[-1][1]) - 1 if call.pieces else self.consumed - 1
        )
        call.done = True
        call.why = why
        self._pending -= call.size
        call.pieces = []  # confirmed and handed on: a done call holds no bytes
        call.closure = None
        if not call.id:
            self._set_id(call, f"call_{call.index}")
        ev.append(CallReady(ToolCall(call.id, call.name, args, max(last, 0))))

    def _truncate(self, call: _Call, message: str, ev: list[Event]) -> None:
        if not call.id:
            self._set_id(call, f"call_{call.index}")
        self.truncated_calls.append((call.id, call.name))
        ev.append(
            ContractError("truncated", message + "; it did not run: resend it", self.consumed)
        )

    def _fail(
        self, kind: str, message: str, offset: int, ev: list[Event], resend: bool = True
    ) -> None:
        self.stopped = True
        self._pending = 0  # the rest of the message is discarded, not undecided
        ev.append(ContractError(kind, message + ("; resend the call" if resend else ""), offset))


def _choice_index(choice: Mapping[str, Any]) -> int | None:
    """A choice's ``index`` (absent counts as 0: single-choice servers often omit it)."""
    index = choice.get("index", 0)
    if index is None:
        return 0
    return index if isinstance(index, int) and not isinstance(index, bool) else None


class NativeSSETransducer:
    """A bytes ``Transducer`` over the SSE body of a chat-completions stream.

    Offsets, ``frontier`` and ``consumed`` are those of the accumulator (content
    + argument bytes); ``sse_consumed`` counts body bytes. Data lines that are
    not JSON objects are skipped and counted in ``skipped``. A body that ends
    with neither a ``finish_reason`` nor ``[DONE]`` was cut off, so even a
    "clean" ``finish`` of it is a truncation: the body alone cannot prove the
    last call complete.
    """

    def __init__(self, incremental: bool, max_held: int = MAX_HELD) -> None:
        self.accumulator = NativeAccumulator(incremental, max_held)
        self._sse = SSEDecoder()
        self.sse_consumed = 0
        self.skipped = 0
        self.saw_done = False

    @property
    def frontier(self) -> int:
        return self.accumulator.frontier

    @property
    def consumed(self) -> int:
        return self.accumulator.consumed

    @property
    def stopped(self) -> bool:
        return self.accumulator.stopped

    @property
    def notes(self) -> list[str]:
        return self.accumulator.notes

    def pending(self) -> bytes:
        return self.accumulator.pending()

    def pending_size(self) -> int:
        return self.accumulator.pending_size()

    def snapshot(self) -> FrameSnapshot:
        return self.accumulator.snapshot()

    def pending_bound(self) -> int:
        return self.accumulator.pending_bound()

    def feed(self, data: bytes) -> list[Event]:
        self.sse_consumed += len(data)
        events: list[Event] = []
        for item in self._sse.feed(data):
            events.extend(self._item(item))
        if self._sse.too_long:
            events.extend(
                self.accumulator.fail(
                    "limit",
                    f"an SSE line or event of the response passed {self._sse.max_line} bytes "
                    f"(body byte {self.sse_consumed}); the response cannot be read: resend it",
                )
            )
        return events

    def finish(self, clean: bool) -> list[Event]:
        self._sse.finish()
        ended = self.saw_done or self.accumulator.finish_reason is not None
        return self.accumulator.finish(clean and ended)

    def _item(self, item: str) -> list[Event]:
        if item.strip() == "[DONE]":
            self.saw_done = True
            return self.accumulator.done()
        try:
            chunk = safejson.loads(item, max_depth=safejson.ENVELOPE_DEPTH)
        except safejson.JsonLimitError as exc:
            # Not junk to skip: it may have carried a call's arguments.
            return self.accumulator.fail("bad_json", f"an SSE chunk is {exc}; resend the response")
        except ValueError:
            self.skipped += 1
            return []
        if not isinstance(chunk, dict):
            self.skipped += 1
            return []
        return self.accumulator.feed_chunk(chunk)
