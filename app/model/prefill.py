"""Does an endpoint continue a trailing assistant message? (``prefill`` = auto | on | off)

Anthropic Messages always does (Anthropic's own API never echoes it; another server
speaking the wire may: llama.cpp's ``/v1/messages`` sends the prefix back first, so
there whether it echoes is decided by what the first continuation starts with). For
Chat Completions it depends
on the server: a chat request that ends with an assistant message asks some servers to *continue*
that message rather than answer after it: llama.cpp's ``llama-server`` does so for
any such request (and echoes the message back first), vLLM when the request says
``continue_final_message`` (and ``add_generation_prompt: false``), OpenRouter for
the models it routes. Frontier uses that to resume a CTL response cut by ``length``
from its frontier (docs/protocol.md, "Continuation"); elsewhere a trailing assistant
message would be answered as a finished turn, so the continuation would be a new
reply spliced into the old one — never risked unless the endpoint is known or the
user says ``prefill = on``.

Detection (``auto``), cheapest first, each a GET that never fails the session:
the host (``openrouter.ai``); ``GET /props`` at the server's root (llama.cpp serves it
there, not under ``/v1``); ``GET {base}/models`` naming ``owned_by: "vllm"`` (or
``"llamacpp"``). Anything else: off, and the loop keeps today's resend.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from frontier.app.record import field, record

PrefillSetting = Literal["auto", "on", "off"]
PREFILL_SETTINGS: tuple[PrefillSetting, ...] = ("auto", "on", "off")
VLLM_BODY: Mapping[str, Any] = {"continue_final_message": True, "add_generation_prompt": False}
"""What vLLM needs to continue the last message instead of opening a new one."""


@record
class PrefillSupport:
    """What is known about one endpoint's continuation of an assistant message."""

    enabled: bool
    server: str = ""
    """``llama.cpp``, ``vLLM``, ``OpenRouter``, or empty when unknown."""
    reason: str = ""
    """How it was decided (shown when a continuation is refused or turned off)."""
    body: Mapping[str, Any] = field(default_factory=dict)
    """Request fields a continuation needs (vLLM's ``continue_final_message``)."""
    echo: bool | None = None
    """Whether the server sends the prefix back first: ``None`` until a continuation
    shows it (llama.cpp does in the builds tested; vLLM and OpenRouter do not)."""


class Probing(Protocol):
    """What detection needs of a client (``transport.ModelClient`` has it)."""

    base_url: str
    wire: str

    async def probe_json(self, path: str, *, root: bool = False) -> Any: ...


def openrouter(base_url: str) -> bool:
    try:
        host = (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        return False
    return host == "openrouter.ai" or host.endswith(".openrouter.ai")


def from_props(obj: Any) -> PrefillSupport | None:
    """llama.cpp's ``GET /props`` (its generation settings, slots, model path)."""
    from frontier.app.model.probe import is_llama_cpp

    if is_llama_cpp(obj):
        return PrefillSupport(True, "llama.cpp", "llama.cpp (GET /props answered)")
    return None


def from_models(obj: Any) -> PrefillSupport | None:
    """``GET /v1/models``: vLLM and llama.cpp name themselves in ``owned_by``."""
    data = obj.get("data") if isinstance(obj, dict) else None
    for model in data if isinstance(data, list) else ():
        owner = str(model.get("owned_by", "")).lower() if isinstance(model, dict) else ""
        if owner == "vllm":
            return PrefillSupport(
                True, "vLLM", "vLLM (GET /models: owned_by vllm)", body=dict(VLLM_BODY)
            )
        if owner == "llamacpp":
            return PrefillSupport(True, "llama.cpp", "llama.cpp (GET /models: owned_by llamacpp)")
    return None


ANTHROPIC = PrefillSupport(
    True, "Anthropic", "the Messages API continues a trailing assistant message", echo=False
)
"""Anthropic's API continues a final assistant message by design (it never echoes it)."""
MESSAGES_ELSEWHERE = PrefillSupport(
    True,
    "",
    "the Messages API continues a trailing assistant message; a server other than "
    "Anthropic's may echo it first, which the first continuation tells",
)
"""Another server speaking Anthropic Messages (llama.cpp, a proxy): it continues, and may
echo the prefix first (llama.cpp does: the reply doubled every cut prefix, in the stream
and the stored session, when its echo was taken for the continuation)."""


def anthropic(base_url: str) -> bool:
    """``base_url`` is Anthropic's own API (``api.anthropic.com``)."""
    try:
        host = (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        return False
    return host == "api.anthropic.com"


async def detect_prefill(provider: Probing) -> PrefillSupport:
    """Probe ``provider``'s endpoint (``auto``); off unless the server is one that continues.

    Anthropic Messages continues one by design; on Chat Completions it depends on the
    server; the Responses API cannot take one (the loop never asks there)."""
    if provider.wire == "anthropic-messages":
        return ANTHROPIC if anthropic(provider.base_url) else MESSAGES_ELSEWHERE
    if openrouter(provider.base_url):
        return PrefillSupport(True, "OpenRouter", "OpenRouter (by host)")
    found = from_props(await provider.probe_json("props", root=True))
    if found is None:
        found = from_models(await provider.probe_json("models"))
    if found is not None:
        return found
    return PrefillSupport(
        False,
        reason=f"{provider.base_url} is not known to continue an assistant message (llama.cpp, "
        "vLLM and OpenRouter are); set prefill = on (--prefill on) if it does",
    )


__all__ = [
    "PREFILL_SETTINGS",
    "PrefillSetting",
    "PrefillSupport",
    "anthropic",
    "detect_prefill",
    "from_models",
    "from_props",
    "openrouter",
]
