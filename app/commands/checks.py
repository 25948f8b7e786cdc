"""``frontier checks [list] | trust [NAME…]``: the after-edit checks and formatters a
session in this workspace runs (docs/checks.md).

``list`` prints config.toml's and the project's (``.frontier/checks.toml``) with where
each comes from and whether it runs here: a config.toml one scoped to other folders, a
disabled one, a project one waiting for the person's trust. ``trust`` shows what each
project command runs and asks before remembering it (``--yes`` for scripts; without a
terminal it refuses rather than trusting silently), as ``frontier mcp trust`` does;
``--forget`` withdraws.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from frontier.app.checks_project import (
    PROJECT_FILE,
    ProjectCheck,
    forget,
    named,
    project_checks,
    taken_keys,
    trust,
    waiting,
)
from frontier.app.commands._trust_answer import refused
from frontier.app.config import ConfigError
from frontier.app.frontends.terminal_text import dumps, safe_print
from frontier.app.record import record
from frontier.tools.after_edit import CheckSettings


def main(args: argparse.Namespace) -> int:
    root = Path(getattr(args, "workspace", None) or ".").resolve()
    try:
        if args.checks_command == "trust":
            return _trust(root, args.names, yes=args.yes, withdraw=args.forget)
        return _list(root, as_json=bool(getattr(args, "json", False)))
    except ConfigError as exc:
        safe_print(f"frontier checks: {exc}", file=sys.stderr)
        return 2


@record
class Listed:
    """One check or formatter as ``list`` shows it."""

    kind: str
    """``check`` or ``formatter``."""
    settings: CheckSettings
    source: str
    """``config.toml`` or the project file."""
    state: str
    """A key of :data:`STATE_WORDS`."""

    def as_json(self) -> dict[str, object]:
        c = self.settings
        return {
            "kind": self.kind,
            "name": c.name,
            "source": self.source,
            "state": self.state,
            "run": c.run,
            "files": list(c.files),
            "timeout": c.timeout,
            "workspaces": list(c.workspaces),
        }

    def text(self) -> str:
        c = self.settings
        only = f" (only in {', '.join(c.workspaces)})" if self.state == "other workspaces" else ""
        return (
            f"{self.kind} {c.name}  {STATE_WORDS[self.state]}{only} · {self.source} · on "
            f"{', '.join(c.files) or 'every file'} · {c.timeout:g} s\n    {c.run}"
        )


STATE_WORDS = {
    "runs": "runs here",
    "disabled": "disabled (enabled = false)",
    "other workspaces": "not for this workspace",
    "waiting": "waits for your trust (frontier checks trust)",
    "changed": "changed since you trusted it: waits again (frontier checks trust)",
    "overridden": "not used: config.toml has one of this name",
}


def _rows(root: Path) -> tuple[list[Listed], list[str]]:
    """Every check and formatter a session here would consider, each with its source and
    state, in the order a session takes them."""
    from frontier.app.checks_config import load_edit_settings

    configured = load_edit_settings(only_enabled=False)
    project, notes = project_checks(root)
    rows: list[Listed] = []
    taken = set()
    for kind, listed in zip(("checks", "formatters"), configured, strict=True):
        for c in listed:
            here = c.applies_to(str(root))
            if here:
                taken.add(f"{kind}.{c.name}")
            state = "runs" if here and c.enabled else ("disabled" if here else "other workspaces")
            rows.append(Listed(_noun(kind), c, "config.toml", state))
    for p in project:
        if p.key in taken:
            state = "overridden"
        elif not p.settings.enabled:
            state = "disabled"
        else:
            state = {"trusted": "runs", "new": "waiting", "changed": "changed"}[p.state]
        rows.append(Listed(p.noun, p.settings, PROJECT_FILE, state))
    return rows, notes


def _noun(kind: str) -> str:
    return "check" if kind == "checks" else "formatter"


def _list(root: Path, *, as_json: bool) -> int:
    rows, notes = _rows(root)
    if as_json:
        safe_print(
            dumps(
                {"workspace": str(root), "commands": [r.as_json() for r in rows], "notes": notes},
                indent=2,
            )
        )
        return 0
    if not rows:
        safe_print(
            f"no after-edit checks or formatters: declare [checks.NAME] or [formatters.NAME] in "
            f"config.toml or in {PROJECT_FILE} (docs/checks.md)"
        )
    for row in rows:
        safe_print(row.text())
    for note in notes:
        safe_print(f"note: {note}")
    return 0


def _trust(root: Path, names: list[str], *, yes: bool, withdraw: bool) -> int:
    from frontier.app.checks_config import load_edit_settings

    project, notes = project_checks(root)
    taken = taken_keys(root, load_edit_settings(only_enabled=False))
    for note in notes:
        safe_print(f"note: {note}")
    if withdraw:
        if not names:
            safe_print(
                "frontier checks trust --forget: name them (ruff, or checks.ruff)", file=sys.stderr
            )
            return 2
        keys = [
            k for n in names for k in ((n,) if "." in n else (f"checks.{n}", f"formatters.{n}"))
        ]
        path = forget(root, keys)
        safe_print(f"no longer trusted here: {', '.join(names)} ({path})")
        return 0
    if not project:
        if notes:  # the file cannot be used: said above, to be fixed first
            return 2
        safe_print(f"{PROJECT_FILE} declares no checks or formatters in {root}")
        return 0
    chosen, unknown = named(project, names)
    if unknown:
        safe_print(
            f"frontier checks trust: not in {PROJECT_FILE}: {', '.join(unknown)}", file=sys.stderr
        )
        return 2
    wanted = [p for p in chosen if not p.trusted] if names else waiting(project, taken)
    if not wanted:
        said = "you named is" if names else "that would run here is"
        safe_print(f"every command of {PROJECT_FILE} {said} trusted already")
        return 0
    safe_print(f"{PROJECT_FILE} in {root} asks to run, after edits, without asking each time:")
    for line in what_runs_lines(wanted):
        safe_print(line)
    status = refused("checks trust", "trust these for this workspace?", yes=yes)
    if status is not None:
        return status
    path = trust(root, wanted)
    safe_print(
        f"trusted in {path}: {', '.join(p.key for p in wanted)} (they run from the next "
        "session, and after /checks trust in one open now; a change to what they run asks "
        "again)"
    )
    return 0


def what_runs_lines(items: list[ProjectCheck]) -> list[str]:
    """What each project command runs, for the person deciding to trust it."""
    out = []
    for p in items:
        files = ", ".join(p.settings.files) or "every changed file"
        changed = " (changed since you trusted it)" if p.state == "changed" else ""
        how = "reads each file on stdin" if p.kind == "formatters" else "runs read-only"
        out.append(
            f"  {p.noun} {p.settings.name}{changed}: on {files}, {how}:\n      {p.settings.run}"
        )
    return out
