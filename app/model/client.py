"""What the loop needs of a model endpoint, whatever the wire: one streamed response per
request. ``transport.ModelClient`` is the real one; tests and the compactor's callers
may pass anything with this shape."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Protocol

from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamItem


class Client(Protocol):
    """A model endpoint on one wire."""

    wire: str
    model: str
    effort: str | None
    """The reasoning effort a request that names none is sent with (``None``: the
    model's own; ``--reasoning-effort``)."""

    def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        """``WireEvent``/``Retry`` items, then one ``StreamEnd``; a ``ModelError`` when no
        response could be had at all."""
        ...

    async def aclose(self) -> None: ...


__all__ = ["Client"]
