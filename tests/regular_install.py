"""Running Frontier as a regular install does, in a test of this editable one.

README's ``pip install -e`` leaves setuptools' editable finder in ``site``: its ``.pth``
imports ``pathlib``, ``re`` and ``urllib.parse`` in every process, so in this venv they
look free to every command. ``python -S`` with :func:`bare_env` imports Frontier from a
folder laid out as ``site-packages/frontier`` is, without ``site``: what a command imports
there, it imports in a user's install. Only the standard library is importable then.
"""

from __future__ import annotations

import os
from pathlib import Path

import frontier.app

REPO = Path(frontier.app.__file__).resolve().parent.parent


def bare_env(folder: Path) -> dict[str, str]:
    """This process's environment, with ``folder`` made to hold ``frontier/app`` and
    ``frontier/tools`` (links to this tree) and put on ``PYTHONPATH``."""
    package = folder / "frontier"
    package.mkdir(parents=True)
    for part in ("app", "tools"):
        (package / part).symlink_to(REPO / part)
    return {**os.environ, "PYTHONPATH": str(folder)}
