"""Test support: the native accumulator fed Chat Completions chunks, as the live path does.

The accumulator reads neutral deltas (``app/model/stream.py``); the chat wire's decoder
makes them from ``chat.completion.chunk`` objects. Tests written in chunks use these."""

from __future__ import annotations

import json
from typing import Any

from frontier.app.cst.native import NativeAccumulator, NativeSSETransducer
from frontier.app.events import Event
from frontier.app.model.wires.openai_chat import ChatDecoder, Codec


class ChatAccumulator(NativeAccumulator):
    """A ``NativeAccumulator`` with ``feed_chunk(chunk)``: one parsed chat chunk in."""

    def __init__(self, incremental: bool, **options: Any) -> None:
        super().__init__(incremental, **options)
        self._chat = ChatDecoder()

    def feed_chunk(self, chunk: dict[str, Any]) -> list[Event]:
        return self.feed(self._chat.feed("message", json.dumps(chunk)))[1]


def chat_sse(incremental: bool, **options: Any) -> NativeSSETransducer:
    """The SSE transducer of a Chat Completions body."""
    return NativeSSETransducer(incremental, Codec(), **options)


def cut_calls(acc: NativeAccumulator) -> list[tuple[str, str]]:
    """``(id, name)`` of the calls reported truncated."""
    return [(i, n) for i, n, _ in acc.truncated_calls]


CHAT = Codec()
"""The chat wire's adapter, for ``check_stream(..., wire=CHAT)`` and ``make_transducer``."""
