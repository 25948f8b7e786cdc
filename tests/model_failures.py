"""A model client's request against a loopback server that answers as a test tells it to,
and the error the request ends with: the shared ground of the tests of what a failed
request tells the person (tests/test_proxy_hint.py, test_redirects.py,
test_lasting_refusals.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
from aiohttp import web
from sse_server import Sleeps

from frontier.app.model.conversation import UserText
from frontier.app.model.errors import ModelError
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest, ToolSchema

REQUEST = ModelRequest(
    system="",
    items=(UserText("hi"),),
    tools=(ToolSchema("read", "read a file", {"type": "object", "properties": {}}),),
)
"""A request with a tool, as a session in a native mode sends."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@asynccontextmanager
async def answering(handler: Handler) -> AsyncIterator[str]:
    """``handler`` answering every request on a free loopback port, whatever its method and
    path; yields the base URL (``…/v1``)."""
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/v1"
    finally:
        await runner.cleanup()


async def failure(
    url: str, *, api_key: str | None = None, max_retries: int = 0, sleeps: Sleeps | None = None
) -> ModelError:
    """The error :data:`REQUEST` ends with at ``url`` (a Chat Completions client; backoff
    recorded in ``sleeps``, never waited)."""
    from frontier.app.model.transport import ModelClient

    model = ModelClient(
        codec("openai-chat"),
        url,
        "m",
        api_key,
        max_retries=max_retries,
        sleep=Sleeps() if sleeps is None else sleeps,
    )
    try:
        with pytest.raises(ModelError) as info:
            async for _ in model.stream(REQUEST):
                pass
    finally:
        await model.aclose()
    return info.value
