"""The session picker (palette → "Open session…"): choose a stored session to resume.

The App reads the list (off the event loop) and passes it in, so this screen
never touches the store; it dismisses with the chosen id, or ``None``.

Each session shows what the person first asked, which is how a session is
recognised (an id and a time say little). Typing filters the list at once: every
word typed must appear in the session's id, first prompt, workspace, model, mode,
state or start date (case ignored), so ``greet shout`` finds the demo's session.
The filter box keeps the focus; ↑↓ move the highlight and Enter opens it.

The list holds the newest :data:`LISTED` matches, and its subtitle says how many more
there are: with every match a row, rebuilt at each key, a store of 5,000 sessions (a script
that calls ``frontier run`` in a loop makes one a run) took 2.45 s to open and 1.2 s for
each key typed in the filter. The filter itself runs over every session (each one's search
text made once).

A store is untrusted input (people send each other sessions to debug): every field
shown — the id, the first prompt, the model, the mode, the state, the workspace — goes
through ``display.display_preview`` (one row each), so a stored ESC or bidi override is
shown, never obeyed.
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
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from frontier.app.session.catalogue import one_line, short_path
from frontier.widgets.display import display_preview

if TYPE_CHECKING:
    from frontier.app.session.catalogue import SessionInfo

EMPTY = (
    "No stored sessions yet. Every conversation is saved as you go; "
    "once you have talked to the agent, it shows up here."
)
HINT = "type to filter · ↑↓ choose · Enter resume · Esc close · ● open now"
NO_PROMPT = "(no message yet)"
INDENT = "    "
LISTED = 100
"""Rows in the list at most: the newest matches (eight show at once; more is scrolling)."""


def _shown(text: str) -> str:
    return display_preview(text, one_line=True)


def started(info: SessionInfo) -> str:
    return datetime.fromtimestamp(info.started).strftime("%Y-%m-%d %H:%M")


def session_prompt(info: SessionInfo, current: str | None, width: int = 100) -> Text:
    """Three lines per session, each within ``width`` so it fits at 80 columns: the id
    and the first prompt; start, turns and state; model · mode · workspace (shortened
    from the left). The session already open is marked ``●``."""
    text = Text()
    text.append("● " if info.id == current else "  ", style="bold")
    text.append(f"{_shown(info.id):<9} ", style="bold")
    room = max(10, width - 12)
    if info.first_prompt:
        text.append(_shown(one_line(info.first_prompt, room)))
    else:
        text.append(NO_PROMPT, style="italic")
    text.append(f"\n{INDENT}{started(info)} · ")
    text.append(f"{info.turns} turn{'' if info.turns == 1 else 's'} · ")
    text.append(_shown(info.state), style="" if info.state == "active" else "italic")
    where = f"{_shown(info.model or '—')} · {_shown(info.mode)} · "
    text.append(f"\n{INDENT}{where}", style="dim")
    room = max(16, width - len(INDENT) - len(where))
    text.append(_shown(short_path(info.workspace, room)), style="dim")
    return text


def haystack(info: SessionInfo) -> str:
    """What the filter searches in a session, lower-cased."""
    fields = (
        info.id,
        info.first_prompt,
        info.workspace,
        info.model,
        info.mode,
        info.state,
        started(info),
    )
    return "\n".join(fields).lower()


def matches(info: SessionInfo, query: str, hay: str | None = None) -> bool:
    """Every word of ``query`` appears somewhere in the session (``""`` matches all);
    ``hay`` is its :func:`haystack`, when made already."""
    hay = haystack(info) if hay is None else hay
    return all(word in hay for word in query.lower().split())


class SessionPicker(ModalScreen[str | None]):
    """Stored sessions, newest first, filtered as you type; Enter opens one, Esc closes."""

    DEFAULT_CSS = """
    SessionPicker { align: center middle; }
    #sessions { width: 100; max-width: 96%; height: auto; max-height: 90%;
                border: thick $primary; background: $surface; padding: 0 1; }
    #sessions-filter { margin: 0 0 1 0; }
    #sessions OptionList { height: auto; max-height: 24; border: none; padding: 0; }
    #sessions-hint { color: $text-muted; }
    #sessions-empty, #sessions-none { padding: 1 0; }
    #sessions-none { display: none; }
    #sessions-none.-shown { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("down", "move(1)", "Down", show=False),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("pagedown", "move(5)", show=False),
        Binding("pageup", "move(-5)", show=False),
    ]

    def __init__(
        self, sessions: Sequence[SessionInfo], current: str | None = None, here: str | None = None
    ) -> None:
        super().__init__()
        self.sessions = list(sessions)
        self.current = current
        self.here = here if here and any(info.workspace == here for info in sessions) else None
        """A workspace whose sessions are listed first (the filter starts with its path, as
        ``codex resume`` lists the current folder's): ``/resume`` and ``frontier
        resume``; clearing the filter lists every session."""
        self.shown: list[SessionInfo] = list(self.sessions)
        """The sessions the filter lets through, newest first (the list holds the first
        :data:`LISTED` of them)."""
        self._hay = {info.id: haystack(info) for info in self.sessions}

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions") as box:
            box.border_title = "Open session"
            if not self.sessions:
                yield Static(EMPTY, id="sessions-empty")
                yield Static("Esc close", id="sessions-hint")
                return
            box.border_subtitle = self._subtitle()
            yield Input(
                self.here or "",
                placeholder="filter: words from the prompt, id, folder…",
                id="sessions-filter",
            )
            if self.here is not None:
                self.shown = self._matching(self.here)
                box.border_subtitle = self._subtitle()
            yield OptionList(*self._options(self.shown[:LISTED]))
            yield Static("", id="sessions-none")
            yield Static(HINT, id="sessions-hint")

    def _width(self) -> int:
        return min(100, int(self.app.size.width * 0.96)) - 6

    def _options(self, sessions: Sequence[SessionInfo]) -> list[Option]:
        width = self._width()
        return [Option(session_prompt(info, self.current, width), id=info.id) for info in sessions]

    def _subtitle(self) -> str:
        total, found = len(self.sessions), len(self.shown)
        more = f" · newest {LISTED} listed, type to narrow" if found > LISTED else ""
        if found == total:
            return f"{total} stored · newest first{more}"
        return f"{found} of {total} match · newest first{more}"

    @property
    def listed(self) -> int:
        """Rows in the list now."""
        return min(len(self.shown), LISTED)

    def on_mount(self) -> None:
        lists = self.query(OptionList)
        if lists:
            lists.first().highlighted = 0
            self.query_one("#sessions-filter", Input).focus()

    @property
    def options(self) -> OptionList:
        return self.query_one(OptionList)

    @property
    def filter_box(self) -> Input:
        return self.query_one("#sessions-filter", Input)

    def on_input_changed(self, event: Input.Changed) -> None:
        """Filter as the person types: the list shows only the sessions that match."""
        event.stop()
        query = event.value.strip()
        self.shown = self._matching(query)
        options = self.options
        options.clear_options()
        options.add_options(self._options(self.shown[:LISTED]))
        if self.shown:
            options.highlighted = 0
        none = self.query_one("#sessions-none", Static)
        none.update(
            Text(f"No session matches “{_shown(query)}”; Esc closes, or change the filter.")
        )
        none.set_class(not self.shown, "-shown")
        box = self.query_one("#sessions", Vertical)
        box.border_subtitle = self._subtitle()

    def _matching(self, query: str) -> list[SessionInfo]:
        hay = self._hay
        return [info for info in self.sessions if matches(info, query, hay[info.id])]

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the filter box opens the highlighted session."""
        event.stop()
        index = self.options.highlighted
        if self.shown and index is not None and 0 <= index < self.listed:
            self.dismiss(self.shown[index].id)

    def action_move(self, delta: int) -> None:
        if not self.shown:
            return
        options = self.options
        index = options.highlighted if options.highlighted is not None else 0
        options.highlighted = max(0, min(self.listed - 1, index + delta))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
