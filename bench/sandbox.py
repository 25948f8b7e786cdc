"""What the OS sandbox adds to a command's start (issue 22): p50 and p99, same run.

    .venv/bin/python bench/sandbox.py                 # ~30 s: 300 rounds
    .venv/bin/python bench/sandbox.py --runs 1000
    .venv/bin/python bench/sandbox.py --options       # which bwrap option costs what
    .venv/bin/python bench/sandbox.py --bwrap PATH    # another bwrap (the wheel's)

Each round runs every case once, in a fresh shuffled order (so a slow moment of the machine
falls on all cases alike): ``true`` and ``bash -c true``, each unconfined and sandboxed, through
``run_process`` — the exec tools' own path (a process group, the reaper told, the output
read, the exit awaited) — with, for the sandboxed ones, ``Sandbox.wrap`` (the mounts worked
out, the hidden places looked up) and ``tidy`` after, as ``ShellTool.execute`` does. The
workspace is a temporary git repository with no ``.frontier`` (so each sandboxed call makes
and tidies one mount point, the common case).

Times are wall-clock milliseconds from before ``wrap`` to after ``tidy``. ``added`` is the
sandboxed p50 (p99) minus the unconfined p50 (p99) of the same command. The goal: at most
15 ms added at p50.

``--options`` times bwrap itself (``subprocess.run``, no asyncio) with the full option set
and with one option left out at a time, to show where a millisecond goes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

from frontier.tools.base import CancelToken
from frontier.tools.process import child_env, run_process
from frontier.tools.sandbox import Sandbox, SandboxSettings, bwrap_args, make_sandbox, tidy

GOAL_MS = 15.0


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def one(argv: list[str], root: str, box: Sandbox | None) -> float:
    started = time.perf_counter()
    env = child_env()
    made: list[str] = []
    if box is not None:
        argv, env, made = box.wrap(argv, root, env)
    try:
        res = await run_process(
            argv,
            cwd=root,
            env=env,
            timeout=60,
            cancel=CancelToken(),
            contained=box is not None,
        )
    finally:
        tidy(made)
    if res.exit_code != 0:
        raise SystemExit(f"{argv[-1]!r} failed ({res.exit_code}): {res.output}")
    return (time.perf_counter() - started) * 1000


async def tool_path(runs: int, box: Sandbox, root: str) -> dict[str, list[float]]:
    bash = shutil.which("bash") or "/bin/sh"
    true = shutil.which("true") or "/bin/true"
    cases: dict[str, tuple[list[str], Sandbox | None]] = {
        "true": ([true], None),
        "true, sandboxed": ([true], box),
        "bash -c true": ([bash, "-c", "true"], None),
        "bash -c true, sandboxed": ([bash, "-c", "true"], box),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for argv, sandbox in cases.values():  # warm: caches, the reaper's start
        await one(argv, root, sandbox)
    names = list(cases)
    for _ in range(runs):
        random.shuffle(names)
        for name in names:
            argv, sandbox = cases[name]
            times[name].append(await one(argv, root, sandbox))
    return times


def report(times: dict[str, list[float]]) -> float:
    print(
        f"{'case':26} {'p50 ms':>8} {'p99 ms':>8} {'added p50':>10} {'added p99':>10} {'x p50':>6}"
    )
    added_true = 0.0
    for name, values in times.items():
        p50, p99 = pct(values, 50), pct(values, 99)
        line = f"{name:26} {p50:8.2f} {p99:8.2f}"
        if name.endswith(", sandboxed"):
            base = times[name.removesuffix(", sandboxed")]
            b50, b99 = pct(base, 50), pct(base, 99)
            line += f" {p50 - b50:10.2f} {p99 - b99:10.2f} {p50 / b50:6.1f}"
            if name == "true, sandboxed":
                added_true = p50 - b50
        print(line)
    return added_true


ARITY = {"--ro-bind": 2, "--bind": 2, "--tmpfs": 1, "--remount-ro": 1, "--dev": 1}
ARITY |= {"--proc": 1, "--cap-drop": 1, "--chdir": 1}


def groups(args: list[str]) -> list[list[str]]:
    """bwrap's options, each with its operands."""
    out, i = [], 0
    while i < len(args):
        n = ARITY.get(args[i], 0)
        out.append(args[i : i + 1 + n])
        i += 1 + n
    return out


def options_table(runs: int, bwrap: str, root: str, tmp: str) -> None:
    """bwrap alone, with the full option set and with one option left out at a time."""
    full = groups(bwrap_args(SandboxSettings(), root, tmp))

    def without(*names: str) -> list[str]:
        return [a for g in full if g[0] not in names for a in g]

    def without_covers() -> list[str]:
        kept = [g for g in full if g[0] not in ("--tmpfs", "--remount-ro")]
        return [a for g in kept if not (g[0] == "--ro-bind" and g[1] != "/") for a in g]

    variants: dict[str, list[str] | None] = {
        "all options": without(),
        "- --unshare-cgroup-try": without("--unshare-cgroup-try"),
        "- --unshare-net": without("--unshare-net"),
        "- --unshare-pid": without("--unshare-pid"),
        "- --unshare-ipc, -uts": without("--unshare-ipc", "--unshare-uts"),
        "- --proc": without("--proc"),
        "- --dev": without("--dev"),
        "- --cap-drop ALL": without("--cap-drop"),
        "- --die-with-parent": without("--die-with-parent"),
        "- --new-session": without("--new-session"),
        "- covers (.git, hidden)": without_covers(),
        "only --ro-bind / /": ["--ro-bind", "/", "/"],
        "no bwrap": None,
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for _ in range(runs):
        random.shuffle(names)
        for name in names:
            opts = variants[name]
            argv = ["true"] if opts is None else [bwrap, *opts, "--", "true"]
            started = time.perf_counter()
            subprocess.run(argv, check=True, cwd=root)
            times[name].append((time.perf_counter() - started) * 1000)
    base = pct(times["all options"], 50)
    print(f"\nbwrap alone ({bwrap}), subprocess.run of true, {runs} rounds")
    print(f"{'options':28} {'p50 ms':>7} {'p99 ms':>7} {'saved':>7}")
    for name, values in times.items():
        p50 = pct(values, 50)
        print(f"{name:28} {p50:7.2f} {pct(values, 99):7.2f} {base - p50:+7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=300, help="rounds (each runs every case)")
    parser.add_argument("--bwrap", help="the bwrap to use (default: as Frontier finds it)")
    parser.add_argument("--options", action="store_true", help="also time bwrap's options")
    args = parser.parse_args()
    box = make_sandbox(SandboxSettings())
    if args.bwrap:
        box = Sandbox(SandboxSettings(), bwrap=args.bwrap)
    if not box.active:
        raise SystemExit(f"no sandbox here: {box.label}")
    version = subprocess.run([box.bwrap or "bwrap", "--version"], capture_output=True, text=True)
    with tempfile.TemporaryDirectory(prefix="frontier-bench-") as root:
        subprocess.run(["git", "init", "-q", root], check=True)
        print(
            f"sandbox start cost: {args.runs} rounds, interleaved; {version.stdout.strip()} "
            f"({box.bwrap}); Python {sys.version.split()[0]}; {os.cpu_count()} CPUs; "
            f"load {os.getloadavg()[0]:.2f}"
        )
        times = asyncio.run(tool_path(args.runs, box, root))
        added = report(times)
        verdict = "met" if added <= GOAL_MS else "MISSED"
        print(f"goal: at most {GOAL_MS:g} ms added at p50 (true): {added:.2f} ms, {verdict}")
        if args.options:
            options_table(args.runs, box.bwrap or "bwrap", root, box.temp_dir())
    box.close()
    print(f"load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
