"""The five protocol modes (DESIGN §4): request shape, transducer, when calls run.

A ``ModeAdapter`` turns one provider chunk into transducer-input bytes and
events, so the loop treats native ``delta.tool_calls`` and text-carried
frames (CTL, XML) the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from frontier.app.agent.prompts import system_prompt
from frontier.app.events import Event, ReasoningText
from frontier.app.vocab import AGENT_MODES, EAGER_MODES, NATIVE_MODES
from frontier.app.wire.chunks import content, native_bytes, reasoning
from frontier.tools.registry import Registry

MODES = AGENT_MODES
"""The five protocol modes (DESIGN §4); ``frontier.app.vocab`` is their home."""


@dataclass(frozen=True)
class Mode:
    name: str

    @property
    def native(self) -> bool:
        """Calls come as ``delta.tool_calls`` and the request sends ``tools[]``."""
        return self.name in NATIVE_MODES

    @property
    def eager(self) -> bool:
        """Calls run while the stream is still being read (CTL modes, native-inc)."""
        return self.name in EAGER_MODES

    def system_prompt(self, registry: Registry, instructions: str = "") -> str:
        """``instructions``: the project's section (``app/agent/instructions.py``), last."""
        return system_prompt(self.name, registry.specs(), instructions)

    def tools(self, registry: Registry) -> list[dict[str, Any]] | None:
        return registry.native_tools() if self.native else None

    def adapter(self) -> ModeAdapter:
        return ModeAdapter(self)


def get_mode(name: str) -> Mode:
    if name not in MODES:
        raise ValueError(f"unknown protocol {name!r}; choose one of {', '.join(MODES)}")
    return Mode(name)


class ModeAdapter:
    """One response's transducer, fed from provider chunks."""

    def __init__(self, mode: Mode) -> None:
        self.mode = mode
        if mode.native:
            from frontier.app.cst.native import NativeAccumulator

            self._native = NativeAccumulator(incremental=mode.name == "native-inc")
            self.transducer: Any = self._native
        else:
            from frontier.app.cst.factory import make_transducer

            self._native = None
            self.transducer = make_transducer(mode.name)

    def feed(self, chunk: dict[str, Any]) -> tuple[bytes, list[Event]]:
        """Return the bytes this chunk adds to the transducer input, and the events.

        Reasoning comes out as ``ReasoningText`` first and never reaches the transducer."""
        thinking = reasoning(chunk)
        head: list[Event] = [ReasoningText(thinking)] if thinking else []
        if self._native is not None:
            data = native_bytes(chunk)
            return data, [*head, *self._native.feed_chunk(chunk)]
        text = content(chunk)
        if not text:
            return b"", head
        data = text.encode("utf-8")
        return data, [*head, *self.transducer.feed(data)]

    def finish(self, clean: bool) -> list[Event]:
        return self.transducer.finish(clean)

    @property
    def frontier(self) -> int:
        return int(self.transducer.frontier)

    def pending(self) -> bytes:
        return bytes(self.transducer.pending())

    def pending_bound(self) -> int:
        return int(self.transducer.pending_bound())
