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
- nothing is cut: every character that runs is on some row. The text's controls are
  pictured (``terminal_text.pictured``, as ``display_preview`` does) but a long line is
  *not* cut to its ends — ``echo safe``, 3,000 spaces, ``; touch PWNED9;``, 3,000 spaces,
  ``echo done`` showed ``… 2,033 characters …`` where the ``touch`` was, and ``a``
  approved it. Instead a run of ``display.BLANK_RUN`` or more blank characters is one
  visible ``⋯ 3,000 spaces ⋯`` (reversed, so the model cannot pass off text as it), so
  whitespace cannot push a payload off the rows a person reads; a line as blank as an
  empty one (spaces, U+3000, braille blank) folds with the blank lines;
- rows are made only when drawn, a row of a long line by slicing it (its row starts are
  arithmetic for ASCII, ``chop_cells`` otherwise), so a command of 200,000 lines or a
  20 MB line opens as fast as one of ten.

It shows the python tool's code and a call's JSON arguments the same way (the lexer
differs).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from itertools import accumulate, groupby
from typing import ClassVar

from rich.cells import cell_len, chop_cells
from rich.syntax import Syntax
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from frontier.app.frontends.terminal_text import pictured
from frontier.app.record import record
from frontier.widgets.diff_view import HIGHLIGHT_LIMIT, TAB_SIZE, WRAPPED
from frontier.widgets.display import BLANK_RUN, fold_blank_runs, is_blank
from frontier.widgets.lines import text_strips

FOLD_BLANK = 3
"""Consecutive blank lines shown as one ``⋮ N blank lines`` row (two stay as they are:
Python separates functions with two)."""
CACHE_ROWS = 512
"""Lines' row starts and rows' strips kept (what is on screen, and a few pages more)."""
NOTE_STYLE = "italic reverse"
"""A folded run of blanks (``⋯ 3,000 spaces ⋯``): unmistakably not the command's text."""


@record
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
    run of ``FOLD_BLANK`` or more blank lines (nothing drawn: ``display.is_blank``) is
    one item."""
    items: list[tuple[int, int]] = []
    n = 0
    for blank, run in groupby(is_blank(line) for line in lines):
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
    lines = list(text.split("\n", allow_blank=True))
    if len(lines) > len(shown):  # a final newline the lexer added
        lines = lines[: len(shown)]
    if [line.plain for line in lines] != shown:
        return None
    return lines


def row_starts(line: str, width: int) -> list[int] | None:
    """Where each row of ``line`` starts when it wraps at ``width`` cells, every character
    once; ``None`` for ASCII (one cell a character: row ``k`` starts at ``k × width``)."""
    if line.isascii():
        return None
    return list(accumulate((len(piece) for piece in chop_cells(line, width)), initial=0))[:-1]


def row_counts(shown: Sequence[str], items: Sequence[tuple[int, int]], width: int) -> list[int]:
    """Rows each item makes at ``width`` (a folded run of blank lines: one row), without
    building them."""
    counts: list[int] = []
    for first, last in items:
        line = shown[first - 1]
        if last > first:
            counts.append(1)
        elif line.isascii():
            counts.append(-(-len(line) // width) or 1)
        else:
            counts.append(len(row_starts(line, width) or ()) or 1)
    return counts


def fold_blanks(lines: list[str]) -> tuple[list[str], dict[int, tuple[tuple[int, int], ...]]]:
    """``lines`` as shown — tabs expanded, each long run of blanks one note
    (``display.fold_blank_runs``) — and where the notes are, by line index."""
    notes: dict[int, tuple[tuple[int, int], ...]] = {}
    shown: list[str] = []
    for n, line in enumerate(lines):
        if len(line) < BLANK_RUN:
            shown.append(line.expandtabs(TAB_SIZE) if "\t" in line else line)
            continue
        text, spans = fold_blank_runs(line, tab_size=TAB_SIZE)
        shown.append(text)
        if spans:
            notes[n] = spans
    return shown, notes


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
        # every character: controls pictured, nothing cut; blank runs folded to a note and
        # tabs expanded, so what is highlighted is what is shown (widths are counts)
        lines = source_lines(pictured(source))
        self.items = fold_items(lines)
        self.shown, self._notes = fold_blanks(lines)
        self.total = len(self.shown)
        """Source lines of the command (what the head says: ``shell: 42 lines``)."""
        self._highlighted = _highlighted(self.shown, lexer, syntax_style)
        self._numbers = max(2, len(str(self.total)))
        self._width = 0
        self._counts: list[int] = []
        self._starts: list[int] = [0]
        self._starts_of: OrderedDict[int, list[int] | None] = OrderedDict()
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
        self._starts_of.clear()
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
    def _row_span(self, line: int, k: int) -> tuple[int, int]:
        """Characters ``[start, end)`` of shown line ``line`` on its row ``k``."""
        text = self.shown[line]
        width = self._code_width()
        starts = self._starts_of.get(line)
        if starts is None and line not in self._starts_of:
            starts = row_starts(text, width)
            self._starts_of[line] = starts
            if len(self._starts_of) > CACHE_ROWS:
                self._starts_of.popitem(last=False)
        if starts is None:
            return k * width, (k + 1) * width
        k = min(k, len(starts) - 1)
        return starts[k], starts[k + 1] if k + 1 < len(starts) else len(text)

    def _piece(self, line: int, k: int) -> Text:
        """Row ``k`` of shown line ``line``: a slice (a 20 MB line is never a ``Text``
        whole), highlighted, its folded blanks styled as notes."""
        start, end = self._row_span(line, k)
        if self._highlighted is not None:
            text = self._highlighted[line][start:end]
        else:
            text = Text(self.shown[line][start:end])
        for a, b in self._notes.get(line, ()):
            if a < end and b > start:
                text.stylize(NOTE_STYLE, max(a, start) - start, min(b, end) - start)
        return text

    def row(self, index: int) -> Row:
        """Screen row ``index`` (0-based) at the current width."""
        item = bisect_right(self._starts, index) - 1
        k = index - self._starts[item]
        first, last = self.items[item]
        piece = blank_note(first, last) if last > first else self._piece(first - 1, k)
        return Row(item, piece, k > 0, k == self._counts[item] - 1)

    # ------------------------------------------------------------------ where
    @property
    def overflows(self) -> bool:
        """Longer than the body: some of it is out of view at some point."""
        return self.row_count > self.size.height

    @property
    def laid_out(self) -> bool:
        """The view has a size and its rows (a review's first frame may come before)."""
        return self.size.height > 0 and self.row_count > 0

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
