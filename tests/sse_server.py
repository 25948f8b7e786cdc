"""A real chat-completions endpoint on 127.0.0.1 for tests (aiohttp), scripted per test.

Shared by the provider tests and the loop-over-HTTP tests: the same server, each
file with its own way of choosing a handler.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from aiohttp import web

Dispatch = Callable[[web.Request], Awaitable[web.StreamResponse]]


def sse(obj: Any) -> bytes:
    """One SSE ``data:`` event carrying ``obj`` as JSON."""
    return f"data: {json.dumps(obj)}\n\n".encode()


async def start_sse(request: web.Request) -> web.StreamResponse:
    """Begin a 200 ``text/event-stream`` response; the handler writes the events."""
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    return resp


@asynccontextmanager
async def serve(dispatch: Dispatch, tls: ssl.SSLContext | None = None) -> AsyncIterator[str]:
    """Serve ``POST /v1/chat/completions`` on a free loopback port (over TLS with ``tls``);
    yields the base URL."""
    app = web.Application()
    app.router.add_post("/v1/chat/completions", dispatch)
    runner = web.AppRunner(app, shutdown_timeout=1.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=tls)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}/v1"
    finally:
        await runner.cleanup()


class Sleeps(list[float]):
    """A client's injected ``sleep``: records the backoff instead of waiting it out."""

    async def __call__(self, delay: float) -> None:
        self.append(delay)
