"""The rewind picker (``/rewind``): choose one of your messages, then what to take back to
before it — the files the model's calls changed since, the conversation, or both.

The newest message is highlighted first; each row says what a rewind to before it would
put back (files) and what it cannot (commands run since). Enter chooses; the second list
offers the rewinds that make sense for that message (no "files" when none changed since),
Esc goes back to the messages, Esc again closes. The session does the rest
(``AgentSession.rewind``): the files' undo is reviewed like any undo.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from frontier.app.agent.rewind import RewindPoint, named
from frontier.app.record import record
from frontier.widgets.display import display_preview


@record
class RewindChoice:
    """What the person chose: back to before message ``number``, taking back these."""

    number: int
    files: bool
    conversation: bool


def choices(point: RewindPoint) -> list[tuple[RewindChoice, str]]:
    """The rewinds offered for ``point``, the likeliest first, each with its words."""
    n = point.number
    if not point.file_count:
        return [(RewindChoice(n, False, True), "the conversation (no file changed since)")]
    files = named(point.files, point.file_count, 4)
    return [
        (RewindChoice(n, True, True), f"the conversation and the files ({files})"),
        (RewindChoice(n, False, True), "the conversation only: the files stay as they are"),
        (RewindChoice(n, True, False), "the files only: the model keeps the conversation"),
    ]


def point_row(point: RewindPoint, width: int) -> Text:
    """One message in the list: its number, its first line, what changed since."""
    since: list[str] = []
    if point.file_count:
        since.append(f"{point.file_count} file{'s' if point.file_count != 1 else ''}")
    if point.command_count:
        since.append(f"{point.command_count} command{'s' if point.command_count != 1 else ''}")
    tail = f"  since: {', '.join(since)}" if since else ""
    room = max(20, width - len(tail) - 5)
    line = display_preview(point.first_line, one_line=True, limit=room)
    text = Text.assemble((f"{point.number:>3}  ", "bold"), line, (tail, "dim"))
    text.truncate(max(20, width), overflow="ellipsis")
    return text


class RewindScreen(ModalScreen["RewindChoice | None"]):
    DEFAULT_CSS = """
    RewindScreen { align: center middle; }
    #rewind { width: 96%; max-width: 120; height: 70%; border: thick $primary;
              background: $surface; }
    #rewind-list { height: 1fr; border: none; }
    #rewind-what { height: auto; padding: 0 1; color: $text-muted; }
    #rewind-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, points: Sequence[RewindPoint]) -> None:
        super().__init__()
        self.points = list(reversed(points))  # newest first
        self.chosen: RewindPoint | None = None
        self.offered: list[RewindChoice] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind") as box:
            box.border_title = "Rewind to before one of your messages"
            yield Static("", id="rewind-what")
            yield OptionList(id="rewind-list")
            yield Static(
                Text.assemble(
                    ("↑↓", "bold"), " choose · ", ("enter", "bold"), " pick · ", ("esc", "bold")
                ),
                id="rewind-keys",
            )

    def on_mount(self) -> None:
        self._show_points()

    def _width(self) -> int:
        return min(120, self.app.size.width * 96 // 100) - 6

    def _show_points(self, highlight: int = 0) -> None:
        self.chosen = None
        self.query_one("#rewind-what", Static).update(
            "Your messages the model still has, newest first. Its text comes back in the "
            "message box to send again."
        )
        self.query_one("#rewind-keys", Static).update(
            Text.assemble(
                ("↑↓", "bold"),
                " choose · ",
                ("enter", "bold"),
                " pick · ",
                ("esc", "bold"),
                " close",
            )
        )
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(point_row(p, self._width())) for p in self.points])
        options.highlighted = highlight
        options.focus()

    def _show_choices(self, point: RewindPoint) -> None:
        self.chosen = point
        offered = choices(point)
        self.offered = [c for c, _ in offered]
        what = [f"Back to before message {point.number}: {point.first_line}"]
        if point.command_count:
            shown = named(point.commands, point.command_count, 4)
            what.append(
                f"Not put back: what the commands run since wrote beyond the files they name "
                f"({shown})."
            )
        # the message and the paths are the person's and the workspace's: text, never markup
        self.query_one("#rewind-what", Static).update(
            Text(display_preview("\n".join(what), limit=2000))
        )
        self.query_one("#rewind-keys", Static).update(
            Text.assemble(
                ("↑↓", "bold"),
                " choose · ",
                ("enter", "bold"),
                " rewind · ",
                ("esc", "bold"),
                " back",
            )
        )
        options = self.query_one(OptionList)
        options.clear_options()
        width = self._width()
        options.add_options(
            [
                Option(Text(display_preview(f"Take back {w}", one_line=True, limit=width)))
                for _, w in offered
            ]
        )
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.chosen is None:
            self._show_choices(self.points[event.option_index])
        else:
            self.dismiss(self.offered[event.option_index])

    def action_back(self) -> None:
        if self.chosen is None:
            self.dismiss(None)
        else:
            self._show_points(self.points.index(self.chosen))


__all__ = ["RewindChoice", "RewindScreen", "choices", "point_row"]
