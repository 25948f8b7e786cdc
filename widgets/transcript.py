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

import io
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import ClassVar

from rich.console import Console, ConsoleOptions, JustifyMethod, RenderableType, RenderResult
from rich.markdown import Heading, Markdown, MarkdownElement
from rich.padding import Padding
from rich.segment import Segment
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from frontier.themes.palette import theme_variable
from frontier.widgets.block_view import Block, BlockView
from frontier.widgets.display import cut_lines, display_preview, more_lines
from frontier.widgets.prose import ProseBlock
from frontier.widgets.state import ToolRow, TranscriptEntry
from frontier.widgets.tools_pane import elapsed_of, state_label

_ROLE = {"you": ("you ", "bold reverse"), "ai": ("ai  ", "bold"), "note": ("·   ", "dim")}
_JOIN = Text("\n")
"""Entries render as if joined by this (its wrap/overflow settings apply to every entry)."""
PLACEHOLDER = Text(
    "Type a message below and press Enter. Calls appear here as soon as the "
    "model's bytes prove them complete.",
    style="dim",
)
GUTTER = 5
"""Cells left of a reply's Markdown (``ai`` and a space, then the hanging indent)."""
INTERRUPTED = "⏹ interrupted (Esc): the reply stopped here; what was confirmed is kept"


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
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("▸ ", style="bold")
        if tool is None:
            text.append(display_preview(entry.call_id or "?", one_line=True, limit=40))
            return text
        text.append(f"{display_preview(tool.call.id, one_line=True, limit=40)} ", style="dim")
        text.append(f"{display_preview(tool.call.name, one_line=True, limit=40)} ", style="bold")
        text.append(tool.summary)
        text.append(more_lines(tool.more), style="bold")  # `echo safe` is not all that runs
        text.append("  ")
        failed = tool.state not in ("ok", "applied", "running", "ready", "review")
        text.append(state_label(tool), style="bold underline" if failed else "italic")
        elapsed = elapsed_of(tool, now)
        if elapsed is not None and not tool.running:
            text.append(f"  {elapsed:.2f}s", style="dim")
        for line in tool.changes:  # a finished mutation's files, one per line
            text.append(f"\n    {display_preview(line, one_line=True)}", style="dim")
        return text
    if entry.role == "error":
        return Text.assemble(("err ", "bold reverse"), " ", (cut_lines(entry.text), "bold"))
    if entry.role == "stop":  # a stopped stream, a cut-off response, a repair: one line
        glyph, _, rest = entry.text.partition(" ")
        return Text.assemble((glyph, "bold"), "    ", (cut_lines(rest), "italic"))
    if entry.role == "session":
        heading = display_preview(entry.text, one_line=True)
        return Text.assemble(("━━ ", "bold"), (heading, "bold"), (" ━━", "bold"))
    label, style = _ROLE.get(entry.role, ("    ", ""))
    # a note or a message can hold a file's line (a tool's first output line, a pasted
    # file): only its ends reach rich's wrapping
    body = Text(cut_lines(entry.text), style="dim italic" if entry.role == "note" else "")
    return Text.assemble((label, style), " ", body)


# ---------------------------------------------------------------------- Markdown replies
class _LeftHeading(Heading):
    """Headings flush left: a centred title reads oddly in a narrow pane."""

    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = dict.fromkeys(
        ("h1", "h2", "h3", "h4", "h5", "h6"), "left"
    )


class _Markdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
    }


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
    its language says; the pieces of a long fence draw as one)."""
    if block.kind == "code":
        code = block.text.rstrip("\n")
        return Syntax(
            code or " ", block.lang or "text", theme=code_theme, word_wrap=True, padding=(0, 1)
        )
    return _Trimmed(_Markdown(block.text, code_theme=code_theme, hyperlinks=False))


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
    entry: TranscriptEntry, code_theme: str
) -> Iterator[tuple[Hashable, Callable[[], RenderableType]]]:
    """A reply's blocks as ``(key, render)``: finished blocks keep their key for good,
    the growing one changes it with every piece, so only that one is rendered again."""
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
        version = prose.version if block.index == growing else 0
        gap = 0 if first else _gap(block, previous)
        key = (entry.id, block.index, version, first, gap, code_theme)

        def render(
            block: ProseBlock = block, first: bool = first, gap: int = gap
        ) -> RenderableType:
            body = render_prose(block, code_theme)
            if first:
                return _labelled(label, body)
            return Padding(body, (gap, 0, 0, GUTTER))

        yield key, lambda render=render, block=block, gap=gap: _Lazy(render, block, gap)
        first = False
        previous = block
    if first:  # nothing but whitespace yet
        yield (entry.id, "empty"), lambda: Text("ai", style="bold")
    if entry.interrupted:
        mark = Text(INTERRUPTED, style="dim italic")
        yield (entry.id, "interrupted"), lambda: Padding(mark, (0, 0, 0, GUTTER))


SHOWN = 120
"""Entries rendered (the newest); older ones stay in ``UiState`` until its cap drops them."""


class Transcript(BlockView):
    """The newest ``SHOWN`` entries, one block each (a reply: one per Markdown block);
    re-rendered only when an entry's version or its call's state changes."""

    DEFAULT_CSS = """
    Transcript { background: $surface; }
    """

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock
        self.set_blocks([(("placeholder",), PLACEHOLDER)])

    def on_mount(self) -> None:
        # The first code block would load pygments' lexer and style (~30 ms, once per
        # process) in the middle of a streaming reply: do it while the app is idle.
        self.set_timer(0.5, self._warm_highlighter)

    def _warm_highlighter(self) -> None:
        Console(file=io.StringIO(), width=20).render_lines(
            Syntax("x = 1", "python", theme=self.code_theme), pad=False
        )

    @property
    def code_theme(self) -> str:
        """The pygments style of the app's theme (what the review's diffs use)."""
        return theme_variable(self.app.current_theme, "syntax-style", "monokai")

    def show(
        self,
        entries: Sequence[TranscriptEntry],
        tools: Mapping[str, ToolRow],
        *,
        thinking_expanded: bool = False,
    ) -> None:
        now = self._clock()
        known = dict(self._blocks)
        code_theme = self.code_theme
        blocks: list[Block] = []
        for entry in list(entries)[-SHOWN:]:
            if entry.role == "you" and blocks:
                blocks.append((("gap", entry.id), Text("")))
            if entry.prose is not None:
                for key, render in prose_blocks(entry, code_theme):
                    renderable = known.get(key)
                    blocks.append((key, renderable if renderable is not None else render()))
                continue
            tool = tools.get(entry.call_id) if entry.call_id else None
            key = (
                entry.id,
                entry.version,
                None if tool is None else (tool.state, tool.exit_code, tool.elapsed),
            )
            text = known.get(key)
            if text is None and entry.role == "stop":  # wrapped under its words, not its glyph
                glyph, _, rest = entry.text.partition(" ")
                body = Text(cut_lines(rest), style="italic")  # a server's detail: its ends
                text = _labelled(Text(glyph, style="bold"), body)
            elif text is None:
                # rendered as one ``Static`` joining entries by newlines would show it
                text = _JOIN.join([render_entry(entry, tool, now, expanded=thinking_expanded)])
            blocks.append((key, text))
        if blocks:
            self.set_blocks(blocks)
