"""The slash-command menu above the message box (issue 23).

Typing ``/`` at the start of an empty prompt opens it: one row per command — its name
with the argument hint, its one-line help, ``(project)`` / ``(user)`` for a custom
command — narrowed as the name is typed (names starting with it, then containing it:
``slash.matching``). The prompt keeps the focus and drives it (↑↓ move, Tab
completes, Enter runs or completes, Esc closes); a click runs the row's command.
A custom command's name and help come from a file in the workspace, so both are shown
through ``display_preview`` (control characters as pictures), never as markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from frontier.app.agent.slash import SlashCommand
from frontier.widgets.display import display_preview

NAME_CELLS = 30
"""Columns of the name-and-hint column (longer hints push the help right)."""


def menu_row(command: SlashCommand, width: int = NAME_CELLS) -> Text:
    """``/name ARGS   help (project)`` as one row."""
    row = Text(no_wrap=True, overflow="ellipsis")
    label = display_preview(command.label, one_line=True, limit=60)
    row.append(f"/{display_preview(command.name, one_line=True)}", style="bold")
    row.append(label[len(command.name) + 1 :], style="dim")
    row.append(" " * max(2, width - len(label)))
    row.append(display_preview(command.help, one_line=True, limit=160))
    if command.source != "built in":
        row.append(f"  ({command.source})", style="italic dim")
    return row


class SlashMenu(OptionList):
    """The commands matching what is typed; the focus stays in the prompt."""

    can_focus = False

    DEFAULT_CSS = """
    SlashMenu {
        display: none; height: auto; max-height: 12;
        border: round $border-blurred; background: $surface;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    SlashMenu.-open { display: block; }
    """

    class Picked(Message):
        """A click on a row: run (or complete) ``command``."""

        def __init__(self, command: SlashCommand) -> None:
            super().__init__()
            self.command = command

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.commands: tuple[SlashCommand, ...] = ()

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def show_commands(self, commands: Sequence[SlashCommand]) -> None:
        """List ``commands`` (the first highlighted), or close when there are none."""
        self.commands = tuple(commands)
        self.clear_options()
        self.add_options(Option(menu_row(c), id=c.name) for c in self.commands)
        if self.commands:
            self.highlighted = 0
        self.set_class(bool(self.commands), "-open")
        self.border_title = "commands · Tab completes · Enter runs · Esc closes" if commands else ""

    def close(self) -> None:
        self.show_commands(())

    def chosen(self) -> SlashCommand | None:
        """The highlighted command (``None`` when the menu is empty)."""
        if self.highlighted is None or not 0 <= self.highlighted < len(self.commands):
            return None
        return self.commands[self.highlighted]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.commands):
            self.post_message(self.Picked(self.commands[event.option_index]))


__all__ = ["SlashMenu", "menu_row"]
