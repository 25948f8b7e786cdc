"""The model catalogue: what a model can do when its server does not say.

An endpoint that does not report its window (OpenAI, Anthropic, Ollama's ``/v1``) left
Frontier assuming 8,192 tokens, silently: a gpt-4.1 session (1,047,576 tokens) was
compacted after four file reads. And whether a model calls tools natively decides the
protocol ``auto`` picks, which wire a codex model needs, and whether a cut-off reply can
be continued. Those facts live in one data file, ``catalogue.toml`` beside this module
(package data), one ``[[model]]`` table per model or family; docs/models.md explains the
fields and where the figures came from.

**Names.** :func:`lookup` takes the name as a user or a server writes it and normalises
it (:func:`normalize_model_name`): lower case; everything up to the last ``/`` dropped
(``openai/gpt-4.1``, ``models/gemini-2.5-pro``, ``Qwen/Qwen2.5-Coder-7B-Instruct``, a
GGUF path); ``:`` written ``-`` (Ollama's ``qwen2.5-coder:7b``, OpenRouter's ``:free``,
Bedrock's ``-v1:0``); a Bedrock region/vendor prefix (``us.anthropic.``) and a
``.gguf`` suffix dropped. A pattern then matches the start of the name, and what
follows it must begin a new part (``-``, ``.``, ``_``, ``@``) and must not be another
version: ``gpt-4o`` matches ``gpt-4o-2024-08-06`` (a dated snapshot is its family) and
``gpt-4o-mini`` would too were there no longer pattern, but ``gpt-4`` never matches
``gpt-4o`` or ``gpt-4.5``, and ``claude-sonnet-4`` never matches ``claude-sonnet-4-5``
(``-5`` is a minor version: one or two digits standing alone). A parameter count
(``-7b``, ``-0.6b``) is not a version. ``*`` in a pattern matches any run of
characters (``gpt-5*-codex``). The pattern with the most literal characters wins; a
name that continues a known family with a version the catalogue does not list
(``claude-opus-4-9``, ``mistral-large-3``) is unknown, and so is a name no pattern
matches: ``None`` — never a guess from a distant relative (``mistral-large-3`` is not
the 7B ``mistral``).

**Loading.** The file is read on the first :func:`lookup`, once per process, and
never at import (``frontier --help`` does not load it). A broken entry is skipped at
run time — a session never fails to start because of the catalogue — and is an error
in the test suite: :func:`validate_catalogue` lists every problem, and
``tests/test_model_catalogue.py`` requires none.

The resolution helpers the runtime uses sit here too, pure and tested:
:func:`resolve_window` (flag, then server, then catalogue, else an *assumed* 8,192
that the status bar and ``run`` say), :func:`resolve_protocol` (``--protocol auto``)
and :func:`resolve_wire` (``--wire auto``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, NamedTuple, cast

from frontier.app.record import record
from frontier.app.vocab import AGENT_MODES, DEFAULT_MODE, WIRES, AgentMode, Wire

DATA_FILE = "catalogue.toml"
"""The data, beside this module (``[tool.setuptools.package-data]``)."""

ASSUMED_WINDOW = 8192
"""Tokens assumed when neither the settings, the server nor the catalogue know the
window: the smallest window of the models people commonly run locally (Llama 3 8B's).
Equal to ``agent/budget.py``'s ``DEFAULT_WINDOW``."""

NATIVE_AUTO_MODE: AgentMode = "native-inc"
"""What ``--protocol auto`` picks for a model with native tools: the eager native mode."""


class CatalogueError(ValueError):
    """The catalogue file is broken; the message lists every problem (tests only)."""


@record
class ModelInfo:
    """One catalogue entry: what a model (or family) can do, and where that came from."""

    id: str
    """The entry's name (``gpt-4.1``, ``claude-sonnet-4-5``)."""
    vendor: str
    context_window: int
    """Tokens of context the vendor publishes (a local server may run less)."""
    max_output_tokens: int | None
    """Tokens one response may hold; ``None``: no separate published limit."""
    tools: bool
    """Native tool calling (``tools[]`` in the request)."""
    prefill: bool
    """Continues a trailing assistant message — without extended thinking (see
    :meth:`can_prefill`)."""
    reasoning: bool
    """Streams or spends reasoning tokens."""
    thinking: str = ""
    """How a Claude model is asked to think (``THINKING_KINDS``): ``adaptive`` (``thinking:
    {type: adaptive}`` and ``output_config.effort``: 4.6 on, the only way from Opus 4.7) or
    ``budget`` (``type: enabled`` with ``budget_tokens``: 3.7 to 4.5); empty: not known."""
    wire: Wire | None = None
    """The API the vendor serves it best over (``None``: any)."""
    wire_only: bool = False
    """Served over :attr:`wire` and no other (OpenAI's codex and pro models)."""
    open_weights: bool = False
    """Public weights: a local server may run it with a smaller window than published."""
    patterns: tuple[str, ...] = ()
    note: str = ""
    """What is uncertain, and anything a user should know."""
    reference: str = ""
    """Where the figures came from."""
    family: bool = False
    """The figures of a vendor's family (its one pattern a name prefix, ``claude``), for a
    model of it the catalogue does not list by name (:func:`known`), never by :func:`lookup`."""
    source: str = ""
    """Names the entry for notes and the budget: ``catalogue (gpt-4.1)``."""

    def can_prefill(self, *, thinking: bool = False) -> bool:
        """Whether a trailing assistant message is continued: never with extended
        thinking on (Anthropic refuses it; no other vendor documents it)."""
        return self.prefill and not thinking


# --------------------------------------------------------------------- names


_VENDOR_DOT = re.compile(
    r"^(?:(?:us|eu|apac|au|jp|global)\.)?"
    r"(?:anthropic|meta|mistral|deepseek|qwen|openai|google|amazon|cohere)\."
)
"""Bedrock's ``[region.]vendor.`` model-id prefix."""


def normalize_model_name(model: str) -> str:
    """The name as the catalogue's patterns are written (see the module doc)."""
    name = model.strip().lower().replace("\\", "/")
    name = name.rsplit("/", 1)[-1]
    name = name.removesuffix(".gguf")
    name = name.replace(":", "-").replace(" ", "-")
    return _VENDOR_DOT.sub("", name)


_REST = (
    r"(?:$|(?=[-._@])"  # the end, or a new part begins …
    r"(?:(?=[-._@]\d+(?:\.\d+)?[bkm](?:$|[-._@]))"  # … a size (-7b, -0.6b, -32k) is fine
    r"|(?![-._]\d{1,2}(?:$|[-._@]))))"  # … another version (-5, .1-, -1-2025…) is not
)
"""What may follow a matched pattern: nothing, or a new part that is not a version."""
_VERSION = (
    r"(?![-._@]\d+(?:\.\d+)?[bkm](?:$|[-._@]))"  # not a size …
    r"(?=[-._]\d{1,2}(?:$|[-._@]))"  # … but another version of the pattern's model
)
"""What follows a pattern when the name is another version of that model."""


@functools.cache
def _compile(pattern: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The pattern's matcher, and the one that says the name is another version of it.
    Compiled on first need only (a lookup compiles the few patterns whose literal head
    the name starts with, not all of them: start-up time is a person's wait)."""
    body = "^" + ".*?".join(re.escape(part) for part in pattern.split("*"))
    return re.compile(body + _REST), re.compile(body + _VERSION)


# --------------------------------------------------------------------- the data

THINKING_KINDS = ("adaptive", "budget")
"""How a Claude model is asked to think (:attr:`ModelInfo.thinking`)."""

_FIELDS: dict[str, tuple[type, bool]] = {
    "id": (str, True),
    "vendor": (str, True),
    "patterns": (list, True),
    "context_window": (int, True),
    "max_output_tokens": (int, False),
    "tools": (bool, True),
    "prefill": (bool, True),
    "reasoning": (bool, True),
    "thinking": (str, False),
    "wire": (str, False),
    "wire_only": (bool, False),
    "open_weights": (bool, False),
    "family": (bool, False),
    "note": (str, False),
    "reference": (str, False),
}
"""Each entry's keys: the type and whether it is required."""
_PATTERN_CHARS = re.compile(r"^[a-z0-9][a-z0-9.\-_@*]*$")


@record
class _Catalogue:
    entries: tuple[ModelInfo, ...]
    matchers: tuple[tuple[str, str, ModelInfo], ...]
    """(pattern, its literal head before any ``*``, entry): most literal characters first,
    then file order. A name can match only a pattern whose head it starts with."""
    problems: tuple[str, ...]
    families: tuple[ModelInfo, ...] = ()
    """The family entries (``family = true``), never matched by :func:`lookup`."""


def _entry(index: int, raw: Any) -> tuple[ModelInfo | None, list[str]]:
    """One ``[[model]]`` table as a :class:`ModelInfo`, or ``None`` and why not."""
    where = f"model #{index + 1}"
    if not isinstance(raw, dict):
        return None, [f"{where}: not a table"]
    if isinstance(raw.get("id"), str):
        where = f"model #{index + 1} ({raw['id']})"
    problems = [f"{where}: unknown key {key!r}" for key in raw if key not in _FIELDS]
    for key, (kind, required) in _FIELDS.items():
        if key not in raw:
            if required:
                problems.append(f"{where}: {key} is missing")
            continue
        value = raw[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            problems.append(f"{where}: {key} must be a {kind.__name__}, got {value!r}")
    if problems:
        return None, problems
    patterns = raw["patterns"]
    if not patterns:
        problems.append(f"{where}: patterns is empty")
    for pattern in patterns:
        if not isinstance(pattern, str) or not _PATTERN_CHARS.match(pattern):
            problems.append(
                f"{where}: pattern {pattern!r} must be lower case letters, digits and . - _ @ *"
            )
        elif normalize_model_name(pattern.replace("*", "x")) != pattern.replace("*", "x"):
            problems.append(f"{where}: pattern {pattern!r} is not written normalised")
    if raw["context_window"] <= 0:
        problems.append(f"{where}: context_window must be > 0")
    out = raw.get("max_output_tokens")
    if out is not None and not 0 < out <= raw["context_window"]:
        problems.append(f"{where}: max_output_tokens must be > 0 and at most the window")
    wire = raw.get("wire")
    if wire is not None and wire not in WIRES:
        problems.append(f"{where}: wire {wire!r} is not one of {', '.join(WIRES)}")
    if raw.get("wire_only") and wire is None:
        problems.append(f"{where}: wire_only needs a wire")
    if raw.get("family") and (len(patterns) != 1 or "*" in str(patterns[0])):
        problems.append(f"{where}: a family has one pattern, a name prefix without *")
    thinking = raw.get("thinking", "")
    if thinking and thinking not in THINKING_KINDS:
        problems.append(f"{where}: thinking {thinking!r} is not one of {', '.join(THINKING_KINDS)}")
    if problems:
        return None, problems
    info = ModelInfo(
        id=raw["id"],
        vendor=raw["vendor"],
        context_window=raw["context_window"],
        max_output_tokens=out,
        tools=raw["tools"],
        prefill=raw["prefill"],
        reasoning=raw["reasoning"],
        thinking=thinking,
        wire=cast("Wire | None", wire),
        wire_only=raw.get("wire_only", False),
        open_weights=raw.get("open_weights", False),
        patterns=tuple(patterns),
        note=raw.get("note", ""),
        reference=raw.get("reference", ""),
        family=raw.get("family", False),
        source=f"catalogue ({raw['id']})",
    )
    return info, []


def _parse(text: str) -> _Catalogue:
    """The catalogue in ``text``, keeping every good entry and naming every bad one."""
    import tomllib

    from frontier.app import toml_text

    try:
        data = toml_text.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return _Catalogue((), (), (f"{DATA_FILE}: invalid TOML ({exc})",))
    problems = [f"{DATA_FILE}: unknown top-level key {key!r}" for key in data if key != "model"]
    raw_entries = data.get("model", [])
    if not isinstance(raw_entries, list) or not raw_entries:
        return _Catalogue((), (), (*problems, f"{DATA_FILE}: no [[model]] entries"))
    entries: list[ModelInfo] = []
    families: list[ModelInfo] = []
    ids: set[str] = set()
    seen: dict[str, str] = {}
    ranked: list[tuple[int, int, str, ModelInfo]] = []
    for index, raw in enumerate(raw_entries):
        info, bad = _entry(index, raw)
        problems += bad
        if info is None:
            continue
        if info.id in ids:
            problems.append(f"model {info.id!r}: the id is used twice (the second is skipped)")
            continue
        ids.add(info.id)
        entries.append(info)
        if info.family:
            families.append(info)
            continue
        for pattern in info.patterns:
            if pattern in seen:
                problems.append(
                    f"model {info.id!r}: pattern {pattern!r} is already {seen[pattern]!r}'s"
                )
                continue
            seen[pattern] = info.id
            literal = len(pattern.replace("*", ""))
            ranked.append((-literal, len(ranked), pattern, info))
    ranked.sort(key=lambda item: (item[0], item[1]))
    matchers = tuple((pattern, pattern.split("*", 1)[0], info) for _, _, pattern, info in ranked)
    return _Catalogue(tuple(entries), matchers, tuple(problems), tuple(families))


def _read_data() -> str:
    """The data file's text: beside this module (a plain file in every install Frontier
    supports); ``importlib.resources`` only when it is not (a zip), since importing it
    costs the first request more than reading the file."""
    import os

    here = os.path.join(os.path.dirname(__file__), DATA_FILE)
    if os.path.isfile(here):
        with open(here, encoding="utf-8") as f:
            return f.read()
    from importlib import resources

    return (
        resources.files(__package__ or "frontier.app.model").joinpath(DATA_FILE).read_text("utf-8")
    )


@functools.cache
def _catalogue() -> _Catalogue:
    """The shipped catalogue, read once; an unreadable file is an empty catalogue (every
    lookup ``None``: the window falls back to the server or the assumed default)."""
    try:
        text = _read_data()
    except (OSError, UnicodeDecodeError) as exc:
        return _Catalogue((), (), (f"{DATA_FILE}: cannot read it ({exc})",))
    return _parse(text)


def validate_catalogue(text: str | None = None) -> list[str]:
    """Every problem of the shipped catalogue (or of ``text``); empty when it is sound.
    The test suite requires none; at run time broken entries are only skipped."""
    return list(_parse(text).problems if text is not None else _catalogue().problems)


def load_catalogue(text: str | None = None) -> tuple[ModelInfo, ...]:
    """Every entry, strictly: raises :class:`CatalogueError` listing the problems."""
    catalogue = _parse(text) if text is not None else _catalogue()
    if catalogue.problems:
        raise CatalogueError("; ".join(catalogue.problems))
    return catalogue.entries


def entries() -> tuple[ModelInfo, ...]:
    """The entries the runtime uses (broken ones skipped), in file order."""
    return _catalogue().entries


@functools.lru_cache(maxsize=256)
def lookup(model: str | None) -> ModelInfo | None:
    """The catalogue's entry for ``model`` as a user or server names it, or ``None``
    when no pattern matches (see the module doc for how names match)."""
    if not model or not model.strip():
        return None
    name = normalize_model_name(model)
    for pattern, head, info in _catalogue().matchers:
        if not name.startswith(head):
            continue
        match, other_version = _compile(pattern)
        if match.match(name):
            return info
        if other_version.match(name):
            return None  # a version of a known model the catalogue does not list
    return None


def known(model: str | None) -> ModelInfo | None:
    """What the catalogue knows of ``model``: its entry (:func:`lookup`), else its vendor
    family's figures when its name is the family's (``claude-opus-5`` is a Claude, however
    new), else ``None``. A session goes by this: a Claude released after the catalogue was
    taught the text protocol and budgeted at 8,192 tokens."""
    info = lookup(model)
    if info is not None or not model:
        return info
    name = normalize_model_name(model)
    for family in _catalogue().families:
        prefix = family.patterns[0]
        if name.startswith(prefix + "-") or name.startswith(prefix + "."):
            return family
    return None


# --------------------------------------------------------------------- resolution


class WindowChoice(NamedTuple):
    """The context window a session budgets with, where it came from, and whether it is
    only assumed (then the status bar and ``run`` say :func:`assumed_window_text`)."""

    tokens: int
    source: str
    assumed: bool


def resolve_window(
    flag: int | None,
    server: int | None,
    server_source: str,
    catalogue: ModelInfo | None,
) -> WindowChoice:
    """The window, in this order: the ``context_window`` setting (``flag``: the flag,
    env or config), what the server reported (``server_source`` says where, e.g. ``GET
    /props n_ctx``), the catalogue's figure, else :data:`ASSUMED_WINDOW`, *assumed*.

    The server beats the catalogue because it knows what it actually runs (llama.cpp's
    per-slot ``n_ctx`` is often far below the model's trained window). A value ≤ 0 counts
    as unknown."""
    if flag is not None and flag > 0:
        return WindowChoice(flag, "config", False)
    if server is not None and server > 0:
        return WindowChoice(server, server_source or "server", False)
    if catalogue is not None and catalogue.context_window > 0:
        return WindowChoice(catalogue.context_window, catalogue.source, False)
    return WindowChoice(ASSUMED_WINDOW, "assumed", True)


def assumed_window_text(tokens: int = ASSUMED_WINDOW) -> str:
    """What the status bar and ``run`` print when the window is only assumed."""
    return f"context window assumed: {tokens:,} — set --context-window"


def resolve_protocol(
    setting: str, model_info: ModelInfo | None, server_has_tools: bool | None
) -> AgentMode:
    """The concrete mode a new session runs in. A mode is kept as it is; ``auto`` is
    native-inc where the catalogue says the model has native tools or the server says it
    does (``server_has_tools``; ``None``: the server did not say), ctl-heredoc otherwise.
    The demo, the tour and teaching keep ctl-heredoc: their callers decide that, not
    this. Raises ``ValueError`` for a setting that is neither."""
    if setting in AGENT_MODES:
        return cast(AgentMode, setting)
    if setting != "auto":
        raise ValueError(
            f"unknown protocol {setting!r}; choose auto or one of {', '.join(AGENT_MODES)}"
        )
    if (model_info is not None and model_info.tools) or server_has_tools is True:
        return NATIVE_AUTO_MODE
    return DEFAULT_MODE


def reasons_first(model_info: ModelInfo | None, base_url: str) -> bool:
    """Whether the model may reason, silently, before it sends anything: the catalogue
    says it reasons, or it is a model the catalogue does not know on a vendor's own API
    (:data:`TOOL_HOSTS`: their new models all reason). OpenAI's reasoning models stream
    nothing while they think unless the organisation may have summaries, DeepSeek's V4
    Pro and Gemini's and Grok's thinking models send no reasoning at all, and a hard
    step takes minutes; the first-byte and idle defaults (45 and 30 s, meant to give up
    on a hung server within two minutes) cut those turns off as if the server had hung.
    They get 300 s (Codex's stream idle timeout), unless a setting names one. So does a
    model the catalogue does not know on a gateway to those vendors (:data:`PATIENT_HOSTS`:
    OpenRouter keeps the connection busy with comments while the model thinks, which are
    not content, and a new reasoning model there was cut at 45 s, asked again, and cut
    again, paid each time)."""
    if model_info is not None:
        return model_info.reasoning
    return host_has_tools(base_url) is True or _host(base_url) in PATIENT_HOSTS


_WIRE_HOSTS: Mapping[str, Wire] = {
    "api.anthropic.com": "anthropic-messages",
    "api.openai.com": "openai-responses",
}
"""Hosts that speak one API natively: ``--wire auto`` uses it."""


TOOL_HOSTS = frozenset(
    {
        "api.openai.com",
        "api.anthropic.com",
        "generativelanguage.googleapis.com",
        "api.deepseek.com",
        "api.mistral.ai",
        "api.x.ai",
    }
)
"""Vendors' own APIs, whose chat models all take native tools: ``--protocol auto`` needs no
catalogue entry there (``gpt-6`` on api.openai.com was taught the text protocol)."""


PATIENT_HOSTS = frozenset({"openrouter.ai"})
"""Gateways whose models the catalogue does not know are waited for as reasoning models."""


def host_has_tools(base_url: str | None) -> bool | None:
    """``True`` when ``base_url`` is a vendor's own API (:data:`TOOL_HOSTS`), else ``None``
    (nothing said: a gateway or a local server serves models with and without tools)."""
    return True if _host(base_url) in TOOL_HOSTS else None


def _host(base_url: str | None) -> str:
    """``base_url``'s host, lower case; empty when it has none or is not a URL."""
    if not base_url:
        return ""
    from urllib.parse import urlsplit

    try:
        return (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        return ""


def resolve_wire(setting: str, base_url: str | None, model_info: ModelInfo | None) -> Wire:
    """The concrete wire. A wire is kept as it is; ``auto`` is, in order: by the base
    URL's host (api.anthropic.com → anthropic-messages, api.openai.com →
    openai-responses) or a path that names the Anthropic API (``…/anthropic``:
    anthropic-messages); the catalogue's wire when the model is served over no other
    (codex → openai-responses); else openai-chat, which every OpenAI-compatible server
    (llama.cpp, vLLM, Ollama, OpenRouter) speaks. Raises ``ValueError`` for a setting
    that is neither."""
    if setting in WIRES:
        return cast(Wire, setting)
    if setting != "auto":
        raise ValueError(f"unknown wire {setting!r}; choose auto or one of {', '.join(WIRES)}")
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(base_url).hostname or "").lower() if base_url else ""
    except ValueError:  # a malformed URL (the transport reports it): no host to go by
        host = ""
    if host in _WIRE_HOSTS:
        return _WIRE_HOSTS[host]
    from frontier.app.config import anthropic_path

    if anthropic_path(base_url):
        return "anthropic-messages"
    if model_info is not None and model_info.wire_only and model_info.wire is not None:
        return model_info.wire
    return "openai-chat"


__all__ = [
    "ASSUMED_WINDOW",
    "NATIVE_AUTO_MODE",
    "CatalogueError",
    "ModelInfo",
    "WindowChoice",
    "assumed_window_text",
    "entries",
    "host_has_tools",
    "known",
    "load_catalogue",
    "lookup",
    "normalize_model_name",
    "resolve_protocol",
    "resolve_window",
    "resolve_wire",
    "validate_catalogue",
]
