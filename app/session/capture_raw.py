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
import zlib

from frontier.app.record import field, record

MAX_CAPTURE = 64 << 20
"""Bytes a capture file (or stdin) may have: refused beyond, naming the cap."""
MAX_HAR_BYTES = 128 << 20
"""The largest HAR read: a day of devtools traffic with bodies embedded fits (a HAR holds
every request of the page, images base64 among them, so it is allowed twice the cap of a
capture of one response); a bigger file is refused before it is parsed."""

_VERSION = rb"HTTP/(?:1\.[01]|2(?:\.0)?|3)"
HTTP_START = re.compile(
    rb"(?:" + _VERSION + rb" \d{3}(?: [^\r\n]*)?|[A-Z]{3,7} \S+ " + _VERSION + rb")\r?\n"
)
"""The first line of an HTTP message as text (a status line, a request line): a capture that
starts so is read by ``capture_http``. ``HTTP/2`` and ``HTTP/3`` too: ``curl -i`` prints
``HTTP/2 200`` and the headers as text for a server that speaks HTTP/2 (every hosted API
does), and the body after them is the stream as it arrived; HTTP/2's binary frames never
reach such a file."""

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
    empty: str = ""
    """Why the response holds no event, when it holds none and its reader knows (an empty
    body, an encoding not read, an API's error body): checking no events would say "ok"
    about nothing, so ``capture`` says this instead."""


class InflateError(ValueError):
    """A compressed body or file does not decode; the message says where it broke."""


INFLATE_PIECE = 1 << 16
"""The most compressed bytes given to ``zlib`` at a time. Each member starts with
:data:`INFLATE_FIRST` and doubles: what ``zlib`` copies of the input past a member's end
(``unused_data``) stays about the member's own size, so a file of many tiny members is read
in time linear in its size (handing it the whole rest at every member was quadratic, and a
fixed 64 KiB a member was 200 GB of copying for 64 MiB of empty members)."""
INFLATE_FIRST = 64


def inflate(data: bytes, wbits: int, most: int) -> tuple[bytes, bool]:
    """``data`` unpacked (``wbits`` as ``zlib`` takes it: gzip, zlib or either), at most
    ``most + 1`` bytes of it, so that the caller tells a result over ``most`` without
    unpacking the rest (a few KB of zeros unpack to gigabytes); and whether the data ended
    before the compressed stream did (a cut-off download: what came before it is returned,
    for the caller to refuse or keep). Every gzip member is unpacked: ``cat a.gz b.gz`` is
    one valid gzip file, which ``gzip -d`` reads whole, and reading only the first member
    cut the capture short without a word. Raises :class:`InflateError` for bytes that are
    not the format and for bytes after the last member other than zero padding."""
    out: list[bytes] = []
    left = most + 1
    at = 0
    view = memoryview(data)
    unpack = zlib.decompressobj(wbits)
    pending: bytes | memoryview = b""
    size = INFLATE_FIRST
    while left > 0:
        if unpack.eof:  # a member ended: another may follow (gzip), or only padding
            at -= len(unpack.unused_data)  # what was handed over past its end
            if wbits >= 16 and data.startswith(b"\x1f\x8b", at):  # 16 and up: gzip framing
                unpack, pending, size = zlib.decompressobj(wbits), b"", INFLATE_FIRST
                continue
            if view[at:].tobytes().strip(b"\0"):
                raise InflateError(f"{len(data) - at:,} bytes after the compressed data")
            break
        if not pending:
            if at >= len(data):
                return b"".join(out), True
            pending = view[at : at + size]
            at += len(pending)
            size = min(size * 2, INFLATE_PIECE)
        try:
            piece = unpack.decompress(pending, left)
        except zlib.error as exc:
            raise InflateError(str(exc)) from None
        pending = unpack.unconsumed_tail
        out.append(piece)
        left -= len(piece)
    return b"".join(out), False
