"""The question before a project's commands are trusted (``/checks trust``): what each
runs, and y or n.

A repository's ``.frontier/checks.toml`` is the workspace's words — a model that writes the
workspace can write it — and a trusted command runs after every edit without asking. So
the person sees every command line before saying yes, as ``frontier checks trust`` shows
them on the terminal; ``n`` or Esc leaves them waiting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from frontier.widgets.display import display_preview


class TrustScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    TrustScreen { align: center middle; }
    #trust { width: 96%; max-width: 120; height: auto; max-height: 80%;
             border: thick $warning; background: $surface; }
    #trust-scroll { height: auto; max-height: 24; }
    #trust-what { height: auto; padding: 0 1; }
    #trust-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Trust"),
        Binding("n", "answer(False)", "Not now"),
        Binding("escape", "answer(False)", "Not now"),
    ]

    def __init__(self, title: str, lines: Sequence[str]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        with Vertical(id="trust") as box:
            box.border_title = self.title_text
            with VerticalScroll(id="trust-scroll"):
                # the workspace's words: shown as text, never as markup
                yield Static(
                    Text(display_preview("\n".join(self.lines), limit=8000)), id="trust-what"
                )
            yield Static(
                Text.assemble(
                    ("y", "bold"), " trust them for this workspace · ", ("n", "bold"), " / ",
                    ("esc", "bold"), " not now (they keep waiting)",
                ),
                id="trust-keys",
            )  # fmt: skip

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
