"""Reading a shell command for what it would destroy (``tools/destructive.py``), by size.

    .venv/bin/python bench/destructive.py [--repeat 5]

The shell tool's prepare reads every command (on the event loop, before the review) for
``rm -rf``, ``git clean`` and the rest. Printed beside the same run's reference, Python's
``shlex.split`` of the same command (what a careful reader would call first), for four
shapes at N and 4N characters: a usual command line, a long one of plain words, one of
``;``-separated tiny commands (the most work per character), a long here-document
(its body is data, skipped by lines), command substitutions nested deep and words that
are variables (both read for a program made at run time). Growth = time at 4N / time at
N: linear is ≈ 4. Best of ``--repeat``, the two alternating (``transducer.best_pair``);
nothing here is a test.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # transducer.py, beside this file
from transducer import best, best_pair

from frontier.tools.destructive import destroys

SHAPES: dict[str, Callable[[int], str]] = {
    "words + rm": lambda n: "echo " + "word " * (n // 5) + "&& rm -rf src",
    "a;a;… + rm": lambda n: "a;" * (n // 2) + " rm -rf src",
    "heredoc + rm": lambda n: "python3 - <<'EOF'\n" + "print(1)\n" * (n // 9) + "EOF\nrm -rf y",
    # stop 66: a program made at run time is looked for in every $(…): read once a level
    "$(…) nested": lambda n: "echo " + "$(echo " * (n // 14) + ")" * (n // 14),
    "$v words": lambda n: "echo " + "$HOME " * (n // 6),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    usual = "cd web && npm test -- --runInBand 2>&1 | tail -n 40 && git status --short"
    ours, ref = best(lambda: destroys(usual), repeat), best(lambda: shlex.split(usual), repeat)
    print(f"{'shape':<14} {'chars':>8} {'destroys':>10} {'shlex.split':>12} {'ratio':>6} growth")
    print(f"{'usual line':<14} {len(usual):>8} {ours * 1e3:>8.3f}ms {ref * 1e3:>10.3f}ms "
          f"{ours / ref:>6.2f}")  # fmt: skip
    for name, make in SHAPES.items():
        previous = None
        for n in (64 * 1024, 256 * 1024):
            command = make(n)
            ours, ref = best_pair(
                lambda c=command: destroys(c), lambda c=command: shlex.split(c), repeat
            )
            growth = f"{ours / previous:.1f}" if previous else ""
            print(f"{name:<14} {len(command):>8} {ours * 1e3:>8.3f}ms {ref * 1e3:>10.3f}ms "
                  f"{ours / ref:>6.2f} {growth}")  # fmt: skip
            previous = ours


if __name__ == "__main__":
    main()
