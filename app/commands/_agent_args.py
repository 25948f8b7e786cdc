"""Shared handling of the agent flags (``--provider``, ``--base-url`` ... ``--idle-timeout``)
for commands."""

from __future__ import annotations

import argparse
import os
import sys

from frontier.app.config import Config, ConfigError, load_config
from frontier.app.frontends.terminal_text import safe_print
from frontier.app.listing import listing
from frontier.app.record import replace


def config_from_args(args: argparse.Namespace) -> Config | None:
    """Merge flags over env and config.toml; print the problem and return None on error."""
    from frontier.app.cli import AGENT_OPTIONS  # loaded: it dispatched this command

    flags = {name: getattr(args, name, None) for name in AGENT_OPTIONS}
    try:
        return load_config(**flags)
    except ConfigError as exc:
        safe_print(f"frontier: {exc}", file=sys.stderr)
        return None


def with_model(config: Config, command: str) -> Config | None:
    """``config`` with a model for a new session, or ``None`` after saying why there is
    none. A real endpoint needs one (the server would be asked for model ``''`` and answer
    with an error that hides the cause); when none is set the server's ``/models`` is
    asked: the one it lists is used, and said; several are named in the refusal. A stored
    session (resume, ``run --session``) knows its model and never comes here."""
    if not config.has_endpoint or config.model:
        return config
    served = _served(config)
    if served is not None and len(served) == 1:
        safe_print(
            f"frontier{command}: model {served[0]} (the one {config.base_url}/models lists; "
            "--model names another)",
            file=sys.stderr,
        )
        return replace(config, model=served[0])
    where = f" or in [providers.{config.provider}]" if config.provider else ""
    if served:
        lists = f"the server lists {len(served)}: {listing(served, SHOWN_MODELS)}"
    elif served is None:
        from frontier.app.model.probe import endpoint_url
        from frontier.app.model.proxy_hint import proxy_advice

        via = proxy_advice(endpoint_url(config.base_url or "", "models")).rstrip(".")
        lists = f"GET {config.base_url}/models gave no answer: is the server running?{via}"
    else:
        lists = f"{config.base_url}/models lists none, and llama.cpp accepts any name"
    came = f" (the endpoint is {config.base_url_from}'s)" if config.base_url_from else ""
    safe_print(
        f"frontier{command}: no model: pass --model M with --base-url (the name the server "
        f"serves; {lists}), or set FRONTIER_MODEL or model in config.toml{where}{came}",
        file=sys.stderr,
    )
    return None


SHOWN_MODELS = 12
"""Model names a refusal shows of a long listing (a hosted API lists dozens)."""


def _served(config: Config) -> list[str] | None:
    """What the endpoint's ``/models`` lists, asked with the session's key and headers;
    empty when the key cannot be had (said again where the session needs it), ``None``
    when the server gives no answer."""
    import asyncio

    from frontier.app.config import resolve_api_key
    from frontier.app.model.catalogue import resolve_wire
    from frontier.app.model.registry import codec
    from frontier.app.model.served_models import served_models

    try:
        keyed, _ = resolve_api_key(config)
        wire = resolve_wire(config.wire, config.base_url, None)
    except (ConfigError, ValueError):  # said again, where the session needs them
        return []
    from frontier.app.model.transport import request_path

    base, spoken = config.base_url or "", codec(wire)
    headers = {**dict(config.headers), **spoken.headers(keyed.api_key)}
    return asyncio.run(served_models(base, headers, path=request_path(spoken, base, "models")))


def terminal_problem() -> str | None:
    """Why the TUI cannot open here (stdin or stdout is not a terminal), else None.

    Textual would take over a pipe and wait for keys that never come, so a TUI command
    without a terminal refuses (or, for the demo, runs headless) instead of hanging.
    Served in a browser (``frontier serve``, textual-serve), Textual's web driver speaks
    its own protocol over the pipes and the browser is the terminal."""
    if served_in_browser():
        return None
    if not sys.stdout.isatty():
        return "stdout is not a terminal"
    if not sys.stdin.isatty():
        return "stdin is not a terminal"
    return None


def served_in_browser() -> bool:
    """True under textual-serve (``frontier serve``): it starts each session with
    ``TEXTUAL_DRIVER`` naming Textual's web driver, which App.run() then uses."""
    return os.environ.get("TEXTUAL_DRIVER", "").startswith("textual.drivers.web_driver")
