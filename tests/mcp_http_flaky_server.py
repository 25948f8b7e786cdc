"""A hand-written MCP server over streamable HTTP (JSON answers, no SSE) for
tests/test_mcp_http.py: its tool ``flaky`` answers ``tools/call`` with what the argument
``how`` names (an HTTP 500, an HTML page, a body that is no JSON-RPC response); ``ok``
answers properly. Under ``/signin/`` every request is refused with a 401, as a server that
wants an OAuth sign-in refuses one without a token. Prints its port, then serves until killed."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

WRONG = {
    "500": (500, "text/plain", b"boom"),
    "html": (200, "text/html", b"<html>sign in</html>"),
    "nojsonrpc": (200, "application/json", b'{"id": ID, "result": {}}'),
}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:  # no server-sent stream of its own
        self._answer(405, "text/plain", b"")

    def do_DELETE(self) -> None:
        self._answer(200, "text/plain", b"")

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if self.path.startswith("/signin/"):  # a server that wants an OAuth sign-in
            self._answer(401, "application/json", b'{"error": "invalid_token"}')
            return
        if "id" not in body:
            self._answer(202, "text/plain", b"")
            return
        method, params = body["method"], body.get("params") or {}
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "flaky", "version": "1"},
            }
        elif method == "tools/list":
            schema = {"type": "object", "properties": {"how": {"type": "string"}}}
            result = {"tools": [{"name": n, "inputSchema": schema} for n in ("flaky", "ok")]}
        elif method == "tools/call" and params["name"] == "flaky":
            status, kind, data = WRONG[params["arguments"]["how"]]
            self._answer(status, kind, data.replace(b"ID", str(body["id"]).encode()))
            return
        else:
            result = {"content": [{"type": "text", "text": "fine"}]}
        answer = {"jsonrpc": "2.0", "id": body["id"], "result": result}
        self._answer(200, "application/json", json.dumps(answer).encode())

    def _answer(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
