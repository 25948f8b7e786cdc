"""The Confirmed pane's state: one row per thing the transducer confirmed.

Byte runs of one kind merge into the row before them, so a long text or argument is
one row whose byte count grows; its preview is cut from the run's last raw bytes,
masked of secrets.
"""

from __future__ import annotations

from collections import deque

from frontier.app.events import (
    ArgBytes,
    ArgStarted,
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    ResponseContinued,
    StreamStopped,
)
from frontier.app.frontends.terminal_text import pictured
from frontier.app.record import record
from frontier.widgets.pane_state.shared import PaneContext

MAX_CONFIRMED_ROWS = 2000
PREVIEW_BYTES = 48


@record(frozen=False)
class ConfirmedRow:
    """One line of the Confirmed pane; byte runs merge into the previous row."""

    id: int
    kind: str
    """``text``, ``call``, ``arg``, ``bytes``, ``ready``, ``stop``, ``error``, ``response``."""
    label: str
    offset: int
    nbytes: int = 0
    preview: str = ""
    version: int = 0
    tail: bytes = b""
    """The run's last raw bytes: the preview is cut from these, never from ``preview``
    (re-encoding its ``⏎`` and cutting it split characters into ``�``)."""


def _preview(data: bytes, limit: int = PREVIEW_BYTES) -> str:
    """The last ``limit`` bytes as one line, starting at a character (a cut through a
    multi-byte character is moved past it rather than shown as ``�``)."""
    tail = data[-limit:]
    start = 0
    while start < min(3, len(tail)) and tail[start] & 0xC0 == 0x80 and len(data) > limit:
        start += 1
    text = tail[start:].decode("utf-8", "replace")
    return pictured(text).replace("\n", "⏎").replace("\t", "→")


class ConfirmedModel:
    """The Confirmed pane's rows; the Stream model adds the ``response`` rows (it is
    the one that knows where a response starts and ends)."""

    def __init__(self, ctx: PaneContext) -> None:
        self._ctx = ctx
        self._dirty = ctx.dirty
        self.rows: deque[ConfirmedRow] = deque(maxlen=MAX_CONFIRMED_ROWS)
        self.ids = 0
        """The last row id given: rows are the pane's cache keys, so ids never repeat
        (a tour rebuild carries them over)."""

    def add(self, kind: str, label: str, offset: int) -> None:
        self.ids += 1
        self.rows.append(ConfirmedRow(self.ids, kind, self._ctx.scrub(label), offset))
        self._dirty.add("confirmed")

    def _merge(self, kind: str, label: str, offset: int, data: bytes) -> None:
        rows = self.rows
        last = rows[-1] if rows else None
        if last is not None and last.kind == kind and last.label == label:
            last.nbytes += len(data)
            last.tail = self._ctx.mask_tail(last.tail, data, PREVIEW_BYTES + 3)
            last.preview = _preview(last.tail)
            last.version += 1
        else:
            self.add(kind, label, offset)
            row = rows[-1]
            row.nbytes = len(data)
            row.tail = self._ctx.mask_tail(b"", data, PREVIEW_BYTES + 3)
            row.preview = _preview(row.tail)
        self._dirty.add("confirmed")

    def reset(self) -> None:
        """A new session (or history shown): no rows; ids go on."""
        self.rows.clear()

    # ------------------------------------------------------------------ handlers
    def on_confirmed(self, event: Confirmed) -> None:
        if event.kind == "text":
            self._merge("text", "text", event.offset, event.data)

    def on_call_started(self, event: CallStarted) -> None:
        self.add("call", f"call {event.id} {event.name}", event.offset)

    def on_arg_started(self, event: ArgStarted) -> None:
        form = event.form + (f" {event.declared}" if event.declared is not None else "")
        self.add("arg", f"arg {event.key} ({form})", event.offset)

    def on_arg_bytes(self, event: ArgBytes) -> None:
        self._merge("bytes", event.key, event.offset, event.data)

    def on_call_ready(self, event: CallReady) -> None:
        call = event.call
        self.add("ready", f"ready {call.id} {call.name}", call.offset)

    def on_contract_error(self, event: ContractError) -> None:
        self.add("error", f"error {event.kind}", event.offset)

    def on_stream_stopped(self, event: StreamStopped) -> None:
        self.add("stop", f"stop: {event.reason}", event.offset)

    def on_response_continued(self, event: ResponseContinued) -> None:
        self.add("continued", f"⟂ continued at byte {event.offset:,}", event.offset)
