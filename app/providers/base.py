"""The provider contract: what every model source yields and how the loop calls it.

The loop, the recorder and the tests depend on this module, never on a concrete
provider, so importing the loop does not pull in httpx. ``OpenAIProvider``
(``openai.py``) is the one real implementation; the demo and replays are httpx
transports under it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from frontier.app.events import Retry


@dataclass(frozen=True)
class Chunk:
    """One parsed SSE ``data:`` JSON object (a ``chat.completion.chunk``)."""

    data: dict[str, Any]
    raw: str
    """The ``data`` string exactly as received (recordings keep this)."""
    t: float
    """Seconds since the request that produced it was sent."""


@dataclass(frozen=True)
class StreamEnd:
    """The last item of every stream.

    ``finish_reason`` is the server's (``stop``, ``length``, ``tool_calls``, ...),
    ``disconnect`` (connection dropped, read stall, or EOF before any
    finish_reason) or ``error`` (an ``{"error": ...}`` object in a 200 stream;
    the server's message is in ``error``).
    """

    finish_reason: str
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    skipped: int = 0
    """SSE events skipped because their ``data`` was not a JSON object."""
    detail: str = ""
    """Why a ``disconnect`` happened (for logs and the UI), else empty."""


ProviderItem = Chunk | Retry | StreamEnd


class Provider(Protocol):
    """A model endpoint: one streamed response per call, ending with a ``StreamEnd``."""

    def stream(
        self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[ProviderItem]: ...
