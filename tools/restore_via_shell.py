"""Files a model put back with ``git checkout -- PATH`` or ``git restore PATH``.

Models revert a file they broke with ``git checkout -- FILE`` (and, reflexively, a whole
folder or ``.``): git then writes the index's copy over every changed file named, the
person's uncommitted work in them too, and no undo brings that back (peers' trackers hold
days of work lost so; ``tools/destructive.py`` asks for it under ``--approval
auto-edit``). Inside the sandbox it failed besides (``.git`` is read-only there, and git
takes the index's lock). Such a call is the patch tool's: read here, and made one in the
agent loop as ``apply_patch <<'EOF'`` is (``tools/patch_via_shell.py``), the patch that
writes each changed file back to the index's copy, so it is reviewed as a diff (which
work it discards, file by file, hunk by hunk), written atomically, **undone as any edit**
(what it discarded kept), and the model is shown its call as ``apply_patch``.

Only ``git checkout [-q] -- PATH…`` and ``git restore [-W|--worktree] [-q] [--] PATH…``
count: the index's copy, the work tree only, as git writes it (``git restore --staged``,
``--source``, ``git checkout HEAD -- f``, which also writes the index, stay commands).
Each PATH a file or folder of the workspace named plainly (no glob, no pathspec magic),
after at most ``cd DIR &&`` or in a ``workdir``. The files are git's own answer: ``git
diff-files`` lists the tracked files that differ from the index beneath the PATHs, ``git
checkout-index --prefix`` writes each one's index copy into a temporary folder as
checkout writes it (line ends and ``ident`` as configured; it takes no lock, so it runs
where ``.git`` is read-only), six git runs whatever the number of files, each with the
repository's programs switched off (``tools/git_safely.py``) and its output bounded.
A file with a ``filter`` attribute (Git LFS: checkout would run its program; every
driver the config names is switched off besides), a link, a submodule, a conflict, a
mode the file would change, a file not UTF-8, more than ``patch_via_shell.MAX_CHANGED``
changed lines or ``MAX_FILES`` files, a PATH matching no changed file, or a patch the
engine would not write byte for byte as git does (``patch_via_shell.writes_exactly``):
a command, run (and asked for) as before.

The patch is made from each file's content at confirmation, so it is made only when the
files are as the call will find them (``Registry.meant``'s ``settled``).
"""

from __future__ import annotations

import os
import posixpath
import tempfile
from collections.abc import Mapping

from frontier.tools import beneath
from frontier.tools.bounded_run import Deadline
from frontier.tools.delete_via_shell import KEPT_MAX, command_words
from frontier.tools.git_safely import (
    NO_SUBMODULES,
    any_filtered,
    blobs_within,
    driver_overrides,
    run_git,
)
from frontier.tools.patch_via_shell import MAX_FILES, folder_prefix, result_patch
from frontier.tools.paths import PathError, resolve
from frontier.tools.shell_words import bash_words

_QUIET = frozenset({"-q", "--quiet"})
_RESTORE = frozenset({"-W", "--worktree", *_QUIET})
_PATHSPEC = frozenset("*?[\\")
_FILE_MODES = frozenset({"100644", "100755"})
SECONDS = 1.0
"""The longest the git runs of one call may take together (a huge repository's
``diff-files``): past it the call stays a command; the call waits on them."""


def restore_patch(command: object, args: Mapping[str, object], root: str | None) -> str | None:
    """The patch writing back the index's copy of each changed file ``command``
    (``shell``'s argument), a plain ``git checkout -- PATH…`` or ``git restore PATH…``,
    names; ``None`` when it is anything else or changes nothing (a command)."""
    found = command_words(command, root, "git")
    words = bash_words(found[1]) if found is not None else None
    if found is None or words is None or root is None:
        return None
    paths = _paths([w.text for w in words[1:]]) if all(w.pattern is None for w in words) else None
    if not paths:
        return None
    rels = _rels(paths, args, root, found[0])
    if rels is None:
        return None
    deadline = Deadline(SECONDS)
    listed = run_git(root, ["config", "--list", "--name-only", "-z"], timeout=deadline.left())
    drivers = driver_overrides(listed[1]) if listed is not None and listed[0] == 0 else None
    if drivers is None:
        return None  # no repository, or a driver named so it cannot be switched off
    top = run_git(root, ["rev-parse", "--show-prefix"], timeout=deadline.left())  # the root's
    changed = run_git(
        root,
        ["--literal-pathspecs", "diff-files", "-z", "--relative", NO_SUBMODULES, "--", *rels],
        timeout=deadline.left(),
    )
    if top is None or top[0] != 0 or changed is None or changed[0] != 0 or not changed[1]:
        return None
    files = _changed(changed[1])
    if not files or not blobs_within(root, [blob for _, _, blob in files], KEPT_MAX, deadline):
        return None
    given = b"".join(rel.encode() + b"\0" for rel, _, _ in files)
    if any_filtered(root, given, deadline):
        return None  # checkout would run its filter's program (Git LFS): not ours to mimic
    with tempfile.TemporaryDirectory(prefix="frontier-restore-") as out:
        wrote = run_git(
            root,
            ["checkout-index", f"--prefix={out}/", "-z", "--stdin"],
            given=given,
            overrides=drivers,  # and were one missed, its program is switched off
            timeout=deadline.left(),
        )
        if wrote is None or wrote[0] != 0:
            return None
        folder = os.path.join(out, top[1].decode("utf-8", "surrogateescape").rstrip("\n"))
        backs = (
            _put_back(root, rel, deleted, os.path.join(folder, rel)) for rel, deleted, _ in files
        )
        return result_patch(root, backs)


def _paths(words: list[str]) -> list[str] | None:
    """The PATHs of ``checkout -- PATH…`` / ``restore [options] [--] PATH…``; ``None``
    for any other git command or option."""
    if not words:
        return None
    command, rest = words[0], words[1:]
    if command == "checkout":
        while rest and rest[0] in _QUIET:
            rest = rest[1:]
        if not rest or rest[0] != "--":
            return None  # `git checkout NAME` may be a branch
        paths = rest[1:]
    elif command == "restore":
        paths = []
        ended = False
        for word in rest:
            if not ended and word == "--":
                ended = True
            elif not ended and word.startswith("-"):
                if word not in _RESTORE:
                    return None  # --staged, --source, --patch, --ours…
            else:
                paths.append(word)
    else:
        return None
    if any(not p or p.startswith(":") or _PATHSPEC & set(p) for p in paths):
        return None
    return paths or None


def _rels(paths: list[str], args: Mapping[str, object], root: str, folder: str) -> list[str] | None:
    """Each PATH as the workspace root names it (``.`` for the root), read from the
    call's folder; ``None`` when one is outside the workspace."""
    base = folder_prefix(args, root, folder)
    if base is None:
        return None
    rels: list[str] = []
    for path in paths:
        try:
            rel = resolve(root, path).rel if path.startswith("/") else None
        except (OSError, PathError):
            return None
        rel = posixpath.normpath(rel if rel is not None else base + path)
        if rel == ".." or rel.startswith("../") or rel.startswith("/"):
            return None
        rels.append(rel)
    return rels


def _changed(raw: bytes) -> list[tuple[str, bool, str]] | None:
    """``(path, deleted, index blob)`` of each file ``git diff-files -z`` lists, when
    each is a plain file changed in content only (or deleted); ``None`` otherwise."""
    fields = raw.split(b"\0")
    files: list[tuple[str, bool, str]] = []
    for at in range(0, len(fields) - 1, 2):
        head, path = fields[at].split(), fields[at + 1]
        if len(head) != 5 or not head[0].startswith(b":"):
            return None
        old_mode, new_mode, status = head[0][1:].decode(), head[1].decode(), head[4]
        if old_mode not in _FILE_MODES:
            return None  # a link, a submodule, a conflict (mode 000000)
        if status == b"D":
            if old_mode != "100644":
                return None  # git makes it executable; a patch would not
        elif status != b"M" or new_mode != old_mode:
            return None  # a type or mode change a patch cannot put back
        try:
            name = path.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if "\0" in name:
            return None
        files.append((name, status == b"D", head[2].decode()))
        if len(files) > MAX_FILES:
            return None
    return files


def _put_back(
    root: str, rel: str, deleted: bool, copy: str
) -> tuple[str, bytes | None, bytes] | None:
    """``(rel, its bytes now or None when deleted, the index's copy as git checked it out
    into ``copy``)``; ``None`` when either cannot be read within the limit."""
    try:
        with open(copy, "rb") as given:
            data = given.read(KEPT_MAX + 1)
        if len(data) > KEPT_MAX:
            return None  # grown past the limit by a checkout conversion (CRLF)
        if deleted:
            return rel, None, data
        mine, _mode = beneath.read_file(root, rel, KEPT_MAX)
    except (OSError, ValueError, PathError):
        return None  # too large, gone, outside the root
    return None if mine is None else (rel, mine, data)
