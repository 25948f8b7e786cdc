"""The models a server lists (``GET {base}/models``), for a session started without
``--model``.

A local server (llama.cpp, Ollama, LM Studio, vLLM) knows what it serves; asking the
person to type it back was the first thing ``frontier --base-url http://127.0.0.1:8080/v1``
did. With one model listed it is used (and said); with several they are named in the
refusal, so the next command can be typed without a second window. The listing is
untrusted: read by :func:`probe.get_json` (size and depth capped), names bounded.
"""

from __future__ import annotations

from collections.abc import Mapping

from frontier.app.model.http import httpx
from frontier.app.model.probe import PROBE_TIMEOUT, endpoint_url, get_json
from frontier.app.model.tls import trust_for

MAX_NAME = 200
"""Characters of a listed name taken as a model's (a longer one is not a name)."""
MAX_MODELS = 1000
"""Names read from one listing."""


def listed_models(body: object) -> list[str]:
    """The model names of an OpenAI-style listing (``{"data": [{"id": …}, …]}``, which
    Anthropic's and every OpenAI-compatible server's ``/models`` share), in its order."""
    data = body.get("data") if isinstance(body, Mapping) else None
    if not isinstance(data, list):
        return []
    names: list[str] = []
    for entry in data[:MAX_MODELS]:
        name = entry.get("id") if isinstance(entry, Mapping) else None
        if (
            isinstance(name, str)
            and 0 < len(name) <= MAX_NAME
            and name.isprintable()  # a model's id; an escape sequence is an attack
            and name not in names
        ):
            names.append(name)
    return names


async def served_models(
    base_url: str,
    headers: Mapping[str, str],
    timeout: float = PROBE_TIMEOUT,
    *,
    proxies: bool = True,
    path: str = "models",
) -> list[str] | None:
    """What ``base_url``'s ``/models`` lists (empty: nothing); ``None`` when it gives no
    JSON answer within ``timeout`` (not running, another kind of server, an error).
    ``proxies=False``: the environment's proxy is not asked (looking on this machine's
    loopback, which no company proxy reaches); ``path``: the listing's path under
    ``base_url`` (``v1/models`` for an Anthropic base URL given without its ``/v1``)."""
    async with httpx.AsyncClient(
        verify=trust_for(base_url), timeout=timeout, trust_env=proxies
    ) as client:
        body = await get_json(client, endpoint_url(base_url, path), headers, timeout)
    return None if body is None else listed_models(body)
