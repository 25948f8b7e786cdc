"""The Tools pane: every call with its state, ticking elapsed time and output tail.

One row per call, always (cut with ``…`` to the pane's width, never wrapped): ``▸``
(its output opens in the pager: Enter on the row ↑↓ chose, or a click) or ``•``, the
call, its state, elapsed time, where a command ran (``sandbox``, ``outside``...) and
its last output line.

A row never hides that a call's key argument has more lines than it shows: the
``(+41 lines)`` after the summary is kept when the row is cut (the summary gives way).
The call's id and name, which the model chose, are shown through
``display.display_preview`` like every other string from the model; the output tail
arrives scrubbed, pictured and cut from ``UiState``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message

from frontier.widgets.block_view import BlockView
from frontier.widgets.display import NEWLINE, TAB, display_preview, more_lines
from frontier.widgets.state import ToolRow


class OpenToolOutput(Message):
    """Show ``row``'s whole output in the pager (from the Transcript or the Tools pane)."""

    def __init__(self, row: ToolRow) -> None:
        super().__init__()
        self.row = row


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


WHERE = 11
"""Cells of the "where it ran" field (``sandbox+net``), when any row has one."""


def tool_lines(
    rows: Iterable[ToolRow], now: float, width: int = 100, cursor: int | None = None
) -> list[Text]:
    """One row per call (plain ``Text`` cut to ``width`` less the scrollbar: a rich
    ``Table`` costs too much, and Textual wraps a ``Text`` whatever its ``no_wrap``);
    ``cursor``: the index of the row ↑↓ chose, shown reversed."""
    rows = list(rows)
    if not rows:
        return [Text("no tool calls yet — they appear here the moment they are confirmed", "dim")]
    name_w = max(20, min(48, width * 2 // 5))
    where = any(row.where for row in rows)
    lines: list[Text] = []
    for index, row in enumerate(rows):
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append("▸ " if row.opens else "• ", style="bold reverse" if index == cursor else "bold")
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
        if where:
            out.append(f"{row.where:<{WHERE}} ", style="dim")
        if row.output_lines or row.partial:
            count = row.output_lines + (1 if row.partial else 0)
            last = (row.open_line if row.partial else (row.tail[-1] if row.tail else "")).strip()
            last = last.replace("\t", TAB)  # a tab would widen the row past its cut
            out.append_text(Text(f"{count} lines │ {last[: width * 2]}", style="dim"))
        elif row.state not in ("running", "ready", "review") and (row.changes or row.message):
            # a mutation's files (``M path (+3 −1) · …``) say more than "applied:"
            done = display_preview(" · ".join(row.changes) or row.message, limit=400)
            out.append(done.replace("\n", NEWLINE).replace("\t", TAB), style="dim")
        # an output line keeps up to 4,000 characters (``UiState``) and Textual wraps a
        # long ``Text`` whatever its ``no_wrap``: one call was 40 rows. One row, always
        out.truncate(max(1, width - SCROLLBAR), overflow="ellipsis")
        lines.append(out)
    return lines


class ToolsPane(BlockView):
    """Rendered from ``UiState.tools``, one block per call keyed by what it shows, so a
    flush re-renders only the calls that changed; the tick refreshes elapsed times."""

    DEFAULT_CSS = """
    ToolsPane { background: $surface; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Previous call", show=False),
        Binding("down", "move(1)", "Next call", show=False),
        Binding("enter", "open", "Open output", show=False),
    ]

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock
        self._rows: list[ToolRow] = []
        self.chosen: ToolRow | None = None
        """The row ↑↓ chose (Enter opens it), shown reversed while the pane has focus."""

    def show(self, rows: Iterable[ToolRow]) -> None:
        self._rows = list(rows)[-SHOWN_ROWS:]
        self._update()

    @property
    def cursor(self) -> int | None:
        """Index of the chosen row among those shown (``None`` when unfocused)."""
        if not self.has_focus or not self._rows:
            return None
        if self.chosen is None or self.chosen not in self._rows:
            self.chosen = self._rows[-1]
        return self._rows.index(self.chosen)

    def on_focus(self, event: events.Focus) -> None:
        self._update()

    def on_blur(self, event: events.Blur) -> None:
        self._update()

    def action_move(self, step: int) -> None:
        at = self.cursor
        if at is None:
            return
        self.chosen = self._rows[max(0, min(len(self._rows) - 1, at + step))]
        self._update()
        self.scroll_to(y=self._rows.index(self.chosen), animate=False, immediate=True)

    def action_open(self) -> None:
        at = self.cursor
        if at is not None and self._rows[at].opens:
            self.post_message(OpenToolOutput(self._rows[at]))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = int(self.scroll_offset.y) + offset.y
        if 0 <= index < len(self._rows):
            self.chosen = self._rows[index]
            if self.chosen.opens:
                self.post_message(OpenToolOutput(self.chosen))

    def tick(self) -> None:
        if any(row.running for row in self._rows):
            self._update()

    def on_mount(self) -> None:
        self._update()  # (Textual runs BlockView's handlers after these)

    def on_resize(self, event: events.Resize) -> None:
        self._update()

    def _update(self) -> None:
        lines = tool_lines(self._rows, self._clock(), self.size.width, self.cursor)
        self.set_blocks([((text.plain, tuple(text.spans)), text) for text in lines])
