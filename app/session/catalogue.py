"""The session catalogue as people read it: shared by ``frontier sessions`` and the picker.

Lives in the core so the TUI's picker and the CLI command both import it, and
neither imports the other.
"""

from __future__ import annotations

import os


def short_path(path: str, limit: int = 40) -> str:
    """``~`` for the home directory; long paths keep their end (the project's name)."""
    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        path = "~" + path[len(home) :]
    if len(path) > limit:
        path = "…" + path[-(limit - 1) :]
    return path
