"""The Errors pane: contract errors (kind, declared vs arrived, offset), selectable.

A message can quote what the model sent (a line of the stream): it is display text
(``display.display_preview``: long lines cut to their ends, one row in the list).

Highlighting or selecting an error posts ``ErrorsPane.Chosen`` so the screen can
show that response in Raw stream with the offending byte highlighted; Enter on one
also posts ``ErrorsPane.Inspect`` (the App opens the framing-error inspector).

The list has a selection the moment it has rows (the newest error, followed while
the user has not moved), so Enter inspects at once after ctrl+e; that selection is
quiet: it moves no Raw stream until the user picks a row.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from frontier.widgets.display import display_preview
from frontier.widgets.state import ErrorRow


def error_label(row: ErrorRow) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{row.kind}", style="bold reverse")
    text.append(f" @{row.offset:,}", style="bold")
    text.append(f" r{row.response} ", style="dim")
    text.append(display_preview(row.message, one_line=True, limit=60))
    return text


class ErrorsPane(Vertical):
    DEFAULT_CSS = """
    ErrorsPane { background: $surface; }
    ErrorsPane > OptionList { height: 1fr; border: none; background: $surface; }
    /* the pane's border shows the focus: a focused list's own tall border took the two
       rows a 7-row pane has for its errors (none were shown at 120×40) */
    ErrorsPane > OptionList:focus { border: none; }
    ErrorsPane.-empty > OptionList { display: none; }
    ErrorsPane > #error-detail { height: auto; max-height: 4; color: $error; padding: 0 1; }
    """

    class Chosen(Message):
        def __init__(self, row: ErrorRow) -> None:
            super().__init__()
            self.row = row

    class Inspect(Message):
        """Enter on a row: open the framing-error inspector on it."""

        def __init__(self, row: ErrorRow) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[ErrorRow] = []
        self._follow = True
        """The selection is the list's own (the newest row), not one the user picked."""
        self._quiet: int | None = None
        """A highlight the pane set itself: it posts no ``Chosen``."""

    def compose(self) -> ComposeResult:
        yield OptionList(id="error-list")
        yield Static("no contract errors", id="error-detail")

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#error-list", OptionList)

    def show(self, rows: Sequence[ErrorRow]) -> None:
        if len(rows) == len(self.rows) and list(rows) == self.rows:
            return
        new = list(rows)
        options = self.option_list
        if new[: len(self.rows)] == self.rows:
            options.add_options([Option(error_label(r)) for r in new[len(self.rows) :]])
        else:
            options.clear_options()
            options.add_options([Option(error_label(r)) for r in new])
        self.rows = new
        if not new:  # a new session emptied the list
            self._follow = True
        if new and (self._follow or options.highlighted is None):
            self._follow = True
            if options.highlighted != len(new) - 1:
                self._quiet = len(new) - 1
                options.highlighted = len(new) - 1
        elif options.highlighted is None:
            self._detail(None)

    def _detail(self, row: ErrorRow | None) -> None:
        detail = self.query_one("#error-detail", Static)
        if row is None:
            count = len(self.rows)
            detail.update(
                f"{count} contract error{'s' * (count != 1)} — select one to see its byte"
                if count
                else "no contract errors"
            )
        else:
            detail.update(
                Text.assemble(
                    (f"{row.kind} ", "bold"),
                    f"at byte {row.offset:,} of response {row.response}: ",
                    display_preview(row.message),  # may quote a long line of the stream
                )
            )

    def select(self, index: int) -> None:
        """Highlight error ``index`` (as if the user moved to it)."""
        self._follow = False
        if self.option_list.highlighted == index:  # already there, quietly: say it now
            self._quiet = None
            if 0 <= index < len(self.rows):
                self._detail(self.rows[index])
                self.post_message(self.Chosen(self.rows[index]))
            return
        self.option_list.highlighted = index

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.rows):
            row = self.rows[event.option_index]
            self._detail(row)
            if event.option_index == self._quiet:
                self._quiet = None
                return
            self._follow = False
            self.post_message(self.Chosen(row))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.rows):
            self.post_message(self.Chosen(self.rows[event.option_index]))
            self.post_message(self.Inspect(self.rows[event.option_index]))
