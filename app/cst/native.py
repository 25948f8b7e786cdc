"""Native OpenAI tool calls (modes ``native-eos`` and ``native-inc``, DESIGN §4).

The accumulator takes parsed ``chat.completion.chunk`` objects. Its byte
stream — the one its offsets count — is the concatenation, in arrival order,
of ``delta.content`` bytes (assistant prose, confirmed at once) and
``delta.tool_calls[].function.arguments`` bytes (confirmed when their call
completes). ``id`` and ``name`` may arrive once, arguments in any pieces.

Completion rules:

* ``native-inc``: call *i* completes when a call with a higher index appears,
  or at ``finish_reason``, or at ``[DONE]`` — and its arguments parse as a JSON
  object (else ``bad_json`` naming the call and the parse position).
* ``native-eos``: nothing completes before ``finish(clean=True)``; then every
  call must parse, or none runs (the first bad one is reported).

Truncation (``finish_reason == "length"`` or ``finish(clean=False)``): calls
that never completed each get a ``ContractError(kind="truncated")`` naming the
call (for native-eos: every call of the message), and ``truncated_calls``
lists their ``(id, name)`` so the loop can pair each with a ``truncated`` result.

Hostile input costs linear time and bounded memory: arguments are parsed by
``safejson`` (nesting over ``MAX_DEPTH`` is ``bad_json``, never a
``RecursionError``); the argument bytes held for calls not yet complete are
capped by ``max_held`` (``limit``); open calls, ids and the frontier are kept
in heaps and dicts, so a message with 100,000 calls costs no per-call scan.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from frontier.app.cst import safejson
from frontier.app.cst.base import preview
from frontier.app.cst.sse import SSEDecoder
from frontier.app.events import CallReady, CallStarted, Confirmed, ContractError, Event, ToolCall

MAX_HELD = safejson.MAX_CHARS
"""Argument bytes a response may hold in calls not yet complete (all of them in native-eos)."""


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
        self._calls: dict[int, _Call] = {}
        self._by_id: dict[str, _Call] = {}
        """The first-created call with each id."""
        self._max_index = -1
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

    def _next_open(self, below: int | None = None) -> _Call | None:
        """The open call with the lowest index (``< below`` if given), or ``None``."""
        heap = self._open_heap
        while heap and self._calls[heap[0]].done:
            heapq.heappop(heap)
        if not heap or (below is not None and heap[0] >= below):
            return None
        return self._calls[heap[0]]

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

    # ------------------------------------------------------------------ input

    def feed_chunk(self, chunk: Mapping[str, Any]) -> list[Event]:
        """One parsed ``chat.completion.chunk``; chunks without choices (usage) are ignored."""
        ev: list[Event] = []
        if self.stopped or self._finished:
            return ev
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return ev
        choice = choices[0]
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
                self._ready_open(ev)
        return ev

    def done(self) -> list[Event]:
        """The ``[DONE]`` sentinel: in native-inc, open calls complete (unless truncated)."""
        ev: list[Event] = []
        live = not self.stopped and not self._finished
        if self.incremental and live and self.finish_reason != "length":
            self._ready_open(ev)
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
            else "the stream ended before finish_reason"
        )
        if self.incremental:
            if clean:
                self._ready_open(ev)
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
        if not isinstance(index, int):
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
            if self.incremental:
                while (earlier := self._next_open(below=index)) is not None:
                    if not self._ready(earlier, ev):
                        return False
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
        if isinstance(args, dict):
            args = json.dumps(args, ensure_ascii=False)
        if isinstance(args, str) and args:
            if call.done:
                self.stopped = True
                ev.append(
                    ContractError(
                        "bad_call",
                        f"{call.label()}: more argument bytes arrived after a later call "
                        f"began; stream each call's arguments before starting the next",
                        self.consumed,
                    )
                )
                return False
            data = args.encode("utf-8", "replace")
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
        return True

    def _ready_open(self, ev: list[Event]) -> None:
        while (call := self._next_open()) is not None:
            if not self._ready(call, ev):
                return

    def _ready(self, call: _Call, ev: list[Event]) -> bool:
        args = self._parse(call, ev)
        if args is None:
            return False
        self._emit_ready(call, args, ev)
        return True

    def _start(self, call: _Call) -> int:
        return call.pieces[0][0] if call.pieces else self.consumed

    def _parse(self, call: _Call, ev: list[Event]) -> dict[str, Any] | None:
        """The call's arguments as a dict, or ``None`` after reporting why they are unusable."""
        raw = b"".join(p for _, p in call.pieces)
        text = raw.decode("utf-8", "replace")
        if not call.name:
            return self._fail(
                "bad_call", f"{call.label()} has no function name", self._start(call), ev
            )
        if not text.strip():
            return {}
        try:
            args = safejson.loads(text)
        except safejson.JsonLimitError as exc:
            at = self._start(call) + len(text[: exc.pos].encode("utf-8"))
            kind = "limit" if exc.kind == "size" else "bad_json"
            return self._fail(kind, f"{call.label()}: arguments are {exc}", at, ev)
        except json.JSONDecodeError as exc:
            at = self._start(call) + len(text[: exc.pos].encode("utf-8"))
            return self._fail(
                "bad_json",
                f"{call.label()}: arguments are not valid JSON: {exc.msg} at char {exc.pos} "
                f"(line {exc.lineno}, column {exc.colno}) "
                f"near {preview(raw[max(0, exc.pos - 20) :])}",
                at,
                ev,
            )
        if not isinstance(args, dict):
            return self._fail(
                "bad_json",
                f"{call.label()}: arguments must be a JSON object, got {type(args).__name__}",
                self._start(call),
                ev,
            )
        return args

    def _emit_ready(self, call: _Call, args: dict[str, Any], ev: list[Event]) -> None:
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
        last = call.pieces[-1][0] + len(call.pieces[-1][1]) - 1 if call.pieces else self.consumed
        call.done = True
        self._pending -= call.size
        call.pieces = []  # confirmed and handed on: a done call holds no bytes
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

    def _fail(self, kind: str, message: str, offset: int, ev: list[Event]) -> None:
        self.stopped = True
        self._pending = 0  # the rest of the message is discarded, not undecided
        ev.append(ContractError(kind, message + "; resend the call", offset))
        return None


class NativeSSETransducer:
    """A bytes ``Transducer`` over the SSE body of a chat-completions stream.

    Offsets, ``frontier`` and ``consumed`` are those of the accumulator (content
    + argument bytes); ``sse_consumed`` counts body bytes. Data lines that are
    not JSON objects are skipped and counted in ``skipped``.
    """

    def __init__(self, incremental: bool, max_held: int = MAX_HELD) -> None:
        self.accumulator = NativeAccumulator(incremental, max_held)
        self._sse = SSEDecoder()
        self.sse_consumed = 0
        self.skipped = 0

    @property
    def frontier(self) -> int:
        return self.accumulator.frontier

    @property
    def consumed(self) -> int:
        return self.accumulator.consumed

    @property
    def stopped(self) -> bool:
        return self.accumulator.stopped

    def pending(self) -> bytes:
        return self.accumulator.pending()

    def pending_size(self) -> int:
        return self.accumulator.pending_size()

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
        return self.accumulator.finish(clean)

    def _item(self, item: str) -> list[Event]:
        if item.strip() == "[DONE]":
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
