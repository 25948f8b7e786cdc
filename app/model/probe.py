"""Asking the server beside a wire's endpoint: the model's context window, its props.

Asked once per session, before its first request, with a short timeout, and never
fatal: an answer that says nothing leaves the window to the configuration or the
documented default (``agent/budget.py``, docs/context-budget.md). Two places are read,
both with the provider's own client and headers (its key, its transport):

- llama.cpp's ``GET /props`` (at the server root, beside ``/v1``):
  ``default_generation_settings.n_ctx`` — the context of *one slot*, which is what a
  request gets (``-c 8192 -np 2`` gives 4096); older builds put ``n_ctx`` at the top;
- ``GET {base}/models``, the entry for the model (or the only one): vLLM's
  ``max_model_len``, OpenRouter's and others' ``context_length`` / ``context_window`` /
  ``max_context_length``, llama.cpp's ``meta.n_ctx`` (else its training length
  ``meta.n_ctx_train``, the least certain figure).

llama.cpp's ``/props`` wins when both answer (it is per slot); the two requests run
concurrently, so a server that answers neither costs one timeout at most.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from frontier.app.model.http import httpx
from frontier.app.record import record
from frontier.app.wire import safejson

PROBE_TIMEOUT = 3.0
"""Seconds for each of the two look-ups (they run at the same time)."""
BODY_CAP = 1 << 20
"""Bytes of a look-up's answer read at most (a /models listing can be long)."""
MODEL_KEYS = (
    "max_model_len",
    "context_length",
    "context_window",
    "max_context_length",
    "max_input_tokens",
)
"""Keys of a ``/models`` entry that give the window, most specific first: vLLM's,
OpenRouter's, …, and Anthropic's ``max_input_tokens`` (its ``/v1/models`` says every
Claude's window, the newest too)."""


@record
class WindowInfo:
    """A window the server told, and where it said so (for notes and docs)."""

    tokens: int
    source: str
    """``GET /props default_generation_settings.n_ctx`` and the like."""


def endpoint_url(base_url: str, path: str, *, root: bool = False) -> str:
    """``base_url`` + ``/path``, keeping the base URL's query after the new path; with
    ``root``, the server root's ``/path`` (the base URL's trailing ``/v1`` dropped).

    ``https://h/v1?api-version=2024-01`` → ``https://h/v1/chat/completions?api-version=2024-01``
    (string concatenation would put the path inside the query). User-info stays: httpx
    turns it into Basic auth.
    """
    try:
        parts = urlsplit(base_url.strip())
    except ValueError:  # unparseable: httpx says why when the request is built
        return f"{base_url.rstrip('/')}/{path}"
    base = parts.path.rstrip("/")
    if root:
        base = base.removesuffix("/v1")
    return urlunsplit((parts.scheme, parts.netloc, f"{base}/{path}", parts.query, ""))


def window_from_props(obj: object) -> int | None:
    """llama.cpp's ``/props``: the per-slot ``n_ctx``."""
    if not isinstance(obj, Mapping):
        return None
    settings = obj.get("default_generation_settings")
    if isinstance(settings, Mapping) and _tokens(settings.get("n_ctx")):
        return _tokens(settings.get("n_ctx"))
    return _tokens(obj.get("n_ctx"))


def _entries(obj: object) -> list[Mapping[str, Any]]:
    """The model entries of a ``/models`` listing (``data`` a list) or of one model's page
    (``GET /models/{id}``: OpenRouter's ``data`` is the one entry; Anthropic's and
    OpenAI's page is the entry itself)."""
    data = obj.get("data") if isinstance(obj, Mapping) else None
    if isinstance(data, Mapping):
        return [data]
    if data is None and isinstance(obj, Mapping) and isinstance(obj.get("id"), str):
        return [obj]
    return [e for e in data if isinstance(e, Mapping)] if isinstance(data, list) else []


def _named(entry: Mapping[str, Any], model: str) -> bool:
    return bool(model) and model in (
        entry.get("id"),
        entry.get("name"),
        entry.get("canonical_slug"),
    )


def lists_model(obj: object, model: str) -> bool:
    """Whether a ``/models`` answer has an entry for ``model`` (then its page says no more)."""
    return any(_named(entry, model) for entry in _entries(obj))


def window_from_models(obj: object, model: str) -> tuple[int, str] | None:
    """A ``/models`` listing or one model's page: the window of ``model`` (or of the only
    model there) and the key that gave it."""
    entries = _entries(obj)
    named = [e for e in entries if _named(e, model)]
    picked = named or (entries if len(entries) == 1 else [])
    for entry in picked:
        for key in MODEL_KEYS:
            if _tokens(entry.get(key)):
                return _tokens(entry.get(key)) or 0, key
        meta = entry.get("meta")
        if isinstance(meta, Mapping):
            for key in ("n_ctx", "n_ctx_train"):
                if _tokens(meta.get(key)):
                    return _tokens(meta.get(key)) or 0, f"meta.{key}"
    return None


def tools_from_models(obj: object, model: str) -> bool | None:
    """Whether a ``/models`` listing or the model's page says ``model`` takes tools:
    OpenRouter's ``supported_parameters`` of the model's entry, which names ``tools`` when
    it does; ``None`` when the entry is not there or says nothing."""
    for entry in _entries(obj):
        if _named(entry, model):
            said = entry.get("supported_parameters")
            return "tools" in said if isinstance(said, list) else None
    return None


def window_from(props: object, models: object, model: str) -> WindowInfo | None:
    """The window ``/props`` and ``/models`` (their bodies, ``None`` where absent) tell:
    llama.cpp's per-slot ``n_ctx`` first, else the model's ``/models`` entry."""
    tokens = window_from_props(props)
    if tokens:
        return WindowInfo(tokens, "GET /props default_generation_settings.n_ctx")
    found = window_from_models(models, model)
    if found:
        return WindowInfo(found[0], f"GET /models {found[1]}")
    return None


def is_llama_cpp(props: object) -> bool:
    """Whether a ``GET /props`` answer is llama.cpp's (its generation settings, slots or
    model path): the one test prefill detection and the prompt-progress request share."""
    return isinstance(props, Mapping) and (
        "default_generation_settings" in props or "total_slots" in props or "model_path" in props
    )


def tools_from_props(props: object) -> bool | None:
    """Whether llama.cpp's ``GET /props`` says its chat template renders tools (newer
    builds: ``chat_template_caps.supports_tools``; older: the template names ``tools``);
    ``None`` when the answer says nothing either way."""
    if not isinstance(props, dict):
        return None
    caps = props.get("chat_template_caps")
    if isinstance(caps, dict) and isinstance(caps.get("supports_tools"), bool):
        return bool(caps["supports_tools"])
    template = props.get("chat_template")
    if isinstance(template, str) and template:
        return "tools" in template
    return None


async def get_json(
    client: httpx.AsyncClient,
    url: str,
    headers: Mapping[str, str] | None,
    timeout: float,
    *,
    post: Mapping[str, Any] | None = None,
) -> Any:
    """The JSON body of ``GET url`` (``POST`` of ``post`` when given), or ``None`` for
    anything else (errors included): read at most ``BODY_CAP`` bytes and parsed with the
    envelope depth limit, since a server's answer is untrusted input like its stream."""
    with contextlib.suppress(Exception):  # never fatal: a probe only helps
        async with asyncio.timeout(timeout):
            request = client.build_request(
                "GET" if post is None else "POST",
                url,
                headers={**(headers or {}), "Accept": "application/json"},
                json=post,
            )
            response = await client.send(request, stream=True)
            try:
                if response.status_code != 200:
                    return None
                body = bytearray()
                async for piece in response.aiter_bytes():
                    body += piece
                    if len(body) > BODY_CAP:
                        return None
                text = body.decode("utf-8", "replace")
                return safejson.loads(text, max_depth=safejson.ENVELOPE_DEPTH)
            finally:
                await response.aclose()
    return None


def _tokens(value: object) -> int | None:
    """A window size as a server sends it (an int > 0, sometimes a numeric string)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip()) or None
    return None


__all__ = [
    "PROBE_TIMEOUT",
    "WindowInfo",
    "endpoint_url",
    "get_json",
    "window_from",
    "window_from_models",
    "window_from_props",
]
