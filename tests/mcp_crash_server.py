"""An MCP stdio server for tests/test_mcp_crash.py: ``record`` appends a line to the file
``MCP_MARK`` names (the proof the call reached the server) and then never answers; the
server writes its pid to ``MCP_PID`` so the test can tell it died with the session."""

from __future__ import annotations

import asyncio
import os

from mcp.server import MCPServer

server = MCPServer("crash")


@server.tool()
async def record(text: str) -> str:
    """Record the text, then hang (the test kills Frontier meanwhile)."""
    with open(os.environ["MCP_MARK"], "a", encoding="utf-8") as f:
        f.write(text.strip() + "\n")
    await asyncio.Event().wait()
    return "unreachable"


if __name__ == "__main__":
    with open(os.environ["MCP_PID"] + ".tmp", "w", encoding="utf-8") as f:
        f.write(str(os.getpid()))
    os.replace(os.environ["MCP_PID"] + ".tmp", os.environ["MCP_PID"])
    server.run("stdio")
