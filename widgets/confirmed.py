"""The Confirmed pane: the irreversible events, one row each, byte runs merged.

A row's label holds names the model chose (a call id, a tool name, an argument key): it
is display text (``display.display_preview``, one row, bounded) before it is drawn."""

from __future__ import annotations

from rich.text import Text

from frontier.widgets.display import display_preview
from frontier.widgets.lines import PaintStyle
from frontier.widgets.state import ConfirmedRow
from frontier.widgets.tail_log import TailLog

_STYLE = {
    "text": "",
    "call": "bold",
    "arg": "",
    "bytes": "dim",
    "ready": "bold reverse",
    "stop": "italic",
    "error": "bold reverse red",
    "response": "dim italic",
    "continued": "italic",
}


LABEL_CHARS = 400
"""Characters of a row's label drawn (the pane crops at its width anyway)."""


def render_row(row: ConfirmedRow) -> Text:
    text = Text(no_wrap=True)
    text.append(f"{row.offset:>7,} ", style="dim")
    if row.kind in ("text", "bytes"):
        label = "text" if row.kind == "text" else f"+ {row.label}"
        text.append(f"{label} {row.nbytes:,} B ", style="bold" if row.kind == "text" else "")
        text.append(repr_preview(row.preview), style="dim")
    else:
        label = display_preview(row.label, one_line=True, limit=LABEL_CHARS)
        text.append(label, style=_STYLE.get(row.kind, ""))
    return text


def repr_preview(preview: str) -> str:
    return f"“{preview}”" if preview else ""


class ConfirmedView(PaintStyle, TailLog[ConfirmedRow]):
    """Follows the newest confirmed event; scroll up to read history (2,000 rows)."""

    DEFAULT_CSS = """
    ConfirmedView { background: $surface; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(render_row, lambda row: (row.id, row.version), id=id)
