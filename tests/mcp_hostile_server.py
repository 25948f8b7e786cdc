"""A hostile MCP stdio server for tests/test_mcp_hostile.py, written with the SDK's server API:
a result of 50 MB, a tool that never answers, one that exits the process mid-call, a tool
whose name has control characters, a ``list_changed`` flood and (``deep`` on the command
line, then a number of levels) a tool whose input schema nests that deep: 200 levels is
more than the SDK's own server can send (it answers ``tools/list`` with an error), 100 more
than the SDK's client can read, 60 what reaches Frontier's own bound."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import Tool

DEEP = int(sys.argv[2]) if sys.argv[1:2] == ["deep"] else 0
BAD_NAME = "evil\x1b[31m\x07name"


class Hostile(MCPServer):
    """Lists, beside its real tools, the ones no decorator would make."""

    async def list_tools(self) -> list[Any]:
        tools = list(await super().list_tools())
        tools.append(Tool(name=BAD_NAME, input_schema={"type": "object"}))
        if DEEP:
            tools.append(Tool(name="deep", input_schema=deep_schema(DEEP)))
        return tools


def deep_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    node = schema
    for _ in range(levels):
        child: dict[str, Any] = {"type": "object"}
        node["properties"] = {"x": child}
        node = child
    return schema


server = Hostile("hostile")


@server.tool()
def ok(text: str) -> str:
    """A well-behaved tool, to show the session still works."""
    return text


@server.tool(structured_output=False)
def huge() -> str:
    """A result of 50 MB, with markers at both ends."""
    return "HEAD" + "x" * (50 * 1024 * 1024) + "TAIL"


@server.tool()
async def hang() -> str:
    """Never answers."""
    await asyncio.Event().wait()
    return "unreachable"


@server.tool()
def die() -> str:
    """Exits the process mid-call."""
    os._exit(7)


@server.tool()
async def flood(count: int, ctx: Context) -> str:
    """300 more tools (more than a client takes), then ``count``
    ``notifications/tools/list_changed``."""
    for i in range(300):
        server.add_tool(lambda: "flooded", name=f"f{i}", description="flood")
    for _ in range(count):
        await ctx.session.send_tool_list_changed()
    return f"sent {count}"


if __name__ == "__main__":
    server.run("stdio")
