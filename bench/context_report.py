"""What ``/context`` costs (``agent/context_report.context_report``), beside the context
budget's own estimate of the same request (``budget.estimate_tokens``), in the same run.

    .venv/bin/python bench/context_report.py [--runs 7]

A native-mode request with every built-in tool and N rounds, each a call and a 50 KB
tool result: about 1 / 10 / 50 MB of history. ``/context`` runs on the TUI's loop when
the person types it; the budget estimates every request anyway, so its figure is the
floor. Best of ``--runs``, in-process. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable


def best(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    from frontier.app.agent.budget import ContextBudget, estimate_tokens
    from frontier.app.agent.context_report import context_report
    from frontier.app.agent.modes import get_mode
    from frontier.app.model.conversation import (
        AssistantTurn,
        CallEntry,
        ResultEntry,
        ToolResults,
        UserText,
    )
    from frontier.app.model.request import ModelRequest
    from frontier.tools.registry import default_registry

    registry = default_registry()
    mode = get_mode("native-inc")
    specs = registry.offered()
    body = "x" * 50_000
    print(f"load {os.getloadavg()[0]:.2f}; best of {args.runs}")
    print(
        f"{'history':>8} {'items':>6} {'estimate_tokens':>16} {'context_report':>15} {'ratio':>6}"
    )
    for rounds in (20, 200, 1000):
        items: list[object] = [UserText("fix the failing tests")]
        for i in range(rounds):
            items.append(
                AssistantTurn("Reading.", (CallEntry(f"c{i}", "read", {"path": f"f{i}"}),))
            )
            items.append(ToolResults((ResultEntry(f"c{i}", "read", "ok", 0, body),)))
        request = ModelRequest(
            mode.system_prompt(registry),
            tuple(items),
            mode.tools(registry),  # type: ignore[arg-type]
        )
        budget = ContextBudget(window=1_000_000, source="config")
        floor = best(args.runs, lambda r=request: estimate_tokens(r))  # type: ignore[misc]
        took = best(
            args.runs,
            lambda r=request, b=budget: context_report(r, specs, "", b),  # type: ignore[misc]
        )
        size = rounds * len(body) / 1e6
        print(
            f"{size:>6.0f}MB {len(items):>6} {floor * 1000:>13.1f} ms {took * 1000:>12.1f} ms "
            f"{took / floor:>5.2f}x"
        )


if __name__ == "__main__":
    main()
