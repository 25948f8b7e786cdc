"""A 1 MiB Markdown reply through the TUI against ``frontier transduce`` (issue 23: ≤ 3×).

The ``markdown`` shape of ``bench/tui_replay.py`` alone: one long reply (headings,
emphasis, lists, tables, fenced python, no call) replayed at full speed in a
headless TUI with the Transcript rendering Markdown as it streams, beside the real
``frontier transduce --summary`` on the same bytes (best of 3) and the bare
transducer in process. Also prints the loop lag (p99 target ≤ 25 ms).
Run: ``.venv/bin/python bench/tui_markdown.py [--mib 1] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import sys

from tui_replay import bench_shape


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=float, default=1.0, help="reply size (default 1 MiB)")
    parser.add_argument("--runs", type=int, default=3, help="replays, each in a fresh app")
    args = parser.parse_args()
    bench_shape("markdown", int(args.mib * (1 << 20)), args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
