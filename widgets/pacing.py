"""Pacing the one-line readouts (status bar, CST strip) while a stream moves their numbers.

At 1,000 tok/s the frontier, pending bytes and tokens/s change on every ~30 Hz flush,
and each repaint of a readout costs ~1 ms of fitting and rendering plus a screen update:
time the keys wait for (issue 23). Numbers a person reads need not move 30 times a
second, so a change of *only* those numbers is shown at most every ``TICK_SECONDS``
(the latest value, never a stale one: the widget paints it when the wait is over). Any
other change (the activity, a waiting label, an error, the width) is painted at once.
No Textual here: the widgets own the timer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from frontier.app.record import replace

TICK_SECONDS = 0.1
"""The shortest time between two repaints that only move numbers (10 Hz)."""


def moved_only(old: Any, new: Any, fields: tuple[str, ...]) -> bool:
    """``new`` differs from ``old`` (records of one type) only in ``fields``."""
    if old is None or type(old) is not type(new) or old == new:
        return False
    return bool(replace(new, **{name: getattr(old, name) for name in fields}) == old)


class Pacer:
    """When a readout may repaint: at once, unless only its moving numbers changed
    within ``interval`` of a paint that also only moved them. The first such change
    after any other paint is drawn at once: a single update is never delayed, only a
    stream of them is thinned."""

    def __init__(
        self,
        fields: tuple[str, ...],
        interval: float = TICK_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fields = fields
        self.interval = interval
        self.clock = clock
        self.moved_at = float("-inf")
        """When the last paint that only moved numbers was drawn."""

    def wait(self, old: Any, new: Any) -> float:
        """Seconds to wait before painting ``new`` over ``old`` (0: paint now)."""
        if not moved_only(old, new, self.fields):
            return 0.0
        return max(0.0, self.moved_at + self.interval - self.clock())

    def painted(self, old: Any, new: Any) -> None:
        """``new`` was drawn over ``old``."""
        moved = moved_only(old, new, self.fields)
        self.moved_at = self.clock() if moved else float("-inf")


__all__ = ["TICK_SECONDS", "Pacer", "moved_only"]
