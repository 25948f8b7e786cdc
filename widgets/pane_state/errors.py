"""The Errors pane's state: one row per contract error, naming its response and byte."""

from __future__ import annotations

from collections import deque

from frontier.app.events import ContractError
from frontier.app.record import record
from frontier.widgets.pane_state.shared import PaneContext
from frontier.widgets.pane_state.stream import StreamModel

MAX_ERRORS = 500


@record
class ErrorRow:
    response: int
    kind: str
    message: str
    offset: int


class ErrorsModel:
    """Contract errors as rows; it reads the Stream model for the response they are in
    (the inspector and Raw stream jump to that response's byte)."""

    def __init__(self, ctx: PaneContext, stream: StreamModel) -> None:
        self._ctx = ctx
        self._stream = stream
        self.rows: deque[ErrorRow] = deque(maxlen=MAX_ERRORS)

    def reset(self) -> None:
        self.rows.clear()

    def on_contract_error(self, event: ContractError) -> None:
        current = self._stream.current
        index = current.index if current else 0
        self.rows.append(ErrorRow(index, event.kind, self._ctx.scrub(event.message), event.offset))
        self._ctx.mark("errors")
