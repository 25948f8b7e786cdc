"""A JSON-lines log of decoded chunks, read into one :class:`RawResponse` (issue 25).

SDK debug logs and several servers write one decoded chunk or event per line. A line
is one of (``docs/captures.md``):

* the chunk itself: a Chat ``chat.completion.chunk``, a Responses ``response.*`` event,
  an Anthropic event (``message_start`` …) — its text is the event's ``data``, verbatim;
* a wrapper: an object without ``type``/``choices``/``object`` holding the chunk under
  ``chunk``, ``data`` or ``payload`` (an object, or a string such as ``"[DONE]"``),
  with an optional time under ``t``, ``time``, ``ts``, ``timestamp`` or ``elapsed``
  and an optional SSE name under ``event``; any ``headers`` key is never read;
* either of those after a time prefix: ``[0.12] {…}``, ``0.12 {…}`` or
  ``2026-01-01T10:00:00.120Z {…}``.

Times are seconds (a number over 1e12 is epoch milliseconds) or ISO 8601; they are made
relative to the first line's and never go backwards. Every line is bounded in size and
JSON depth (``safejson``).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from frontier.app.session.capture_raw import RawEvent, RawResponse
from frontier.app.session.capture_sse import MAX_EVENT, CaptureError, EmptyCapture, too_many_events
from frontier.app.session.record import MAX_EVENTS
from frontier.app.wire import safejson

PAYLOAD_KEYS = ("chunk", "data", "payload")
TIME_KEYS = ("t", "time", "ts", "timestamp", "elapsed")
CHUNK_KEYS = ("type", "choices", "object")
"""A line holding one of these at its top is the chunk itself, not a wrapper."""


def _seconds(value: Any) -> float | None:
    """A time field or prefix as seconds on some clock (``None`` when it is not a time)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) / 1000 if value > 1e12 else float(value)
    if isinstance(value, str):
        text = value.strip().strip("[]").rstrip(":").strip()
        try:
            return _seconds(float(text))
        except ValueError:
            pass
        try:
            return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def _event(obj: dict[str, Any], line: str) -> tuple[str, str | None, float | None] | None:
    """``(data, event name, time)`` of one line's object, ``None`` for a line that
    carries no chunk (a wrapper without a payload)."""
    if any(k in obj for k in CHUNK_KEYS):
        return line, None, None
    payload = next((obj[k] for k in PAYLOAD_KEYS if k in obj), None)
    if payload is None:
        return None
    when = next((_seconds(obj[k]) for k in TIME_KEYS if k in obj), None)
    name = obj.get("event") if isinstance(obj.get("event"), str) else None
    if isinstance(payload, str):
        return payload, name, when
    if isinstance(payload, dict | list):
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":")), name, when
    return None


def jsonl_response(data: bytes, max_line: int = MAX_EVENT) -> RawResponse:
    """The events of a chunk log, in order, with their times where the log has them."""
    events: list[RawEvent] = []
    notes: list[str] = []
    skipped = 0
    t0: float | None = None
    last = 0.0
    if max(data.count(b"\n"), data.count(b"\r")) > 2 * MAX_EVENTS:  # before they are split
        raise CaptureError(
            f"over {2 * MAX_EVENTS:,} lines, the cap for a chunk log; cut it to the part you "
            "want to check"
        )
    lines = data.splitlines()  # bytes: only CR and LF end a line, never U+2028 in a string
    for number, raw in enumerate(lines, 1):
        if len(raw) > max_line:
            raise CaptureError(f"line {number} is over {max_line:,} bytes, the cap per line")
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            continue
        prefix, brace, rest = text.partition("{")
        stamp = _seconds(prefix) if prefix else None
        body = brace + rest
        try:
            obj = safejson.loads(body, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError as exc:
            if number == len(lines) and not data.endswith(b"\n"):
                notes.append(f"the last line is torn ({exc}): dropped")
                return _done(events, notes, skipped, torn=True)
            raise CaptureError(f"line {number}: not JSON ({exc})") from exc
        found = _event(obj, body) if isinstance(obj, dict) else None
        if found is None:
            skipped += 1
            continue
        chunk, name, when = found
        when = when if when is not None else stamp
        t: float | None = None
        if when is not None:
            t0 = when if t0 is None else t0
            t = max(last, round(when - t0, 6))
            last = t
        if len(events) == MAX_EVENTS:
            raise too_many_events(MAX_EVENTS)
        events.append(RawEvent(data=chunk, event=name, t=t))
    return _done(events, notes, skipped, torn=False)


def _done(events: list[RawEvent], notes: list[str], skipped: int, *, torn: bool) -> RawResponse:
    if skipped:
        notes.append(f"{skipped} line(s) held no chunk: skipped")
    if not events:
        raise EmptyCapture("no chunk in it (one decoded chunk or event object per line)")
    return RawResponse(kind="jsonl", events=tuple(events), torn=torn, notes=tuple(notes))
