"""Files a model removed with a shell command: ``rm FILE…``.

A command keeps nothing: a file removed with ``rm`` was gone for good, unasked under
``--approval auto-edit`` (the sandbox lets a command write the workspace), and the
person's own file with it when the model misjudged whose it was. Such a call is the
patch tool's deletion: read here, and made one in the agent loop as ``apply_patch
<<'EOF'`` is (``tools/patch_via_shell.py``), so it is reviewed as a diff, done atomically
and **undone as any edit** (its files' content kept: ``app/session/preimages.py``), and
the model is shown its call as ``apply_patch``.

Only ``rm [-f] [-v] [--] FILE…`` alone counts (after at most ``cd DIR &&``, or in a
``workdir``), each FILE a plain path naming a regular file of the workspace now, at most
:data:`KEPT_MAX` bytes and holding no secret (the store keeps neither's content, so
nothing is gained: ``patch_via_shell.holds_secret``).
A folder, a link, a missing file, a glob or anything the shell would expand, another
option (``-r``, ``-i``), a second command: a command, run as before
(``tools/destructive.py`` asks for ``rm -r``).
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Mapping

from frontier.tools import beneath
from frontier.tools.patch_via_shell import SHELLS, cd_prefix, rebased
from frontier.tools.paths import PathError, resolve

KEPT_MAX = 4 * 1024 * 1024
"""The largest file made a reviewed deletion (the store keeps no larger pre-image)."""
_FLAGS = frozenset({"-f", "--force", "-v", "--verbose", "-fv", "-vf"})
_EXPANDS = frozenset("*?[]{}~$`\\")


def deleted_in_command(command: object, args: Mapping[str, object], root: str | None) -> str | None:
    """The patch that deletes the files ``command`` (``shell``'s argument) removes with a
    plain ``rm`` and nothing else, or ``None``."""
    read = plain_command(command, args, root, "rm", _FLAGS)
    if read is None:
        return None
    paths: list[str] = []
    for operand in read:
        rel = regular_file(root or "", operand)
        if rel is None or not _keepable(root or "", rel):
            return None  # a file whose content the store would not keep: no undo to offer
        if rel not in paths:
            paths.append(rel)
    body = "".join(f"*** Delete File: {path}\n" for path in paths)
    return f"*** Begin Patch\n{body}*** End Patch"


def plain_command(
    command: object,
    args: Mapping[str, object],
    root: str | None,
    name: str,
    flags: frozenset[str],
) -> list[str] | None:
    """The operands of ``command`` when it is ``name`` alone with only ``flags`` (after at
    most ``cd DIR &&``), each a plain path, as the workspace root reads it (the ``cd``, a
    ``workdir``); ``None`` for anything else."""
    found = command_words(command, root, name)
    if found is None:
        return None
    folder, _line, words = found
    operands: list[str] = []
    ended = False
    for word in words[1:]:
        if not ended and word == "--":
            ended = True
        elif not ended and word.startswith("-"):
            if word not in flags:
                return None  # -r, -i, -d …: not the plain form
        elif not word or _EXPANDS & set(word):
            return None
        else:
            based = rebased(f"*** Delete File: {word}", args, root, folder)
            if based is None:
                return None
            operands.append(based.removeprefix("*** Delete File: "))
    return operands or None


def command_words(
    command: object, root: str | None, name: str
) -> tuple[str, str, list[str]] | None:
    """``(folder, line, words)`` of a one-line ``command`` (``shell``'s argument, a string
    or ``["bash", "-lc", line]``) whose command is ``name``: the folder of a ``cd DIR &&``
    before it (``""``: none), the rest, and its words (``shlex``'s, ``name`` first);
    ``None`` for anything else, most found before splitting a word (every shell call
    comes here)."""
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 3 and command[0] in SHELLS and command[1] in ("-lc", "-c"):
            command = command[2]
        else:
            return None
    if not isinstance(command, str) or root is None or "\n" in command.strip():
        return None
    folder, line = cd_prefix(command.strip())
    if not line.startswith(name) or line[len(name) : len(name) + 1] not in ("", " ", "\t"):
        return None
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    return (folder, line, words) if words and words[0] == name else None


def regular_file(root: str, path: str) -> str | None:
    """``path``'s workspace-relative name when it is a regular file (not a link) of at
    most :data:`KEPT_MAX` bytes beneath ``root`` now; else ``None``."""
    try:
        rel = resolve(root, path).rel
        with beneath.parent(root, rel, follow_final=False) as found:
            st = os.stat(found.name, dir_fd=found.fd, follow_symlinks=False)
    except (OSError, PathError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > KEPT_MAX or rel in ("", "."):
        return None
    return rel


_RECURSIVE = frozenset(
    {"-r", "-R", "--recursive", "-rf", "-fr", "-Rf", "-fR", "-rv", "-vr"}
    | {"-rfv", "-rvf", "-frv", "-fvr", "-vrf", "-vfr"}
)
"""``rm``'s flags that make it take folders (``-r``, alone or with ``-f``/``-v``)."""
_TREE_FLAGS = _RECURSIVE | {"-f", "--force", "-v", "--verbose"}


def removed_tree_in_command(
    command: object, args: Mapping[str, object], root: str | None
) -> list[str] | None:
    """The workspace paths a plain ``rm -r PATH…`` removes, for ``remove``'s call
    (``tools/remove_tree.py``): each a file or folder of the workspace holding only
    regular files and folders within the tool's bounds, each file one the store keeps for
    undo (no secret in it: ``patch_via_shell.holds_secret``), none the workspace, inside
    ``.git`` or in what a build makes again (``node_modules``, ``dist``: not asked, and
    nothing worth keeping); ``None`` otherwise (a command, asked under ``auto-edit``)."""
    from frontier.tools.destructive import remade
    from frontier.tools.remove_tree import MAX_FILES, tree

    found = command_words(command, root, "rm")
    if found is None or root is None or not _RECURSIVE & set(found[2][1:]):
        return None  # not rm, or a plain rm FILE: the patch's deletion (deleted_in_command)
    operands = plain_command(command, args, root, "rm", _TREE_FLAGS)
    if operands is None:
        return None
    paths: list[str] = []
    count = 0
    for operand in operands:
        try:
            rel = resolve(root, operand).rel
        except (OSError, PathError):
            return None
        parts = rel.split("/")
        if rel in ("", ".") or ".git" in parts or remade(rel):
            return None
        taken = tree(root, rel)
        if taken is None:
            return None
        count += len(taken.files)
        if count > MAX_FILES or not all(_keepable(root, f) for f in taken.files):
            return None
        if rel not in paths:
            paths.append(rel)
    return paths or None


def _keepable(root: str, rel: str) -> bool:
    """Whether the store keeps ``rel``'s content for undo: readable, and holding no secret
    (``app/session/preimages.py`` keeps none)."""
    from frontier.tools.patch_via_shell import holds_secret

    try:
        data, _mode = beneath.read_file(root, rel, KEPT_MAX)
    except (OSError, ValueError, PathError):
        return False
    return data is not None and not holds_secret(data.decode("utf-8", "surrogateescape"))
