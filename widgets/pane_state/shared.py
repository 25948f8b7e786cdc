"""What every pane model shares: the clock, the session's secrets and the dirty set.

One :class:`PaneContext` is made by ``UiState`` and handed to each pane model at
construction, so a model marks its own panes and scrubs its own text without reaching
into ``UiState``. ``scrubber`` is set again when a session starts (``live.py``); every
model reads it through here, so one assignment reaches them all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from frontier.app.frontends.terminal_text import pictured

if TYPE_CHECKING:
    from frontier.app.secrets import Scrubber

Scrub = Callable[[str], str]

SHAPE_MARGIN = 64
"""Characters before a new piece re-scrubbed with it (beyond the longest secret), so a
credential *shape* such as ``Bearer <token>`` split over two pieces is still seen."""

PANES = ("transcript", "raw", "confirmed", "pending", "tools", "errors", "status")
STREAM_PANES = frozenset({"raw", "pending", "status"})


def scrub_append(text: str, piece: str, scrub: Scrub | None, window: int) -> str:
    """``text + piece`` scrubbed, re-scanning only the last ``window`` characters of the
    already scrubbed ``text`` (where a secret completed by ``piece`` may begin)."""
    if scrub is None:
        return text + piece
    cut = max(0, len(text) - window)
    return text[:cut] + scrub(text[cut:] + piece)


class PaneContext:
    """The clock, the secrets and the one dirty set the pane models share."""

    def __init__(self, clock: Callable[[], float], scrubber: Scrubber | None) -> None:
        self.clock = clock
        self.scrubber = scrubber
        """The session's secrets: masked out of bytes, scrubbed out of text (or ``None``)."""
        self.dirty: set[str] = set(PANES)
        """Panes to repaint: one set object for the session (models hold it directly;
        ``UiState.take_dirty`` empties it in place)."""

    def mark(self, *panes: str) -> None:
        self.dirty.update(panes)

    def scrub(self, text: str) -> str:
        """``text`` without the known secrets and credential shapes, and with every
        character a terminal would act on (ESC, CR, bidi overrides) shown as a picture
        instead (``terminal_text.pictured``): the model's prose reaches a pane as text,
        never as a command to the terminal (for any pane)."""
        if not text:
            return text
        scrubber = self.scrubber
        return pictured(scrubber.scrub(text) if scrubber else text)

    def scrub_window(self) -> int:
        """Characters of scrubbed text re-scanned when a piece is appended to it."""
        scrubber = self.scrubber
        return scrubber.longest_bytes + SHAPE_MARGIN if scrubber else 0

    def mask_tail(self, tail: bytes, data: bytes, keep: int) -> bytes:
        """``tail + data`` masked, the last ``keep`` bytes plus the longest secret kept
        (so a secret whose end is still to come is masked when it arrives)."""
        scrubber = self.scrubber
        if not scrubber:
            return (tail + data)[-keep:]
        joined = bytearray(tail + data)
        scrubber.mask_buffer(joined, max(0, len(tail) - scrubber.longest_bytes + 1))
        return bytes(joined[-(keep + scrubber.longest_bytes) :])
