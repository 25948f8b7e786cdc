"""Building an argument value from its confirmed pieces, without allocator churn.

A value is ``str`` when all its bytes are UTF-8, else ``bytes`` (DESIGN §3,
``decode_value``). Keeping the pieces in a list and decoding them at the
argument's end is the obvious way, and on 64 heredocs of ~1 MiB it made
assembling cost more than scanning (0.12 s of 0.18 s): the list holds every
input chunk until the end (1 MiB of fresh 64 KiB read blocks at the top of
the heap), the value's ``str`` is allocated above them, and when all are
freed glibc trims the heap and hands the memory back to the OS — so the next
value is page-faulted in afresh (~2 faults per 4 KiB of value).

So a value of up to ``SCRATCH_MAX`` bytes is copied, piece by piece as it
arrives, into a *scratch* ``bytearray`` (no input chunk is held past its
``feed``) and decoded straight from it through a ``memoryview``: the only
allocation per value is the ``str``. Scratch buffers are pooled by the
module (at most ``POOL`` of them, each at most ``SCRATCH_MAX``), so they stay
mapped and warm from value to value and from one response's transducer to
the next. A value that arrives in one piece is decoded from that piece, no
copy at all. A value that grows past ``SCRATCH_MAX`` (``max_arg`` can be set
higher) holds its later pieces instead — copying 16 MiB into fresh memory
costs more page faults than it saves — and is decoded in blocks of at least
``BLOCK`` bytes appended to one ``str`` that CPython grows in place (``s +=
t`` with no other reference), so even then the extra memory is one block.
Whatever the path, the value is exactly ``decode_value`` of the joined bytes.
"""

from __future__ import annotations

from codecs import utf_8_decode

from frontier.app.cst.base import decode_value

SCRATCH_MAX = 1 << 20
"""The largest value built in a scratch buffer (``CTL_MAX_ARG``, the default limit)."""
POOL = 2
"""Scratch buffers kept for reuse, process-wide (so at most ``POOL × SCRATCH_MAX`` retained)."""
BLOCK = 256 * 1024
"""Decoding block for values larger than ``SCRATCH_MAX`` (at least 1/64 of the value)."""

_pool: list[bytearray] = []


class ValueBuilder:
    """The value of the argument being read: ``add`` its pieces, then ``take`` it."""

    __slots__ = ("_buf", "_first", "_held", "size")

    def __init__(self) -> None:
        self.size = 0
        """Bytes added since the last ``take``."""
        self._first: bytes | None = None
        """The only piece so far (not copied until a second one arrives)."""
        self._buf: bytearray | None = None
        """The scratch buffer holding the value so far, once it has two pieces."""
        self._held: list[bytes | memoryview] | None = None
        """Past ``SCRATCH_MAX``: the value's pieces (the scratch part first, as a view)."""

    def add(self, piece: bytes) -> None:
        if not piece:
            return
        size = self.size
        if self._held is not None:
            self._held.append(piece)
        elif not size:
            self._first = piece
        elif size + len(piece) > SCRATCH_MAX:
            if self._first is not None:
                self._held = [self._first, piece]
                self._first = None
            else:
                assert self._buf is not None
                self._held = [memoryview(self._buf)[:size], piece]
        else:
            if self._buf is None:
                self._buf = _pool.pop() if _pool else bytearray()
            if self._first is not None:
                self._put(0, self._first)
                self._first = None
            self._put(size, piece)
        self.size = size + len(piece)

    def _put(self, at: int, piece: bytes) -> None:
        buf = self._buf
        assert buf is not None
        end = at + len(piece)
        if end <= len(buf):
            buf[at:end] = piece  # same length: an in-place copy, no resize
        else:
            buf[at:] = piece  # grows it (only while smaller than the largest value yet)

    def take(self) -> str | bytes:
        """The value (``str`` if all UTF-8, else ``bytes``); the builder is empty again."""
        size, first, buf, held = self.size, self._first, self._buf, self._held
        self.size, self._first, self._buf, self._held = 0, None, None, None
        if first is not None:
            return decode_value(first)
        if held is not None:
            value = _decode_pieces(held, size)
            if isinstance(held[0], memoryview):
                held[0].release()
        elif buf is not None:
            with memoryview(buf) as whole, whole[:size] as view:
                try:
                    value = str(view, "utf-8")
                except UnicodeDecodeError:
                    value = bytes(view)
        else:
            return ""
        if buf is not None and len(_pool) < POOL and len(buf) <= SCRATCH_MAX:
            _pool.append(buf)
        return value


def _decode_pieces(parts: list[bytes | memoryview], size: int) -> str | bytes:
    """A large value held as pieces, decoded in blocks appended to one growing ``str``."""
    block = max(BLOCK, size // 64)
    text = ""
    tail = b""  # the bytes of a character split between two blocks
    group: list[bytes | memoryview] = []
    grouped = 0
    last = len(parts) - 1
    try:
        for i, part in enumerate(parts):
            group.append(part)
            grouped += len(part)
            if grouped >= block or i == last:
                data = b"".join([tail, *group]) if tail else b"".join(group)
                piece, used = utf_8_decode(data, "strict", i == last)
                tail = data[used:]
                del data
                text += piece  # `text` is the only reference: CPython grows it in place
                del piece
                group = []
                grouped = 0
    except UnicodeDecodeError:
        return b"".join(parts)
    return text


def assemble_value(parts: list[bytes], size: int) -> str | bytes:
    """The value made of ``parts`` (``size`` bytes in all), as ``ValueBuilder`` builds it."""
    builder = ValueBuilder()
    for part in parts:
        builder.add(part)
    assert builder.size == size
    return builder.take()
