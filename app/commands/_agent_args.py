"""Shared handling of the agent flags (``--provider``, ``--base-url`` ... ``--idle-timeout``)
for commands."""

from __future__ import annotations

import argparse
import os
import sys

from frontier.app.config import Config, ConfigError, load_config
from frontier.app.frontends.terminal_text import safe_print


def config_from_args(args: argparse.Namespace) -> Config | None:
    """Merge flags over env and config.toml; print the problem and return None on error."""
    flags = {
        name: getattr(args, name, None)
        for name in (
            "provider",
            "base_url",
            "model",
            "wire",
            "protocol",
            "approval",
            "workspace",
            "theme",
            "patch_format",
            "connect_timeout",
            "first_byte_timeout",
            "idle_timeout",
            "instructions",  # --no-instructions (False) or absent (None)
            "prefill",
            "max_tokens",
            "context_window",
            "max_calls",
            "sandbox",
            "sandbox_network",
        )
    }
    try:
        return load_config(**flags)
    except ConfigError as exc:
        safe_print(f"frontier: {exc}", file=sys.stderr)
        return None


def model_missing(config: Config, command: str) -> bool:
    """A new session against a real endpoint needs a model name: without one the server
    would be asked for model ``''`` and answer with an error that hides the cause. Say
    so and return True; a stored session (resume, ``run --session``) knows its model."""
    if not config.has_endpoint or config.model:
        return False
    where = f" or in [providers.{config.provider}]" if config.provider else ""
    safe_print(
        f"frontier{command}: no model: pass --model M with --base-url (the name the "
        f"server serves; {config.base_url}/models lists them, and llama.cpp accepts any "
        f"name), or set FRONTIER_MODEL or model in config.toml{where}",
        file=sys.stderr,
    )
    return True


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
