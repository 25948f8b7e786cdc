"""What a session with an MCP server pays to import the SDK's client, beside the ordinary
import (issue 24: every session with a server paid for the SDK's whole server stack).

    .venv/bin/python bench/mcp_import.py [--runs N]

Each run is a fresh process that imports what ``tools/mcp_servers.py`` needs for a stdio
server: ``frontier.tools.mcp_sdk.load(STDIO)`` (the packages' ``__init__`` skipped), or the
ordinary ``from mcp import ClientSession`` + ``from mcp.client.stdio import stdio_client``
(the reference), alternating so the machine's noise hits both alike; and, for the floor, a
process that imports nothing. Printed: p50 and min per kind (seconds, spawn to exit), the
ratio of each to the ordinary import, and how many modules each loaded. Nothing asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

KINDS = {
    "python -c pass (floor)": "pass",
    "ordinary import (reference)": (
        "from mcp import ClientSession\nfrom mcp.client.stdio import stdio_client\n"
    ),
    "mcp_sdk.load(STDIO)": (
        "from frontier.tools import mcp_sdk\nmcp_sdk.load(mcp_sdk.STDIO)\n"
        "from mcp.client.session import ClientSession\n"
    ),
}
COUNT = "\nimport sys\nprint(len(sys.modules))\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    times: dict[str, list[float]] = {k: [] for k in KINDS}
    modules: dict[str, int] = {}
    print(f"python {sys.version.split()[0]}, load {os.getloadavg()}")
    for _ in range(args.runs):
        for kind, code in KINDS.items():
            began = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-c", code + COUNT], capture_output=True, text=True, check=True
            )
            times[kind].append(time.perf_counter() - began)
            modules[kind] = int(out.stdout.split()[-1])
    ref = statistics.median(times["ordinary import (reference)"])
    print(f"{'kind':30} {'p50':>7} {'min':>7} {'p50 ÷ ordinary':>15} {'modules':>8}")
    for kind, runs in times.items():
        p50 = statistics.median(runs)
        print(f"{kind:30} {p50:7.3f} {min(runs):7.3f} {p50 / ref:14.2f}x {modules[kind]:8d}")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
