"""The words of ``frontier doctor``'s findings: one home for the CLI and ``/doctor``.

A heading per area, a line per check (its mark, name and what was seen), the fix under
it, and a closing count. The CLI writes each check the moment it is found
(:class:`Report`); ``/doctor`` all at once (:func:`report_lines`). Everything a model or
a workspace put in a finding (a reply, a call's arguments, a path) is passed through
``terminal_safe`` here, whatever showed it.
"""

from __future__ import annotations

from pathlib import Path

from frontier.app.doctor.check import MARKS, Check, counted
from frontier.app.frontends.terminal_text import terminal_safe

WIDTH = 14
"""Columns of a check's name."""
WIDE = 22
"""Columns of a check's name with ``--every-protocol`` (``tool call · native-eos``)."""


class Report:
    """Lines for checks in the order they come, a heading when the area changes."""

    def __init__(self, width: int = WIDTH) -> None:
        self.width = width
        self._area = ""

    @staticmethod
    def head(workspace: Path) -> str:
        return f"frontier doctor · {terminal_safe(str(workspace))}"

    def lines(self, check: Check) -> list[str]:
        out: list[str] = []
        if check.area != self._area:
            self._area = check.area
            out.append(check.area)
        said = terminal_safe(check.said)
        out.append(f"  {MARKS[check.status]} {check.name:<{self.width}} {said}")
        if check.fix:
            out.append(f"    {' ' * self.width} → {terminal_safe(check.fix)}")
        return out

    @staticmethod
    def summary(checks: list[Check]) -> str:
        totals = counted(checks)
        fails = totals["fail"]
        said = (
            f"{totals['ok']} ok · {totals['warn']} to look at · {fails} problem{'s' * (fails != 1)}"
        )
        if totals["skip"]:
            said += f" · {totals['skip']} skipped"
        return said


def report_lines(checks: list[Check], workspace: Path) -> list[str]:
    """The findings as lines, in order, under their areas' headings."""
    report = Report(WIDE if any(len(c.name) > WIDTH for c in checks) else WIDTH)
    lines = [report.head(workspace)]
    for check in checks:
        lines.extend(report.lines(check))
    lines.append(report.summary(checks))
    return lines


__all__ = ["WIDE", "WIDTH", "Report", "report_lines"]
