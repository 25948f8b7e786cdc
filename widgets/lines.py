"""Helpers shared by the line-API panes (Raw stream, Confirmed, Transcript, Tools).

Two Textual costs dominate a fast stream if left alone (docs/benchmarks/tui.md):
assigning ``virtual_size`` lays out the *whole screen* (the reactive has
``layout=True``), and a ``Static`` whose text grows re-wraps all of it and lays
out too. These helpers let a ``ScrollView`` grow without a layout and render
text exactly as a ``Static`` would, one cached block at a time.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Change a ``ScrollView``'s scrollable size without a screen layout.

    A ``ScrollView`` ignores the size a layout would compute for it, so the only
    work a layout does here is update the scrollbars: do just that. A scrollbar
    appearing or disappearing still lays out (that reactive has ``layout=True``),
    once, which is what must happen.
    """
    if size == view.virtual_size:
        return
    view.set_reactive(Widget.virtual_size, size)
    if view.is_mounted:
        view._scroll_update(size)  # scrollbar visibility, window size, clamp the offset
    view.refresh()


def text_strips(widget: Widget, text: Text | RenderableType, width: int) -> list[Strip]:
    """``text`` (or any rich renderable) wrapped and styled at ``width`` cells exactly as
    a ``Static`` shows it."""
    return Visual.to_strips(widget, visualize(widget, text), width, None, widget.visual_style)


def fit_width(view: ScrollView, lines: int) -> int:
    """Content width once ``lines`` lines are in: narrower by the scrollbar if they overflow."""
    region = view.content_region
    width = region.width
    if view.styles.overflow_y == "scroll" or (
        view.styles.overflow_y == "auto" and lines > region.height
    ):
        width -= view.styles.scrollbar_size_vertical
    return max(1, width)


class PaintStyle:
    """Mixin (first base) for a line-API widget: its ``rich_style`` is looked up once per paint.

    ``rich_style`` walks every ancestor's styles (~0.1 ms on the shared box); a
    ``render_line`` that asks for it (a blank row, a new strip's base) paid that for
    each line, and at replay speed every visible line is new on each paint
    (``docs/tui-speed.md``). During ``render_lines`` the value is kept; outside a
    paint it is looked up as before, so a style change is never missed. Not a
    ``Widget`` itself: Textual inherits ``DEFAULT_CSS`` along the first DOM base only,
    which must stay the widget's own."""

    _paint_style: Style | None = None

    @property
    def rich_style(self) -> Style:
        kept = self._paint_style
        return kept if kept is not None else Widget.rich_style.fget(self)  # type: ignore[attr-defined]

    def render_lines(self, crop: Region) -> list[Strip]:
        self._paint_style = Widget.rich_style.fget(self)  # type: ignore[attr-defined]
        try:
            return super().render_lines(crop)  # type: ignore[misc]
        finally:
            self._paint_style = None
