"""An incremental Server-Sent Events decoder: body bytes in any chunking -> ``data`` strings.

It follows the WHATWG event-stream rules that matter for chat-completion
streams: lines end in LF, CRLF or CR (a CR at the end of one chunk and the LF
at the start of the next are one line end); lines starting with ``:`` are
comments; ``data`` lines of one event are joined with ``\\n``; an event is
dispatched at the blank line that ends it; a leading UTF-8 BOM is dropped.
Lines are decoded only once complete, so a multi-byte character split across
chunks is never mangled. The provider uses httpx-sse on the network; this
decoder serves recordings, ``transduce`` and ``check``, which start from bytes.
"""

from __future__ import annotations


class SSEDecoder:
    """Feed body bytes; get the ``data`` field of each complete event."""

    def __init__(self) -> None:
        self._buf = b""
        self._data: list[str] = []
        self._skip_lf = False
        self._started = False
        self.comments = 0
        """Comment lines seen (keep-alives such as ``: ping``)."""

    def feed(self, chunk: bytes) -> list[str]:
        if not chunk:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        buf = self._buf + chunk if self._buf else chunk
        if not self._started:
            if len(buf) < 3 and b"\xef\xbb\xbf".startswith(buf):
                self._buf = buf
                return []
            self._started = True
            if buf.startswith(b"\xef\xbb\xbf"):
                buf = buf[3:]
        lines = buf.splitlines(keepends=True)
        out: list[str] = []
        rest = b""
        if lines and not lines[-1].endswith((b"\n", b"\r")):
            rest = lines.pop()
        for raw in lines:
            self._line(raw[:-2] if raw.endswith(b"\r\n") else raw[:-1], out)
        if lines and lines[-1].endswith(b"\r") and not rest:
            # A CR ending this chunk may be the first half of CRLF.
            self._skip_lf = True
        self._buf = rest
        return out

    def finish(self) -> list[str]:
        """End of body: an event without its terminating blank line is dropped (per spec)."""
        self._buf = b""
        self._data = []
        return []

    def _line(self, line: bytes, out: list[str]) -> None:
        if not line:
            if self._data:
                out.append("\n".join(self._data))
                self._data = []
            return
        if line[:1] == b":":
            self.comments += 1
            return
        name, sep, value = line.partition(b":")
        if sep and value[:1] == b" ":
            value = value[1:]
        if name == b"data":
            self._data.append(value.decode("utf-8", "replace"))
        # ``event``, ``id`` and ``retry`` do not matter for chat-completion streams.


def encode_sse(data_items: list[str]) -> bytes:
    """An SSE body carrying each string as one event (``data:`` line per text line)."""
    parts: list[bytes] = []
    for item in data_items:
        for line in item.split("\n"):
            parts.append(b"data: " + line.encode("utf-8") + b"\n")
        parts.append(b"\n")
    return b"".join(parts)
