"""A raw SSE body as ``curl -N`` writes it, read into one :class:`RawResponse` (issue 25).

The bytes go through the one SSE reader (``app/wire/sse.SSEDecoder``), so a capture is
split into events exactly as the live provider would split the same body: LF, CRLF or
CR line ends, ``:`` comments and keep-alives skipped, ``data`` lines of one event
joined, the ``event:`` name kept. An event the body ends inside (no blank line after
it) is dropped — as every SSE reader drops it — and said: ``torn`` and a note.
"""

from __future__ import annotations

from frontier.app.session.capture_raw import RawEvent, RawResponse
from frontier.app.wire.sse import SSEDecoder

MAX_EVENT = 8 << 20
"""Bytes one line or one event's ``data`` of a capture may have (a chunk is a few
hundred bytes; a whole tool call's arguments in one event stay far below this)."""


class CaptureError(ValueError):
    """A capture cannot be read; the message says what is wrong and what to do."""


class EmptyCapture(CaptureError):
    """The bytes are of a capture's shape but hold no event at all."""


def sse_response(data: bytes, max_event: int = MAX_EVENT) -> RawResponse:
    """The events of a raw SSE body, in order, without timing (``curl -N`` keeps none)."""
    decoder = SSEDecoder(max_line=max_event)
    events = [
        RawEvent(data=d, event=None if name == "message" else name)
        for name, d in decoder.feed_events(data)
    ]
    if decoder.too_long:
        raise CaptureError(
            f"an SSE line or event is over {max_event:,} bytes, the cap for one event of a capture"
        )
    # Whatever one more blank line would dispatch is the event the body ended inside.
    torn = decoder.feed_events(b"\n\n")
    notes: list[str] = []
    if decoder.comments:
        notes.append(f"{decoder.comments} comment or keep-alive line(s) skipped")
    if torn:
        name = torn[0][0] if torn[0][0] != "message" else "the last event"
        notes.append(
            f"{name} had no blank line after it (a torn end): dropped, as an SSE reader does"
        )
    if not events and not torn:
        raise EmptyCapture("no SSE event in it (a raw SSE body has `data:` lines)")
    return RawResponse(kind="sse", events=tuple(events), torn=bool(torn), notes=tuple(notes))
