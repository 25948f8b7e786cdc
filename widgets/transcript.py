"""The Transcript pane: user messages, confirmed assistant prose, calls and notes.

A ``BlockView`` (line API): one block per entry, keyed by entry id, version and
its call's state, so a flush measures only new entries and the pane wraps only
the lines that are visible. Growing never lays out the screen, so a replay with
thousands of calls costs a few look-ups per flush instead of re-wrapping the
whole transcript.

A reply is Markdown (rich's renderer: headings, emphasis, lists, tables, code
with syntax colours in the theme's ``syntax-style``), one block per top-level
Markdown block (``widgets/prose.py``): a finished block is rendered once and
kept by its key, and only the block still growing is rendered again, so a 1 MB
reply streams at the cost of its last few kilobytes per paint.
"""

from __future__ import annotations

import functools
import io
from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from itertools import repeat
from typing import ClassVar

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.padding import Padding
from rich.segment import Segment
from rich.styled import Styled
from rich.table import Table
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.theme import Theme

from frontier.themes.palette import theme_variable
from frontier.widgets.block_view import Block, BlockView
from frontier.widgets.display import cut_lines, display_preview, message_ends, more_lines
from frontier.widgets.prose import ProseBlock
from frontier.widgets.state import FOLD, ToolRow, TranscriptEntry, interrupted_words
from frontier.widgets.tools_pane import OpenToolOutput, state_label

_ROLE = {"you": ("you ", "bold reverse"), "ai": ("ai  ", "bold"), "note": ("·   ", "dim")}
PLACEHOLDER = Text(
    "Type a message below and press Enter. Calls appear here as soon as the "
    "model's bytes prove them complete.",
    style="dim",
)
GUTTER = 5
"""Cells left of a reply's Markdown (``ai`` and a space, then the hanging indent)."""
INTERRUPTED = "the reply stopped here; what was confirmed is kept"
CALL_GUTTER = 2
"""Cells of a tool row's marker (``▸ ``): its output and result line hang under its name."""


THINKING_FOLDED = 3
"""Lines of a reasoning block shown while it is folded (ctrl+t shows it whole)."""


def render_thinking(entry: TranscriptEntry, expanded: bool) -> Text:
    """The model's reasoning: dimmed, and folded to its last lines unless expanded."""
    lines = entry.text.strip("\n").split("\n")
    shown = lines if expanded else lines[-THINKING_FOLDED:]
    head = Text.assemble(("think", "dim reverse"), " ")
    hidden = len(lines) - len(shown)
    lines_word = "line" if hidden == 1 else "lines"
    fold = "ctrl+t folds" if expanded else f"{hidden} more {lines_word} · ctrl+t shows all"
    if hidden or expanded:
        head.append(f"({len(entry.text):,} chars · {fold})\n", style="dim")
    head.append(cut_lines("\n".join(shown)), style="dim italic")  # a line's ends only
    return head


def render_entry(
    entry: TranscriptEntry, tool: ToolRow | None, now: float, *, expanded: bool = False
) -> Text:
    """Every entry but a reply's Markdown (``prose_blocks``) as one ``Text``."""
    if entry.role == "thinking":
        return render_thinking(entry, expanded)
    if entry.role == "call":
        return render_call(entry, tool)
    if entry.role == "error":
        return Text.assemble(("err ", "bold reverse"), " ", (cut_lines(entry.text), "bold"))
    if entry.role == "stop":  # a stopped stream, a cut-off response, a repair: one line
        glyph, _, rest = entry.text.partition(" ")
        return Text.assemble((glyph, "bold"), "    ", (cut_lines(rest), "italic"))
    if entry.role == "session":
        heading = display_preview(entry.text, one_line=True)
        return Text.assemble(("━━ ", "bold"), (heading, "bold"), (" ━━", "bold"))
    label, style = _ROLE.get(entry.role, ("    ", ""))
    text = entry.text
    if entry.role == "you":  # a pasted log: its ends (the model and /export get it whole)
        text = message_ends(text)
    # a note or a message can hold a file's line (a tool's first output line, a pasted
    # file): only its ends reach rich's wrapping
    body = Text(cut_lines(text), style="dim italic" if entry.role == "note" else "")
    return Text.assemble((label, style), " ", body)


def _seconds(elapsed: float) -> str:
    return f"{elapsed:.2f} s" if elapsed < 10 else f"{elapsed:.1f} s"


def _lines_word(count: int) -> str:
    return f"{count:,} line{'s' * (count != 1)}"


def render_call(entry: TranscriptEntry, tool: ToolRow | None, *, selected: bool = False) -> Text:
    """A tool row: ``▸`` (it opens in the pager) or ``•``, the call, then its output
    folded — the first ``FOLD`` lines, or a failed call's last, and how many more — or a
    running call's live tail, then the result line (``ok exit=0 · 1.20 s``). A finished
    mutation lists its files instead of its output. Every line after the first is one
    row (cut with ``…``: ``Hanging``), each output line display text."""
    text = Text()
    marker = "▸ " if tool is not None and tool.opens else "• "
    text.append(marker, style="bold reverse" if selected else "bold")
    if tool is None:
        text.append(display_preview(entry.call_id or "?", one_line=True, limit=40))
        return text
    text.append(f"{display_preview(tool.call.id, one_line=True, limit=40)} ", style="dim")
    text.append(f"{display_preview(tool.call.name, one_line=True, limit=40)} ", style="bold")
    text.append(tool.summary, style="bold" if selected else "")
    text.append(more_lines(tool.more), style="bold")  # `echo safe` is not all that runs
    if not tool.finished:
        text.append(f"  {state_label(tool)}", style="italic")
        earlier = tool.output_lines + bool(tool.partial) - FOLD
        if tool.running and earlier > 0:
            text.append(f"\n  … {_lines_word(earlier)} earlier", style="dim")
        for line in tool.live_tail() if tool.running else ():
            text.append(f"\n  {display_preview(line, one_line=True)}", style="dim italic")
        return text
    if not tool.changes or tool.output_first:  # a command's output stays: its files after it
        hidden = tool.lines - len(tool.fold)
        if hidden > 0 and tool.failed:
            text.append(f"\n  … {_lines_word(hidden)} earlier", style="dim")
        for line in tool.fold:
            text.append(f"\n  {display_preview(line, one_line=True)}", style="dim")
        if hidden > 0 and not tool.failed:
            text.append(f"\n  … {hidden:,} more line{'s' * (hidden != 1)}", style="dim")
    for line in tool.changes:  # a finished mutation's files, one per line
        text.append(f"\n  {display_preview(line, one_line=True)}", style="dim")
    for line, failed in tool.checks:  # the after-edit checks, formatters, an unrecorded command
        text.append(f"\n  {display_preview(line, one_line=True)}", "bold" if failed else "dim")
    text.append("\n  ")
    text.append(state_label(tool), style="bold underline" if tool.failed else "bold")
    if tool.elapsed is not None:
        text.append(f" · {_seconds(tool.elapsed)}", style="dim")
    for n, line in enumerate(tool.ran):
        text.append((" · " if n == 0 else "\n  ") + display_preview(line, one_line=True), "dim")
    return text


_WARMED: set[str] = set()


def warm_renderers(code_theme: str) -> None:
    """Load the Markdown renderer and pygments' lexer and ``code_theme`` style once, by
    rendering a little of each, on a thread: ``Transcript`` runs it soon after mounting,
    and a resume's build first (its history is shown as soon as it is read)."""
    if code_theme in _WARMED:
        return
    from rich.syntax import Syntax

    from frontier.widgets.prose_render import ProseMarkdown

    ProseMarkdown("*warm*")
    Console(file=io.StringIO(), width=20).render_lines(
        Syntax("x = 1", "python", theme=code_theme), pad=False
    )
    _WARMED.add(code_theme)


def code_theme_of(theme: Theme | None) -> str:
    """The pygments style of an app's theme (what the review's diffs use)."""
    return theme_variable(theme, "syntax-style", "monokai")


class Hanging:
    """An entry with its label in a gutter and every wrapped line hanging under its text
    (not under the label), for every role. ``single``: every line after the first is one
    row, cut with ``…`` (a tool row's output lines and result: a row never wraps)."""

    def __init__(self, text: Text, gutter: int, *, single: bool = False) -> None:
        self.text = text
        self.gutter = gutter
        self.single = single

    def fits(self, width: int) -> bool:
        """One row at ``width`` (``BlockView`` then needs no render to measure it)."""
        return "\n" not in self.text.plain and self.text.cell_len <= width

    def estimate(self, width: int) -> int:
        """Rows at ``width`` from the text's length, without wrapping it (a word wrap
        may take a row more): ``BlockView`` renders only the entries that come into
        view, so resuming a thousand calls measures them in a few ms, not ~25 ms."""
        room = max(self.gutter + 8, width) - self.gutter
        rows = [
            -(-cell_len(line) // room) or 1 for line in self.text.plain[self.gutter :].split("\n")
        ]
        return rows[0] + len(rows) - 1 if self.single else sum(rows)  # single: one row each

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(self.gutter + 8, options.max_width)
        room = width - self.gutter
        label, body = self.text[: self.gutter], self.text[self.gutter :]
        pad = Text(" " * label.cell_len)  # a wide glyph (⏹) takes two cells
        for n, line in enumerate(body.split("\n", allow_blank=True)):
            if n and self.single:
                line.truncate(room, overflow="ellipsis")
                rows = [line]
            else:
                rows = list(line.wrap(console, room)) or [Text()]
            for m, row in enumerate(rows):
                out = Text.assemble(label if n == m == 0 else pad, row, no_wrap=True, end="")
                yield from out.render(console, end="")
                yield Segment.line()


def hanging(entry: TranscriptEntry, text: Text) -> Text | Hanging:
    """``text`` laid out with its hanging indent (thinking and a session rule as they are)."""
    if entry.role == "call":
        return Hanging(text, CALL_GUTTER, single=True)
    if entry.role in ("thinking", "session"):
        return text
    return Hanging(text, GUTTER)


def entry_text(
    entry: TranscriptEntry, tool: ToolRow | None, width: int, now: float = 0.0
) -> list[str]:
    """The rows of ``entry`` at ``width`` cells as a user reads them (tests, and the
    text of the Transcript without a screen)."""
    console = Console(width=width, file=io.StringIO(), color_system=None, legacy_windows=False)
    shown = hanging(entry, render_entry(entry, tool, now))
    return [
        "".join(s.text for s in line).rstrip()
        for line in console.render_lines(shown, console.options, pad=False)
    ]


# ---------------------------------------------------------------------- Markdown replies
class _Trimmed:
    """A renderable without its leading and trailing blank lines (rich pads tables and
    lists with them; the Transcript puts one blank line between blocks itself)."""

    def __init__(self, body: RenderableType) -> None:
        self.body = body

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.body, options, pad=False)
        start, end = 0, len(lines)
        while start < end and _blank(lines[start]):
            start += 1
        while end > start and _blank(lines[end - 1]):
            end -= 1
        new_line = Segment.line()
        for line in lines[start:end]:
            yield from line
            yield new_line


def _blank(line: list[Segment]) -> bool:
    return all(not segment.text.strip() for segment in line)


def render_prose(block: ProseBlock, code_theme: str) -> RenderableType:
    """One block of a reply: Markdown, or a piece of a fenced code block (highlighted as
    its language says; the pieces of a long fence draw as one). The renderer (rich's
    Markdown, markdown-it, pygments: a fifth of the TUI's imports) loads with the first
    reply, not before the first paint."""
    from frontier.widgets.prose_render import ProseMarkdown, render_code

    if block.kind == "code":
        return render_code(block, code_theme)
    return _Trimmed(ProseMarkdown(block.text, code_theme=code_theme))  # prose_render.py


class _Lazy:
    """A reply's block, built and rendered only when the Transcript first shows it;
    until then :meth:`estimate` (from its source, no Markdown parse) stands for its
    height, so a flush that brings hundreds of blocks renders only those in view."""

    def __init__(self, make: Callable[[], RenderableType], block: ProseBlock, gap: int) -> None:
        self._make = make
        self._body: RenderableType | None = None
        self._block = block
        self._gap = gap

    def estimate(self, width: int) -> int:
        inner = max(8, width - GUTTER)
        lines = sum(-(-len(line) // inner) for line in self._block.text.split("\n") if line.strip())
        return self._gap + max(1, lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self._body is None:
            self._body = self._make()
        yield self._body

    def dimmed(self) -> _Lazy:
        """The same block, dimmed (a reply the model no longer gets: ``forgotten``)."""
        return _Lazy(lambda: Styled(self._make(), "dim"), self._block, self._gap)


def _labelled(label: Text, body: RenderableType) -> RenderableType:
    grid = Table.grid(padding=0, expand=True)
    grid.add_column(width=GUTTER, no_wrap=True)
    grid.add_column(ratio=1)
    grid.add_row(label, body)
    return grid


def _gap(block: ProseBlock, previous: ProseBlock | None) -> int:
    """A blank line between two blocks, but not inside a long fence or table cut in two."""
    if previous is None:
        return 0
    if block.kind == "code" and not block.opens:
        return 0
    return 0 if block.repeated else 1


def prose_blocks(
    entry: TranscriptEntry, code_theme: str, memo: dict[int, Block] | None = None
) -> Iterator[tuple[Hashable, Callable[[], RenderableType]] | Block]:
    """A reply's blocks as ``(key, render)``: finished blocks keep their key for good,
    the growing one changes it with every piece, so only that one is rendered again.

    With a ``memo`` (the Transcript's, per reply), a finished block that is not the
    first one shown is yielded as the ``(key, renderable)`` it was made into before (and
    recorded there the first time), so a paint builds only its new blocks' keys."""
    prose = entry.prose
    assert prose is not None
    label = Text("ai", style="bold")
    first = True
    if prose.dropped:
        note = Text(
            f"… {prose.dropped:,} earlier characters of this reply are not shown "
            "(the export has them)",
            style="dim italic",
        )
        yield (entry.id, "dropped", prose.dropped), lambda: _labelled(label, note)
        first = False
    previous: ProseBlock | None = None
    tail = prose.tail
    growing = tail.index if tail is not None else -1
    for block in prose.blocks():
        index = block.index
        steady = memo is not None and previous is not None and index != growing
        if steady:
            hit = memo.get(index)  # type: ignore[union-attr]
            if hit is not None:
                yield hit
                first = False
                previous = block
                continue
        version = prose.version if index == growing else 0
        gap = 0 if first else _gap(block, previous)
        key = (entry.id, index, version, first, gap, code_theme)

        def render(
            block: ProseBlock = block, first: bool = first, gap: int = gap
        ) -> RenderableType:
            body = render_prose(block, code_theme)
            if first:
                return _labelled(label, body)
            return Padding(body, (gap, 0, 0, GUTTER))

        if steady:
            made: Block = (key, _Lazy(render, block, gap))
            memo[index] = made  # type: ignore[index]
            yield made
        else:
            yield key, lambda render=render, block=block, gap=gap: _Lazy(render, block, gap)
        first = False
        previous = block
    if first:  # nothing but whitespace yet
        yield (entry.id, "empty"), lambda: Text("ai", style="bold")
    if entry.interrupted:
        mark = Text(f"⏹ {interrupted_words(entry.interrupted_by)}: {INTERRUPTED}", "dim italic")
        yield (
            (entry.id, "interrupted", entry.interrupted_by),
            lambda: Padding(mark, (0, 0, 0, GUTTER)),
        )


SHOWN = 120
"""Entries rendered (the newest); older ones stay in ``UiState`` until its cap drops them."""
OLDER = Text("⋯ older entries are not shown here", style="dim")
"""The first line when there are more entries than ``SHOWN`` (a long session, a resumed one
whose history made more): the top of the scroll is not the session's start."""
NEW_BELOW = Text("↓ new below", style="bold")
"""The Transcript's subtitle while the reader is scrolled up and output arrived below."""


def _pruned(memo: dict[int, Block], entry: TranscriptEntry) -> dict[int, Block]:
    """``memo`` without the blocks the reply dropped from its head (once they add up)."""
    prose = entry.prose
    if prose is None or len(memo) <= len(prose.finished) + 64:
        return memo
    first = prose.finished[0].index if prose.finished else 0
    return {index: block for index, block in memo.items() if index >= first}


class Transcript(BlockView):
    """The newest ``SHOWN`` entries, one block each (a reply: one per Markdown block);
    re-rendered only when an entry's version or its call's state changes."""

    DEFAULT_CSS = """
    Transcript { background: $surface; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "select(-1)", "Previous tool", show=False),
        Binding("down", "select(1)", "Next tool", show=False),
        Binding("enter", "open", "Open output", show=False),
    ]

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock
        self.selected: int | None = None
        """The id of the tool row ↑↓ chose (Enter opens it); marked while focused."""
        self._owners: list[TranscriptEntry | None] = []
        """The entry each block belongs to (``None``: a gap)."""
        self._shown: tuple[Sequence[TranscriptEntry], Mapping[str, ToolRow], bool] | None = None
        self._made: dict[int, tuple[TranscriptEntry, Block]] = {}
        """Per entry id, the block last made for an entry that is not a reply."""
        self._replies: dict[int, tuple[TranscriptEntry, dict[int, Block]]] = {}
        """Per reply, its finished blocks by index (``prose_blocks``' memo): a paint
        builds only the blocks new since the last one, not the whole kept reply's keys."""
        self._kept: dict[Hashable, RenderableType] = {}
        """The last paint's reply blocks not in a memo (the first, the growing one), by key."""
        self._theme = ""
        self.set_blocks([(("placeholder",), PLACEHOLDER)])

    def on_mount(self) -> None:
        # The first reply would load the Markdown renderer and pygments (lexer, style:
        # ~50 ms once per process) in the middle of streaming: do it before, on a thread
        # (on the loop, keys typed as the screen appeared, or during a resume, waited).
        self.set_timer(0.5, self._warm_highlighter)

    def _warm_highlighter(self) -> None:
        self.run_worker(
            functools.partial(warm_renderers, self.code_theme),
            thread=True,
            name="warm-renderers",
            exit_on_error=False,
        )

    @property
    def code_theme(self) -> str:
        return code_theme_of(self.app.current_theme)

    def show(
        self,
        entries: Sequence[TranscriptEntry],
        tools: Mapping[str, ToolRow],
        *,
        thinking_expanded: bool = False,
    ) -> None:
        """Show the state's entries (the App's flush). New output at the tail while the
        reader is scrolled up keeps their place and says so: ``↓ new below`` in the
        border until they reach the end (or send a message: :meth:`to_end`)."""
        before = self._shown
        tail = self._keys[-1:]
        self._paint(entries, tools, thinking_expanded)
        toggled = before is not None and before[2] != thinking_expanded  # ctrl+t, not news
        if tail and self._keys[-1:] != tail and not self.follow and not toggled:
            self.border_subtitle = NEW_BELOW

    def to_end(self) -> None:
        """The reader's own action (a message sent): follow the tail from now on."""
        self.follow = True
        self.border_subtitle = ""
        self.scroll_end(animate=False, immediate=True, x_axis=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.follow and self.border_subtitle:
            self.border_subtitle = ""  # the reader is at the end: nothing new below

    def _paint(
        self,
        entries: Sequence[TranscriptEntry],
        tools: Mapping[str, ToolRow],
        thinking_expanded: bool,
    ) -> None:
        self._shown = (entries, tools, thinking_expanded)
        now = self._clock()
        known = self._made
        made: dict[int, tuple[TranscriptEntry, Block]] = {}
        code_theme = self.code_theme
        if code_theme != self._theme:
            self._theme = code_theme
            self._replies.clear()
            known = {}
        replies: dict[int, tuple[TranscriptEntry, dict[int, Block]]] = {}
        kept: dict[Hashable, RenderableType] = {}
        blocks: list[Block] = []
        owners: list[TranscriptEntry | None] = []
        selected = self.selected if self.has_focus else None
        if len(entries) > SHOWN:
            blocks.append((("older",), OLDER))
            owners.append(None)
        for entry in list(entries)[-SHOWN:]:
            if entry.role == "you" and blocks:
                blocks.append((("gap", entry.id), Text("")))
                owners.append(None)
            if entry.prose is not None:
                reply = self._replies.get(entry.id)
                if reply is None or reply[0] is not entry:
                    reply = (entry, {})
                memo = _pruned(reply[1], entry)
                replies[entry.id] = (entry, memo)
                start = len(blocks)
                dim = entry.forgotten  # taken out of what the model gets (/rewind, /clear)
                for item in prose_blocks(entry, code_theme, memo):
                    key, made_or_render = item
                    key = ("forgotten", key) if dim else key
                    if isinstance(made_or_render, _Lazy):  # finished, made once (the memo)
                        blocks.append((key, made_or_render.dimmed() if dim else made_or_render))
                        continue
                    renderable = self._kept.get(key)
                    if renderable is None:
                        renderable = made_or_render()  # type: ignore[operator]
                        renderable = Styled(renderable, "dim") if dim else renderable
                    kept[key] = renderable
                    blocks.append((key, renderable))
                owners.extend(repeat(entry, len(blocks) - start))
                continue
            tool = tool_of(entry, tools)
            chosen = entry.id == selected
            key = (
                entry.id,
                entry.version,
                None if tool is None else (tool.state, tool.exit_code, tool.elapsed, tool.version),
                chosen,
            )
            before = known.get(entry.id)
            if before is not None and before[0] is entry and before[1][0] == key:
                block = before[1]
            else:
                if entry.role == "call":
                    text = render_call(entry, tool, selected=chosen)
                else:
                    text = render_entry(entry, tool, now, expanded=thinking_expanded)
                if entry.forgotten:  # taken out of what the model gets (/rewind, /clear)
                    text = text.copy()
                    text.stylize("dim")
                block = (key, hanging(entry, text))
            made[entry.id] = (entry, block)
            blocks.append(block)
            owners.append(entry)
        self._made, self._replies = made, replies
        self._kept = kept
        self._owners = owners
        if blocks:
            self.set_blocks(blocks)

    # ------------------------------------------------------------------ opening a tool row
    def openable(self) -> list[TranscriptEntry]:
        """The tool rows shown that open in the pager, oldest first."""
        seen: set[int] = set()
        rows: list[TranscriptEntry] = []
        tools = self._shown[1] if self._shown else {}
        for entry in self._owners:
            if entry is None or entry.role != "call" or entry.id in seen:
                continue
            seen.add(entry.id)
            tool = tool_of(entry, tools)
            if tool is not None and tool.opens:
                rows.append(entry)
        return rows

    def _repaint(self) -> None:
        """Paint again what is shown (the selection moved): no news, no marker."""
        if self._shown is not None:
            self._paint(*self._shown)

    def on_focus(self, event: events.Focus) -> None:
        rows = self.openable()
        if rows and self.selected not in {e.id for e in rows}:
            self.selected = rows[-1].id  # the newest, where the work is
        self._repaint()
        self._reveal()

    def on_blur(self, event: events.Blur) -> None:
        self._repaint()

    def action_select(self, step: int) -> None:
        """↑/↓: the previous / next tool row that opens (the view follows it)."""
        rows = self.openable()
        if not rows:
            return
        ids = [e.id for e in rows]
        at = ids.index(self.selected) if self.selected in ids else len(ids)
        self.selected = ids[max(0, min(len(ids) - 1, at + step))]
        self._repaint()
        self._reveal()

    def action_open(self) -> None:
        """Enter: the selected tool row's whole output in the pager."""
        rows = {e.id: e for e in self.openable()}
        entry = rows.get(self.selected) if self.selected is not None else None
        if entry is None and rows:
            entry = list(rows.values())[-1]
        if entry is not None:
            self._open(entry)

    def on_click(self, event: events.Click) -> None:
        """A click on a tool row opens it (and selects it)."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        line = self.scroll_offset.y + offset.y
        if not (0 <= line < self.line_count) or not self._starts:
            return
        index = bisect_right(self._starts, line) - 1
        entry = self._owners[index] if 0 <= index < len(self._owners) else None
        tool = tool_of(entry, self._shown[1]) if entry is not None and self._shown else None
        if entry is not None and tool is not None and tool.opens:
            self.selected = entry.id
            self._open(entry)

    def _open(self, entry: TranscriptEntry) -> None:
        tool = tool_of(entry, self._shown[1] if self._shown else {})
        if tool is not None:
            self.post_message(OpenToolOutput(tool))

    def _reveal(self) -> None:
        """Scroll the selected row into view (its first line at least)."""
        for index, entry in enumerate(self._owners):
            if entry is not None and entry.id == self.selected and index < len(self._starts):
                top, size = self._starts[index], self._sizes[index]
                height = self.scrollable_content_region.height
                y = int(self.scroll_offset.y)
                if top < y or top + min(size, height) > y + height:
                    self.scroll_to(y=max(0, top - 1), animate=False, immediate=True)
                return


def tool_of(entry: TranscriptEntry, tools: Mapping[str, ToolRow]) -> ToolRow | None:
    """A ``call`` entry's row: its own (``entry.tool``), else the live one by id."""
    if entry.tool is not None:
        return entry.tool
    return tools.get(entry.call_id) if entry.call_id else None
