"""Wire names to adapters, and model clients from settings: the one place that does it.

``create_runtime`` and every command that reads a recording ask here; nothing else names
a wire module, so adding a wire is one adapter file and one line below.
"""

from __future__ import annotations

import importlib

from frontier.app.vocab import DEFAULT_WIRE, WIRES

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from frontier.app.model.wires.base import WireCodec

_MODULES = {
    "openai-chat": "frontier.app.model.wires.openai_chat",
    "openai-responses": "frontier.app.model.wires.openai_responses",
    "anthropic-messages": "frontier.app.model.wires.anthropic_messages",
}
assert set(_MODULES) == set(WIRES), "every wire of the vocabulary has an adapter"


def codec(wire: str | None = None) -> WireCodec:
    """A fresh adapter for ``wire`` (default: ``openai-chat``, what recordings and
    sessions from before wires were named used)."""
    name = wire or DEFAULT_WIRE
    if name not in _MODULES:
        raise ValueError(f"unknown wire {name!r}; choose one of {', '.join(WIRES)}")
    module = importlib.import_module(_MODULES[name])
    made: WireCodec = module.Codec()
    return made


def codecs() -> list[WireCodec]:
    """One adapter of every wire, in the vocabulary's order (detection asks each)."""
    return [codec(wire) for wire in WIRES]


__all__ = ["codec", "codecs"]
