"""Workspace path resolution: every tool path must stay inside the root.

A path is resolved with symlinks followed (``os.path.realpath``) and must land
inside the real workspace root: ``../x``, ``/etc/passwd`` and a symlink that
points out of the workspace are all refused the same way, for every tool.
``a/../b`` that stays inside is fine. Absolute paths inside the root are
accepted and shown relative.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple


class PathError(ValueError):
    """A path that is empty, malformed or outside the workspace root."""


class WorkspacePath(NamedTuple):
    rel: str
    """Workspace-relative, POSIX separators: what results and previews show."""
    real: Path
    """Absolute path with symlinks resolved: where bytes are read and written."""


def real_root(root: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(root))


def resolve(root: str | os.PathLike[str], path: str) -> WorkspacePath:
    """Resolve ``path`` (relative to ``root`` or absolute) or raise ``PathError``."""
    if not isinstance(path, str) or not path.strip():
        raise PathError("empty path; give a path relative to the workspace root, e.g. src/app.py")
    if "\x00" in path:
        raise PathError(f"path {path!r} contains a NUL byte")
    base = real_root(root)
    joined = Path(path) if os.path.isabs(path) else base / path
    real = Path(os.path.realpath(joined))
    if real != base and base not in real.parents:
        why = "is a symlink that points" if _via_symlink(base, joined) else "is"
        raise PathError(
            f"path {path!r} {why} outside the workspace root {str(base)!r}; "
            "only files inside the workspace can be used"
        )
    rel = real.relative_to(base).as_posix() if real != base else "."
    shown = _lexical_rel(base, joined)
    return WorkspacePath(rel=shown or rel, real=real)


def _lexical_rel(base: Path, joined: Path) -> str | None:
    """The path as the caller named it (not the symlink target), relative to root."""
    norm = Path(os.path.normpath(joined))
    try:
        rel = norm.relative_to(base)
    except ValueError:
        return None
    return rel.as_posix() if str(rel) != "." else "."


def _via_symlink(base: Path, joined: Path) -> bool:
    norm = Path(os.path.normpath(joined))
    try:
        norm.relative_to(base)
    except ValueError:
        return False
    return True
