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


FORCED_SETTLE = 4096
"""Raw characters of a line kept when no line end can be let go: past it, the oldest are
let go anyway, so each piece costs at most this much scrubbing again (only a
credential-shaped token longer than this can show its later part)."""


class LiveScrub:
    """The raw end of a text shown scrubbed as it grows in pieces (reasoning, a tool's
    open output line): its last characters are scrubbed again with each piece.

    They are kept *raw*. Re-scrubbing the end of the scrubbed text instead lost what a
    redaction had hidden: ``key=sk-test-0`` became ``key=[REDACTED]``, and the rest of
    the key, arriving in the next piece, matched nothing and was shown. The raw text is
    let go (settled) through a line end at least ``window`` characters back (a known
    secret is shorter, and a shape's name and token never cross a line), and only when
    no redaction reaches past that line end; a line longer than ``FORCED_SETTLE`` keeps
    its last ``FORCED_SETTLE`` characters."""

    __slots__ = ("raw", "shown")

    def __init__(self) -> None:
        self.raw = ""
        """The raw text whose scrub ends the caller's text."""
        self.shown = 0
        """Characters at the end of the caller's text that ``scrub(raw)`` made."""

    def reset(self) -> None:
        """The caller replaced its text (scrubbed whole): nothing is open any more."""
        self.raw, self.shown = "", 0

    def append(self, text: str, piece: str, scrub: Scrub | None, window: int) -> str:
        """``text`` (made by this object's earlier calls) with ``piece`` added, scrubbed;
        linear: each call scrubs ``piece`` and at most ``window + FORCED_SETTLE`` more."""
        if scrub is None:
            return text + piece
        raw = self.raw + piece
        out = scrub(raw)
        settled = text[: max(0, len(text) - self.shown)]
        long = len(raw) > window + FORCED_SETTLE
        cut = raw.rfind("\n", 0, max(0, len(raw) - window)) + 1
        if cut == 0 and long:
            cut = len(raw) - FORCED_SETTLE
        if cut > 0:
            right = scrub(raw[cut:])
            if out.endswith(right):  # no redaction reaches back past the cut
                settled += out[: len(out) - len(right)]
                out, raw = right, raw[cut:]
            elif long:  # a match across every cut tried: let the oldest go all the same
                cut = len(raw) - FORCED_SETTLE
                settled += scrub(raw[:cut])
                raw = raw[cut:]
                out = scrub(raw)
        self.raw, self.shown = raw, len(out)
        return settled + out


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
        if scrubber is None:  # not `if scrubber`: one that knows no value still knows the
            from frontier.app.secrets import Scrubber  # shapes (a local model, no key)

            scrubber = self.scrubber = Scrubber()
        return pictured(scrubber.scrub(text))

    def scrub_window(self) -> int:
        """Characters of scrubbed text re-scanned when a piece is appended to it."""
        scrubber = self.scrubber
        if scrubber is None:
            from frontier.app.secret_shapes import KEY_LONGEST

            return KEY_LONGEST + SHAPE_MARGIN
        return scrubber.mask_reach + SHAPE_MARGIN  # a vendor's key split over pieces too

    def mask_tail(self, tail: bytes, data: bytes, keep: int) -> bytes:
        """``tail + data`` masked, the last ``keep`` bytes plus the longest secret kept
        (so a secret whose end is still to come is masked when it arrives)."""
        scrubber = self.scrubber
        if scrubber is None:
            return (tail + data)[-keep:]
        joined = bytearray(tail + data)
        scrubber.mask_buffer(joined, max(0, len(tail) - scrubber.mask_reach))
        return bytes(joined[-(keep + scrubber.mask_reach) :])
