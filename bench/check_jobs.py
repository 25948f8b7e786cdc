"""``frontier check SESSION`` of a long stored session: a process per CPU against one.

    .venv/bin/python bench/check_jobs.py [--responses 1000] [--runs 3]

A session of ``--responses`` responses, each a native ``read`` call (then one closing
answer), is made once by ``frontier run`` against ``bench/wires.py``'s loopback server in a
temporary data dir; then ``frontier check SESSION`` (the default: a process per CPU past
256 KiB) and ``frontier check -j 1 SESSION`` (one process) run alternately ``--runs``
times each, whole process, and their outputs are compared byte for byte.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import wires  # bench/wires.py: its loopback server and argv


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--responses", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="frontier-check-jobs-") as tmp:
        root = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("FRONTIER_")}
        env |= {
            "FRONTIER_DATA_DIR": str(root / "data"),
            "FRONTIER_CONFIG_DIR": str(root / "config"),
            "FRONTIER_API_KEY": "bench-key",
        }
        session = wires.make_session(root, env, args.responses, native=True)
        cases = {
            f"check (a process per CPU, {os.cpu_count()})": ["check", session],
            "check -j 1 (one process)": ["check", "-j", "1", session],
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        outputs: dict[str, bytes] = {}
        load = os.getloadavg()
        for _ in range(args.runs):
            for name, tail in cases.items():
                t0 = time.perf_counter()
                done = subprocess.run(
                    [*wires.frontier_argv(), *tail], env=env, capture_output=True, check=False
                )
                times[name].append(time.perf_counter() - t0)
                outputs[name] = done.stdout
        lines = len(next(iter(outputs.values())).splitlines())
        same = len(set(outputs.values())) == 1
        print(
            f"frontier check of a stored session of {args.responses} responses ({lines} lines, "
            f"outputs {'identical' if same else 'DIFFER'}); {args.runs} runs alternating; "
            f"seconds; load {load[0]:.2f} → {os.getloadavg()[0]:.2f}"
        )
        ref = statistics.median(times["check -j 1 (one process)"])
        for name, values in times.items():
            p50 = statistics.median(values)
            print(f"  {name:<34} p50 {p50:7.3f}  min {min(values):7.3f}  ÷ one {p50 / ref:5.2f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
