"""Prompt count: how many times the person is asked under ``--approval auto-edit``, with the
command sandbox on (``workspace-write``) and off (issue 22).

Usage::

    .venv/bin/python bench/prompt_count.py [--json]

Two stories, each run twice (sandbox ``workspace-write``, then ``off``) with a counting
approver standing where the person is (it approves everything and records each question):

* **the demo's story** — ``frontier demo``'s scripted model through the real runtime
  (``create_runtime(..., demo=True)``: the real loop, transducer, tool boundary, policy and
  sandbox), once per protocol the headless demo tells it in (ctl-heredoc, native-inc), in
  a scratch data dir;
* **a scripted 10-step task** — edits and test runs as a model would issue them: write a
  module and its tests, run them, change the module, run again, a ``python`` check, a
  ``git diff``, and a ``git commit`` (which the sandbox stops: ``.git`` is read-only inside,
  so under auto-edit the person is asked to run it once outside — an escalation), through
  the real ``ToolBoundary`` and ``PolicyApprover`` with the real sandbox, in a temp git
  repository.

It prints every question asked (story, mode, tool, whether it was an escalation) and the
reduction ``1 - on/off``; ``docs/BENCHMARKS.md`` records it beside Claude Code's published
−84 %. Without ``bwrap`` (or user namespaces) the sandbox is unavailable: then every
command is asked in the task and the script says so (the demo's own commands are not
asked then: ``app/agent/runtime.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from frontier.app.events import ToolCall
from frontier.tools.contract import Decision, Preview, ToolSpec

MODES = ("workspace-write", "off")
DEMO_PROTOCOLS = ("ctl-heredoc", "native-inc")
CLAUDE_CODE_REDUCTION = 0.84
"""Anthropic: sandboxed bash cut permission prompts by 84 % in their own use."""


@dataclass
class Counter:
    """The person, as a counter: every question is approved and recorded."""

    asked: list[dict[str, Any]] = field(default_factory=list)
    interactive: bool = True

    async def approve(self, call: ToolCall, spec: ToolSpec | None, preview: Preview) -> Decision:
        self.asked.append(
            {
                "tool": call.name,
                "kind": spec.kind if spec is not None else "?",
                "escalation": preview.escalation,
                "inside": preview.sandbox,
            }
        )
        return Decision(True)


# ---------------------------------------------------------------------- the demo's story
async def demo_story(mode: str, protocol: str, data: Path) -> tuple[Counter, int, str]:
    """The demo told once in ``protocol`` with sandbox ``mode``: the questions, the calls
    that ran, and the session's sandbox label."""
    os.environ["FRONTIER_DATA_DIR"] = str(data)  # the scratch workspace and store
    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config
    from frontier.app.events import ToolFinished

    counter = Counter()
    config = replace(Config(), approval="auto-edit", sandbox=mode, protocol=protocol)
    session = create_runtime(config, approver=counter, demo=True, demo_rate=0.0)
    finished: list[ToolFinished] = []
    session.subscribe(lambda e: finished.append(e) if isinstance(e, ToolFinished) else None)
    label = session.sandbox_label
    try:
        for prompt in session.demo_prompts:
            await session.send(prompt)
    finally:
        await session.close()
    return counter, len(finished), label


# ---------------------------------------------------------------------- the 10-step task
CALC = "def add(a, b):\n    return a + b\n"
TESTS = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
)
GIT = "git -c user.name=bench -c user.email=bench@example.invalid"


def task_steps() -> list[ToolCall]:
    """Ten calls: four edits, six commands (tests, a python check, git)."""
    run_tests = "python3 -m unittest -q 2>&1 | tail -3"
    sub = "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    commit = f"{GIT} add -A && {GIT} commit -qm 'add sub' && git log --oneline | head -1"
    steps: list[tuple[str, dict[str, Any]]] = [
        ("write", {"path": "calc.py", "content": CALC}),
        ("write", {"path": "test_calc.py", "content": TESTS}),
        ("shell", {"command": run_tests}),
        ("replace", {"path": "calc.py", "old": "    return a + b\n", "new": sub}),
        ("replace", {"path": "test_calc.py", "old": "import add", "new": "import add, sub"}),
        ("shell", {"command": run_tests}),
        ("python", {"code": "import calc\nprint(calc.sub(5, 3))\n"}),
        ("shell", {"command": "git status --short && git diff --stat"}),
        ("shell", {"command": commit}),
        ("shell", {"command": run_tests}),
    ]
    return [ToolCall(f"t{n}", name, args) for n, (name, args) in enumerate(steps, 1)]


async def task_story(mode: str) -> tuple[Counter, list[tuple[str, str, str]], str]:
    """The task with sandbox ``mode``: the questions, each call's (id, result kind, where
    it ran), and the sandbox's label."""
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.policy import PolicyApprover
    from frontier.tools.registry import default_registry
    from frontier.tools.sandbox import SandboxSettings, make_sandbox

    counter = Counter()
    sandbox = make_sandbox(SandboxSettings(mode=mode))  # type: ignore[arg-type]
    ran: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="frontier-prompts-") as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / "README.md").write_text("a task\n")
        subprocess.run(f"{GIT} add -A && {GIT} commit -qm init", shell=True, cwd=root, check=True)
        policy = PolicyApprover("auto-edit", counter, sandbox=sandbox)
        boundary = ToolBoundary(default_registry(), root, policy, None, sandbox=sandbox)
        try:
            for call in task_steps():
                result = await boundary.run(call)
                where = (result.meta or {}).get("sandbox", {}).get("mode", "")
                ran.append((call.id, result.kind, where))
        finally:
            sandbox.close()
    return counter, ran, sandbox.label


# ---------------------------------------------------------------------- report
def reduction(on: int, off: int) -> float | None:
    return None if off == 0 else 1 - on / off


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"−{value:.0%}" if value >= 0 else f"+{-value:.0%}"


async def main_async(as_json: bool) -> int:
    out: dict[str, Any] = {"demo": {}, "task": {}}
    with tempfile.TemporaryDirectory(prefix="frontier-prompts-data-") as data:
        for mode in MODES:
            asked, calls, labels = [], 0, set()
            for protocol in DEMO_PROTOCOLS:
                counter, n, label = await demo_story(mode, protocol, Path(data) / mode / protocol)
                asked += [{**q, "protocol": protocol} for q in counter.asked]
                calls += n
                labels.add(label)
            out["demo"][mode] = {"asked": asked, "calls": calls, "sandbox": sorted(labels)}
    for mode in MODES:
        counter, ran, label = await task_story(mode)
        out["task"][mode] = {"asked": counter.asked, "calls": ran, "sandbox": label}
    total_on = total_off = 0
    for story in ("demo", "task"):
        on = len(out[story]["workspace-write"]["asked"])
        off = len(out[story]["off"]["asked"])
        out[story]["reduction"] = reduction(on, off)
        total_on, total_off = total_on + on, total_off + off
    out["total"] = {"on": total_on, "off": total_off, "reduction": reduction(total_on, total_off)}
    if as_json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    print("prompt count under --approval auto-edit (the person is a counter that approves)\n")
    for story, title in (
        ("demo", "demo story (ctl-heredoc + native-inc)"),
        ("task", "10-step task"),
    ):
        print(title)
        for mode in MODES:
            row = out[story][mode]
            label = row["sandbox"]
            label = ", ".join(label) if isinstance(label, list) else label
            print(f"  sandbox {mode:<16} asked {len(row['asked']):>2}  (session: {label})")
            for q in row["asked"]:
                what = f"escalation: {q['escalation']}" if q["escalation"] else "command"
                where = f"inside ({q['inside']})" if q["inside"] else "outside"
                print(f"      {q['tool']:<8} {what} · runs {where}")
        print(f"  reduction {pct(out[story]['reduction'])}\n")
    total = out["total"]
    print(
        f"both stories: {total['off']} prompts with the sandbox off, {total['on']} with it on: "
        f"{pct(total['reduction'])} (Claude Code, published: −{CLAUDE_CODE_REDUCTION:.0%})"
    )
    for mode in MODES:
        print(
            f"  task calls, sandbox {mode}: "
            + " ".join(f"{c}:{k}@{w or '-'}" for c, k, w in out["task"][mode]["calls"])
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args()
    return asyncio.run(main_async(args.json))


if __name__ == "__main__":
    sys.exit(main())
