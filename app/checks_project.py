"""A project's own after-edit checks and formatters, ``.frontier/checks.toml``: run only
once the person trusted each for this workspace (docs/checks.md "Project checks").

A team keeps its lint and format commands with its code; but a repository is untrusted
input, and a check is a command Frontier runs after each edit without asking. So the
project file's ``[checks.NAME]`` and ``[formatters.NAME]`` (config.toml's keys, without
``workspaces``) run only once the person trusted exactly that command for this
workspace (``frontier checks trust``, ``/checks trust``): a fingerprint of its kind,
``run`` and ``files`` (not ``timeout`` or ``enabled``, which change nothing about what
runs), kept in ``approvals.toml`` outside the workspace as ``checks = ["checks.ruff
sha256:…"]`` (``app/project_trust.py``). A changed command waits again, said at start.
config.toml's check or formatter wins a name both use. A file Frontier cannot use is a
note, never a failed start.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from frontier.app import project_trust
from frontier.app.config import ConfigError
from frontier.app.project_trust import TrustState
from frontier.app.record import record
from frontier.tools.after_edit import CheckSettings

PROJECT_FILE = ".frontier/checks.toml"
MAX_PROJECT_BYTES = 64 * 1024
TRUST_KEY = "checks"
"""The list in a workspace's ``approvals.toml`` entry: ``"checks.NAME sha256:HEX"`` (or
``formatters.NAME``) per trusted command."""

Kind = Literal["checks", "formatters"]
KINDS: tuple[Kind, ...] = ("checks", "formatters")


@record
class ProjectCheck:
    """One check or formatter of the project file and whether the person trusted it as it
    is now."""

    kind: Kind
    settings: CheckSettings
    fingerprint: str
    state: TrustState

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"

    @property
    def key(self) -> str:
        """``checks.NAME`` or ``formatters.NAME``: its table, and its trust row's name."""
        return f"{self.kind}.{self.settings.name}"

    @property
    def noun(self) -> str:
        return "check" if self.kind == "checks" else "formatter"


def fingerprint(kind: Kind, settings: CheckSettings) -> str:
    """``sha256:HEX`` of what decides what runs: the kind, the command and its files."""
    return project_trust.fingerprint(
        {"kind": kind, "run": settings.run, "files": list(settings.files)}
    )


def project_checks(root: Path) -> tuple[list[ProjectCheck], list[str]]:
    """The checks and formatters ``.frontier/checks.toml`` declares (disabled ones too),
    each with its trust state, and notes for a file that cannot be used (none of its
    commands then runs)."""
    from frontier.app.checks_config import parse_checks

    doc, notes = project_trust.read_project_toml(
        root,
        PROJECT_FILE,
        MAX_PROJECT_BYTES,
        f"{PROJECT_FILE} (the project's checks)",
        "none of its checks runs",
    )
    if doc is None:
        return [], notes
    unknown = sorted(set(doc) - set(KINDS))
    try:
        if unknown:
            raise ConfigError(
                f"{PROJECT_FILE}: unknown table {unknown[0]!r}; it holds [checks.NAME] "
                "and [formatters.NAME]"
            )
        found = [
            (kind, s)
            for kind in KINDS
            for s in parse_checks(doc, Path(PROJECT_FILE), kind, project=True)
        ]
    except ConfigError as exc:
        return [], [f"{exc}; none of the project's checks runs"]
    rows, file_notes = project_trust.trusted_rows(root, TRUST_KEY)
    out = []
    for kind, s in found:
        print_ = fingerprint(kind, s)
        out.append(
            ProjectCheck(kind, s, print_, project_trust.state(rows, f"{kind}.{s.name}", print_))
        )
    return out, file_notes


def named(
    project: Sequence[ProjectCheck], names: Sequence[str]
) -> tuple[list[ProjectCheck], list[str]]:
    """The project's commands ``names`` asks for — ``ruff`` names the check and the
    formatter of that name, ``checks.ruff`` one — and the names that match none."""
    chosen: list[ProjectCheck] = []
    unknown = []
    for name in names:
        hits = [p for p in project if name in (p.key, p.settings.name)]
        if not hits:
            unknown.append(name)
        chosen.extend(p for p in hits if p not in chosen)
    return chosen, unknown


def trust(root: Path, items: Iterable[ProjectCheck]) -> Path:
    """Remember these commands, as they are now, as trusted for ``root``; the file written."""
    return project_trust.remember(root, TRUST_KEY, {p.key: p.fingerprint for p in items})


def forget(root: Path, keys: Iterable[str]) -> Path:
    """Withdraw the trust given to these commands (``checks.NAME``/``formatters.NAME``)."""
    return project_trust.remember(root, TRUST_KEY, drop=keys)


def waiting(project: Sequence[ProjectCheck], taken: Iterable[str] = ()) -> list[ProjectCheck]:
    """The enabled project commands that would run but wait for the person's trust
    (``taken``: the keys config.toml's own use, which win)."""
    used = set(taken)
    return [p for p in project if not p.trusted and p.settings.enabled and p.key not in used]


def waiting_note(items: Sequence[ProjectCheck]) -> str | None:
    """The note a session start gives for project commands not run (``None``: none)."""
    if not items:
        return None
    names = ", ".join(
        f"{p.noun} {p.settings.name}"
        + (" (changed since you trusted it)" if p.state == "changed" else "")
        for p in items
    )
    return (
        f"{PROJECT_FILE} declares commands that run after edits only once you trust them "
        f"for this workspace: {names}; review and trust them with `frontier checks trust` "
        "(or /checks trust)"
    )


def taken_keys(
    root: Path, configured: tuple[Sequence[CheckSettings], Sequence[CheckSettings]]
) -> set[str]:
    """``checks.NAME``/``formatters.NAME`` of config.toml's for this workspace (disabled
    ones too: the person turned that name off), which the project's of that name yield to."""
    return {
        f"{kind}.{c.name}"
        for kind, mine in zip(KINDS, configured, strict=True)
        for c in mine
        if c.applies_to(str(root))
    }


def session_edit_settings(
    root: Path,
    configured: tuple[Sequence[CheckSettings], Sequence[CheckSettings]],
    notes: list[str],
) -> tuple[list[CheckSettings], list[CheckSettings]]:
    """The checks and formatters a session in ``root`` runs: config.toml's enabled ones
    for this workspace, then the project's enabled and trusted ones whose names
    config.toml's do not use (notes: the file's problems, a name both use, those
    waiting for trust)."""
    chosen = {
        kind: [c for c in mine if c.enabled and c.applies_to(str(root))]
        for kind, mine in zip(KINDS, configured, strict=True)
    }
    taken = taken_keys(root, configured)
    project, file_notes = project_checks(root)
    notes.extend(file_notes)
    for p in project:
        if p.key in taken:
            notes.append(f"{PROJECT_FILE}: [{p.key}] is also in config.toml; config.toml's is used")
        elif p.trusted and p.settings.enabled:
            chosen[p.kind].append(p.settings)
    note = waiting_note(waiting(project, taken))
    if note is not None:
        notes.append(note)
    return chosen["checks"], chosen["formatters"]


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
