"""Starting and stopping MCP servers is not undone by a cancel the SDK's scopes send to the
task awaiting them (``despite_stray_cancels``): the wait goes on to its end."""

from __future__ import annotations

import asyncio

import pytest

from frontier.tools.mcp_servers import despite_stray_cancels


async def test_a_stray_cancel_is_taken_back_and_the_result_still_comes() -> None:
    release = asyncio.Event()

    async def slow_stop() -> str:
        await release.wait()
        return "stopped"

    waiter = asyncio.ensure_future(despite_stray_cancels(slow_stop()))
    await asyncio.sleep(0)  # the waiter is awaiting
    waiter.cancel()  # what an anyio scope ended in this task does
    await asyncio.sleep(0)
    assert not waiter.done()
    release.set()
    assert await waiter == "stopped"


async def test_the_awaited_work_itself_cancelled_still_raises() -> None:
    async def never() -> None:
        await asyncio.Event().wait()

    inner = asyncio.ensure_future(never())
    waiter = asyncio.ensure_future(despite_stray_cancels(inner))
    await asyncio.sleep(0)
    inner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
