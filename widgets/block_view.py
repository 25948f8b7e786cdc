"""A line-API view of text blocks (transcript entries, tool rows) that draws only what shows.

A ``Static`` holding a growing text re-wraps all of it and lays out the screen
on every update; at replay speed that was most of the UI's time. Here each
block is a rich ``Text`` with a key that changes when its content does. A
flush only measures new blocks (one line when it fits, no wrapping needed),
and ``render_line`` wraps a block the first time one of its lines is visible,
keeping the strips in an LRU. Text is wrapped and styled exactly as a
``Static`` would (``lines.text_strips``), so the panes look the same.

A block that is costly to render (a reply's Markdown, ~1 ms each) may offer
``estimate(width) -> int``: it then counts as that many lines until it is
rendered, and only the blocks that come into view are rendered — so a flush
that brings hundreds of new Markdown blocks (a replay at full speed) renders
the dozen on screen, not all of them. Once rendered, a block's real height
replaces the estimate; the blocks in view are always rendered first, so what
is on screen is laid out exactly, and a wrong guess above the view only moves
the scrollbar.
"""

from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from itertools import accumulate, islice

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from frontier.widgets.lines import PaintStyle, fit_width, set_virtual_size, text_strips

Block = tuple[Hashable, Text | RenderableType]
"""``(key, text)``: the key must change whenever the text (or its styles) does. Any rich
renderable may stand in for the text (a Transcript reply's Markdown); it is measured by
rendering it — or by its ``estimate(width)`` until it comes into view — where a
one-line ``Text`` (or a renderable whose ``fits(width)`` says it is one row) is measured
without rendering."""
CACHE_BLOCKS = 512
SETTLE_ROUNDS = 64
"""Bound on render-the-view passes per reflow (each renders at least one block)."""
SETTLE_BUDGET = 0.008
"""Seconds of rendering per event-loop turn when a flush brings many blocks into view (a
fast stream): the rest is rendered on the next turns, keys handled between them, and the
view moves once every block in it is drawn (``docs/tui-speed.md``)."""


class BlockView(PaintStyle, ScrollView, can_focus=True):
    """Shows ``set_blocks(...)``; follows the tail until the user scrolls up."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._blocks: list[Block] = []
        self._keys: list[Hashable] = []
        self._starts: list[int] = []
        self._sizes: list[int] = []
        self._guessed: list[bool] = []
        """Per block: its size is an estimate (it has not been rendered at this width)."""
        self._total = 0
        self._width = 0
        self._heights: dict[Hashable, int] = {}
        """Real heights at ``_width`` of the blocks rendered or measured."""
        self._guesses: dict[Hashable, int] = {}
        """Estimated heights at ``_width`` of the blocks not rendered yet."""
        self._measured: list[Hashable] = []
        """The keys ``_sizes`` belongs to (the last measure's)."""
        self._measured_at: dict[Hashable, int] = {}
        """Each of those keys' index."""
        self._strips: OrderedDict[Hashable, list[Strip]] = OrderedDict()
        self.follow = True
        self._unsettled = False
        """The last budgeted ``_settle`` stopped with blocks in view still estimated."""
        self._reflows = 0
        self._frame: tuple[list[Block], list[int], int] | None = None
        """What the screen shows: the blocks, their start lines and the total of the last
        settled layout. A reflow still rendering (``SETTLE_BUDGET``) has measured new
        blocks and dropped old ones, and the view has not moved yet: a paint meanwhile
        draws this, not the half-measured layout at the old scroll offset."""
        """Generation of the newest reflow (a continuation of an older one stops)."""

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
        if not self.is_mounted or not self.content_region.width:
            return  # not laid out yet (at mount): its ``Resize`` reflows it at its width
        # measure at the width the last flush had, or with the scrollbar when there are
        # more blocks than rows (each is a row at least: a resume's first flush of a
        # thousand blocks measured them all twice); again if the scrollbar came or went
        width = fit_width(self, max(self._total, len(self._blocks)))
        total = self._measure(width)
        if fit_width(self, total) != width:
            width = fit_width(self, total)
            total = self._measure(width)
        self._reflows += 1
        self._settle_some(self._reflows)

    def _settle_some(self, generation: int) -> None:
        """Render the view's new blocks for up to ``SETTLE_BUDGET``; then show them, or
        go on in a later turn of the event loop (the view stays as it was meanwhile)."""
        if generation != self._reflows or not self.is_mounted:
            return  # a newer reflow took over
        total = self._settle(time.perf_counter() + SETTLE_BUDGET)
        if self._unsettled:
            self.call_later(self._settle_some, generation)
            return
        self._frame = (self._blocks, self._starts, total)
        set_virtual_size(self, Size(self._width, total))
        self.refresh()
        if self.follow:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def _measure(self, width: int) -> int:
        """Sizes of the blocks at ``width``; the total.

        The blocks a previous measure saw keep their sizes without a look-up: the
        new list is found in the old one (its first key, then the run of keys that
        match), so a paint that adds blocks at the tail or drops some at the head
        (a long reply streaming) measures only the new ones."""
        if width != self._width:
            self._width = width
            self._heights.clear()
            self._guesses.clear()
            self._strips.clear()
            self._measured = []
        keys, old = self._keys, self._measured
        at = self._measured_at.get(keys[0]) if keys and old else None
        same = 0
        if at is not None:
            for before, now in zip(islice(old, at, None), keys, strict=False):
                if before != now:
                    break
                same += 1
        else:
            at = 0
        sizes = self._sizes[at : at + same]
        guessed = self._guessed[at : at + same]
        heights, guesses = self._heights, self._guesses
        for i in range(same, len(keys)):
            key, text = self._blocks[i]
            height = heights.get(key)
            guess = False
            if height is None:
                height = _fits(text, width)
                if not height:
                    estimate = getattr(text, "estimate", None)
                    if callable(estimate):
                        height = guesses.get(key) or max(1, int(estimate(width)))
                        guesses[key] = height
                        guess = True
                    else:
                        height = len(self._block_strips(i))
            if not guess:
                heights[key] = height
            sizes.append(height)
            guessed.append(guess)
        if len(heights) + len(guesses) > 2 * len(keys) + 64:  # blocks gone from the list
            shown = set(keys)
            self._heights = {k: h for k, h in heights.items() if k in shown}
            self._guesses = {k: h for k, h in guesses.items() if k in shown}
        self._sizes, self._guessed = sizes, guessed
        self._measured = keys
        self._measured_at = dict(zip(keys, range(len(keys)), strict=True))
        return self._place()

    def _place(self) -> int:
        """Block start lines from their sizes; the total."""
        self._starts = [0, *accumulate(self._sizes)][:-1] if self._sizes else []
        self._total = sum(self._sizes)
        return self._total

    def _settle(self, deadline: float | None = None) -> int:
        """Render the estimated blocks the view shows (the tail when following) until
        every line on screen belongs to a block of known height; the new total. Past a
        ``deadline`` (``perf_counter``) it stops after at least one block and sets
        ``_unsettled``."""
        height = max(1, self.scrollable_content_region.height)
        self._unsettled = False
        for _ in range(SETTLE_ROUNDS):
            top = max(0, self._total - height) if self.follow else int(self.scroll_offset.y)
            top = min(top, max(0, self._total - height))
            guessed = [i for i in self._in_view(top, height) if self._guessed[i]]
            if not guessed:
                break
            for i in guessed:
                self._exact(i)
                if deadline is not None and time.perf_counter() > deadline:
                    self._unsettled = True
                    break
            self._place()
            if self._unsettled:
                break
        if not self._unsettled:
            self._warm(height, deadline)
        return self._total

    def _warm(self, height: int, deadline: float | None) -> None:
        """Draw the blocks in view that were measured without a render (a one-row
        tool call), so the screen update that shows them only copies strips: at
        replay speed a dozen new rows a paint, each a rich render, held that update."""
        top = max(0, self._total - height) if self.follow else int(self.scroll_offset.y)
        top = min(top, max(0, self._total - height))
        strips = self._strips
        for i in self._in_view(top, height):
            if self._keys[i] not in strips:
                self._block_strips(i)
                if deadline is not None and time.perf_counter() > deadline:
                    self._unsettled = True
                    return

    def _in_view(self, top: int, height: int) -> range:
        if not self._starts:
            return range(0)
        first = max(0, bisect_right(self._starts, top) - 1)
        last = bisect_left(self._starts, top + height)
        return range(first, last)

    def _exact(self, index: int) -> bool:
        """Render block ``index`` and adopt its real height; True when that changed it."""
        key = self._blocks[index][0]
        height = len(self._block_strips(index))
        self._heights[key] = height
        self._guessed[index] = False
        changed = height != self._sizes[index]
        self._sizes[index] = height
        return changed

    def _block_strips(self, index: int) -> list[Strip]:
        return self._strips_of(*self._blocks[index])

    def _strips_of(self, key: Hashable, text: Text | RenderableType) -> list[Strip]:
        strips = self._strips.get(key)
        if strips is None:
            strips = text_strips(self, text, self._width)
            self._strips[key] = strips
            if len(self._strips) > CACHE_BLOCKS:
                self._strips.popitem(last=False)
        else:
            self._strips.move_to_end(key)
        return strips

    def _resettle(self) -> None:
        """The view reached estimated blocks (a scroll): render them and lay out again."""
        if not self.is_mounted:
            return
        before = self._total
        self._place()
        total = self._settle()
        self._frame = (self._blocks, self._starts, total)
        if total != before:
            set_virtual_size(self, Size(self._width, total))
        self.refresh()

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
        if not self.follow and any(self._guessed):
            self._resettle()

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        frame = self._frame
        blocks, starts, total = frame if frame is not None else (self._blocks, self._starts, 0)
        if 0 <= index < total:
            block = bisect_right(starts, index) - 1
            # the layout on screen is the current one (blocks set while the view could
            # not lay out, hidden by a layout, leave ``_blocks`` newer than the frame:
            # indexing them with the frame's starts raised IndexError)
            if starts is self._starts and blocks is self._blocks:
                if self._guessed[block] and self._exact(block):
                    self.call_later(self._resettle)  # in view before it was settled
                strips = self._block_strips(block)
            else:
                strips = self._strips_of(*blocks[block])
            offset = index - starts[block]
            if offset < len(strips):
                return strips[offset]
        return Strip.blank(self.scrollable_content_region.width, self.rich_style)


def _fits(text: Text | RenderableType, width: int) -> int:
    """1 when ``text`` is one line that fits ``width``, else 0: wrap it to know.

    (A ``Static`` wraps even a ``no_wrap`` rich ``Text``, and so do we.)
    """
    if not isinstance(text, Text):
        fits = getattr(text, "fits", None)  # a renderable that knows (``Hanging``)
        return int(fits(width)) if callable(fits) else 0
    return int("\n" not in text.plain and text.cell_len <= width)
