"""One tool call as the panes show it: the object the Tools pane and the Transcript share.

The Tools model makes and updates a ``ToolRow``; the Transcript's ``call`` entry holds
the same object (``TranscriptEntry.tool``), so a row's state, output tail and fold reach
both panes with no copy, and an entry keeps its row after the Tools pane lets it go.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from frontier.app.events import ToolCall
from frontier.app.record import field, record
from frontier.widgets import display
from frontier.widgets.display import LINE_KEEP
from frontier.widgets.pane_state.shared import LiveScrub, Scrub

TOOL_TAIL = 50
"""Output lines kept per tool (the pane shows the last few)."""
FOLD = 4
"""Output lines a Transcript tool row shows (``… N more lines`` says the rest)."""
STREAM_KEEP = 1 << 20
"""Characters of a running call's streamed output kept for the pager (the newest)."""
OPEN_LINE_LIMIT = 2 * LINE_KEEP + 64
"""Characters of a tool's open output line kept whole; beyond, its head and tail."""


@record(frozen=False)
class ToolRow:
    """One call as the Tools pane and its Transcript entry both show it."""

    call: ToolCall
    summarize: Callable[[ToolCall], tuple[str, int]] = field(repr=False, compare=False)
    """The call's key argument in a few words (scrubbed) and how many more lines it has:
    made when a pane first shows the row (``summary``, ``more``), not when the call is
    ready: a replay at full speed readies thousands of calls a second and shows a few
    (an apply_patch summary parses the whole patch)."""
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
    live: LiveScrub = field(default_factory=LiveScrub, repr=False, compare=False)
    """The open line's raw end, scrubbed again with each piece."""
    message: str = ""
    output: str = ""
    """The finished call's whole result text as the model got it (capped by the tool
    boundary): what "copy" puts on the clipboard."""
    changes: tuple[str, ...] = ()
    """A finished mutation's ``M path (+3 −1)`` lines (the first few, then ``+N more``),
    or ``already applied``; from the result's ``meta``, never from the patch text."""

    checks: tuple[tuple[str, bool], ...] = ()
    """The after-edit checks that ran on its files: a line each and whether it failed
    (``app/check_text.py``)."""

    output_first: bool = False
    """A finished call whose own output is shown before its files (a command's:
    ``patch_summary.output_first``)."""
    where: str = ""
    """Where a finished command ran, in a word or two (``sandbox``, ``outside``...: the
    Tools pane's field); empty for a call that ran no command."""
    ran: tuple[str, ...] = ()
    """The same in full (``sandbox_text.ran_under``): lines under the Transcript row."""
    streamed: deque[str] = field(default_factory=deque)
    """A running call's complete output lines (scrubbed, each cut to its ends), the
    newest ``STREAM_KEEP`` characters, in blocks of lines joined by newlines (one a piece
    of output): what the pager shows until the result comes."""
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

    _summarized: tuple[str, int] | None = field(default=None, repr=False, compare=False)

    @property
    def summary(self) -> str:
        """The key argument of the call in a few words (``call_summary``, scrubbed)."""
        return self._summary()[0]

    @property
    def more(self) -> int:
        """Lines of the key argument beyond the one ``summary`` shows (``(+41 lines)``)."""
        return self._summary()[1]

    def _summary(self) -> tuple[str, int]:
        said = self._summarized
        if said is None:
            said = self._summarized = self.summarize(self.call)
        return said

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
        that it was let go), else the output streamed so far (the newest ``STREAM_KEEP``
        characters, after a line saying how many earlier lines were let go)."""
        if self.output:
            return self.output
        if self.output_dropped:
            kept = "\n".join(self.fold)
            return (
                f"[the whole output ({self.output_dropped:,} characters) is no longer held "
                f"here; the export has it. Shown in the Transcript:]\n{kept}"
            )
        streamed = self.streamed or self.tail
        held = sum(block.count("\n") + 1 for block in self.streamed) or len(self.tail)
        earlier = self.output_lines - held
        note = [f"[… {earlier:,} earlier lines are no longer held here]"] if earlier > 0 else []
        return "\n".join([*note, *streamed, *([self.open_line] if self.partial else [])])

    def live_tail(self, count: int = FOLD) -> list[str]:
        """The last ``count`` output lines of a running call, the open line included."""
        lines = list(self.tail)[-count:]
        if self.partial:
            lines = [*lines, self.open_line][-count:]
        return lines

    def finish(self, output: str, own: str | None = None) -> None:
        """Keep ``output`` (scrubbed) whole and fold it — ``own``, its part before the
        notes Frontier appended for the model, when given; the streamed copy goes."""
        self.output = output
        self.streamed.clear()
        self.streamed_chars = 0
        folded = output if own is None else own
        lines = folded.rstrip("\n").split("\n") if folded.strip() else []
        self.lines = len(lines)
        shown = lines[-FOLD:] if self.failed else lines[:FOLD]
        self.fold = tuple(display.cut_line(line) for line in shown)
        self.version += 1

    def add_lines(self, lines: list[str]) -> None:
        """Complete output lines: the pane's tail and the pager's bounded copy, kept as one
        block a piece of output and trimmed at line ends, with no work per line: a command
        printing 3,000,000 lines held its output in the pipe 2.6 s (the command: 0.05 s)."""
        if not lines:
            return
        self.tail.extend(lines[-TOOL_TAIL:])
        self.output_lines += len(lines)
        block = "\n".join(lines)
        self.streamed.append(block)
        self.streamed_chars += len(block) + 1
        self._trim_streamed()

    def _trim_streamed(self) -> None:
        """Drop the oldest lines while more than ``STREAM_KEEP`` characters are kept (the
        newest line stays whatever its length)."""
        streamed = self.streamed
        excess = self.streamed_chars - STREAM_KEEP
        while excess > 0:
            oldest = streamed[0]
            if len(streamed) > 1 and len(oldest) + 1 <= excess:
                streamed.popleft()
                self.streamed_chars -= len(oldest) + 1
                excess -= len(oldest) + 1
                continue
            # the fewest of its first lines whose characters (newlines included) cover it
            end = oldest.find("\n", excess - 1)
            if end < 0:
                end = len(oldest) if len(streamed) > 1 else oldest.rfind("\n")
            if end < 0:
                return  # one line left: it stays
            if end >= len(oldest):
                streamed.popleft()
                self.streamed_chars -= len(oldest) + 1
            else:
                streamed[0] = oldest[end + 1 :]
                self.streamed_chars -= end + 1
            return

    @property
    def open_line(self) -> str:
        """The open output line as a pane may show it (its middle cut when long)."""
        if not self.partial_head:
            return display.cut_line(self.partial)
        hidden = self.partial_dropped + max(0, len(self.partial) - LINE_KEEP)
        return f"{self.partial_head} … {hidden:,} characters … {self.partial[-LINE_KEEP:]}"

    def grow(self, piece: str, scrub: Scrub | None, window: int) -> None:
        """Add ``piece`` to the open line: only the tail a secret may span is scrubbed
        again, and past ``OPEN_LINE_LIMIT`` only the head and the tail are kept — one
        20 MB line streamed in 64 KiB chunks was scrubbed whole at every chunk
        (quadratic), and a pane only ever shows its ends."""
        self.partial = self.live.append(self.partial, piece, scrub, window)
        if len(self.partial) > OPEN_LINE_LIMIT + window:
            # Only settled text is let go: the part the next piece scrubs again stays.
            scrubbing = self.live.shown
            if not self.partial_head and len(self.partial) - scrubbing >= LINE_KEEP:
                self.partial_head = self.partial[:LINE_KEEP]
                self.partial = self.partial[LINE_KEEP:]
            drop = len(self.partial) - max(LINE_KEEP + window, scrubbing)
            if self.partial_head and drop > 0:
                self.partial_dropped += drop
                self.partial = self.partial[drop:]

    def end_line(self) -> str:
        """Close the open line: what the tail keeps of it."""
        line = self.open_line
        self.live.reset()
        self.partial, self.partial_head, self.partial_dropped = "", "", 0
        return line
