"""Test support: scripted model clients that speak Chat Completions chunks.

The loop takes any ``app.model.client.Client``: one ``ModelRequest`` in, ``WireEvent``\\ s
and a ``StreamEnd`` out. These build the events from ``chat.completion.chunk`` dicts
with the chat wire's own decoder (as the transport does), and read a request back as
the chat messages the wire would send, so a test can assert on what the model saw."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd, StreamItem, WireEvent
from frontier.app.model.wires.openai_chat import ChatDecoder, Codec

Chunk = dict[str, Any] | str


def chat_event(chunk: Chunk, t: float = 0.0, decoder: ChatDecoder | None = None) -> WireEvent:
    """One chunk as the transport yields it (raw ``data`` and its deltas); a ``str`` is
    sent as it is (junk a server may send)."""
    raw = chunk if isinstance(chunk, str) else json.dumps(chunk)
    deltas = (decoder or ChatDecoder()).feed("message", raw)
    return WireEvent(raw, t, tuple(deltas))


def chat_events(chunks: Sequence[Chunk], t: float = 0.0) -> list[WireEvent]:
    """A response's chunks, decoded by one decoder (a piece may name its call by id)."""
    decoder = ChatDecoder()
    return [chat_event(c, t, decoder) for c in chunks]


def chat_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """``request`` as the chat messages (system first) the chat wire sends."""
    body = Codec().body(request, "test")
    return json.loads(json.dumps(body["messages"]))


def chat_body(request: ModelRequest) -> dict[str, Any]:
    """``request`` as the whole chat request body (tools, max_tokens...)."""
    return json.loads(json.dumps(Codec().body(request, "test")))


class ScriptedClient:
    """Plays one scripted response per request and keeps what it was sent (as chat
    messages, in ``requests``)."""

    wire = "openai-chat"

    def __init__(
        self,
        responses: Sequence[tuple[Sequence[Chunk], str]],
        log: list[str] | None = None,
        model: str = "test",
    ) -> None:
        self.responses = list(responses)
        self.requests: list[list[dict[str, Any]]] = []
        self.sent: list[ModelRequest] = []
        self.log = log if log is not None else []
        self.served_chunks = 0
        self.model = model

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        self.sent.append(request)
        self.requests.append(chat_messages(request))
        chunks, finish = self.responses.pop(0)
        decoder = ChatDecoder()
        for i, chunk in enumerate(chunks):
            self.log.append(f"chunk {i}")
            self.served_chunks += 1
            yield chat_event(chunk, 0.0, decoder)
        yield StreamEnd(finish)

    async def aclose(self) -> None:
        return None
