"""The welcome screen's first paint (``frontier`` with nothing configured), against a
baseline tree in the same run, alternating.

The screen asks the usual local model servers for their models in the background
(``app/model/local_servers.py``) and imports httpx for it on a thread: this checks the
paint does not wait for either. Figures: docs/BENCHMARKS.md.

    env -u PYTHONDONTWRITEBYTECODE .venv/bin/python bench/welcome_paint.py --runs 9 --baseline DIR
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from pty_screen import on_a_pty, read_until

DEADLINE = 60.0


def one(root: Path, baseline: str | None) -> float:
    """Seconds from spawn to the welcome's title on a 120x40 pty; then ``q``."""
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
    env["FRONTIER_DATA_DIR"] = str(root / "data")
    env["FRONTIER_CONFIG_DIR"] = str(root / "config")
    for name in ("TEXTUAL_DRIVER", "FRONTIER_LOCAL_SERVERS", "FRONTIER_BASE_URL"):
        env.pop(name, None)
    if baseline:
        env["PYTHONPATH"] = baseline
        env["PYTHONPYCACHEPREFIX"] = str(root / "pycache-baseline")
    began = time.monotonic()
    with on_a_pty([sys.executable, "-m", "frontier.app.cli"], env) as (pid, fd):
        read_until(fd, b"Welcome", began + DEADLINE)
        took = time.monotonic() - began
        os.write(fd, b"q")
        read_until(fd, b"\x1b[?1049l", time.monotonic() + DEADLINE)
        os.waitpid(pid, 0)
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--baseline", help="a tree to compare (its parent of frontier/)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rows: dict[str, list[float]] = {"this tree": [], "baseline": []}
        for _ in range(args.runs):
            rows["this tree"].append(one(root, None))
            if args.baseline:
                rows["baseline"].append(one(root, str(Path(args.baseline).resolve())))
    print(f"welcome screen first paint, {args.runs} runs, alternating; seconds")
    for name, took in rows.items():
        if took:
            print(f"{name:<10} p50 {statistics.median(took):.3f}  min {min(took):.3f}")


if __name__ == "__main__":
    main()
