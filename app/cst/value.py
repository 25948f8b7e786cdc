"""Turning the confirmed pieces of an argument into its value, with one big allocation.

A value is ``str`` when all its bytes are UTF-8, else ``bytes`` (DESIGN §3,
``decode_value``). ``b"".join(parts).decode()`` is the obvious way, but it
allocates the value twice (the joined bytes, then the ``str``). On a large
value that transient 2x makes the allocator hand memory back to the OS and
fault it in again for the next one, and page faults (4,000+ per 16 MiB,
several µs each on a VM) then cost more than the whole scan. So a large value
is decoded in blocks of ``BLOCK`` bytes that are appended to one ``str``
CPython grows in place (``s += t`` with no other reference to ``s``): the
extra memory is one block, reused from block to block. Blocks are at least
1/64 of the value, so even if every append had to move the string the
copying would stay linear in the value's size (at most ~64 appends).
"""

from __future__ import annotations

from codecs import utf_8_decode

from frontier.app.cst.base import decode_value

BLOCK = 256 * 1024
"""Block size for large values; values up to this size are joined and decoded at once."""


def assemble_value(parts: list[bytes], size: int) -> str | bytes:
    """The value made of ``parts`` (``size`` bytes in all): ``str`` if UTF-8, else ``bytes``."""
    if len(parts) == 1:
        return decode_value(parts[0])
    if size <= BLOCK:
        return decode_value(b"".join(parts))
    block = max(BLOCK, size // 64)
    text = ""
    tail = b""  # the bytes of a character split between two blocks
    group: list[bytes] = []
    grouped = 0
    last = len(parts) - 1
    try:
        for i, part in enumerate(parts):
            group.append(part)
            grouped += len(part)
            if grouped >= block or i == last:
                data = tail + b"".join(group) if tail else b"".join(group)
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
