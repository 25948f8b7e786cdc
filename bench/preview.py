"""The approval preview of a ``write``, with the old SequenceMatcher diff in the same run.

    .venv/bin/python bench/preview.py [--lines 5000,20000,80000] [--shape alternate]
                                      [--repeats 3] [--old-limit 120]

For each size, a file of N lines is rewritten by ``write`` with a new content (the
``--shape``): ``alternate`` changes every other line (the issue's case), ``rewrite``
changes every line, ``repeats`` changes every other line of a file made of 8 distinct
lines (no line is unique: no anchors, the costliest case for the new diff), ``one``
changes one line in the middle (the common case, difflib-identical). ``WriteTool.prepare``
runs as the boundary runs it (read, hash, diff, render), first with today's diff
(``diffing.text_opcodes``), then with the old one (``SequenceMatcher`` on the whole changed
middle, as ``difflib_opcodes`` did before) patched in — the old run happens in a child
process killed after ``--old-limit`` seconds, since it is quadratic. Both previews are
checked to apply exactly to the old bytes and give the new ones. Printed: the median
time of each, their ratio, the growth for 4x the input, and the size of each diff.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing as mp
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from frontier.tools import diffing
from frontier.tools.contract import ToolContext
from frontier.tools.edit import WriteTool


def texts(shape: str, n: int) -> tuple[str, str]:
    if shape == "repeats":
        old = [f"line {i % 8}" for i in range(n)]
    else:
        old = [f"row {i} of the file, some text" for i in range(n)]
    if shape == "alternate" or shape == "repeats":
        new = [f"changed {i}" if i % 2 else line for i, line in enumerate(old)]
    elif shape == "rewrite":
        new = [f"changed {i}" for i in range(n)]
    else:
        new = list(old)
        new[n // 2] = "the one change"
    return "\n".join(old) + "\n", "\n".join(new) + "\n"


def old_opcodes(a: Sequence[str], b: Sequence[str]) -> list[diffing.Op]:
    """The diff before this change: prefix and suffix stripped, SequenceMatcher on the rest."""
    from difflib import SequenceMatcher

    la, lb = len(a), len(b)
    p = diffing._common_prefix(a, b)
    s = diffing._common_suffix(a, b, min(la, lb) - p)
    ops: list[diffing.Op] = [("equal", 0, p, 0, p)] if p else []
    ma, mb = la - s - p, lb - s - p
    if ma and mb:
        matcher = SequenceMatcher(None, a[p : la - s], b[p : lb - s])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            ops.append((tag, i1 + p, i2 + p, j1 + p, j2 + p))
    elif ma or mb:
        ops.append((diffing._tag(p, la - s, p, lb - s), p, la - s, p, lb - s))
    if s:
        ops.append(("equal", la - s, la, lb - s, lb))
    return ops


@dataclass(frozen=True)
class Run:
    seconds: float
    diff_lines: int
    hunks: int
    exact: bool
    digest: str


def measure(shape: str, n: int, repeats: int, old: bool) -> Run:
    """``WriteTool.prepare`` of the shape at ``n`` lines: median time and its preview."""
    if old:
        diffing.text_opcodes = old_opcodes  # type: ignore[assignment]
    before, after = texts(shape, n)
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "f.txt").write_text(before)
        ctx = ToolContext(root=tmp)
        times: list[float] = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            prepared = WriteTool().prepare({"path": "f.txt", "content": after}, ctx)
            times.append(time.perf_counter() - t0)
    (fp,) = prepared.preview.files
    return Run(
        statistics.median(times),
        fp.diff.count("\n"),
        len(fp.hunks),
        exact(before, fp.diff, after),
        hashlib.sha256(fp.diff.encode()).hexdigest(),
    )


HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def exact(old: str, diff: str, new: str) -> bool:
    """The diff applied strictly (context and removed lines equal) to ``old`` gives ``new``."""
    a = old.split("\n")[:-1]
    out: list[str] = []
    i = 0
    for row in diff.split("\n")[2:-1]:
        m = HUNK.match(row)
        if m:
            start = int(m[1]) if m[2] == "0" else int(m[1]) - 1
            out.extend(a[i:start])
            i = start
        elif row[:1] in (" ", "-"):
            if i >= len(a) or a[i] != row[1:]:
                return False
            if row[0] == " ":
                out.append(row[1:])
            i += 1
        elif row[:1] == "+":
            out.append(row[1:])
    out.extend(a[i:])
    return "\n".join(out) + "\n" == new


def _child(q: mp.Queue, shape: str, n: int, repeats: int) -> None:  # type: ignore[type-arg]
    q.put(measure(shape, n, repeats, old=True))


def measure_old(shape: str, n: int, repeats: int, limit: float) -> Run | None:
    """The old diff in a child process (it is quadratic): ``None`` past ``limit`` seconds."""
    q: mp.Queue = mp.Queue()  # type: ignore[type-arg]
    proc = mp.Process(target=_child, args=(q, shape, n, repeats))
    proc.start()
    proc.join(limit)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return None
    return q.get()


ROW = "{:>7} {:>10} {:>12} {:>9} {:>7} {:>7} {:>17} {:>9} {:>11} {:>5}"


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--lines", default="5000,20000,80000")
    ap.add_argument(
        "--shape", default="alternate", choices=["alternate", "rewrite", "repeats", "one"]
    )
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--old-limit", type=float, default=120.0, help="seconds per old-diff run")
    args = ap.parse_args()
    sizes = [int(x) for x in args.lines.split(",")]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()}")
    print(f"write preview, shape {args.shape!r}, median of {args.repeats} (old: 1 above 10k lines)")
    print()
    print(
        ROW.format(
            "lines",
            "new ms",
            "old ms",
            "old/new",
            "new x4",
            "old x4",
            "diff lines n/o",
            "hunks n/o",
            "exact n/o",
            "same",
        )
    )
    prev: tuple[Run, Run | None] | None = None
    limit_ms = f">{args.old_limit * 1000:.0f}"
    for n in sizes:
        new = measure(args.shape, n, args.repeats, old=False)
        old = measure_old(args.shape, n, 1 if n > 10_000 else args.repeats, args.old_limit)
        cells = [str(n), f"{new.seconds * 1000:.1f}"]
        if old is None:
            cells += [limit_ms, f">{args.old_limit / new.seconds:.0f}"]
        else:
            cells += [f"{old.seconds * 1000:.1f}", f"{old.seconds / new.seconds:.1f}"]
        grow_new = grow_old = "-"
        if prev is not None:
            grow_new = f"{new.seconds / prev[0].seconds:.2f}"
            if old is not None and prev[1] is not None:
                grow_old = f"{old.seconds / prev[1].seconds:.2f}"
        cells += [grow_new, grow_old]
        if old is None:
            cells += [f"{new.diff_lines}/?", f"{new.hunks}/?", f"{new.exact}/?", "?"]
        else:
            cells += [
                f"{new.diff_lines}/{old.diff_lines}",
                f"{new.hunks}/{old.hunks}",
                f"{new.exact}/{old.exact}",
                "yes" if new.digest == old.digest else "no",
            ]
        print(ROW.format(*cells))
        prev = (new, old)
    print(f"\nload after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
