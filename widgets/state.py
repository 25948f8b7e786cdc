"""What the panes show, built from core events without importing Textual.

The observer path must be cheap (STYLE.md: arrival rate is not paint rate), so
``UiState.apply`` only appends to bounded buffers and records which panes are
dirty; widgets read this state on the App's ~30 Hz flush. Every buffer has a
cap so a long session or a multi-megabyte replay keeps memory bounded.

Secrets never reach a pane (docs/decisions-tui.md, "Secrets on screen"): with a
``scrubber`` (the session's), stream bytes are masked in place with ``*`` of the same
length — after each append the tail window that could end a value split across chunks
is re-scanned — and every string a pane shows or copies (prose, reasoning, notes, tool
output, errors, call summaries, row labels) is scrubbed as accumulated text.
"""

from __future__ import annotations

import codecs
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from frontier.app.agent.budget import ASSUMED
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
from frontier.app.frontends.terminal_text import pictured
from frontier.app.frontends.tui.sandbox_text import ran_under
from frontier.app.model.catalogue import assumed_window_text
from frontier.app.vocab import is_clean
from frontier.tools.contract import ApprovalRequested, ApprovalResolved
from frontier.tools.patch_summary import SHOWN_CHANGES, change_lines, patch_label
from frontier.widgets import display
from frontier.widgets.display import LINE_KEEP, fold_blank_runs, line_count, more_lines
from frontier.widgets.progress import TurnProgress
from frontier.widgets.prose import ProseBlocks

if TYPE_CHECKING:
    from frontier.app.secrets import Scrubber

Scrub = Callable[[str], str]

SHAPE_MARGIN = 64
"""Characters before a new piece re-scrubbed with it (beyond the longest secret), so a
credential *shape* such as ``Bearer <token>`` split over two pieces is still seen."""


def scrub_append(text: str, piece: str, scrub: Scrub | None, window: int) -> str:
    """``text + piece`` scrubbed, re-scanning only the last ``window`` characters of the
    already scrubbed ``text`` (where a secret completed by ``piece`` may begin)."""
    if scrub is None:
        return text + piece
    cut = max(0, len(text) - window)
    return text[:cut] + scrub(text[cut:] + piece)


RAW_WINDOW = 2 << 20
"""Bytes of one response kept for the Raw stream pane; older bytes are dropped."""
MAX_RESPONSES = 8
MAX_CONFIRMED_ROWS = 2000
MAX_TRANSCRIPT = 200
MAX_TOOLS = 100
MAX_ERRORS = 500
TOOL_TAIL = 50
"""Output lines kept per tool (the pane shows the last few)."""
FOLD = 4
"""Output lines a Transcript tool row shows (``… N more lines`` says the rest)."""
STREAM_KEEP = 1 << 20
"""Characters of a running call's streamed output kept for the pager (the newest)."""
OUTPUT_BUDGET = 16 << 20
"""Characters of finished calls' whole results kept for the pager, over all rows: past
it the oldest rows keep only their fold (``ToolRow.output_dropped`` says how much went;
the copy picker and the export still have the session's record)."""
OPEN_LINE_LIMIT = 2 * LINE_KEEP + 64
"""Characters of a tool's open output line kept whole; beyond, its head and tail."""
ASSISTANT_TEXT_CAP = 64_000
THINKING_TAIL = 16_000
"""Characters of a response's reasoning the Raw stream pane keeps (the newest)."""
"""Characters of one assistant message kept in the transcript (the head is elided)."""

PANES = ("transcript", "raw", "confirmed", "pending", "tools", "errors", "status")
STREAM_PANES = frozenset({"raw", "pending", "status"})


@dataclass
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
        tail = scrub_append(self.reasoning, text, scrub, window)
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
        if not scrubber or not data:
            return False
        start = len(self.data) - len(data) - (scrubber.longest_bytes - 1)
        if not scrubber.mask_buffer(self.data, max(0, start)):
            return False
        self.masked += 1
        return True

    def slice(self, start: int, end: int) -> bytes:
        start = max(start, self.base)
        return bytes(self.data[start - self.base : max(start, end) - self.base])

    def pending(self) -> bytes:
        return self.slice(self.frontier, self.end)

    @property
    def pending_size(self) -> int:
        """``len(self.pending())`` without copying the bytes (up to the whole window)."""
        return max(0, self.end - max(self.frontier, self.base))


@dataclass
class ConfirmedRow:
    """One line of the Confirmed pane; byte runs merge into the previous row."""

    id: int
    kind: str
    """``text``, ``call``, ``arg``, ``bytes``, ``ready``, ``stop``, ``error``, ``response``."""
    label: str
    offset: int
    nbytes: int = 0
    preview: str = ""
    version: int = 0
    tail: bytes = b""
    """The run's last raw bytes: the preview is cut from these, never from ``preview``
    (re-encoding its ``⏎`` and cutting it split characters into ``�``)."""


@dataclass
class ToolRow:
    call: ToolCall
    summary: str
    state: str = "ready"
    """ready, review, running, or the result kind (ok, error, denied, cancelled...)."""
    started: float | None = None
    elapsed: float | None = None
    exit_code: int | None = None
    output_lines: int = 0
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=TOOL_TAIL))
    """The last output lines, scrubbed, each cut to its ends (``display.cut_line``)."""
    partial: str = ""
    """The open output line, scrubbed: all of it, or (past ``OPEN_LINE_LIMIT``) its end,
    with ``partial_head`` and ``partial_dropped`` saying what came before."""
    partial_head: str = ""
    partial_dropped: int = 0
    message: str = ""
    output: str = ""
    """The finished call's whole result text as the model got it (capped by the tool
    boundary): what "copy" puts on the clipboard."""
    changes: tuple[str, ...] = ()
    """A finished mutation's ``M path (+3 −1)`` lines (the first few, then ``+N more``),
    or ``already applied``; from the result's ``meta``, never from the patch text."""

    more: int = 0
    """Lines of the key argument beyond the one ``summary`` shows (``(+41 lines)``)."""
    where: str = ""
    """Where a finished command ran, in a word or two (``sandbox``, ``outside``...: the
    Tools pane's field); empty for a call that ran no command."""
    ran: tuple[str, ...] = ()
    """The same in full (``sandbox_text.ran_under``): lines under the Transcript row."""
    streamed: deque[str] = field(default_factory=deque)
    """A running call's complete output lines (scrubbed, each cut to its ends), the
    newest ``STREAM_KEEP`` characters: what the pager shows until the result comes."""
    streamed_chars: int = 0
    fold: tuple[str, ...] = ()
    """A finished call's lines the Transcript shows: the first ``FOLD``, or for a failed
    call the last (an error and a test summary come at the end)."""
    lines: int = 0
    """Lines of the finished result."""
    output_dropped: int = 0
    """Characters of ``output`` let go past ``OUTPUT_BUDGET`` (the fold stays)."""
    version: int = 0
    """Bumped with each piece of output (the Transcript's live tail re-renders)."""

    @property
    def running(self) -> bool:
        return self.state == "running"

    @property
    def finished(self) -> bool:
        return self.state not in ("ready", "review", "running", "approved")

    @property
    def failed(self) -> bool:
        """Ended other than ok, or a command that exited non-zero."""
        if not self.finished:
            return False
        return self.state not in ("ok", "applied") or self.exit_code not in (None, 0)

    @property
    def opens(self) -> bool:
        """There is output to read in the pager (the ``▸`` marker says so)."""
        return bool(
            self.output or self.output_dropped or self.streamed or self.tail or self.partial
        )

    def whole(self) -> str:
        """What the pager shows: the result as the model got it once finished (or a note
        that it was let go), else the output streamed so far."""
        if self.output:
            return self.output
        if self.output_dropped:
            kept = "\n".join(self.fold)
            return (
                f"[the whole output ({self.output_dropped:,} characters) is no longer held "
                f"here; the export has it. Shown in the Transcript:]\n{kept}"
            )
        streamed = self.streamed or self.tail
        return "\n".join([*streamed, self.open_line] if self.partial else streamed)

    def live_tail(self, count: int = FOLD) -> list[str]:
        """The last ``count`` output lines of a running call, the open line included."""
        lines = list(self.tail)[-count:]
        if self.partial:
            lines = [*lines, self.open_line][-count:]
        return lines

    def finish(self, output: str) -> None:
        """Keep ``output`` (scrubbed) whole and fold it; the streamed copy goes."""
        self.output = output
        self.streamed.clear()
        self.streamed_chars = 0
        lines = output.rstrip("\n").split("\n") if output.strip() else []
        self.lines = len(lines)
        shown = lines[-FOLD:] if self.failed else lines[:FOLD]
        self.fold = tuple(display.cut_line(line) for line in shown)
        self.version += 1

    def add_lines(self, lines: Iterable[str]) -> None:
        """Complete output lines: the pane's tail and the pager's bounded copy."""
        for line in lines:
            self.tail.append(line)
            self.streamed.append(line)
            self.streamed_chars += len(line) + 1
            self.output_lines += 1
        while self.streamed_chars > STREAM_KEEP and len(self.streamed) > 1:
            self.streamed_chars -= len(self.streamed.popleft()) + 1

    @property
    def open_line(self) -> str:
        """The open output line as a pane may show it (its middle cut when long)."""
        if not self.partial_dropped:
            return display.cut_line(self.partial)
        hidden = self.partial_dropped + max(0, len(self.partial) - LINE_KEEP)
        return f"{self.partial_head} … {hidden:,} characters … {self.partial[-LINE_KEEP:]}"

    def grow(self, piece: str, scrub: Scrub | None, window: int) -> None:
        """Add ``piece`` to the open line: only the tail a secret may span is scrubbed
        again, and past ``OPEN_LINE_LIMIT`` only the head and the tail are kept — one
        20 MB line streamed in 64 KiB chunks was scrubbed whole at every chunk
        (quadratic), and a pane only ever shows its ends."""
        self.partial = scrub_append(self.partial, piece, scrub, window)
        if len(self.partial) > OPEN_LINE_LIMIT + window:
            keep = LINE_KEEP + window  # what is shown, and what the next piece re-scans
            if not self.partial_dropped:
                self.partial_head = self.partial[:LINE_KEEP]
                self.partial = self.partial[LINE_KEEP:]
            self.partial_dropped += len(self.partial) - keep
            self.partial = self.partial[-keep:]

    def end_line(self) -> str:
        """Close the open line: what the tail keeps of it."""
        line = self.open_line
        self.partial, self.partial_head, self.partial_dropped = "", "", 0
        return line


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
        self._text = ""
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

    def append_text(self, piece: str, window: int) -> None:
        """Grow a non-prose entry (reasoning): only the tail is scrubbed again."""
        self._text = scrub_append(self._text, piece, self.scrub, window)

    def __repr__(self) -> str:
        return f"TranscriptEntry({self.id}, {self.role!r}, {self.text[:40]!r}, {self.call_id!r})"


@dataclass(frozen=True)
class ErrorRow:
    response: int
    kind: str
    message: str
    offset: int


SUMMARY_CHARS = 80
"""Characters of a call's key argument a Transcript or Tools row shows."""


def _first_line(text: str) -> str:
    """The first line of ``text`` with something on it (split at ``\n`` only)."""
    start = 0
    while True:
        end = text.find("\n", start)
        line = text[start:] if end == -1 else text[start:end]
        if line.strip(" \t"):
            return line.strip(" \t")
        if end == -1:
            return ""
        start = end + 1


def call_summary(call: ToolCall) -> tuple[str, int]:
    """The key argument of a call in a few words, and how many more lines it has.

    The count is what a one-row summary cannot show: ``echo safe`` with 40 blank lines
    and ``touch PWNED`` after it is ``echo safe`` and 41 more lines, and a row says so
    (``(+41 lines)``, :func:`~frontier.widgets.display.more_lines`)."""
    args = call.args
    if call.name == "apply_patch":
        patch = args.get("patch", "")
        text = patch.decode("utf-8", "replace") if isinstance(patch, bytes) else str(patch)
        return patch_label(text), 0
    for key in ("command", "path", "pattern", "code", "content"):
        if key in args:
            value = args[key]
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            # a run of blanks is one visible note, so what follows it is on the row
            first, _ = fold_blank_runs(_first_line(text))
            if len(first) > SUMMARY_CHARS:
                first = first[: SUMMARY_CHARS - 1] + "…"
            return first, max(0, line_count(text) - 1)
    return " ".join(f"{k}={str(v)[:20]}" for k, v in list(args.items())[:2]), 0


def summarize_call(call: ToolCall) -> str:
    """The key argument of a call in a few words (what the Tools pane shows), with
    ``(+N lines)`` when it has more lines than the one shown."""
    first, more = call_summary(call)
    return first + more_lines(more)


def _mapping(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


PREVIEW_BYTES = 48


def _preview(data: bytes, limit: int = PREVIEW_BYTES) -> str:
    """The last ``limit`` bytes as one line, starting at a character (a cut through a
    multi-byte character is moved past it rather than shown as ``�``)."""
    tail = data[-limit:]
    start = 0
    while start < min(3, len(tail)) and tail[start] & 0xC0 == 0x80 and len(data) > limit:
        start += 1
    text = tail[start:].decode("utf-8", "replace")
    return pictured(text).replace("\n", "⏎").replace("\t", "→")


def stop_line(reason: str, offset: int, call_id: str) -> str:
    """The Transcript's one line for a stream the transducer stopped reading."""
    if reason == "text_after_call":
        after = f"call {call_id}" if call_id else "its call"
        return (
            f"■ stream stopped at byte {offset:,}: text after {after} dropped (a made-up result?)"
        )
    return f"■ stream stopped at byte {offset:,}: {reason}"


def cut_line(reason: str, detail: str, offset: int, open_calls: dict[str, str]) -> str:
    """The Transcript's one line for a response that ended before it was complete."""
    why = f"{reason}: {detail}" if detail else reason
    unfinished = ", ".join(f"{cid} {name}" for cid, name in open_calls.items())
    outcome = f"{unfinished} never ran" if unfinished else "no call was cut"
    return f"✂ response cut off at byte {offset:,} (finish_reason {why}): {outcome}"


def continued_line(event: ResponseContinued) -> str:
    """The Transcript's line where a response cut by ``length`` was continued."""
    echo = f" (the server's echo of {event.echo_skipped:,} bytes skipped)"
    return (
        f"⟂ continued at byte {event.offset:,} (continuation {event.attempt}): the reply hit "
        f"the token limit and goes on from there; nothing resent"
        + (echo if event.echo_skipped else "")
    )


def repair_line(kind: str, attempt: int) -> str:
    """The Transcript's one line for a repair request sent back to the model."""
    return f"↺ repair {attempt}: the model was sent the {kind} error and asked to resend"


def retry_line(event: Retry, reason: str) -> str:
    """``↻ retrying (3/5) in 4 s: HTTP 503 Service Unavailable — the server says: …``
    (the attempt of how many when the event says; the server's words cut to a row)."""
    of = f"/{event.limit}" if event.limit else ""
    when = (
        "now"
        if event.delay <= 0
        else f"in {event.delay:.0f} s"
        if event.delay >= 1
        else (f"in {event.delay:.1f} s")
    )
    shown = reason if len(reason) <= RETRY_CHARS else reason[: RETRY_CHARS - 1] + "…"
    return f"↻ retrying ({event.attempt}{of}) {when}: {shown}"


RETRY_CHARS = 160
"""Characters of a retry's reason the Transcript shows (a server's page can be long)."""


def interrupted_words(key: str) -> str:
    """``interrupted (ctrl+c)``, or ``interrupted`` when the key is not known."""
    return f"interrupted ({key})" if key else "interrupted"


_SANDBOX_WORDS = {
    "workspace-write": "sandbox",
    "read-only": "read-only",
    "escalated": "outside",
    "off": "no sandbox",
    "unavailable": "no sandbox",
}


def sandbox_word(meta: Mapping[str, Any] | None) -> str:
    """Where a command ran, in the Tools pane's few cells: ``sandbox``, ``sandbox+net``,
    ``read-only``, ``outside`` (approved to run unconfined), ``no sandbox``; empty for a
    result that ran no command (``sandbox_text.ran_under`` has the full words)."""
    record = meta.get("sandbox") if meta else None
    if not isinstance(record, Mapping) or not isinstance(record.get("mode"), str):
        return ""
    word = _SANDBOX_WORDS.get(record["mode"], record["mode"][:10])
    if record.get("network") and record["mode"] in ("workspace-write", "read-only"):
        word += "+net"
    return word


def _rounds(n: int) -> str:
    return "1 earlier round" if n == 1 else f"{n} earlier rounds"


COMPACTION_WHY = {"overflow": "the server said it was too long", "manual": "/compact"}
"""Why a compaction happened, in the Transcript's words (else the budget's threshold)."""


def compaction_line(event: Compacted) -> str:
    """The Transcript's one line for a compaction of the history sent to the model."""
    why = COMPACTION_WHY.get(event.reason, "context budget")
    return (
        f"⇣ compacted ({why}): {event.detail}; {event.before:,} → {event.after:,} of "
        f"{event.window:,} tokens (the originals stay in the session)"
    )


class UiState:
    """Everything the panes render, updated by events; no widget ever parses bytes."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, scrubber: Scrubber | None = None
    ) -> None:
        self.clock = clock
        self.scrubber = scrubber
        """The session's secrets: masked out of bytes, scrubbed out of text (or ``None``)."""
        self.responses: deque[ResponseBuffer] = deque(maxlen=MAX_RESPONSES)
        self.confirmed: deque[ConfirmedRow] = deque(maxlen=MAX_CONFIRMED_ROWS)
        self.transcript: deque[TranscriptEntry] = deque(maxlen=MAX_TRANSCRIPT)
        self.tools: dict[str, ToolRow] = {}
        self.errors: deque[ErrorRow] = deque(maxlen=MAX_ERRORS)
        self.dirty: set[str] = set(PANES)
        self.response_count = 0
        self._assumed_told = False
        """The Transcript said the context window is only assumed (once a session)."""
        self.bytes_seen = 0
        self.calls_ready = 0
        self.turn_running = False
        self.last_turn: str = ""
        self.pending_bound = 4096
        self._row_ids = 0
        self._entry_ids = 0
        self.progress = TurnProgress()
        """The status bar's turn timer, tokens/s and token counts."""
        self._assistant: TranscriptEntry | None = None
        self._thinking: TranscriptEntry | None = None
        self.thinking_expanded = False
        """Reasoning blocks shown whole (else folded to their last lines)."""
        self.epoch = 0
        """Bumped by :meth:`new_session`: views drop what they kept of the earlier one."""
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._streamed: list[str] = []
        """Prose decoded from ``Confirmed`` text and shown, not yet reported as an
        ``AssistantText`` (the loop reports it at a call and at the end)."""
        self._expected: str | None = None
        """The stretch the loop reports right after a ``CallStarted`` (already shown)."""
        self._streaming = False
        """A response is open (started, not ended): an Esc now interrupts its prose."""
        self._open_calls: dict[str, str] = {}
        """This response's calls whose header was confirmed but not yet ready (id -> name)."""
        self._last_call = ""
        self._cut_shown = False
        """This response's ✂ line is in the Transcript (its ``truncated`` error is not)."""
        self.wait = ResponseWait()
        """Silence of the current response (the status bar's "waiting for the first byte")."""
        self._wait_shown: tuple[str, tuple[int, int] | None] = ("", None)
        self.stop_key = ""
        """The key that is stopping the turn (``stopping``), named when it ends."""
        self._retry: TranscriptEntry | None = None
        """The line counting the retries of the request being retried."""
        self._retry_failure = ""
        self._outputs: deque[ToolRow] = deque()
        """Finished rows holding a whole result, oldest first (``_keep_output``)."""
        self._output_chars = 0

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

    def token_rate(self) -> float:
        """Tokens/s of the latest response: the server's ``usage`` once it came, else
        chunks/s so far (``widgets/progress.py``); 0 before any response."""
        return self.progress.rate or 0.0

    def running_tools(self) -> list[ToolRow]:
        return [row for row in self.tools.values() if row.running]

    def waiting_label(self) -> str:
        """``waiting for the first byte · 23 s``, ``stalled · 12 s``, ``retrying in 2 s``,
        or empty while bytes flow or no response is open."""
        return self.wait.label(self.clock())

    # ------------------------------------------------------------------ secrets
    def scrub(self, text: str) -> str:
        """``text`` without the known secrets and credential shapes, and with every
        character a terminal would act on (ESC, CR, bidi overrides) shown as a picture
        instead (``terminal_text.pictured``): the model's prose reaches a pane as text,
        never as a command to the terminal (for any pane)."""
        if not text:
            return text
        scrubber = self.scrubber
        return pictured(scrubber.scrub(text) if scrubber else text)

    def _scrub_window(self) -> int:
        """Characters of scrubbed text re-scanned when a piece is appended to it."""
        scrubber = self.scrubber
        return scrubber.longest_bytes + SHAPE_MARGIN if scrubber else 0

    def _mask_tail(self, tail: bytes, data: bytes, keep: int) -> bytes:
        """``tail + data`` masked, the last ``keep`` bytes plus the longest secret kept
        (so a secret whose end is still to come is masked when it arrives)."""
        scrubber = self.scrubber
        if not scrubber:
            return (tail + data)[-keep:]
        joined = bytearray(tail + data)
        scrubber.mask_buffer(joined, max(0, len(tail) - scrubber.longest_bytes + 1))
        return bytes(joined[-(keep + scrubber.longest_bytes) :])

    # ------------------------------------------------------------------ updates
    def mark(self, *panes: str) -> None:
        self.dirty.update(panes)

    def take_dirty(self) -> set[str]:
        """The panes to repaint. The flush timer calls this ~30 times a second, so it is
        also where the waiting display and the turn timer tick: the status bar is marked
        when its seconds or spinner frame change (no timer of its own, and no repaint while
        nothing changes)."""
        now = self.clock()
        label = (self.wait.label(now), self.progress.ticker(now))
        if label != self._wait_shown:
            self._wait_shown = label
            self.dirty.add("status")
        dirty, self.dirty = self.dirty, set()
        return dirty

    def set_probe(self, frontier: int | None, bound: int | None) -> None:
        """Adopt the transducer's own frontier/bound (the live loop or replay knows best)."""
        buf = self.current
        if buf is not None and frontier is not None and frontier != buf.frontier:
            buf.frontier = max(buf.frontier, min(frontier, buf.end))
            self.mark("raw", "pending", "status")
        if bound is not None and bound != self.pending_bound:
            self.pending_bound = bound
            self.mark("pending")

    def add_user(self, text: str) -> None:
        self._entry("you", text)
        self._assistant = None

    def note(self, text: str, role: str = "note") -> None:
        self._entry(role, text)

    def stopping(self, key: str) -> None:
        """The person pressed ``key`` (``Esc``, ``ctrl+c``) to stop the turn: the one line
        that says the turn was interrupted names it."""
        self.stop_key = key

    def show_history(self, events: Iterable[Event]) -> None:
        """A resumed session's earlier conversation (``AgentSession.history_events``),
        applied through the same dispatch as a live turn's events; then the panes about
        the stream (Tools, Raw stream, Confirmed, Errors, the status) start empty — they
        are about what happens from now on — while the Transcript keeps every call's row
        (it folds and opens in the pager like a live one)."""
        for event in events:
            self.apply(event)
        self._reset_panes()
        self.mark(*PANES)

    def apply_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.apply(event)

    def apply(self, event: Event) -> None:
        """One event: its handler from ``HANDLERS`` (by exact type; an event type the
        state does not show is in ``IGNORED``, and a test checks every type is one or
        the other)."""
        self.wait.apply(event, self.clock)
        handler = HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    # ------------------------------------------------------------------ handlers
    def _on_stream_bytes(self, event: StreamBytes) -> None:
        buf = self.current or self._new_response("?")
        buf.append(event.offset, event.data, scrubber=self.scrubber)
        self.bytes_seen += len(event.data)
        self.progress.chunk(self.clock())
        self.dirty.update(STREAM_PANES)

    def _on_confirmed(self, event: Confirmed) -> None:
        buf = self.current or self._new_response("?")
        buf.frontier = max(buf.frontier, event.offset + len(event.data))
        if event.kind == "text":
            self._merge("text", "text", event.offset, event.data)
            self._stream_prose(event.data)
        self.dirty.update(STREAM_PANES)

    def _on_call_started(self, event: CallStarted) -> None:
        if event.replaces:  # the same call under the id its wire settled on
            self._open_calls.pop(event.replaces, None)
        self._row("call", f"call {event.id} {event.name}", event.offset)
        self._call_started(event.id, event.name)

    def _on_arg_started(self, event: ArgStarted) -> None:
        form = event.form + (f" {event.declared}" if event.declared is not None else "")
        self._row("arg", f"arg {event.key} ({form})", event.offset)

    def _on_arg_bytes(self, event: ArgBytes) -> None:
        self._merge("bytes", event.key, event.offset, event.data)

    def _on_call_ready(self, event: CallReady) -> None:
        call = event.call
        self._open_calls.pop(call.id, None)
        self._last_call = call.id
        self.calls_ready += 1
        self._row("ready", f"ready {call.id} {call.name}", call.offset)
        previous = self.tools.pop(call.id, None)
        if previous is not None:
            self._freeze_entry(previous)
        row = self._new_row(call)
        self.tools[call.id] = row
        while len(self.tools) > MAX_TOOLS:
            oldest = next(iter(self.tools))
            if self.tools[oldest].running:
                break
            del self.tools[oldest]
        self._assistant = None
        self._thinking = None
        self._entry("call", "", call_id=call.id, tool=row)
        self.mark("tools")

    def _on_contract_error(self, event: ContractError) -> None:
        index = self.current.index if self.current else 0
        message = self.scrub(event.message)
        self.errors.append(ErrorRow(index, event.kind, message, event.offset))
        self._row("error", f"error {event.kind}", event.offset)
        if not (event.kind == "truncated" and self._cut_shown):  # the ✂ line said it
            self._entry("error", f"{event.kind} at byte {event.offset}: {event.message}")
        self.mark("errors")

    def _on_stream_stopped(self, event: StreamStopped) -> None:
        self._row("stop", f"stop: {event.reason}", event.offset)
        self.note(stop_line(event.reason, event.offset, self._last_call), "stop")

    def _on_response_started(self, event: ResponseStarted) -> None:
        self.progress.response_started()
        self._thinking = None
        self._retry = None
        self._response_started()
        self._new_response(event.mode, event.request_index)

    def _on_response_ended(self, event: ResponseEnded) -> None:
        if self.current is not None:
            self.current.finish_reason = event.finish_reason
        self.progress.response_ended(event.tokens)
        self._row("response", f"response ended: {event.finish_reason}", self.consumed)
        self._response_ended(event.finish_reason, event.detail)
        self.mark("status")

    def _on_assistant_text(self, event: AssistantText) -> None:
        self._thinking = None
        self._reported_prose(event.text)

    def _on_user_message(self, event: UserMessage) -> None:
        for notice in event.notices:  # the session's words, not the person's: a note
            self.note(f"the model was told with this message: {notice}")
        if event.text or not event.notices:
            self.add_user(event.text)

    def _on_server_tool(self, event: ServerTool) -> None:
        # the provider ran it inside the response; Frontier never does
        self.note(f"⚙ the provider ran its own tool {self.scrub(event.name)} (not run here)")

    def _on_reasoning_text(self, event: ReasoningText) -> None:
        buf = self.current or self._new_response("?")
        buf.think(event.text, self.scrub if self.scrubber else None, self._scrub_window())
        self.progress.chunk(self.clock())
        self._thinking_text(event.text)
        self.mark("raw")

    def _on_tool_started(self, event: ToolStarted) -> None:
        row = self._tool(event.call)
        row.state = "running"
        row.started = self.clock()
        self._touch_call(event.call.id)

    def _on_tool_output(self, event: ToolOutput) -> None:
        row = self.tools.get(event.call_id)
        if row is not None:
            self._tool_output(row, event.data)
            row.version += 1
            self.mark("tools", "transcript")

    def _on_tool_finished(self, event: ToolFinished) -> None:
        result = event.result
        row = self.tools.get(result.call_id)
        if row is None:  # a call cut off before it was ready: the ✂ line may name it
            call = ToolCall(result.call_id, result.name, {})
            said = result.kind == "truncated" and self._cut_shown
            row = self._tool(call, entry=not said)
        row.state = result.kind
        row.exit_code = result.exit_code
        row.elapsed = result.elapsed
        output = self.scrub(result.output)
        row.message = output.strip().splitlines()[0][:200] if output else ""
        if row.partial:
            row.add_lines([row.end_line()])
        row.finish(output)
        self._keep_output(row)
        row.changes = tuple(map(self.scrub, change_lines(result.meta, SHOWN_CHANGES)))
        row.ran = tuple(map(self.scrub, ran_under(result.meta)))
        row.where = sandbox_word(result.meta)
        self._touch_call(result.call_id)

    def _on_retry(self, event: Retry) -> None:
        """Retries of one failure are one line that counts them (the server's message
        once, not once per attempt)."""
        reason = self.scrub(" ".join(event.reason.split()))
        failure = reason.split(" — ", 1)[0]
        text = retry_line(event, reason)
        entry = self._retry
        if entry is not None and self._retry_failure == failure and entry in self.transcript:
            entry.text = text
            entry.version += 1
            self.mark("transcript")
        else:
            self._retry = self._entry("stop", text)
            self._retry_failure = failure

    def _on_repair_requested(self, event: RepairRequested) -> None:
        self.note(repair_line(event.kind, event.attempt), "stop")

    def _on_response_continued(self, event: ResponseContinued) -> None:
        (self.current or self._new_response("?")).joins.append((event.offset, event.echo_skipped))
        self._row("continued", f"⟂ continued at byte {event.offset:,}", event.offset)
        self.note(continued_line(event), "stop")
        self.mark("raw")

    def _on_context_usage(self, event: ContextUsage) -> None:
        self.progress.context_used = event.used
        if event.source == ASSUMED and not self._assumed_told:
            self._assumed_told = True
            self.note(assumed_window_text(event.window))
        self.mark("status")

    def _on_summarising(self, event: Summarising) -> None:
        self.note(
            f"⇣ summarising {_rounds(event.rounds)} to fit the context "
            f"({event.before:,} of {event.window:,} tokens)…"
        )

    def _on_compacted(self, event: Compacted) -> None:
        self.note(compaction_line(event))
        self.progress.context_used = event.after
        self.mark("status")

    def _on_turn_ended(self, event: TurnEnded) -> None:
        self.turn_running = False
        self.progress.end_turn()
        self.last_turn = event.reason
        self._retry = None
        marked = self._turn_ended(event.reason)
        self._end_unfinished_calls()
        if event.reason == "cancelled":
            if not marked:  # said once: on the reply it cut, or here
                self.note(f"⏹ {interrupted_words(self.stop_key)}: the turn stopped", "stop")
        elif event.reason != "done":
            self.note(f"turn ended: {event.reason} {event.message}".strip())
        self.stop_key = ""
        self._assistant = None
        self.mark("status")

    def _end_unfinished_calls(self) -> None:
        """A turn that ended (ctrl+c, an error) ends its calls: a cancelled task reports
        no result, so a row still running, in review or waiting would say so forever."""
        for row in self.tools.values():
            if row.state in ("running", "review", "ready"):
                row.state = "cancelled" if row.state == "running" else "not run"
                if row.started is not None and row.elapsed is None:
                    row.elapsed = max(0.0, self.clock() - row.started)
                self._touch_call(row.call.id)

    def _tool_output(self, row: ToolRow, data: str) -> None:
        """A running tool's output: complete lines join the tail (scrubbed, then cut to
        their ends), the open line grows; a prefix of a key waits for the rest of it."""
        scrub = self.scrub if self.scrubber is not None else pictured
        window = self._scrub_window()
        pieces = data.split("\n")
        row.grow(pieces[0], scrub, window)
        if len(pieces) == 1:
            return
        row.add_lines([row.end_line(), *(display.cut_line(self.scrub(x)) for x in pieces[1:-1])])
        row.grow(pieces[-1], scrub, window)

    def _keep_output(self, row: ToolRow) -> None:
        """Hold ``row``'s whole result for the pager within ``OUTPUT_BUDGET``: the
        oldest rows' results go first (their fold stays)."""
        self._outputs.append(row)
        self._output_chars += len(row.output)
        while self._output_chars > OUTPUT_BUDGET and len(self._outputs) > 1:
            old = self._outputs.popleft()
            self._output_chars -= len(old.output)
            old.output_dropped, old.output = len(old.output), ""
            old.version += 1

    def set_tool_state(self, call: ToolCall, state: str) -> None:
        row = self._tool(call)
        row.state = state
        self._touch_call(call.id)

    # ------------------------------------------------------------------ helpers
    def _new_response(self, mode: str, request_index: int = 0) -> ResponseBuffer:
        self.response_count += 1
        buf = ResponseBuffer(index=self.response_count, mode=mode, request_index=request_index)
        self.responses.append(buf)
        self._row("response", f"response {buf.index} ({mode})", 0)
        self.mark("raw", "pending", "status")
        return buf

    def _tool(self, call: ToolCall, *, entry: bool = True) -> ToolRow:
        row = self.tools.get(call.id)
        if row is None:
            row = self._new_row(call)
            self.tools[call.id] = row
            if entry:
                self._entry("call", "", call_id=call.id, tool=row)
        return row

    def _new_row(self, call: ToolCall) -> ToolRow:
        summary, more = call_summary(call)
        return ToolRow(call=call, summary=self.scrub(summary), more=more)

    def _freeze_entry(self, row: ToolRow) -> None:
        """A resent call reuses its id: the earlier attempt's entry keeps its own row as
        it ended (``TranscriptEntry.tool``) and no longer answers to the id."""
        for entry in reversed(self.transcript):
            if entry.call_id == row.call.id:
                entry.call_id = None
                entry.version += 1
                break

    def _touch_call(self, call_id: str) -> None:
        for entry in reversed(self.transcript):
            if entry.call_id == call_id:
                entry.version += 1
                break
        self.mark("tools", "transcript")

    def _row(self, kind: str, label: str, offset: int) -> None:
        self._row_ids += 1
        self.confirmed.append(ConfirmedRow(self._row_ids, kind, self.scrub(label), offset))
        self.mark("confirmed")

    def _merge(self, kind: str, label: str, offset: int, data: bytes) -> None:
        last = self.confirmed[-1] if self.confirmed else None
        if last is not None and last.kind == kind and last.label == label:
            last.nbytes += len(data)
            last.tail = self._mask_tail(last.tail, data, PREVIEW_BYTES + 3)
            last.preview = _preview(last.tail)
            last.version += 1
        else:
            self._row(kind, label, offset)
            row = self.confirmed[-1]
            row.nbytes = len(data)
            row.tail = self._mask_tail(b"", data, PREVIEW_BYTES + 3)
            row.preview = _preview(row.tail)
        self.mark("confirmed")

    def _entry(
        self, role: str, text: str, call_id: str | None = None, tool: ToolRow | None = None
    ) -> TranscriptEntry:
        self._entry_ids += 1
        entry = TranscriptEntry(self._entry_ids, role, text, call_id, self.scrub, tool)
        self.transcript.append(entry)
        self.mark("transcript")
        return entry

    def _thinking_text(self, text: str) -> None:
        """Reasoning grows one dimmed, collapsible block per stretch of it."""
        if self._thinking is None or self._thinking is not self.transcript[-1]:
            self._thinking = self._entry("thinking", "")
        entry = self._thinking
        entry.append_text(text, self._scrub_window())
        if len(entry.text) > ASSISTANT_TEXT_CAP:
            entry.text = "…" + entry.text[-ASSISTANT_TEXT_CAP // 2 :]
        entry.version += 1
        self.mark("transcript")

    def toggle_thinking(self) -> None:
        """Show reasoning blocks whole, or folded to their last lines (ctrl+t)."""
        self.thinking_expanded = not self.thinking_expanded
        for entry in self.transcript:
            if entry.role == "thinking":
                entry.version += 1
        self.mark("transcript")

    def _assistant_text(self, text: str) -> None:
        """Add prose to the reply being shown (a new ``ai`` entry after anything else)."""
        if self._assistant is None or self._assistant is not self.transcript[-1]:
            if not text.strip():
                return  # whitespace before a reply shows nothing (and the loop reports none)
            self._assistant = self._entry("ai", "")
        entry = self._assistant
        assert entry.prose is not None
        entry.prose.append(text)  # bounded: whole blocks drop off the head
        entry.version += 1
        self.mark("transcript")

    # ------------------------------------------------------------------ live prose
    # The loop reports prose (``AssistantText``) only when a call starts and when the
    # response ends, so the Transcript streams it from the ``Confirmed`` text itself,
    # decoded as the loop decodes it; the report that follows is then matched against
    # what is already shown (replay and the test loop report each piece as it comes).
    # Only confirmed bytes ever become prose: the pending tail is not shown here.

    def _stream_prose(self, data: bytes) -> None:
        piece = self._decoder.decode(data)
        if piece:
            self._streamed.append(piece)
            self._assistant_text(piece)

    def _call_started(self, call_id: str, name: str) -> None:
        # the loop reports the prose before a call right after the call's header (when
        # it is more than whitespace): that report is expected, and already shown
        stretch = "".join(self._streamed)
        self._streamed.clear()
        self._expected = stretch if stretch.strip() else None
        self._assistant = None
        self._open_calls[call_id] = name
        self._last_call = call_id

    def _reported_prose(self, text: str) -> None:
        """An ``AssistantText``: show only what streaming has not shown already."""
        if self._expected is not None:
            shown, self._expected = self._expected, None
        elif self._streamed:
            shown = "".join(self._streamed)
            self._streamed.clear()
        else:
            self._assistant_text(text)  # nothing streamed (history, another source)
            return
        if text.startswith(shown):
            extra = text[len(shown) :]  # the loop's decoder flushed a cut-off character
        elif shown.startswith(text):
            self._streamed.insert(0, shown[len(text) :])
            extra = ""
        else:
            extra = text
        if extra:
            self._assistant_text(extra)

    def _reset_prose(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._streamed.clear()
        self._expected = None

    def _response_started(self) -> None:
        self._assistant = None  # one reply per response (consecutive ones never merge)
        self._reset_prose()
        self._streaming = True
        self._open_calls.clear()
        self._cut_shown = False

    def _response_ended(self, reason: str, detail: str) -> None:
        self._streaming = False
        if not is_clean(reason) and reason not in ("error", "stopped"):
            self.note(cut_line(reason, detail, self.consumed, self._open_calls), "stop")
            self._cut_shown = True

    def _turn_ended(self, reason: str) -> bool:
        """True when a cancelled turn cut the reply it ends with (which is then marked:
        the loop kept what was confirmed). That reply is the newest entry: live, it was
        streaming; from history, the stored reply was marked interrupted."""
        reply = self._assistant
        cut = (
            reason == "cancelled"
            and reply is not None
            and (self._streaming or self.current is None)  # (history: no response)
            and bool(self.transcript)
            and self.transcript[-1] is reply
        )
        if cut and reply is not None:
            reply.interrupted = True
            reply.interrupted_by = self.stop_key
            reply.version += 1
            self.mark("transcript")
        self._streaming = False
        self._reset_prose()
        return cut

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
        self._entry("session", heading)
        self.mark(*PANES)

    def _reset_panes(self) -> None:
        """Every pane but the Transcript starts empty; the calls in the Transcript keep
        their rows (``TranscriptEntry.tool``) but no longer answer to their ids."""
        for row in list(self.tools.values()):
            self._freeze_entry(row)
        self.tools.clear()
        self.responses.clear()
        self.confirmed.clear()
        self.errors.clear()
        self.response_count = 0
        self.bytes_seen = 0
        self.calls_ready = 0
        self.last_turn = ""
        self.pending_bound = 4096
        self.wait = ResponseWait()
        self.progress = TurnProgress()
        self._assistant = None
        self._thinking = None
        self._streaming = False
        self._open_calls.clear()
        self._last_call = ""
        self._retry = None
        self._reset_prose()


Handler = Callable[[UiState, Any], None]
HANDLERS: dict[type[Event], Handler] = {
    StreamBytes: UiState._on_stream_bytes,
    Confirmed: UiState._on_confirmed,
    CallStarted: UiState._on_call_started,
    ArgStarted: UiState._on_arg_started,
    ArgBytes: UiState._on_arg_bytes,
    CallReady: UiState._on_call_ready,
    ContractError: UiState._on_contract_error,
    StreamStopped: UiState._on_stream_stopped,
    ResponseStarted: UiState._on_response_started,
    ResponseEnded: UiState._on_response_ended,
    AssistantText: UiState._on_assistant_text,
    UserMessage: UiState._on_user_message,
    ServerTool: UiState._on_server_tool,
    ReasoningText: UiState._on_reasoning_text,
    ToolStarted: UiState._on_tool_started,
    ToolOutput: UiState._on_tool_output,
    ToolFinished: UiState._on_tool_finished,
    Retry: UiState._on_retry,
    RepairRequested: UiState._on_repair_requested,
    ResponseContinued: UiState._on_response_continued,
    ContextUsage: UiState._on_context_usage,
    Summarising: UiState._on_summarising,
    Compacted: UiState._on_compacted,
    TurnEnded: UiState._on_turn_ended,
}
"""Event type -> the ``UiState`` method that applies it (built once; ``apply`` looks the
exact type up, so the hot ``StreamBytes`` costs one dict look-up)."""
IGNORED: frozenset[type[Event]] = frozenset(
    {
        # the live controller shows these (the messages as typed, with their notes)
        QueuedDelivered,
        # the App's review modal asks and closes (``app.review``) and sets the row's state
        ApprovalRequested,
        ApprovalResolved,
    }
)
"""Event types no pane state shows: listed, so a new event type must be one or the other
(``tests/test_tui_tool_output.py`` checks every class in ``app/events.py``)."""
