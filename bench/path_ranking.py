"""``@`` completion's ranking at every key, over a large workspace's listing.

    .venv/bin/python bench/path_ranking.py [--paths 20000] [--rounds 5] [--baseline DIR]

Types a sequence of queries a key at a time (with a backspace run and a query that matches
nothing) over ``--paths`` synthetic paths (``src/pkgN/subM/module_I_word.py``, the shape
of a large Python tree), ranking after each key as the prompt does; ms a key, best of
``--rounds``, the listing's own preparation included. ``--baseline DIR``: the same in a
fresh process for an older tree (``git archive`` in ``DIR/frontier``), alternating; a tree
without ``PathRanker`` is timed through ``rank_paths``, which it ranked with at every key.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time

KEYS = ["m", "o", "d", "u", "l", "e", "_", "1", "\b", "\b", "7", "x", "\b", "g", "a", "m"]


def listing(count: int) -> list[str]:
    rng = random.Random(1)
    words = ("alpha", "beta", "gamma")
    return [f"src/pkg{i % 100}/sub{i % 37}/module_{i}_{rng.choice(words)}.py" for i in range(count)]


def one_round(count: int) -> float:
    """Seconds a key, the listing's preparation included."""
    from frontier.widgets import prompt_input

    files = listing(count)
    began = time.perf_counter()
    ranker = getattr(prompt_input, "PathRanker", None)
    rank = ranker(files).rank if ranker is not None else None
    query = ""
    for key in KEYS:
        query = query[:-1] if key == "\b" else query + key
        if rank is not None:
            rank(query)
        else:
            prompt_input.rank_paths(files, query)
    return (time.perf_counter() - began) / len(KEYS)


def measure(tree: str | None, count: int) -> float:
    code = f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
    if tree is not None:
        code += f"sys.path.insert(0, {tree!r}); "
    code += f"import path_ranking; print(path_ranking.one_round({count}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", default=None)
    args = parser.parse_args()
    trees: dict[str, str | None] = {"this tree": None}
    if args.baseline:
        trees["baseline"] = args.baseline
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            got = measure(tree, args.paths)
            best[name] = min(best.get(name, got), got)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"@ completion: {len(KEYS)} keys over {args.paths:,} paths; "
        f"best of {args.rounds}; load {load}"
    )
    for name, seconds in best.items():
        print(f"  {name:<10} {seconds * 1000:6.1f} ms a key")
    if "baseline" in best:
        print(f"  this tree ÷ baseline: {best['this tree'] / best['baseline']:.2f}x")


if __name__ == "__main__":
    main()
