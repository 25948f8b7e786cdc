"""What the panes show, built from core events without importing Textual.

The observer path must be cheap (STYLE.md: arrival rate is not paint rate), so
``UiState.apply`` only appends to bounded buffers and records which panes are
dirty; widgets read this state on the App's ~30 Hz flush. Every buffer has a
cap so a long session or a multi-megabyte replay keeps memory bounded.

Each pane's state is a small model of its own (``widgets/pane_state/``): the Stream
(Raw stream and Pending), Confirmed, Transcript, Tools, Errors and the status bar.
``UiState`` makes them, wires the few cross-pane needs at construction (a model is
handed the models it reads or tells), and builds one dispatch table: event type → the
handlers that apply it, in a fixed pane order (docs/tui-tool-output.md, "One state model
per pane, one dispatch table"). Front ends hold only ``UiState`` (``app.state``).

Secrets never reach a pane (docs/decisions-tui.md, "Secrets on screen"): with a
``scrubber`` (the session's), stream bytes are masked in place with ``*`` of the same
length — after each append the tail window that could end a value split across chunks
is re-scanned — and every string a pane shows or copies (prose, reasoning, notes, tool
output, errors, call summaries, row labels) is scrubbed as accumulated text.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from frontier.app.agent.wait import ResponseWait
from frontier.app.events import (
    ArgBytes,
    ArgStarted,
    AssistantText,
    CallReady,
    CallStarted,
    Compacted,
    Confirmed,
    ContextUsage,
    ContractError,
    Event,
    McpStarting,
    Notice,
    PromptRead,
    QueuedDelivered,
    ReasoningText,
    RepairRequested,
    ResponseContinued,
    ResponseEnded,
    ResponseStarted,
    Retry,
    ServerTool,
    StreamBytes,
    StreamStopped,
    Summarising,
    ToolCall,
    ToolFinished,
    ToolOutput,
    ToolStarted,
    TurnEnded,
    UserMessage,
)
from frontier.app.record import record
from frontier.tools.contract import ApprovalRequested, ApprovalResolved
from frontier.widgets.pane_state.confirmed import PREVIEW_BYTES, ConfirmedModel, ConfirmedRow
from frontier.widgets.pane_state.errors import ErrorRow, ErrorsModel
from frontier.widgets.pane_state.notes import interrupted_words
from frontier.widgets.pane_state.shared import PANES, PaneContext
from frontier.widgets.pane_state.status import StatusModel
from frontier.widgets.pane_state.stream import RAW_WINDOW, ResponseBuffer, StreamModel
from frontier.widgets.pane_state.tool_row import FOLD, ToolRow
from frontier.widgets.pane_state.tools import ToolsModel, call_summary, summarize_call
from frontier.widgets.pane_state.transcript import TranscriptEntry, TranscriptModel
from frontier.widgets.progress import TurnProgress

if TYPE_CHECKING:
    from frontier.app.secrets import Scrubber

__all__ = [  # what front ends, widgets and tests import from here
    "FOLD",
    "IGNORED",
    "PANES",
    "PREVIEW_BYTES",
    "RAW_WINDOW",
    "ConfirmedRow",
    "ErrorRow",
    "Handler",
    "PaneModels",
    "ResponseBuffer",
    "ToolRow",
    "TranscriptEntry",
    "UiState",
    "call_summary",
    "dispatch_table",
    "interrupted_words",
    "summarize_call",
]

Handler = Callable[[Any], None]
"""A pane model's bound handler for one event type (the event's own class)."""


@record
class PaneModels:
    """The pane models of one ``UiState``, each made with the models it reads or tells."""

    stream: StreamModel
    confirmed: ConfirmedModel
    errors: ErrorsModel
    tools: ToolsModel
    transcript: TranscriptModel
    status: StatusModel

    @classmethod
    def build(cls, ctx: PaneContext) -> PaneModels:
        confirmed = ConfirmedModel(ctx)
        stream = StreamModel(ctx, confirmed)  # a response's start and end are rows there
        transcript = TranscriptModel(ctx, stream)  # where a response was cut, if one is open
        tools = ToolsModel(ctx, transcript)  # a row is a Transcript entry too
        errors = ErrorsModel(ctx, stream)  # the response an error is in
        return cls(stream, confirmed, errors, tools, transcript, StatusModel(ctx))


def dispatch_table(m: PaneModels) -> dict[type[Event], tuple[Handler, ...]]:
    """Event type -> the handlers that apply it, in the fixed pane order stream,
    confirmed, errors, tools, transcript, status: a handler that reads another pane's
    model sees it already updated by the same event (the Transcript's ✂ line reads the
    Stream's end; the Transcript's ``call`` entry is the Tools' new row)."""
    s, c, e, t, tr, st = m.stream, m.confirmed, m.errors, m.tools, m.transcript, m.status
    return {
        StreamBytes: (s.on_stream_bytes, st.on_chunk),
        Confirmed: (s.on_confirmed, c.on_confirmed, tr.on_confirmed),
        CallStarted: (c.on_call_started, tr.on_call_started),
        ArgStarted: (c.on_arg_started,),
        ArgBytes: (c.on_arg_bytes,),
        CallReady: (c.on_call_ready, t.on_call_ready, tr.on_call_ready),
        ContractError: (c.on_contract_error, e.on_contract_error, tr.on_contract_error),
        StreamStopped: (c.on_stream_stopped, tr.on_stream_stopped),
        ResponseStarted: (s.on_response_started, tr.on_response_started, st.on_response_started),
        ResponseEnded: (s.on_response_ended, tr.on_response_ended, st.on_response_ended),
        AssistantText: (tr.on_assistant_text,),
        UserMessage: (tr.on_user_message,),
        ServerTool: (tr.on_server_tool,),
        ReasoningText: (s.on_reasoning_text, tr.on_reasoning_text, st.on_chunk),
        ToolStarted: (t.on_tool_started,),
        ToolOutput: (t.on_tool_output,),
        ToolFinished: (t.on_tool_finished,),
        Retry: (tr.on_retry,),
        Notice: (tr.on_notice,),
        McpStarting: (st.on_mcp_starting,),
        RepairRequested: (tr.on_repair_requested,),
        ResponseContinued: (
            s.on_response_continued,
            c.on_response_continued,
            tr.on_response_continued,
            st.on_response_continued,
        ),
        ContextUsage: (tr.on_context_usage, st.on_context_usage),
        Summarising: (tr.on_summarising, st.on_summarising),
        Compacted: (tr.on_compacted, st.on_compacted),
        TurnEnded: (t.on_turn_ended, tr.on_turn_ended, st.on_turn_ended),
    }


IGNORED: frozenset[type[Event]] = frozenset(
    {
        # the live controller shows these (the messages as typed, with their notes)
        QueuedDelivered,
        # the App's review modal asks and closes (``app.review``) and sets the row's state
        ApprovalRequested,
        ApprovalResolved,
        # the status bar's wait reads it (every event passes ResponseWait.apply first)
        PromptRead,
    }
)
"""Event types no pane state shows: listed, so a new event type must be one or the other
(``tests/test_tui_tool_output.py`` checks every class in ``app/events.py``)."""


def _fan_out(handlers: tuple[Handler, ...]) -> Handler:
    """One callable that runs ``handlers`` in order: ``apply`` then costs one dict look-up
    and direct calls, with no iterator made per event (``StreamBytes`` comes thousands
    of times a second on a replay)."""
    first = handlers[0]
    if len(handlers) == 1:
        return first
    rest = _fan_out(handlers[1:])

    def both(event: Event) -> None:
        first(event)
        rest(event)

    return both


class UiState:
    """Everything the panes render, updated by events; no widget ever parses bytes.

    The composition root of the pane models (``models``) and the one thing front ends
    hold; the names front ends and widgets read (``transcript``, ``tools``, ``current``,
    ``progress``...) are the models' own, passed through.
    """

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, scrubber: Scrubber | None = None
    ) -> None:
        self._ctx = PaneContext(clock, scrubber)
        self.dirty = self._ctx.dirty
        self.models = PaneModels.build(self._ctx)
        self.handlers = dispatch_table(self.models)
        """Event type -> the handlers that apply it (built once, in pane order)."""
        self._apply: dict[type[Event], Handler] = {
            kind: _fan_out(handlers) for kind, handlers in self.handlers.items()
        }
        self.epoch = 0
        """Bumped by :meth:`new_session`: views drop what they kept of the earlier one."""

    # ------------------------------------------------------------------ the models' data
    @property
    def clock(self) -> Callable[[], float]:
        return self._ctx.clock

    @property
    def scrubber(self) -> Scrubber | None:
        """The session's secrets: masked out of bytes, scrubbed out of text (or ``None``);
        set again when a session starts, for every pane at once."""
        return self._ctx.scrubber

    @scrubber.setter
    def scrubber(self, value: Scrubber | None) -> None:
        self._ctx.scrubber = value

    @property
    def transcript(self) -> deque[TranscriptEntry]:
        return self.models.transcript.entries

    @property
    def confirmed(self) -> deque[ConfirmedRow]:
        return self.models.confirmed.rows

    @property
    def tools(self) -> dict[str, ToolRow]:
        return self.models.tools.rows

    @property
    def tool_rows(self) -> list[ToolRow]:
        """The Tools pane's rows, oldest first (``tools`` is the row each id answers to)."""
        return self.models.tools.listed

    @property
    def errors(self) -> deque[ErrorRow]:
        return self.models.errors.rows

    @property
    def responses(self) -> deque[ResponseBuffer]:
        return self.models.stream.responses

    @property
    def response_count(self) -> int:
        return self.models.stream.response_count

    @property
    def bytes_seen(self) -> int:
        return self.models.stream.bytes_seen

    @property
    def calls_ready(self) -> int:
        return self.models.tools.calls_ready

    @property
    def pending_bound(self) -> int:
        return self.models.stream.pending_bound

    @property
    def progress(self) -> TurnProgress:
        """The status bar's turn timer, tokens/s and token counts."""
        return self.models.status.progress

    @property
    def wait(self) -> ResponseWait:
        """Silence of the current response (the status bar's "waiting for the first byte")."""
        return self.models.status.wait

    @property
    def turn_running(self) -> bool:
        return self.models.status.turn_running

    @turn_running.setter
    def turn_running(self, value: bool) -> None:
        self.models.status.turn_running = value

    @property
    def last_turn(self) -> str:
        return self.models.status.last_turn

    @property
    def mcp_starting(self) -> tuple[str, ...]:
        return self.models.status.mcp_starting

    @property
    def summarising(self) -> bool:
        return self.models.status.summarising

    @property
    def thinking_expanded(self) -> bool:
        """Reasoning blocks shown whole (else folded to their last lines)."""
        return self.models.transcript.thinking_expanded

    @thinking_expanded.setter
    def thinking_expanded(self, value: bool) -> None:
        self.models.transcript.thinking_expanded = value

    @property
    def stop_key(self) -> str:
        """The key that is stopping the turn (``stopping``), named when it ends."""
        return self.models.transcript.stop_key

    # ------------------------------------------------------------------ queries
    @property
    def current(self) -> ResponseBuffer | None:
        return self.models.stream.current

    @property
    def frontier(self) -> int:
        return self.models.stream.frontier

    @property
    def consumed(self) -> int:
        return self.models.stream.consumed

    def pending(self) -> bytes:
        return self.models.stream.pending()

    @property
    def pending_size(self) -> int:
        return self.models.stream.pending_size

    def pending_tail(self, limit: int) -> bytes:
        """The last ``limit`` pending bytes (what the Pending pane can show)."""
        return self.models.stream.pending_tail(limit)

    def response(self, index: int) -> ResponseBuffer | None:
        return self.models.stream.response(index)

    def token_rate(self) -> float:
        """Tokens/s of the latest response: the server's ``usage`` once it came, else
        chunks/s so far (``widgets/progress.py``); 0 before any response."""
        return self.models.status.token_rate()

    def running_tools(self) -> list[ToolRow]:
        return self.models.tools.running()

    def waiting_label(self) -> str:
        """``waiting for the first byte · 23 s``, ``stalled · 12 s``, ``retrying in 2 s``,
        or empty while bytes flow or no response is open."""
        return self.models.status.waiting_label()

    def scrub(self, text: str) -> str:
        """``text`` without the known secrets and credential shapes, and with every
        character a terminal would act on shown as a picture (``PaneContext.scrub``)."""
        return self._ctx.scrub(text)

    # ------------------------------------------------------------------ updates
    def mark(self, *panes: str) -> None:
        self.dirty.update(panes)

    def take_dirty(self) -> set[str]:
        """The panes to repaint. The flush timer calls this ~30 times a second, so it is
        also where the waiting display and the turn timer tick (``StatusModel.tick``)."""
        self.models.status.tick()
        dirty = self.dirty.copy()
        self.dirty.clear()  # the models hold this set: emptied in place
        return dirty

    def set_probe(self, frontier: int | None, bound: int | None) -> None:
        """Adopt the transducer's own frontier/bound (the live loop or replay knows best)."""
        self.models.stream.set_probe(frontier, bound)

    def add_user(self, text: str, *, message: bool = True) -> None:
        """A ``you`` row (``message``: see ``TranscriptModel.add_user``)."""
        self.models.transcript.add_user(text, message=message)

    def forget(self, messages: int | None) -> None:
        """Dim what the model no longer gets (``TranscriptModel.forget``: ``/clear`` live)."""
        self.models.transcript.forget(messages)

    def note(self, text: str, role: str = "note") -> None:
        self.models.transcript.note(text, role)

    def growing_note(self, text: str) -> Callable[[str], None]:
        """A note to be set again as more is known; returns what sets it."""
        return self.models.transcript.growing_note(text)

    def toggle_thinking(self) -> None:
        """Show reasoning blocks whole, or folded to their last lines (ctrl+t)."""
        self.models.transcript.toggle_thinking()

    def stopping(self, key: str) -> None:
        """The person pressed ``key`` (``Esc``, ``ctrl+c``) to stop the turn: the one line
        that says the turn was interrupted names it."""
        self.models.transcript.stop_key = key

    def set_tool_state(self, call: ToolCall, state: str) -> None:
        self.models.tools.set_state(call, state)

    def show_history(self, events: Iterable[Event], *, more: bool = False) -> None:
        """A resumed session's earlier conversation (``AgentSession.history_events``),
        applied through the same dispatch as a live turn's events; then the panes about
        the stream (Tools, Raw stream, Confirmed, Errors, the status) start empty — they
        are about what happens from now on — while the Transcript keeps every call's row
        (it folds and opens in the pager like a live one). A long session's front end asks
        only for the tail that makes the entries the Transcript keeps
        (``history_events(keep)``).

        ``more``: another part follows (a resume shows the stored talk before the session
        is built, then what the build wrote): the panes start empty after that one, so a
        result in it still finds its call's row."""
        for event in events:
            self.apply(event)
        if not more:
            self._reset_panes()
        self.mark(*PANES)

    def apply_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.apply(event)

    def apply(self, event: Event) -> None:
        """One event: the wait sees it, then its handlers from the table (by exact type;
        an event type no pane shows is in ``IGNORED``, and a test checks every type is
        one or the other)."""
        self.models.status.wait.apply(event, self._ctx.clock)
        handler = self._apply.get(type(event))
        if handler is not None:
            handler(event)

    # ------------------------------------------------------------------ sessions
    def new_session(self, heading: str) -> None:
        """Another session replaces the one shown (ctrl+n, the picker, a resume).

        The Transcript keeps the earlier conversation above ``heading`` (its calls
        frozen as they ended, since their rows go); every other pane starts empty
        and responses are numbered from 1 again, so no row of the earlier session
        mixes with the new one's.
        """
        self._reset_panes()
        self.epoch += 1
        self.models.transcript.entry("session", heading)
        self.mark(*PANES)

    def _reset_panes(self) -> None:
        """Every pane but the Transcript starts empty; the calls in the Transcript keep
        their rows (``TranscriptEntry.tool``) but no longer answer to their ids."""
        m = self.models
        m.tools.reset()  # first: it freezes the rows' Transcript entries
        m.stream.reset()
        m.confirmed.reset()
        m.errors.reset()
        m.status.reset()
        m.transcript.reset()
