"""Progress and cost for the status bar: the turn timer, tokens/s and token counts.

Built from core events like the rest of ``UiState`` (no Textual), and cheap on
the observer path: a stream chunk costs two float stores.

The rate is the server's own count when it sends one: at the end of a response
the ``usage`` object's ``completion_tokens`` spread over the time the response
streamed (first to last chunk). Until then, and for servers that send no usage,
it is an estimate — chunks per second over the same span, since OpenAI-compatible
servers send about one token per chunk — shown with a ``~``. Measured over the
response's own span, the figure holds still while a stream pauses or a replay is
paused, instead of decaying towards zero as a sliding window did.
"""

from __future__ import annotations

from frontier.app.events import TokenUsage
from frontier.app.record import record

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPIN_HZ = 10.0
"""Spinner frames a second (the status bar repaints only when the frame changes)."""
MIN_SPAN = 0.25
"""Seconds of streaming before a rate is worth showing (two chunks 1 ms apart are not)."""


def clock_text(seconds: float) -> str:
    """``9s``, ``1m05s``, ``2h03m``: how long the turn has run."""
    total = int(seconds)
    if total < 60:
        return f"{total}s"
    if total < 3600:
        return f"{total // 60}m{total % 60:02d}s"
    return f"{total // 3600}h{total % 3600 // 60:02d}m"


def count_text(tokens: int) -> str:
    """``950``, ``12.3k``, ``123k``, ``1.2M``: a token count in at most five cells."""
    if tokens < 1000:
        return str(tokens)
    if tokens < 100_000:
        return f"{tokens / 1000:.1f}k".replace(".0k", "k")
    if tokens < 1_000_000:
        return f"{tokens // 1000}k"
    return f"{tokens / 1_000_000:.1f}M".replace(".0M", "M")


@record(frozen=False)
class TurnProgress:
    """The running turn's clock, the latest response's rate, and the session's tokens."""

    turn_started: float | None = None
    rate: float | None = None
    """Tokens per second of the latest response (live while it streams), else ``None``."""
    rate_exact: bool = False
    """``rate`` comes from the server's ``usage`` (else it counts chunks)."""
    tokens_in: int = 0
    """Prompt tokens over every request of the session (what the server processed)."""
    tokens_out: int = 0
    tokens_cached: int = 0
    usage_seen: bool = False
    """The server sent ``usage`` at least once (the counts mean something)."""
    context_used: int | None = None
    """How full the context is: prompt + completion tokens of the latest response, or the
    budget's count for the next request (``ContextUsage``, after a compaction)."""
    _first: float | None = None
    _last: float | None = None
    _chunks: int = 0

    # ------------------------------------------------------------------ the turn
    def start_turn(self, now: float) -> None:
        self.turn_started = now

    def end_turn(self) -> None:
        self.turn_started = None

    def elapsed(self, now: float) -> float | None:
        return None if self.turn_started is None else max(0.0, now - self.turn_started)

    def spinner(self, now: float) -> str:
        return SPINNER[int(now * SPIN_HZ) % len(SPINNER)]

    def ticker(self, now: float) -> tuple[int, int] | None:
        """Changes exactly when the status bar's timer or spinner would look different."""
        if self.turn_started is None:
            return None
        return int(now * SPIN_HZ), int(now - self.turn_started)

    # ------------------------------------------------------------------ responses
    def response_started(self) -> None:
        self._first = self._last = None
        self._chunks = 0

    def chunk(self, now: float) -> None:
        """A stream chunk (transducer input or reasoning) arrived at ``now``."""
        if self._first is None:
            self._first = now
        self._last = now
        self._chunks += 1
        span = now - self._first
        if span >= MIN_SPAN:
            self.rate, self.rate_exact = (self._chunks - 1) / span, False

    def stream_cut(self, tokens: TokenUsage) -> None:
        """A response's stream was cut and goes on in a continuation (a request of its
        own): count what the cut stream cost; the window's share and the rate wait for
        the response's end."""
        if tokens.known:
            self.usage_seen = True
            self.tokens_in += tokens.prompt or 0
            self.tokens_out += tokens.completion or 0
            self.tokens_cached += tokens.cached or 0

    def response_ended(self, tokens: TokenUsage) -> None:
        """Count the response's ``usage``; the rate becomes the server's own figure."""
        if not tokens.known:
            return
        self.stream_cut(tokens)
        self.context_used = (tokens.prompt or 0) + (tokens.completion or 0)
        first, last, chunks = self._first, self._last, self._chunks
        if tokens.completion and first is not None and last is not None and chunks > 1:
            span = last - first
            if span >= MIN_SPAN:
                # the first chunk's tokens were made before the span began
                self.rate = tokens.completion * (chunks - 1) / chunks / span
                self.rate_exact = True
