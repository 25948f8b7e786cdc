"""A read-only picture of a transducer's frame: what it has parsed so far.

The framing-error inspector (``app/cst/explain.py``) asks a transducer for a
:class:`FrameSnapshot` just before the byte that caused a contract error: which call
it was in, the arguments it had, the length it was counting down, the TAG it was
waiting for, the XML element it was in, the JSON it was holding. Taking one costs
no more than the state it describes (previews are cut to ``PREVIEW`` bytes) and
changes nothing, so a transducer can be snapshotted between any two ``feed`` calls.
"""

from __future__ import annotations

from frontier.app.record import record

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Protocol, TypeGuard

PREVIEW = 48
"""Bytes of a value kept in a snapshot (its head; the size says how much there is)."""


@record
class ArgState:
    """One argument of the frame: complete, or the one being read."""

    key: str
    form: str
    """``inline``, ``length``, ``heredoc`` (CTL), ``json`` (native), ``xml``."""
    size: int
    """Bytes of the value that had arrived."""
    head: bytes = b""
    """Its first ``PREVIEW`` bytes, where the transducer still holds them."""
    declared: int | None = None
    """Length-prefixed: the byte count the header declared."""
    complete: bool = True
    """False for the argument the transducer was still reading."""


@record
class FrameSnapshot:
    """Where a transducer stood: its state in words and the frame it was parsing."""

    state: str
    """In words: ``between frames``, ``in a length-prefixed body``, ``in a heredoc body``…"""
    frontier: int
    consumed: int
    pending: int = 0
    """Bytes received and not yet confirmed."""
    call_id: str | None = None
    tool: str | None = None
    args: tuple[ArgState, ...] = ()
    """The frame's arguments in order; the last one may be open (``complete=False``)."""
    tag: str | None = None
    """Heredoc: the TAG line the body waits for."""
    element: str | None = None
    """XML: the innermost open element, outermost first (``invoke name="read" > …``)."""
    json: str | None = None
    """Native / JSON: the state of the JSON text held (depth, inside a string…)."""
    line: bytes = b""
    """The undecided line (CTL) or tail the transducer holds, cut to ``PREVIEW`` bytes."""
    held: tuple[tuple[int, bytes], ...] = ()
    """Native: the argument pieces not yet confirmed, ``(offset, bytes)`` — the only
    place bytes of an open call exist (offsets count content + argument bytes)."""

    @property
    def open_arg(self) -> ArgState | None:
        """The argument being read, if any."""
        return self.args[-1] if self.args and not self.args[-1].complete else None


if TYPE_CHECKING:  # a type only: typing.Protocol is not imported at run time

    class Snapshotting(Protocol):
        """A transducer that can describe its frame (CTL, XML, native)."""

        def snapshot(self) -> FrameSnapshot: ...


def can_snapshot(t: object) -> TypeGuard[Snapshotting]:
    """``t`` can describe its frame: the check ``isinstance`` made when ``Snapshotting``
    was a run-time-checkable ``Protocol`` (a ``snapshot`` attribute that is not ``None``)."""
    return getattr(t, "snapshot", None) is not None


def head(data: bytes | bytearray | str) -> bytes:
    """The first ``PREVIEW`` bytes of a value (``str`` values as UTF-8)."""
    if isinstance(data, str):
        return data[:PREVIEW].encode("utf-8")[:PREVIEW]
    return bytes(data[:PREVIEW])
