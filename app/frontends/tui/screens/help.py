"""The help screen (``?``/``f1``): what each pane means and every key."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

PANES = [
    ("Transcript", "your messages, the model's confirmed prose, each call and its result"),
    (
        "Raw stream",
        "the bytes the transducer read; plain = confirmed, italic underlined = "
        "pending, ▌ = the frontier",
    ),
    ("Confirmed", "irreversible events in order: text, call, arg, + bytes, ready"),
    ("Pending", "bytes that may still change meaning, and pending / bound"),
    ("Tools", "each call: state, elapsed time, output tail, exit / result kind"),
    ("Errors", "contract errors; select one to highlight its byte in Raw stream"),
]

KEYS = [
    ("Enter", "send the message"),
    ("Esc", "cancel the running tool (exit 130), else stop the turn"),
    ("f2 f3 f4 f5", "small terminals: show Raw stream / Confirmed / Pending / Errors"),
    ("ctrl+e", "focus the Errors list"),
    ("ctrl+t", "show the model's reasoning (thinking) blocks whole, or folded"),
    ("ctrl+p", "command palette: theme, mode, export, session"),
    ("? / f1", "this help"),
    ("ctrl+q", "quit"),
    ("", ""),
    (
        "Review",
        "a approve · d deny (type a reason, Enter) · s split/unified · "
        "j/k hunk · tab file · Esc deny",
    ),
    (
        "Replay",
        "space pause · + / - speed (0.1×–100×, max) · . byte · , line · "
        "n next event · e next error · 1–4 panes",
    ),
]


def help_text() -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    table.add_row(Text("Panes", style="bold underline"), "")
    for name, what in PANES:
        table.add_row(name, what)
    table.add_row("", "")
    table.add_row(Text("Keys", style="bold underline"), "")
    for key, what in KEYS:
        table.add_row(key, what)
    return table


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    #help { width: 90; max-width: 96%; height: auto; max-height: 90%;
            border: thick $primary; background: $surface; padding: 1 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as box:
            box.border_title = "Frontier — help"
            yield Static(help_text())

    def action_close(self) -> None:
        self.dismiss(None)
