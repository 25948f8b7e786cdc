"""The pager: a tool call's whole output, scrollable and searchable (issue 23).

Enter (or a click) on a tool row in the Transcript or the Tools pane opens it. It shows
what ``ToolRow.whole`` holds: a finished call's result exactly as the model got it
(capped at the tool boundary, ``tools/output_cap.py``), a running call's output streamed
so far — followed live until its result comes (stop 62: it showed the output as it was
when opened), the view kept at the newest line unless scrolled up (End goes back).
``/jobs show ID`` opens it on a background job's latest output, followed the same way.
``/`` types a pattern (plain text, any case), Enter finds it, ``n`` / ``N`` go to the
next / previous match (wrapping), every match is highlighted and the current one stands
out; Esc (or ``q``) closes.

Outputs run to hundreds of kilobytes, so the view is a line-API ``ScrollView``: the
text is split into rows at the view's width once (a cheap slice per row, no rich
wrapping), and only the rows on screen are rendered, each cached. Every line is display
text (``display_preview``: control characters as pictures); a line longer than
``2 × LINE_KEEP`` characters keeps its two ends (the copy picker has it whole).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from typing import ClassVar

from rich.cells import chop_cells
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import Input, Static

from frontier.app.record import record
from frontier.widgets.display import display_preview
from frontier.widgets.lines import set_virtual_size
from frontier.widgets.state import ToolRow

LINE_KEEP = 50_000
"""Characters kept at each end of one output line (the rest is said, not shown)."""
CACHE_ROWS = 2048
TAB_SIZE = 8

Match = tuple[int, int, int]
"""``(line, start, end)``: a match in the display lines, by character."""


def _display_lines(text: str) -> list[str]:
    shown = display_preview(text.rstrip("\n"), keep=LINE_KEEP)
    return [line.expandtabs(TAB_SIZE) for line in shown.split("\n")]


@record
class Followed:
    """What a live pager shows now (``PagerScreen.follow``)."""

    text: str
    subtitle: str
    live: bool
    """Still growing (a running call, a running job): the pager looks again."""


FOLLOW_EVERY = 0.5
"""Seconds between a live pager's looks at its output (a person reading, not a meter)."""


class PagerView(ScrollView, can_focus=True):
    """Display lines wrapped at the view's width, drawn row by row, matches marked."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"pager--match", "pager--current"}
    DEFAULT_CSS = """
    PagerView { background: $surface; scrollbar-gutter: stable; }
    PagerView > .pager--match { background: $warning 45%; }
    PagerView > .pager--current { background: $accent; color: $text; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "page_down", "Page down", show=False),
    ]

    def __init__(self, text: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[str] = _display_lines(text)
        self._rows: list[tuple[int, int, int]] = []
        """``(line, start, end)`` per screen row at ``_width``."""
        self._row_of_line: list[int] = []
        """The first row of each line."""
        self._width = 0
        self.matches: list[Match] = []
        self.current: int | None = None
        """Index in ``matches`` of the match shown (``n``/``N`` move it)."""
        self._by_line: dict[int, list[int]] = {}
        """Line → indexes of its matches."""
        self._cache: OrderedDict[tuple[int, int, int | None], Strip] = OrderedDict()
        self._pattern = ""

    # ------------------------------------------------------------------ layout
    def on_resize(self, event: events.Resize) -> None:
        self._wrap()

    def on_mount(self) -> None:
        self._wrap()

    def _wrap(self) -> None:
        region = self.scrollable_content_region.width
        if not region:  # mounted, not laid out yet: the resize that follows wraps it
            return  # (wrapped at 8 columns first, the pager showed that for a moment)
        width = max(8, region)
        if width == self._width and self._rows:
            return
        self._width = width
        rows: list[tuple[int, int, int]] = []
        firsts: list[int] = []
        for index, line in enumerate(self.lines):
            firsts.append(len(rows))
            if len(line) <= width and line.isascii():
                rows.append((index, 0, len(line)))
            elif line.isascii():
                rows.extend(
                    (index, at, min(len(line), at + width)) for at in range(0, len(line), width)
                )
            else:
                at = 0
                for piece in chop_cells(line, width) or [""]:
                    rows.append((index, at, at + len(piece)))
                    at += len(piece)
        self._rows, self._row_of_line = rows, firsts
        self._cache.clear()
        set_virtual_size(self, Size(width, len(rows)))
        self.refresh()

    def set_text(self, text: str) -> None:
        """Show ``text`` instead (a running call's or a job's output grew): a view at its
        end stays at the end, one scrolled up stays where it is; the search is run
        again."""
        following = self.scroll_offset.y >= self.max_scroll_y
        self.lines = _display_lines(text)
        self._width = 0  # wrap again
        self._wrap()
        if self._pattern:
            current = self.current
            self._find(self._pattern)
            if current is not None and self.matches:
                self.current = min(current, len(self.matches) - 1)
        if following:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def row_of(self, line: int, column: int = 0) -> int:
        """The screen row showing character ``column`` of ``line``."""
        first = self._row_of_line[line]
        last = self._row_of_line[line + 1] if line + 1 < len(self._row_of_line) else len(self._rows)
        starts = [self._rows[r][1] for r in range(first, last)]
        return first + max(0, bisect_right(starts, column) - 1)

    # ------------------------------------------------------------------ search
    def search(self, pattern: str) -> int:
        """Mark every match of ``pattern`` (plain text, any case); go to the first one at
        or after the top of the view. The number of matches."""
        self._find(pattern)
        if self.matches:
            top = int(self.scroll_offset.y)
            after = [i for i, m in enumerate(self.matches) if self.row_of(m[0], m[1]) >= top]
            self.go(after[0] if after else 0)
        self.refresh()
        return len(self.matches)

    def _find(self, pattern: str) -> None:
        """Every match of ``pattern`` marked; the view not moved."""
        self.matches, self._by_line, self.current = [], {}, None
        self._pattern = pattern
        self._cache.clear()
        if pattern:
            needle = re.compile(re.escape(pattern), re.IGNORECASE)
            for index, line in enumerate(self.lines):
                for found in needle.finditer(line):
                    if found.end() > found.start():
                        self._by_line.setdefault(index, []).append(len(self.matches))
                        self.matches.append((index, found.start(), found.end()))

    def step(self, direction: int) -> None:
        """The next (``1``) or previous (``-1``) match, wrapping at the ends."""
        if not self.matches:
            return
        at = -1 if self.current is None and direction > 0 else (self.current or 0)
        self.go((at + direction) % len(self.matches))

    def go(self, index: int) -> None:
        self.current = index
        self._cache.clear()
        line, start, _ = self.matches[index]
        row = self.row_of(line, start)
        height = self.scrollable_content_region.height
        top = int(self.scroll_offset.y)
        if not top <= row < top + height:
            self.scroll_to(y=max(0, row - height // 3), animate=False, immediate=True)
        self.refresh()

    # ------------------------------------------------------------------ drawing
    def render_line(self, y: int) -> Strip:
        row = int(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        if not 0 <= row < len(self._rows):
            return Strip.blank(width, self.rich_style)
        line, start, end = self._rows[row]
        marks = self._by_line.get(line)
        key = (row, self._width, self.current if marks else None)
        strip = self._cache.get(key)
        if strip is None:
            text = Text(self.lines[line][start:end], no_wrap=True, end="")
            for index in marks or ():
                _, m_start, m_end = self.matches[index]
                if m_end > start and m_start < end:
                    name = "pager--current" if index == self.current else "pager--match"
                    style = self.get_component_rich_style(name, partial=True)
                    text.stylize(style, max(0, m_start - start), min(end, m_end) - start)
            segments = list(text.render(self.app.console))
            strip = Strip(segments).extend_cell_length(width, self.rich_style)
            strip = strip.apply_style(self.rich_style)
            self._cache[key] = strip
            if len(self._cache) > CACHE_ROWS:
                self._cache.popitem(last=False)
        return strip.crop(int(self.scroll_offset.x), int(self.scroll_offset.x) + width)

    def row_text(self, row: int) -> str:
        """Row ``row`` as a user reads it (tests)."""
        line, start, end = self._rows[row]
        return self.lines[line][start:end]

    def row_styles(self, row: int) -> list[Style]:
        """The styles drawn on row ``row`` (tests: is a match highlighted there?)."""
        top = int(self.scroll_offset.y)
        strip = self.render_line(row - top)
        return [
            segment.style for segment in strip if isinstance(segment, Segment) and segment.style
        ]


class PagerScreen(ModalScreen[None]):
    """A tool call's whole output; ``/`` search, ``n``/``N``, Esc or ``q`` closes."""

    DEFAULT_CSS = """
    PagerScreen { align: center middle; }
    #pager { width: 100%; height: 100%; border: thick $primary; background: $surface; }
    #pager-view { height: 1fr; }
    #pager-search { height: 3; display: none; border: tall $accent; }
    #pager-search.-shown { display: block; }
    #pager-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
        Binding("slash", "search", "Search"),
        Binding("n", "step(1)", "Next match", show=False),
        Binding("N", "step(-1)", "Previous match", show=False),
        Binding("home", "edge(0)", "Top", show=False),
        Binding("end", "edge(1)", "End", show=False),
    ]

    def __init__(
        self,
        title: str,
        text: str,
        *,
        subtitle: str = "",
        follow: Callable[[], Followed | None] | None = None,
    ) -> None:
        super().__init__()
        self.title_text = display_preview(title, one_line=True, limit=200)
        self.subtitle_text = display_preview(subtitle, one_line=True, limit=200)
        self.text = text
        self.pattern = ""
        self.follow = follow
        """A running call's or a job's output: looked at every ``FOLLOW_EVERY`` seconds
        while it grows (``None``: the text as it is)."""
        self._looking: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="pager") as box:
            box.border_title = Text(self.title_text)  # a command's text: never markup
            box.border_subtitle = Text(self.subtitle_text)
            yield PagerView(self.text, id="pager-view")
            yield Input(
                placeholder="search (plain text, any case) · Enter finds", id="pager-search"
            )
            yield Static(id="pager-keys")

    @property
    def view(self) -> PagerView:
        return self.query_one(PagerView)

    def on_mount(self) -> None:
        self.view.focus()
        self._keys()
        if self.follow is not None:  # live: from the newest output, as a terminal shows it
            self.call_after_refresh(self.action_edge, 1)
            self._looking = self.set_interval(FOLLOW_EVERY, self.look)

    def look(self) -> None:
        """Show what the followed output holds now; stop looking once it stops growing."""
        got = self.follow() if self.follow is not None else None
        if got is None or not got.live:
            self.follow = None
            if self._looking is not None:
                self._looking.stop()
        if got is None:
            return
        if got.text != self.text:
            self.text = got.text
            self.view.set_text(got.text)
            self._keys()
        if got.subtitle != self.subtitle_text:
            self.subtitle_text = display_preview(got.subtitle, one_line=True, limit=200)
            self.query_one("#pager", Vertical).border_subtitle = Text(self.subtitle_text)

    def _keys(self, said: str = "") -> None:
        view = self.view
        where = ""
        if view.matches and view.current is not None:
            where = f"match {view.current + 1:,} of {len(view.matches):,} · "
        elif self.pattern:
            where = f"no match for {display_preview(self.pattern, one_line=True, limit=40)} · "
        lines = f"{len(view.lines):,} line{'s' * (len(view.lines) != 1)}"
        keys = Text.assemble(
            (said + " · " if said else "", "bold"),
            where,
            lines,
            " · ",
            ("/", "bold"),
            " search · ",
            ("n N", "bold"),
            " next/previous · ",
            ("esc", "bold"),
            " close",
        )
        self.query_one("#pager-keys", Static).update(keys)

    def _search_box(self) -> Input:
        return self.query_one("#pager-search", Input)

    def action_search(self) -> None:
        box = self._search_box()
        box.add_class("-shown")
        box.value = self.pattern
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.pattern = event.value
        self._search_box().remove_class("-shown")
        self.view.focus()
        self.view.search(self.pattern)
        self._keys()

    def action_step(self, direction: int) -> None:
        self.view.step(direction)
        self._keys()

    def action_edge(self, end: int) -> None:
        view = self.view
        view.scroll_to(y=view.max_scroll_y if end else 0, animate=False, immediate=True)

    def action_close(self) -> None:
        box = self._search_box()
        if box.has_class("-shown"):  # Esc while typing a pattern: only the box goes
            box.remove_class("-shown")
            self.view.focus()
            return
        self.dismiss(None)


def tool_pager(row: ToolRow) -> PagerScreen:
    """The pager for a tool row: its call as the title, its outcome as the subtitle; a
    call still running is followed until its result comes (End keeps to the newest)."""
    head = f"{row.call.id} {row.call.name} {row.summary}"
    if row.finished:
        return PagerScreen(head, row.whole(), subtitle=_outcome(row))
    seen = [row.version, row.state]

    def follow() -> Followed | None:
        if [row.version, row.state] == seen:
            return Followed(screen.text, screen.subtitle_text, True)
        seen[:] = [row.version, row.state]
        return Followed(row.whole(), _outcome(row), not row.finished)

    screen = PagerScreen(head, row.whole(), subtitle=_outcome(row), follow=follow)
    return screen


def _outcome(row: ToolRow) -> str:
    if not row.finished:
        return f"{row.state} · live: End follows the newest output"
    outcome = row.state if row.exit_code is None else f"{row.state} exit={row.exit_code}"
    if row.elapsed is not None:
        outcome += f" · {row.elapsed:.2f} s"
    if row.where:
        outcome += f" · {row.where}"
    return outcome
