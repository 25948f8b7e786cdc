"""The session picker (palette → "Open session…"): choose a stored session to resume.

The App reads the list (off the event loop) and passes it in, so this screen
never touches the store; it dismisses with the chosen id, or ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from frontier.app.session.catalogue import short_path

if TYPE_CHECKING:
    from frontier.app.session.catalogue import SessionInfo

EMPTY = (
    "No stored sessions yet. Every conversation is saved as you go; "
    "once you have talked to the agent, it shows up here."
)
HINT = "↑↓ / j k choose · Enter resume · Esc close · ● open now · in-flight calls are reconciled"


def session_prompt(info: SessionInfo, current: str | None, width: int = 100) -> Text:
    """Two lines per session so every field fits at 80 columns: id, start, turns, state;
    then model · mode · workspace (shortened from the left to the width). The session
    already open is marked ``●``."""
    text = Text()
    text.append("● " if info.id == current else "  ", style="bold")
    text.append(f"{info.id:<9}", style="bold")
    text.append(datetime.fromtimestamp(info.started).strftime("%Y-%m-%d %H:%M  "))
    text.append(f"{info.turns} turn{'' if info.turns == 1 else 's'} · ")
    text.append(info.state, style="" if info.state == "active" else "italic")
    where = f"{info.model or '—'} · {info.mode} · "
    text.append(f"\n           {where}", style="dim")
    text.append(short_path(info.workspace, max(16, width - 11 - len(where))), style="dim")
    return text


class SessionPicker(ModalScreen[str | None]):
    """Stored sessions, newest first; Enter opens one, Esc closes."""

    DEFAULT_CSS = """
    SessionPicker { align: center middle; }
    #sessions { width: 100; max-width: 96%; height: auto; max-height: 90%;
                border: thick $primary; background: $surface; padding: 0 1; }
    #sessions OptionList { height: auto; max-height: 24; border: none; padding: 0; }
    #sessions-hint { color: $text-muted; }
    #sessions-empty { padding: 1 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("j", "move(1)", "Down", show=False),
        Binding("k", "move(-1)", "Up", show=False),
    ]

    def __init__(self, sessions: Sequence[SessionInfo], current: str | None = None) -> None:
        super().__init__()
        self.sessions = list(sessions)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions") as box:
            box.border_title = "Open session"
            if not self.sessions:
                yield Static(EMPTY, id="sessions-empty")
                yield Static("Esc close", id="sessions-hint")
                return
            box.border_subtitle = f"{len(self.sessions)} stored · newest first"
            width = min(100, int(self.app.size.width * 0.96)) - 6
            yield OptionList(
                *(
                    Option(session_prompt(info, self.current, width), id=info.id)
                    for info in self.sessions
                )
            )
            yield Static(HINT, id="sessions-hint")

    def on_mount(self) -> None:
        lists = self.query(OptionList)
        if lists:
            lists.first().highlighted = 0
            lists.first().focus()

    @property
    def options(self) -> OptionList:
        return self.query_one(OptionList)

    def action_move(self, delta: int) -> None:
        if self.sessions:
            if delta > 0:
                self.options.action_cursor_down()
            else:
                self.options.action_cursor_up()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
