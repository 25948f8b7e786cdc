"""The Tools pane: every call with its state, ticking elapsed time and output tail."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from frontier.widgets.state import ToolRow

_STATE_STYLE = {
    "ready": "dim",
    "review": "bold reverse",
    "running": "bold italic",
    "ok": "bold",
    "applied": "bold",
}
SHOWN_ROWS = 24
"""Newest calls shown; the pane is a few lines tall and a rich Table is not free."""


def elapsed_of(row: ToolRow, now: float) -> float | None:
    if row.elapsed is not None:
        return row.elapsed
    if row.started is not None:
        return max(0.0, now - row.started)
    return None


def state_label(row: ToolRow) -> str:
    if row.state == "review":
        return "review…"
    if row.state in ("running", "ready"):
        return row.state
    return row.state if row.exit_code is None else f"{row.state} exit={row.exit_code}"


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def render_tools(rows: Iterable[ToolRow], now: float, width: int = 100) -> Text:
    """One line per call (plain ``Text``: a rich ``Table`` per flush costs too much)."""
    rows = list(rows)
    if not rows:
        return Text("no tool calls yet — they appear here the moment they are confirmed", "dim")
    name_w = max(20, min(48, width * 2 // 5))
    out = Text(no_wrap=True, overflow="ellipsis")
    for i, row in enumerate(rows):
        if i:
            out.append("\n")
        head = f"{row.call.id} {row.call.name} {row.summary}"
        head = _fit(head, name_w).ljust(name_w)
        ident = len(row.call.id) + 1
        out.append(head[:ident], style="dim")
        out.append(head[ident : ident + len(row.call.name)], style="bold")
        out.append(head[ident + len(row.call.name) :])
        state_style = _STATE_STYLE.get(row.state, "bold underline")
        out.append(" ")
        out.append(_fit(state_label(row), 15).ljust(15), style=state_style)
        elapsed = elapsed_of(row, now)
        clock = "" if elapsed is None else f"{elapsed:.2f}s" if elapsed < 10 else f"{elapsed:.1f}s"
        out.append(f" {clock:>7} ")
        if row.output_lines or row.partial:
            lines = row.output_lines + (1 if row.partial else 0)
            last = (row.partial or (row.tail[-1] if row.tail else "")).strip()
            out.append(f"{lines} lines │ {last}", style="dim")
        elif row.message and row.state not in ("running", "ready", "review"):
            out.append(row.message, style="dim")
    return out


class ToolsPane(VerticalScroll):
    """Rendered from ``UiState.tools``; a 10 Hz tick refreshes elapsed times."""

    DEFAULT_CSS = """
    ToolsPane { background: $surface; }
    ToolsPane > Static { width: 1fr; }
    """

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock
        self._body = Static(id="tools-body")
        self._rows: list[ToolRow] = []

    def compose(self):  # type: ignore[no-untyped-def]
        yield self._body

    def show(self, rows: Iterable[ToolRow]) -> None:
        self._rows = list(rows)[-SHOWN_ROWS:]
        self._body.update(render_tools(self._rows, self._clock(), self.size.width))
        self.scroll_end(animate=False, immediate=True)

    def tick(self) -> None:
        if any(row.running for row in self._rows):
            self._body.update(render_tools(self._rows, self._clock(), self.size.width))
