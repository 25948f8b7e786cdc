"""Configuration: ``config.toml`` < ``FRONTIER_*`` environment < command-line flags.

The API key, in this order: ``FRONTIER_API_KEY``; else ``api_key_command`` (a
shell command that prints it) or ``api_key_file`` (a file holding it), from
``config.toml`` or ``FRONTIER_API_KEY_COMMAND`` / ``FRONTIER_API_KEY_FILE``;
else ``OPENAI_API_KEY``. A key in Frontier's environment can be read by any
process of the same user through ``/proc/<pid>/environ`` — including the shell
commands the user approves — so the command and file forms keep it out of the
environment entirely. They are resolved once per process, when a session first
needs an endpoint (:func:`resolve_api_key`), never for the demo or a replay.
Frontier never writes the key anywhere.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from frontier.app.vocab import (
    AGENT_MODES,
    APPROVALS,
    DEFAULT_APPROVAL,
    DEFAULT_MODE,
    DEFAULT_THEME,
    PATCH_FORMATS,
    THEME_NAMES,
)

TIMEOUTS = ("connect_timeout", "first_byte_timeout", "idle_timeout")
"""Seconds; the provider's defaults (10, 45, 30) give up on a hung server within 115 s
(docs/decisions-providers.md has the arithmetic)."""


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
    protocol: str = DEFAULT_MODE
    approval: str = DEFAULT_APPROVAL
    theme: str = DEFAULT_THEME
    workspace: str | None = None
    patch_format: str = "auto"
    """``auto`` (by model name), ``unified`` or ``codex``: the patch dialect taught."""
    api_key_command: str | None = None
    """A shell command printing the key on stdout (``pass show openai``); first line used."""
    api_key_file: str | None = None
    """A file holding the key (first line); relative paths are from the config dir."""
    api_key: str | None = field(default=None, repr=False)
    """The key itself (see the module doc); ``repr`` hides it so it never lands in a log."""
    connect_timeout: float = 10.0
    """Seconds to open the connection to the endpoint."""
    first_byte_timeout: float = 45.0
    """Seconds from sending a request to the first byte of the answer (a slow model on
    a long prompt, e.g. llama.cpp on a CPU, may need more)."""
    idle_timeout: float = 30.0
    """Seconds without a byte, once the answer streams, before it counts as a stall."""
    instructions: bool = True
    """Put the project's AGENTS.md / CLAUDE.md / .frontier/instructions.md in the system
    prompt (``app/agent/instructions.py``); ``--no-instructions`` turns it off."""
    prefill: str = "auto"
    """``auto`` | ``on`` | ``off``: resume a CTL response cut by ``length`` by continuing
    it as a trailing assistant message, where the endpoint does (``auto``: llama.cpp,
    vLLM, OpenRouter, detected); else it is resent (docs/protocol.md, "Continuation")."""
    max_tokens: int | None = None
    """``max_tokens`` sent with every request (none: the server's default)."""
    context_window: int | None = None
    """The model's context window in tokens; unset, the server is asked (llama.cpp
    ``/props``, ``/models``), else 8192 is assumed (docs/context-budget.md)."""
    compact_threshold: float = 0.8
    """Compact the history before a request would use more than this share of the window."""

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
    "api_key_command": "FRONTIER_API_KEY_COMMAND",
    "api_key_file": "FRONTIER_API_KEY_FILE",
    "connect_timeout": "FRONTIER_CONNECT_TIMEOUT",
    "first_byte_timeout": "FRONTIER_FIRST_BYTE_TIMEOUT",
    "idle_timeout": "FRONTIER_IDLE_TIMEOUT",
    "instructions": "FRONTIER_INSTRUCTIONS",
    "prefill": "FRONTIER_PREFILL",
    "max_tokens": "FRONTIER_MAX_TOKENS",
    "context_window": "FRONTIER_CONTEXT_WINDOW",
    "compact_threshold": "FRONTIER_COMPACT_THRESHOLD",
}
API_KEY_COMMAND_TIMEOUT = 30.0
"""Seconds ``api_key_command`` may take (it runs without a terminal: it must not prompt)."""


def load_config(**overrides: Any) -> Config:
    """Merge file, environment and non-``None`` ``overrides`` (the CLI flags)."""
    values: dict[str, Any] = {}
    path = config_path()
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: invalid TOML ({exc}); fix or delete the file") from exc
        if "api_key" in data:
            raise ConfigError(
                f"{path} sets api_key: Frontier does not read a key from config.toml; use "
                'api_key_file = "PATH" (a file only you can read) or api_key_command = '
                '"COMMAND" (prints the key), or export FRONTIER_API_KEY'
            )
        known = {f.name for f in fields(Config)} - {"api_key"}
        values.update({k: v for k, v in data.items() if k in known})
    sources = dict.fromkeys(values, str(path))
    for name, var in _ENV.items():
        if os.environ.get(var):
            values[name] = os.environ[var]
            sources[name] = var
    flags = {k: v for k, v in overrides.items() if v is not None}
    sources.update({name: "--" + name.replace("_", "-") for name in flags})
    values.update(flags)
    for name in TIMEOUTS:
        if name in values:
            values[name] = _seconds(name, values[name], sources.get(name, name))
    if "instructions" in values:
        values["instructions"] = _switch(
            "instructions", values["instructions"], sources.get("instructions", "instructions")
        )
    if "prefill" in values:
        values["prefill"] = _prefill(values["prefill"], sources.get("prefill", "prefill"))
    if values.get("max_tokens") is not None:
        values["max_tokens"] = _tokens(
            "max_tokens", values["max_tokens"], sources.get("max_tokens", "max_tokens")
        )
    if values.get("context_window") is not None:
        values["context_window"] = _tokens(
            "context_window", values["context_window"], sources.get("context_window", "")
        )
    if "compact_threshold" in values:
        values["compact_threshold"] = _share(
            "compact_threshold", values["compact_threshold"], sources.get("compact_threshold", "")
        )
    for name in ("api_key_command", "api_key_file"):
        value = values.get(name)
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"{path}: {name} must be a string, got {value!r}")
        values[name] = value.strip() if value and value.strip() else None
    if values["api_key_command"] and values["api_key_file"]:
        raise ConfigError(
            "both api_key_command and api_key_file are set (config.toml or "
            "FRONTIER_API_KEY_COMMAND / FRONTIER_API_KEY_FILE); keep one"
        )
    if os.environ.get("FRONTIER_API_KEY"):
        values["api_key"] = os.environ["FRONTIER_API_KEY"]
    elif not (values["api_key_command"] or values["api_key_file"]):
        values["api_key"] = os.environ.get("OPENAI_API_KEY") or None
    config = Config(**values)
    if config.protocol not in AGENT_MODES:
        raise ConfigError(
            f"unknown protocol {config.protocol!r}; choose one of {', '.join(AGENT_MODES)}"
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
    if config.theme not in THEME_NAMES:
        raise ConfigError(
            f"unknown theme {config.theme!r}; choose one of {', '.join(THEME_NAMES)} (set by "
            f"{sources.get('theme', 'theme')}; the TUI saves the one you pick in its palette)"
        )
    return config


def _seconds(name: str, value: Any, source: str) -> float:
    """A timeout setting as seconds > 0; the error names the setting and where it was set."""
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        with contextlib.suppress(ValueError):
            number = float(value.strip().removesuffix("s").strip())
    if number is None or not math.isfinite(number) or number <= 0:
        raise ConfigError(
            f"{name} must be a number of seconds > 0, got {value!r} (set by {source})"
        )
    return number


def _switch(name: str, value: Any, source: str) -> bool:
    """An on/off setting: a TOML boolean, or ``1/true/yes/on`` / ``0/false/no/off``."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be true or false, got {value!r} (set by {source})")


def _prefill(value: Any, source: str) -> str:
    """``prefill``: ``auto``, ``on`` or ``off`` (a TOML boolean means on/off)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    text = str(value).strip().lower()
    text = {"true": "on", "yes": "on", "1": "on", "false": "off", "no": "off", "0": "off"}.get(
        text, text
    )
    if text not in ("auto", "on", "off"):
        raise ConfigError(f"prefill must be auto, on or off, got {value!r} (set by {source})")
    return text


def _tokens(name: str, value: Any, source: str) -> int:
    """A token count > 0 (``max_tokens``); the error names the setting and where it was set."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    if number is None or number <= 0:
        raise ConfigError(
            f"{name} must be a whole number of tokens > 0, got {value!r} (set by {source})"
        )
    return number


def _share(name: str, value: Any, source: str) -> float:
    """A share of a whole: ``0.8``, ``"0.8"`` or ``"80%"``, above 0 and at most 1."""
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        with contextlib.suppress(ValueError):
            number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    if number is None or not math.isfinite(number) or not 0 < number <= 1:
        raise ConfigError(
            f"{name} must be a share of the window between 0 and 1 (0.8 or 80%), got "
            f"{value!r} (set by {source or name})"
        )
    return number


_RESOLVED: dict[tuple[str, str], str] = {}
"""Keys already obtained in this process, by (setting, value): a command runs once."""


def resolve_api_key(config: Config) -> tuple[Config, list[str]]:
    """``config`` with its key from ``api_key_command`` / ``api_key_file`` when that is
    where it comes from, and notes for the user (a key file others can read).

    Raises :class:`ConfigError` naming the setting when the command fails, times out
    or prints nothing, or the file is missing, unreadable or empty.
    """
    if config.api_key or not (config.api_key_command or config.api_key_file):
        return config, []
    notes: list[str] = []
    if config.api_key_command:
        where = ("api_key_command", config.api_key_command)
        key = _RESOLVED.get(where) or _key_from_command(config.api_key_command)
    else:
        path = _key_path(config.api_key_file or "")
        where = ("api_key_file", str(path))
        key = _RESOLVED.get(where) or _key_from_file(path)
        notes += _key_file_warnings(path)
    _RESOLVED[where] = key
    return replace(config, api_key=key), notes


def _key_path(value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else config_dir() / path


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _key_from_file(path: Path) -> str:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        raise ConfigError(
            f"api_key_file {path}: cannot read it ({why}); fix api_key_file in "
            f"{config_path()} (or FRONTIER_API_KEY_FILE)"
        ) from exc
    key = _first_line(text)
    if not key:
        raise ConfigError(f"api_key_file {path} is empty; put the API key on its first line")
    return key


def _key_file_warnings(path: Path) -> list[str]:
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        return []
    if not mode & 0o077:
        return []
    return [
        f"api_key_file {path} can be read by other users (mode {mode:04o}); run chmod 600 {path}"
    ]


def _key_from_command(command: str) -> str:
    """Run ``command`` in a shell, no terminal, bounded; its stdout's first line is the key."""
    try:
        proc = subprocess.Popen(
            command,
            shell=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    except OSError as exc:
        raise ConfigError(f"api_key_command {command!r} could not start: {exc}") from exc
    try:
        out, err = proc.communicate(timeout=API_KEY_COMMAND_TIMEOUT)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise ConfigError(
            f"api_key_command {command!r} did not finish within "
            f"{API_KEY_COMMAND_TIMEOUT:g} s; it runs without a terminal, so it must not "
            "prompt (unlock the keychain or agent first)"
        ) from None
    if proc.returncode != 0:
        said = " ".join(err.strip().splitlines()[-1:])[:200]
        raise ConfigError(
            f"api_key_command {command!r} failed (exit {proc.returncode})"
            + (f": {said}" if said else "")
        )
    key = _first_line(out)
    if not key:
        raise ConfigError(
            f"api_key_command {command!r} printed nothing; it must print the API key on stdout"
        )
    return key


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
    lines = [
        f"{k} = {_toml_value(v)}"
        for k, v in data.items()
        if isinstance(v, str | int | float | bool)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text("\n".join(lines) + "\n", "utf-8")
    os.replace(tmp, path)


def _toml_value(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):  # a timeout like 120.5 survives saving the theme
        return repr(value)
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


# --------------------------------------------------------------------- remembered approvals

APPROVALS_FILE = "approvals.toml"
"""Beside ``config.toml``: the "always allow" rules remembered per workspace.

Outside every workspace on purpose: the agent writes files in its workspace (under
``auto-edit`` without asking), so a rules file there would let a model approve its own
commands. One ``[[workspace]]`` table per root (its real path), holding lists of
strings: ``commands`` (exact), ``command_prefixes`` (a prefix and plain arguments),
``python`` (exact code) and ``edits`` (folders relative to the root, ``.`` = all of
it); ``tools/approval_rules.py`` says what each allows."""


def approvals_path() -> Path:
    return config_dir() / APPROVALS_FILE


def load_approvals(root: Path) -> tuple[dict[str, Any], list[str]]:
    """The approvals file's entry for ``root`` (``{}`` when none) and notes for the user
    about a file that cannot be read (its rules are then not used: nothing is allowed)."""
    path = approvals_path()
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [f"{path}: cannot read it ({exc}); remembered approvals are not used"]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return {}, [f"{path}: invalid TOML ({exc}); remembered approvals are not used"]
    key = str(Path(root).resolve())
    for entry in _workspace_entries(data):
        if entry.get("root") == key:
            return entry, []
    return {}, []


def save_approvals(root: Path, rules: dict[str, list[str]]) -> Path:
    """Replace ``root``'s remembered rules (all lists empty: drop its entry), keeping every
    other workspace's; a lock file serialises two Frontiers saving at once. Returns the path."""
    import fcntl

    path = approvals_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".toml.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        entries: list[dict[str, Any]] = []
        if path.is_file():
            try:
                entries = _workspace_entries(tomllib.loads(path.read_text("utf-8")))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise ConfigError(
                    f"{path}: invalid TOML ({exc}); fix or delete it before remembering a rule"
                ) from exc
        key = str(Path(root).resolve())
        entries = [entry for entry in entries if entry.get("root") != key]
        kept = {name: list(values) for name, values in rules.items() if values}
        if kept:
            entries.append({"root": key, **kept})
        lines = [
            "# Frontier: always-allow rules remembered per workspace (a review's shift+A;",
            "# revoke from the command palette). Commands match exactly: see",
            "# docs/decisions-tui.md (Approvals that learn).",
        ]
        for entry in entries:
            lines += ["", "[[workspace]]", f"root = {_toml_string(str(entry.get('root', '')))}"]
            for name, values in entry.items():
                if name != "root" and isinstance(values, list):
                    items = ", ".join(_toml_string(str(v)) for v in values)
                    lines.append(f"{name} = [{items}]")
        tmp = path.with_suffix(".toml.tmp")
        tmp.write_text("\n".join(lines) + "\n", "utf-8")
        os.replace(tmp, path)
    return path


def _workspace_entries(data: dict[str, Any]) -> list[dict[str, Any]]:
    entries = data.get("workspace", [])
    if not isinstance(entries, list):
        return []
    return [entry for entry in entries if isinstance(entry, dict)]


def _toml_string(value: str) -> str:
    """A TOML basic string: quotes, backslashes and every control character escaped (a
    command may hold a newline or a tab)."""
    out = ['"']
    for ch in value:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


__all__ = [
    "Config",
    "ConfigError",
    "approvals_path",
    "config_dir",
    "data_dir",
    "load_approvals",
    "load_config",
    "replace",
    "resolve_api_key",
    "save_approvals",
    "save_setting",
]
