"""The body of "Review command": every line that approving runs, or unmistakably more.

A ``Static`` holding the command (what the review had) let a model hide a line: ``echo
safe``, 40 blank lines, ``touch PWNED`` showed ``echo safe`` and blank rows, the modal
grew past the screen and the key hints went with it, and ``a`` still approved. Here:

- the command is a line-API view that scrolls inside a body the screen bounds, so the
  review keeps its head and its keys at any terminal size;
- every line has its number in a gutter (``↪`` on wrapped continuation rows: long lines
  wrap at the cell, every character shown once), and a run of ``FOLD_BLANK`` or more
  blank lines is one row, ``⋮ 40 blank lines (2–41)``, so blank rows cannot push the
  next command out of view;
- what is below the view is counted in source lines (:meth:`CommandView.lines_below`)
  for the screen's ``↓ 41 more lines`` marker, and :attr:`CommandView.end_seen` turns
  true once the last row has been on screen — the screen approves only then;
- the text goes through ``widgets/display.display_preview`` before anything else
  (controls as pictures, lines over 4,000 characters cut to their ends), so nothing a
  terminal would obey reaches rich and nothing long reaches its wrapping; rows are made
  only when drawn, so a command of 200,000 lines opens as fast as one of ten.

It shows the python tool's code and a call's JSON arguments the same way (the lexer
differs).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, groupby
from typing import ClassVar

from rich.cells import cell_len
from rich.syntax import Syntax
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from frontier.widgets.diff_view import HIGHLIGHT_LIMIT, TAB_SIZE, WRAPPED, fold
from frontier.widgets.display import display_preview
from frontier.widgets.lines import text_strips

FOLD_BLANK = 3
"""Consecutive blank lines shown as one ``⋮ N blank lines`` row (two stay as they are:
Python separates functions with two)."""
CACHE_ROWS = 512
"""Lines' pieces and rows' strips kept (what is on screen, and a few pages more)."""


@dataclass(frozen=True)
class Row:
    """One screen row: a piece of a shown line (or a folded run of blank lines)."""

    item: int
    """Index into the shown lines (:attr:`CommandView.items`)."""
    text: Text
    continued: bool
    """A wrapped continuation of the line (``↪`` in the gutter)."""
    ends_line: bool
    """The line's last row: once it is on screen, the whole line has been."""


def source_lines(source: str) -> list[str]:
    """``source`` split as a shell or Python reads it: at ``\\n`` only (a ``\\r`` or a
    form feed is a character to show, not a line break), a final newline ending the
    last line."""
    lines = source.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def fold_items(lines: Sequence[str]) -> list[tuple[int, int]]:
    """``(first, last)`` 1-based source lines of each shown line: one line each, but a
    run of ``FOLD_BLANK`` or more blank lines is one item."""
    items: list[tuple[int, int]] = []
    n = 0
    for blank, run in groupby(not line.strip(" \t") for line in lines):
        count = sum(1 for _ in run)
        if blank and count >= FOLD_BLANK:
            items.append((n + 1, n + count))
        else:
            items.extend((k, k) for k in range(n + 1, n + count + 1))
        n += count
    return items


def _highlighted(shown: list[str], lexer: str, theme: str) -> list[Text] | None:
    """Each shown line highlighted as part of the whole (so a string spanning lines is
    coloured right), or ``None`` when too big or the lexer split lines differently."""
    code = "\n".join(shown)
    if len(code) > HIGHLIGHT_LIMIT:
        return None
    syntax = Syntax(code, lexer, theme=theme, background_color="default", tab_size=TAB_SIZE)
    text = syntax.highlight(code)
    text.style = ""
    lines = text.split("\n", allow_blank=True)
    if len(lines) > len(shown):  # a final newline the lexer added
        lines = lines[: len(shown)]
    if [line.plain for line in lines] != shown:
        return None
    return lines


def row_counts(shown: Sequence[str], items: Sequence[tuple[int, int]], width: int) -> list[int]:
    """Rows :func:`~frontier.widgets.diff_view.fold` makes of each item at ``width``,
    without building them (plain ASCII: one cell a character; a folded run: one row)."""
    counts: list[int] = []
    for first, last in items:
        line = shown[first - 1]
        if last > first:
            counts.append(1)
        elif line.isascii():
            counts.append(-(-len(line) // width) or 1)
        else:
            counts.append(len(fold(Text(line), width)))
    return counts


def blank_note(first: int, last: int) -> Text:
    return Text(f"⋮ {last - first + 1:,} blank lines ({first:,}–{last:,})", style="dim italic")


class CommandView(ScrollView, can_focus=True):
    """A command (or code, or JSON arguments) with line numbers, scrolled in place.

    Rows are never all built: each shown line's row count at the view's width is kept
    (prefix sums, found by bisection), and a row's text is made when it is drawn. A
    command of 200,000 lines opens as fast as one of ten.
    """

    DEFAULT_CSS = """
    CommandView {
        height: auto;
        background: $surface;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "page_down", "Page down", show=False),
        Binding("G", "scroll_end", "End", show=False),
        Binding("g", "scroll_home", "Top", show=False),
    ]

    class Moved(Message):
        """The view scrolled or changed size: what is below it may have changed."""

    def __init__(
        self, source: str, lexer: str, *, syntax_style: str = "monokai", id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.source = source
        # one pass over the whole text (C loops): long lines cut, controls pictured, tabs
        # expanded (so what is highlighted is what is shown, and widths are counts)
        self.shown = source_lines(display_preview(source).expandtabs(TAB_SIZE))
        self.items = fold_items(self.shown)
        self.total = len(self.shown)
        """Source lines of the command (what the head says: ``shell: 42 lines``)."""
        self._highlighted = _highlighted(self.shown, lexer, syntax_style)
        self._numbers = max(2, len(str(self.total)))
        self._width = 0
        self._counts: list[int] = []
        self._starts: list[int] = [0]
        self._pieces: OrderedDict[int, list[Text]] = OrderedDict()
        self._strips: OrderedDict[int, Strip] = OrderedDict()
        self.end_seen = False
        """The last row has been on screen (the screen lets ``a`` approve from then on)."""

    # ------------------------------------------------------------------ layout
    @property
    def gutter_width(self) -> int:
        return self._numbers + 1

    @property
    def row_count(self) -> int:
        return self._starts[-1]

    def _code_width(self) -> int:
        return max(1, self._width - self.gutter_width)

    def _layout(self, width: int) -> None:
        """Row counts at ``width`` cells: each line folded at the cell, every character
        once (the rows themselves are made when drawn)."""
        if width == self._width and self._counts:
            return
        self._width = width
        self._pieces.clear()
        self._strips.clear()
        self._counts = row_counts(self.shown, self.items, self._code_width())
        self._starts = list(accumulate(self._counts, initial=0))
        self.virtual_size = Size(width, self.row_count)  # a layout: the body's height follows

    def _content_width(self) -> int:
        return max(1, self.size.width - self.styles.scrollbar_size_vertical)

    def on_resize(self, event: events.Resize) -> None:
        self._layout(self._content_width())
        self._moved()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._moved()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def _moved(self) -> None:
        if not self.end_seen and self.at_end():
            self.end_seen = True
        self.post_message(self.Moved())

    # ------------------------------------------------------------------ rows
    def _line_text(self, item: int) -> Text:
        first, last = self.items[item]
        if last > first:
            return blank_note(first, last)
        if self._highlighted is not None:
            return self._highlighted[first - 1].copy()
        return Text(self.shown[first - 1])

    def _item_pieces(self, item: int) -> list[Text]:
        pieces = self._pieces.get(item)
        if pieces is None:
            text = self._line_text(item)
            first, last = self.items[item]
            pieces = [text] if last > first else fold(text, self._code_width())
            self._pieces[item] = pieces
            if len(self._pieces) > CACHE_ROWS:
                self._pieces.popitem(last=False)
        return pieces

    def row(self, index: int) -> Row:
        """Screen row ``index`` (0-based) at the current width."""
        item = bisect_right(self._starts, index) - 1
        k = index - self._starts[item]
        pieces = self._item_pieces(item)
        piece = pieces[min(k, len(pieces) - 1)]
        return Row(item, piece, k > 0, k == self._counts[item] - 1)

    # ------------------------------------------------------------------ where
    @property
    def overflows(self) -> bool:
        """Longer than the body: some of it is out of view at some point."""
        return self.row_count > self.size.height

    def at_end(self) -> bool:
        """The last row is on screen now (a view not laid out yet shows nothing)."""
        height = self.size.height
        if height <= 0 or not self.row_count:
            return False
        return round(self.scroll_y) + height >= self.row_count

    def lines_below(self) -> int:
        """Source lines not wholly on screen below the view (a line whose last row is
        below counts: part of it is hidden)."""
        if not self.row_count:
            return 0
        last = min(self.row_count, round(self.scroll_y) + max(0, self.size.height)) - 1
        if last < 0:
            return self.total
        item = bisect_right(self._starts, last) - 1
        first, end = self.items[item]
        whole = last - self._starts[item] == self._counts[item] - 1
        return max(0, self.total - (end if whole else first - 1))

    # ------------------------------------------------------------------ drawing
    def _gutter(self, row: Row) -> Text:
        first, last = self.items[row.item]
        if row.continued:
            mark = WRAPPED.rjust(self._numbers)
        elif last > first:
            mark = " " * self._numbers
        else:
            mark = str(first).rjust(self._numbers)
        return Text(mark + " ", style="dim")

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index >= self.row_count:
            return Strip.blank(width, base)
        strip = self._strips.get(index)
        if strip is None:
            row = self.row(index)
            text = self._gutter(row) + row.text
            text.no_wrap = True
            text.overflow = "crop"
            strips = text_strips(self, text, max(width, cell_len(text.plain)))
            strip = strips[0] if strips else Strip.blank(width, base)
            self._strips[index] = strip
            if len(self._strips) > CACHE_ROWS:
                self._strips.popitem(last=False)
        return strip.crop_extend(0, width, base)
