"""Programs Frontier runs itself, found on a ``PATH`` the workspace cannot add to.

``ripgrep`` for grep, ``bwrap`` for the sandbox itself, ``git`` for the environment note
and ``git checkout --``, ``sed`` to read ``sed -i``, ``bash`` and ``python3`` for the
model's commands: each is looked up by name, and a lookup on the ``PATH`` as given would
take a program the workspace holds whenever ``PATH`` names the current folder — an empty
entry (``PATH=$PATH:$EXTRA`` with ``EXTRA`` unset ends in ``:``), ``.``, or a relative
one (``./node_modules/.bin``, put first by many JavaScript setups). Frontier runs in the
workspace, so a repository shipping ``git`` or ``rg`` at its top (or in its
``node_modules/.bin``) would be run unconfined — as the sandbox itself, for ``bwrap``. The
workspace is untrusted input: these lookups skip every entry that is not absolute and
every one inside the workspace.
"""

from __future__ import annotations

import os
import shutil


def safe_path(root: str | os.PathLike[str] | None = None, path: str | None = None) -> str:
    """``path`` (the environment's ``PATH``) without the entries that name the current
    folder (empty or relative) or a folder inside ``root``."""
    given = os.environ.get("PATH", os.defpath) if path is None else path
    inside = os.path.realpath(root) if root is not None else None
    kept: list[str] = []
    for entry in given.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        if inside is not None:
            real = os.path.realpath(entry)
            if real == inside or real.startswith(inside.rstrip(os.sep) + os.sep):
                continue
        kept.append(entry)
    return os.pathsep.join(kept)


def find_program(
    name: str, root: str | os.PathLike[str] | None = None, path: str | None = None
) -> str | None:
    """The absolute path of the program ``name`` on :func:`safe_path` (of ``path``, the
    environment's ``PATH`` by default), or ``None``."""
    return shutil.which(name, path=safe_path(root, path))
