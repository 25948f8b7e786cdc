"""Where Frontier keeps its files: the data dir (sessions) and the config dir.

Apart from ``config.py`` so that a command that only needs to find the store
(``frontier sessions``, ``export``, ``undo --list``, ``apply-patch``'s journals) does not
import the whole configuration module (its dataclasses, ``tomllib``, ``subprocess``) just
to read one environment variable. ``config`` re-exports both.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def data_dir() -> Path:
    """Where sessions live: ``FRONTIER_DATA_DIR`` or the platform's user data dir."""
    env = os.environ.get("FRONTIER_DATA_DIR")
    if env:
        return Path(env)
    found = xdg_dir("XDG_DATA_HOME", ".local/share")
    if found is not None:
        return found
    import platformdirs

    return Path(platformdirs.user_data_dir("frontier"))


def config_dir() -> Path:
    """Where ``config.toml`` lives: ``FRONTIER_CONFIG_DIR`` or the platform's config dir."""
    env = os.environ.get("FRONTIER_CONFIG_DIR")
    if env:
        return Path(env)
    found = xdg_dir("XDG_CONFIG_HOME", ".config")
    if found is not None:
        return found
    import platformdirs

    return Path(platformdirs.user_config_dir("frontier"))


def xdg_dir(variable: str, under_home: str) -> Path | None:
    """On Linux, platformdirs' answer in its common case, without importing it (~9 ms,
    most of a store command's start-up above the interpreter's): ``$variable/frontier``
    when the variable is absolute, else ``$HOME/under_home/frontier`` when ``HOME`` is;
    ``None`` (ask platformdirs) anywhere else. ``tests/test_dirs.py`` checks it against
    platformdirs."""
    if not sys.platform.startswith("linux"):
        return None
    path = os.environ.get(variable, "")
    if path.startswith("/"):
        return Path(path, "frontier")
    home = os.environ.get("HOME", "")
    if home.startswith("/"):
        return Path(home.rstrip("/") + "/" + under_home, "frontier")
    return None
