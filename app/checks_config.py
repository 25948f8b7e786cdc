"""``[checks.NAME]`` tables of config.toml: the person's after-edit checks
(``tools/after_edit.py``), and ``[formatters.NAME]``, their formatters
(``tools/formatting.py``), both validated into ``CheckSettings``; every error names the
file and the key, as ``[mcp_servers.NAME]`` does.

.. code-block:: toml

    [checks.ruff]
    run = "ruff check --quiet {files}"   # bash -c in the workspace root
    files = ["*.py"]                     # which changed files it is for (default: any)
    timeout = 60                         # seconds (default 60, at most 600)
    workspaces = ["~/src/api"]           # only sessions in these folders (default: any)

A formatter has the same keys; its ``run`` reads a file on stdin and prints it formatted
(``{file}``: the file's name, for its settings). A project's ``.frontier/checks.toml`` has
the same tables, parsed here with ``project=True`` (no ``workspaces``); its commands run
only once trusted (``app/checks_project.py``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from frontier.app.config import ConfigError, _read_config, config_path
from frontier.tools.after_edit import MAX_TIMEOUT, CheckSettings

CHECK_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
CHECK_KEYS = ("run", "files", "timeout", "enabled", "workspaces", "reformat")


def load_checks(path: Path | None = None) -> list[CheckSettings]:
    """The enabled checks config.toml declares, in file order."""
    return load_edit_settings(path)[0]


def load_edit_settings(
    path: Path | None = None, *, only_enabled: bool = True
) -> tuple[list[CheckSettings], list[CheckSettings]]:
    """The enabled (or all) checks and formatters config.toml declares (``[checks.NAME]``,
    ``[formatters.NAME]``, ``tools/formatting.py``), each in file order, from one read."""
    path = path if path is not None else config_path()
    data = _read_config(path)
    return (
        [c for c in parse_checks(data, path) if c.enabled or not only_enabled],
        [f for f in parse_checks(data, path, "formatters") if f.enabled or not only_enabled],
    )


def parse_checks(
    data: dict[str, Any], path: Path, table: str = "checks", *, project: bool = False
) -> list[CheckSettings]:
    """``data``'s ``[checks.NAME]`` tables (or ``[formatters.NAME]``: the same keys),
    disabled ones included. ``project``: the workspace's ``.frontier/checks.toml``, whose
    checks are for that workspace only (no ``workspaces``)."""
    tables = data.get(table, {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: {table} must be tables ([{table}.NAME]), not a value")
    return [_check(name, value, path, table, project) for name, value in tables.items()]


def _check(
    name: str, table: Any, path: Path, kind: str = "checks", project: bool = False
) -> CheckSettings:
    where = f"[{kind}.{name}] in {path}"
    if not CHECK_NAME.fullmatch(name):
        raise ConfigError(f"{where}: the name must be 1-32 of a-z, 0-9, _ and -")
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {kind}.{name} must be a table")
    for key in table:
        if project and key == "workspaces":
            raise ConfigError(
                f"{where}: workspaces belongs in config.toml; a project's checks are for "
                "its own workspace"
            )
        if key not in CHECK_KEYS:
            raise ConfigError(f"{where}: unknown key {key!r}; known: {', '.join(CHECK_KEYS)}")
    run = table.get("run")
    if not isinstance(run, str) or not run.strip():
        example = (
            "ruff check {files}" if kind == "checks" else "ruff format --stdin-filename {file} -"
        )
        raise ConfigError(f'{where}: run must be a command (run = "{example}")')
    if "\0" in run:
        raise ConfigError(f"{where}: run has a NUL character")
    files = table.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, str) and f for f in files):
        raise ConfigError(f'{where}: files must be a list of globs (files = ["*.py"])')
    timeout = table.get("timeout", 60)
    ok = isinstance(timeout, int | float) and not isinstance(timeout, bool)
    if not ok or not math.isfinite(timeout) or not 0 < timeout <= MAX_TIMEOUT:
        raise ConfigError(
            f"{where}: timeout must be seconds > 0 and at most {MAX_TIMEOUT:g}, got {timeout!r}"
        )
    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where}: enabled must be true or false")
    reformat = table.get("reformat", False)
    if kind != "formatters" and "reformat" in table:
        raise ConfigError(f"{where}: reformat is a formatter's key ([formatters.{name}])")
    if not isinstance(reformat, bool):
        raise ConfigError(f"{where}: reformat must be true or false")
    return CheckSettings(
        name=name,
        run=run,
        files=tuple(files),
        timeout=float(timeout),
        enabled=enabled,
        workspaces=_folders(table.get("workspaces", []), where),
        project=project,
        reformat=reformat,
    )


def _folders(value: Any, where: str) -> tuple[str, ...]:
    """``workspaces``: folders, ``~`` expanded, each absolute."""
    import os

    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f'{where}: workspaces must be a list of folders (["~/src/api"])')
    out = []
    for folder in value:
        path = os.path.expanduser(folder)
        if not os.path.isabs(path):
            raise ConfigError(f"{where}: workspaces: {folder!r} is not an absolute path")
        out.append(os.path.normpath(path))
    return tuple(out)
