"""Starting a workspace's MCP servers outside a session, as a session here would start
them, to see how they are: ``frontier mcp list`` / ``test`` and ``frontier doctor``.

One home for how: the servers a session would start (config.toml's enabled ones, the
project's trusted ones, ``mcp_project.session_servers``), in the sandbox the session would
use, with the workspace as root, their logs where a session writes them; stopped when
the look is over, a server that will not stop said through ``on_stop`` rather than raised
(the look's answer stands).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from frontier.app.config import Config, data_dir, load_config
from frontier.tools.mcp_servers import McpHost, McpStopError
from frontier.tools.mcp_settings import ServerSettings


@contextlib.contextmanager
def trial_host(
    root: Path, on_stop: Callable[[str], None], config: Config | None = None
) -> Iterator[McpHost]:
    """A host as a session here would make it: local servers in the session's sandbox."""
    from frontier.app.agent.runtime import session_sandbox

    notes: list[str] = []
    sandbox = session_sandbox(config if config is not None else load_config(), notes, root=root)
    host = McpHost(data_dir() / "mcp-logs", sandbox=sandbox, root=root)
    try:
        yield host
    finally:
        try:
            host.close()
        except McpStopError as exc:
            on_stop(str(exc))
        finally:
            sandbox.close()


def startable(
    root: Path, configured: Sequence[ServerSettings]
) -> tuple[list[ServerSettings], list[str]]:
    """The servers a session here starts, and the notes choosing them made."""
    from frontier.app.mcp_project import session_servers

    notes: list[str] = []
    return session_servers(root, configured, notes), notes


__all__ = ["startable", "trial_host"]
