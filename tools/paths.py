"""Workspace path resolution: every tool path must stay inside the root.

A path is resolved beneath the real root by directory descriptors
(``beneath``): links that stay inside the workspace are followed, ``../x``,
``/etc/passwd`` and a link that points out of the workspace are all refused
the same way, for every tool. ``a/../b`` that stays inside is fine. Absolute
paths inside the root are accepted and shown relative. Resolving here is a
check for messages and previews; every read and write resolves again at the
moment it touches the file (``beneath.parent``), so a swap in between cannot
redirect it.
"""

from __future__ import annotations

import os
from pathlib import Path

from frontier.tools.beneath import PathError, real_root, resolve_rel

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from frontier.app.record import NamedTuple

__all__ = ["PathError", "WorkspacePath", "new_name_problem", "real_root", "resolve"]


class WorkspacePath(NamedTuple):
    rel: str
    """Workspace-relative, POSIX separators, as the caller named it: what results show."""
    real: Path
    """Absolute path with links resolved (as of now): identifies the file, e.g. two names of
    one file in a patch. Reads and writes never open it: they resolve ``rel`` again."""


def resolve(root: str | os.PathLike[str], path: str) -> WorkspacePath:
    """Resolve ``path`` (relative to ``root`` or absolute) or raise ``PathError``."""
    base = real_root(root)
    real_rel = resolve_rel(base, path)
    real = base if real_rel == "." else base / real_rel
    shown = _lexical_rel(base, Path(path) if os.path.isabs(path) else base / path)
    return WorkspacePath(rel=shown or real_rel, real=real)


def _lexical_rel(base: Path, joined: Path) -> str | None:
    """The path as the caller named it (not the link target), relative to root."""
    norm = Path(os.path.normpath(joined))
    try:
        rel = norm.relative_to(base)
    except ValueError:
        return None
    return rel.as_posix() if str(rel) != "." else "."


def new_name_problem(rel: str) -> str | None:
    """Why no new file is made at ``rel``, else ``None``: a ``\\`` in it. To a model that
    writes Windows paths (``src\\util.py``) it is a separator; here it is a character of
    the name, and ``src\\util.py`` was made in the workspace's root, a wrong write nobody
    asked for. A file that already has such a name is read and changed as named."""
    if "\\" not in rel or os.sep != "/":
        return None
    return (
        f"{rel}: a new file's name would hold '\\', which is a character of a name here, not a "
        f"separator; write the path with '/': {rel.replace(chr(92), '/')}"
    )
