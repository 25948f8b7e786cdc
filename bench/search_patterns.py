"""Hostile search patterns (issue 21, item 3): the old matchers and the new, N and 4N, same run.

    .venv/bin/python bench/search_patterns.py               # ~1 min
    .venv/bin/python bench/search_patterns.py --timeout 5   # the old way's limit per run

**Part 1, the matchers.** For each of the issue's inputs — grep ``(a+)+$`` on a line of
``a``s, glob ``**/`` ×12 ``*.py`` on a deep path, the ``.gitignore`` rule
``*a*a*a*a*a*a*a*b`` on a long name — the old way (Python's ``re`` on the model's regex, or
on the glob's regex translation ``gitignore.glob_to_regex``, as the tools matched before) at
a small N and 4N where it still ends, then at the issue's own size; each old run is a child
process killed at ``--timeout``. The new way (``globmatch``, RE2 through ``regex_guard``)
runs at N and 4N large enough to time, with ``globmatch``'s work counter. Growth =
value at 4N / value at N: linear is ≈ 4, flagged past 6.

**Part 2, the agent while a call runs.** The issue's inputs through the real tools
(``ToolBoundary``, read-only) with a 5 ms ticker on the event loop: the call's wall time and
the loop's longest stall (what Esc, the timeout and the TUI wait for). Plus a look-around
pattern RE2 cannot run, which goes to the child, with a 2 s tool timeout: the child is
killed at the deadline and the loop never stalls. The reference, in a child process: the
old grep's way — Python's ``re`` in a worker thread under ``asyncio.wait_for(…, 1 s)`` — on
a line short enough to end.

Time is the best of ``--repeat`` runs; nothing here is a test (the tests count work).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frontier.app.events import ToolCall
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.globmatch import Glob, Work
from frontier.tools.regex_guard import LinePattern
from frontier.tools.registry import Registry, default_registry
from frontier.tools.search import GlobTool, GrepTool

FLAG = 6.0
GLOBSTARS = "**/" * 12 + "*.py"
STARS = "*a*a*a*a*a*a*a*b"


@dataclass(frozen=True)
class Case:
    name: str
    kind: str
    """``regex`` (the model's, matched by ``re.search``), ``glob`` (a glob's translation,
    matched whole) or ``fnmatch`` (the standard library's, for reference)."""
    pattern: str
    make: str
    """Python expression of ``n`` building the subject (run in the child as well)."""
    old: tuple[int, int]
    """N and 4N where the old way still ends."""
    issue: int
    """The issue's own size."""
    new: tuple[int, int]


CASES = [
    Case("grep (a+)+$, line of N a's then !", "regex", "(a+)+$", "'a' * n + '!'", (6, 24),
         34, (1 << 18, 1 << 20)),
    Case("glob **/ x12 *.py, a miss N folders deep", "glob", GLOBSTARS, "'d/' * n + 'x.txt'",
         (3, 12), 40, (25_000, 100_000)),
    Case("glob **/ x12 *.py, a hit N folders deep", "glob", GLOBSTARS, "'d/' * n + 'x.py'",
         (3, 12), 40, (25_000, 100_000)),
    Case(".gitignore *a*a*a*a*a*a*a*b, name of N a's", "glob", STARS, "'a' * n", (12, 48),
         250, (1 << 18, 1 << 20)),
    Case(".gitignore *a*a*a*a*a*a*a*b, name of N x's then b", "glob", STARS, "'x' * n + 'b'",
         (12, 48), 250, (1 << 18, 1 << 20)),
    Case("  fnmatch (stdlib, reference), name of N a's", "fnmatch", STARS, "'a' * n", (12, 48),
         250, (1 << 18, 1 << 20)),
]  # fmt: skip

OLD = """
import fnmatch, re, sys, time, warnings
from frontier.tools.gitignore import glob_to_regex
kind, pattern, make, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
subject = eval(make, {"n": n})
warnings.simplefilter("ignore")
if kind == "regex":
    run = re.compile(pattern).search
elif kind == "glob":
    run = re.compile(glob_to_regex(pattern) + r"\\Z", re.DOTALL).match
else:
    run = lambda s: fnmatch.fnmatchcase(s, pattern)
best = None
for _ in range(int(sys.argv[5])):
    t = time.perf_counter()
    answer = run(subject)
    found = answer is not None and answer is not False
    t = time.perf_counter() - t
    best = t if best is None else min(best, t)
    if t > 0.5:
        break
print(best, found)
"""


def old_way(case: Case, n: int, timeout: float, repeat: int) -> tuple[float | None, str]:
    """Seconds (best of ``repeat``) in a child process, or ``None`` if killed at ``timeout``."""
    argv = [sys.executable, "-c", OLD, case.kind, case.pattern, case.make, str(n), str(repeat)]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None, "?"
    seconds, found = out.stdout.split()
    return float(seconds), found


def new_way(case: Case, n: int, repeat: int) -> tuple[float, int | None, bool]:
    """Seconds (best of ``repeat``), ``globmatch``'s steps (globs) and the answer."""
    subject = eval(case.make, {"n": n})
    steps: int | None = None
    if case.kind == "regex":
        pattern = LinePattern(case.pattern)
        assert pattern.engine == "re2"
        data = subject.encode()

        def run() -> bool:
            return bool(pattern.matching(data))
    elif case.kind == "glob":
        glob = Glob(case.pattern)
        work = Work()
        glob.match(subject, work)
        steps = work.steps

        def run() -> bool:
            return glob.match(subject)
    else:
        import fnmatch

        def run() -> bool:
            return fnmatch.fnmatchcase(subject, case.pattern)

    best = float("inf")
    found = False
    for _ in range(repeat):
        t = time.perf_counter()
        found = run()
        best = min(best, time.perf_counter() - t)
    return best, steps, found


def seconds(value: float | None, timeout: float) -> str:
    if value is None:
        return f"> {timeout:g} s (killed)"
    if value < 1e-3:
        return f"{value * 1e6:.1f} µs"
    if value < 1:
        return f"{value * 1e3:.2f} ms"
    return f"{value:.2f} s"


def growth(small: float | None, large: float | None) -> str:
    if small is None or large is None or small <= 0:
        return "—"
    ratio = large / small
    return f"{ratio:.3g}×" + ("  SUPERLINEAR" if ratio > FLAG else "")


def part_one(timeout: float, repeat: int) -> None:
    print("Part 1: the matchers at N and 4N (old: a child process each, killed at the limit)")
    head = f"{'case':52} {'way':16} {'N':>8} {'t(N)':>20} {'4N':>8} {'t(4N)':>20} {'growth':>9}"
    print(head)
    for case in CASES:
        n, n4 = case.old
        small, _ = old_way(case, n, timeout, repeat)
        large, _ = old_way(case, n4, timeout, repeat)
        old = "re (old)" if case.kind != "fnmatch" else "fnmatch"
        print(
            f"{case.name:52} {old:16} {n:>8} {seconds(small, timeout):>20} {n4:>8} "
            f"{seconds(large, timeout):>20} {growth(small, large):>9}"
        )
        issue, _ = old_way(case, case.issue, timeout, 1)
        print(f"{'':52} {old + ', issue':16} {case.issue:>8} {seconds(issue, timeout):>20}")
        if case.kind == "fnmatch":
            continue
        n, n4 = case.new
        small_new, steps, answer = new_way(case, n, repeat)
        large_new, steps4, _ = new_way(case, n4, repeat)
        new = "re2 (new)" if case.kind == "regex" else "globmatch (new)"
        print(
            f"{'':52} {new:16} {n:>8} {seconds(small_new, timeout):>20} {n4:>8} "
            f"{seconds(large_new, timeout):>20} {growth(small_new, large_new):>9}"
            + (f"   work {steps} → {steps4} ({growth(steps, steps4)})" if steps else "")
            + f"   matches: {answer}"
        )
        at_issue, _, _ = new_way(case, case.issue, repeat)
        print(f"{'':52} {'new, issue':16} {case.issue:>8} {seconds(at_issue, timeout):>20}")


# ----------------------------------------------------------------------------- part 2


class _Yes:
    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        return Decision(True, "")


async def _watched(boundary: ToolBoundary, name: str, **args: Any) -> tuple[float, float, str]:
    """``(wall seconds, the loop's longest stall, result kind)`` of one call."""
    stall = 0.0
    done = False

    async def ticker() -> None:
        nonlocal stall
        while not done:
            t = time.perf_counter()
            await asyncio.sleep(0.005)
            stall = max(stall, time.perf_counter() - t - 0.005)

    tick = asyncio.ensure_future(ticker())
    await asyncio.sleep(0.02)
    t = time.perf_counter()
    result = await boundary.run(ToolCall(id="c1", name=name, args=args))
    wall = time.perf_counter() - t
    done = True
    await tick
    return wall, stall, result.kind


def _workspaces(base: Path) -> dict[str, Path]:
    line = base / "line"
    line.mkdir()
    (line / "a.txt").write_text("a" * 34 + "!\n" + "aaaa\n")
    deep = base / "deep"
    bottom = deep.joinpath(*["d"] * 40)
    bottom.mkdir(parents=True)
    (bottom / "x.py").write_text("hit\n")
    (bottom / "x.txt").write_text("hit\n")
    rule = base / "rule"
    rule.mkdir()
    (rule / ".gitignore").write_text(STARS + "\n")
    (rule / ("a" * 250)).write_text("hit\n")
    return {"line": line, "deep": deep, "rule": rule}


async def _calls(base: Path) -> list[tuple[str, float, float, str]]:
    ws = _workspaces(base)
    rows = []

    class QuickGrep(GrepTool):
        spec = dataclasses.replace(GrepTool.spec, timeout=2.0)

    def boundary(root: Path, registry: Registry | None = None) -> ToolBoundary:
        return ToolBoundary(registry or default_registry(), root, _Yes(), None, policy="read-only")

    plan: list[tuple[str, Path, Registry | None, str, dict[str, Any]]] = [
        ("grep (a+)+$, 35-byte line, ripgrep", ws["line"], None, "grep", {"pattern": "(a+)+$"}),
        ("grep (a+)+$, 35-byte line, Python searcher", ws["line"], None, "grep-py",
         {"pattern": "(a+)+$"}),
        ("glob **/ x12 *.py, 40 folders deep", ws["deep"], None, "glob", {"pattern": GLOBSTARS}),
        ("grep hit, .gitignore *a*a*a*a*a*a*a*b, 250-a name", ws["rule"], None, "grep-py",
         {"pattern": "hit"}),
        ("glob *, .gitignore *a*a*a*a*a*a*a*b, 250-a name", ws["rule"], None, "glob",
         {"pattern": "*"}),
        ("grep (?=(a+)+$) (look-around: the child), 2 s timeout", ws["line"],
         Registry([QuickGrep(), GlobTool()]), "grep-py", {"pattern": "(?=(a+)+$)"}),
    ]  # fmt: skip
    for label, root, registry, name, args in plan:
        GrepTool.use_ripgrep = name != "grep-py"
        try:
            wall, stall, kind = await _watched(boundary(root, registry), name[:4], **args)
        finally:
            GrepTool.use_ripgrep = True
        rows.append((label, wall, stall, kind))
    return rows


OLD_LOOP = """
import asyncio, re, sys, time
rx = re.compile("(a+)+$")
line = "a" * int(sys.argv[1]) + "!"
async def main():
    stall, done = 0.0, False
    async def ticker():
        nonlocal stall
        while not done:
            t = time.perf_counter()
            await asyncio.sleep(0.005)
            stall = max(stall, time.perf_counter() - t - 0.005)
    tick = asyncio.ensure_future(ticker())
    await asyncio.sleep(0.02)
    t = time.perf_counter()
    try:
        await asyncio.wait_for(asyncio.to_thread(rx.search, line), 1.0)
        kind = "ok"
    except TimeoutError:
        kind = "timeout"
    wall = time.perf_counter() - t
    done = True
    await tick
    print(wall, stall, kind)
asyncio.run(main())
"""


def part_two(timeout: float) -> None:
    print()
    print("Part 2: one call through the tools, a 5 ms ticker on the event loop")
    print(f"{'call':58} {'wall':>12} {'longest stall':>14}  result")
    with tempfile.TemporaryDirectory() as tmp:
        for label, wall, stall, kind in asyncio.run(_calls(Path(tmp))):
            print(f"{label:58} {seconds(wall, timeout):>12} {seconds(stall, timeout):>14}  {kind}")
    for n in (24, 34):
        label = f"old: re in a thread, wait_for 1 s, line of {n} a's + !"
        try:
            out = subprocess.run(
                [sys.executable, "-c", OLD_LOOP, str(n)],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=True,
            )
        except subprocess.TimeoutExpired:
            print(f"{label:58} {seconds(None, timeout):>12} {'(all of it)':>14}  (froze)")
            continue
        wall_s, stall_s, kind = out.stdout.split()
        wall, stall = float(wall_s), float(stall_s)
        print(f"{label:58} {seconds(wall, timeout):>12} {seconds(stall, timeout):>14}  {kind}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=10.0, help="old way's limit, seconds")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=["1", "2"], help="one part only")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    if args.only != "2":
        part_one(args.timeout, args.repeat)
    if args.only != "1":
        part_two(args.timeout)


if __name__ == "__main__":
    main()
