"""A file a model moved with a shell command: ``mv OLD NEW``.

As a command a rename had no review of what it moved and no undo. Such a call is the
patch tool's rename: read here, and made one in the agent loop as ``rm FILE`` is
(``tools/delete_via_shell.py``), so it is reviewed (``R old.py → src/new.py``), done
atomically and undone as any edit, and the model is shown its call as ``apply_patch``.

Only ``mv [-f] [-n] [-v] [--] OLD NEW`` alone counts (after at most ``cd DIR &&``, or in a
``workdir``): OLD a plain path naming a regular file of the workspace now (not a link,
at most 4 MiB, as for a deletion), NEW a plain path with no blank or quote, or a folder
of the workspace that the file goes into, where no file is yet (one that is there would
be lost: that stays a command, and is asked under ``auto-edit``: ``tools/destructive.py``).
Anything else: a command, run as before.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from frontier.tools.delete_via_shell import plain_command, regular_file
from frontier.tools.paths import PathError, resolve

_FLAGS = frozenset({"-f", "--force", "-n", "--no-clobber", "-v", "--verbose"})
_HEADER_SAFE = re.compile(r"[^\s'\"\\]+")
"""A path a git rename header carries as it is."""


def moved_in_command(command: object, args: Mapping[str, object], root: str | None) -> str | None:
    """The git-style patch that renames the file ``command`` (``shell``'s argument) moves
    with a plain ``mv`` and nothing else, or ``None``."""
    operands = plain_command(command, args, root, "mv", _FLAGS)
    if operands is None or len(operands) != 2 or root is None:
        return None
    old = regular_file(root, operands[0])
    if old is None:
        return None
    try:
        target = resolve(root, operands[1])
        if target.real.is_dir():
            target = resolve(root, posixpath.join(target.rel, posixpath.basename(old)))
        if target.real.exists() or target.real.is_symlink():
            return None  # a file there would be lost: a command, asked as destroying work
    except (OSError, PathError):
        return None
    new = target.rel
    if new in ("", ".", old) or not all(_HEADER_SAFE.fullmatch(p) for p in (old, new)):
        return None
    return (
        f"diff --git a/{old} b/{new}\nsimilarity index 100%\nrename from {old}\nrename to {new}\n"
    )
