"""``frontier checks [list] | trust [NAME…] | test NAME FILE…``: the after-edit checks and
formatters a session in this workspace runs (docs/checks.md).

``list`` prints config.toml's and the project's (``.frontier/checks.toml``) with where
each comes from and whether it runs here: a config.toml one scoped to other folders, a
disabled one, a project one waiting for the person's trust. ``trust`` shows what each
project command runs and asks before remembering it (``--yes`` for scripts; without a
terminal it refuses rather than trusting silently), as ``frontier mcp trust`` does;
``--forget`` withdraws. ``test`` runs one on files as a session would after an edit of
them, and prints what the model would read (a formatter: the diff, nothing written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from frontier.app.checks_project import (
    PROJECT_FILE,
    forget,
    named,
    project_checks,
    taken_keys,
    trust,
    waiting,
    what_runs_lines,
)
from frontier.app.commands._trust_answer import refused
from frontier.app.config import ConfigError
from frontier.app.frontends.terminal_text import dumps, safe_print
from frontier.app.record import record
from frontier.tools.after_edit import CheckSettings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from frontier.tools.sandbox import Sandbox


def main(args: argparse.Namespace) -> int:
    root = Path(getattr(args, "workspace", None) or ".").resolve()
    try:
        if args.checks_command == "trust":
            return _trust(root, args.names, yes=args.yes, withdraw=args.forget)
        if args.checks_command == "test":
            import asyncio

            return asyncio.run(_test(root, args.name, args.files))
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
            **({"reformat": c.reformat} if self.kind == "formatter" else {}),
        }

    def text(self) -> str:
        c = self.settings
        only = f" (only in {', '.join(c.workspaces)})" if self.state == "other workspaces" else ""
        whole = " · reformats files not formatted before" if c.reformat else ""
        return (
            f"{self.kind} {c.name}  {STATE_WORDS[self.state]}{only} · {self.source} · on "
            f"{', '.join(c.files) or 'every file'} · {c.timeout:g} s{whole}\n    {c.run}"
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
    taken = taken_keys(root, configured)
    for kind, listed in zip(("checks", "formatters"), configured, strict=True):
        for c in listed:
            here = c.applies_to(str(root))
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


async def _test(root: Path, name: str, files: list[str]) -> int:
    """Run one check (or formatter) by hand on ``files``, as a session here would after an
    edit that changed them (the sandbox, read-only; the words the model would read): 0
    passed (or formatted), 1 it did not, 2 no such command here or a file not usable."""
    from frontier.app.checks_config import load_edit_settings
    from frontier.app.checks_project import KINDS, session_edit_settings

    notes: list[str] = []
    running = session_edit_settings(root, load_edit_settings(only_enabled=False), notes)
    chosen = [
        (kind, c)
        for kind, listed in zip(KINDS, running, strict=True)
        for c in listed
        if name in (c.name, f"{kind}.{c.name}")
    ]
    if not chosen:
        waiting, _ = named(project_checks(root)[0], [name])
        why = (
            f"{name} is the project's and not trusted here: `frontier checks trust {name}` "
            "first (it shows what it runs)"
            if waiting
            else f"no check or formatter {name!r} runs here (`frontier checks` lists them)"
        )
        safe_print(f"frontier checks test: {why}", file=sys.stderr)
        return 2
    paths = _usable(root, files)
    if paths is None:
        return 2
    from frontier.app.agent.runtime import session_sandbox
    from frontier.app.config import load_config

    sandbox = session_sandbox(load_config(), notes, root=root)
    try:
        for note in notes:
            safe_print(f"note: {note}")
        passed = True
        for kind, c in chosen:
            if kind == "checks":
                passed = await _try_check(root, c, paths, sandbox) and passed
            else:
                passed = await _try_formatter(root, c, paths, sandbox) and passed
        return 0 if passed else 1
    finally:
        sandbox.close()


def _usable(root: Path, files: list[str]) -> list[str] | None:
    """``files`` as workspace paths, each a regular file beneath the root (said when not)."""
    from frontier.tools.paths import PathError, resolve

    if not files:
        safe_print(
            "frontier checks test: name the files, as an edit would have changed them "
            "(frontier checks test ruff src/app.py)",
            file=sys.stderr,
        )
        return None
    out = []
    for f in files:
        try:
            found = resolve(root, f)
        except PathError as exc:
            safe_print(f"frontier checks test: {f}: {exc}", file=sys.stderr)
            return None
        if not found.real.is_file():
            safe_print(f"frontier checks test: {f}: not a file in {root}", file=sys.stderr)
            return None
        out.append(found.rel)
    return out


async def _try_check(root: Path, check: CheckSettings, paths: list[str], sandbox: Sandbox) -> bool:
    from frontier.app.events import ToolResult
    from frontier.app.stream_events import ToolCall
    from frontier.tools.after_edit import AfterEditChecks, command_line, for_files
    from frontier.tools.base import CancelToken

    mine = for_files(check, paths)
    if not mine:
        globs = ", ".join(check.files)
        safe_print(f"check {check.name}: not for {', '.join(paths)} (it is for {globs})")
        return True
    safe_print(f"── check {check.name}: {command_line(check, mine)}", flush=True)
    hook = AfterEditChecks([check], str(root), sandbox)
    call = ToolCall("test", "write", {})
    result = ToolResult("test", "write", "ok", "", meta={"files": mine})
    checked = await hook(call, result, CancelToken())
    if checked is None:  # no file left to check (gone since)
        return True
    (run,) = checked.meta["checks"]
    safe_print(f"the model would read:\n{checked.output.strip()}")
    return bool(run["outcome"] == "passed")


async def _try_formatter(
    root: Path, formatter: CheckSettings, paths: list[str], sandbox: Sandbox
) -> bool:
    from frontier.tools.after_edit import for_files
    from frontier.tools.base import CancelToken
    from frontier.tools.beneath import read_capped
    from frontier.tools.formatting import Formatters, command_line
    from frontier.tools.patch_engine import EDIT_MAX_FILE
    from frontier.tools.review_edit import diff_from

    formatting = Formatters([formatter], str(root), sandbox)
    ok = True
    for path in for_files(formatter, paths):
        data, size = read_capped(root, path, EDIT_MAX_FILE)
        if data is None:
            safe_print(f"✗ {path}: {size or 0:,} bytes, more than a session formats")
            ok = False
            continue
        safe_print(f"── formatter {formatter.name}: {command_line(formatter, path)} < {path}")
        out, why = await formatting.format_file(formatter, path, data, CancelToken())
        if why is not None:
            safe_print(f"✗ not formatted: {why}")
            ok = False
        elif out == data:
            safe_print(f"{path} is formatted already (nothing written)")
        else:
            safe_print(diff_from(path, data, out, "formatted").rstrip("\n"))
            safe_print("(nothing written: a session's review would show this diff)")
    if not for_files(formatter, paths):
        safe_print(f"formatter {formatter.name}: not for {', '.join(paths)}")
    return ok
