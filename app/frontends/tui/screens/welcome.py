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
from textual.widgets import Button, Footer, Static

from frontier.app.config import config_path


def setup_text() -> Text:
    path = config_path()
    text = Text()
    text.append("Frontier", style="bold")
    text.append(" runs a tool call the moment the model's bytes prove it complete.\n\n")
    text.append("No endpoint is configured yet.", style="bold underline")
    text.append(" Try the built-in demo (no network, no key), or point Frontier at a model:\n\n")
    rows = [
        ("llama.cpp", "frontier --base-url http://127.0.0.1:8080/v1 --model qwen"),
        ("Ollama", "frontier --base-url http://127.0.0.1:11434/v1 --model qwen2.5-coder"),
        (
            "hosted",
            "export OPENAI_API_KEY=sk-…   # or FRONTIER_API_KEY\n"
            "            frontier --base-url https://api.openai.com/v1 --model gpt-4o-mini",
        ),
    ]
    for name, command in rows:
        text.append(f"  {name:<10}", style="bold")
        text.append(f"{command}\n", style="italic")
    text.append("\nTo remember it, put this in ")
    text.append(str(path), style="bold")
    text.append(":\n\n")
    text.append(
        '  base_url = "http://127.0.0.1:8080/v1"\n  model = "qwen"\n'
        '  protocol = "ctl-heredoc"   # or native-inc, native-eos, ctl, xml\n',
        style="italic",
    )
    text.append(
        "\nor set FRONTIER_BASE_URL / FRONTIER_MODEL. The API key is read from the "
        "environment only and never stored."
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
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss("demo" if event.button.id == "demo" else "quit")

    def action_demo(self) -> None:
        self.dismiss("demo")

    def action_quit_app(self) -> None:
        self.dismiss("quit")
