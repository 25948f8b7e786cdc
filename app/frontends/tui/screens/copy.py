"""The copy picker (``ctrl+o``): choose a transcript entry, a tool's output or a diff,
and it goes to the clipboard.

The panes draw text through the line API and capture the mouse, so a terminal's own
selection (shift+drag) copies what is on screen — wrapped lines, borders and the
neighbouring pane included. The picker copies the exact text instead: a message as
typed, a reply as the model sent it, a call's whole result, a reviewed diff. The
newest is highlighted first; ``↑↓`` choose, Enter copies, Esc closes. The App puts
the text on the clipboard with ``copy_to_clipboard`` (OSC 52, which the terminal —
and tmux, with ``set-clipboard on`` — must allow).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from frontier.app.record import record
from frontier.widgets.display import display_preview
from frontier.widgets.state import UiState
from frontier.widgets.transcript import tool_of

if TYPE_CHECKING:
    from frontier.app.frontends.tui.app import ReviewRecord

MAX_ITEMS = 200
"""Newest items offered (the transcript keeps 200 entries)."""
ROLE_KIND = {"you": "you", "ai": "reply", "note": "note", "error": "error", "thinking": "think"}


@record
class CopyItem:
    kind: str
    """``you``, ``reply``, ``note``, ``error``, ``think``, ``output``, ``diff``, ``command``."""
    label: str
    """One line saying what it is (the picker's row)."""
    text: str
    """Exactly what goes to the clipboard."""


def copy_items(state: UiState, reviews: Iterable[ReviewRecord]) -> list[CopyItem]:
    """What can be copied, newest first: transcript entries, and for each call its
    output and the diff (or command) that was reviewed for it."""
    reviewed: dict[str, ReviewRecord] = {}
    for review in reviews:
        reviewed[review.call.id] = review
    items: list[CopyItem] = []
    for entry in state.transcript:
        if entry.role == "call":
            row = tool_of(entry, state.tools)
            record = reviewed.get(row.call.id) if row is not None else None
            if record is not None:
                preview = record.preview
                if preview.kind == "diff" and preview.files:
                    diff = "".join(file.diff for file in preview.files)
                    items.append(CopyItem("diff", f"{record.call.id} {record.call.name}", diff))
                elif preview.command:
                    label = f"{record.call.id} {record.call.name}"
                    items.append(CopyItem("command", label, preview.command))
            if row is not None:
                output = row.whole().strip("\n")
                if output:
                    label = f"{row.call.id} {row.call.name} {row.summary}"
                    items.append(CopyItem("output", label, output))
            continue
        text = entry.text.strip("\n")
        if text:
            items.append(CopyItem(ROLE_KIND.get(entry.role, entry.role), text, text))
    items.reverse()
    return items[:MAX_ITEMS]


def _row(item: CopyItem, width: int) -> Text:
    """One row of the list, cut to ``width`` cells (an option list would wrap it); the
    label (a message, a call id the model chose) is display text (``display_preview``)."""
    label = item.label.strip()
    first = label[: label.find("\n")] if "\n" in label else label
    first = display_preview(first, one_line=True, limit=max(20, width))
    lines = item.text.count("\n") + 1
    size = f"{lines} lines" if lines > 1 else f"{len(item.text)} chars"
    text = Text.assemble((f"{item.kind:<7}", "bold"), (f"{size:>10}  ", "dim"), first)
    text.truncate(max(20, width), overflow="ellipsis")
    return text


class CopyScreen(ModalScreen["CopyItem | None"]):
    DEFAULT_CSS = """
    CopyScreen { align: center middle; }
    #copy { width: 96%; max-width: 120; height: 80%; border: thick $primary;
            background: $surface; }
    #copy-list { height: 1fr; border: none; }
    #copy-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, items: Sequence[CopyItem]) -> None:
        super().__init__()
        self.items = list(items)

    def compose(self) -> ComposeResult:
        with Vertical(id="copy") as box:
            box.border_title = "Copy to the clipboard"
            # the modal's width less its border, the list's padding and scrollbar
            width = min(120, self.app.size.width * 96 // 100) - 6
            rows = [Option(_row(item, width)) for item in self.items]
            yield OptionList(*rows, id="copy-list")
            yield Static(
                Text.assemble(
                    ("↑↓", "bold"),
                    " choose · ",
                    ("enter", "bold"),
                    " copy · ",
                    ("esc", "bold"),
                    " close",
                ),
                id="copy-keys",
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.items[event.option_index])

    def action_close(self) -> None:
        self.dismiss(None)
