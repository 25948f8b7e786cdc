"""Baselines for experiments: tool calls carried as JSON in the assistant text.

* ``json-whole``: the whole message is one JSON value, parsed at the end of the
  stream: ``{"calls": [call, ...]}``, a list of calls, or one call. A message
  that does not start with ``{`` or ``[`` is plain prose (a final answer).
* ``json-object``: each top-level ``{...}`` in the text is one call and runs as
  soon as its closing brace arrives and it parses; text outside objects is
  prose. Braces are matched chunk-wise with a regex scan that respects strings
  and escapes.

A call is ``{"id": "c1", "name": "read", "arguments": {...}}``; ``id`` is
optional (``call_<n>`` is generated) and ``arguments`` may also be a JSON
string holding an object (the OpenAI shape). All JSON is parsed by
``safejson`` (bounded nesting: a deep document is ``bad_json``, never a
``RecursionError``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from frontier.app.cst.base import json_where, preview
from frontier.app.stream_events import (
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    ToolCall,
)
from frontier.app.wire import safejson

MAX_JSON_BYTES = 64 << 20

_OBJ_SPECIAL = re.compile(rb'["{}]')
_STR_SPECIAL = re.compile(rb'["\\]')


class _Held:
    """Bytes held until a JSON document ends.

    Large pieces are kept as they are (no copy); small ones are gathered in a
    ``bytearray``: a list entry per byte fed (``frontier check`` feeds every
    byte) would cost 8 bytes of pointers per byte held.
    """

    SMALL = 1 << 16

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.tail = bytearray()
        self.size = 0

    def add(self, data: bytes) -> None:
        self.size += len(data)
        if len(data) < self.SMALL:
            self.tail += data
            if len(self.tail) < self.SMALL:
                return
            data, self.tail = bytes(self.tail), bytearray()
        elif self.tail:
            self.parts.append(bytes(self.tail))
            self.tail = bytearray()
        self.parts.append(data)

    def value(self) -> bytes:
        if not self.parts:
            return bytes(self.tail)
        if not self.tail and len(self.parts) == 1:
            return self.parts[0]
        return b"".join([*self.parts, self.tail])


class CallShapeError(ValueError):
    """A parsed JSON value is not a call; the message says which field is wrong."""


def call_from_json(value: Any, number: int, offset: int) -> ToolCall:
    """Validate one call object; ``number`` (1-based) names it in errors and default ids."""
    if not isinstance(value, Mapping):
        raise CallShapeError(f"call #{number} is a JSON {type(value).__name__}, not an object")
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise CallShapeError(f'call #{number} has no "name" string')
    ident = value.get("id", f"call_{number}")
    if not isinstance(ident, str) or not ident:
        raise CallShapeError(f'call #{number} ({name}): "id" must be a non-empty string')
    args = value.get("arguments", {})
    if isinstance(args, str):
        try:
            args = safejson.loads(args, standard=True) if args.strip() else {}
        except safejson.JsonLimitError as exc:
            raise CallShapeError(f'call #{number} ({name}): "arguments" string is {exc}') from exc
        except json.JSONDecodeError as exc:
            raise CallShapeError(
                f'call #{number} ({name}): "arguments" string is not JSON: {json_where(exc)}'
            ) from exc
    if not isinstance(args, Mapping):
        raise CallShapeError(f'call #{number} ({name}): "arguments" must be an object')
    return ToolCall(ident, name, dict(args), offset)


def _limit_error(exc: safejson.JsonLimitError, text: str, base: int) -> tuple[str, str, int]:
    """(kind, message, offset) of a document over the nesting or size limit."""
    at = base + len(text[: exc.pos].encode("utf-8"))
    return ("bad_json" if exc.kind == "depth" else "limit"), f"the JSON is {exc}", at


def _json_error(exc: json.JSONDecodeError, text: str, base: int) -> tuple[str, int]:
    at = base + len(text[: exc.pos].encode("utf-8"))
    near = preview(text[max(0, exc.pos - 20) : exc.pos + 20].encode("utf-8"))
    return (
        f"invalid JSON: {json_where(exc)} near {near}",
        at,
    )


class JsonWholeTransducer:
    """``json-whole``: nothing is confirmed until the stream ends cleanly."""

    def __init__(self, max_bytes: int = MAX_JSON_BYTES) -> None:
        self.max_bytes = max_bytes
        self.frontier = 0
        self.consumed = 0
        self.stopped = False
        self.truncated_calls: list[tuple[str, str]] = []
        self._held = _Held()

    def pending(self) -> bytes:
        return self._held.value()

    def pending_size(self) -> int:
        return self.consumed - self.frontier if not self.stopped else 0

    def pending_bound(self) -> int:
        return self.consumed

    def feed(self, data: bytes) -> list[Event]:
        self.consumed += len(data)
        if self.stopped or not data:
            return []
        if self.consumed > self.max_bytes:
            self.stopped = True
            self._held = _Held()
            return [
                ContractError(
                    "limit",
                    f"the JSON message passed {self.max_bytes} bytes; send fewer or smaller calls",
                    self.max_bytes,
                )
            ]
        self._held.add(data)
        return []

    def finish(self, clean: bool) -> list[Event]:
        if self.stopped:
            return []
        raw = self._held.value()
        self._held = _Held()
        self.stopped = True
        if not clean:
            if not raw.strip():
                return []
            return [
                ContractError(
                    "truncated",
                    "the JSON message was cut off before it ended; none of its calls ran: "
                    "resend them",
                    self.consumed,
                )
            ]
        text = raw.decode("utf-8", "replace")
        body = text.strip()
        if not body.startswith(("{", "[")):
            self.frontier = self.consumed
            return [Confirmed(0, "text", raw)] if raw else []
        try:
            value = safejson.loads(text, standard=True)
        except safejson.JsonLimitError as exc:
            kind, message, at = _limit_error(exc, text, 0)
            return [ContractError(kind, message + "; resend the whole message", at)]
        except json.JSONDecodeError as exc:
            message, at = _json_error(exc, text, 0)
            return [ContractError("bad_json", message + "; resend the whole message", at)]
        items = value.get("calls") if isinstance(value, dict) and "calls" in value else value
        if isinstance(items, dict):
            items = [items]
        if not isinstance(items, list):
            return [ContractError("bad_call", '"calls" must be a list of call objects', 0)]
        end = max(self.consumed - 1, 0)
        try:
            calls = [call_from_json(item, i + 1, end) for i, item in enumerate(items)]
        except CallShapeError as exc:
            return [ContractError("bad_call", f"{exc}; resend the whole message", 0)]
        self.frontier = self.consumed
        events: list[Event] = [Confirmed(0, "body", raw)]
        for call in calls:
            events.append(CallStarted(call.id, call.name, 0))
            events.append(CallReady(call))
        return events


class JsonObjectTransducer:
    """``json-object``: each top-level JSON object runs once its ``}`` arrives and it parses."""

    def __init__(self, max_bytes: int = MAX_JSON_BYTES) -> None:
        self.max_bytes = max_bytes
        self.consumed = 0
        self.stopped = False
        self._in_obj = False
        self._obj_start = 0
        self._held = _Held()
        self._depth = 0
        self._in_str = False
        self._esc = False
        self._count = 0
        self.frontier = 0

    def pending(self) -> bytes:
        return self._held.value() if self._in_obj and not self.stopped else b""

    def pending_size(self) -> int:
        return self._held.size if self._in_obj and not self.stopped else 0

    def pending_bound(self) -> int:
        return self.consumed

    def feed(self, data: bytes) -> list[Event]:
        base = self.consumed
        self.consumed += len(data)
        ev: list[Event] = []
        if self.stopped:
            return ev
        pos, n = 0, len(data)
        while pos < n and not self.stopped:
            if not self._in_obj:
                j = data.find(b"{", pos)
                if j < 0:
                    ev.append(Confirmed(base + pos, "text", data[pos:]))
                    self.frontier = base + n
                    break
                if j > pos:
                    ev.append(Confirmed(base + pos, "text", data[pos:j]))
                self.frontier = base + j
                self._in_obj, self._obj_start = True, base + j
                self._held = _Held()
                self._depth, self._in_str, self._esc = 0, False, False
                pos = j
            end = self._scan(data, pos)
            piece = data[pos : end if end >= 0 else n]
            self._held.add(piece)
            if self._held.size > self.max_bytes:
                self.stopped = True
                ev.append(
                    ContractError(
                        "limit",
                        f"a JSON call object passed {self.max_bytes} bytes",
                        self._obj_start + self.max_bytes,
                    )
                )
                break
            if end < 0:
                break
            self._complete(base + end - 1, ev)
            pos = end
        return ev

    def _scan(self, data: bytes, i: int) -> int:
        """Advance the brace/string state; return the index after the closing ``}``, or -1."""
        n = len(data)
        while i < n:
            if self._esc:
                self._esc = False
                i += 1
                continue
            if self._in_str:
                m = _STR_SPECIAL.search(data, i)
                if m is None:
                    return -1
                i = m.end()
                if m.group() == b"\\":
                    self._esc = True
                else:
                    self._in_str = False
                continue
            m = _OBJ_SPECIAL.search(data, i)
            if m is None:
                return -1
            i = m.end()
            c = m.group()
            if c == b'"':
                self._in_str = True
            elif c == b"{":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth == 0:
                    return i
        return -1

    def _complete(self, close_offset: int, ev: list[Event]) -> None:
        raw = self._held.value()
        self._in_obj = False
        self._held = _Held()
        self._count += 1
        text = raw.decode("utf-8", "replace")
        try:
            value = safejson.loads(text, standard=True)
            call = call_from_json(value, self._count, close_offset)
        except safejson.JsonLimitError as exc:
            kind, message, at = _limit_error(exc, text, self._obj_start)
            self._error(kind, f"JSON call #{self._count}: {message}", at, ev)
            return
        except json.JSONDecodeError as exc:
            message, at = _json_error(exc, text, self._obj_start)
            self._error("bad_json", f"JSON call #{self._count}: {message}", at, ev)
            return
        except CallShapeError as exc:
            self._error("bad_call", str(exc), self._obj_start, ev)
            return
        ev.append(Confirmed(self._obj_start, "body", raw))
        self.frontier = close_offset + 1
        ev.append(CallStarted(call.id, call.name, self._obj_start))
        ev.append(CallReady(call))

    def _error(self, kind: str, message: str, offset: int, ev: list[Event]) -> None:
        self.stopped = True
        ev.append(ContractError(kind, message + "; resend the call", offset))

    def finish(self, clean: bool) -> list[Event]:
        if self.stopped or not self._in_obj:
            return []
        self.stopped = True
        if clean:
            return [
                ContractError(
                    "bad_json",
                    f"the stream ended inside the JSON object that starts at byte "
                    f"{self._obj_start} ({self._depth} brace(s) still open); resend the call",
                    self.consumed,
                )
            ]
        return [
            ContractError(
                "truncated",
                f"the JSON call starting at byte {self._obj_start} was cut off; it did not run: "
                f"resend it",
                self.consumed,
            )
        ]
