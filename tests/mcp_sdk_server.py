"""A tiny MCP server written with the SDK's server API: the tools of
``tests/mcp_server_fixture.py`` (the fast one most tests start), served by the SDK itself, so
that Frontier's host is also tested against the SDK's own server (one stdio test and every
streamable-HTTP one).

``python mcp_sdk_server.py`` serves stdio; ``python mcp_sdk_server.py http`` serves
streamable HTTP on 127.0.0.1, on a port the OS picks: the socket is bound and listening
before the port is printed (one line on stdout), so a test that read it can connect at once.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_server_fixture import connect, echo, env, peek, read_file, write_file
from mcp_types import ToolAnnotations

server = MCPServer("fixture")
# the fast server's own functions where the SDK needs nothing else, in the same order
server.tool()(echo)
server.tool()(env)


@server.tool()
async def slow() -> str:
    """Never answers."""
    await asyncio.Event().wait()
    return "unreachable"


@server.tool()
def boom() -> str:
    """Exits the process mid-call."""
    os._exit(3)


server.tool(annotations=ToolAnnotations(read_only_hint=True))(peek)


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of an HTTP request header as the server received it, or <none>."""
    headers = ctx.headers or {}
    return str(headers.get(name.lower(), "<none>"))


for plain in (read_file, write_file, connect):
    server.tool()(plain)


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called ``name`` and tell the client its tool list changed."""
    server.add_tool(lambda: f"{name} here", name=name, description=f"added {name}")
    await ctx.session.send_tool_list_changed()
    return f"grew {name}"


def serve_http() -> None:
    """Streamable HTTP on a port the OS picks, printed once the socket listens."""
    import anyio
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(sock.getsockname()[1], flush=True)
    app = server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning")
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        serve_http()
    else:
        server.run("stdio")
