"""Native tool calls on every wire (modes ``native-eos`` and ``native-inc``, DESIGN §4).

The accumulator reads neutral deltas (``app/model/stream.py``), whatever API sent them.
Its byte stream — the one its offsets count — is the concatenation, in arrival order,
of assistant text (confirmed at once) and each call's argument bytes (confirmed when
the call completes). A call's id and name may arrive once, its arguments in any
pieces; a wire that repeats the arguments whole when the call ends (``CallDone``)
is believed over its pieces (some servers send no pieces at all: the whole arguments
then enter the byte stream there).

Completion rules, native-inc:

* a wire that says when a call is complete (Responses ``output_item.done``, Anthropic
  ``content_block_stop``; ``CallDone`` with ``proof``) completes it then — unless its
  JSON is still open there (a server that closes a block its output limit cut, as
  llama.cpp's does): it is held for the finish, which says whether it was cut
  (``truncated``) or broken (``bad_json``). A ``CallDone`` without proof
  (``status: incomplete`` / ``in_progress``) leaves the call to the end of the response;
* a wire that does not (Chat Completions) completes call *i* when a call with a higher
  key has received argument *bytes* and call *i*'s arguments already parse as a JSON
  object. A higher key merely *announced* proves nothing (Gemini's endpoint announces
  every call in its first chunk and streams the arguments afterwards), and a JSON
  object that parses can only be followed by whitespace, so such a call can no longer
  change;
* on every wire, the calls still open complete at a clean end (``Finish`` stop /
  tool_calls / pause, the terminal event, or a clean ``finish``) — unless the last
  one's JSON is still open there (``_cut_short``): the server cut it at its output
  limit and said ``tool_calls`` anyway, so the end is treated as a truncation.

Calls complete in key order (a call waits for the lower ones), so they run in the
order the model wrote them. At the end a call that does not parse is ``bad_json``
(naming the call and the position). Argument bytes for a call that already completed
are ``late_arguments``: it may have run, so the stream broke the proof and reading
stops.

native-eos: nothing completes before ``finish(clean=True)``; then every call must
parse, or none runs (the first bad one is reported).

Truncation (``Finish(length)`` or ``finish(clean=False)``; for the SSE transducer also
a body that ended with neither a finish nor its terminal event): calls that never
completed each get a ``ContractError(kind="truncated")`` naming the call — and in
native-eos saying which calls were complete and held back only by the all-or-none rule,
so the model may resend those unchanged — and ``truncated_calls`` lists
``(id, name, complete)`` so the loop can pair each with a ``truncated`` result.

Hostile input costs linear time and bounded memory: arguments are parsed by
``safejson`` (nesting over ``MAX_DEPTH`` is ``bad_json``, never a ``RecursionError``);
whether the lowest open call's arguments have closed is tracked by a bracket scanner
(``_Closure``) that reads each byte once, so they are parsed early at most once, not
once per piece; the argument bytes held for calls not yet complete are capped by
``max_held`` (``limit``); open calls, ids and the frontier are kept in heaps and dicts,
so a message with 100,000 calls costs no per-call scan.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable

from frontier.app import fastjson
from frontier.app.cst.base import json_where, preview
from frontier.app.cst.snapshot import PREVIEW, ArgState, FrameSnapshot
from frontier.app.hashes import blake2b_digest
from frontier.app.model.stream import (
    CallArgs,
    CallDone,
    CallStart,
    Delta,
    End,
    Finish,
    Ignored,
    Malformed,
    ReasoningDelta,
    TextDelta,
    Unreadable,
)
from frontier.app.record import field, record
from frontier.app.stream_events import (
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    ReasoningText,
    ToolCall,
)
from frontier.app.vocab import is_clean
from frontier.app.wire import safejson
from frontier.app.wire.sse import SSEDecoder

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Protocol

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
        """A bracket closed that never opened, or a second value began after the first
        closed: the text can never parse."""

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
            if self.opened and not self.depth:  # a second value after the first closed
                self.broken = True
            elif c == b'"':
                self.in_string = True
            elif c in (b"{", b"["):
                self.depth += 1
                self.opened = True
            else:
                self.depth -= 1
                self.broken = self.depth < 0

    def closed(self) -> bool:
        return self.opened and not self.depth and not self.in_string and not self.broken


_PARTIAL_U = re.compile(r"(?<!\\)(?:\\\\)*(\\u[0-9a-fA-F]{0,3})\Z")
"""An unescaped ``\\u`` with fewer than four hex digits at the end of a string."""
_PARTIAL_WORD = re.compile(
    r"(?<![\w.+-])(?:n(?:ul?)?|t(?:ru?)?|f(?:a(?:ls?)?)?|-?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?|-)\Z"
)
"""A literal or a number at the end of JSON text outside a string, possibly cut short."""


def _json_prefix(raw: bytes, in_string: bool) -> bool:
    """``raw`` (JSON that never closed) is the start of some valid JSON text: with its
    open string closed, the parser first fails at its very end. One C-level parse."""
    text = raw.decode("utf-8", "replace")
    if in_string:
        backslashes = len(text) - len(text.rstrip("\\"))
        text = text[:-1] if backslashes % 2 else text  # a pending escape: drop it
        partial = _PARTIAL_U.search(text)  # a \uXXXX escape cut before its fourth digit
        text = text[: partial.start(1)] if partial is not None else text
        text += '"'
    else:
        text = text.rstrip()
        partial = _PARTIAL_WORD.search(text)  # "nul", "tr", "1.", "-": a value cut short
        text = text[: partial.start()] if partial is not None else text
    try:
        safejson.loads(text)
    except safejson.JsonLimitError:
        return False
    except fastjson.JSONDecodeError as exc:
        return exc.pos >= len(text)
    return False  # (it parsed: it was closed after all)


def _may_parse(raw: bytes) -> bool:
    """``raw`` is, or is the start of, a valid JSON text (one linear scan and one parse)."""
    closure = _Closure()
    closure.feed(raw)
    if closure.broken:
        return False
    if closure.closed():
        try:
            safejson.loads(raw.decode("utf-8", "replace"))
        except (fastjson.JSONDecodeError, safejson.JsonLimitError):
            return False
        return True
    return _json_prefix(raw, closure.in_string)


ENCODED = "encoded"
"""``_decode``'s word for arguments that came as a JSON string holding the object."""


def _object_in(text: str) -> dict[str, Any] | None:
    """The object a JSON string's text holds (``"{\\"path\\": \\"a.txt\\"}"``), or
    ``None``. Qwen2.5-7B behind some servers, and some OpenAI-compatible providers, send a
    call's whole arguments encoded twice; read once they are a string, and the call was a
    ``bad_json`` the model repeated on every resend until the repair limit. Only a string
    that is itself a JSON object (within the same limits) is taken."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        inner = safejson.loads(text, standard=True)
    except (safejson.JsonLimitError, ValueError):
        return None
    return inner if isinstance(inner, dict) else None


def _digest(data: bytes) -> bytes:
    return blake2b_digest(data, 16)


def unreadable_message(delta: Unreadable) -> str:
    """What an event the wire could not read, arriving inside a call, is said to be."""
    return (
        f"the server sent an event that is not JSON ({delta.preview!r}) while a call was "
        "arriving: its bytes may have a hole, so it did not run"
    )


@record(frozen=False)
class _Call:
    index: int
    """The wire's key for the call (its order in the response)."""
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

    proven: bool = False
    """The wire said the call is complete (``CallDone`` with proof): it completes as soon
    as every lower call has."""
    closed: bool = False
    """The wire ended the call (``CallDone``, proof or not): more argument bytes are late."""
    digest: bytes = b""
    """A digest of the arguments it ran with (once done): a wire repeating them is checked
    against it without keeping the bytes."""
    resent: bool = False
    """Its server resends the arguments whole so far (:meth:`NativeAccumulator._new_bytes`)."""
    cut: str | None = None
    """Proven complete with arguments that stop inside a JSON value (``_stops_inside``):
    held for the finish to say whether the server cut it (``None``: not looked at)."""

    def label(self) -> str:
        return f"call {self.id or '?'} ({self.name or 'no name'}), index {self.index}"


class NativeAccumulator:
    """Accumulates the native tool calls of one streamed response into executable calls."""

    def __init__(
        self, incremental: bool, *, signals_done: bool = False, max_held: int = MAX_HELD
    ) -> None:
        """``signals_done``: the wire says when each call is complete (Responses,
        Anthropic), so the Chat Completions early rule is not used."""
        self.incremental = incremental
        self.signals_done = signals_done
        self.max_held = max_held
        self.consumed = 0
        self.stopped = False
        self.finish_reason: str | None = None
        self.truncated_calls: list[tuple[str, str, bool]] = []
        """``(id, name, complete)`` of each call reported ``truncated``: none of them ran;
        ``complete``: its arguments had all arrived (native-eos held it back)."""
        self.held_arguments: dict[str, str] = {}
        """The arguments text of each complete call in ``truncated_calls``, by id: what
        the model may resend unchanged (the repair text quotes it)."""
        self.notes: list[str] = []
        """What was read but deliberately not used (at most ``MAX_NOTES``), e.g. another choice."""
        self.ignored_chunks = 0
        """Events ignored because they belong to a choice other than 0."""
        self._calls: dict[int, _Call] = {}
        self._max_index = -1
        self._max_with_args = -1
        """The highest key that has received argument bytes (Chat's early rule)."""
        self._open_heap: list[int] = []
        """Keys of calls not yet complete (completed ones are dropped lazily)."""
        self._starts: list[tuple[int, int]] = []
        """(offset of the first argument byte, key) of calls with arguments (lazily pruned)."""
        self._finished = False
        self._short: tuple[int, str | None] = (-1, None)
        """``_cut_short``'s answer and the byte count it was given at."""
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
        """The open call with the lowest key, or ``None``."""
        heap = self._open_heap
        while heap and self._calls[heap[0]].done:
            heapq.heappop(heap)
        return self._calls[heap[0]] if heap else None

    def fail(self, kind: str, message: str) -> list[Event]:
        """Stop reading this response with a contract error (e.g. an unreadable SSE line)."""
        ev: list[Event] = []
        if not self.stopped and not self._finished:
            self._fail(kind, message, self.consumed, ev)
        return ev

    def receiving(self) -> bool:
        """A call has started and is not complete: bytes lost now may be its own (the
        open calls' heap, pruned lazily: no walk over every call of a hostile response)."""
        return self._next_open() is not None

    def _note(self, message: str) -> None:
        if len(self.notes) < MAX_NOTES:
            self.notes.append(message)

    # ------------------------------------------------------------------ input

    def feed(self, deltas: Iterable[Delta]) -> tuple[bytes, list[Event]]:
        """The deltas of one event: the bytes they add to the byte stream, and the events.

        Reasoning, usage and server errors mean nothing here (the loop and the transport
        read them); text is confirmed at once; call deltas follow the rules above."""
        ev: list[Event] = []
        added: list[bytes] = []
        if self.stopped or self._finished:
            return b"", ev
        for delta in deltas:
            kind = type(delta)
            if kind is TextDelta:
                assert isinstance(delta, TextDelta)
                if delta.text:
                    data = delta.text.encode("utf-8", "replace")
                    ev.append(Confirmed(self.consumed, "text", data))
                    self.consumed += len(data)
                    added.append(data)
            elif kind is CallStart:
                assert isinstance(delta, CallStart)
                self._start_call(delta, ev)
            elif kind is CallArgs:
                assert isinstance(delta, CallArgs)
                if delta.data:
                    data = delta.data.encode("utf-8", "replace")
                    if not self._arguments(self._call(delta.key), data, ev):
                        return b"".join(added), ev
                    added.append(data)
            elif kind is CallDone:
                assert isinstance(delta, CallDone)
                done = self._call_done(delta, ev)
                if done is None:
                    return b"".join(added), ev
                added.append(done)
            elif kind is Finish:
                assert isinstance(delta, Finish)
                self.finish_reason = delta.reason
                if self.incremental and is_clean(delta.reason) and self._cut_short() is None:
                    self._ready_open(f"at finish_reason={delta.raw or delta.reason}", ev)
            elif kind is End:
                live = not self.stopped and not self._finished
                ended_clean = self.finish_reason is None or is_clean(self.finish_reason)
                if self.incremental and live and ended_clean and self._cut_short() is None:
                    self._ready_open("at the end of the stream", ev)
            elif kind is Malformed:
                assert isinstance(delta, Malformed)
                self._fail("bad_json", delta.message, self.consumed, ev)
            elif kind is Unreadable:
                assert isinstance(delta, Unreadable)
                if self.receiving():  # its arguments may have a hole: never run them
                    self._fail("bad_json", unreadable_message(delta), self.consumed, ev)
            elif kind is Ignored:
                assert isinstance(delta, Ignored)
                self.ignored_chunks += 1
                self._note(f"{delta.note} (at byte {self.consumed})")
            if self.stopped:
                break
        return b"".join(added), ev

    def finish(self, clean: bool) -> list[Event]:
        ev: list[Event] = []
        if self.stopped or self._finished:
            return ev
        self._finished = True
        cut_by = self.finish_reason if not is_clean(self.finish_reason) else None
        clean = clean and (self.finish_reason is None or is_clean(self.finish_reason))
        short = self._cut_short() if clean else None
        if short is not None:
            clean = False
            said = f"finish_reason={self.finish_reason}" if self.finish_reason else "a clean end"
            why = (
                f"the response ending inside its arguments ({short}) although the server "
                f"said {said}: most likely the server's output token limit"
            )
        elif cut_by == "length":
            why = "finish_reason=length (the model hit its token limit)"
        elif cut_by:
            why = f"finish_reason={cut_by}"
        elif self.finish_reason is not None:  # the caller knows better than the stream
            why = (
                f"the output token limit, though the server said "
                f"finish_reason={self.finish_reason} (its usage reached the max_tokens asked)"
            )
        else:
            why = "the stream ending without a finish_reason"
        if self.incremental:
            if clean:
                self._ready_open("at the end of the stream", ev)
            else:
                for call in self._open():
                    self._truncate(call, f"{call.label()} was cut off by {why}", ev)
            return ev
        calls = [self._calls[i] for i in sorted(self._calls)]
        if not clean:
            whole = [c for c in calls if self._complete(c)]
            held = (
                f"; {', '.join(c.id for c in whole)} {'was' if len(whole) == 1 else 'were'} "
                "complete and did not run only because no call of a cut-off response runs "
                "(native-eos): resend "
                f"{'it' if len(whole) == 1 else 'them'} unchanged"
                if whole
                else ""
            )
            for call in calls:
                state = "was complete" if self._complete(call) else "was cut off"
                self._truncate(
                    call,
                    f"{call.label()} {state}: the response was cut off by {why}, so none "
                    f"of its {len(calls)} call(s) ran{held}",
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

    def _call(self, key: int) -> _Call:
        call = self._calls.get(key)
        if call is None:
            call = self._calls[key] = _Call(key)
            self._max_index = max(self._max_index, key)
            heapq.heappush(self._open_heap, key)
        return call

    def _start_call(self, delta: CallStart, ev: list[Event]) -> None:
        call = self._call(delta.key)
        if delta.id and not call.id:
            call.id = delta.id
        if delta.name and not call.name:
            call.name = delta.name
        self._announce(call, ev)

    def _announce(self, call: _Call, ev: list[Event]) -> None:
        if call.name and not call.announced and not call.done:
            if not call.id:
                call.id = f"call_{call.index}"
            call.announced = True
            ev.append(CallStarted(call.id, call.name, self.consumed))

    def _late(self, call: _Call, data: bytes, ev: list[Event]) -> None:
        count = f"{len(data)} more argument byte{'s' if len(data) != 1 else ''}"
        when = f"became executable {call.why}" if call.done else "was closed by its wire"
        self._fail(
            "late_arguments",
            f"{call.label()}: {count} ({preview(data)}) arrived after the call {when} (it "
            f"may have run with the arguments it had then); the later bytes were not used "
            f"and the rest of the response was not read. Stream each call's arguments "
            f"whole before starting the next call's",
            self.consumed,
            ev,
            resend=False,
        )

    def _arguments(self, call: _Call, data: bytes, ev: list[Event]) -> bool:
        """Hold ``data`` for ``call``; False when reading must stop (a contract error)."""
        if call.done and call.digest == _digest(data):
            if not call.resent:  # the pieces, then the whole call again: no news
                call.resent = True
                self._note(
                    f"{call.label()}: its whole arguments came again after it was complete "
                    "(the same bytes); not read twice"
                )
            return True
        if call.done or call.closed:
            self._late(call, data, ev)
            return False
        data = self._new_bytes(call, data)
        if not data:
            return True
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
            heapq.heappush(self._starts, (self.consumed, call.index))
        call.pieces.append((self.consumed, data))
        call.size += len(data)
        self.consumed += len(data)
        self._pending += len(data)
        if self.incremental and not self.signals_done:
            if call.index > self._max_with_args:
                self._max_with_args = call.index
            self._advance(ev)
        return True

    def _new_bytes(self, call: _Call, data: bytes) -> bytes:
        """What is new in ``data`` for ``call``. Some servers resend a call's arguments
        whole so far in every chunk (DeepSeek on Baidu Qianfan, GLM-style local servers)
        or send the pieces, then the whole arguments again (proxies that add the
        consolidated call): appended, they read ``{"a{"a": 1{"a": 1}``, ``bad_json`` the
        model could not mend, and every call failed. A piece that begins with every byte
        held so far is such a resend — only the bytes after them are new — when it is
        longer and is itself the start of valid JSON, or when it is the same bytes again
        and appending them could never parse; once a call's server has resent, each such
        piece is. A well-formed stream never has a piece that repeats all the arguments
        before it (only a model repeating its own arguments so far, verbatim, at a chunk
        boundary, would). Costs at most the piece's length (a piece shorter than what is
        held is never compared)."""
        size = call.size
        if not size or len(data) < size:
            return data
        held = b"".join(p for _, p in call.pieces)
        if not data.startswith(held):
            return data
        if not call.resent:
            if not _may_parse(data):
                return data
            if len(data) == size and _may_parse(held + data):
                return data
            call.resent = True
            self._note(
                f"{call.label()}: the server resent its arguments whole so far in a piece; "
                "only the bytes after them were read as new"
            )
        return data[size:]

    def _call_done(self, delta: CallDone, ev: list[Event]) -> bytes | None:
        """The wire ended call ``delta.key``: its final id, name and arguments (which win
        over the pieces). The bytes this adds to the stream, or ``None`` to stop."""
        call = self._call(delta.key)
        if call.done:
            # a wire may repeat the arguments after the call was proven (Responses: the
            # item's done after the arguments' done): the same bytes are no news
            if delta.arguments is not None:
                repeated = delta.arguments.encode("utf-8", "replace")
                if _digest(repeated) != call.digest:
                    self._late(call, repeated, ev)
                    return None
            return b""
        if delta.id and delta.id != call.id:
            was, call.id = call.id, delta.id
            if call.announced:  # the same call under its final id (the wire's word wins)
                ev.append(CallStarted(call.id, call.name, self.consumed, replaces=was))
        if delta.name and not call.name:
            call.name = delta.name
        self._announce(call, ev)
        added = b""
        if delta.arguments is not None:
            final = delta.arguments.encode("utf-8", "replace")
            held = b"".join(p for _, p in call.pieces)
            if final != held:
                if held:
                    self._note(
                        f"{call.label()}: the arguments the wire repeated when the call ended "
                        f"differ from its {call.size} streamed bytes; the repeated ones are used"
                    )
                    self._pending -= call.size
                    call.pieces, call.size, call.closure, call.scanned = [], 0, None, 0
                if final and not self._arguments(call, final, ev):
                    return None
                added = final
        call.closed = True
        if delta.proof:
            call.proven = True
            if self.incremental:
                self._ready_proven(ev)
        return added

    def _ready_proven(self, ev: list[Event]) -> None:
        """Complete the lowest open calls while the wire has proven them.

        A proven call whose arguments stop inside a JSON value (opened, never closed) is
        held for the finish: llama.cpp's server ends every open block, a ``tool_use`` cut
        by ``max_tokens`` too, before it says ``max_tokens`` — that call is ``truncated``,
        not JSON the model broke (``bad_json`` asked the model to resend what the same
        limit cuts again). A clean finish then reads it as ``_cut_short`` does."""
        while (call := self._next_open()) is not None and call.proven:
            if call.cut is None:
                call.cut = self._stops_inside(call) or ""
            if call.cut:
                return
            args = self._parse(call, ev)
            if args is None:
                return
            self._emit_ready(call, args, ev, "when its wire said it was complete")

    def _advance(self, ev: list[Event]) -> None:
        """Complete open calls, lowest key first, while the early rule proves them complete:
        a higher key has argument bytes and the call's own arguments parse as an object."""
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

    def _cut_short(self) -> str | None:
        """How the last open call's arguments stop, when they stop inside a JSON value
        (opened, never closed) and every open call before it is complete; else ``None``.

        A server that cuts a response at its output limit may still say ``tool_calls``
        (vLLM, DeepSeek-style deployments, gateways that rewrite ``length``): the call is
        then cut, not JSON the model broke, and "resend valid JSON" would only have the
        model write the same long call into the same limit again. One scan of the held
        bytes, at the end only (kept until another byte arrives: the finish, the terminal
        event and ``finish`` all ask)."""
        if self._short[0] == self.consumed:
            return self._short[1]
        found = self._scan_short()
        self._short = (self.consumed, found)
        return found

    def _scan_short(self) -> str | None:
        calls = self._open()
        if not calls:
            return None
        found = calls[-1].cut if calls[-1].cut is not None else self._stops_inside(calls[-1])
        if not found or not all(self._complete(c) for c in calls[:-1]):
            return None
        return found

    @staticmethod
    def _stops_inside(call: _Call) -> str | None:
        """How ``call``'s arguments stop, when they stop inside a JSON value (opened, never
        closed, valid up to their end); else ``None``. One scan of its bytes."""
        if not call.pieces:
            return None
        closure = _Closure()
        for _, data in call.pieces:
            closure.feed(data)
        if not closure.opened or closure.broken or closure.closed():
            return None
        if not _json_prefix(b"".join(p for _, p in call.pieces), closure.in_string):
            return None  # broken before the end (a quote missing flips every string after)
        inside = ", inside a string" if closure.in_string else ""
        return f"{closure.depth} bracket(s) unclosed{inside}"

    def _start(self, call: _Call) -> int:
        return call.pieces[0][0] if call.pieces else self.consumed

    def _complete(self, call: _Call) -> bool:
        """Its arguments had all arrived (they parse as an object): only the rules held it."""
        return self._decode(call)[0] is not None

    def _decode(self, call: _Call) -> tuple[dict[str, Any] | None, tuple[str, str, int]]:
        """The arguments as a dict, or ``None`` and (kind, message, offset) saying why not."""
        raw = b"".join(p for _, p in call.pieces)
        text = raw.decode("utf-8", "replace")
        if not call.name:
            return None, ("bad_call", f"{call.label()} has no function name", self._start(call))
        if not text.strip():
            return {}, ("", "", 0)
        try:
            args = safejson.loads(text, standard=True)
        except safejson.JsonLimitError as exc:
            at = self._start(call) + len(text[: exc.pos].encode("utf-8"))
            kind = "bad_json" if exc.kind == "depth" else "limit"
            return None, (kind, f"{call.label()}: arguments are {exc}", at)
        except fastjson.JSONDecodeError as exc:
            at = self._start(call) + len(text[: exc.pos].encode("utf-8"))
            message = (
                f"{call.label()}: arguments are not valid JSON: {json_where(exc)} "
                f"near {preview(raw[max(0, exc.pos - 20) :])}"
            )
            return None, ("bad_json", message, at)
        if isinstance(args, str) and (inner := _object_in(args)) is not None:
            return inner, (ENCODED, "", 0)
        if not isinstance(args, dict):
            message = f"{call.label()}: arguments must be a JSON object, got {type(args).__name__}"
            return None, ("bad_json", message, self._start(call))
        return args, ("", "", 0)

    def _parse(self, call: _Call, ev: list[Event]) -> dict[str, Any] | None:
        """The call's arguments as a dict, or ``None`` after reporting why they are unusable."""
        args, (kind, message, offset) = self._decode(call)
        if args is None:
            self._fail(kind, message, offset, ev)
        elif kind == ENCODED:
            self._note(
                f"{call.label()}: its arguments came as a JSON string holding the object "
                "(encoded twice); read as that object"
            )
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
        # Its last argument byte; a call with no argument bytes is confirmed by the event
        # that completed it, which adds none: then the last byte before it (0 at the start).
        last = (
            call.pieces[-1][0] + len(call.pieces[-1][1]) - 1 if call.pieces else self.consumed - 1
        )
        call.done = True
        call.why = why
        call.digest = _digest(b"".join(p for _, p in call.pieces))
        self._pending -= call.size
        call.pieces = []  # confirmed and handed on: a done call holds no bytes
        call.closure = None
        if not call.id:
            call.id = f"call_{call.index}"
        ev.append(CallReady(ToolCall(call.id, call.name, args, max(last, 0))))

    def _truncate(self, call: _Call, message: str, ev: list[Event]) -> None:
        if not call.id:
            call.id = f"call_{call.index}"
        complete = self._complete(call)
        self.truncated_calls.append((call.id, call.name, complete))
        if complete:
            held = b"".join(p for _, p in call.pieces)
            self.held_arguments[call.id] = held.decode("utf-8", "replace")
        resend = "it did not run: resend it" if "resend" not in message else "it did not run"
        ev.append(ContractError("truncated", f"{message}; {resend}", self.consumed))

    def _fail(
        self, kind: str, message: str, offset: int, ev: list[Event], resend: bool = True
    ) -> None:
        self.stopped = True
        self._pending = 0  # the rest of the message is discarded, not undecided
        ev.append(ContractError(kind, message + ("; resend the call" if resend else ""), offset))


if TYPE_CHECKING:  # types only: typing.Protocol is not imported at run time

    class DeltaDecoder(Protocol):
        """One response's wire decoder (``app/model/wires/base.EventDecoder``)."""

        skipped: int

        def feed(self, event: str, data: str) -> list[Delta]: ...

    class DeltaSource(Protocol):
        """A wire adapter as the SSE transducer needs it (``app/model/wires/base.WireCodec``):
        CST imports no wire, so the caller passes one in (``app/model/registry.codec``)."""

        signals_call_done: bool

        def decoder(self) -> DeltaDecoder: ...


class NativeSSETransducer:
    """A bytes ``Transducer`` over the SSE body of one response, on any wire.

    Offsets, ``frontier`` and ``consumed`` are those of the accumulator (text + argument
    bytes); ``sse_consumed`` counts body bytes. Events the wire cannot read are skipped
    and counted in ``skipped``. A body that ends with neither a finish nor the wire's
    terminal event was cut off, so even a "clean" ``finish`` of it is a truncation: the
    body alone cannot prove the last call complete.
    """

    def __init__(self, incremental: bool, wire: DeltaSource, max_held: int = MAX_HELD) -> None:
        self.accumulator = NativeAccumulator(
            incremental, signals_done=wire.signals_call_done, max_held=max_held
        )
        self._decoder = wire.decoder()
        self._sse = SSEDecoder()
        self.sse_consumed = 0
        self.saw_end = False
        self.decoded = 0
        """SSE events handed to the wire's decoder, and 1 more once the body overflowed: the
        accumulator's state changes only where this does (``check``'s fresh prefixes)."""

    @property
    def skipped(self) -> int:
        return self._decoder.skipped

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

    @property
    def truncated_calls(self) -> list[tuple[str, str, bool]]:
        return self.accumulator.truncated_calls

    @property
    def held_arguments(self) -> dict[str, str]:
        return self.accumulator.held_arguments

    def pending(self) -> bytes:
        return self.accumulator.pending()

    def pending_size(self) -> int:
        return self.accumulator.pending_size()

    def snapshot(self) -> FrameSnapshot:
        return self.accumulator.snapshot()

    def pending_bound(self) -> int:
        return self.accumulator.pending_bound()

    def feed(self, data: bytes) -> list[Event]:
        return self.feed_input(data)[1]

    def inert(self, data: bytes, start: int) -> int:
        """How many bytes of ``data`` from ``start`` on are inside one SSE line: fed, they
        reach no decoder (``feed_input`` returns at once), so every prefix among them is
        the state before them (``check``'s byte-by-byte pass feeds them at once)."""
        return self._sse.inert(data, start)

    def feed_input(self, data: bytes) -> tuple[bytes, list[Event]]:
        """``feed``, and the bytes the body added to the transducer's input (text and
        argument bytes, at offset ``consumed`` before): what the live loop shows as the
        raw stream, so a replay shows that rather than the SSE JSON."""
        self.sse_consumed += len(data)
        items = self._sse.feed_events(data)
        if not items and not self._sse.too_long:
            return b"", []  # within an SSE line or event: nothing reached the wire's decoder
        self.decoded += len(items) + (self._sse.too_long and not self.accumulator.stopped)
        events: list[Event] = []
        added: list[bytes] = []
        for name, item in items:
            deltas = self._decoder.feed(name, item)
            if any(type(d) is End for d in deltas):
                self.saw_end = True
            thought = "".join(d.text for d in deltas if type(d) is ReasoningDelta)  # type: ignore[union-attr]
            if thought:  # as the live loop shows it, before what the same event carried
                events.append(ReasoningText(thought))
            piece, found = self.accumulator.feed(deltas)
            added.append(piece)
            events.extend(found)
        if self._sse.too_long:
            events.extend(
                self.accumulator.fail(
                    "limit",
                    f"an SSE line or event of the response passed {self._sse.max_line} bytes "
                    f"(body byte {self.sse_consumed}); the response cannot be read: resend it",
                )
            )
        return b"".join(added), events

    def finish(self, clean: bool) -> list[Event]:
        self._sse.finish()
        ended = self.saw_end or self.accumulator.finish_reason is not None
        return self.accumulator.finish(clean and ended)
