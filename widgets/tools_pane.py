"""The Tools pane: every call with its state, ticking elapsed time and output tail.

A row never hides that a call's key argument has more lines than it shows: the
``(+41 lines)`` after the summary is kept when the row is cut (the summary gives way).
The call's id and name, which the model chose, are shown through
``display.display_preview`` like every other string from the model; the output tail
arrives scrubbed, pictured and cut from ``UiState``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.text import Text
from textual import events

from frontier.widgets.block_view import BlockView
from frontier.widgets.display import NEWLINE, display_preview, more_lines
from frontier.widgets.state import ToolRow

_STATE_STYLE = {
    "ready": "dim",
    "review": "bold reverse",
    "running": "bold italic",
    "ok": "bold",
    "applied": "bold",
}
SCROLLBAR = 2
"""Cells a row leaves for the pane's scrollbar (a row one cell too wide wraps)."""
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


def _fit_keeping(text: str, end: str, width: int) -> str:
    """``text + end`` in ``width`` characters, ``text`` cut first: ``end`` (the
    ``(+41 lines)`` marker) is what must not be lost."""
    if len(text) + len(end) <= width or not end:
        return _fit(text + end, width)
    return _fit(text, max(1, width - len(end))) + end


def tool_lines(rows: Iterable[ToolRow], now: float, width: int = 100) -> list[Text]:
    """One line per call (plain ``Text``, cut with an ellipsis: a rich ``Table`` costs too much)."""
    rows = list(rows)
    if not rows:
        return [Text("no tool calls yet — they appear here the moment they are confirmed", "dim")]
    name_w = max(20, min(48, width * 2 // 5))
    lines: list[Text] = []
    for row in rows:
        out = Text(no_wrap=True, overflow="ellipsis")
        call_id = display_preview(row.call.id, one_line=True, limit=24)
        name = display_preview(row.call.name, one_line=True, limit=24)
        head = f"{call_id} {name} {row.summary}"
        head = _fit_keeping(head, more_lines(row.more), name_w).ljust(name_w)
        ident = len(call_id) + 1
        out.append(head[:ident], style="dim")
        out.append(head[ident : ident + len(name)], style="bold")
        out.append(head[ident + len(name) :])
        state_style = _STATE_STYLE.get(row.state, "bold underline")
        out.append(" ")
        out.append(_fit(state_label(row), 15).ljust(15), style=state_style)
        elapsed = elapsed_of(row, now)
        clock = "" if elapsed is None else f"{elapsed:.2f}s" if elapsed < 10 else f"{elapsed:.1f}s"
        out.append(f" {clock:>7} ")
        if row.output_lines or row.partial:
            count = row.output_lines + (1 if row.partial else 0)
            last = (row.open_line if row.partial else (row.tail[-1] if row.tail else "")).strip()
            tail = Text(f"{count} lines │ {last}", style="dim")
            # an output line keeps up to 4,000 characters (``UiState``) and the pane draws
            # through Textual, which wraps a long ``Text`` whatever its ``no_wrap``: one
            # call was 40 rows. At most a row's width of it (the row itself may still take
            # a second row, as the snapshots record)
            tail.truncate(max(1, width - SCROLLBAR), overflow="ellipsis")
            out.append_text(tail)
        elif row.state not in ("running", "ready", "review") and (row.changes or row.message):
            # a mutation's files (``M path (+3 −1) · …``) say more than "applied:"
            done = display_preview(" · ".join(row.changes) or row.message, limit=400)
            out.append(done.replace("\n", NEWLINE), style="dim")  # one row (a tab stays)
        lines.append(out)
    return lines


class ToolsPane(BlockView):
    """Rendered from ``UiState.tools``, one block per call keyed by what it shows, so a
    flush re-renders only the calls that changed; the tick refreshes elapsed times."""

    DEFAULT_CSS = """
    ToolsPane { background: $surface; }
    """

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock
        self._rows: list[ToolRow] = []

    def show(self, rows: Iterable[ToolRow]) -> None:
        self._rows = list(rows)[-SHOWN_ROWS:]
        self._update()

    def tick(self) -> None:
        if any(row.running for row in self._rows):
            self._update()

    def on_mount(self) -> None:
        self._update()  # (Textual runs BlockView's handlers after these)

    def on_resize(self, event: events.Resize) -> None:
        self._update()

    def _update(self) -> None:
        lines = tool_lines(self._rows, self._clock(), self.size.width)
        self.set_blocks([((text.plain, tuple(text.spans)), text) for text in lines])
