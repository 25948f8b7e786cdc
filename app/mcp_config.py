"""``[mcp_servers.NAME]`` tables of config.toml (issue 26), validated into
``ServerSettings``; every error names the file and the key, as ``[providers.NAME]`` does.

.. code-block:: toml

    [mcp_servers.tracker]
    command = "tracker-mcp"
    args = ["--stdio"]
    env = { TRACKER_TOKEN = "..." }   # the only way a withheld variable reaches it
    tool_timeout = 30
    deny = ["delete_issue"]

    [mcp_servers.remote]
    url = "https://mcp.example.com/mcp"
    headers = { Authorization = "Bearer ${EXAMPLE_TOKEN}" }   # from Frontier's environment
    trusted = true                    # its readOnlyHint makes a tool a read
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from frontier.app.config import HEADER_NAME, ConfigError, _read_config, config_path
from frontier.tools.contract import MCP_SEPARATOR, MCP_SERVER_NAME
from frontier.tools.mcp_settings import ServerSettings

SERVER_NAME = re.compile(MCP_SERVER_NAME)
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
    "url",
    "headers",
    "trusted",
    "sandbox",
    "network",
    "required",
)


def load_mcp_servers(path: Path | None = None) -> list[ServerSettings]:
    """The servers config.toml declares (enabled or not), in file order."""
    path = path if path is not None else config_path()
    return parse_mcp_servers(_read_config(path), path)


def parse_mcp_servers(
    data: dict[str, Any], path: Path, *, base: Path | None = None
) -> list[ServerSettings]:
    """``data``'s ``[mcp_servers.NAME]`` tables; ``base``: the folder a relative ``cwd`` is
    resolved beneath (a project file's workspace; ``None``: kept as written)."""
    tables = data.get("mcp_servers", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: mcp_servers must be tables ([mcp_servers.NAME]), not a value")
    return [_server(name, table, path, base) for name, table in tables.items()]


def _server(name: str, table: Any, path: Path, base: Path | None = None) -> ServerSettings:
    where = f"[mcp_servers.{name}] in {path}"
    if not SERVER_NAME.fullmatch(name) or MCP_SEPARATOR in name:
        raise ConfigError(
            f"{where}: the name must be 1-32 of a-z, 0-9, _ and - (starting with a letter or "
            "digit, not ending in _, no double underscore: tools are named NAME__tool)"
        )
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: mcp_servers.{name} must be a table")
    for key in table:
        if key not in SERVER_KEYS:
            raise ConfigError(f"{where}: unknown key {key!r}; known: {', '.join(SERVER_KEYS)}")
    command, url = table.get("command"), table.get("url")
    if (command is None) == (url is None):
        raise ConfigError(f"{where}: give exactly one of command (stdio) and url (HTTP)")
    if command is not None and (not isinstance(command, str) or not command.strip()):
        raise ConfigError(f"{where}: command must be a non-empty string")
    if url is not None:
        _url(url, where)
        for key in ("args", "env", "cwd", "sandbox", "network"):
            if key in table:
                raise ConfigError(f"{where}: {key} is for a local server (command), not a url")
    elif "headers" in table:
        raise ConfigError(f"{where}: headers are for an HTTP server (url), not a command")
    cwd = table.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ConfigError(f"{where}: cwd must be a string")
    if cwd is not None and base is not None:
        cwd = _beneath(base, cwd, where)
    allow = table.get("allow")
    return ServerSettings(
        name=name,
        command=command,
        args=_strings(table.get("args", []), "args", where),
        env=_env(table.get("env", {}), where),
        cwd=cwd,
        enabled=_flag(table, "enabled", True, where),
        startup_timeout=_seconds(table.get("startup_timeout", 10.0), "startup_timeout", where),
        tool_timeout=_seconds(table.get("tool_timeout", 60.0), "tool_timeout", where),
        allow=None if allow is None else _strings(allow, "allow", where),
        deny=_strings(table.get("deny", []), "deny", where),
        url=url,
        headers=_headers(table.get("headers", {}), where),
        trusted=_flag(table, "trusted", False, where),
        sandbox=_flag(table, "sandbox", True, where),
        network=_flag(table, "network", False, where),
        required=_flag(table, "required", False, where),
    )


def _flag(table: dict[str, Any], key: str, default: bool, where: str) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {key} must be true or false")
    return value


def _url(value: Any, where: str) -> None:
    """An ``http``/``https`` URL with a host (the message never repeats it: it may hold a
    token in its query string)."""
    if not isinstance(value, str):
        raise ConfigError(f"{where}: url must be a string")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        raise ConfigError(f"{where}: url is not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{where}: url must be http:// or https:// with a host")
    if any(ch.isspace() or ord(ch) < 32 for ch in value):
        raise ConfigError(f"{where}: url has spaces or control characters")


def _headers(value: Any, where: str) -> dict[str, str]:
    """Header names as HTTP allows; values are never repeated in a message."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigError(
            f'{where}: headers must be a table of strings (headers = {{ X-Key = "${{NAME}}" }})'
        )
    for key, text in value.items():
        if not HEADER_NAME.fullmatch(key):
            raise ConfigError(f"{where}: header name {key!r} is not a valid HTTP header name")
        if any(ord(ch) < 32 and ch != "\t" for ch in text):
            raise ConfigError(f"{where}: header {key} has a control character in its value")
    return dict(value)


def _beneath(base: Path, cwd: str, where: str) -> str:
    """A project server's ``cwd``, resolved beneath the workspace ``base``."""
    root = base.resolve()
    path = (root / cwd).resolve()
    if path != root and root not in path.parents:
        raise ConfigError(f"{where}: cwd {cwd!r} is outside the workspace")
    return str(path)


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
