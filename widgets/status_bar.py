"""The status bar: model, mode, tokens/s, frontier, pending, session (or replay state),
and a silent server's wait (``waiting for the first byte · 23 s``)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static


@dataclass(frozen=True)
class StatusInfo:
    model: str
    mode: str
    token_rate: float
    frontier: int
    pending: int
    session: str
    activity: str = ""
    """``streaming``, ``review``, ``running c3``, ``idle``, or the replay state."""
    waiting: str = ""
    """A silent server, live: ``waiting for the first byte · 23 s``, ``stalled · 12 s``;
    it takes the place of ``streaming`` (the silence is the news) and follows a running
    tool or a review."""


def render_status(info: StatusInfo) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    activity = info.activity
    if info.waiting:
        quiet = activity in ("", "streaming", "idle")
        activity = info.waiting if quiet else f"{activity} · {info.waiting}"
    parts = [
        (info.model or "no model", "bold"),
        (info.mode, ""),
        (f"{info.token_rate:,.0f} tok/s", ""),
        (f"frontier {info.frontier:,}", "bold"),
        (f"pending {info.pending:,}", "italic underline" if info.pending else ""),
        (f"session {info.session[:8]}" if info.session else "", "dim"),
        (activity, "reverse" if activity and activity != "idle" else "dim"),
    ]
    first = True
    for value, style in parts:
        if not value:
            continue
        if not first:
            text.append(" · ", style="dim")
        text.append(value, style=style)
        first = False
    text.append("   ? help  ^p palette", style="dim")
    return text


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    def show(self, info: StatusInfo) -> None:
        self.update(render_status(info), layout=False)
