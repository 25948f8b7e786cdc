"""The person's answer to "trust these for this workspace?" on the command line
(``frontier mcp trust``, ``frontier checks trust``): ``--yes`` answers for scripts, a
terminal asks ``[y/N]``, and without one nothing is trusted silently (exit 3)."""

from __future__ import annotations

import sys

from frontier.app.frontends.terminal_text import safe_print


def refused(command: str, question: str, *, yes: bool) -> int | None:
    """``None`` when the person trusts what the lines above showed; else the exit status
    (said): 3 nobody could be asked, 1 declined."""
    if yes:
        return None
    if not sys.stdin.isatty():
        safe_print(
            f"frontier {command}: nobody to ask (no terminal); read the lines above and run "
            "again with --yes to trust them",
            file=sys.stderr,
        )
        return 3
    answer = input(f"{question} [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        safe_print("not trusted")
        return 1
    return None
