"""Programs Frontier runs itself, found on a ``PATH`` the workspace cannot add to.

``ripgrep`` for grep, ``bwrap`` for the sandbox itself, ``git`` for the environment note
and ``git checkout --``, ``sed`` to read ``sed -i``, ``bash`` and ``python3`` for the
model's commands: each is looked up by name, and a lookup on the ``PATH`` as given would
take a program the workspace holds whenever ``PATH`` names the current folder — an empty
entry (``PATH=$PATH:$EXTRA`` with ``EXTRA`` unset ends in ``:``), ``.``, or a relative
one (``./node_modules/.bin``, put first by many JavaScript setups). Frontier runs in the
workspace, so a repository shipping ``git`` or ``rg`` at its top (or in its
``node_modules/.bin``) would be run unconfined — as the sandbox itself, for ``bwrap``. The
workspace is untrusted input: these lookups skip every entry that is not absolute, and
take a program in a folder inside the workspace only when it is a link to one outside it:
an activated virtual environment's ``.venv/bin/python3`` (a link to the system's
interpreter) is the project's Python, which the ``python`` tool ran before stop 60 and
runs again since stop 61; a script or a binary the workspace holds is never run.
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
        if inside is not None and _within(os.path.realpath(entry), inside):
            continue
        kept.append(entry)
    return os.pathsep.join(kept)


def find_program(
    name: str, root: str | os.PathLike[str] | None = None, path: str | None = None
) -> str | None:
    """The absolute path of the program ``name`` on ``path`` (the environment's ``PATH`` by
    default) without its empty and relative entries, or ``None``. In a folder inside
    ``root`` only a link to the program of that name outside it counts (a virtual
    environment's ``bin/python3``); :func:`safe_path` is the ``PATH`` without those
    folders."""
    given = os.environ.get("PATH", os.defpath) if path is None else path
    inside = os.path.realpath(root) if root is not None else None
    for entry in given.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        found = shutil.which(name, path=entry)
        if found is None:
            continue
        if inside is None or not _within(os.path.realpath(entry), inside):
            return found
        real = os.path.realpath(found)
        if os.path.islink(found) and not _within(real, inside) and _named(real, name):
            return found  # the workspace's name for a program it does not hold
    return None


def _named(real: str, name: str) -> bool:
    """The program a link leads to is the one named (``python3`` → ``python3.11``), not
    another the workspace names so (``git`` → ``/bin/sh``, given git's arguments)."""
    return os.path.basename(real).startswith(name)


def _within(real: str, inside: str) -> bool:
    return real == inside or real.startswith(inside.rstrip(os.sep) + os.sep)
