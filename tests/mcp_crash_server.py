"""An MCP stdio server for tests/test_mcp_crash.py: ``record`` appends a line to the file
``MCP_MARK`` names (the proof the call reached the server) and then never answers; the
server writes its pid to ``MCP_PID`` so the test can tell it died with the session. It is
the standard-library fixture server (tests/mcp_server_fixture.py) with this one tool."""

from __future__ import annotations

import os
import signal
import time

import mcp_server_fixture as fixture


def record(text: str) -> object:
    """Record the text, then hang (the test kills Frontier meanwhile). With ``MCP_BUSY``
    it hangs inside the call, reading nothing and deaf to SIGTERM: a server busy in a
    long call never sees its stdin close."""
    with open(os.environ["MCP_MARK"], "a", encoding="utf-8") as f:
        f.write(text.strip() + "\n")
    if os.environ.get("MCP_BUSY"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            time.sleep(3600)
    return fixture.SLOW


if __name__ == "__main__":
    fixture.TOOLS.clear()
    fixture.TOOLS["record"] = (
        record,
        record.__doc__ or "",
        fixture.object_schema(text="string"),
        None,
    )
    with open(os.environ["MCP_PID"] + ".tmp", "w", encoding="utf-8") as f:
        f.write(str(os.getpid()))
    os.replace(os.environ["MCP_PID"] + ".tmp", os.environ["MCP_PID"])
    fixture.main()
