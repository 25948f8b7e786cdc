"""``[mcp_servers.NAME]`` tables of config.toml (issue 26), validated into
``ServerSettings``; every error names the file and the key, as ``[providers.NAME]`` does.

.. code-block:: toml

    [mcp_servers.tracker]
    command = "tracker-mcp"
    args = ["--stdio"]
    env = { TRACKER_TOKEN = "..." }   # the only way a withheld variable reaches it
    tool_timeout = 30
    deny = ["delete_issue"]
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from frontier.app.config import ConfigError, _read_config, config_path
from frontier.tools.mcp_servers import ServerSettings

SERVER_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
SERVER_KEYS = (
    "command",
    "args",
    "env",
    "cwd",
    "enabled",
    "startup_timeout",
    "tool_timeout",
    "allow",
    "deny",
)


def load_mcp_servers(path: Path | None = None) -> list[ServerSettings]:
    """The servers config.toml declares (enabled or not), in file order."""
    path = path if path is not None else config_path()
    return parse_mcp_servers(_read_config(path), path)


def parse_mcp_servers(data: dict[str, Any], path: Path) -> list[ServerSettings]:
    tables = data.get("mcp_servers", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: mcp_servers must be tables ([mcp_servers.NAME]), not a value")
    return [_server(name, table, path) for name, table in tables.items()]


def _server(name: str, table: Any, path: Path) -> ServerSettings:
    where = f"[mcp_servers.{name}] in {path}"
    if not SERVER_NAME.fullmatch(name) or "__" in name:
        raise ConfigError(
            f"{where}: the name must be 1-32 of a-z, 0-9, _ and - (starting with a letter or "
            "digit, no double underscore: tools are named NAME__tool)"
        )
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: mcp_servers.{name} must be a table")
    for key in table:
        if key not in SERVER_KEYS:
            if key in ("url", "headers"):
                raise ConfigError(f"{where}: {key}: HTTP servers are not supported yet")
            raise ConfigError(f"{where}: unknown key {key!r}; known: {', '.join(SERVER_KEYS)}")
    command = table.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{where}: command must be a non-empty string")
    cwd = table.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ConfigError(f"{where}: cwd must be a string")
    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where}: enabled must be true or false")
    allow = table.get("allow")
    return ServerSettings(
        name=name,
        command=command,
        args=_strings(table.get("args", []), "args", where),
        env=_env(table.get("env", {}), where),
        cwd=cwd,
        enabled=enabled,
        startup_timeout=_seconds(table.get("startup_timeout", 10.0), "startup_timeout", where),
        tool_timeout=_seconds(table.get("tool_timeout", 60.0), "tool_timeout", where),
        allow=None if allow is None else _strings(allow, "allow", where),
        deny=_strings(table.get("deny", []), "deny", where),
    )


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def _env(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigError(f'{where}: env must be a table of strings (env = {{ NAME = "value" }})')
    return dict(value)


def _seconds(value: Any, key: str, where: str) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{where}: {key} must be a number of seconds > 0, got {value!r}")
    return float(value)
