"""The help screen (``?``/``f1``): what each pane means and every key."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from frontier.app.agent.slash import BUILTINS, SlashCommand
from frontier.app.vocab import APPROVAL_MEANINGS, APPROVALS
from frontier.widgets.display import display_preview

PANES = [
    ("Transcript", "your messages, the model's confirmed prose, each call and its result"),
    (
        "CST strip",
        "the conversation layout's one line: frontier offset, pending / bound, the call "
        "running, the last contract error; f6 (or a click) shows the panes below",
    ),
    (
        "Raw stream",
        "the bytes the transducer read; plain = confirmed, italic underlined = "
        "pending, ▌ = the frontier",
    ),
    ("Confirmed", "irreversible events in order: text, call, arg, + bytes, ready"),
    ("Pending", "bytes that may still change meaning, and pending / bound"),
    ("Tools", "each call: state, elapsed time, output tail, exit / result kind"),
    (
        "Errors",
        "contract errors; select one to highlight its byte in Raw stream, Enter inspects "
        "it (bytes, frame, feedback, next attempt)",
    ),
]

KEYS = [
    ("Enter", "send the message; while the agent works it is queued for its next request"),
    (
        "ctrl+j",
        "new line (shift+Enter too where the terminal tells them apart — many send the "
        "same key for both, tmux included; ctrl+j works everywhere)",
    ),
    ("↑ / ↓", "earlier prompts of this workspace (on the first / last line of the box)"),
    ("ctrl+r", "search earlier prompts"),
    ("ctrl+g", "write the message in your editor ($VISUAL, $EDITOR); saved, it is back in the box"),
    ("@path", "attach a workspace file (Tab or Enter completes; up to 32 KiB of each is sent)"),
    (
        "!command",
        "run a command yourself, outside the sandbox; the model sees it and its output "
        "with your next message (a blank first sends `!…` as a message)",
    ),
    (
        "queued",
        "↑ on an empty box edits the newest queued message in place · Enter saves · "
        "empty Enter removes it · Esc leaves it",
    ),
    ("Esc", "cancel the running tool (exit 130), else stop the turn"),
    ("Esc Esc", "idle, the box empty: rewind to before one of your messages (/rewind)"),
    ("ctrl+c", "stop the turn (a review waiting is denied); twice within 2 s quits"),
    ("shift+tab", "approval policy: " + " → ".join(APPROVALS) + " (status bar; below)"),
    ("ctrl+o", "copy a message, reply, tool output or reviewed diff to the clipboard"),
    (
        "f6",
        "layout: conversation (Transcript at full width, CST strip) → split (beside the "
        "CST panes) → lab (every pane); remembered. Demo, tour, replay and serve open in lab",
    ),
    ("f2 f3 f4 f5", "small terminals: show Raw stream / Confirmed / Pending / Errors"),
    ("ctrl+e", "focus the Errors list (from a pane; in the message box it ends the line)"),
    ("ctrl+t", "show the model's reasoning (thinking) blocks whole, or folded"),
    ("ctrl+p", "command palette: theme, mode, approval, revoke always-allow, export, undo"),
    (
        "/",
        "at the start of the box: the slash commands (below); Tab completes, Enter runs; "
        "//text sends /text as a message",
    ),
    ("? / f1", "this help (? when the message box is empty)"),
    (
        "typing",
        "in a session every printable key goes to the message box, whichever pane has "
        "the focus: no letter is a command there",
    ),
    ("ctrl+q / ctrl+d", "quit (ctrl+d when the message box is empty; /exit too)"),
    ("", ""),
    (
        "Review",
        "a approve · A approve and always allow (1 this session, 2 also this workspace) · "
        "d deny (type a reason, Enter) · y copy · s split/unified · j/k hunk · tab file · "
        "e edit the file in your editor ($VISUAL, $EDITOR): approving writes your version · "
        "Esc deny",
    ),
    (
        "Replay",
        "space pause · + / - speed (0.1×–100×, max) · . byte · , line · "
        "n next event · e next error (again: inspect it) · 1–4 panes · q quit",
    ),
    ("Inspector", "g jump to the byte · e next error (replay) · y copy · Esc close"),
    ("Tour", "space next moment (while playing: skip ahead) · b back · 1–4 panes · q quit"),
]

SELECTING = [
    (
        "Copy",
        "ctrl+o (and y in a review) copies exact text through the terminal (OSC 52): "
        "allow clipboard access in its settings; in tmux `set -g set-clipboard on`",
    ),
    (
        "Select",
        "Frontier takes the mouse, so a plain drag does not select: hold shift while "
        "dragging (iTerm2: option; some terminals: fn) for the terminal's own selection. "
        "It copies what the screen shows — wrapped lines, pane borders and the pane "
        "beside it included; ctrl+o copies one entry cleanly",
    ),
    (
        "Status bar",
        "activity and turn timer · approval · model · mode · tokens/s (~ = counted "
        "from chunks until the server's usage says) · frontier · pending · tokens "
        "in/out (↑↓) · context used · session; fields give way at 80 columns",
    ),
]


def help_text(commands: Sequence[SlashCommand] = BUILTINS) -> Table:
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
    table.add_row("", "")
    table.add_row(Text("Approval", style="bold underline"), "")
    for policy, meaning in APPROVAL_MEANINGS.items():  # the vocabulary's own words
        table.add_row(policy, meaning)
    table.add_row("", "")
    table.add_row(Text("Slash commands", style="bold underline"), "")
    for command in commands:
        what = (
            command.help if command.source == "built in" else f"{command.help} ({command.source})"
        )
        # a custom command's name and help come from a file: shown, never markup
        table.add_row(
            Text(display_preview(command.label, one_line=True, limit=40)),
            Text(display_preview(what, one_line=True, limit=200)),
        )
    table.add_row("", "")
    table.add_row(Text("Copy and select", style="bold underline"), "")
    for key, what in SELECTING:
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

    def __init__(self, commands: Sequence[SlashCommand] = BUILTINS) -> None:
        """``commands``: the slash commands listed (``/help`` passes the session's)."""
        super().__init__()
        self.commands = tuple(commands)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as box:
            box.border_title = "Frontier — help"
            yield Static(help_text(self.commands))

    def action_close(self) -> None:
        self.dismiss(None)
