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
  ``2026-01-01T10:00:00.120Z {…}``;
* a line of Ollama's native stream (``/api/chat``: ``message`` and ``done``;
  ``/api/generate``: ``response`` and ``done``), read as the Chat Completions chunk it
  stands for (:class:`OllamaLines`): what ``curl localhost:11434/api/chat`` saves, and
  what Ollama's own clients speak, so a local model's framing can be checked as it came;
* a whole (non-streamed) answer: a ``chat.completion``, a Responses ``response``, an
  Anthropic ``message`` — what a request without ``stream`` returns (an SDK's default,
  ``curl`` saved to a file) — read as the events its stream would have carried (each
  wire's ``whole_stream``). The file may also be that one answer pretty-printed over many
  lines (``jq .``, a browser's "copy response"). Before, a ``chat.completion`` was read
  as a chunk without a delta: ``check`` said "ok, calls=0" of an answer that made calls.

Times are seconds (a number over 1e12 is epoch milliseconds) or ISO 8601; they are made
relative to the first line's and never go backwards. Every line is bounded in size and
JSON depth (``safejson``).
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from frontier.app.model import registry
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


def _wraps_a_chunk(obj: dict[str, Any]) -> bool:
    """Whether ``obj`` holds a chunk under a payload key, though it has a key of
    :data:`CHUNK_KEYS` of its own: a logger's ``{"type": "chunk", "t": …, "data": {…}}``.
    Read as the chunk itself, its ``data`` was never looked at (the wire could not be
    told, and ``--wire`` then read "ok, calls=0" of a stream that made a call). A payload
    wraps a chunk when it is an object holding a chunk's key, ``[DONE]``, or JSON text; no
    wire's event carries one of those under ``chunk``, ``data`` or ``payload``."""
    payload = next((obj[k] for k in PAYLOAD_KEYS if k in obj), None)
    if isinstance(payload, dict):
        return any(k in payload for k in CHUNK_KEYS)
    if isinstance(payload, str):
        text = payload.strip()
        return text == "[DONE]" or text.startswith("{")
    return False


def _finite(seconds: float, number: int) -> float:
    """``seconds`` (a line's time from the first's), refused when it is no finite number: a
    time of ``1e400`` or ``"NaN"`` became ``"t": Infinity`` in the recording written (JSON
    has no such number) or, silently, 0."""
    if not math.isfinite(seconds):
        raise CaptureError(
            f"line {number}: its time is not a finite number of seconds from the first line's "
            "(infinite, NaN, or too far from it); fix or drop the time"
        )
    return seconds


def _event(obj: dict[str, Any], line: str) -> tuple[str, str | None, float | None] | None:
    """``(data, event name, time)`` of one line's object, ``None`` for a line that
    carries no chunk (a wrapper without a payload)."""
    if any(k in obj for k in CHUNK_KEYS) and not _wraps_a_chunk(obj):
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


class OllamaLines:
    """Lines of Ollama's native stream, each as the Chat Completions chunk it stands
    for: ``message.content`` is ``content``, ``message.thinking`` is ``reasoning``, each
    of ``message.tool_calls`` (whole in one line, ``arguments`` an object) a call with
    its own index (Ollama's ``function.index``, else the next one), and the ``done``
    line the finish (``tool_calls`` when the reply made calls, since Ollama says
    ``stop``; ``length`` stays a cut) with its token counts as ``usage``."""

    def __init__(self) -> None:
        self.calls = 0
        self.lines = 0

    @staticmethod
    def recognises(obj: dict[str, Any]) -> bool:
        return isinstance(obj.get("done"), bool) and (
            isinstance(obj.get("message"), dict) or isinstance(obj.get("response"), str)
        )

    def chunk(self, obj: dict[str, Any]) -> tuple[str, float | None]:
        """The chunk's data and the line's time (``created_at``)."""
        self.lines += 1
        message = obj.get("message")
        said = message if isinstance(message, dict) else {"content": obj.get("response")}
        delta: dict[str, Any] = {}
        thinking = said.get("thinking", obj.get("thinking"))
        if isinstance(thinking, str) and thinking:
            delta["reasoning"] = thinking
        if isinstance(said.get("content"), str) and said["content"]:
            delta["content"] = said["content"]
        calls = said.get("tool_calls")
        if isinstance(calls, list) and calls:
            delta["tool_calls"] = [self._call(c) for c in calls if isinstance(c, dict)]
        finish: str | None = None
        chunk: dict[str, Any] = {"object": "chat.completion.chunk", "model": obj.get("model")}
        if obj.get("done") is True:
            said_reason = obj.get("done_reason")
            reason = said_reason if isinstance(said_reason, str) and said_reason else "stop"
            finish = "tool_calls" if self.calls and reason == "stop" else reason
            prompt, completion = obj.get("prompt_eval_count"), obj.get("eval_count")
            if isinstance(prompt, int) and isinstance(completion, int):
                chunk["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion}
        chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
        text = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
        return text, _seconds(obj.get("created_at"))

    def _call(self, call: dict[str, Any]) -> dict[str, Any]:
        fn = call.get("function")
        fn = fn if isinstance(fn, dict) else {}
        index = fn.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            index = self.calls
        self.calls = max(self.calls, index + 1)
        ident = call.get("id")
        ident = ident if isinstance(ident, str) and ident else f"call_{index}"
        arguments = fn.get("arguments")
        return {
            "index": index,
            "id": ident,
            "type": "function",
            "function": {"name": fn.get("name"), "arguments": arguments},
        }


def whole_answer(obj: dict[str, Any]) -> list[tuple[str, str]] | None:
    """The events a whole answer of any wire stands for (``None``: not one)."""
    for codec in registry.codecs():
        events = codec.whole_stream(obj)
        if events is not None:
            return events
    return None


def _one_document(data: bytes) -> dict[str, Any] | None:
    """``data`` as one JSON object over several lines (a pretty-printed answer), else
    ``None`` (the lines are then read one by one, and the first's error is said); bounded
    as a line is (:data:`MAX_EVENT`, the envelope's depth)."""
    if len(data) > MAX_EVENT:
        return None
    try:
        obj = safejson.loads(data.decode("utf-8", "replace"), max_depth=safejson.ENVELOPE_DEPTH)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def jsonl_response(data: bytes, max_line: int = MAX_EVENT) -> RawResponse:
    """The events of a chunk log, in order, with their times where the log has them."""
    events: list[RawEvent] = []
    notes: list[str] = []
    skipped = 0
    t0: float | None = None
    last = 0.0
    ollama = OllamaLines()
    wholes = 0
    if max(data.count(b"\n"), data.count(b"\r")) > 2 * MAX_EVENTS:  # before they are split
        raise CaptureError(
            f"over {2 * MAX_EVENTS:,} lines, the cap for a chunk log; cut it to the part you "
            "want to check"
        )
    lines = data.splitlines()  # bytes: only CR and LF end a line, never U+2028 in a string
    first = next((line.strip() for line in lines if line.strip()), b"")
    if first == b"{" and (document := _one_document(data)) is not None:
        # one object pretty-printed over many lines (``jq .``): read as the one line it is
        lines = [json.dumps(document, ensure_ascii=False).encode()]
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
            else:
                raise CaptureError(f"line {number}: not JSON ({exc})") from exc
        found: list[tuple[str, str | None, float | None]] = []
        if isinstance(obj, dict) and OllamaLines.recognises(obj):
            chunk_text, created = ollama.chunk(obj)
            found = [(chunk_text, None, created)]
        elif isinstance(obj, dict) and (whole := whole_answer(obj)) is not None:
            wholes += 1
            found = [(event_data, name, None) for name, event_data in whole]
        elif isinstance(obj, dict) and (one := _event(obj, body)) is not None:
            found = [one]
        if not found:
            skipped += 1
            continue
        for chunk, name, when in found:
            when = when if when is not None else stamp
            t: float | None = None
            if when is not None:
                t0 = when if t0 is None else t0
                t = max(last, round(_finite(when - t0, number), 6))
                last = t
            if len(events) == MAX_EVENTS:
                raise too_many_events(MAX_EVENTS)
            events.append(RawEvent(data=chunk, event=name, t=t))
    if wholes:
        notes.append(
            f"{wholes} whole (non-streamed) answer(s), each read as the events its stream "
            "would have carried"
        )
    if ollama.lines:
        notes.append(
            f"{ollama.lines} line(s) of Ollama's native stream, each read as the Chat "
            "Completions chunk it stands for"
        )
    return _done(events, notes, skipped, torn=False)


def _done(events: list[RawEvent], notes: list[str], skipped: int, *, torn: bool) -> RawResponse:
    if skipped:
        notes.append(f"{skipped} line(s) held no chunk: skipped")
    if not events:
        raise EmptyCapture("no chunk in it (one decoded chunk or event object per line)")
    return RawResponse(kind="jsonl", events=tuple(events), torn=torn, notes=tuple(notes))
