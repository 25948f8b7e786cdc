"""``@`` completion's search past a cut listing, beside the listing itself, on disk.

    .venv/bin/python bench/path_search.py [--files 160000] [--rounds 3]

Makes a tree of ``--files`` files (folders of 250, ``dN/fM.py``; a ``.gitignore`` and an
ignored folder) in a temporary directory, then times, best of ``--rounds``, alternating:
``workspace_files(root)`` — the listing ``@`` takes at its first key, cut at
``COMPLETION_MAX`` (the reference) — and ``search_files(root, query)`` — the whole tree,
uncut, keeping the paths that hold the query's letters in order — for a query that matches
a few paths, one that matches many (capped at ``SEARCH_MAX``) and one that matches none.
Walks are warm (the tree was just made). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from frontier.app.agent.attachments import COMPLETION_MAX, SEARCH_MAX, search_files, workspace_files

PER_FOLDER = 250


def make_tree(root: Path, files: int) -> None:
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    for i in range(1000):
        (root / "build" / f"g{i}.py").write_text("")
    for i in range(files):
        folder = root / f"d{i // PER_FOLDER}"
        if i % PER_FOLDER == 0:
            folder.mkdir()
        (folder / f"f{i % PER_FOLDER}.py").write_text("")


def best(fn: Callable[[], object], rounds: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(rounds):
        began = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - began)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=160_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="frontier-search-") as tmp:
        root = Path(tmp)
        make_tree(root, args.files)
        last = args.files - 1
        few = f"d{last // PER_FOLDER}f{last % PER_FOLDER}"  # the last file, past any cut
        cases: list[tuple[str, Callable[[], object]]] = [
            (f"listing (cut at {COMPLETION_MAX:,})", lambda: workspace_files(root)),
            (f"search {few!r} (few)", lambda: search_files(root, few)),
            ("search 'f1' (many)", lambda: search_files(root, "f1")),
            ("search 'zzz' (none)", lambda: search_files(root, "zzz")),
        ]
        results: dict[str, list[float]] = {name: [] for name, _ in cases}
        sizes: dict[str, str] = {}
        for _ in range(args.rounds):
            for name, fn in cases:
                took, out = best(fn, 1)
                results[name].append(took)
                if isinstance(out, tuple):
                    found, complete = out
                    sizes[name] = f"{len(found):,} paths{'' if complete else ' (capped)'}"
                else:
                    sizes[name] = f"{len(out):,} paths"  # type: ignore[arg-type]
        ref = min(results[cases[0][0]])
        print(f"{args.files:,} files (+1,000 ignored), best of {args.rounds}, alternating")
        print(f"{'case':<34} {'ms':>8} {'÷ listing':>10}   found (SEARCH_MAX {SEARCH_MAX:,})")
        for name, _ in cases:
            took = min(results[name])
            print(f"{name:<34} {took * 1000:8.1f} {took / ref:9.2f}x   {sizes[name]}")


if __name__ == "__main__":
    main()
