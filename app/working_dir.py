"""The directory Frontier was started in may be gone: deleted or moved away under the
shell (``rm -rf`` of a checkout, ``git worktree remove``) while the shell stays in it.

Every relative path then fails deep inside ``resolve()`` with a bare ``[Errno 2] No
such file or directory`` that names nothing: ``frontier run`` printed a traceback and the
TUI "could not start the agent". The message here says what happened and the way out.
"""

from __future__ import annotations

import os
from pathlib import Path

GONE = "the current directory no longer exists (it was deleted or moved): cd into the project again"
"""What happened and the way out; a command adds its own option (``, or pass --workspace DIR``)."""

ELSEWHERE = ", or pass --workspace DIR"


def gone() -> bool:
    """Whether the process's working directory has been removed."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def resolved(path: Path) -> Path:
    """``path`` made absolute, with links resolved; ``ValueError`` saying :data:`GONE`
    when it is relative to a working directory that no longer exists."""
    try:
        return path.expanduser().resolve()
    except FileNotFoundError:
        if gone():
            raise ValueError(GONE + ELSEWHERE) from None
        raise
