"""A project's own MCP servers, ``.frontier/mcp.toml`` (issue 26): started only once the
person trusted them for this workspace.

A repository is untrusted input, and a server it declares is a program it asks Frontier
to run (or an address to send the workspace's data to). So a project server starts only
after the person approved exactly *that* server for *this* workspace: the approval is a
fingerprint of everything that decides what runs and with what (command, args, env,
cwd, url, headers, sandbox, network, trust hints, allow/deny lists — not the timeouts),
remembered in ``approvals.toml`` beside config.toml as ``mcp_servers = ["NAME sha256:…"]``
in the workspace's entry. It lives outside every workspace for the reason the "always
allow" rules do: the agent writes the workspace, and a trust record there would let a
model trust a server it wrote. A file changed since (a new argument, another URL) makes
the server wait for the person again, and says so.

The file is read beneath the root, at most :data:`MAX_PROJECT_BYTES`; a file Frontier
cannot use is a note, never a failed start. config.toml's servers win a name both use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from frontier.app import project_trust
from frontier.app.config import ConfigError
from frontier.app.mcp_config import parse_mcp_servers
from frontier.app.project_trust import TrustState
from frontier.app.record import asdict, record
from frontier.tools.mcp_settings import ServerSettings

PROJECT_FILE = ".frontier/mcp.toml"
MAX_PROJECT_BYTES = 64 * 1024
TRUST_KEY = "mcp_servers"
"""The list in a workspace's ``approvals.toml`` entry: ``"NAME sha256:HEX"`` per server."""
UNFINGERPRINTED = ("enabled", "startup_timeout", "tool_timeout", "required")
"""Settings that change nothing about what runs: editing them keeps the trust."""


@record
class ProjectServer:
    """One server of the project file and whether the person trusted it as it is now."""

    settings: ServerSettings
    fingerprint: str
    state: TrustState

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"


def fingerprint(settings: ServerSettings) -> str:
    """``sha256:HEX`` of what decides what the server runs and with what."""
    fields = asdict(settings)
    for name in UNFINGERPRINTED:
        fields.pop(name, None)
    return project_trust.fingerprint(fields)


def project_servers(root: Path) -> tuple[list[ProjectServer], list[str]]:
    """The servers ``.frontier/mcp.toml`` declares, each with its trust state, and notes
    for a file that cannot be used (none of its servers is then started)."""
    doc, notes = project_trust.read_project_toml(
        root,
        PROJECT_FILE,
        MAX_PROJECT_BYTES,
        f"{PROJECT_FILE} (project MCP servers)",
        "its servers are not started",
    )
    if doc is None:
        return [], notes
    try:
        settings = parse_mcp_servers(doc, Path(PROJECT_FILE), base=Path(root))
    except ConfigError as exc:
        return [], [f"{exc}; the project's servers are not started"]
    rows, file_notes = project_trust.trusted_rows(root, TRUST_KEY)
    servers = []
    for s in settings:
        print_ = fingerprint(s)
        servers.append(ProjectServer(s, print_, project_trust.state(rows, s.name, print_)))
    return servers, file_notes


def trust(root: Path, servers: Iterable[ProjectServer]) -> Path:
    """Remember these servers, as they are now, as trusted for ``root``; the file written."""
    return project_trust.remember(
        root, TRUST_KEY, {s.settings.name: s.fingerprint for s in servers}
    )


def forget(root: Path, names: Sequence[str]) -> Path:
    """Withdraw the trust given to these servers of ``root``'s project file."""
    return project_trust.remember(root, TRUST_KEY, drop=names)


def waiting_note(servers: Sequence[ProjectServer]) -> str | None:
    """The note a session start gives for project servers not started (``None``: none)."""
    waiting = [s for s in servers if not s.trusted]
    if not waiting:
        return None
    names = ", ".join(
        s.settings.name + (" (changed since you trusted it)" if s.state == "changed" else "")
        for s in waiting
    )
    return (
        f"{PROJECT_FILE} declares MCP servers not started until you trust them for this "
        f"workspace: {names}; review and trust them with `frontier mcp trust` (or /mcp)"
    )


def session_servers(
    root: Path, configured: Sequence[ServerSettings], notes: list[str]
) -> list[ServerSettings]:
    """The servers a session starts: config.toml's enabled ones, then the project's
    enabled and trusted ones whose names config.toml does not use."""
    chosen = [s for s in configured if s.enabled]
    taken = {s.name for s in configured}
    project, file_notes = project_servers(root)
    notes.extend(file_notes)
    for server in project:
        if server.settings.name in taken:
            notes.append(
                f"{PROJECT_FILE}: server {server.settings.name} is also in config.toml; "
                "config.toml's is used"
            )
        elif server.trusted and server.settings.enabled:
            chosen.append(server.settings)
    waiting = waiting_note(
        [p for p in project if p.settings.name not in taken and p.settings.enabled]
    )
    if waiting is not None:
        notes.append(waiting)
    return chosen
