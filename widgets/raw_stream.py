"""The Raw stream pane: the transducer input with the confirmed frontier drawn in it.

A line-API ``ScrollView``: the response bytes are indexed into display lines
(split at ``\\n`` and wrapped at the pane width, never inside a UTF-8
sequence), each line is rendered on demand into a ``Strip`` kept in an LRU,
and a sync only refreshes the lines whose bytes or frontier changed. Confirmed
bytes are plain, pending bytes italic + underlined, the frontier a reversed
marker cell, a selected error offset bold + reversed — readable without colour.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import OrderedDict
from itertools import accumulate, compress, pairwise
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from frontier.widgets.display import display_preview
from frontier.widgets.lines import set_virtual_size
from frontier.widgets.state import ResponseBuffer

_CONTROL = {c: chr(0x2400 + c) for c in range(0x20)}
_CONTROL[0x7F] = "␡"
_CONTROL[0x0A] = None  # type: ignore[assignment]  # newlines never reach a display line
MARKER = "▌"
JOIN = "⟂"
"""Drawn before the first byte of a continuation (where a cut response was joined)."""
CACHE_LINES = 2048
INDEX_STEP = 256 << 10
"""Bytes indexed per callback: more (a replay at "max" brings megabytes between two
paints) is indexed in the next turns of the event loop, keys handled between them."""


def display_text(data: bytes) -> str:
    """Bytes as one display line: invalid UTF-8 → U+FFFD, C0 controls → control pictures
    (one cell each, so a row keeps its width), C1 controls and bidi overrides → escapes
    (``display.display_preview``: ``\\x9b`` is a CSI to a terminal, U+202E reverses
    what follows). A row dense with those is wider than its bytes and is cropped at the
    pane's edge: the Raw stream is a view of the bytes, not a place to approve them."""
    return display_preview(data.decode("utf-8", "replace").translate(_CONTROL))


class RawStreamView(ScrollView, can_focus=True):
    """Shows one ``ResponseBuffer``; follows the tail until the user scrolls up."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "raw-stream--confirmed",
        "raw-stream--pending",
        "raw-stream--frontier",
        "raw-stream--highlight",
        "raw-stream--join",
    }

    DEFAULT_CSS = """
    RawStreamView {
        background: $surface;
    }
    RawStreamView > .raw-stream--confirmed { color: $foreground; }
    RawStreamView > .raw-stream--pending {
        color: $warning;
        text-style: italic underline;
    }
    RawStreamView > .raw-stream--frontier { color: $primary; text-style: bold; }
    RawStreamView > .raw-stream--highlight {
        color: $error;
        text-style: bold reverse;
    }
    RawStreamView > .raw-stream--join { color: $secondary; text-style: bold; }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.buffer: ResponseBuffer | None = None
        self.highlight: int | None = None
        self.follow = True
        self._starts: list[int] = []
        """Each display line's first byte (absolute offset); its end is the next line's
        start, less the newline when there is one (``_span``): one list to build, not
        three, at replay speed."""
        self._generation = -1
        self._wrap = 0
        self._indexed = 0
        self._frontier = 0
        self._masked = 0
        self._cache: OrderedDict[tuple[int, int, int, int, int, tuple[int, ...]], Strip] = (
            OrderedDict()
        )
        self._pass: _Pass | None = None
        """The styles and width of the paint in progress (``render_lines``), else ``None``."""
        self._catching_up = False
        """A ``_catch_up`` is scheduled (the index is behind the buffer)."""

    # ------------------------------------------------------------------ public
    def show(self, buffer: ResponseBuffer | None, *, highlight: int | None = None) -> None:
        """Display ``buffer`` (a new response or an older one chosen from Errors)."""
        if buffer is not self.buffer:
            self.buffer = buffer
            self._generation = -1
        self.highlight = highlight
        self._cache.clear()
        self.sync()
        if highlight is not None:
            if buffer is not None and self._indexed < buffer.base + len(buffer.data):
                self._index(buffer)  # the line to jump to is indexed now, not in a turn
                set_virtual_size(self, Size(self._wrap, len(self._starts)))
            self.follow = False
            line = self.line_of(highlight)
            self.scroll_to(y=max(0, line - self.size.height // 2), animate=False, immediate=True)
            self.follow = False
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self.sync()  # re-wrap at the new width; shown again after a tab switch: follow

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.follow = new_value >= self.max_scroll_y

    def line_of(self, offset: int) -> int:
        """Index of the display line holding byte ``offset``."""
        return max(0, bisect_right(self._starts, offset) - 1)

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def sync(self) -> None:
        """Catch up with the buffer: index new bytes, refresh only changed lines."""
        buf = self.buffer
        width = max(8, self.scrollable_content_region.width - 1)
        if buf is None:
            if self._starts:
                self._reset_index(0)
                set_virtual_size(self, Size(width, 0))
                self.refresh()
            return
        if buf.masked != self._masked:  # a secret masked in bytes already drawn
            self._masked = buf.masked
            self._cache.clear()
            self.refresh()
        if buf.generation != self._generation and width == self._wrap:
            self._slide(buf)
        if buf.generation != self._generation or width != self._wrap:
            self._wrap = width
            self._generation = buf.generation
            self._reset_index(buf.base)
            self._cache.clear()
            self._index(buf, INDEX_STEP)
            self._frontier = buf.frontier
            set_virtual_size(self, Size(width, len(self._starts)))
            self.refresh()
        else:
            first_dirty = self._index(buf, INDEX_STEP)
            old_frontier, self._frontier = self._frontier, buf.frontier
            lo = min(first_dirty, self.line_of(min(old_frontier, buf.frontier)))
            set_virtual_size(self, Size(width, len(self._starts)))
            hi = max(self.line_count, self.line_of(max(old_frontier, buf.frontier)) + 1)
            if lo < hi:
                self.refresh_lines(lo, hi - lo)
        if self.follow:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        if self._indexed < buf.base + len(buf.data) and not self._catching_up:
            self._catching_up = True
            self.call_later(self._catch_up)

    def _catch_up(self) -> None:
        self._catching_up = False
        self.sync()

    # ------------------------------------------------------------------ index
    def _slide(self, buf: ResponseBuffer) -> None:
        """The window dropped old bytes: drop their lines instead of re-indexing the rest.

        The buffer cuts at a line start, so the remaining index (and the cached
        strips, keyed by byte offsets) stay valid. A reader scrolled up keeps
        their place. Anything else (a gap, another buffer) is left to a re-index.
        """
        if self._generation < 0:
            return
        dropped = bisect_left(self._starts, buf.base)
        if dropped == len(self._starts) or self._starts[dropped] != buf.base:
            return
        del self._starts[:dropped]
        self._generation = buf.generation
        if dropped and not self.follow:
            self.scroll_to(y=max(0, self.scroll_y - dropped), animate=False, immediate=True)
            self.follow = False
        self.refresh()

    def _reset_index(self, base: int) -> None:
        self._starts = []
        self._indexed = base

    def _span(self, index: int) -> tuple[int, int, bool]:
        """Display line ``index``: its first byte, its end (exclusive, before the
        newline) and whether a newline ends it (the last line is the open one)."""
        starts = self._starts
        start = starts[index]
        if index + 1 == len(starts):
            return start, self._indexed, False
        after = starts[index + 1]
        buf = self.buffer
        if buf is not None and buf.data[after - 1 - buf.base] == 0x0A:
            return start, after - 1, True
        return start, after, False

    def spans(self) -> list[tuple[int, int, bool]]:
        """Every display line's ``_span`` (for tests: paints ask for the lines they draw)."""
        return [self._span(i) for i in range(len(self._starts))]

    def _index(self, buf: ResponseBuffer, limit: int | None = None) -> int:
        """Index bytes from the last (open) line on (``limit`` of them at most: the rest
        is the next call's, a cut line being an open one); return the first line that
        changed.

        Lines are found by ``split`` and their starts by ``accumulate`` (C loops: a
        1 MiB re-index after the window slides takes milliseconds); only lines wider
        than the pane are cut in Python.
        """
        starts = self._starts
        if starts:
            self._indexed = starts.pop()  # the open line is indexed again, grown
        first = len(starts)
        data, base, wrap = buf.data, buf.base, self._wrap
        pos = self._indexed - base
        size = len(data) if limit is None else min(len(data), pos + limit)
        self._indexed = base + size
        if pos >= size and not (size and data[size - 1] == 0x0A):
            return first
        # the last part is the open line (empty after a final newline: the marker's place)
        lens = list(map(len, data[pos:size].split(b"\n")))
        line_starts = list(accumulate(map((1).__add__, lens[:-1]), initial=base + pos))
        done = 0
        for i in compress(range(len(lens)), map(wrap.__lt__, lens)):
            starts += line_starts[done:i]
            cut_from, stop = line_starts[i] - base, line_starts[i] - base + lens[i]
            while stop - cut_from > wrap:
                cut = cut_from + wrap
                while cut > cut_from + 1 and (data[cut] & 0xC0) == 0x80:
                    cut -= 1  # never inside a UTF-8 sequence
                starts.append(base + cut_from)
                cut_from = cut
            starts.append(base + cut_from)
            done = i + 1
        starts += line_starts[done:]
        return first

    # ------------------------------------------------------------------ render
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def render_lines(self, crop: Region) -> list[Strip]:
        """One paint: the styles and the width are looked up once, not per line.

        ``rich_style`` walks every ancestor's styles (~0.1 ms); at "max" replay speed
        every visible line is new on each paint, so per line it was most of the pane's
        render time (``docs/tui-speed.md``)."""
        self._pass = _Pass(self)
        try:
            return super().render_lines(crop)
        finally:
            self._pass = None

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        styles = self._pass or _Pass(self)
        width = styles.width
        base_style = styles.base
        if self.buffer is None or index >= len(self._starts):
            return Strip.blank(width, base_style)
        start, end, newline = self._span(index)
        frontier = self.buffer.frontier
        last = index == len(self._starts) - 1
        on_line = start <= frontier < end or (frontier == end and (newline or last))
        marker = frontier if on_line else -1
        f_clamped = min(max(frontier, start), end)
        hl = self.highlight if self.highlight is not None and start <= self.highlight <= end else -1
        at_end = newline or last
        joins = tuple(j for j, _ in self.buffer.joins if start <= j < end or (j == end and at_end))
        key = (start, end, f_clamped if marker < 0 else -2 - frontier, hl, width, joins)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render_strip(start, end, f_clamped, marker, hl, styles, joins)
            self._cache[key] = strip
            if len(self._cache) > CACHE_LINES:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return strip.crop_extend(scroll_x, scroll_x + width, base_style)

    def _render_strip(
        self,
        start: int,
        end: int,
        frontier: int,
        marker: int,
        hl: int,
        styles: _Pass,
        joins: tuple[int, ...] = (),
    ) -> Strip:
        assert self.buffer is not None
        confirmed, pending = styles.confirmed, styles.pending
        marker_style, highlight, join_style = styles.marker, styles.highlight, styles.join
        cuts = sorted({start, frontier, end, *joins, *([hl, hl + 1] if hl >= 0 else [])})
        segments: list[Segment] = []
        drawn = False
        for a, b in pairwise(cuts):
            b = min(b, end)
            if a >= b:
                continue
            if a in joins:
                segments.append(Segment(JOIN, join_style))
            if a == marker:
                segments.append(Segment(MARKER, marker_style))
                drawn = True
            style = highlight if a == hl else confirmed if b <= frontier else pending
            segments.append(Segment(display_text(self.buffer.slice(a, b)), style))
        if end in joins:
            segments.append(Segment(JOIN, join_style))  # joined just before the line's end
        if marker >= 0 and not drawn:
            segments.append(Segment(MARKER, marker_style))
        if hl == end:
            segments.append(Segment("⏎", highlight))
        return Strip(segments)


class _Pass:
    """A paint's look-ups: the pane's style, its parts' styles and its width."""

    __slots__ = ("base", "confirmed", "highlight", "join", "marker", "pending", "width")

    def __init__(self, view: RawStreamView) -> None:
        base: Style = view.rich_style
        self.base = base
        self.width = view.scrollable_content_region.width
        part = view.get_component_rich_style
        self.confirmed = base + part("raw-stream--confirmed", partial=True)
        self.pending = base + part("raw-stream--pending", partial=True)
        self.marker = base + part("raw-stream--frontier", partial=True)
        self.highlight = base + part("raw-stream--highlight", partial=True)
        self.join = base + part("raw-stream--join", partial=True)
