"""The review modal: the exact change a call will make, approved or denied here.

Titled "Review patch" for file mutations (every file with +/- counts, its hunks
with syntax colours and line numbers, unified/split) and "Review command" for
shell/python. It shows the ``Preview`` the core computed — the same content
whose hashes the write re-checks (DESIGN §5) — and dismisses with a ``Decision``.
"""

from __future__ import annotations

import json
from typing import ClassVar

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from frontier.app.events import ToolCall
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.widgets.diff_view import DiffView


def _file_option(path: str, added: int, removed: int) -> Text:
    return Text.assemble((f"+{added:<4}", "bold"), (f"−{removed:<4}", "bold"), path)


class ReviewScreen(ModalScreen[Decision]):
    AUTO_FOCUS = ""
    """Never auto-focus the hidden reason box: keys must reach the bindings."""
    DEFAULT_CSS = """
    ReviewScreen { align: center middle; }
    #review {
        width: 96%; height: 92%;
        border: thick $primary; background: $surface;
        border-title-style: bold; border-title-color: $foreground;
        border-subtitle-color: $text-muted;
    }
    ReviewScreen.-command #review { height: auto; max-height: 80%; }
    ReviewScreen.-command #review-body { height: auto; max-height: 30; }
    ReviewScreen.-command #command { height: auto; }
    #review-head { height: auto; padding: 0 1; background: $panel; }
    #review-body { height: 1fr; }
    #files { width: 32; min-width: 20; border: none; border-right: solid $panel-lighten-2; }
    #command { padding: 1 2; height: 1fr; }
    #reason { display: none; margin: 0 1; }
    #reason.-visible { display: block; }
    #review-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve"),
        Binding("d", "deny", "Deny"),
        Binding("s", "split", "Split/unified"),
        Binding("j", "hunk(1)", "Next hunk"),
        Binding("k", "hunk(-1)", "Prev hunk"),
        Binding("tab", "file(1)", "Next file", show=False),
        Binding("shift+tab", "file(-1)", "Prev file", show=False),
        Binding("escape", "escape", "Deny/back"),
    ]

    def __init__(
        self,
        call: ToolCall,
        spec: ToolSpec | None,
        preview: Preview,
        *,
        syntax_style: str = "monokai",
        added_bg: str = "#12361f",
        removed_bg: str = "#42171b",
        split: bool = False,
    ) -> None:
        super().__init__()
        self.call = call
        self.spec = spec
        self.preview = preview
        self.syntax_style = syntax_style
        self.added_bg = added_bg
        self.removed_bg = removed_bg
        self.initial_split = split

    @property
    def title_text(self) -> str:
        return "Review patch" if self.preview.kind == "diff" else "Review command"

    def compose(self) -> ComposeResult:
        preview = self.preview
        with Vertical(id="review"):
            head = Text()
            head.append(f"{self.call.id} ", style="dim")
            head.append(self.call.name, style="bold")
            if preview.kind == "diff":
                added = sum(f.added for f in preview.files)
                removed = sum(f.removed for f in preview.files)
                n = len(preview.files)
                head.append(f" · {n} file{'s' * (n != 1)} · ")
                head.append(f"+{added} −{removed}", style="bold")
            if preview.summary:
                head.append(f" · {preview.summary}", style="italic")
            yield Static(head, id="review-head")
            with Horizontal(id="review-body"):
                if preview.kind == "diff":
                    yield OptionList(
                        *[Option(_file_option(f.path, f.added, f.removed)) for f in preview.files],
                        id="files",
                    )
                    yield DiffView(
                        preview.files,
                        syntax_style=self.syntax_style,
                        added_bg=self.added_bg,
                        removed_bg=self.removed_bg,
                        id="diff",
                    )
                else:
                    yield Static(self._command_view(), id="command")
            reason = Input(
                placeholder="reason for the model (optional) — Enter denies, Esc goes back",
                id="reason",
            )
            reason.can_focus = False
            yield reason
            yield Static(
                "a approve · d deny (+ reason) · s split/unified · j/k hunk · tab file · esc deny",
                id="review-keys",
            )

    def _command_view(self) -> Syntax | Text:
        command = self.preview.command
        if command is None:
            args = json.dumps(self.call.json_args(), indent=2, ensure_ascii=False)
            return Syntax(args, "json", theme=self.syntax_style, background_color="default")
        lexer = "python" if self.call.name == "python" else "bash"
        return Syntax(
            command, lexer, theme=self.syntax_style, word_wrap=True, background_color="default"
        )

    def on_mount(self) -> None:
        box = self.query_one("#review")
        box.border_title = self.title_text
        box.border_subtitle = "the approval is bound to exactly this content"
        self.set_class(self.preview.kind != "diff", "-command")
        if self.preview.kind == "diff":
            diff = self.query_one(DiffView)
            diff.split = self.initial_split
            diff.focus()

    # ------------------------------------------------------------------ actions
    def action_approve(self) -> None:
        self.dismiss(Decision(True))

    def action_deny(self) -> None:
        reason = self.query_one("#reason", Input)
        reason.add_class("-visible")
        reason.can_focus = True
        reason.focus()

    def action_escape(self) -> None:
        reason = self.query_one("#reason", Input)
        if reason.has_class("-visible"):
            reason.remove_class("-visible")
            reason.can_focus = False
            reason.value = ""
            if self.preview.kind == "diff":
                self.query_one(DiffView).focus()
            return
        self.dismiss(Decision(False, "denied by the user in review"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        reason = event.value.strip() or "denied by the user in review"
        self.dismiss(Decision(False, reason))

    def action_split(self) -> None:
        if self.preview.kind == "diff":
            diff = self.query_one(DiffView)
            diff.split = not diff.split

    def action_hunk(self, delta: int) -> None:
        if self.preview.kind == "diff":
            diff = self.query_one(DiffView)
            diff.goto_hunk(diff.current + delta)
            self.query_one("#files", OptionList).highlighted = diff.current_file

    def action_file(self, delta: int) -> None:
        if self.preview.kind == "diff" and self.preview.files:
            diff = self.query_one(DiffView)
            index = (diff.current_file + delta) % len(self.preview.files)
            diff.goto_file(index)
            self.query_one("#files", OptionList).highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.query_one(DiffView).goto_file(event.option_index)
