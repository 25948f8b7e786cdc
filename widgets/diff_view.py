"""Our own diff widget (textual-diff-view is AGPL): unified or split, line numbers,
syntax colours from pygments (via rich), one child per hunk so ``j``/``k`` can
jump between hunks, ``tab`` between files and ``space`` decline one.

It draws the ``PreviewHunk`` lines the core computed from the exact bytes that
will be written; it never parses diff text or reads files. Syntax colours come
from highlighting the whole old/new file once (so a hunk that starts inside a
docstring is still coloured right) and picking lines by number.

Nothing is cut off silently: long lines wrap at the cell with a ``↪`` in the
gutter, or (``w``) stay on one row and pan with ←/→, ``‹``/``›`` marking what
is off to either side. Every line, file name and note goes through
``widgets/display.display_preview`` before it becomes rich text: control characters
show as Unicode control pictures (C1 and bidi controls as escapes), and a line longer
than 4,000 characters shows 4,000 of them with ``… N characters …`` for each cut —
rich wraps a line character by character, and one 20 MB line froze the review before
it opened. What is kept of a changed line is centred on what changed (:func:`hunk_texts`:
a removed line and the added line it pairs with, as the split view pairs them, share a
prefix and a suffix; the rest is the change): ``replace checkAuth(user);`` in the middle
of a 20 MB line showed only both ends of it, neither the old text nor the new. A line
with nothing to pair with (a context line, a line only added or removed) keeps its ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import accumulate, zip_longest
from typing import ClassVar

from rich.cells import cell_len, chop_cells
from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Span, Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import Static

from frontier.app.record import record
from frontier.tools.contract import DiffLine, FilePreview, PreviewHunk
from frontier.tools.patch_model import NO_NEWLINE_MARKER
from frontier.widgets.display import display_change, display_preview
from frontier.widgets.lexer_for import lexer_for

HIGHLIGHT_LIMIT = 256_000
"""Files larger than this (characters) are shown without syntax colours."""
MAX_HUNKS = 300
"""Hunks shown in one review (all files); the rest are listed as not shown."""
TAB_SIZE = 4
WRAPPED = "↪"
MORE_LEFT = "‹"
MORE_RIGHT = "›"


def shown_line(text: str) -> str:
    """One line of a file as the review draws it (cut if long, controls pictured)."""
    return display_preview(text)


def shown_name(text: str) -> str:
    """A file name (or a note) as one row: a newline in a name is pictured too."""
    return display_preview(text, one_line=True)


def _cells(shown: str) -> int:
    """Cells a shown line takes (tabs expanded)."""
    return cell_len(shown.expandtabs(TAB_SIZE))


def pairs(lines: Sequence[DiffLine]) -> list[tuple[int | None, int | None]]:
    """Indices into ``lines`` as the split view sets them side by side: each run of
    removed lines paired with the added lines that follow it, a context line with itself."""
    rows: list[tuple[int | None, int | None]] = []
    removed: list[int] = []
    added: list[int] = []

    def flush() -> None:
        rows.extend(zip_longest(removed, added))
        removed.clear()
        added.clear()

    for n, line in enumerate(lines):
        if line.sign == "-":
            if added:
                flush()
            removed.append(n)
        elif line.sign == "+":
            added.append(n)
        else:
            flush()
            rows.append((n, n))
    flush()
    return rows


def hunk_texts(hunk: PreviewHunk) -> list[str]:
    """Each line of ``hunk`` as the review draws it (:func:`shown_line`), but a long
    removed line and the added line paired with it each keep what is around the part that
    changed, with how much is cut on either side (``display.cut_around``)."""
    lines = hunk.lines
    texts: list[str | None] = [None] * len(lines)
    for old, new in pairs(lines):
        if old is not None and new is not None and old != new:
            texts[old], texts[new] = display_change(lines[old].text, lines[new].text)
    return [shown_line(line.text) if t is None else t for line, t in zip(lines, texts, strict=True)]


@lru_cache(maxsize=512)
def _foreground(style: Style | str) -> Style:
    style = Style.parse(style) if isinstance(style, str) else style
    return Style(
        color=style.color,
        bold=style.bold,
        dim=style.dim,
        italic=style.italic,
        underline=style.underline,
        strike=style.strike,
    )


class Highlighter:
    """Per-line highlighted ``Text`` of a file's old and new version."""

    def __init__(self, preview: FilePreview, syntax_style: str) -> None:
        self.path = preview.path
        self.style = syntax_style
        self.old = self._lines(preview.old_text)
        self.new = self._lines(preview.new_text)

    def _lines(self, code: str | None) -> list[Text] | None:
        if code is None or len(code) > HIGHLIGHT_LIMIT:
            return None
        lexer = lexer_for(self.path)
        if lexer is None:
            return None
        syntax = Syntax(code, lexer, theme=self.style, background_color="default")
        text = syntax.highlight(code)
        # the theme's own background would hide the added/removed tint
        text.spans = [Span(s.start, s.end, _foreground(s.style)) for s in text.spans]
        text.style = ""
        return list(text.split("\n", allow_blank=True))

    def line(self, line: DiffLine, shown: str | None = None) -> Text:
        """The line as shown (``shown``: :func:`hunk_texts`' text for it, else
        :func:`shown_line`'s): highlighted when the file's line is it, tabs expanded."""
        text = None
        source, number = (self.new, line.new_no) if line.sign == "+" else (self.old, line.old_no)
        if shown is None:
            shown = shown_line(line.text)
        if (
            shown == line.text  # nothing pictured or cut: the highlighted line is the line
            and source is not None
            and number is not None
            and 0 < number <= len(source)
        ):
            candidate = source[number - 1]
            if candidate.plain.rstrip("\r") == line.text:
                text = candidate.copy()
                if len(text.plain) > len(line.text):  # a CRLF line's "\r"
                    text.right_crop(len(text.plain) - len(line.text))
        if text is None:
            text = Text(shown)
        text.expand_tabs(TAB_SIZE)
        return text


# ---------------------------------------------------------------------- layout
@record
class Look:
    """How every hunk is drawn right now (one value per redraw)."""

    split: bool = False
    wrap: bool = True
    x: int = 0
    """First cell of the code shown when not wrapping (←/→)."""
    added_bg: str = "#12361f"
    removed_bg: str = "#42171b"


def number_width(hunks: Sequence[PreviewHunk]) -> int:
    """Cells for a line number column of this file (one width, so numbers align)."""
    top = max((max(h.old_start + h.old_count, h.new_start + h.new_count) for h in hunks), default=1)
    return max(3, len(str(top)))


def gutter_width(numbers: int, split: bool) -> int:
    """Cells before the code on one side: numbers, spaces, sign, marker."""
    return numbers + 3 if split else 2 * numbers + 4


def code_width(width: int, numbers: int, look: Look) -> int:
    """Cells of code per row on one side at a widget ``width``."""
    side = (width - 1) // 2 if look.split else width
    return max(1, side - gutter_width(numbers, look.split) - (0 if look.wrap else 1))


def fold(code: Text, width: int) -> list[Text]:
    """``code`` cut into rows of at most ``width`` cells, every character kept once."""
    plain = code.plain
    if cell_len(plain) <= width:
        return [code]
    pieces = chop_cells(plain, width)
    return list(code.divide(list(accumulate(len(p) for p in pieces))[:-1]))


def window(code: Text, x: int, width: int) -> tuple[Text, bool, bool]:
    """The ``width`` cells of ``code`` from cell ``x``, and whether some is off left / right."""
    plain = code.plain
    total = cell_len(plain)
    if total == len(plain):
        piece = code[x : x + width]
    else:
        start = cells = 0
        while start < len(plain) and cells < x:
            cells += cell_len(plain[start])
            start += 1
        end, used = start, cells - x
        while end < len(plain) and used + cell_len(plain[end]) <= width:
            used += cell_len(plain[end])
            end += 1
        piece = Text(" " * (cells - x)) + code[start:end]
    return piece, x > 0 and total > 0, total > x + width


def _blank(width: int) -> Text:
    return Text(" " * width)


def side_rows(line: DiffLine, code: Text, numbers: Text, width: int, look: Look) -> list[Text]:
    """One line's rows, each exactly ``width`` cells: numbers, sign, marker, code."""
    bg = {"+": look.added_bg, "-": look.removed_bg}.get(line.sign)
    gutter = len(numbers) + 2
    cw = max(1, width - gutter - (0 if look.wrap else 1))
    sign_style = f"bold on {bg}" if bg else "bold"
    rows: list[Text] = []
    if look.wrap:
        for k, piece in enumerate(fold(code, cw)):
            row = numbers.copy() if k == 0 else _blank(len(numbers))
            row.append(line.sign if k == 0 else WRAPPED, sign_style if k == 0 else "dim")
            row.append(" ")
            rows.append(row + _tinted(piece, cw, bg))
    else:
        piece, left, right = window(code, look.x, cw)
        row = numbers.copy()
        row.append(line.sign, sign_style)
        row.append(MORE_LEFT if left else " ", "bold")
        row += _tinted(piece, cw, bg)
        row.append(MORE_RIGHT if right else " ", "bold")
        rows.append(row)
    if line.no_newline:
        marker = Text(NO_NEWLINE_MARKER, style="dim italic")
        pieces = fold(marker, cw) if look.wrap else [window(marker, 0, cw)[0]]
        rows += [_blank(gutter) + _tinted(p, width - gutter, None) for p in pieces]
    return rows


def _tinted(piece: Text, width: int, bg: str | None) -> Text:
    piece = piece.copy()
    piece.pad_right(max(0, width - cell_len(piece.plain)))
    if bg:
        piece.stylize_before(f"on {bg}")
    return piece


def _num(n: int | None, width: int) -> Text:
    return Text(("" if n is None else str(n)).rjust(width) + " ", style="dim")


def split_rows(hunk: PreviewHunk) -> list[tuple[DiffLine | None, DiffLine | None]]:
    """Pair each run of removed lines with the added lines that follow it."""
    lines = hunk.lines
    return [
        (None if old is None else lines[old], None if new is None else lines[new])
        for old, new in pairs(lines)
    ]


class HunkRows:
    """A hunk laid out at the width rich gives it (wrapping and panning need that width)."""

    def __init__(
        self,
        hunk: PreviewHunk,
        hl: Highlighter,
        numbers: int,
        look: Look,
        texts: Sequence[str] | None = None,
    ) -> None:
        self.hunk = hunk
        self.hl = hl
        self.numbers = numbers
        self.look = look
        self.texts = hunk_texts(hunk) if texts is None else texts
        """Each line as shown (:func:`hunk_texts`)."""
        self._rows: tuple[int, list[Text]] | None = None

    def rows(self, width: int) -> list[Text]:
        if self._rows is None or self._rows[0] != width:
            self._rows = (width, list(self._layout(width)))
        return self._rows[1]

    def _layout(self, width: int) -> Iterator[Text]:
        look, nw, hl, lines, texts = self.look, self.numbers, self.hl, self.hunk.lines, self.texts
        if not look.split:
            for line, shown in zip(lines, texts, strict=True):
                numbers = _num(line.old_no, nw) + _num(line.new_no, nw)
                yield from side_rows(line, hl.line(line, shown), numbers, width, look)
            return
        left_w = (width - 1) // 2
        right_w = width - 1 - left_w

        def side(n: int | None, new: bool, w: int) -> list[Text]:
            if n is None:
                return [_blank(w)]
            line = lines[n]
            number = line.new_no if new else line.old_no
            return side_rows(line, hl.line(line, texts[n]), _num(number, nw), w, look)

        for old, new in pairs(lines):
            left = side(old, False, left_w)
            right = side(new, True, right_w)
            for a, b in zip_longest(left, right):
                yield (a or _blank(left_w)) + Text("│", style="dim") + (b or _blank(right_w))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for row in self.rows(options.max_width):
            row.no_wrap = True
            row.overflow = "crop"
            yield row


# ---------------------------------------------------------------------- choices
class HunkChoices:
    """Which hunks the person declined, and which are declined with them.

    A hunk whose ``depends_on`` names a declined hunk (transitively) is declined
    too; it cannot be accepted on its own while that one stays declined.
    """

    def __init__(self, files: Sequence[FilePreview]) -> None:
        self.files = tuple(files)
        self.declined: set[tuple[int, int]] = set()
        """``(file position, hunk index)`` the person declined themselves."""
        self._with: dict[tuple[int, int], tuple[int, ...]] = {}
        self._update()

    def _update(self) -> None:
        self._with = {}
        for f, file in enumerate(self.files):
            off: set[int] = set()
            for hunk in file.hunks:
                bases = tuple(b for b in hunk.depends_on if b in off)
                self._with[f, hunk.index] = bases
                if bases or (f, hunk.index) in self.declined:
                    off.add(hunk.index)

    def declined_with(self, f: int, index: int) -> tuple[int, ...]:
        """The declined hunks of the same file this one is declined with."""
        return self._with.get((f, index), ())

    def is_declined(self, f: int, index: int) -> bool:
        return (f, index) in self.declined or bool(self.declined_with(f, index))

    def toggle(self, f: int, index: int) -> str | None:
        """Decline or accept one hunk; the reason when it cannot change on its own."""
        bases = self.declined_with(f, index)
        if bases:
            return (
                f"hunk {index} shares context with {_hunk_list(bases)}: "
                f"accept {_hunk_list(bases)} first"
            )
        self.declined ^= {(f, index)}
        self._update()
        return None

    @property
    def total(self) -> int:
        return sum(len(file.hunks) for file in self.files)

    def declined_in(self, f: int) -> int:
        return sum(self.is_declined(f, h.index) for h in self.files[f].hunks)

    @property
    def accepted(self) -> int:
        return self.total - sum(self.declined_in(f) for f in range(len(self.files)))

    def pairs(self) -> tuple[tuple[str, int], ...]:
        """Every declined ``(path, hunk index)``, dependents included, in review order."""
        return tuple(
            (file.path, hunk.index)
            for f, file in enumerate(self.files)
            for hunk in file.hunks
            if self.is_declined(f, hunk.index)
        )

    @property
    def nothing_left(self) -> bool:
        """Every hunk declined and no other change (move, mode, empty file) remains."""
        return self.accepted == 0 and not any(_other_change(f) for f in self.files)


def _other_change(file: FilePreview) -> bool:
    mode_change = None not in (file.old_mode, file.new_mode) and file.old_mode != file.new_mode
    return not file.hunks or file.moved_from is not None or mode_change


def _hunk_list(indices: Iterable[int]) -> str:
    items = list(indices)
    return f"hunk{'s' * (len(items) != 1)} {', '.join(map(str, items))}"


# ---------------------------------------------------------------------- titles
def _mode(mode: int) -> str:
    return f"{mode & 0o7777:03o}"


def file_state(preview: FilePreview) -> str:
    """``new file · mode 755``, ``deleted``, ``R old → new``, ``mode 644 → 755``."""
    action = preview.action
    parts: list[str] = []
    if action == "create":
        parts.append(
            "new file" + (f" · mode {_mode(preview.new_mode)}" if preview.new_mode else "")
        )
    elif action == "delete":
        parts.append("deleted")
    else:
        if action == "move":
            parts.append(f"R {shown_name(str(preview.moved_from))} → {shown_name(preview.path)}")
        old, new = preview.old_mode, preview.new_mode
        if old is not None and new is not None and old != new:
            parts.append(f"mode {_mode(old)} → {_mode(new)}")
        if not parts:
            parts.append("modified")
    return " · ".join(parts)


def file_title(preview: FilePreview) -> Text:
    title = Text()
    if preview.action != "move":
        title.append(shown_name(preview.path), "bold")
        title.append("  ")
    title.append(file_state(preview), "bold" if preview.action == "move" else "")
    title.append("  ")
    title.append(f"+{preview.added}", "bold")
    title.append(" ")
    title.append(f"−{preview.removed}", "bold")
    return title


def _empty_note(preview: FilePreview) -> str:
    if preview.action == "move":
        return "(renamed; content unchanged)"
    if preview.action in ("create", "delete"):
        return "(empty file)"
    return "(no content change: mode only)" if _other_change(preview) else "(no changes)"


def hunk_header(
    hunk: PreviewHunk, count: int, declined: bool, bases: tuple[int, ...], current: bool
) -> Text:
    """``✓ @@ -1,3 +1,4 @@ hunk 1/2`` with why it is declined and how it was located."""
    text = Text("▶ " if current else "  ")
    text.append("✗ " if declined else "✓ ", "bold")
    text.append(hunk.header)
    text.append(f"  hunk {hunk.index}/{count}", "dim")
    if bases:
        text.append(f" · declined with {_hunk_list(bases)} (shares context)", "bold")
    elif declined:
        text.append(" · declined", "bold")
    elif hunk.depends_on:
        text.append(f" · shares context with {_hunk_list(hunk.depends_on)}", "dim")
    for note in hunk.notes:
        text.append(f" · {shown_name(note)}", "dim italic")
    return text


# ---------------------------------------------------------------------- widget
class DiffView(VerticalScroll, can_focus=True):
    """All files of a preview; ``current`` is the hunk ``j``/``k`` moved to."""

    DEFAULT_CSS = """
    DiffView { background: $surface; scrollbar-size-vertical: 1; }
    DiffView > .file-title { background: $panel; padding: 0 1; margin-top: 1; }
    DiffView > .file-title:first-child { margin-top: 0; }
    DiffView > .hunk-header { color: $secondary; padding: 0 1 0 0; }
    DiffView > .hunk-header.-declined { color: $text-warning; }
    DiffView > .hunk-header.-current { text-style: bold reverse; }
    DiffView > .hunk { width: 1fr; }
    DiffView > .hunk.-declined { opacity: 50%; }
    DiffView > .more { color: $text-muted; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "pan(-1)", "Scroll left", show=False),
        Binding("right", "pan(1)", "Scroll right", show=False),
    ]

    split: reactive[bool] = reactive(False)
    wrap: reactive[bool] = reactive(True)

    def __init__(
        self,
        files: Sequence[FilePreview],
        *,
        syntax_style: str = "monokai",
        added_bg: str = "#12361f",
        removed_bg: str = "#42171b",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.files = tuple(files)
        self.syntax_style = syntax_style
        self.added_bg = added_bg
        self.removed_bg = removed_bg
        self.choices = HunkChoices(self.files)
        self.x = 0
        """First code cell shown when not wrapping."""
        self._hunks: list[tuple[int, PreviewHunk, Highlighter]] = []
        self._numbers = [number_width(f.hunks) for f in self.files]
        self._texts = {
            (f, hunk.index): hunk_texts(hunk)
            for f, file in enumerate(self.files)
            for hunk in file.hunks
        }
        """Each hunk's lines as shown, by ``(file position, hunk index)``."""
        self._widest = [
            max((_cells(text) for h in file.hunks for text in self._texts[f, h.index]), default=0)
            for f, file in enumerate(self.files)
        ]
        self.current = 0

    @property
    def look(self) -> Look:
        return Look(self.split, self.wrap, self.x, self.added_bg, self.removed_bg)

    def compose(self) -> ComposeResult:
        self._hunks = []
        for index, preview in enumerate(self.files):
            yield Static(file_title(preview), classes="file-title", id=f"file-{index}")
            if not preview.hunks:
                yield Static(_empty_note(preview), classes="more")
            hl = Highlighter(preview, self.syntax_style)
            for hunk in preview.hunks:
                if len(self._hunks) >= MAX_HUNKS:
                    rest = len(preview.hunks) - hunk.index + 1
                    yield Static(
                        f"… {rest} more hunk{'s' * (rest != 1)} of this file not shown "
                        "(accepted with the rest)",
                        classes="more",
                    )
                    break
                n = len(self._hunks)
                self._hunks.append((index, hunk, hl))
                yield Static(self._header(n), classes="hunk-header", id=f"hunk-header-{n}")
                yield Static(self._body(n), classes="hunk", id=f"hunk-{n}")

    def on_mount(self) -> None:
        try:
            self._mark_all()
        except NoMatches:
            # the review was opened as the app quits (ctrl+c twice as the demo asks): its
            # rows went with the screens before this ran, and there is nothing to mark
            return

    def _header(self, n: int) -> Text:
        f, hunk, _ = self._hunks[n]
        choices = self.choices
        return hunk_header(
            hunk,
            len(self.files[f].hunks),
            choices.is_declined(f, hunk.index),
            choices.declined_with(f, hunk.index),
            n == self.current,
        )

    def _body(self, n: int) -> HunkRows:
        f, hunk, hl = self._hunks[n]
        return HunkRows(hunk, hl, self._numbers[f], self.look, self._texts[f, hunk.index])

    def _mark(self, n: int) -> None:
        f, hunk, _ = self._hunks[n]
        declined = self.choices.is_declined(f, hunk.index)
        header = self.query_one(f"#hunk-header-{n}", Static)
        header.update(self._header(n))
        header.set_class(declined, "-declined")
        header.set_class(n == self.current, "-current")
        self.query_one(f"#hunk-{n}", Static).set_class(declined, "-declined")

    def _mark_all(self) -> None:
        for n in range(len(self._hunks)):
            self._mark(n)

    def _redraw(self, layout: bool = True) -> None:
        if not self.is_mounted:
            return
        for n in range(len(self._hunks)):
            self.query_one(f"#hunk-{n}", Static).update(self._body(n), layout=layout)

    def watch_split(self) -> None:
        self._redraw()

    def watch_wrap(self) -> None:
        self.x = 0
        self._redraw()

    # ------------------------------------------------------------------ moving
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pan":
            return not self.wrap
        return True

    def max_x(self) -> int:
        """The largest useful pan: the widest line's end at the right edge."""
        width = self.scrollable_content_region.width
        return max(
            (
                widest - code_width(width, numbers, self.look)
                for numbers, widest in zip(self._numbers, self._widest, strict=True)
            ),
            default=0,
        )

    def action_pan(self, direction: int) -> None:
        """Half a code width left or right (as ``less`` does), never past the widest line."""
        width = self.scrollable_content_region.width
        step = max(1, code_width(width, min(self._numbers, default=3), self.look) // 2)
        x = max(0, min(self.x + direction * step, self.max_x()))
        if x != self.x:
            self.x = x
            self._redraw(layout=False)

    def goto_hunk(self, n: int) -> None:
        if not self._hunks:
            return
        n = max(0, min(n, len(self._hunks) - 1))
        previous, self.current = self.current, n
        self._mark(previous)
        self._mark(n)
        self.scroll_to_widget(self.query_one(f"#hunk-header-{n}"), animate=False, top=True)

    def goto_file(self, index: int) -> None:
        if not self.files:
            return
        index %= len(self.files)
        for n, (file_index, _, _) in enumerate(self._hunks):
            if file_index == index:
                self.goto_hunk(n)
                return
        self.scroll_to_widget(self.query_one(f"#file-{index}"), animate=False, top=True)

    @property
    def current_file(self) -> int:
        return self._hunks[self.current][0] if self._hunks else 0

    @property
    def current_hunk(self) -> PreviewHunk | None:
        return self._hunks[self.current][1] if self._hunks else None

    def decline(self, pairs: Iterable[tuple[int, int]]) -> None:
        """Decline these ``(file position, hunk index)`` hunks (a view rebuilt after the
        review's edit keeps the person's choices in the other files)."""
        for f, index in pairs:
            if not self.choices.is_declined(f, index):
                self.choices.toggle(f, index)
        if self.is_mounted:
            self._mark_all()

    def toggle_current(self) -> str | None:
        """Accept or decline the current hunk; a message when it cannot change alone."""
        if not self._hunks:
            return "nothing to decline: this change has no hunks"
        f, hunk, _ = self._hunks[self.current]
        refused = self.choices.toggle(f, hunk.index)
        for n, (file_index, _, _) in enumerate(self._hunks):
            if file_index == f:
                self._mark(n)
        self.query_one(f"#hunk-header-{self.current}").scroll_visible(animate=False)
        return refused
