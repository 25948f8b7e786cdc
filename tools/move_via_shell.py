"""A file a model moved with a shell command: ``mv OLD NEW`` (and ``cp``/``mv`` onto a file).

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

**Onto a file that is there** (:func:`replaced_in_command`): models write a new version
beside a file and swap it in (``mv app_new.py app.py``), or start from a template (``cp
.env.example .env``). As commands these replaced the file for good, asked under
``auto-edit`` as destroying work (headless: refused) and shown to the person as the
command's line alone. Such a call is the patch that gives NEW the lines of OLD (``mv``:
and deletes OLD): the review shows what changes in the file replaced, line by line, and
undo brings it back. Only when both are regular UTF-8 files of the workspace (not links),
``mv`` of two files with one mode (``mv`` gives NEW OLD's mode; a patch keeps NEW's), a
``cp`` target with one link (``cp`` writes into it: its other names would see the new
lines), within ``result_patch``'s bounds; ``-n`` (nothing is replaced), ``-i``, ``cp
-p``/``-a``/``-r``: a command. Made from both files' content at confirmation, so only
when the files are settled (``Registry.meant``).

**``cp OLD NEW`` onto a new file** (:func:`_copied`) is the patch creating NEW with OLD's
lines, when that is what ``cp`` makes: NEW's folder there, nothing at NEW, OLD's mode the
one a new file gets.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Mapping

from frontier.tools import beneath
from frontier.tools.atomic import default_mode, umask
from frontier.tools.delete_via_shell import KEPT_MAX, plain_command, regular_file
from frontier.tools.patch_via_shell import HEADER_SAFE, result_patch
from frontier.tools.paths import PathError, WorkspacePath, resolve

_FLAGS = frozenset({"-f", "--force", "-n", "--no-clobber", "-v", "--verbose"})


def moved_in_command(command: object, args: Mapping[str, object], root: str | None) -> str | None:
    """The git-style patch that renames the file ``command`` (``shell``'s argument) moves
    with a plain ``mv`` and nothing else, or ``None``."""
    found = _source_and_target(plain_command(command, args, root, "mv", _FLAGS), root)
    if found is None:
        return None
    old, target = found
    try:
        if target.real.exists() or target.real.is_symlink():
            return None  # a file there would be lost: a command, asked as destroying work
    except OSError:
        return None
    new = target.rel
    if new in ("", ".", old) or not all(HEADER_SAFE.fullmatch(p) for p in (old, new)):
        return None
    return (
        f"diff --git a/{old} b/{new}\nsimilarity index 100%\nrename from {old}\nrename to {new}\n"
    )


_REPLACING = {
    "mv": frozenset({"-f", "--force", "-v", "--verbose"}),
    "cp": frozenset({"-f", "--force", "-v", "--verbose"}),
}
"""The flags of a ``mv``/``cp`` onto an existing file read as a patch (``-n``: it replaces
nothing)."""


def replaced_in_command(
    command: object, args: Mapping[str, object], root: str | None
) -> str | None:
    """The patch of a plain ``mv OLD NEW`` / ``cp OLD NEW`` onto NEW, a file that exists:
    NEW's lines become OLD's (``mv``: OLD deleted); ``None`` for anything else."""
    for name, flags in _REPLACING.items():
        operands = plain_command(command, args, root, name, flags)
        if operands is not None:
            break
    else:
        return None
    found = _source_and_target(operands, root)
    if found is None or root is None:
        return None
    old, target = found
    new = regular_file(root, target.rel)
    if new is None and name == "cp":
        return _copied(root, old, target)
    if new is None or new == old:
        return None  # not there (a rename: moved_in_command), a link, the same file
    read = _both(root, old, new, moving=name == "mv")
    if read is None:
        return None
    source, replaced = read
    changes: list[tuple[str, bytes | None, bytes | None]] = [(new, replaced, source)]
    if name == "mv":
        changes.append((old, source, None))
    return result_patch(root, changes)


def _copied(root: str, old: str, target: WorkspacePath) -> str | None:
    """The patch creating ``target`` with OLD's lines (``cp OLD NEW``, NEW not there), when
    that is what ``cp`` makes: NEW's folder there, nothing at NEW (not even a dangling
    link, which ``cp`` would follow), and OLD's mode the one a new file gets (``cp`` gives
    NEW OLD's mode less the umask; a patch creates with the umask's)."""
    try:
        if not target.real.parent.is_dir() or _there(root, target.rel):
            return None
        with beneath.parent(root, old, follow_final=False) as found:
            mode = stat.S_IMODE(os.stat(found.name, dir_fd=found.fd, follow_symlinks=False).st_mode)
        if mode & ~umask() != default_mode():
            return None  # an executable script: its copy is executable, a patch's is not
        source, _ = beneath.read_file(root, old, KEPT_MAX)
    except (OSError, ValueError, PathError):
        return None
    if source is None or not HEADER_SAFE.fullmatch(target.rel):
        return None
    return result_patch(root, [(target.rel, None, source)])


def _there(root: str, path: str) -> bool:
    """Something is at ``path`` itself (a dangling link too), its links not followed."""
    try:
        with beneath.parent(root, path, follow_final=False) as found:
            os.stat(found.name, dir_fd=found.fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _source_and_target(
    operands: list[str] | None, root: str | None
) -> tuple[str, WorkspacePath] | None:
    """``OLD NEW`` of a plain ``mv``/``cp``: OLD a regular file of the workspace (its
    path), NEW where it goes (into NEW when NEW is a folder); ``None`` otherwise."""
    if operands is None or len(operands) != 2 or root is None:
        return None
    old = regular_file(root, operands[0])
    if old is None:
        return None
    try:
        target = resolve(root, operands[1])
        if target.real.is_dir():
            target = resolve(root, posixpath.join(target.rel, posixpath.basename(old)))
    except (OSError, PathError):
        return None
    return old, target


def _both(root: str, old: str, new: str, *, moving: bool) -> tuple[bytes, bytes] | None:
    """``(OLD's bytes, NEW's bytes)`` when the command's result is a patch's to say: for a
    move, the two files of one mode; for a copy, NEW with no other name (hard link)."""
    try:
        with beneath.parent(root, old, follow_final=False) as found:
            source_stat = os.stat(found.name, dir_fd=found.fd, follow_symlinks=False)
        with beneath.parent(root, new, follow_final=False) as found:
            target_stat = os.stat(found.name, dir_fd=found.fd, follow_symlinks=False)
        if (source_stat.st_dev, source_stat.st_ino) == (target_stat.st_dev, target_stat.st_ino):
            return None  # two names of one file
        if moving and stat.S_IMODE(source_stat.st_mode) != stat.S_IMODE(target_stat.st_mode):
            return None
        if not moving and target_stat.st_nlink != 1:
            return None
        source, _ = beneath.read_file(root, old, KEPT_MAX)
        replaced, _ = beneath.read_file(root, new, KEPT_MAX)
    except (OSError, ValueError, PathError):
        return None
    return None if source is None or replaced is None else (source, replaced)
