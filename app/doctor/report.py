"""The words of ``frontier doctor``'s findings: one home for the CLI and ``/doctor``.

A heading per area, a line per check (its mark, name and what was seen), the fix under
it, and a closing count. Everything a model or a workspace put in a finding (a reply,
a call's arguments, a path) is passed through ``terminal_safe`` here, whatever showed it.
"""

from __future__ import annotations

from pathlib import Path

from frontier.app.doctor.check import MARKS, Check, counted
from frontier.app.frontends.terminal_text import terminal_safe

WIDTH = 14
"""Columns of a check's name, at least; as many as the longest takes (at most
:data:`MAX_WIDTH`), so ``tool call · native-eos`` keeps its column."""
MAX_WIDTH = 24


def report_lines(checks: list[Check], workspace: Path) -> list[str]:
    """The findings as lines, in order, under their areas' headings."""
    lines = [f"frontier doctor · {terminal_safe(str(workspace))}"]
    width = min(MAX_WIDTH, max([WIDTH, *(len(c.name) for c in checks)]))
    area = ""
    for check in checks:
        if check.area != area:
            area = check.area
            lines.append(area)
        lines.append(f"  {MARKS[check.status]} {check.name:<{width}} {terminal_safe(check.said)}")
        if check.fix:
            lines.append(f"    {' ' * width} → {terminal_safe(check.fix)}")
    totals = counted(checks)
    fails = totals["fail"]
    summary = (
        f"{totals['ok']} ok · {totals['warn']} to look at · {fails} problem{'s' * (fails != 1)}"
    )
    if totals["skip"]:
        summary += f" · {totals['skip']} skipped"
    lines.append(summary)
    return lines


__all__ = ["report_lines"]
