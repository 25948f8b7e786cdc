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
import re
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


_VARIABLE = re.compile(r"\$(\{\w+\}|[A-Za-z_]\w*)")
"""A shell variable at the start of a part: ``$HOME``, ``${TMPDIR}``."""


def _unshowable(c: str) -> bool:
    """A control (C0, C1, DEL) or format character (bidi overrides, zero-width ones)."""
    if c.isascii():
        return c < " " or c == "\x7f"
    import unicodedata

    return unicodedata.category(c) in ("Cc", "Cf")


def new_name_problem(rel: str) -> str | None:
    """Why no new file is made at ``rel``, else ``None``. A model's path can carry what no
    person names a file with, and each was made as written, a wrong write nobody asked for:

    - a ``\\`` (``src\\util.py``, a Windows separator to the model; here a character of
      the name, so the file was made in the root);
    - a line break, a tab or another control character (``"a.py\\n"``, a heredoc's
      argument or a JSON value with its line end), or a character that changes how the
      name is shown (a right-to-left override: ``evil\\u202ecod.txt`` shows as
      ``eviltxt.doc``; a zero-width space);
    - a space at either end of a part (``"a.py "``);
    - ``~`` or ``$HOME`` (a folder of that name was made in the workspace: a ``~`` there is
      a trap for the next ``rm -rf ~`` meant for it).

    A file that already has such a name is read and changed as named."""
    parts = rel.split("/")
    why = ""
    if "\\" in rel and os.sep == "/":
        why = "'\\', which is a character of a name here, not a separator"
        parts = rel.replace("\\", "/").split("/")
    if any(_unshowable(c) for c in rel):
        why = "a line break, a control character or one that changes how a name is shown"
    elif any(part != part.strip() for part in parts):
        why = "a space at its start or end"
    elif parts[0].startswith("~") or any(_VARIABLE.match(part) for part in parts):
        return (
            f"'{rel}': '~' and '$NAME' are not expanded here (no shell reads the path): a "
            "folder of that name would be made in the workspace; name the file by its path "
            "in the workspace"
        )
    if not why:
        return None
    meant = "/".join("".join(c for c in part if not _unshowable(c)).strip() for part in parts)
    shown = repr(rel) if not rel.isprintable() else f"'{rel}'"  # a line break, shown escaped
    return f"{shown}: a new file's name would hold {why}; write the path as '{meant}'"
