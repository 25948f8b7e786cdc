"""One model response as a capture holds it, before Frontier reads it (issue 25).

Every capture reader (a ``curl -N`` SSE body, a HAR file, a JSON-lines chunk log)
produces :class:`RawResponse` values; one place (``capture.py``) detects the wire and
the protocol and turns each into a ``Recording``, so ``check``, ``replay``, the
inspector and ``eval`` read a capture exactly as they read Frontier's own recordings.

A capture is untrusted input: readers bound sizes and depth and never keep a request
or response header — only the request *body* (which tools and which protocol were
offered) and the response's SSE events.
"""

from __future__ import annotations

import re

from frontier.app.record import field, record

MAX_CAPTURE = 64 << 20
"""Bytes a capture file (or stdin) may have: refused beyond, naming the cap."""
MAX_HAR_BYTES = 128 << 20
"""The largest HAR read: a day of devtools traffic with bodies embedded fits (a HAR holds
every request of the page, images base64 among them, so it is allowed twice the cap of a
capture of one response); a bigger file is refused before it is parsed."""

HTTP_START = re.compile(rb"(?:HTTP/1\.[01] \d{3}(?: [^\r\n]*)?|[A-Z]{3,7} \S+ HTTP/1\.[01])\r?\n")
"""The first line of an HTTP/1.x message (a status line, a request line): a capture that
starts so is read by ``capture_http``."""

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

    CaptureKind = Literal["sse", "http", "har", "jsonl", "recording", "session"]


@record
class RawEvent:
    """One SSE event of the response: its ``event:`` name (``None`` when the line had
    none, as Chat Completions sends), its ``data`` string verbatim, and when it arrived
    (seconds since the request, ``None`` when the capture has no timing)."""

    data: str
    event: str | None = None
    t: float | None = None


@record
class RawResponse:
    """One streamed response found in a capture."""

    kind: CaptureKind
    events: tuple[RawEvent, ...]
    entry: int | None = None
    """Which entry of a file holding several (a HAR's ``#N``, 1-based), else ``None``."""
    endpoint: str | None = None
    """The request's URL path (``/v1/chat/completions``, ``/v1/responses``,
    ``/v1/messages``) when the capture says; never the host, query or headers."""
    request: dict[str, Any] | None = None
    """What was read of the request body when the capture has it: its ``model``, ``stream``
    and ``tools`` (``capture_har.KEPT_REQUEST_KEYS``; the conversation is not kept)."""
    model: str = ""
    torn: bool = False
    """The capture ended inside an event (a torn last line): that event is dropped."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """What the reader skipped or bounded, in words for the person (never a header)."""
