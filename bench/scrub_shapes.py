"""``Scrubber.scrub`` on 1 MB of ordinary and of credential-dense text (stop 70).

    .venv/bin/python bench/scrub_shapes.py [--runs 5] [--baseline DIR]

What is shown and stored passes through ``scrub`` (known values, then credentials by
their shape: ``Bearer …``, ``api_key=…``, ``"token": "…"``). Three texts of 1 MB: Python
source (no shape's anchor, the common case), ``NAME=value`` lines and JSON lines holding
credential-named fields. Best of ``--runs``, in-process; ``--baseline DIR`` (a tree holding
``frontier/``) runs the same in a child with ``PYTHONPATH=DIR`` right after, its rows
under ours.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

SOURCE = Path(argparse.__file__).read_text(encoding="utf-8")
TEXTS = {
    "python source": (SOURCE * (1_000_000 // len(SOURCE) + 1))[:1_000_000],
    "NAME=value lines": (
        "API_KEY=abc123def456 --api-key=xyz789abc123 token=q1w2e3r4t5y6 path=/a/b\n" * 14_000
    )[:1_000_000],
    "JSON with keys": (
        '{"name": "x", "value": 12345, "api_key": "k-1234567890", "n": "a_b_c_d"}\n' * 14_000
    )[:1_000_000],
}


def rows(runs: int) -> list[tuple[str, float]]:
    from frontier.app.secrets import Scrubber

    scrubber = Scrubber()
    scrubber.add("sk-proj-abcdefghijklmnop0123456789")
    out = []
    for name, text in TEXTS.items():
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            scrubber.scrub(text)
            times.append(time.perf_counter() - start)
        out.append((name, min(times)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    suffix = ", baseline" if args.child else ""
    for name, took in rows(args.runs):
        print(f"{name + suffix:28} scrub {took * 1000:7.1f} ms")
    if args.baseline is not None:
        env = {**os.environ, "PYTHONPATH": str(args.baseline)}
        command = [sys.executable, __file__, "--runs", str(args.runs), "--child"]
        subprocess.run(command, env=env, check=True)


if __name__ == "__main__":
    main()
