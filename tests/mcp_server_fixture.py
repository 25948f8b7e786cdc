"""A tiny MCP stdio server for tests/test_mcp_tools.py, written with the SDK's server API."""

from __future__ import annotations

import asyncio
import os

from mcp.server import MCPServer

server = MCPServer("fixture")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
def env(name: str) -> str:
    """The value of an environment variable in the server, or <unset>."""
    return os.environ.get(name, "<unset>")


@server.tool()
async def slow() -> str:
    """Never answers."""
    await asyncio.Event().wait()
    return "unreachable"


@server.tool()
def boom() -> str:
    """Exits the process mid-call."""
    os._exit(3)


if __name__ == "__main__":
    server.run("stdio")
