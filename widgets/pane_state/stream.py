"""The response buffers behind the Raw stream and Pending panes.

Each model response is a sliding window of its bytes (``ResponseBuffer``) with the
transducer's frontier in it: Raw stream draws the window, Pending the bytes past the
frontier (up to the transducer's bound). ``StreamBytes`` lands here thousands of times
a second on a replay, so its handler only appends and marks.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from frontier.app.events import (
    Confirmed,
    ReasoningText,
    ResponseContinued,
    ResponseEnded,
    ResponseStarted,
    StreamBytes,
)
from frontier.app.record import field, record
from frontier.widgets.pane_state.confirmed import ConfirmedModel
from frontier.widgets.pane_state.shared import STREAM_PANES, LiveScrub, PaneContext, Scrub

if TYPE_CHECKING:
    from frontier.app.secrets import Scrubber

RAW_WINDOW = 2 << 20
"""Bytes of one response kept for the Raw stream pane; older bytes are dropped."""
MAX_RESPONSES = 8
THINKING_TAIL = 16_000
"""Characters of a response's reasoning the Raw stream pane keeps (the newest)."""
PENDING_BOUND = 4096
"""The Pending pane's bound until the transducer says its own (``set_probe``)."""


@record(frozen=False)
class ResponseBuffer:
    """The transducer input of one model response (a sliding window of it)."""

    index: int
    mode: str
    data: bytearray = field(default_factory=bytearray)
    base: int = 0
    """Stream offset of ``data[0]``; grows when the window drops old bytes."""
    frontier: int = 0
    generation: int = 0
    """Bumped whenever ``base`` moves, so views rebuild their line index."""
    finish_reason: str | None = None
    reasoning: str = ""
    """The newest ``THINKING_TAIL`` characters of the model's reasoning (never transducer
    input: shown in a region of its own above the stream)."""
    reasoning_chars: int = 0
    reasoning_live: LiveScrub = field(default_factory=LiveScrub, repr=False, compare=False)
    """The reasoning's raw end, scrubbed again with each piece."""
    joins: list[tuple[int, int]] = field(default_factory=list)
    """``(offset, echo_skipped)`` where the response was continued after a cut (the Raw
    stream pane marks each)."""
    request_index: int = 0
    """The session's number for the response (``ResponseStarted.request_index``: the
    ``N`` of ``SESSION#N``), so the inspector can look it up in the store."""
    masked: int = 0
    """Bumped whenever a secret is masked in ``data`` (maybe in bytes already shown: a
    value split across chunks), so views drop what they drew of the old bytes."""

    def think(self, text: str, scrub: Scrub | None = None, window: int = 0) -> None:
        self.reasoning_chars += len(text)
        tail = self.reasoning_live.append(self.reasoning, text, scrub, window)
        self.reasoning = tail[-THINKING_TAIL:] if len(tail) > THINKING_TAIL else tail

    @property
    def end(self) -> int:
        return self.base + len(self.data)

    def append(
        self, offset: int, data: bytes, window: int = RAW_WINDOW, scrubber: Scrubber | None = None
    ) -> bool:
        """Add stream bytes; ``True`` if the scrubber masked any (maybe earlier) bytes.

        Masking is in place and same-length, so offsets and the frontier stay true; only
        the tail a secret ending in ``data`` can start in is re-scanned.
        """
        if offset > self.end:
            # A gap (should not happen): keep offsets honest by restarting the window.
            self.data.clear()
            self.base = offset
            self.generation += 1
        elif offset < self.end:
            data = data[self.end - offset :]
        self.data += data
        if len(self.data) > window:
            drop = len(self.data) - window // 2
            nl = self.data.find(b"\n", drop, drop + 4096)
            if nl != -1:
                drop = nl + 1
            del self.data[:drop]
            self.base += drop
            self.generation += 1
        if scrubber is None or not data:  # one knowing no value still knows keys' shapes
            return False
        # a key held whole before ``data`` (its word could have grown) starts this far back
        start = len(self.data) - len(data) - scrubber.mask_reach
        if not scrubber.mask_buffer(self.data, max(0, start), ended=False):
            return False
        self.masked += 1
        return True

    def ended(self, scrubber: Scrubber | None) -> None:
        """Nothing more comes: a vendor's key in the last word, held while it could still
        grow, is masked now."""
        if scrubber is not None and scrubber.mask_buffer(
            self.data, max(0, len(self.data) - scrubber.mask_reach), ended=True
        ):
            self.masked += 1

    def slice(self, start: int, end: int) -> bytes:
        start = max(start, self.base)
        return bytes(self.data[start - self.base : max(start, end) - self.base])

    def pending(self) -> bytes:
        return self.slice(self.frontier, self.end)

    @property
    def pending_size(self) -> int:
        """``len(self.pending())`` without copying the bytes (up to the whole window)."""
        return max(0, self.end - max(self.frontier, self.base))


class StreamModel:
    """The last few responses' bytes, the frontier and the Pending bound.

    A response's start and end are rows of the Confirmed pane too, and only this model
    knows when one starts (a ``StreamBytes`` before any ``ResponseStarted`` opens one),
    so it adds them to ``confirmed``.
    """

    def __init__(self, ctx: PaneContext, confirmed: ConfirmedModel) -> None:
        self._ctx = ctx
        self._dirty = ctx.dirty
        self._confirmed = confirmed
        self.responses: deque[ResponseBuffer] = deque(maxlen=MAX_RESPONSES)
        self.response_count = 0
        self.bytes_seen = 0
        self.pending_bound = PENDING_BOUND

    # ------------------------------------------------------------------ queries
    @property
    def current(self) -> ResponseBuffer | None:
        return self.responses[-1] if self.responses else None

    @property
    def frontier(self) -> int:
        return self.current.frontier if self.current else 0

    @property
    def consumed(self) -> int:
        return self.current.end if self.current else 0

    def pending(self) -> bytes:
        return self.current.pending() if self.current else b""

    @property
    def pending_size(self) -> int:
        return self.current.pending_size if self.current else 0

    def pending_tail(self, limit: int) -> bytes:
        """The last ``limit`` pending bytes (what the Pending pane can show)."""
        buf = self.current
        return buf.slice(max(buf.frontier, buf.end - limit), buf.end) if buf else b""

    def response(self, index: int) -> ResponseBuffer | None:
        for buf in self.responses:
            if buf.index == index:
                return buf
        return None

    # ------------------------------------------------------------------ updates
    def set_probe(self, frontier: int | None, bound: int | None) -> None:
        """Adopt the transducer's own frontier/bound (the live loop or replay knows best)."""
        buf = self.current
        if buf is not None and frontier is not None and frontier != buf.frontier:
            buf.frontier = max(buf.frontier, min(frontier, buf.end))
            self._dirty.update(("raw", "pending", "status"))
        if bound is not None and bound != self.pending_bound:
            self.pending_bound = bound
            self._dirty.add("pending")

    def _new_response(self, mode: str, request_index: int = 0) -> ResponseBuffer:
        self.response_count += 1
        buf = ResponseBuffer(index=self.response_count, mode=mode, request_index=request_index)
        self.responses.append(buf)
        self._confirmed.add("response", f"response {buf.index} ({mode})", 0)
        self._dirty.update(("raw", "pending", "status"))
        return buf

    def reset(self) -> None:
        """A new session (or history shown): no responses, numbered from 1 again."""
        self.responses.clear()
        self.response_count = 0
        self.bytes_seen = 0
        self.pending_bound = PENDING_BOUND

    # ------------------------------------------------------------------ handlers
    def on_stream_bytes(self, event: StreamBytes) -> None:
        buf = self.responses[-1] if self.responses else self._new_response("?")
        buf.append(event.offset, event.data, scrubber=self._ctx.scrubber)
        self.bytes_seen += len(event.data)
        self._dirty.update(STREAM_PANES)

    def on_confirmed(self, event: Confirmed) -> None:
        buf = self.responses[-1] if self.responses else self._new_response("?")
        buf.frontier = max(buf.frontier, event.offset + len(event.data))
        self._dirty.update(STREAM_PANES)

    def on_response_started(self, event: ResponseStarted) -> None:
        self._new_response(event.mode, event.request_index)

    def on_response_ended(self, event: ResponseEnded) -> None:
        if self.current is not None:
            self.current.finish_reason = event.finish_reason
            self.current.ended(self._ctx.scrubber)
        self._confirmed.add("response", f"response ended: {event.finish_reason}", self.consumed)

    def on_reasoning_text(self, event: ReasoningText) -> None:
        buf = self.current or self._new_response("?")
        ctx = self._ctx
        buf.think(event.text, ctx.scrub, ctx.scrub_window())
        self._dirty.add("raw")

    def on_response_continued(self, event: ResponseContinued) -> None:
        (self.current or self._new_response("?")).joins.append((event.offset, event.echo_skipped))
        self._dirty.add("raw")
