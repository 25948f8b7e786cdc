"""The key bar: the keys a screen offers, on one line drawn by one widget.

Textual's ``Footer`` is a container holding a ``FooterKey`` widget for each key, each
styled through two component classes, and it recomposes them all whenever the screen's
bindings change: at start, at every focus change, at every turn that starts or ends. On
the main screen that was ~40% of the App's start-up CPU (~70 of ~180 ms, measured with the
footer's compose emptied) and a remount of a dozen widgets per focus change. This bar
draws the same line (the same text and theme variables, the command palette's key at the
right edge) from ``Screen.active_bindings``, and only repaints when they change. Pointing
at a key highlights it and shows its tooltip, pressing it presses the key (a disabled key
rings the bell), and the wheel scrolls a line wider than the bar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.binding import Binding
    from textual.screen import Screen


class KeyItem(NamedTuple):
    """One key as the bar shows it."""

    key: str
    """What pressing the item presses (``Binding.key``)."""
    display: str
    """How the key is written (``App.get_key_display``)."""
    description: str
    enabled: bool
    tooltip: str


class KeySpan(NamedTuple):
    """Where an item was drawn: cells ``start`` to ``end`` (exclusive) of the bar."""

    start: int
    end: int
    item: KeyItem


def left_items(
    bindings: list[tuple[Binding, bool, str]], display: Callable[[Binding], str]
) -> list[KeyItem]:
    """The shown bindings in order, one item per action (a key bound twice to the same
    action, ``plus,equals_sign``, is shown once, by its first binding), as Footer does."""
    seen: dict[str, KeyItem] = {}
    for binding, enabled, tooltip in bindings:
        if binding.show and binding.action not in seen:
            seen[binding.action] = KeyItem(
                binding.key, display(binding), binding.description, enabled, tooltip
            )
    return list(seen.values())


def drop_cells(text: Text, cells: int) -> Text:
    """``text`` without its first ``cells`` cells; a wide character cut in two leaves a
    space for its second half."""
    plain = text.plain
    taken = index = 0
    while index < len(plain) and taken < cells:
        taken += cell_len(plain[index])
        index += 1
    rest = text[index:]
    return Text.assemble(" " * (taken - cells), rest, end="") if taken > cells else rest


class KeyBar(Widget, can_focus=False):
    """The screen's keys, docked at the bottom: ``f1 Help  esc Interrupt …  ▏^p palette``."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "key-bar--key",
        "key-bar--description",
        "key-bar--edge",
        "key-bar--hover",
    }
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-bar--edge {
            color: $foreground 20%;
        }
        .key-bar--hover {
            background: $block-hover-background;
        }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._items: list[KeyItem] = []
        self._palette: KeyItem | None = None
        self._spans: list[KeySpan] = []
        self._hover: str | None = None
        self._offset = 0
        self._overflow = 0

    # ------------------------------------------------------------------ bindings

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen:
            # after the refresh, as Footer does: a change is published before the
            # widgets it is about have finished mounting (the tour's card and its keys)
            self.call_after_refresh(self._read_bindings)

    def _read_bindings(self) -> None:
        if not self.is_attached:
            return
        screen = self.screen
        active = screen.active_bindings
        app = self.app
        shown = [(a.binding, a.enabled, a.tooltip) for a in active.values()]
        items = left_items(shown, app.get_key_display)
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            found = active[app.COMMAND_PALETTE_BINDING]
            b = found.binding
            tip = found.tooltip or b.description
            palette = KeyItem(b.key, app.get_key_display(b), b.description, found.enabled, tip)
        if items != self._items or palette != self._palette:
            self._items, self._palette = items, palette
            self.refresh()

    # ------------------------------------------------------------------ drawing

    def render(self) -> Text:
        width = self.size.width
        key = self.get_component_rich_style("key-bar--key")
        description = self.get_component_rich_style("key-bar--description")
        hover = Style(bgcolor=self.get_component_rich_style("key-bar--hover").bgcolor)
        line = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, KeyItem]] = []
        for item in self._items:
            start = line.cell_len
            if item.description:
                line.append(f" {item.display} ", key)
                line.append(f"{item.description} ", description)
            else:
                line.append(item.display, key)
            spans.append((start, line.cell_len, item))
            self._stylize(line, start, item, hover)
        right = Text(no_wrap=True, end="")
        if self._palette is not None:
            item = self._palette
            right.append("▏", self.get_component_rich_style("key-bar--edge"))
            right.append(item.display, key)
            if item.description:
                right.append(f" {item.description}", description)
            right.append(" ")  # the palette key's own right padding, in the bar's style
            self._stylize(right, 1, item, hover)
        room = max(0, width - right.cell_len)
        self._overflow = max(0, line.cell_len - room)
        self._offset = min(self._offset, self._overflow)
        shift = self._offset
        visible = drop_cells(line, shift) if shift else line
        visible.truncate(room, overflow="crop")
        visible.append(" " * (room - visible.cell_len))  # the gap, in the bar's style
        self._spans = [
            KeySpan(max(0, s - shift), min(room, e - shift), i)
            for s, e, i in spans
            if e - shift > 0 and s - shift < room
        ]
        if self._palette is not None:
            self._spans.append(KeySpan(room + 1, room + right.cell_len, self._palette))
        return Text.assemble(visible, right, no_wrap=True, end="")

    def _stylize(self, line: Text, start: int, item: KeyItem, hover: Style) -> None:
        if not item.enabled:
            line.stylize(Style(dim=True), start)
        if item.key == self._hover:
            line.stylize(hover, start)

    # ------------------------------------------------------------------ the mouse

    def _at(self, x: int) -> KeyItem | None:
        return next((s.item for s in self._spans if s.start <= x < s.end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        item = self._at(event.x)
        hover = item.key if item is not None else None
        if hover != self._hover:
            self._hover = hover
            self.tooltip = item.tooltip if item is not None and item.tooltip else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        item = self._at(event.x)
        if item is None:
            return
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scroll(4, event)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scroll(-4, event)

    def _scroll(self, by: int, event: events.MouseEvent) -> None:
        offset = max(0, min(self._overflow, self._offset + by))
        if offset != self._offset:
            self._offset = offset
            self.refresh()
            event.stop()
