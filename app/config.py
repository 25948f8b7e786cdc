"""Configuration: ``config.toml`` < a named provider < ``FRONTIER_*`` environment < flags.

**Providers** (in the shape of Codex's ``model_providers``): a ``[providers.NAME]`` table
in ``config.toml`` names an endpoint — ``base_url``, ``wire``, where its key comes from
(``key_env``, ``key_command``, ``key_file``), its timeouts, ``max_tokens``,
``context_window`` and a default ``model``. ``--provider NAME`` (``FRONTIER_PROVIDER``,
``provider`` in config.toml) selects one; its values sit above the file's top level and
below the environment and the flags. Six are built in (:data:`BUILTIN_PROVIDERS`:
openai, anthropic, openrouter, deepseek, ollama, llamacpp); a table of the same name overrides
them key by key. docs/models.md has examples.

The API key, in this order: ``FRONTIER_API_KEY``; else ``api_key_command`` (a shell
command that prints it) or ``api_key_file`` (a file holding it), from ``config.toml`` or
``FRONTIER_API_KEY_COMMAND`` / ``FRONTIER_API_KEY_FILE`` — or, with a provider, its
``key_command`` / ``key_file``, which replace config.toml's; else an environment
variable: the provider's ``key_env``, or, with no provider, ``OPENAI_API_KEY``
(``ANTHROPIC_API_KEY`` for api.anthropic.com and for ``wire = "anthropic-messages"`` at
any other host but openrouter.ai, ``OPENROUTER_API_KEY`` first for openrouter.ai,
``DEEPSEEK_API_KEY`` only for api.deepseek.com: one
vendor's key is never sent to another). A provider without a key
source sends no key (local servers). A key in Frontier's environment can be read by any
process of the same user through ``/proc/<pid>/environ`` — including the shell commands
the user approves — so the command and file forms keep it out of the environment
entirely. They are resolved once per process, when a session first needs an endpoint
(:func:`resolve_api_key`), never for the demo or a replay; a provider's ``key_env``
that is unset is an error then, naming the variable. Frontier never writes the key
anywhere; :func:`secret_env_names` lists the variables whose values the scrubber masks.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from pathlib import Path
from typing import Any

from frontier.app.dirs import config_dir, data_dir
from frontier.app.files import write_atomic
from frontier.app.record import field, fields, record, replace
from frontier.app.vocab import (
    APPROVALS,
    DEFAULT_APPROVAL,
    DEFAULT_LAYOUT,
    DEFAULT_NOTIFY,
    DEFAULT_PROTOCOL_SETTING,
    DEFAULT_SANDBOX,
    DEFAULT_THEME,
    DEFAULT_WIRE_SETTING,
    LAYOUTS,
    NOTIFY_SETTINGS,
    PATCH_FORMATS,
    PROTOCOL_SETTINGS,
    REASONING_EFFORTS,
    SANDBOXES,
    THEME_NAMES,
    WIRE_SETTINGS,
    wire_setting,
)

TIMEOUTS = ("connect_timeout", "first_byte_timeout", "idle_timeout")
"""Seconds; the defaults (10, 45, 30) give up on a hung server within 115 s
(docs/decisions-providers.md has the arithmetic); a model that may reason silently
before it answers gets 300 for the other two (``catalogue.reasons_first``)."""


def config_path() -> Path:
    return config_dir() / "config.toml"


@record
class Config:
    base_url: str | None = None
    model: str | None = None
    protocol: str = DEFAULT_PROTOCOL_SETTING
    """``auto`` or a mode (``vocab.PROTOCOL_SETTINGS``); a new session resolves ``auto``
    to a concrete mode (``app/model/catalogue.py`` ``resolve_protocol``) and stores that."""
    approval: str = DEFAULT_APPROVAL
    theme: str = DEFAULT_THEME
    layout: str = DEFAULT_LAYOUT
    """The TUI's layout for a live session (``vocab.LAYOUTS``); the layout key (f6) saves
    the one picked, as the palette saves the theme."""
    notify: str = DEFAULT_NOTIFY
    """How the TUI calls the person back from another window (``vocab.NOTIFY_SETTINGS``)."""
    workspace: str | None = None
    patch_format: str = "auto"
    """``auto`` (by model name), ``unified`` or ``codex``: the patch dialect taught."""
    wire: str = DEFAULT_WIRE_SETTING
    """``auto`` or a wire (``vocab.WIRE_SETTINGS``): the API spoken to the endpoint;
    ``auto`` resolves by host and model (``app/model/catalogue.py`` ``resolve_wire``)."""
    provider: str | None = None
    """The named provider whose values were applied (``--provider``), if any."""
    key_env: str | None = None
    """The selected provider's key variable (its ``key_env``); set only by a provider.
    Unset when a session needs the key: :func:`resolve_api_key` says so."""
    api_key_command: str | None = None
    """A shell command printing the key on stdout (``pass show openai``); first line used."""
    api_key_file: str | None = None
    """A file holding the key (first line); relative paths are from the config dir."""
    api_key: str | None = field(default=None, repr=False)
    """The key itself (see the module doc); ``repr`` hides it so it never lands in a log."""
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """The provider's ``headers``, ``${NAME}`` read from the environment: sent with every
    request (Azure OpenAI's ``api-key``, a gateway's token). Secrets: never shown."""
    connect_timeout: float = 10.0
    """Seconds to open the connection to the endpoint."""
    first_byte_timeout: float | None = None
    """Seconds from sending a request to the first byte of the answer (a slow model on
    a long prompt, e.g. llama.cpp on a CPU, may need more). ``None``: the model's default,
    45, or 300 for a model that may reason silently first (``catalogue.reasons_first``)."""
    idle_timeout: float | None = None
    """Seconds without content (keep-alives and empty events do not count), once the
    answer streams, before it counts as a stall. ``None``: the model's default, 30, or 300
    for a model that may reason silently (``catalogue.reasons_first``)."""
    instructions: bool = True
    """Put the project's AGENTS.md / CLAUDE.md / .frontier/instructions.md in the system
    prompt (``app/agent/instructions.py``); ``--no-instructions`` turns it off."""
    prefill: str = "auto"
    """``auto`` | ``on`` | ``off``: resume a CTL response cut by ``length`` by continuing
    it as a trailing assistant message, where the endpoint does (``auto``: llama.cpp,
    vLLM, OpenRouter, detected); else it is resent (docs/protocol.md, "Continuation")."""
    max_tokens: int | None = None
    """``max_tokens`` sent with every request (none: the server's default)."""
    reasoning_effort: str = "auto"
    """How hard a reasoning model thinks (``vocab.REASONING_EFFORTS``): ``auto`` asks
    nothing (the model's default: none for Claude, medium for OpenAI's, on for DeepSeek)."""
    context_window: int | None = None
    """The model's context window in tokens; unset, the server is asked (llama.cpp
    ``/props``, ``/models``), then the model catalogue, else 8192 is assumed and said
    (docs/context-budget.md, docs/models.md)."""
    compact_threshold: float = 0.8
    """Compact the history before a request would use more than this share of the window."""
    max_calls: int = 64
    """The most tool calls one model response may make (``app/agent/loop.py``
    ``MAX_CALLS``): a call past it is not run and the model is told so."""
    max_turns: int | None = None
    """The most model requests one message may lead to before the turn stops and waits for
    the person (``None``: 100 in the TUI, 20 headless; ``app/agent/loop.py``)."""
    sandbox: str = DEFAULT_SANDBOX
    """Where ``shell`` and ``python`` run (``vocab.SANDBOXES``; ``docs/sandbox.md``):
    ``workspace-write`` (default), ``read-only`` or ``off`` (unconfined)."""
    sandbox_network: bool = False
    """A sandboxed command may use the network (``--sandbox-network on``)."""
    sandbox_writable: tuple[str, ...] = ()
    """Folders beside the workspace a sandboxed command may write (config.toml only)."""
    sandbox_readable: tuple[str, ...] = ()
    """Hidden places (``~/.ssh``…) a sandboxed command may read after all (config.toml only)."""
    sandbox_hidden: tuple[str, ...] = ()
    """More places to hide from sandboxed commands (config.toml only)."""
    base_url_from: str = field(default="", compare=False)
    """Where ``base_url`` came from when a person may not know it was set there
    (``$OPENAI_BASE_URL``): said when a session starts (:data:`SDK_BASE_URLS`)."""
    api_key_from: str = field(default="", compare=False)
    """Where ``api_key`` was read (``$FRONTIER_API_KEY``, ``api_key_file PATH``…), so an
    invalid key is reported by its source, never by its value; set with the key, and
    not part of what makes two configs equal (the same key from elsewhere is the same)."""

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
    "layout": "FRONTIER_LAYOUT",
    "notify": "FRONTIER_NOTIFY",
    "workspace": "FRONTIER_WORKSPACE",
    "patch_format": "FRONTIER_PATCH_FORMAT",
    "wire": "FRONTIER_WIRE",
    "provider": "FRONTIER_PROVIDER",
    "api_key_command": "FRONTIER_API_KEY_COMMAND",
    "api_key_file": "FRONTIER_API_KEY_FILE",
    "connect_timeout": "FRONTIER_CONNECT_TIMEOUT",
    "first_byte_timeout": "FRONTIER_FIRST_BYTE_TIMEOUT",
    "idle_timeout": "FRONTIER_IDLE_TIMEOUT",
    "instructions": "FRONTIER_INSTRUCTIONS",
    "prefill": "FRONTIER_PREFILL",
    "max_tokens": "FRONTIER_MAX_TOKENS",
    "reasoning_effort": "FRONTIER_REASONING_EFFORT",
    "context_window": "FRONTIER_CONTEXT_WINDOW",
    "compact_threshold": "FRONTIER_COMPACT_THRESHOLD",
    "max_calls": "FRONTIER_MAX_CALLS",
    "max_turns": "FRONTIER_MAX_TURNS",
    "sandbox": "FRONTIER_SANDBOX",
    "sandbox_network": "FRONTIER_SANDBOX_NETWORK",
}
SANDBOX_LISTS = ("sandbox_writable", "sandbox_readable", "sandbox_hidden")
"""Lists of paths only config.toml sets (no flag, no variable): what a sandboxed command
may also write, may read after all, and may not see."""
API_KEY_COMMAND_TIMEOUT = 30.0
"""Seconds ``api_key_command`` may take (it runs without a terminal: it must not prompt)."""

_TOP_LEVEL = frozenset(f.name for f in fields(Config)) - {
    "api_key",
    "key_env",
    "api_key_from",
    "base_url_from",
    "headers",  # read apart: a table, ${NAME} from the environment (a provider's win)
}
"""Settings config.toml's top level may hold (``key_env`` belongs to a provider)."""


# --------------------------------------------------------------------- providers


@record
class Provider:
    """A named endpoint (``[providers.NAME]`` or built in): the values it sets."""

    name: str
    base_url: str | None = None
    wire: str | None = None
    """``auto`` or a wire; ``None``: the provider does not say (the setting's own value)."""
    key_env: str | None = None
    """The environment variable holding its key (``ANTHROPIC_API_KEY``)."""
    key_command: str | None = None
    key_file: str | None = None
    connect_timeout: float | None = None
    first_byte_timeout: float | None = None
    idle_timeout: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    context_window: int | None = None
    model: str | None = None
    """The model used when no ``--model`` / ``FRONTIER_MODEL`` / ``model`` names one."""
    headers: tuple[tuple[str, str], ...] = ()
    """Headers sent with every request, as written (``${NAME}`` is read from the
    environment when a session starts: :func:`expand_headers`)."""
    defined_by: str = "built in"
    """Where it comes from: ``built in``, ``[providers.NAME] in PATH``, or both."""
    from_table: frozenset[str] = frozenset()
    """The keys its config.toml table set (the rest are built in)."""

    @property
    def has_key_source(self) -> bool:
        return bool(self.key_env or self.key_command or self.key_file)


BUILTIN_PROVIDERS: dict[str, Provider] = {
    "openai": Provider(
        "openai", "https://api.openai.com/v1", "openai-responses", key_env="OPENAI_API_KEY"
    ),
    "anthropic": Provider(
        "anthropic",
        "https://api.anthropic.com/v1",
        "anthropic-messages",
        key_env="ANTHROPIC_API_KEY",
    ),
    "openrouter": Provider(
        "openrouter", "https://openrouter.ai/api/v1", "openai-chat", key_env="OPENROUTER_API_KEY"
    ),
    "deepseek": Provider(
        "deepseek", "https://api.deepseek.com/v1", "openai-chat", key_env="DEEPSEEK_API_KEY"
    ),
    "ollama": Provider("ollama", "http://127.0.0.1:11434/v1", "openai-chat"),
    "llamacpp": Provider("llamacpp", "http://127.0.0.1:8080/v1", "openai-chat"),
}
"""Usable by name with no config: ``frontier --provider anthropic --model claude-…``.
The local ones send no key (a table with ``key_env`` adds one)."""

PROVIDER_KEYS = (
    "base_url",
    "wire",
    "key_env",
    "key_command",
    "key_file",
    "connect_timeout",
    "first_byte_timeout",
    "idle_timeout",
    "max_tokens",
    "reasoning_effort",
    "context_window",
    "model",
    "headers",
)
"""What a ``[providers.NAME]`` table may set."""
_PROVIDER_SETTING = {"key_command": "api_key_command", "key_file": "api_key_file"}
"""A provider key whose setting has another name; the others are the setting's own."""
_FOREIGN_KEYS = {
    "env_key": "key_env (the name of the variable holding the key)",
    "wire_api": 'wire ("openai-responses", "openai-chat" or "anthropic-messages")',
    "stream_idle_timeout_ms": "idle_timeout (in seconds)",
    "http_headers": "headers (a value may name ${VARIABLE})",
    "env_http_headers": 'headers, with ${VARIABLE} in the value: { "X-Key" = "${MY_KEY}" }',
    "api_key_command": "key_command",
    "api_key_file": "key_file",
    "name": "the table's own name ([providers.NAME])",
}
"""Keys users bring from Codex's ``model_providers`` or the top level: the error names
Frontier's word."""
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_HOST_KEY_ENVS = {
    "api.openai.com": ("OPENAI_API_KEY",),
    "api.anthropic.com": ("ANTHROPIC_API_KEY",),
    "openrouter.ai": ("OPENROUTER_API_KEY", "OPENAI_API_KEY"),
    "api.deepseek.com": ("DEEPSEEK_API_KEY",),
}
"""With no provider, the variables the key is read from for these hosts (in order);
for every other, those of the wire (:data:`_WIRE_KEY_ENVS`)."""
_WIRE_KEY_ENVS = {"anthropic-messages": ("ANTHROPIC_API_KEY",)}
"""With no provider and a host not in :data:`_HOST_KEY_ENVS`, the variables the key is
read from for a wire (a local proxy speaking Anthropic's API gets Anthropic's key);
``OPENAI_API_KEY`` for the OpenAI wires and ``auto``. One vendor's key is never sent
over the other's API unless a provider's ``key_env`` names it."""
SDK_BASE_URLS = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
"""The variables the vendors' own SDKs (and Codex, Claude Code) read a base URL from, for
the built-in provider of that name; ``OPENAI_BASE_URL`` also when nothing names an
endpoint at all. A person who pointed them at a proxy or a local server found Frontier
asking for ``--base-url``; or, with ``--provider openai``, sending the key past the proxy
to api.openai.com. config.toml's table for the provider, ``FRONTIER_BASE_URL`` and
``--base-url`` still win."""
SECRET_ENV_NAMES = ("FRONTIER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY")


def _table_error(name: str, path: Path, text: str) -> ConfigError:
    return ConfigError(f"[providers.{name}] in {path}: {text}")


def _provider_from_table(name: str, table: Any, path: Path) -> Provider:
    """``[providers.NAME]`` over the built-in of that name (if any), validated: every
    error names the table and the key."""
    if not isinstance(table, dict):
        raise ConfigError(
            f"{path}: providers.{name} must be a table ([providers.{name}] with keys "
            f"{', '.join(PROVIDER_KEYS)})"
        )
    if "api_key" in table:
        raise _table_error(
            name,
            path,
            "sets api_key: Frontier does not read a key from config.toml; use key_env = "
            '"VARIABLE", key_file = "PATH" or key_command = "COMMAND"',
        )
    for key in table:
        if key not in PROVIDER_KEYS:
            hint = f" (Frontier calls it {_FOREIGN_KEYS[key]})" if key in _FOREIGN_KEYS else ""
            raise _table_error(
                name, path, f"unknown setting {key!r}{hint}; known: {', '.join(PROVIDER_KEYS)}"
            )
    source = f"[providers.{name}] in {path}"
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key == "headers":
            values[key] = _header_table(f"[providers.{name}] in {path}", value)
        elif key in TIMEOUTS:
            values[key] = _seconds(key, value, source)
        elif key in ("max_tokens", "context_window"):
            values[key] = _tokens(key, value, source)
        elif not isinstance(value, str):
            raise _table_error(name, path, f"{key} must be a string, got {type(value).__name__}")
        elif key == "key_env":
            var = value.strip()
            if var and not _ENV_NAME.match(var):  # never echo it: it may be the key itself
                raise _table_error(
                    name,
                    path,
                    "key_env must name an environment variable (like ANTHROPIC_API_KEY), "
                    "not hold the key; put the key in a file (key_file) or a command "
                    "(key_command)",
                )
            values[key] = var or None  # "" removes a built-in's variable
        elif key == "wire":
            if wire_setting(value) not in WIRE_SETTINGS:
                raise _table_error(
                    name, path, f"unknown wire {value!r}; choose one of {', '.join(WIRE_SETTINGS)}"
                )
            values[key] = wire_setting(value)
        else:
            values[key] = value.strip() or None
            if key == "base_url" and values[key] and "://" not in values[key]:
                raise _table_error(
                    name, path, f"base_url must be a URL like https://host/v1, got {value!r}"
                )
    if values.get("key_command") and values.get("key_file"):
        raise _table_error(name, path, "sets both key_command and key_file; keep one")
    builtin = BUILTIN_PROVIDERS.get(name)
    if builtin is None and not values.get("base_url"):
        raise _table_error(name, path, 'needs base_url = "https://host/v1"')
    base = builtin or Provider(name)
    defined_by = f"built in, overridden by {source}" if builtin else source
    return replace(base, **values, defined_by=defined_by, from_table=frozenset(values))


HEADER_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}")
"""An HTTP header's name as config.toml may write one (a provider's, an MCP server's)."""
ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``${NAME}`` in a value config.toml writes: read from Frontier's environment."""


def _header_table(where: str, value: Any) -> tuple[tuple[str, str], ...]:
    """``headers = { NAME = "VALUE" }`` as written (``where``: the table, for errors); a
    value is never echoed in an error (it may hold a token)."""
    if not isinstance(value, dict):
        raise ConfigError(f'{where}: headers must be a table: headers = {{ "api-key" = "..." }}')
    out: list[tuple[str, str]] = []
    for header, text in value.items():
        if not HEADER_NAME.fullmatch(header):
            raise ConfigError(f"{where}: headers: {header!r} is not a header name")
        if not isinstance(text, str) or any(c in text for c in "\r\n\0"):
            raise ConfigError(f"{where}: headers: the value of {header} must be one line of text")
        out.append((header, text))
    return tuple(out)


def expand_headers(
    provider: str | None, headers: tuple[tuple[str, str], ...]
) -> tuple[tuple[str, str], ...]:
    """``headers`` with each ``${NAME}`` read from the environment, so a token lives where
    keys do and not in config.toml; a variable that is not set is an error naming it
    (``provider``: whose headers; ``None``, config.toml's top level)."""
    where = f"[providers.{provider}] headers" if provider else "headers in config.toml"
    out: list[tuple[str, str]] = []
    for header, text in headers:
        for var in ENV_REF.findall(text):
            if var not in os.environ:
                raise ConfigError(
                    f"{where}: {header} names ${{{var}}}, which is not set in the environment"
                )
        out.append((header, ENV_REF.sub(lambda m: os.environ[m.group(1)], text)))
    return tuple(out)


def _providers(data: dict[str, Any], path: Path) -> dict[str, Provider]:
    """The built-ins, then every ``[providers.NAME]`` table of ``data`` over them."""
    tables = data.get("providers", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: providers must be tables ([providers.NAME]), not a value")
    found = dict(BUILTIN_PROVIDERS)
    for name, table in tables.items():
        found[name] = _provider_from_table(name, table, path)
    return found


def load_providers() -> dict[str, Provider]:
    """Every provider usable by name: the built-ins and config.toml's tables (which
    override a built-in of the same name key by key). Raises :class:`ConfigError`."""
    path = config_path()
    return _providers(_read_config(path), path)


def _provider_layer(provider: Provider, path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """The settings ``provider`` sets, and where each was set (for error messages)."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in PROVIDER_KEYS:
        value = getattr(provider, key)
        if value is None:
            continue
        setting = _PROVIDER_SETTING.get(key, key)
        values[setting] = expand_headers(provider.name, value) if key == "headers" else value
        sources[setting] = (
            f"[providers.{provider.name}] in {path}"
            if key in provider.from_table
            else f"the built-in provider {provider.name!r}"
        )
    return values, sources


def _read_config(path: Path) -> dict[str, Any]:
    """config.toml as a dict (``{}`` when there is none); a key in it is refused."""
    import tomllib

    from frontier.app import toml_text

    if not path.is_file():
        return {}
    try:
        data = toml_text.loads(path.read_text("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc}); fix or delete the file") from exc
    if "api_key" in data:
        raise ConfigError(
            f"{path} sets api_key: Frontier does not read a key from config.toml; use "
            'api_key_file = "PATH" (a file only you can read) or api_key_command = '
            '"COMMAND" (prints the key), or export FRONTIER_API_KEY'
        )
    return data


_TABLES = frozenset({"providers", "mcp_servers", "headers", "checks", "formatters"})
"""config.toml's tables, read apart from the settings."""
_OLD_KEYS = {"read_timeout": "idle_timeout (in seconds; read_timeout was its old name)"}


def _refuse_unknown(data: dict[str, Any], path: Path) -> None:
    """A key config.toml's top level does not know is an error naming it and the nearest
    known one: it was ignored without a word, so ``modle = "qwen"`` or an old
    ``read_timeout`` did nothing while the person believed it set (a provider's table
    already refused its unknown keys)."""
    unknown = sorted(k for k in data if k not in _TOP_LEVEL and k not in _TABLES)
    if not unknown:
        return
    import difflib

    key = unknown[0]
    hint = _OLD_KEYS.get(key) or _FOREIGN_KEYS.get(key)
    if hint is None:
        close = difflib.get_close_matches(key, sorted(_TOP_LEVEL | _TABLES), n=1, cutoff=0.75)
        hint = f"did you mean {close[0]}?" if close else None
    said = f" ({hint})" if hint else ""
    more = f" (and {len(unknown) - 1} more unknown)" if len(unknown) > 1 else ""
    raise ConfigError(
        f'{path}: unknown setting {key!r}{said}{more}; remove it (README.md, "Pointing it '
        'at a model", and docs/models.md list the settings Frontier reads)'
    )


def load_config(**overrides: Any) -> Config:
    """Merge config.toml, the selected provider, the environment and non-``None``
    ``overrides`` (the CLI flags), in that order."""
    path = config_path()
    data = _read_config(path)
    _refuse_unknown(data, path)
    values: dict[str, Any] = {k: v for k, v in data.items() if k in _TOP_LEVEL}
    sources = dict.fromkeys(values, str(path))
    env = {name: os.environ[var] for name, var in _ENV.items() if os.environ.get(var)}
    flags = {k: v for k, v in overrides.items() if v is not None}
    providers = _providers(data, path)
    provider: Provider | None = None
    for layer, where in ((flags, "--provider"), (env, _ENV["provider"]), (values, str(path))):
        if layer.get("provider") is not None:
            provider = _select_provider(layer["provider"], where, providers, path)
            break
    if provider is not None:
        # the provider's key source (or its having none) replaces config.toml's
        for name in ("api_key_command", "api_key_file"):
            values.pop(name, None)
            sources.pop(name, None)
        layer_values, layer_sources = _provider_layer(provider, path)
        values.update(layer_values)
        sources.update(layer_sources)
    if provider is None and "headers" in data:  # for the endpoint --base-url names
        values["headers"] = expand_headers(None, _header_table(str(path), data["headers"]))
    values.update(env)
    sources.update({name: _ENV[name] for name in env})
    values.update(flags)
    sources.update({name: "--" + name.replace("_", "-") for name in flags})
    _sdk_base_url(provider, values, sources)
    if provider is not None:
        values["provider"] = provider.name
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
    if values.get("max_calls") is not None:
        values["max_calls"] = _tokens(
            "max_calls", values["max_calls"], sources.get("max_calls", ""), unit="calls"
        )
    if values.get("max_turns") is not None:
        values["max_turns"] = _tokens(
            "max_turns", values["max_turns"], sources.get("max_turns", ""), unit="requests"
        )
    if "compact_threshold" in values:
        values["compact_threshold"] = _share(
            "compact_threshold", values["compact_threshold"], sources.get("compact_threshold", "")
        )
    if "sandbox_network" in values:
        values["sandbox_network"] = _switch(
            "sandbox_network", values["sandbox_network"], sources.get("sandbox_network", "")
        )
    for name in SANDBOX_LISTS:
        if name in values:
            values[name] = _paths(name, values[name], sources.get(name, str(path)))
    for name, choices in (
        ("protocol", PROTOCOL_SETTINGS),
        ("wire", WIRE_SETTINGS),
        ("sandbox", SANDBOXES),
        ("layout", LAYOUTS),
        ("notify", NOTIFY_SETTINGS),
        ("reasoning_effort", REASONING_EFFORTS),
    ):
        if name in values:
            value = values[name]
            if name == "wire" and isinstance(value, str):
                value = wire_setting(value)  # --wire anthropic, FRONTIER_WIRE=responses
            values[name] = _choice(name, value, choices, sources.get(name, name))
    for name in ("api_key_command", "api_key_file"):
        value = values.get(name)
        if value is not None and not isinstance(value, str):
            raise ConfigError(
                f"{name} must be a string, got {value!r} (set by {sources.get(name, name)})"
            )
        values[name] = value.strip() if value and value.strip() else None
    if values["api_key_command"] and values["api_key_file"]:
        raise ConfigError(
            "both api_key_command and api_key_file are set (api_key_command by "
            f"{sources.get('api_key_command')}, api_key_file by {sources.get('api_key_file')}); "
            "keep one"
        )
    if os.environ.get("FRONTIER_API_KEY"):
        values["api_key"] = os.environ["FRONTIER_API_KEY"]
        values["api_key_from"] = "$FRONTIER_API_KEY"
    elif not (values["api_key_command"] or values["api_key_file"]):
        var = _key_env_set(
            provider,
            values.get("base_url"),
            values.get("wire"),
            paired=values.get("base_url_from") == f"${SDK_BASE_URLS['openai']}",
        )
        if var is not None:
            values["api_key"], values["api_key_from"] = os.environ[var], f"${var}"
    config = Config(**values)
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


def _sdk_base_url(
    provider: Provider | None, values: dict[str, Any], sources: dict[str, str]
) -> None:
    """``base_url`` from :data:`SDK_BASE_URLS` where nothing of Frontier's set it."""
    if provider is None and values.get("base_url"):
        return
    if provider is not None and sources.get("base_url") in (_ENV["base_url"], "--base-url"):
        return
    found = sdk_base_url(provider)
    if found is not None:
        values["base_url"], sources["base_url"] = found
        values["base_url_from"] = found[1]


def sdk_base_url(provider: Provider | None) -> tuple[str, str] | None:
    """``(URL, "$VARIABLE")`` when the vendor SDK's variable gives ``provider`` (``None``:
    no provider) its base URL (:data:`SDK_BASE_URLS`); a value that is no URL is another
    tool's concern, not a failed start."""
    if provider is None:
        var = SDK_BASE_URLS["openai"]
    elif provider.name in SDK_BASE_URLS and "base_url" not in provider.from_table:
        var = SDK_BASE_URLS[provider.name]
    else:
        return None
    url = os.environ.get(var, "").strip()
    return (url.rstrip("/"), f"${var}") if "://" in url else None


def _select_provider(
    value: Any, source: str, providers: dict[str, Provider], path: Path
) -> Provider:
    """The provider named ``value``, or an error listing the known ones."""
    name = value.strip() if isinstance(value, str) else value
    if isinstance(name, str) and name in providers:
        return providers[name]
    raise ConfigError(
        f"unknown provider {value!r} (set by {source}); known: {', '.join(sorted(providers))}; "
        f"define others as [providers.NAME] with a base_url in {path}"
    )


def _key_env_set(
    provider: Provider | None, base_url: str | None, wire: str | None, *, paired: bool = False
) -> str | None:
    """The environment variable the key is read from, if it is set: the provider's
    ``key_env`` (a provider without one reads none), or with no provider the first set
    of the variables for the base URL's host, else for the wire. ``paired``: the base URL
    came from ``$OPENAI_BASE_URL``, whose key is ``$OPENAI_API_KEY`` whatever the host
    (as the SDK sends it: DeepSeek's docs set the two for DeepSeek), after the host's own."""
    if provider is not None:
        return provider.key_env if provider.key_env and os.environ.get(provider.key_env) else None
    envs = _default_key_envs(base_url, wire)
    if paired and "OPENAI_API_KEY" not in envs:
        envs = (*envs, "OPENAI_API_KEY")
    for var in envs:
        if os.environ.get(var):
            return var
    return None


def anthropic_path(base_url: str | None) -> bool:
    """A base URL whose path names the Anthropic API (``https://api.deepseek.com/anthropic``,
    ``https://api.z.ai/api/anthropic``, ``https://api.moonshot.ai/anthropic``: where the
    vendors that speak both APIs put their Messages endpoint)."""
    from urllib.parse import urlsplit

    try:
        path = urlsplit(base_url.strip()).path if base_url else ""
    except ValueError:
        return False
    return "anthropic" in path.lower().split("/")


def _default_key_envs(base_url: str | None, wire: str | None) -> tuple[str, ...]:
    """With no provider, the variables a key may come from: by the base URL's host when
    it is a vendor's (:data:`_HOST_KEY_ENVS`), else by the wire's vendor
    (:data:`_WIRE_KEY_ENVS`), else ``OPENAI_API_KEY``."""
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(base_url).hostname or "").lower() if base_url else ""
    except ValueError:
        host = ""
    if host in _HOST_KEY_ENVS:
        return _HOST_KEY_ENVS[host]
    if wire in (None, "auto") and anthropic_path(base_url):
        wire = "anthropic-messages"  # what --wire auto speaks there
    return _WIRE_KEY_ENVS.get(wire or "", ("OPENAI_API_KEY",))


def secret_env_names(config: Config | None = None) -> tuple[str, ...]:
    """Every environment variable a model's key or a credential header is read from,
    whatever its name: Frontier's own, every provider's ``key_env`` (the built-ins' and
    config.toml's, not only the one selected) and every ``${NAME}`` a ``headers`` table
    names (config.toml's top level and each provider's), with ``config``'s ``key_env``.
    The model's commands never get them (``tools/process.withhold``): ``key_env =
    "LLM_AUTH"`` does not read as a secret's name, and ``env | base64`` took the key to the
    model past the scrubber (an audit)."""
    names = list(SECRET_ENV_NAMES)
    if config is not None and config.key_env:
        names.append(config.key_env)
    path = config_path()
    try:
        data = _read_config(path)
        providers = _providers(data, path)
    except ConfigError:  # a broken config.toml: the built-ins and the selected one
        data, providers = {}, dict(BUILTIN_PROVIDERS)
    top = data.get("headers")
    templates = [str(value) for value in top.values()] if isinstance(top, dict) else []
    for provider in providers.values():
        names += [provider.key_env] if provider.key_env else []
        templates += [text for _, text in provider.headers]
    names += [name for text in templates for name in ENV_REF.findall(text)]
    return tuple(dict.fromkeys(names))


def _choice(name: str, value: Any, choices: tuple[str, ...], source: str) -> str:
    """A setting with a fixed vocabulary; the error lists it and names where it was set."""
    text = value.strip() if isinstance(value, str) else value
    if text not in choices:
        raise ConfigError(
            f"unknown {name} {value!r}; choose one of {', '.join(choices)} (set by {source})"
        )
    return str(text)


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


def _paths(name: str, value: Any, source: str) -> tuple[str, ...]:
    """A list of paths (``sandbox_writable``…): a TOML array of non-empty strings."""
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise ConfigError(
            f'{name} must be a list of paths, e.g. {name} = ["~/.cache/pip"], got {value!r} '
            f"(set by {source})"
        )
    out: list[str] = []
    for item in value:
        if not isinstance(item, str) or not item.strip():
            raise ConfigError(
                f"{name} must be a list of paths (non-empty strings); {item!r} is not one "
                f"(set by {source})"
            )
        out.append(item.strip())
    return tuple(out)


def key_file_path(config: Config) -> Path | None:
    """Where ``api_key_file`` points (relative paths are from the config dir), if set."""
    return _key_path(config.api_key_file) if config.api_key_file else None


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


def _tokens(name: str, value: Any, source: str, *, unit: str = "tokens") -> int:
    """A count > 0 (``max_tokens``, ``max_calls``: ``unit`` says of what); the error names
    the setting and where it was set."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    if number is None or number <= 0:
        raise ConfigError(
            f"{name} must be a whole number of {unit} > 0, got {value!r} (set by {source})"
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
    or prints nothing, or the file is missing, unreadable or empty — and naming the
    variable when the provider reads its key from one that is not set (the moment a
    session needs the key: the demo and replays never ask).
    """
    if config.api_key:
        key = valid_key(config.api_key, config.api_key_from or "the API key")
        return replace(config, api_key=key), []
    if not (config.api_key_command or config.api_key_file):
        if not config.key_env:
            return config, []  # no key to send: a local server, or one that needs none
        key = os.environ.get(config.key_env, "").strip()
        if not key:
            raise ConfigError(
                f"provider {config.provider!r} reads its API key from ${config.key_env}, "
                f"which is not set: export {config.key_env}=… (or set key_file or "
                f"key_command in [providers.{config.provider}] in {config_path()}, or "
                "FRONTIER_API_KEY)"
            )
        source = f"${config.key_env}"
        return replace(config, api_key=valid_key(key, source), api_key_from=source), []
    notes: list[str] = []
    if config.api_key_command:
        where = ("api_key_command", config.api_key_command)
        source = f"the output of api_key_command {config.api_key_command!r}"
        key = _RESOLVED.get(where) or valid_key(_key_from_command(config.api_key_command), source)
    else:
        path = _key_path(config.api_key_file or "")
        where = ("api_key_file", str(path))
        source = f"api_key_file {path}"
        key = _RESOLVED.get(where) or valid_key(_key_from_file(path), source)
        notes += _key_file_warnings(path)
    _RESOLVED[where] = key
    return replace(config, api_key=key, api_key_from=source), notes


def valid_key(value: str, source: str) -> str:
    """``value`` as an API key that can go in an HTTP header, or a :class:`ConfigError`
    naming ``source`` (a variable, a setting) and the position — never the value.

    A key pasted from a web page or a chat often carries what the eye cannot see: a
    trailing newline or no-break space, a zero-width space (U+200B) or a byte-order mark.
    httpx then fails deep inside with a traceback (a header must be ASCII). Whitespace
    at either end and format characters (Unicode category Cf) anywhere are removed; any
    other character but printable ASCII (``!`` to ``~``: every provider's key alphabet,
    JWTs included) is refused, a space inside the key too (two things were pasted)."""
    import unicodedata

    start, end = 0, len(value)
    while start < end and _invisible(value[start]):
        start += 1
    while end > start and _invisible(value[end - 1]):
        end -= 1
    kept: list[str] = []
    for at in range(start, end):
        char = value[at]
        if unicodedata.category(char) == "Cf":
            continue
        if not "!" <= char <= "~":
            raise ConfigError(
                f"{source} holds a character an API key cannot contain at position {at + 1} "
                f"of {len(value)} ({_char_name(char)}); an API key is printable ASCII without "
                "spaces: copy it again from the provider's page"
            )
        kept.append(char)
    if not kept:
        raise ConfigError(
            f"{source} holds no API key: only spaces or invisible characters "
            f"({len(value)} in all); copy the key again from the provider's page"
        )
    return "".join(kept)


def _invisible(char: str) -> bool:
    """Whitespace or a format character (U+200B, U+FEFF, U+2060…): never part of a key."""
    import unicodedata

    return char.isspace() or unicodedata.category(char) == "Cf"


def _char_name(char: str) -> str:
    """``U+00E9 LATIN SMALL LETTER E WITH ACUTE``: a character named without printing it
    (it may be a control character, or look like another)."""
    import unicodedata

    return f"U+{ord(char):04X} {unicodedata.name(char, 'a control character')}"


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
    """Run ``command`` in a shell, no terminal, bounded; its stdout's first line is the key.

    Its programs are looked up on ``PATH`` without the entries naming the current folder
    (empty, relative: ``app/programs.py``): Frontier starts in a workspace, and ``pass``
    or ``op`` found there would be the repository's, handed the key's place."""
    import signal
    import subprocess

    from frontier.app.programs import safe_path

    try:
        proc = subprocess.Popen(
            command,
            shell=True,
            env={**os.environ, "PATH": safe_path()},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    except OSError as exc:
        raise ConfigError(f"api_key_command {_hidden(command)!r} could not start: {exc}") from exc
    try:
        out, err = proc.communicate(timeout=API_KEY_COMMAND_TIMEOUT)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise ConfigError(
            f"api_key_command {_hidden(command)!r} did not finish within "
            f"{API_KEY_COMMAND_TIMEOUT:g} s; it runs without a terminal, so it must not "
            "prompt (unlock the keychain or agent first)"
        ) from None
    if proc.returncode != 0:
        said = _hidden(" ".join(err.strip().splitlines()[-1:]))[:200]
        raise ConfigError(
            f"api_key_command {_hidden(command)!r} failed (exit {proc.returncode})"
            + (f": {said}" if said else "")
        )
    key = _first_line(out)
    if not key:
        raise ConfigError(
            f"api_key_command {_hidden(command)!r} printed nothing; it must print the API key "
            "on stdout"
        )
    return key


def _hidden(text: str) -> str:
    """``text`` (the command, the last line of its stderr) with what is shaped like a
    secret ``[REDACTED]``: a key-shaped word (``sk-…``), ``--token VALUE``, ``api_key=…``, a
    ``Bearer`` token, a URL's credentials, the API-key variables' values. A failing key
    command may print the key it half read, and its error is printed, logged and shown by
    the doctor before any session (whose scrubber would know the key) exists. Hidden
    before the line is cut: half a secret is no longer known by its shape."""
    from frontier.app.secret_shapes import hidden_argv
    from frontier.app.secrets import Scrubber

    return " ".join(hidden_argv(Scrubber.from_env().scrub(text).split(" ")))


def save_setting(key: str, value: str) -> None:
    """Remember one top-level setting (e.g. the theme) in ``config.toml``, keeping
    everything else — other settings, ``[providers.NAME]`` tables and comments.

    The setting's line is replaced in place (or added at the end of the top level, before
    the first table); the result is parsed back and must equal the old file plus the one
    change, else the file is rewritten from its parsed form (comments lost, values kept).
    The file is replaced atomically and durably (``app/files.write_atomic``)."""
    import tomllib

    from frontier.app import toml_text

    path = config_path()
    text = ""
    data: dict[str, Any] = {}
    if path.is_file():
        text = path.read_text("utf-8")
        try:
            data = toml_text.loads(text)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            text, data = "", {}  # an unreadable file: start again (load_config said why)
    wanted = {**data, key: value}
    candidate = _set_top_level_line(text, key, f"{key} = {_toml_value(value)}")
    try:
        ok = toml_text.loads(candidate) == wanted
    except tomllib.TOMLDecodeError:
        ok = False
    if not ok:
        candidate = _dump_toml(wanted)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, candidate)  # whole or not at all, and its mode kept (chmod 600)


_KEY_LINE = re.compile(r"^\s*(?:\"(?P<quoted>[^\"]*)\"|(?P<bare>[A-Za-z0-9_-]+))\s*=")


def _set_top_level_line(text: str, key: str, line: str) -> str:
    """``text`` with the top-level ``key = …`` line replaced by ``line`` (added after the
    last top-level setting when there is none)."""
    lines = text.splitlines()
    last_setting = -1
    for i, current in enumerate(lines):
        stripped = current.strip()
        if stripped.startswith("["):
            break  # the first table: the top level ends here
        match = _KEY_LINE.match(current)
        if match:
            if (match.group("quoted") or match.group("bare")) == key:
                lines[i] = line
                return "\n".join(lines) + "\n"
            last_setting = i
    lines.insert(last_setting + 1, line)
    return "\n".join(lines) + "\n"


def _dump_toml(data: dict[str, Any]) -> str:
    """``data`` as TOML: scalars and arrays first, then each table (``[a.b]``) and array
    of tables — what tomllib read from a config file, written back."""
    out: list[str] = []
    _dump_table(data, (), out)
    return "\n".join(out).lstrip("\n") + "\n"


def _dump_table(data: dict[str, Any], prefix: tuple[str, ...], out: list[str]) -> None:
    def is_table(v: Any) -> bool:
        return isinstance(v, dict)

    def is_table_array(v: Any) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)

    for k, v in data.items():
        if not is_table(v) and not is_table_array(v):
            out.append(f"{_toml_key(k)} = {_toml_any(v)}")
    for k, v in data.items():
        name = (*prefix, k)
        if is_table(v):
            out += ["", "[" + ".".join(_toml_key(p) for p in name) + "]"]
            _dump_table(v, name, out)
        elif is_table_array(v):
            for item in v:
                out += ["", "[[" + ".".join(_toml_key(p) for p in name) + "]]"]
                _dump_table(item, name, out)


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_string(key)


def _toml_any(value: Any) -> str:
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, bool | int | float):
        return _toml_value(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_any(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_any(v)}" for k, v in value.items()) + "}"
    return _toml_string(str(value))  # dates and times: kept as their text


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
    import tomllib

    from frontier.app import toml_text

    path = approvals_path()
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [f"{path}: cannot read it ({exc}); remembered approvals are not used"]
    try:
        data = toml_text.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return {}, [f"{path}: invalid TOML ({exc}); remembered approvals are not used"]
    key = str(Path(root).resolve())
    for entry in _workspace_entries(data):
        if entry.get("root") == key:
            return entry, []
    return {}, []


def save_approvals(root: Path, rules: dict[str, list[str]]) -> Path:
    """Replace the lists ``rules`` names in ``root``'s entry (all lists empty: drop its
    entry), keeping its other lists (the MCP servers trusted, issue 26: ``mcp_servers``)
    and every other workspace's; a lock file serialises two Frontiers saving at once.
    Returns the path."""
    import fcntl
    import tomllib

    from frontier.app import toml_text

    path = approvals_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".toml.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        entries: list[dict[str, Any]] = []
        if path.is_file():
            try:
                entries = _workspace_entries(toml_text.loads(path.read_text("utf-8")))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise ConfigError(
                    f"{path}: invalid TOML ({exc}); fix or delete it before remembering a rule"
                ) from exc
        key = str(Path(root).resolve())
        before = [entry for entry in entries if entry.get("root") == key]
        entries = [entry for entry in entries if entry.get("root") != key]
        merged = {**(before[0] if before else {}), **rules}
        merged.pop("root", None)
        kept = {
            name: list(values)
            for name, values in merged.items()
            if isinstance(values, list) and values
        }
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
        # whole or not at all: a rule cut in half could allow more than was approved
        write_atomic(path, "\n".join(lines) + "\n")
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
    "BUILTIN_PROVIDERS",
    "PROVIDER_KEYS",
    "Config",
    "ConfigError",
    "Provider",
    "approvals_path",
    "config_dir",
    "data_dir",
    "key_file_path",
    "load_approvals",
    "load_config",
    "load_providers",
    "replace",
    "resolve_api_key",
    "save_approvals",
    "save_setting",
    "secret_env_names",
    "valid_key",
]
