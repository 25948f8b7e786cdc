"""Shared handling of the agent flags (``--base-url`` ... ``--idle-timeout``) for commands."""

from __future__ import annotations

import argparse
import sys

from frontier.app.config import Config, ConfigError, load_config


def config_from_args(args: argparse.Namespace) -> Config | None:
    """Merge flags over env and config.toml; print the problem and return None on error."""
    flags = {
        name: getattr(args, name, None)
        for name in (
            "base_url",
            "model",
            "protocol",
            "approval",
            "workspace",
            "theme",
            "patch_format",
            "connect_timeout",
            "first_byte_timeout",
            "idle_timeout",
        )
    }
    try:
        return load_config(**flags)
    except ConfigError as exc:
        print(f"frontier: {exc}", file=sys.stderr)
        return None
