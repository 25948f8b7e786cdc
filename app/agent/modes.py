"""The five protocol modes (DESIGN §4): request shape, transducer, when calls run.

A ``ModeAdapter`` turns one provider chunk into transducer-input bytes and
events, so the loop treats native ``delta.tool_calls`` and text-carried
frames (CTL, XML) the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from frontier.app.agent.prompts import system_prompt
from frontier.app.config import PROTOCOLS
from frontier.app.events import Event, ReasoningText
from frontier.tools.registry import Registry

MODES = PROTOCOLS
"""The five protocol modes (DESIGN §4), as config accepts them."""


@dataclass(frozen=True)
class Mode:
    name: str

    @property
    def native(self) -> bool:
        return self.name.startswith("native")

    @property
    def eager(self) -> bool:
        """Calls run while the stream is still being read (CTL modes, native-inc)."""
        return self.name in ("ctl", "ctl-heredoc", "native-inc")

    def system_prompt(self, registry: Registry) -> str:
        return system_prompt(self.name, registry.specs())

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
        thinking = chunk_reasoning(chunk)
        head: list[Event] = [ReasoningText(thinking)] if thinking else []
        if self._native is not None:
            data = native_chunk_bytes(chunk)
            return data, [*head, *self._native.feed_chunk(chunk)]
        content = chunk_content(chunk)
        if not content:
            return b"", head
        data = content.encode("utf-8")
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


def _delta(chunk: dict[str, Any]) -> dict[str, Any]:
    choices = chunk.get("choices") or []
    if not choices or not isinstance(choices[0], dict):
        return {}
    delta = choices[0].get("delta") or {}
    return delta if isinstance(delta, dict) else {}


def chunk_content(chunk: dict[str, Any]) -> str:
    content = _delta(chunk).get("content")
    return content if isinstance(content, str) else ""


REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Where servers stream reasoning: DeepSeek, llama.cpp, vLLM (``reasoning_content``);
OpenRouter, vLLM's newer API, Ollama's OpenAI endpoint (``reasoning``)."""


def chunk_reasoning(chunk: dict[str, Any]) -> str:
    delta = _delta(chunk)
    for name in REASONING_FIELDS:
        value = delta.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def native_chunk_bytes(chunk: dict[str, Any]) -> bytes:
    """Content then argument pieces, in the order the native accumulator reads them."""
    delta = _delta(chunk)
    parts = [chunk_content(chunk)]
    for piece in delta.get("tool_calls") or []:
        if isinstance(piece, dict):
            args = (piece.get("function") or {}).get("arguments")
            if isinstance(args, str):
                parts.append(args)
    return "".join(parts).encode("utf-8")
