"""Where Frontier keeps its files: the data dir (sessions) and the config dir.

Apart from ``config.py`` so that a command that only needs to find the store
(``frontier sessions``, ``export``, ``undo --list``, ``apply-patch``'s journals) does not
import the whole configuration module (its dataclasses, ``tomllib``, ``subprocess``) just
to read one environment variable. ``config`` re-exports both.
"""

from __future__ import annotations

import os
from pathlib import Path


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
