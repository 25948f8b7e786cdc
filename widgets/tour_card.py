"""The guided tour's card: which moment, what the frontier did there, and the keys.

A panel docked above the status bar (never a modal or an overlay over the panes it
talks about): one heading line in its top border, then the text. Only the panes
shrink to make room; at 80×24 it takes five or six rows.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

KEYS = "space next · b back · q quit"


class TourCard(Static):
    DEFAULT_CSS = """
    TourCard {
        height: auto;
        max-height: 7;
        padding: 0 1;
        background: $panel;
        border-top: heavy $primary;
        border-title-color: $primary;
        border-title-style: bold;
    }
    TourCard.-playing { border-top: heavy $border-blurred; border-title-color: $text-muted; }
    TourCard.-hidden { display: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.heading = ""
        self.text = ""

    def show_card(
        self, heading: str, text: str, *, playing: bool = False, keys: str = KEYS
    ) -> None:
        """Show ``heading`` (the border title) and ``text``, the keys after it."""
        self.heading, self.text = heading, text
        self.border_title = heading
        body = Text(text, style="dim" if playing else "")
        body.append(f"  {keys}", style="bold")
        self.set_class(playing, "-playing")
        self.remove_class("-hidden")
        self.update(body)

    def hide(self) -> None:
        self.add_class("-hidden")
