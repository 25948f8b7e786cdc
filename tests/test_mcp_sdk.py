"""The MCP SDK's client imported without its packages' ``__init__`` (tools/mcp_sdk.py,
issue 24): a session that starts a server does not load the SDK's server stack, and a later
``import mcp`` anywhere still gets the real package. In a fresh process: the test worker may
have imported ``mcp`` already."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FIXTURE = Path(__file__).with_name("mcp_server_fixture.py")

SCRIPT = f"""
import sys, tempfile
from pathlib import Path
from frontier.tools.mcp_servers import McpHost
from frontier.tools.mcp_settings import ServerSettings

STACK = {{"starlette", "uvicorn", "sse_starlette"}}
host = McpHost(Path(tempfile.mkdtemp()))
srv = ServerSettings(name="srv", command=sys.executable, args=({str(FIXTURE)!r},))
try:
    tools = host.start([srv])
    print(len(tools), host.notes)
    print(sorted(m for m in sys.modules if m.split(".")[0] in STACK or m.startswith("mcp.server")))
finally:
    host.close()
import mcp
print(mcp.ClientSession is sys.modules["mcp.client.session"].ClientSession)
"""


def test_a_started_server_loads_no_server_stack_and_the_package_stays_whole() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=True
    )
    tools, server_modules, whole = out.stdout.splitlines()[-3:]
    assert tools == "9 []"  # the server started, its nine tools listed
    assert server_modules == "[]"
    assert whole == "True"
