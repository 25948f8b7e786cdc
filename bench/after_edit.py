"""What an after-edit check or a formatter adds to an edit, beside its own process: p50.

    .venv/bin/python bench/after_edit.py              # ~20 s: 100 rounds
    .venv/bin/python bench/after_edit.py --runs 300

Each round runs every case once, in a fresh shuffled order (a slow moment of the machine
falls on all alike), in one workspace holding ``a.py`` (each edit flips its one line, so
every call writes):

- ``edit``: a ``replace`` call through the tool boundary (prepare, gate, write, commit to
  a fake store), no check;
- ``edit + check``: the same call with one check, ``true {files}``, run as a session runs
  it (``tools/after_edit.py``: the file looked up, ``Sandbox.wrap`` read-only, the process
  started and read, the verdict appended);
- ``the check alone``: ``bash -c 'true a.py'`` sandboxed read-only through ``run_process``,
  with ``wrap`` and ``tidy`` (what the check's process costs whoever runs it);
- ``edit + formatter``: the same call with one formatter, ``cat`` (the file comes back as
  it went in), run before the review (``tools/formatting.py``);
- ``the formatter alone``: ``bash -c cat`` sandboxed read-only, the file's bytes on stdin.

``added`` is ``edit + check`` minus ``edit`` minus ``the check alone`` (p50s): what
Frontier spends around the check on top of the process it has to start; the same for the
formatter. Without a sandbox
here the check runs unconfined in both.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_tools_fakes import Approver, FakeStore, call

from frontier.tools.after_edit import AfterEditChecks, CheckSettings, read_only_command
from frontier.tools.base import CancelToken
from frontier.tools.boundary import ToolBoundary
from frontier.tools.formatting import Formatters, _filter
from frontier.tools.process import run_process
from frontier.tools.registry import default_registry
from frontier.tools.sandbox import Sandbox, SandboxSettings, make_sandbox, tidy


def p50(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


async def edit(boundary: ToolBoundary, n: int) -> float:
    now = (Path(boundary.root) / "a.py").read_text()
    old, new = ("x = 1", "x = 2") if "x = 1" in now else ("x = 2", "x = 1")
    started = time.perf_counter()
    result = await boundary.run(call("replace", n, path="a.py", old=old, new=new))
    elapsed = time.perf_counter() - started
    assert result.kind == "ok", result.output
    return elapsed


async def alone(root: str, box: Sandbox | None) -> float:
    started = time.perf_counter()
    argv, env, made, _ = read_only_command("true a.py", root, box)
    try:
        res = await run_process(
            argv, cwd=root, env=env, timeout=30, cancel=CancelToken(), contained=bool(made)
        )
    finally:
        tidy(made)
    assert res.exit_code == 0
    return time.perf_counter() - started


async def formatter_alone(root: str, box: Sandbox | None) -> float:
    started = time.perf_counter()
    argv, env, made, _ = read_only_command("cat", root, box)
    try:
        out, why = await _filter(argv, b"x = 1\n", root, env, 30, CancelToken(), 1 << 20)
    finally:
        tidy(made)
    assert why is None and out == b"x = 1\n"
    return time.perf_counter() - started


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "a.py").write_text("x = 1\n")
        box = make_sandbox(SandboxSettings(), root)
        plain = ToolBoundary(default_registry(), root, Approver(), FakeStore())
        checked = ToolBoundary(default_registry(), root, Approver(), FakeStore())
        checked.after_hook = AfterEditChecks(
            [CheckSettings("noop", "true {files}")], checked.root, box
        )
        formatted = ToolBoundary(default_registry(), root, Approver(), FakeStore())
        formatted.formatters = Formatters([CheckSettings("cat", "cat")], formatted.root, box)
        names = ("edit", "edit + check", "the check alone", "edit + formatter")
        times: dict[str, list[float]] = {n: [] for n in (*names, "the formatter alone")}
        cases: list[tuple[str, Any]] = [
            ("edit", lambda n: edit(plain, n)),
            ("edit + check", lambda n: edit(checked, n)),
            ("the check alone", lambda n: alone(str(root), box)),
            ("edit + formatter", lambda n: edit(formatted, n)),
            ("the formatter alone", lambda n: formatter_alone(str(root), box)),
        ]
        n = 0
        for _ in range(args.runs):
            random.shuffle(cases)
            for name, run in cases:
                n += 1
                times[name].append(await run(n))
        box.close()
    print(f"sandbox: {box.label}; {args.runs} rounds; milliseconds, p50 (min)")
    for name, values in times.items():
        print(f"  {name:<16} {p50(values) * 1e3:7.2f} ({min(values) * 1e3:.2f})")
    added = p50(times["edit + check"]) - p50(times["edit"]) - p50(times["the check alone"])
    ratio = p50(times["edit + check"]) / (p50(times["edit"]) + p50(times["the check alone"]))
    print(f"  added around the check: {added * 1e3:.2f} ms ({ratio:.2f}x edit + check alone)")
    alone_f = p50(times["the formatter alone"])
    added = p50(times["edit + formatter"]) - p50(times["edit"]) - alone_f
    ratio = p50(times["edit + formatter"]) / (p50(times["edit"]) + alone_f)
    print(f"  added around the formatter: {added * 1e3:.2f} ms ({ratio:.2f}x edit + it alone)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    asyncio.run(main(parser.parse_args()))
