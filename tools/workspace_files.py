"""The workspace as crash recovery needs it: hash a file, finish or undo a write, tidy temps.

Recovery (``app/session/recover.py``) decides what a call without a result did; the
file operations it needs belong to the tool layer, which wrote those files (its temp
and pre-image naming, its beneath-the-root reads). The session layer names them in
a Protocol (``recover.WorkspaceFiles``) and the runtime passes this implementation
in, so the store never imports the tools.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from frontier.tools import beneath
from frontier.tools.atomic import recover_intent, remove_leftovers
from frontier.tools.digest import sha256


class BeneathFiles:
    """``recover.WorkspaceFiles`` over a workspace root, every path resolved beneath it."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def digest(self, path: str) -> str | None:
        """sha256 of the file at ``path`` (``None`` absent; a directory or other
        non-regular file never matches a recorded hash)."""
        try:
            return sha256(beneath.read_file(self.root, path)[0])
        except (IsADirectoryError, beneath.NotRegularFileError):
            return "<not a regular file>"
        except (OSError, ValueError):
            return "<unreadable>"

    def finish_write(self, entries: Sequence[Mapping[str, Any]]) -> str:
        """Roll an interrupted multi-file write forward or back from its journal entries."""
        return recover_intent(self.root, entries)

    def remove_leftovers(self, paths: Sequence[str]) -> list[str]:
        """Remove temps and pre-images a killed write left next to ``paths``."""
        return remove_leftovers(self.root, paths)
