"""A tiny MCP stdio server for the MCP tests, written with the standard library alone.

Why not the SDK's server API: importing it (pydantic, starlette, the SDK) costs ~2 s of CPU
a start on a 2-core machine, and the suite starts this server some thirty times (issue 24:
the suite's time). What is under test is Frontier's host, which talks to this through the
SDK's real client, and the client checks every message it reads. Interoperability with the
SDK's own server is still tested: ``tests/mcp_sdk_server.py`` serves the same tools for one
stdio test and for every streamable-HTTP one.

It speaks newline-delimited JSON-RPC 2.0 on stdin/stdout (the MCP stdio transport) and
answers ``initialize``, ``ping``, ``tools/list`` and ``tools/call`` (``METHODS``); the tools
match the SDK server's, with the same texts. Requests are answered one at a time, in order,
except ``slow``, which is never answered (its cancellation is read and ignored, as the SDK
does for a tool that ignores it). With ``MCP_GATE`` naming a FIFO, nothing is answered
until something is written there: a server as slow to start as a test needs.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

SLOW = object()
"""What ``slow`` returns: the request is never answered."""


def echo(text: str) -> str:
    """Echo the text back."""
    return text


def env(name: str) -> str:
    """The value of an environment variable in the server, or <unset>."""
    return os.environ.get(name, "<unset>")


def slow() -> object:
    """Never answers."""
    return SLOW


def boom() -> str:
    """Exits the process mid-call."""
    os._exit(3)


def peek() -> str:
    """Says it only reads (a hint only a trusted server's word makes a read)."""
    return "peeked"


def read_file(path: str) -> str:
    """A file's text, or the error reading it (for the sandbox tests)."""
    try:
        return Path(path).read_text("utf-8")
    except OSError as exc:
        return f"refused: {type(exc).__name__}"


def write_file(path: str, text: str) -> str:
    """Write a file, or the error writing it (for the sandbox tests)."""
    try:
        Path(path).write_text(text, "utf-8")
    except OSError as exc:
        return f"refused: {type(exc).__name__}"
    return "written"


def connect(port: int) -> str:
    """Connect to 127.0.0.1:port: ``connected`` or the error (for the sandbox's network)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            return "connected"
    except OSError as exc:
        return f"refused: {type(exc).__name__}"


def grow(name: str) -> str:
    """Add a tool called ``name`` and tell the client its tool list changed."""
    TOOLS[name] = (lambda: f"{name} here", f"added {name}", {}, None)
    send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    return f"grew {name}"


def object_schema(**types: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {k: {"type": t} for k, t in types.items()},
        "required": list(types),
    }


def tool(
    fn: Callable[..., object], schema: dict[str, Any], hints: dict[str, Any] | None = None
) -> tuple[Callable[..., object], str, dict[str, Any], dict[str, Any] | None]:
    return fn, fn.__doc__ or "", schema, hints


TOOLS: dict[str, tuple[Callable[..., object], str, dict[str, Any], dict[str, Any] | None]] = {
    "echo": tool(echo, object_schema(text="string")),
    "env": tool(env, object_schema(name="string")),
    "slow": tool(slow, {}),
    "boom": tool(boom, {}),
    "peek": tool(peek, {}, {"readOnlyHint": True}),
    "read_file": tool(read_file, object_schema(path="string")),
    "write_file": tool(write_file, object_schema(path="string", text="string")),
    "connect": tool(connect, object_schema(port="integer")),
    "grow": tool(grow, object_schema(name="string")),
}
"""Each tool: its function, description (its docstring), input schema and annotations."""


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def listed() -> list[dict[str, Any]]:
    tools = []
    for name, (_, description, schema, hints) in TOOLS.items():
        tool: dict[str, Any] = {
            "name": name,
            "description": description,
            "inputSchema": schema or {"type": "object", "properties": {}},
        }
        if hints:
            tool["annotations"] = hints
        tools.append(tool)
    return tools


def called(params: dict[str, Any]) -> object:
    """A ``tools/call`` result, or ``SLOW``."""
    name = params.get("name")
    if name not in TOOLS:
        return {"content": [{"type": "text", "text": f"Unknown tool: {name}"}], "isError": True}
    try:
        out = TOOLS[name][0](**(params.get("arguments") or {}))
    except TypeError as exc:  # missing or unknown arguments
        return {"content": [{"type": "text", "text": str(exc)}], "isError": True}
    if out is SLOW:
        return SLOW
    return {"content": [{"type": "text", "text": str(out)}], "isError": False}


class RpcError(Exception):
    """Answered as a JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def initialize(params: dict[str, Any]) -> object:
    return {
        "protocolVersion": params.get("protocolVersion"),
        "capabilities": {"tools": {"listChanged": True}},
        "serverInfo": {"name": "fixture", "version": "1"},
    }


METHODS: dict[str, Callable[[dict[str, Any]], object]] = {
    "initialize": initialize,
    "ping": lambda params: {},
    "tools/list": lambda params: {"tools": listed()},
    "tools/call": called,
}
"""What each request method answers (a server made from this one may replace one)."""

ANSWERING: list[object] = []
"""The id of the request being answered (for a tool that writes its own reply)."""


def main() -> None:
    gate = os.environ.get("MCP_GATE")
    if gate:  # a FIFO: nothing is answered until the test writes to it (a slow start)
        Path(gate).read_bytes()
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request:  # a notification: initialized, cancelled
            continue
        method = request.get("method")
        ANSWERING[:] = [request["id"]]
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
        if method not in METHODS:
            reply["error"] = {"code": -32601, "message": f"Method not found: {method}"}
        else:
            try:
                result = METHODS[method](request.get("params") or {})
            except RpcError as exc:
                reply["error"] = {"code": exc.code, "message": str(exc)}
            else:
                if result is SLOW:
                    continue
                reply["result"] = result
        send(reply)


if __name__ == "__main__":
    main()
