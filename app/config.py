"""Configuration: ``config.toml`` < ``FRONTIER_*`` environment < command-line flags.

The API key is read from the environment only (``FRONTIER_API_KEY`` or
``OPENAI_API_KEY``) and never written anywhere by Frontier.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from frontier.tools.patch_model import PATCH_FORMATS

PROTOCOLS = ("native-eos", "native-inc", "ctl", "ctl-heredoc", "xml")
APPROVALS = ("ask", "auto-edit", "auto", "read-only")
DEFAULT_PROTOCOL = "ctl-heredoc"


def data_dir() -> Path:
    """Where sessions live: ``FRONTIER_DATA_DIR`` or the platform's user data dir."""
    env = os.environ.get("FRONTIER_DATA_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("frontier"))


def config_dir() -> Path:
    """Where ``config.toml`` lives: ``FRONTIER_CONFIG_DIR`` or the platform's config dir."""
    env = os.environ.get("FRONTIER_CONFIG_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_config_dir("frontier"))


def config_path() -> Path:
    return config_dir() / "config.toml"


@dataclass(frozen=True)
class Config:
    base_url: str | None = None
    model: str | None = None
    protocol: str = DEFAULT_PROTOCOL
    approval: str = "ask"
    theme: str = "frontier-dark"
    workspace: str | None = None
    patch_format: str = "auto"
    """``auto`` (by model name), ``unified`` or ``codex``: the patch dialect taught."""
    api_key: str | None = field(default=None, repr=False)
    """From the environment only; ``repr`` hides it so it never lands in a log."""

    @property
    def has_endpoint(self) -> bool:
        return bool(self.base_url)


class ConfigError(ValueError):
    """The config file or a value in it is invalid; the message says which and how to fix."""


_ENV = {
    "base_url": "FRONTIER_BASE_URL",
    "model": "FRONTIER_MODEL",
    "protocol": "FRONTIER_PROTOCOL",
    "approval": "FRONTIER_APPROVAL",
    "theme": "FRONTIER_THEME",
    "workspace": "FRONTIER_WORKSPACE",
    "patch_format": "FRONTIER_PATCH_FORMAT",
}


def load_config(**overrides: Any) -> Config:
    """Merge file, environment and non-``None`` ``overrides`` (the CLI flags)."""
    values: dict[str, Any] = {}
    path = config_path()
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: invalid TOML ({exc}); fix or delete the file") from exc
        known = {f.name for f in fields(Config)} - {"api_key"}
        values.update({k: v for k, v in data.items() if k in known})
    for name, var in _ENV.items():
        if os.environ.get(var):
            values[name] = os.environ[var]
    values.update({k: v for k, v in overrides.items() if v is not None})
    values["api_key"] = os.environ.get("FRONTIER_API_KEY") or os.environ.get("OPENAI_API_KEY")
    config = Config(**values)
    if config.protocol not in PROTOCOLS:
        raise ConfigError(
            f"unknown protocol {config.protocol!r}; choose one of {', '.join(PROTOCOLS)}"
        )
    if config.approval not in APPROVALS:
        raise ConfigError(
            f"unknown approval policy {config.approval!r}; choose one of {', '.join(APPROVALS)}"
        )
    if config.patch_format not in PATCH_FORMATS:
        raise ConfigError(
            f"unknown patch_format {config.patch_format!r}; choose one of "
            f"{', '.join(PATCH_FORMATS)} (set by --patch-format, FRONTIER_PATCH_FORMAT "
            f"or patch_format in {path})"
        )
    return config


def save_setting(key: str, value: str) -> None:
    """Remember one setting (e.g. the theme) in ``config.toml``, keeping the others."""
    path = config_path()
    data: dict[str, Any] = {}
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            data = {}
    data[key] = value
    lines = [f"{k} = {_toml_value(v)}" for k, v in data.items() if isinstance(v, str | int | bool)]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text("\n".join(lines) + "\n", "utf-8")
    os.replace(tmp, path)


def _toml_value(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


__all__ = [
    "Config",
    "ConfigError",
    "config_dir",
    "data_dir",
    "load_config",
    "replace",
    "save_setting",
]
