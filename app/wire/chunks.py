"""Reading one ``chat.completion.chunk``: the fields a stream carries text in.

The mode adapter (what the transducer reads), the recorder (a recording's text-mode
input) and the secret scrubber (what to mask) all read the same fields; each used
to spell ``choices[0].delta.content`` out itself.
"""

from __future__ import annotations

from typing import Any

from frontier.app.wire import safejson

REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Where servers stream reasoning: DeepSeek, llama.cpp, vLLM (``reasoning_content``);
OpenRouter, vLLM's newer API, Ollama's OpenAI endpoint (``reasoning``). The first
one present wins (vLLM sends both with the same text during its migration)."""
TEXT_FIELDS = ("content", *REASONING_FIELDS, "refusal")
"""Every ``choices[i].delta`` field that streams text."""


def delta(chunk: dict[str, Any]) -> dict[str, Any]:
    """``choices[0].delta`` of a parsed chunk, or ``{}`` (usage chunks, junk)."""
    choices = chunk.get("choices") or []
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return {}
    found = choices[0].get("delta") or {}
    return found if isinstance(found, dict) else {}


def content(chunk: dict[str, Any]) -> str:
    """The assistant text this chunk adds (what the text modes' transducers read)."""
    text = delta(chunk).get("content")
    return text if isinstance(text, str) else ""


def reasoning(chunk: dict[str, Any]) -> str:
    """The reasoning text this chunk adds (shown and recorded, never transduced)."""
    found = delta(chunk)
    for name in REASONING_FIELDS:
        value = found.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def native_bytes(chunk: dict[str, Any]) -> bytes:
    """Content then argument pieces, in the order the native accumulator reads them."""
    found = delta(chunk)
    text = found.get("content")
    parts = [text if isinstance(text, str) else ""]
    for piece in found.get("tool_calls") or []:
        if isinstance(piece, dict):
            args = (piece.get("function") or {}).get("arguments")
            if isinstance(args, str):
                parts.append(args)
    return "".join(parts).encode("utf-8")


def data_content(data: str) -> str:
    """:func:`content` of one SSE ``data`` string, or ``""`` (``[DONE]``, junk, too deep)."""
    try:
        chunk = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
    except ValueError:
        return ""
    return content(chunk) if isinstance(chunk, dict) else ""
