"""What the loop asks a model for, whatever the wire: one :class:`ModelRequest`.

The agent builds it (system prompt, the typed history, the tools it offers); a wire
adapter encodes it as its API's JSON body. Nothing here knows any API.
"""

from __future__ import annotations

from collections.abc import Mapping

from frontier.app.model.conversation import Item
from frontier.app.record import field, record

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any


@record
class ToolSchema:
    """A tool offered natively: its name, what it does, its JSON-schema parameters
    (from the tool registry: one source for the prompt, every wire's schema and the docs)."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@record
class ModelRequest:
    """One request: the system prompt, the history, and how to answer.

    ``tools`` empty means none are offered (the text protocols). ``prefill``: the
    assistant text the answer must continue (a response cut by its token limit, resumed
    from the frontier: ``agent/continuation.py``); only wires that can continue a
    message take it. ``extra``: fields merged into the body as they are (vLLM's
    ``continue_final_message``), for the wire that asked for them. ``once``: a request
    whose prefix no later request repeats (a compaction's summary): a wire that marks
    prompt-cache breakpoints marks none (writing a cache costs more than reading it
    uncached)."""

    system: str
    items: tuple[Item, ...]
    tools: tuple[ToolSchema, ...] = ()
    prefill: str = ""
    max_tokens: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    once: bool = False
    effort: str | None = None
    """How hard a reasoning model thinks (``low``/``medium``/``high``; ``None``: the
    client's setting; ``auto``: the model's own, whatever the setting): each wire says it
    in its API's words (``vocab.REASONING_EFFORTS``); the client resolves ``None`` and
    ``auto`` before a wire sees the request."""

    @property
    def native(self) -> bool:
        return bool(self.tools)


__all__ = ["ModelRequest", "ToolSchema"]
