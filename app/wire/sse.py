"""The one Server-Sent Events reader: body bytes in any chunking -> events (and the writer).

It follows the WHATWG event-stream rules that matter for chat-completion
streams: lines end in LF, CRLF or CR (a CR at the end of one chunk and the LF
at the start of the next are one line end); lines starting with ``:`` are
comments; ``data`` lines of one event are joined with ``\\n``; ``event`` names
the event (``message`` when absent); an event is dispatched at the blank line
that ends it, and one without that blank line at the end of the body is
dropped; a leading UTF-8 BOM is dropped. Lines are decoded only once complete,
so a multi-byte character split across chunks is never mangled; invalid UTF-8
becomes U+FFFD, never an exception.

Every reader of SSE uses it: the provider on the network (``feed_events``: it
needs the ``event`` name, ``event: error``), feeding it the bytes its own
deadline-aware body reader returns; the native transducers over a recorded or
piped body (``feed``: only ``data`` matters to them); ``transduce`` and
``check`` through those. ``encode_sse`` is the one writer (recordings rebuilt
as a body, the demo model, tests).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_LINE = 64 << 20
"""Bytes one line, or the ``data`` of one event, may have: a server's (or a model's) stream
could otherwise grow the decoder's buffer without bound."""

_BOM = b"\xef\xbb\xbf"
WINDOW = 64 << 10
"""Bytes of a chunk split into lines at a time: a chunk fed whole (a recorded body, a
capture) never becomes a list of more lines than this (64 MiB of bare newlines was a list
of 64 million)."""
DENSE = 16
"""Bytes a line has, on average, below which a window's runs of line ends are collapsed
before its lines are read (:data:`_BLANK_RUN`): a real stream's lines are 50-300 bytes, so
only a body of blank lines (keep-alive newlines, a hostile one) pays for the search."""
_BLANK_RUN = re.compile(rb"[\r\n]{3,}")
"""Three or more line-end bytes in a row, which are two line ends or more (CRLF is the only
two-byte one): the first ends the line before them, the second is a blank line (it
dispatches the event, if any, and forgets its name), and every one after that finds nothing
to dispatch and nothing to forget, so the run reads as ``\\n\\n``."""

SSEEvent = tuple[str, str]
"""``(event name, data)`` of one dispatched event."""


class SSEDecoder:
    """Feed body bytes; get each complete event (``feed_events``) or just its ``data``
    (``feed``).

    Linear in the input whatever the chunking: an unfinished line is kept as a
    list of pieces (joined once, when its end arrives) and only the new chunk
    is searched for line ends, :data:`WINDOW` bytes of it at a time (a chunk fed
    whole is never a list of millions of lines); a run of blank lines costs one
    (:data:`_BLANK_RUN`: 64 MiB of bare newlines took 12 s). A line or event over
    ``max_line`` bytes ends decoding: ``too_long`` is set and nothing more is
    returned.
    """

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._pieces: list[bytes] = []
        """The current unfinished line, in pieces."""
        self._size = 0
        self._data: list[str] = []
        self._data_size = 0
        self._event = ""
        self._named = False
        """What the call being served returns: ``(event, data)`` pairs, or ``data`` alone."""
        self._skip_lf = False
        self._started = False
        self._head = b""
        self.comments = 0
        """Comment lines seen (keep-alives such as ``: ping``)."""
        self.too_long = False
        """A line or an event passed ``max_line`` bytes: decoding stopped there."""

    def feed(self, chunk: bytes) -> list[str]:
        """The ``data`` of each event this chunk completes (the transducers' hot path:
        no pair is built per event)."""
        self._named = False
        return self._feed(chunk)

    def feed_events(self, chunk: bytes) -> list[SSEEvent]:
        """``(event, data)`` for each event this chunk completes."""
        self._named = True
        return self._feed(chunk)

    def _feed(self, chunk: bytes) -> list[Any]:
        if len(chunk) <= WINDOW:
            return self._feed_window(chunk)
        out: list[Any] = []
        for start in range(0, len(chunk), WINDOW):  # the reader reads any chunking alike
            out += self._feed_window(chunk[start : start + WINDOW])
            if self.too_long:
                break
        return out

    def _feed_window(self, chunk: bytes) -> list[Any]:
        if not chunk or self.too_long:
            return []
        if self._started and not self._skip_lf and b"\n" not in chunk and b"\r" not in chunk:
            # No line end: only the unfinished line grows (``check`` feeds every byte
            # alone; a long line arrives in many such chunks): nothing to split.
            self._pieces.append(chunk)
            self._size += len(chunk)
            if self._size > self.max_line:
                self._overflow()
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
                if not chunk:
                    return []
        if not self._started:
            head = self._head + chunk
            if len(head) < 3 and _BOM.startswith(head):
                self._head = head
                return []
            self._started = True
            self._head = b""
            chunk = head[3:] if head.startswith(_BOM) else head
        lines = chunk.splitlines(keepends=True)
        if len(lines) > 2 and len(lines) * DENSE > len(chunk):
            # Mostly line ends: each run of blank lines reads as one (``_BLANK_RUN``).
            # A run ending in a CR that may be CRLF's first half leaves no LF to skip:
            # after it, that LF would be one more blank line, which finds nothing either.
            lines = _BLANK_RUN.sub(b"\n\n", chunk).splitlines(keepends=True)
        out: list[Any] = []
        if not lines:
            return out
        tail = lines[-1]
        open_tail = not tail.endswith((b"\n", b"\r"))
        if open_tail:
            lines.pop()
        for raw in lines:
            line = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
            if self._pieces:
                self._pieces.append(line)
                size = self._size + len(line)
                line = b"".join(self._pieces) if size <= self.max_line else b""
                self._pieces, self._size = [], 0
            else:
                size = len(line)
            if size > self.max_line:
                self._overflow()
                return out
            self._line(line, out)
            if self.too_long:
                return out
        if open_tail:
            self._pieces.append(tail)
            self._size += len(tail)
            if self._size > self.max_line:
                self._overflow()
        elif lines[-1].endswith(b"\r"):
            # A CR ending this chunk may be the first half of CRLF.
            self._skip_lf = True
        return out

    def inert(self, data: bytes, start: int) -> int:
        """How many bytes of ``data`` from ``start`` on would only lengthen the unfinished
        line: none is a line end and the line stays within ``max_line``, so fed one by one
        or at once they return nothing and change nothing else (the no-line-end path of
        ``_feed``). ``check`` feeds such a run at once where it would feed every byte
        alone: every prefix inside it leaves the reader where the run's start did."""
        if not self._started or self._skip_lf or self.too_long:
            return 0
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        cr = data.find(b"\r", start, end)
        end = end if cr < 0 else cr
        return max(0, min(end - start, self.max_line - self._size))

    def finish(self) -> list[str]:
        """End of body: an event without its terminating blank line is dropped (per spec)."""
        self._pieces, self._size = [], 0
        self._data, self._data_size, self._event = [], 0, ""
        return []

    def _overflow(self) -> None:
        self.too_long = True
        self._pieces, self._size = [], 0
        self._data, self._data_size, self._event = [], 0, ""

    def _line(self, line: bytes, out: list[Any]) -> None:
        if not line:
            if self._data:
                data = "\n".join(self._data)
                out.append((self._event or "message", data) if self._named else data)
                self._data, self._data_size = [], 0
            self._event = ""
            return
        if line[:1] == b":":
            self.comments += 1
            return
        name, sep, value = line.partition(b":")
        if sep and value[:1] == b" ":
            value = value[1:]
        if name == b"data":
            self._data_size += len(value) + 1
            if self._data_size > self.max_line:
                self._overflow()
                return
            self._data.append(value.decode("utf-8", "replace"))
        elif name == b"event":
            self._event = value.decode("utf-8", "replace")
        # ``id`` and ``retry`` do not matter for chat-completion streams; any other line
        # is ignored, as the spec says.


def encode_sse(data_items: list[str]) -> bytes:
    """An SSE body carrying each string as one event (``data:`` line per text line)."""
    parts: list[bytes] = []
    for item in data_items:
        for line in item.split("\n"):
            parts.append(b"data: " + line.encode("utf-8") + b"\n")
        parts.append(b"\n")
    return b"".join(parts)
