"""Shown when no endpoint is configured (DESIGN §9): offer the demo, show the setup,
and offer the model servers already running on this machine.

It never waits on the network and never crashes for lack of configuration;
everything needed to point Frontier at a model fits on this one screen. The local
servers (llama.cpp, Ollama, LM Studio, vLLM on their usual loopback ports) are asked in
the background (``app/model/local_servers.py``); each model one lists becomes a button.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Static

from frontier.app.config import config_path
from frontier.widgets.key_bar import KeyBar

MAX_OFFERED = 6
"""Local models offered as buttons (a server may list dozens)."""


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
        "panes (the demo opens with them).\n\n"
    )
    text.append("Before the first session, ")
    text.append("frontier doctor", style="bold")
    text.append(
        " with the same flags checks the endpoint, the key, the model and one of its tool "
        "calls, the sandbox and the rest of the setup, each with its fix."
    )
    return text


class WelcomeScreen(Screen[str]):
    """Dismisses with ``"demo"``, ``"quit"``, or ``"use"``, a tab, the base URL, a tab and
    the model of a local server's model."""

    DEFAULT_CSS = """
    WelcomeScreen { align: center middle; }
    #welcome { width: 100; max-width: 100%; height: auto; max-height: 100%;
               border: thick $primary; padding: 1 2; background: $surface; }
    #welcome-buttons { height: auto; margin-top: 1; }
    #welcome-buttons Button { margin: 0 2; }
    #welcome-found { height: auto; }
    #welcome-found Button { margin: 0 2; width: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "use_first", "Use the local model"),
        Binding("d", "demo", "Start the demo"),
        Binding("q", "quit_app", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="welcome") as box:
            box.border_title = "Welcome to Frontier"
            yield Static(setup_text())
            yield Vertical(id="welcome-found")
            with Center(), Horizontal(id="welcome-buttons"):
                yield Button("Start the demo  (d)", id="demo", variant="primary")
                yield Button("Quit  (q)", id="quit")
        yield KeyBar()

    def __init__(self) -> None:
        super().__init__()
        self._offered: dict[str, tuple[str, str]] = {}
        """Each offer's button id and its ``(base URL, model)``."""

    def on_mount(self) -> None:
        self.run_worker(self._find(), name="local-servers", exit_on_error=False)

    async def _find(self) -> None:
        """Offer each model the local servers list (none found: nothing is shown)."""
        # httpx's import (~24 ms) on a thread: the screen is painted meanwhile
        await asyncio.to_thread(importlib.import_module, "frontier.app.model.local_servers")
        from frontier.app.model.local_servers import find_local_servers

        found = await find_local_servers()
        every = [(s.base_url, m) for s in found for m in s.models]
        offers = every[:MAX_OFFERED]
        if not offers:
            return
        box = self.query_one("#welcome-found", Vertical)
        await box.mount(Static(Text("\nRunning on this machine:", style="bold")))
        for n, (base_url, model) in enumerate(offers):
            self._offered[f"use-{n}"] = (base_url, model)
            key = "  (u)" if n == 0 else ""
            label = Text.assemble(f"Use {model}{key}", (f"  {base_url}", "italic"))
            await box.mount(Button(label, id=f"use-{n}"))
        if len(every) > len(offers):
            rest = len(every) - len(offers)
            await box.mount(
                Static(
                    Text(
                        f"  … and {rest} more: frontier --base-url URL --model NAME starts "
                        "with any of them",
                        style="italic",
                    )
                )
            )
        self.refresh_bindings()  # `u` shows in the key bar now

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        offered = self._offered.get(event.button.id or "")
        if offered is not None:
            self.dismiss("use\t" + "\t".join(offered))
            return
        self.dismiss("demo" if event.button.id == "demo" else "quit")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``u`` is offered once a local model is found."""
        if action == "use_first":
            return bool(self._offered)
        return True

    def action_use_first(self) -> None:
        if self._offered:
            self.dismiss("use\t" + "\t".join(self._offered["use-0"]))

    def action_demo(self) -> None:
        self.dismiss("demo")

    def action_quit_app(self) -> None:
        self.dismiss("quit")
