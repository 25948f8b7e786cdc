"""The CST strip: the boundary in one line, for the conversation layout (issue 23).

With the lab panes hidden the user still sees what the transducer is doing: the
frontier offset, pending / bound, the call running now and the last contract error,
and, on the right where it is never cut, the key that opens the lab panes. A click
on the strip does what that key does (``CstStrip.Pressed``; the App decides).

Every name and message here comes from the model (a call's id, name and summary, an
error quoting the stream), so each goes through ``display.display_preview`` as one
row before it is measured.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from frontier.app.record import record
from frontier.widgets.display import display_preview
from frontier.widgets.pacing import Pacer

SEPARATOR = " · "


@record
class StripInfo:
    """What the strip shows; equal infos draw the same line (the strip skips them)."""

    frontier: int
    pending: int
    bound: int
    running: str | None = None
    """``c3 shell pytest -q 3s`` for the newest running call, else None."""
    running_short: str = ""
    """The same without the summary (``c3 shell 3s``), for a narrow strip."""
    running_more: int = 0
    """Other calls running beside it."""
    error: str | None = None
    """``length-mismatch @212`` for the newest contract error, else None."""
    errors: int = 0
    key: str = "f6"
    """The key that cycles the layout (conversation → split: the lab panes open)."""


def strip_text(info: StripInfo, width: int) -> Text:
    """One row of at most ``width`` cells: the key hint at the right, never cut; to its
    left the fields, in their full form where they fit, else in short forms (an idle
    field is dropped first, then the labels shorten, then the running call's summary
    goes), and last cut with an ellipsis."""
    for short in range(4):
        hint = Text.assemble(
            (f" {info.key} ", "bold reverse"), " lab panes" if short < 2 else " lab"
        )
        left = _fields(info, short)
        room = max(0, width - hint.cell_len - 1)
        if left.cell_len <= room:
            break
    if left.cell_len > room:
        left.truncate(room, overflow="ellipsis")
    gap = max(1, width - left.cell_len - hint.cell_len)
    return Text.assemble(left, " " * gap, hint, no_wrap=True, overflow="crop")


def _fields(info: StripInfo, short: int) -> Text:
    """The fields at shortness ``short`` (0: full … 3: shortest)."""
    fields: list[Text] = []
    if short < 2:
        fields.append(Text.assemble(("CST ", "bold"), ("frontier ", "dim"), f"{info.frontier:,}"))
        fields.append(Text.assemble(("pending ", "dim"), f"{info.pending:,} / {info.bound:,}"))
    else:
        fields.append(Text.assemble(("fr ", "dim"), f"{info.frontier:,}"))
        fields.append(Text.assemble(("pend ", "dim"), f"{info.pending:,}/{info.bound:,}"))
    if info.running is not None:
        running = info.running if short < 3 else info.running_short
        more = f" +{info.running_more}" if info.running_more else ""
        fields.append(Text.assemble(("▶ ", "bold"), running, (more, "dim")))
    elif short == 0:
        fields.append(Text("no call running", "dim"))
    if info.error is not None:
        count = f" ({info.errors} errors)" if info.errors > 1 and short < 2 else ""
        fields.append(Text.assemble(("✗ ", "bold"), (info.error, "bold"), (count, "dim")))
    elif short == 0:
        fields.append(Text("no contract errors", "dim"))
    line = Text(no_wrap=True, overflow="ellipsis")
    for i, field in enumerate(fields):
        if i:
            line.append(SEPARATOR, style="dim")
        line.append_text(field)
    return line


def running_label(call_id: str, name: str, summary: str, elapsed: float | None) -> tuple[str, str]:
    """``c3 shell pytest -q 3s`` and ``c3 shell 3s``: the model's words as one display
    row each."""
    head = [
        display_preview(call_id, one_line=True, limit=24),
        display_preview(name, one_line=True, limit=24),
    ]
    tail = [] if elapsed is None else [f"{elapsed:.0f}s"]
    body = [display_preview(summary, one_line=True, limit=60)] if summary else []
    return " ".join([*head, *body, *tail]), " ".join([*head, *tail])


def error_label(kind: str, offset: int) -> str:
    return f"{display_preview(kind, one_line=True, limit=32)} @{offset:,}"


class CstStrip(Static):
    """One line under the Transcript; shown only in the conversation layout."""

    DEFAULT_CSS = """
    CstStrip { height: 1; padding: 0 1; background: $panel; color: $foreground; }
    """

    class Pressed(Message):
        """The strip was clicked: open the lab panes (what its key does)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.info: StripInfo | None = None
        self._width = 0
        self._pacer = Pacer(("frontier", "pending"))
        self._latest: StripInfo | None = None
        """The newest info offered; differs from ``info`` while a pace holds it back."""
        self._deferred: Timer | None = None

    def show(self, info: StripInfo, paced: bool = True) -> None:
        """Draw ``info`` unless it is what the strip shows already (a flush is ~30 Hz);
        a change of only the frontier and pending numbers waits for its pace
        (``widgets/pacing.py``: at most 10 repaints a second while a stream runs)."""
        width = max(0, self.size.width - 2)
        self._latest = info
        if info == self.info and width == self._width:
            return
        if paced and width == self._width:
            wait = self._pacer.wait(self.info, info)
            if wait > 0:
                if self._deferred is None:
                    self._deferred = self.set_timer(wait, self._show_deferred)
                return
        if self._deferred is not None:
            self._deferred.stop()
            self._deferred = None
        self._pacer.painted(self.info if width == self._width else None, info)
        self.info, self._width = info, width
        self.update(strip_text(info, width or 80), layout=False)

    def paint_now(self) -> None:
        """Draw the newest info even if a pace holds it (a forced flush)."""
        if self._latest is not None:
            self.show(self._latest, paced=False)

    def _show_deferred(self) -> None:
        self._deferred = None
        if self._latest is not None:
            self.show(self._latest)

    def on_resize(self, event: events.Resize) -> None:
        info = self._latest or self.info
        if info is not None:
            self.info = None
            self.show(info)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Pressed())

    @property
    def plain(self) -> str:
        """The line as shown (tests and the screen reader of a snapshot read this)."""
        return strip_text(self.info, self._width or 80).plain if self.info else ""


__all__ = ["CstStrip", "StripInfo", "error_label", "running_label", "strip_text"]
