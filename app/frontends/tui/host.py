"""What a mode's controller may ask of the App: a narrow surface and messages up.

The App holds one controller (``live.py``'s :class:`LiveController` or ``replay.py``'s
:class:`ReplayController`); a controller used to hold the App back and call into it
(focus the prompt, refresh the footer, close a review, query the main screen), so
the three classes called one another in a circle (issue 23's architecture review).
Now a controller sees only :class:`Host` — the state it feeds, the config, toasts,
workers and screens — and asks for anything that changes the App's own widgets with
a Textual message the App handles with ``@on`` (Harlequin's pattern: components post
up, the App decides). The core's events still reach the state by a direct call
(``Host.observe``): one per streamed chunk must stay cheap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message

if TYPE_CHECKING:
    from pathlib import Path

    from textual.notifications import SeverityLevel
    from textual.screen import Screen
    from textual.theme import Theme
    from textual.worker import Worker

    from frontier.app.config import Config
    from frontier.app.events import Event
    from frontier.widgets.prompt_input import PromptBox
    from frontier.widgets.state import ErrorRow, UiState


class Host(Protocol):
    """The App as a controller sees it."""

    state: UiState
    config: Config
    open_editor: Callable[[Path], Awaitable[str | None]]
    """Opens a file in the person's editor (``editor.edit_in_editor``)."""

    @property
    def current_theme(self) -> Theme: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def run_worker(
        self,
        work: Coroutine[Any, Any, Any],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]: ...

    def push_screen(
        self, screen: Screen[Any], callback: Callable[[Any], None] | None = None
    ) -> Any: ...

    def ask(self, screen: Screen[Any], answered: Callable[[Any], None]) -> None:
        """A question answered with a key, keys typed on before it opened not taken."""

    def call_after_refresh(self, callback: Callable[..., Any], *args: Any) -> bool: ...

    def post_message(self, message: Message) -> bool: ...

    def observe(self, event: Event) -> None: ...

    def observe_all(self, events: Iterable[Event]) -> None: ...

    def prompt_box(self) -> PromptBox | None: ...

    def call_back(self, text: str) -> None: ...


class FocusPrompt(Message):
    """Give the keyboard back to the message box (a turn or an undo ended)."""


class BindingsChanged(Message):
    """What the footer offers changed (a turn started or ended, the demo moved on)."""


class ShowErrors(Message):
    """Show the Errors pane and select the newest row (replay's "next error")."""


class Inspect(Message):
    """Open the inspector on an Errors row (replay's second "next error")."""

    def __init__(self, row: ErrorRow) -> None:
        super().__init__()
        self.row = row


class Repaint(Message):
    """Paint now, hidden panes included (after a step the user asked for)."""


class Quit(Message):
    """Close the App (``/exit``): the session is closed on unmount, as with ctrl+q."""
