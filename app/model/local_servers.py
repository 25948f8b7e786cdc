"""Model servers already running on this machine, found for the welcome screen.

A person who starts ``frontier`` with nothing configured often has one running: llama.cpp's
``llama-server``, Ollama or LM Studio, each on its usual port. The welcome screen listed
the commands to type; it now also lists what answers, so one key starts a session with it.
Only loopback is asked (``GET /v1/models``, a short timeout, all at once), and only in the
background: the screen never waits for it. ``FRONTIER_LOCAL_SERVERS`` names other roots
(comma-separated), or none (empty: nothing is asked).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping

from frontier.app.model.served_models import served_models
from frontier.app.record import record

LOCAL_SERVERS = (
    "http://127.0.0.1:8080/v1",  # llama.cpp's llama-server
    "http://127.0.0.1:11434/v1",  # Ollama
    "http://127.0.0.1:1234/v1",  # LM Studio
    "http://127.0.0.1:8000/v1",  # vLLM
)
"""Where the usual local servers listen by default (their OpenAI-compatible roots)."""
FIND_TIMEOUT = 1.0
"""Seconds each is given to answer (loopback: a server that is up answers in ms)."""


@record
class LocalServer:
    """One server that answered, and the models it lists."""

    base_url: str
    models: tuple[str, ...]


def candidates(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Where to look: ``FRONTIER_LOCAL_SERVERS`` when it is set (empty: nowhere), else
    :data:`LOCAL_SERVERS`."""
    env = os.environ if env is None else env
    named = env.get("FRONTIER_LOCAL_SERVERS")
    if named is None:
        return LOCAL_SERVERS
    return tuple(url for url in named.replace(",", " ").split() if url)


async def find_local_servers(timeout: float = FIND_TIMEOUT) -> list[LocalServer]:
    """The :func:`candidates` that list at least one model, in their order."""
    urls = candidates()
    asked = (served_models(url, {}, timeout, proxies=False) for url in urls)  # loopback
    listed = await asyncio.gather(*asked)
    return [LocalServer(url, tuple(m)) for url, m in zip(urls, listed, strict=True) if m]
