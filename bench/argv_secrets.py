"""Reading an MCP server's command line for its secrets, on hostile input (stop 70).

    .venv/bin/python bench/argv_secrets.py                        # 80 KB and 1 MB, best of 3
    .venv/bin/python bench/argv_secrets.py --kb 80,1000,4000 --runs 3

A project's ``.frontier/mcp.toml`` is untrusted: its ``args`` are read for secrets
(``secret_shapes.hidden_argv`` and ``argv_secrets``) wherever its command line is shown
and when a session starts. Each row: one command line of a given shape and size, read
by both, best of ``--runs``; beside it the same run's reference, ``shlex.join`` of the
same words (what showing the line costs anyway), and the ratio. A first version took
25 s for one 80 KB word (a URL pattern retried at every letter).
"""

from __future__ import annotations

import argparse
import shlex
import time
from collections.abc import Callable

from frontier.app.secret_shapes import argv_secrets, hidden_argv

SHAPES: dict[str, Callable[[int], list[str]]] = {
    "one word of x": lambda n: ["x" * n],
    "one word ab12…": lambda n: ["ab12" * (n // 4)],
    "one word -a-a…": lambda n: ["-a" * (n // 2)],
    "a script a b …": lambda n: ["a b " * (n // 4)],
    "100-char words": lambda n: [("w " * 50)] * (n // 100),
    "--api-key pairs": lambda n: ["--api-key", "sk-proj-0123456789abcdef"] * (n // 34),
}


def best(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", default="80,1000", help="sizes in KB, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'shape':16} {'size':>7} {'read':>9} {'shlex.join':>11} {'ratio':>7}")
    for kb in (int(k) for k in args.kb.split(",")):
        for name, make in SHAPES.items():
            words = make(kb * 1000)
            read = best(lambda w=words: (hidden_argv(w), argv_secrets(w)), args.runs)
            ref = best(lambda w=words: shlex.join(w), args.runs)
            print(
                f"{name:16} {kb:>5}KB {read * 1000:>7.1f}ms {ref * 1000:>9.1f}ms {read / ref:>7.1f}"
            )


if __name__ == "__main__":
    main()
