"""How long the current response has been silent, known from the events alone.

A silent server is shown, not just waited for: the TUI's status bar and the
headless text log both follow a response with one :class:`ResponseWait` fed the
core's events, so both say the same thing (``waiting for the first byte · 23 s``,
``stalled · 12 s``). It lives in the core because it needs nothing but events and
a clock, and two front ends share it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from frontier.app.events import (
    Event,
    PromptRead,
    ResponseEnded,
    ResponseStarted,
    Retry,
    TurnEnded,
)
from frontier.app.record import record

STALL_AFTER = 5.0
"""Seconds without a stream byte before a streaming response shows as stalled: a model
streams many events a second, so a 5 s gap is worth showing long before
``idle_timeout`` (30 s by default) ends it."""
STREAM_EVENTS = frozenset(
    {"bytes", "reasoning", "confirmed", "call_started", "arg_started", "arg_bytes", "call"}
    | {"error", "stop", "text"}
)
"""Event types only a stream byte can cause (by ``type``, so every present and future
event of the stream counts): any of them ends a wait."""

WaitPhase = Literal["", "first_byte", "retry", "streaming"]


@record(frozen=False)
class ResponseWait:
    """How long the current response has been silent, known from the events alone.

    From ``response_started`` to its first stream event the request waits for its first
    byte; a ``retry`` pauses that for its delay, then the next attempt waits again from
    zero (as ``first_byte_timeout`` counts); once bytes flow, a gap of ``STALL_AFTER``
    seconds is a stall. ``response_ended`` and ``turn_ended`` end the watch.
    """

    phase: WaitPhase = ""
    since: float = 0.0
    """When the current wait began (for ``retry``: when the next attempt starts)."""
    attempt: int = 1
    read: tuple[int, int] | None = None
    """``(done, total)`` tokens of the prompt the server has read, while it says
    (``PromptRead``: llama.cpp, before the first token)."""

    def apply(self, event: Event, clock: Callable[[], float]) -> None:
        if event.type in STREAM_EVENTS:
            if self.phase:
                self.phase, self.since = "streaming", clock()
        elif isinstance(event, PromptRead):
            if self.phase == "first_byte":
                self.read = (event.done, event.total)
        elif isinstance(event, ResponseStarted):
            self.phase, self.since, self.attempt = "first_byte", clock(), 1
            self.read = None
        elif isinstance(event, Retry):
            if self.phase in ("first_byte", "retry"):
                self.phase, self.since = "retry", clock() + event.delay
                self.attempt = event.attempt + 1
                self.read = None
        elif isinstance(event, ResponseEnded | TurnEnded):
            self.phase = ""

    def state(self, now: float) -> tuple[Literal["first_byte", "retry", "stalled"], float] | None:
        """What to show and its seconds (waited so far; for ``retry``: left), or None."""
        if self.phase == "retry":
            if now < self.since:
                return "retry", self.since - now
            return "first_byte", now - self.since
        if self.phase == "first_byte":
            return "first_byte", max(0.0, now - self.since)
        if self.phase == "streaming" and now - self.since >= STALL_AFTER:
            return "stalled", now - self.since
        return None

    def waiting_for(self) -> str:
        """``waiting for the first byte``, or how far the server has read the prompt."""
        if self.read is None:
            return "waiting for the first byte"
        done, total = self.read
        if not total:  # llama.cpp's /slots: the count read, not the prompt's size
            return f"reading the prompt: {done:,} tokens so far" if done else "reading the prompt"
        return f"reading the prompt: {done:,} of {total:,} tokens ({done * 100 // total}%)"

    def label(self, now: float) -> str:
        """The status bar's words: ``waiting for the first byte · 23 s``, ``stalled · 12 s``."""
        state = self.state(now)
        if state is None:
            return ""
        what, seconds = state
        again = f" (attempt {self.attempt})" if self.attempt > 1 else ""
        if what == "retry":
            return f"retrying in {max(1, round(seconds))} s{again}"
        if what == "first_byte":
            return f"{self.waiting_for()} · {int(seconds)} s{again}"
        return f"stalled · {int(seconds)} s"
