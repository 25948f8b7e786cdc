"""The status bar's state: the turn's progress, the wait for bytes, and the turn flags.

``ResponseWait`` sees every event (any byte ends a wait), so ``UiState.apply`` feeds it
each one before the table's handlers; the handlers here keep the turn timer, tokens/s
and token counts (``TurnProgress``).
"""

from __future__ import annotations

from frontier.app.agent.wait import ResponseWait
from frontier.app.events import (
    FORGETTING,
    Compacted,
    ContextUsage,
    McpStarting,
    ReasoningText,
    ResponseContinued,
    ResponseEnded,
    ResponseStarted,
    StreamBytes,
    Summarising,
    TurnEnded,
)
from frontier.widgets.pane_state.shared import PaneContext
from frontier.widgets.progress import TurnProgress


class StatusModel:
    """What the status bar shows beyond the other panes' numbers."""

    def __init__(self, ctx: PaneContext) -> None:
        self._ctx = ctx
        self._dirty = ctx.dirty
        self.progress = TurnProgress()
        """The status bar's turn timer, tokens/s and token counts."""
        self.wait = ResponseWait()
        """Silence of the current response (the status bar's "waiting for the first byte")."""
        self._wait_shown: tuple[str, tuple[int, int] | None] = ("", None)
        self.turn_running = False
        """A turn is under way (the front end sets it when it starts one)."""
        self.last_turn = ""
        """How the last turn ended (``TurnEnded.reason``)."""
        self.mcp_starting: tuple[str, ...] = ()
        """The session's MCP servers still starting (``McpStarting``)."""
        self.summarising = False
        """A compaction's summary is being written (``Summarising`` until ``Compacted``,
        the next response or the turn's end)."""

    def token_rate(self) -> float:
        """Tokens/s of the latest response: the server's ``usage`` once it came, else
        chunks/s so far (``widgets/progress.py``); 0 before any response."""
        return self.progress.rate or 0.0

    def waiting_label(self) -> str:
        """``waiting for the first byte · 23 s``, ``stalled · 12 s``, ``retrying in 2 s``,
        or empty while bytes flow or no response is open."""
        return self.wait.label(self._ctx.clock())

    def tick(self) -> None:
        """Mark the status bar when its waiting seconds or spinner frame changed (the
        flush calls this ~30 times a second: no timer of its own, no idle repaint)."""
        now = self._ctx.clock()
        label = (self.wait.label(now), self.progress.ticker(now))
        if label != self._wait_shown:
            self._wait_shown = label
            self._dirty.add("status")

    def reset(self) -> None:
        """A new session (or history shown): no wait, no progress, no last turn."""
        self.last_turn = ""
        self.mcp_starting = ()
        self.summarising = False
        self.wait = ResponseWait()
        self.progress = TurnProgress()

    # ------------------------------------------------------------------ handlers
    def on_chunk(self, event: StreamBytes | ReasoningText) -> None:
        self.progress.chunk(self._ctx.clock())

    def on_response_started(self, event: ResponseStarted) -> None:
        self.summarising = False
        self.progress.response_started()

    def on_response_ended(self, event: ResponseEnded) -> None:
        self.progress.response_ended(event.tokens)
        self._dirty.add("status")

    def on_response_continued(self, event: ResponseContinued) -> None:
        self.progress.stream_cut(event.usage)
        self._dirty.add("status")

    def on_context_usage(self, event: ContextUsage) -> None:
        self.progress.context_used = event.used
        self._dirty.add("status")

    def on_summarising(self, event: Summarising) -> None:
        # the summary's request streams no chunk here: the last reply's tokens/s, still
        # shown, read as the summary's (the rig's TUI drive)
        self.progress.rate = None
        self.summarising = True
        self._dirty.add("status")

    def on_compacted(self, event: Compacted) -> None:
        # /clear, /rewind: what the next request uses is unknown until it is measured
        self.progress.context_used = None if event.reason in FORGETTING else event.after
        self.summarising = False
        self._dirty.add("status")

    def on_mcp_starting(self, event: McpStarting) -> None:
        self.mcp_starting = event.servers
        self._dirty.add("status")

    def on_turn_ended(self, event: TurnEnded) -> None:
        self.turn_running = False
        self.summarising = False
        self.progress.end_turn()
        self.last_turn = event.reason
        self._dirty.add("status")
