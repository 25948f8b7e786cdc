"""The workspace walk (grep, glob, ``@`` completion) under a long ``.gitignore``, beside the
same walk with no ``.gitignore`` at all.

    .venv/bin/python bench/gitignore_walk.py [--files 30000] [--rules 315] [--runs 3]
                                             [--per-folder 100] [--nested] [--baseline DIR]

A repository's ``.gitignore`` is often templates put together (Python, Node, the editors,
the OS): a few hundred rules, nearly all a name (``node_modules``), ``*`` and a suffix
(``*.pyc``), a prefix and ``*`` or a path (``docs/_build``). This makes a tree of
``--files`` files (folders of ``--per-folder``, names of a dozen shapes, some of them
ignored) and a root ``.gitignore`` of ``--rules`` such rules (plus a few ``**/`` and ``?``
ones; with ``--nested``, each folder also has a ``.gitignore`` of three rules), then
times, in child processes, alternating: ``gitignore.walk`` over it (the reference: the same
walk with the ``.gitignore`` renamed away), and with ``--baseline`` (``DIR/frontier/...``,
e.g. ``git archive`` of an older commit) that tree's walk. Best and median of ``--runs``;
the number of files each walk yields is printed (they must agree). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WALK = (
    "import sys, time; from pathlib import Path; from frontier.tools.gitignore import walk\n"
    "t = time.perf_counter(); n = sum(1 for _ in walk(Path(sys.argv[1]), '.'))\n"
    "print(time.perf_counter() - t, n)"
)
SUFFIXES = ["py", "js", "ts", "md", "json", "pyc", "log", "tmp", "o", "so", "map", "lock"]


def rules(count: int, rng: random.Random) -> list[str]:
    """Template-like rules: suffixes, names, prefixes, paths, a few of the other shapes."""
    out = [f"*.{ext}" for ext in ("pyc", "log", "tmp", "o", "so", "map")]
    out += ["node_modules/", "dist/", "build/", ".env", ".venv/", "__pycache__/", ".DS_Store"]
    out += ["**/coverage", "docs/_build/", "*.py[co]", "?.swp", "!keep.log"]
    shapes = ("*.gen{i}", "cache_{i}", "out_{i}*", "gen/{i}/", "tmp_{i}/", "*_{i}.bak")
    while len(out) < count:
        out.append(rng.choice(shapes).format(i=len(out)))
    return out[:count]


def make_tree(root: Path, files: int, count: int, per_folder: int, nested: bool) -> None:
    rng = random.Random(46)
    for i in range(files):
        folder = root / f"pkg{i // per_folder}"
        if i % per_folder == 0:
            folder.mkdir()
            if nested:
                (folder / ".gitignore").write_text("local.tmp\n*.gen\nbuild_out/\n")
        ext = rng.choice(SUFFIXES)
        stem = rng.choice(("mod", "test_mod", "cache_7", "out_20x", "keep", "util"))
        (folder / f"{stem}{i}.{ext}").write_text("")
    (root / ".gitignore").write_text("\n".join(rules(count, rng)) + "\n")


def timed(root: Path, env: dict[str, str]) -> tuple[float, int]:
    done = subprocess.run(
        [sys.executable, "-c", WALK, str(root)], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    took, count = done.stdout.split()
    return float(took), int(count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=30_000)
    parser.add_argument("--rules", type=int, default=315)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--per-folder", type=int, default=100, help="files a folder")
    parser.add_argument("--nested", action="store_true", help="a .gitignore in every folder")
    parser.add_argument("--baseline", type=Path, help="an older tree, DIR/frontier/...")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_tree(root, args.files, args.rules, args.per_folder, args.nested)
        env = dict(os.environ)
        arms = {"walk": env}
        if args.baseline:
            arms["walk, baseline"] = {**env, "PYTHONPATH": str(args.baseline.resolve())}
        times: dict[str, list[float]] = {"no .gitignore (ref)": [], **{a: [] for a in arms}}
        counts: dict[str, set[int]] = {name: set() for name in times}
        hidden = root / ".gitignore-away"
        for _ in range(args.runs):
            (root / ".gitignore").rename(hidden)
            took, n = timed(root, env)
            hidden.rename(root / ".gitignore")
            times["no .gitignore (ref)"].append(took)
            counts["no .gitignore (ref)"].add(n)
            for name, arm_env in arms.items():
                took, n = timed(root, arm_env)
                times[name].append(took)
                counts[name].add(n)
        ref = min(times["no .gitignore (ref)"])
        print(
            f"\n{args.files:,} files, a .gitignore of {args.rules} rules; seconds, {args.runs} runs"
        )
        print(f"{'arm':22} {'min':>7} {'p50':>7} {'min / ref':>10}  files yielded")
        for name, values in times.items():
            found = ", ".join(f"{c:,}" for c in sorted(counts[name]))
            ratio = min(values) / ref
            p50 = statistics.median(values)
            print(f"{name:22} {min(values):7.3f} {p50:7.3f} {ratio:9.1f}x  {found}")
        print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
