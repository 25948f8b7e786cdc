"""The Transcript's state: the conversation as entries, with prose streamed live.

The loop reports prose (``AssistantText``) only when a call starts and when the
response ends, so this model streams it from the ``Confirmed`` text itself, decoded as
the loop decodes it; the report that follows is then matched against what is already
shown (replay and the test loop report each piece as it comes). Only confirmed bytes
ever become prose: the pending tail is not shown here.

It reads the Stream model (where a response was cut, whether one is open); the Tools
model adds the ``call`` entries and re-renders them (:meth:`TranscriptModel.show_call`,
:meth:`TranscriptModel.touch`), since it is the one that makes and changes their rows.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from frontier.app.agent.budget import ASSUMED
from frontier.app.events import (
    AssistantText,
    CallReady,
    CallStarted,
    Compacted,
    Confirmed,
    ContextUsage,
    ContractError,
    Notice,
    ReasoningText,
    RepairRequested,
    ResponseContinued,
    ResponseEnded,
    ResponseStarted,
    Retry,
    ServerTool,
    StreamStopped,
    Summarising,
    TurnEnded,
    UserMessage,
)
from frontier.app.frontends.prose import LiveProse
from frontier.app.model.catalogue import assumed_window_text
from frontier.app.vocab import is_clean
from frontier.widgets.pane_state.notes import (
    compaction_line,
    continued_line,
    cut_line,
    interrupted_words,
    repair_line,
    retry_line,
    stop_line,
    summarising_line,
)
from frontier.widgets.pane_state.shared import LiveScrub, PaneContext, Scrub
from frontier.widgets.pane_state.stream import StreamModel
from frontier.widgets.pane_state.tool_row import ToolRow
from frontier.widgets.prose import ProseBlocks

MAX_TRANSCRIPT = 200
ASSISTANT_TEXT_CAP = 64_000
"""Characters of one assistant message kept in the transcript (the head is elided)."""


class TranscriptEntry:
    """One entry of the Transcript.

    ``role``: ``you``, ``ai``, ``thinking``, ``call``, ``note``, ``stop`` (the stream
    stopped, a cut-off response, a repair: one line each), ``session`` (a new session
    starts below), ``error``. An ``ai`` entry's prose is Markdown kept as
    :class:`~frontier.widgets.prose.ProseBlocks`, so a growing reply re-renders only its
    last block; ``text`` reads it back as one string.
    """

    def __init__(
        self,
        id: int,
        role: str,
        text: str = "",
        call_id: str | None = None,
        scrub: Scrub | None = None,
        tool: ToolRow | None = None,
    ) -> None:
        self.id = id
        self.tool = tool
        """A ``call`` entry's row, kept by the entry itself: a row the Tools pane let go
        (a resent id, a new session, history) still folds and opens in the pager."""
        self.scrub = scrub
        """Applied to all text set here and to every prose block (secrets out)."""
        self.role = role
        self.call_id = call_id
        self.version = 0
        self.prose: ProseBlocks | None = ProseBlocks(scrub=scrub) if role == "ai" else None
        self.interrupted = False
        """``ai``: the turn was stopped while this reply streamed; what was confirmed is
        kept and marked."""
        self.interrupted_by = ""
        """The key that stopped it (``Esc``, ``ctrl+c``); empty when not known (history)."""
        self.forgotten = False
        """The model no longer gets it (``/rewind`` took it out, ``/clear`` before it): shown
        dimmed, so the person sees where the conversation the model has ends."""
        self._text = ""
        self._live = LiveScrub()
        """A reasoning entry's raw end, scrubbed again with each piece."""
        self.text = text

    @property
    def text(self) -> str:
        return self.prose.text if self.prose is not None else self._text

    @text.setter
    def text(self, value: str) -> None:
        if self.prose is not None:
            self.prose = ProseBlocks(scrub=self.scrub)
            self.prose.append(value)
        else:
            self._text = self.scrub(value) if self.scrub is not None else value
            self._live.reset()

    def append_text(self, piece: str, window: int) -> None:
        """Grow a non-prose entry (reasoning): only the tail is scrubbed again."""
        self._text = self._live.append(self._text, piece, self.scrub, window)

    def keep_tail(self, chars: int) -> None:
        """A non-prose entry cut to ``…`` and its last ``chars`` characters, its raw end
        kept for the next piece (set through ``text``, the text was scrubbed again and the
        raw end forgotten: a key cut by the trim showed its rest)."""
        self._text = "…" + self._text[-chars:]

    def __repr__(self) -> str:
        return f"TranscriptEntry({self.id}, {self.role!r}, {self.text[:40]!r}, {self.call_id!r})"


def _an_undo(entry: TranscriptEntry) -> bool:
    """An undo's row (``/undo``, the rewind's own): files put back stay put back, whatever
    the model is sent, so it is never dimmed."""
    from frontier.app.agent.undo import UNDO_TOOL  # only at a rewind: off the first paint

    return entry.role == "call" and entry.tool is not None and entry.tool.call.name == UNDO_TOOL


class TranscriptModel:
    """The Transcript's entries and what it needs to stream a reply into them."""

    def __init__(self, ctx: PaneContext, stream: StreamModel) -> None:
        self._ctx = ctx
        self._dirty = ctx.dirty
        self._stream = stream
        self.entries: deque[TranscriptEntry] = deque(maxlen=MAX_TRANSCRIPT)
        self.ids = 0
        """The last entry id given: entries are the pane's cache keys, so ids never
        repeat (a tour rebuild carries them over)."""
        self._assistant: TranscriptEntry | None = None
        self._thinking: TranscriptEntry | None = None
        self.thinking_expanded = False
        """Reasoning blocks shown whole (else folded to their last lines)."""
        self._assumed_told = False
        """The Transcript said the context window is only assumed (once a session)."""
        self._prose = LiveProse()
        """Prose streamed from ``Confirmed`` text as it arrives, and what is new in the
        loop's later report of it (the one classification headless uses too)."""
        self._streaming = False
        """A response is open (started, not ended): an Esc now interrupts its prose."""
        self._open_calls: dict[str, str] = {}
        """This response's calls whose header was confirmed but not yet ready (id -> name)."""
        self._last_call = ""
        self.cut_shown = False
        """This response's ✂ line is in the Transcript (its ``truncated`` error and a
        result for a call it cut are not shown again: the Tools model reads this)."""
        self.stop_key = ""
        """The key that is stopping the turn (``stopping``), named when it ends."""
        self._retry: TranscriptEntry | None = None
        """The line counting the retries of the request being retried."""
        self._beside_reply: set[int] = set()
        """Entries said below the reply that do not end it (where it was continued)."""
        self._retry_failure = ""
        self._messages: list[TranscriptEntry] = []
        """The entry that opens each of the person's messages the model still has, oldest
        first (a ``!command`` row is none; queued messages sent as one are one): a rewind
        counts back through them."""

    # ------------------------------------------------------------------ entries
    def entry(
        self, role: str, text: str, call_id: str | None = None, tool: ToolRow | None = None
    ) -> TranscriptEntry:
        self.ids += 1
        entry = TranscriptEntry(self.ids, role, text, call_id, self._ctx.scrub, tool)
        self.entries.append(entry)
        self._dirty.add("transcript")
        return entry

    def note(self, text: str, role: str = "note") -> None:
        self.entry(role, text)

    def growing_note(self, text: str) -> Callable[[str], None]:
        """A note whose text is set again as more is known (``/doctor``'s report, one
        check at a time): the returned function replaces its text and redraws it."""
        entry = self.entry("note", text)

        def amend(again: str) -> None:
            entry.text = again
            entry.version += 1
            self._dirty.add("transcript")

        return amend

    def add_user(self, text: str, *, message: bool = True) -> None:
        """A ``you`` row; ``message``: it opens one of the person's messages to the model
        (not a ``!command``, nor the second of queued messages sent as one)."""
        entry = self.entry("you", text)
        if message:
            self._messages.append(entry)
        self._assistant = None

    def forget(self, messages: int | None) -> None:
        """Dim what the model no longer gets: the person's last ``messages`` messages and
        everything after the first of them (``/rewind``), or every entry (``None``:
        ``/clear``). A count the Transcript cannot place (fewer messages shown than the
        rewind took: a session longer than the Transcript keeps) dims nothing."""
        if messages is None:
            first = 0
            self._messages.clear()
        elif 0 < messages <= len(self._messages):
            first = self._messages[-messages].id
            del self._messages[-messages:]
        else:
            return
        for entry in self.entries:
            if entry.id >= first and not entry.forgotten and not _an_undo(entry):
                entry.forgotten = True
                entry.version += 1
        self._dirty.add("transcript")

    def toggle_thinking(self) -> None:
        """Show reasoning blocks whole, or folded to their last lines (ctrl+t)."""
        self.thinking_expanded = not self.thinking_expanded
        for entry in self.entries:
            if entry.role == "thinking":
                entry.version += 1
        self._dirty.add("transcript")

    # ------------------------------------------------------------------ call entries
    def show_call(self, row: ToolRow) -> None:
        """A ``call`` entry for a new row (the Tools model made it)."""
        self.entry("call", "", call_id=row.call.id, tool=row)

    def touch(self, call_id: str) -> None:
        """The newest entry of ``call_id`` re-renders (its row changed)."""
        for entry in reversed(self.entries):
            if entry.call_id == call_id:
                entry.version += 1
                break
        self._dirty.add("transcript")

    def freeze(self, row: ToolRow) -> None:
        """A resent call reuses its id: the earlier attempt's entry keeps its own row as
        it ended (``TranscriptEntry.tool``) and no longer answers to the id."""
        for entry in reversed(self.entries):
            if entry.call_id == row.call.id:
                entry.call_id = None
                entry.version += 1
                break

    # ------------------------------------------------------------------ prose
    def _thinking_text(self, text: str) -> None:
        """Reasoning grows one dimmed, collapsible block per stretch of it."""
        if self._thinking is None or self._thinking is not self.entries[-1]:
            self._thinking = self.entry("thinking", "")
        entry = self._thinking
        entry.append_text(text, self._ctx.scrub_window())
        if len(entry.text) > ASSISTANT_TEXT_CAP:
            entry.keep_tail(ASSISTANT_TEXT_CAP // 2)
        entry.version += 1
        self._dirty.add("transcript")

    def _newest_but_notes(self, entry: TranscriptEntry | None) -> bool:
        """``entry`` is the newest entry, or only notes came after it: a ``/status``
        typed while the reply streams is said below the reply, which goes on above it
        as one entry (it was cut in two around the note)."""
        for later in reversed(self.entries):
            if later is entry:
                return True
            if later.role != "note" and later.id not in self._beside_reply:
                return False
        return False

    def _assistant_text(self, text: str) -> None:
        """Add prose to the reply being shown (a new ``ai`` entry after anything else
        but notes)."""
        if self._assistant is None or not self._newest_but_notes(self._assistant):
            if not text.strip():
                return  # whitespace before a reply shows nothing (and the loop reports none)
            self._assistant = self.entry("ai", "")
        entry = self._assistant
        assert entry.prose is not None
        entry.prose.append(text)  # bounded: whole blocks drop off the head
        entry.version += 1
        self._dirty.add("transcript")

    def _reported_prose(self, text: str) -> None:
        """An ``AssistantText``: show only what streaming has not shown already."""
        extra = self._prose.reported(text)
        if extra:
            self._assistant_text(extra)

    def _reset_prose(self) -> None:
        self._prose.reset()

    def _turn_ended(self, reason: str) -> bool:
        """True when a cancelled turn cut the reply it ends with (which is then marked:
        the loop kept what was confirmed). That reply is the newest entry: live, it was
        streaming; from history, the stored reply was marked interrupted."""
        reply = self._assistant
        cut = (
            reason == "cancelled"
            and reply is not None
            and (self._streaming or self._stream.current is None)  # (history: no response)
            and self._newest_but_notes(reply)
        )
        if cut and reply is not None:
            reply.interrupted = True
            reply.interrupted_by = self.stop_key
            reply.version += 1
            self._dirty.add("transcript")
        self._streaming = False
        self._reset_prose()
        return cut

    def reset(self) -> None:
        """A new session (or history shown): the entries stay, the reply in progress
        and this response's calls are forgotten."""
        self._assistant = None
        self._thinking = None
        self._streaming = False
        self._open_calls.clear()
        self._last_call = ""
        self._retry = None
        self._reset_prose()

    # ------------------------------------------------------------------ handlers
    def on_confirmed(self, event: Confirmed) -> None:
        if event.kind == "text":
            piece = self._prose.confirmed(event.data)
            if piece:
                self._assistant_text(piece)

    def on_call_started(self, event: CallStarted) -> None:
        if event.replaces:  # the same call under the id its wire settled on
            self._open_calls.pop(event.replaces, None)
        # the loop reports the prose before a call right after the call's header (when
        # it is more than whitespace): that report is expected, and already shown
        self._prose.call_started()
        self._assistant = None
        self._open_calls[event.id] = event.name
        self._last_call = event.id

    def on_call_ready(self, event: CallReady) -> None:
        self._open_calls.pop(event.call.id, None)
        self._last_call = event.call.id
        self._assistant = None  # the Tools model added the call's entry after the reply
        self._thinking = None

    def on_contract_error(self, event: ContractError) -> None:
        if not (event.kind == "truncated" and self.cut_shown):  # the ✂ line said it
            self.entry("error", f"{event.kind} at byte {event.offset}: {event.message}")

    def on_stream_stopped(self, event: StreamStopped) -> None:
        self.note(stop_line(event.reason, event.offset, self._last_call), "stop")

    def on_response_started(self, event: ResponseStarted) -> None:
        self._thinking = None
        self._retry = None
        self._beside_reply.clear()
        self._assistant = None  # one reply per response (consecutive ones never merge)
        self._reset_prose()
        self._streaming = True
        self._open_calls.clear()
        self.cut_shown = False

    def on_response_ended(self, event: ResponseEnded) -> None:
        self._streaming = False
        reason = event.finish_reason
        if not is_clean(reason) and reason not in ("error", "stopped"):
            line = cut_line(reason, event.detail, self._stream.consumed, self._open_calls)
            self.note(line, "stop")
            self.cut_shown = True

    def on_assistant_text(self, event: AssistantText) -> None:
        self._thinking = None
        self._reported_prose(event.text)

    def on_user_message(self, event: UserMessage) -> None:
        for notice in event.notices:  # the session's words, not the person's: a note
            self.note(f"the model was told with this message: {notice}")
        if event.text or not event.notices:
            self.add_user(event.text)

    def on_server_tool(self, event: ServerTool) -> None:
        # the provider ran it inside the response; Frontier never does
        self.note(f"⚙ the provider ran its own tool {self._ctx.scrub(event.name)} (not run here)")

    def on_reasoning_text(self, event: ReasoningText) -> None:
        self._thinking_text(event.text)

    def on_notice(self, event: Notice) -> None:
        """A note from beside the turns (an MCP server that stopped by itself)."""
        self.note(self._ctx.scrub(event.text))

    def on_retry(self, event: Retry) -> None:
        """Retries of one failure are one line that counts them (the server's message
        once, not once per attempt)."""
        reason = self._ctx.scrub(" ".join(event.reason.split()))
        failure = reason.split(" — ", 1)[0]
        text = retry_line(event, reason)
        entry = self._retry
        if entry is not None and self._retry_failure == failure and entry in self.entries:
            entry.text = text
            entry.version += 1
            self._dirty.add("transcript")
        else:
            self._retry = self.entry("stop", text)
            self._retry_failure = failure

    def on_repair_requested(self, event: RepairRequested) -> None:
        self.note(repair_line(event.kind, event.attempt, event.resend), "stop")

    def on_response_continued(self, event: ResponseContinued) -> None:
        """Said below the reply, which goes on above it as one entry: cut in two around
        the line, a Markdown span open at the join (``**Almond`` … ``**``) showed as
        two broken blocks (the export joins them)."""
        self._beside_reply.add(self.entry("stop", continued_line(event)).id)

    def on_context_usage(self, event: ContextUsage) -> None:
        if event.source == ASSUMED and not self._assumed_told:
            self._assumed_told = True
            self.note(assumed_window_text(event.window))

    def on_summarising(self, event: Summarising) -> None:
        self.note(summarising_line(event))

    def on_compacted(self, event: Compacted) -> None:
        if event.reason == "rewind":
            self.forget(event.messages)
        elif event.reason == "clear":
            self.forget(None)
        elif event.reason == "too_long":  # the last message withdrawn: the model never had it
            self.forget(1)
        self.note(compaction_line(event))

    def on_turn_ended(self, event: TurnEnded) -> None:
        self._retry = None
        marked = self._turn_ended(event.reason)
        if event.reason == "cancelled":
            if not marked:  # said once: on the reply it cut, or here
                self.note(f"⏹ {interrupted_words(self.stop_key)}: the turn stopped", "stop")
        elif event.reason in ("max_turns", "repeating"):  # its message says it all, and what to do
            self.note(event.message)
        elif event.reason != "done":
            self.note(f"turn ended: {event.reason} {event.message}".strip())
        elif event.message:  # done, and something to say (an empty reply)
            self.note(event.message)
        self.stop_key = ""
        self._assistant = None
