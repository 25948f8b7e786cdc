"""Shown when no endpoint is configured (DESIGN §9): offer the demo, show the setup.

It never waits on the network and never crashes for lack of configuration;
everything needed to point Frontier at a model fits on this one screen.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Static

from frontier.app.config import config_path
from frontier.widgets.key_bar import KeyBar


def setup_text() -> Text:
    """What README.md says, in the same words: the demo, the providers, the settings
    file and where the key comes from (checked by tests/test_tui_layouts.py)."""
    path = config_path()
    text = Text()
    text.append("Frontier", style="bold")
    text.append(
        " is a terminal coding agent whose tool calls become irreversible only when the "
        "bytes the model has streamed prove they can no longer change. You review every "
        "patch before it is written.\n\n"
    )
    text.append("No model is configured yet.", style="bold underline")
    text.append(
        " Try the built-in demo (a scripted model on a scratch copy of a small sample "
        "project: no network, no key), or point Frontier at a model:\n\n"
    )
    rows = [
        ("OpenAI", "frontier --provider openai --model gpt-4.1          # OPENAI_API_KEY"),
        (
            "Anthropic",
            "frontier --provider anthropic --model claude-sonnet-4-5  # ANTHROPIC_API_KEY",
        ),
        ("Ollama", "frontier --provider ollama --model qwen2.5-coder:7b   # no key"),
        ("llama.cpp", "frontier --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder"),
    ]
    for name, command in rows:
        text.append(f"  {name:<11}", style="bold")
        text.append(f"{command}\n", style="italic")
    text.append("\nTo remember it, put it in ")
    text.append(str(path), style="bold")
    text.append(":\n\n")
    text.append(
        '  provider = "ollama"\n  model = "qwen2.5-coder:7b"\n'
        '  # protocol = "auto" (native tool calls where the model has them, else ctl-heredoc)\n',
        style="italic",
    )
    text.append(
        "\nor set FRONTIER_PROVIDER / FRONTIER_BASE_URL / FRONTIER_MODEL. The key comes from "
        "FRONTIER_API_KEY, else api_key_command or api_key_file in config.toml, else the "
        "provider's variable; it is scrubbed from everything Frontier stores or shows. "
        "A session opens on the conversation with a one-line CST strip; f6 shows the CST "
        "panes (the demo opens with them)."
    )
    return text


class WelcomeScreen(Screen[str]):
    """Dismisses with ``"demo"`` or ``"quit"``."""

    DEFAULT_CSS = """
    WelcomeScreen { align: center middle; }
    #welcome { width: 100; max-width: 100%; height: auto; max-height: 100%;
               border: thick $primary; padding: 1 2; background: $surface; }
    #welcome-buttons { height: auto; margin-top: 1; }
    #welcome-buttons Button { margin: 0 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "demo", "Start the demo"),
        Binding("q", "quit_app", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="welcome") as box:
            box.border_title = "Welcome to Frontier"
            yield Static(setup_text())
            with Center(), Horizontal(id="welcome-buttons"):
                yield Button("Start the demo  (d)", id="demo", variant="primary")
                yield Button("Quit  (q)", id="quit")
        yield KeyBar()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss("demo" if event.button.id == "demo" else "quit")

    def action_demo(self) -> None:
        self.dismiss("demo")

    def action_quit_app(self) -> None:
        self.dismiss("quit")
