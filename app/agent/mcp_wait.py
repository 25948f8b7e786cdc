"""The first request's wait for MCP servers started in the background (docs/mcp.md,
"Starting"): a person's session never waits for a slow server to show its screen or take a
message; its first request waits a short grace for the servers still starting (the whole
start for one marked ``required``), then goes without the tools of any still starting and
says so. Codex and Claude Code settled on the same shape: an optional server must not hold
up the conversation."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from frontier.app.events import Notice
from frontier.app.mcp_status import servers_named

if TYPE_CHECKING:
    from frontier.app.agent.modes import Mode
    from frontier.app.events import Event
    from frontier.tools.mcp_servers import McpHost

MCP_GRACE = 1.0
"""Seconds the first request waits for servers still starting that are not ``required``
(Codex's grace is the same). A person typing a first message gives them far longer."""


def still_starting(names: tuple[str, ...]) -> str:
    """What the person is told when a request goes without servers still starting."""
    many = len(names) > 1
    return (
        f"{servers_named(names)} {'are' if many else 'is'} still starting: this request goes "
        f"without {'their' if many else 'its'} tools, which are offered once "
        f"{'they have' if many else 'it has'} started (required = true in a server's table "
        "makes the first request wait for it)"
    )


def waiting_first(
    host: McpHost,
    emit: Callable[[Event], None],
    settle: Callable[[], Awaitable[Mode | None]] | None,
) -> Callable[[], Awaitable[Mode | None]]:
    """``settle`` (the agent loop's once-before-the-first-request step) with the wait for
    ``host``'s servers beside it: both run at once, and ``settle``'s answer is kept."""

    async def wait() -> None:
        late = await host.wait_started(MCP_GRACE)
        if late:
            emit(Notice(still_starting(late)))

    async def first() -> Mode | None:
        if settle is None:
            await wait()
            return None
        mode, _ = await asyncio.gather(settle(), wait())
        return mode

    return first
