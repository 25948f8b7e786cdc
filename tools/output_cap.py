"""The tool-output cap (DESIGN §3): keep the first 60 % and the last 40 %.

A model reads a failing test's first error *and* its final summary, so the cap
keeps both ends and says exactly how much was cut. ``cap_output`` works on a
finished string; ``CappedBuffer`` does the same incrementally so a process that
prints gigabytes never holds more than the cap in memory. Both count UTF-8
bytes, and the capped text (marker included) never exceeds ``cap`` bytes.
"""

from __future__ import annotations

import codecs

TOOL_OUT_CAP = 32 * 1024
HEAD_SHARE = 0.6
_MAX_OMITTED = 10**15
"""Sizes the marker for the budget so head + marker + tail never exceeds the cap."""


def marker_line(omitted: int) -> str:
    """The line that replaces the cut middle; it names the byte count removed."""
    return f"\n[... {omitted} bytes of output omitted (kept first 60% and last 40%) ...]\n"


def _budgets(cap: int, omitted_hint: int) -> tuple[int, int]:
    room = max(0, cap - len(marker_line(omitted_hint).encode()))
    head = int(room * HEAD_SHARE)
    return head, room - head


def _head_text(data: bytes) -> str:
    """Decode a prefix, dropping a multi-byte character cut at its end."""
    end = len(data)
    i = end - 1
    while i >= 0 and end - i <= 3 and (data[i] & 0xC0) == 0x80:
        i -= 1
    if i >= 0 and data[i] >= 0xC0:
        need = 2 if data[i] < 0xE0 else 3 if data[i] < 0xF0 else 4
        if end - i < need:
            end = i
    return data[:end].decode("utf-8", errors="replace")


def _tail_text(data: bytes) -> str:
    """Decode a suffix, skipping continuation bytes of a character cut at its start."""
    start = 0
    while start < len(data) and start < 3 and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8", errors="replace")


def cap_output(text: str, cap: int = TOOL_OUT_CAP) -> str:
    """``text`` unchanged if it fits in ``cap`` UTF-8 bytes, else head + marker + tail."""
    data = text.encode("utf-8", errors="surrogateescape")
    if len(data) <= cap:
        return text
    head_n, tail_n = _budgets(cap, _MAX_OMITTED)
    omitted = len(data) - head_n - tail_n
    head = _head_text(data[:head_n])
    tail = _tail_text(data[len(data) - tail_n :]) if tail_n else ""
    return head + marker_line(omitted) + tail


class CappedBuffer:
    """Accumulates a stream of bytes keeping only what ``cap_output`` would keep.

    Memory is bounded by ``cap`` whatever the stream length; ``text()`` gives
    the capped string; ``total`` counts every byte seen.
    """

    def __init__(self, cap: int = TOOL_OUT_CAP) -> None:
        self.cap = cap
        self.total = 0
        self._head = bytearray()
        self._tail = bytearray()
        self._head_limit, self._tail_limit = _budgets(cap, _MAX_OMITTED)

    def append(self, data: bytes) -> None:
        self.total += len(data)
        if len(self._head) < self.cap:
            take = self.cap - len(self._head)
            self._head += data[:take]
            data = data[take:]
        if data:
            self._tail += data
            if len(self._tail) > self.cap:
                del self._tail[: len(self._tail) - self.cap]

    def text(self) -> str:
        if self.total <= self.cap:
            return bytes(self._head).decode("utf-8", errors="replace")
        whole = bytes(self._head) + bytes(self._tail)
        head_n, tail_n = self._head_limit, self._tail_limit
        omitted = self.total - head_n - tail_n
        head = _head_text(whole[:head_n])
        tail = _tail_text(whole[len(whole) - tail_n :]) if tail_n else ""
        return head + marker_line(omitted) + tail


class IncrementalText:
    """UTF-8 decoding of a byte stream in arbitrary chunks (split characters are held)."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes, final: bool = False) -> str:
        return self._decoder.decode(data, final)
