"""One finding of ``frontier doctor``: what was looked at, how it is, and the fix.

Every check says what it saw in words a person can act on; a problem says how to fix
it. ``ok``: nothing to do; ``warn``: a session runs, worse than it could (no sandbox
here, a window assumed, call-backs that cannot arrive); ``fail``: a session would not
work (no endpoint answers, the key is refused, the model is not served); ``skip``: not
looked at, and why (no endpoint configured, ``--no-request``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from frontier.app.record import record, replace

Status = Literal["ok", "warn", "fail", "skip"]
STATUSES: tuple[Status, ...] = ("ok", "warn", "fail", "skip")
MARKS: dict[Status, str] = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "-"}


@record
class Check:
    """What one look found."""

    area: str
    """The heading it is listed under (``settings``, ``model``, ``sandbox``…)."""
    name: str
    status: Status
    said: str
    fix: str = ""
    """What to do about it (empty for ``ok``)."""

    def as_json(self) -> dict[str, str]:
        out = {"area": self.area, "name": self.name, "status": self.status, "said": self.said}
        if self.fix:
            out["fix"] = self.fix
        return out


class Findings:
    """The checks found so far, each told to ``seen`` as it is found: the CLI prints a
    check the moment it is known (a hung server's reply check takes up to two minutes,
    and the lines before it say what was already looked at)."""

    def __init__(self, seen: Callable[[Check], None] | None = None) -> None:
        self.checks: list[Check] = []
        self._seen = seen
        self._scrub: Callable[[str], str] | None = None

    def hide(self, scrub: Callable[[str], str]) -> None:
        """Pass every later finding's words through ``scrub`` (a session's scrubber): the
        model's checks quote its replies and the server's errors, which may hold the key
        or the base URL's credentials."""
        self._scrub = scrub

    def add(self, check: Check) -> Check:
        """Keep ``check`` (scrubbed, once :meth:`hide` was told how) and tell ``seen``."""
        if self._scrub is not None:
            check = replace(check, said=self._scrub(check.said), fix=self._scrub(check.fix))
        self.checks.append(check)
        if self._seen is not None:
            self._seen(check)
        return check


def counted(checks: list[Check]) -> dict[Status, int]:
    """How many checks have each status."""
    return {status: sum(1 for c in checks if c.status == status) for status in STATUSES}


__all__ = ["MARKS", "STATUSES", "Check", "Findings", "Status", "counted"]
