"""The context Ollama runs a model with, from its own API beside ``/v1``.

Why: Ollama's OpenAI endpoint reports no window, so a session took the catalogue's (the
model's published 32,768 or 131,072 tokens), while Ollama runs it with the context it
allots, by default 4,096 tokens on a machine with under 24 GiB of video memory, and drops
what does not fit without a word: the history was cut by the server while the status bar
said 20 % used. ``GET /api/ps`` lists each loaded model with its ``context_length``; a
model not loaded yet is loaded first (``POST /api/generate`` with no prompt, as the first
request would), then asked again. Anything else (not Ollama, an error, a timeout) says
nothing, and the window is found as before.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from frontier.app.model.http import httpx
from frontier.app.model.probe import WindowInfo, endpoint_url, get_json

SOURCE = "GET /api/ps context_length: what Ollama runs it with; OLLAMA_CONTEXT_LENGTH sets it"


def is_ollama(ps: object) -> bool:
    """Whether ``GET /api/ps`` answered as Ollama does (``{"models": [...]}``)."""
    return isinstance(ps, Mapping) and isinstance(ps.get("models"), list)


def running_window(ps: object, model: str) -> int | None:
    """The ``context_length`` of ``model`` among the loaded models of ``GET /api/ps``
    (``qwen2.5-coder`` is ``qwen2.5-coder:latest`` there)."""
    if not is_ollama(ps) or not model:
        return None
    assert isinstance(ps, Mapping)
    names = {model, f"{model}:latest", model.removesuffix(":latest")}
    for entry in ps["models"]:
        if not isinstance(entry, Mapping):
            continue
        if entry.get("name") in names or entry.get("model") in names:
            tokens = entry.get("context_length")
            if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
                return tokens
    return None


async def ollama_window(
    client: httpx.AsyncClient,
    base_url: str,
    model: str,
    ps: object,
    headers: Mapping[str, str] | None,
    *,
    probe_timeout: float,
    load_timeout: float,
) -> WindowInfo | None:
    """The window Ollama runs ``model`` with, ``ps`` being its first ``GET /api/ps``
    answer; ``None`` when the server is not Ollama or will not say. Never raises."""
    tokens = running_window(ps, model)
    if (
        tokens is None
        and is_ollama(ps)
        and await _load(client, base_url, model, headers, load_timeout)
    ):
        again = await get_json(
            client, endpoint_url(base_url, "api/ps", root=True), headers, probe_timeout
        )
        tokens = running_window(again, model)
    return WindowInfo(tokens, SOURCE) if tokens else None


async def ollama_tools(
    client: httpx.AsyncClient,
    base_url: str,
    model: str,
    headers: Mapping[str, str] | None,
    timeout: float,
) -> bool | None:
    """Whether Ollama says ``model`` takes tools (``POST /api/show``: ``"tools"`` among its
    ``capabilities``, which Ollama reads off the model's template); ``None`` when it does
    not say. A model the catalogue does not know (a new one, a fine-tune, a custom
    Modelfile) was taught the text protocol though Ollama would have run its calls."""
    url = endpoint_url(base_url, "api/show", root=True)
    shown = await get_json(client, url, headers, timeout, post={"model": model})
    capabilities = shown.get("capabilities") if isinstance(shown, dict) else None
    return "tools" in capabilities if isinstance(capabilities, list) else None


async def _load(
    client: httpx.AsyncClient,
    base_url: str,
    model: str,
    headers: Mapping[str, str] | None,
    timeout: float,
) -> bool:
    """Load ``model`` (``POST /api/generate`` without a prompt): whether it answered 200."""
    url = endpoint_url(base_url, "api/generate", root=True)
    body: dict[str, Any] = {"model": model, "stream": False}
    with contextlib.suppress(Exception):  # never fatal: the probe only helps
        response = await client.post(url, json=body, headers=dict(headers or {}), timeout=timeout)
        await response.aclose()
        return response.status_code == 200
    return False
