"""A raw SSE body as ``curl -N`` writes it, read into one :class:`RawResponse` (issue 25).

The bytes go through the one SSE reader (``app/wire/sse.SSEDecoder``), so a capture is
split into events exactly as the live provider would split the same body: LF, CRLF or
CR line ends, ``:`` comments and keep-alives skipped, ``data`` lines of one event
joined, the ``event:`` name kept. An event the body ends inside (no blank line after
it) is dropped — as every SSE reader drops it — and said: ``torn`` and a note.
"""

from __future__ import annotations

from frontier.app.session.capture_raw import RawEvent, RawResponse
from frontier.app.session.record import MAX_EVENTS
from frontier.app.wire.sse import SSEDecoder

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from frontier.app.wire.sse import SSEEvent

MAX_EVENT = 8 << 20
"""Bytes one line or one event's ``data`` of a capture may have (a chunk is a few
hundred bytes; a whole tool call's arguments in one event stay far below this)."""
PIECE = 1 << 20
"""Bytes fed to the decoder at a time, so the count is checked before much more is read."""


class CaptureError(ValueError):
    """A capture cannot be read; the message says what is wrong and what to do."""


class EmptyCapture(CaptureError):
    """The bytes are of a capture's shape but hold no event at all."""


def read_events(decoder: SSEDecoder, body: bytes, most: int) -> list[SSEEvent] | None:
    """The events ``decoder`` finds in ``body``, fed a :data:`PIECE` at a time; ``None`` as
    soon as there are more than ``most`` (the rest is never read)."""
    out: list[SSEEvent] = []
    for start in range(0, len(body), PIECE):
        out += decoder.feed_events(body[start : start + PIECE])
        if len(out) > most:
            return None
    return out


def too_many_events(most: int) -> CaptureError:
    """The error of a capture past ``most`` events (each reader says it the same way)."""
    return CaptureError(
        f"over {most:,} events, the cap for a capture; cut it to the part you want to check"
    )


def sse_response(data: bytes, max_event: int = MAX_EVENT) -> RawResponse:
    """The events of a raw SSE body, in order, without timing (``curl -N`` keeps none)."""
    decoder = SSEDecoder(max_line=max_event)
    pairs = read_events(decoder, data, MAX_EVENTS)
    if pairs is None:
        raise too_many_events(MAX_EVENTS)
    events = [RawEvent(data=d, event=None if name == "message" else name) for name, d in pairs]
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
    empty = "" if events else "its one event had no blank line after it (a torn end): dropped"
    return RawResponse(
        kind="sse", events=tuple(events), torn=bool(torn), notes=tuple(notes), empty=empty
    )
