"""A line-API log of single-line rows that can change after they are written.

The Confirmed pane merges byte runs into its last row, so a plain ``RichLog``
(append-only) does not fit; this view renders only the visible rows from a
bounded sequence, caches strips by (row id, version, width) and follows the
tail until the user scrolls up.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from rich.console import Console
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from frontier.widgets.lines import fit_width, set_virtual_size

RowT = TypeVar("RowT")


class TailLog(ScrollView, Generic[RowT], can_focus=True):
    """Rows come from ``rows`` (any sequence); ``render_row`` turns one into ``Text``."""

    def __init__(
        self,
        render_row: Callable[[RowT], Text],
        key: Callable[[RowT], tuple[int, int]],
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.rows: Sequence[RowT] = ()
        self._render_row = render_row
        self._key = key
        self._cache: OrderedDict[tuple[int, int, int], Strip] = OrderedDict()
        self.follow = True

    def set_rows(self, rows: Sequence[RowT]) -> None:
        self.rows = rows
        set_virtual_size(self, Size(fit_width(self, len(rows)), len(rows)))
        if self.follow:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self.set_rows(self.rows)  # new width; shown again after a tab switch: follow

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.follow = new_value >= self.max_scroll_y

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        row = self.rows[index]
        ident, version = self._key(row)
        key = (ident, version, width)
        strip = self._cache.get(key)
        if strip is None:
            text = self._render_row(row)
            text.no_wrap = True
            text.overflow = "ellipsis"
            text.truncate(width, overflow="ellipsis")
            console: Console = self.app.console
            strip = Strip(text.render(console), text.cell_len).extend_cell_length(
                width, self.rich_style
            )
            strip = strip.apply_style(self.rich_style)
            self._cache[key] = strip
            if len(self._cache) > 1024:
                self._cache.popitem(last=False)
        return strip
