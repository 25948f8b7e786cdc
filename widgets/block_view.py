"""A line-API view of text blocks (transcript entries, tool rows) that draws only what shows.

A ``Static`` holding a growing text re-wraps all of it and lays out the screen
on every update; at replay speed that was most of the UI's time. Here each
block is a rich ``Text`` with a key that changes when its content does. A
flush only measures new blocks (one line when it fits, no wrapping needed),
and ``render_line`` wraps a block the first time one of its lines is visible,
keeping the strips in an LRU. Text is wrapped and styled exactly as a
``Static`` would (``lines.text_strips``), so the panes look the same.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Hashable, Sequence

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from frontier.widgets.lines import fit_width, set_virtual_size, text_strips

Block = tuple[Hashable, Text]
"""``(key, text)``: the key must change whenever the text (or its styles) does."""
CACHE_BLOCKS = 512


class BlockView(ScrollView, can_focus=True):
    """Shows ``set_blocks(...)``; follows the tail until the user scrolls up."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._blocks: list[Block] = []
        self._keys: list[Hashable] = []
        self._starts: list[int] = []
        self._total = 0
        self._width = 0
        self._heights: dict[Hashable, int] = {}
        self._strips: OrderedDict[Hashable, list[Strip]] = OrderedDict()
        self.follow = True

    # ------------------------------------------------------------------ public
    def set_blocks(self, blocks: Sequence[Block]) -> None:
        """Show ``blocks``; nothing happens when their keys did not change."""
        keys = [key for key, _ in blocks]
        if keys == self._keys:
            return
        self._blocks, self._keys = list(blocks), keys
        self._reflow()

    @property
    def line_count(self) -> int:
        return self._total

    @property
    def plain_lines(self) -> list[str]:
        """Every line as a user reads it (renders all blocks: for tests, not for flushes)."""
        return [strip.text for i in range(len(self._blocks)) for strip in self._block_strips(i)]

    # ------------------------------------------------------------------ layout
    def _reflow(self) -> None:
        if not self.is_mounted:
            return
        # measure at the width the last flush had; again if the scrollbar came or went
        width = fit_width(self, self._total)
        total = self._measure(width)
        if fit_width(self, total) != width:
            width = fit_width(self, total)
            total = self._measure(width)
        set_virtual_size(self, Size(width, total))
        self.refresh()
        if self.follow:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def _measure(self, width: int) -> int:
        if width != self._width:
            self._width = width
            self._heights.clear()
            self._strips.clear()
        known, heights = self._heights, {}
        starts: list[int] = []
        y = 0
        for i, (key, text) in enumerate(self._blocks):
            height = known.get(key)
            if height is None:
                height = _fits(text, width) or len(self._block_strips(i))
            heights[key] = height
            starts.append(y)
            y += height
        self._heights, self._starts, self._total = heights, starts, y
        return y

    def _block_strips(self, index: int) -> list[Strip]:
        key, text = self._blocks[index]
        strips = self._strips.get(key)
        if strips is None:
            strips = text_strips(self, text, self._width)
            self._strips[key] = strips
            if len(self._strips) > CACHE_BLOCKS:
                self._strips.popitem(last=False)
        else:
            self._strips.move_to_end(key)
        return strips

    # ------------------------------------------------------------------ textual
    def on_mount(self) -> None:
        self._reflow()

    def on_resize(self, event: events.Resize) -> None:
        self._reflow()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._width = 0  # a theme or class change restyles every block
        self._reflow()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.follow = new_value >= self.max_scroll_y

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        if 0 <= index < self._total:
            block = bisect_right(self._starts, index) - 1
            strips = self._block_strips(block)
            offset = index - self._starts[block]
            if offset < len(strips):
                return strips[offset]
        return Strip.blank(self.scrollable_content_region.width, self.rich_style)


def _fits(text: Text, width: int) -> int:
    """1 when ``text`` is one line that fits ``width``, else 0: wrap it to know.

    (A ``Static`` wraps even a ``no_wrap`` rich ``Text``, and so do we.)
    """
    return int("\n" not in text.plain and text.cell_len <= width)
