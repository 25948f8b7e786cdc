"""The workspace as crash recovery needs it: hash a file, finish or undo a write, tidy temps.

Recovery (``app/session/recover.py``) decides what a call without a result did; the
file operations it needs belong to the tool layer, which wrote those files (its temp
and pre-image naming, its beneath-the-root reads). The session layer names them in
a Protocol (``recover.WorkspaceFiles``) and the runtime passes this implementation
in, so the store never imports the tools.

An intent journal is untrusted input. It comes from a session store (which people send
each other to debug a session) or from a file in the data dir, and recovery renames and
deletes the files it names: an entry naming ``../victim.txt`` as its temp, or an absolute
pre-image, would have recovery delete a file outside the workspace. So before anything is
touched, :func:`check_intent` accepts only what ``tools.atomic`` itself writes (each temp and
pre-image a single file name of exactly the writer's shape for its target, every folder
beneath the root, every hash a sha256), and a journal is acted on only when its own leftovers
are on disk: the writer's names carry 48 random bits, so a crafted journal cannot name a
file that this workspace's writer left behind.

Both checks belong to the writer, which knows what it writes: they live in ``tools.atomic``
and :func:`atomic.recover_intent` applies them itself (defence in depth: no caller can
skip them). They are re-exported here, where recovery's callers look for them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from frontier.tools import beneath
from frontier.tools.digest import sha256

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

    from frontier.tools.atomic import (
        ENTRY_KEYS,
        NOTHING_TO_FINISH,
        InvalidIntent,
        check_intent,
    )

_FROM_ATOMIC = frozenset({"ENTRY_KEYS", "NOTHING_TO_FINISH", "InvalidIntent", "check_intent"})
"""The names re-exported from ``tools.atomic``, imported on first use: the writer is ~1 ms of
``frontier undo --list``'s start-up (issue 24), which only hashes files."""


def __getattr__(name: str) -> object:
    if name in _FROM_ATOMIC:
        from frontier.tools import atomic

        return getattr(atomic, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ENTRY_KEYS",
    "NOTHING_TO_FINISH",
    "BeneathFiles",
    "InvalidIntent",
    "check_intent",
]


class BeneathFiles:
    """``recover.WorkspaceFiles`` over a workspace root, every path resolved beneath it."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
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

    def command_changes(
        self, held: Sequence[object], body_of: Callable[[str], bytes | None]
    ) -> tuple[dict[str, Any], dict[str, bytes], str] | str | None:
        """What a command a crash interrupted had changed since its watch held ``held``
        (``command_changes.recovered``: read beneath the root, nothing written)."""
        from frontier.tools.command_changes import recovered

        found = recovered(self.root, held, body_of)
        if found is None or isinstance(found, str):
            return found
        return found.meta, found.kept, found.note

    def check_write(self, entries: object) -> str | None:
        """Why ``entries`` is not an intent journal this writer could have written
        (:func:`check_intent`); ``None`` when recovery may act on it."""
        from frontier.tools.atomic import check_intent

        return check_intent(entries)

    def finish_write(self, entries: Sequence[Mapping[str, Any]]) -> str:
        """Roll an interrupted multi-file write forward or back from its journal entries.

        Raises ``InvalidIntent`` (nothing touched) for entries :func:`check_intent` refuses,
        whoever calls; returns :data:`NOTHING_TO_FINISH` (nothing touched) when none of the
        journal's temps and pre-images exists, since then it is no write interrupted here
        (both checks are ``atomic.recover_intent``'s own)."""
        from frontier.tools.atomic import recover_intent

        return recover_intent(self.root, entries)

    def remove_leftovers(self, paths: Sequence[str]) -> list[str]:
        """Remove temps and pre-images a killed write left next to ``paths``."""
        from frontier.tools.atomic import remove_leftovers

        return remove_leftovers(self.root, paths)
