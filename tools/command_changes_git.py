"""What a command changed among a git work tree's files it does not name: git says which,
the index holds what they were.

``tools/command_changes.py`` holds the files a command's line names, because it cannot
read the whole workspace before every command. In a git repository it does not need to:
every tracked file ``git status`` calls unchanged is, byte for byte, what ``git
checkout`` writes from the index. So before a command that may write (not a reader's
``cat``/``grep``), ``git status`` lists the files that are not (modified, untracked: the
watch holds those as if named); after it, ``git status`` again: a file listed now and not
before was unchanged and the command changed it (its earlier content: the index's copy,
written as checkout writes it, ``checkout-index --prefix``), or it is new (untracked:
the undo deletes it). ``cargo fmt``, ``npm run format``, ``ruff format`` with no path,
``make``, a code generator are then recorded as an edit is.

Every git run is the hardened one (``tools/git_safely.py``: the repository's programs
switched off, output and time bounded, no optional lock), and any doubt records nothing
more than the named files: no repository, git missing or slow (past :data:`SECONDS` all
runs of a command together), more than :data:`INDEX_MAX` entries, a filter driver named so
it cannot be switched off, the index's entries changed by the command (``git add`` outside
the sandbox: its copies no longer say what the files were; a ``git status`` that only
rewrote its timestamps is no change), a changed file with a ``filter``
attribute (Git LFS: checkout runs its program), a link or a submodule, a copy over the
store's 4 MiB. In the sandbox ``.git`` is read-only, so a command cannot change the index.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Sequence

from frontier.app.hashes import sha256_hex
from frontier.app.record import record
from frontier.tools.bounded_run import Deadline
from frontier.tools.git_safely import (
    NO_SUBMODULES,
    any_filtered,
    blobs_within,
    driver_overrides,
    index_stat,
    run_git,
)

SECONDS = 4.0
"""The longest the git runs before and after one command may take together."""
INDEX_MAX = 20_000
"""Entries of a repository's index past which its files are not watched this way (git
status grows with them, and runs twice a command)."""
STATUS_MAX = 4 * 1024 * 1024
"""Bytes of ``git status`` output read at most (past it: not watched this way)."""
WATCH_FILES = 2_000
"""Files newly changed past which nothing more is told (``command_changes.WATCH_FILES``)."""
INDEX_BYTES = INDEX_MAX * 4200
"""Bytes of ``ls-files -s`` read at most (an entry is ~50 bytes and a path at most 4,096)."""
FILE_MAX = 4 * 1024 * 1024
"""The largest index copy taken as a file's earlier content (the store keeps no larger)."""


@record
class Before:
    """A work tree as ``git status`` saw it just before a command."""

    prefix: str
    """The workspace root's folder in the repository (``""`` at its top, else ``sub/``)."""
    listed: frozenset[str]
    """Workspace-relative paths ``git status`` listed (changed, untracked, deleted…)."""
    drivers: tuple[str, ...]
    """``-c`` options switching off every filter and diff driver the config names."""
    index_path: str
    index: tuple[int, int, int] | None
    """``(inode, size, mtime_ns)`` of the index file (``None``: none yet)."""
    gone: frozenset[str] = frozenset()
    """Those of ``listed`` git calls deleted (``D``): nothing on disk to hold."""
    staged: str | None = None
    """sha256 of the index's entries (``ls-files -s``: mode, blob, path), for when its file
    changed since: a ``git status`` rewrites it with fresh timestamps, entries unchanged —
    its copies still say what the files were (``None``: not taken)."""


@record
class Found:
    """A file the command changed that git had as unchanged (or did not have)."""

    path: str
    old: bytes | None
    """The index's copy as checkout writes it (``None``: untracked, so new)."""
    old_mode: int | None


def before(root: str, deadline: Deadline) -> Before | None:
    """The work tree now, or ``None`` when git cannot say it cheaply and safely."""
    listed = run_git(root, ["config", "--list", "--name-only", "-z"], timeout=deadline.left())
    drivers = driver_overrides(listed[1]) if listed is not None and listed[0] == 0 else None
    top = run_git(
        root, ["rev-parse", "--show-prefix", "--git-path", "index"], timeout=deadline.left()
    )
    if drivers is None or top is None or top[0] != 0:
        return None
    lines = top[1].decode("utf-8", "surrogateescape").split("\n")
    if len(lines) < 2:
        return None
    prefix, index_path = lines[0], os.path.join(root, lines[1])
    index = index_stat(index_path)
    if index is not None and _entries(index_path) > INDEX_MAX:
        return None
    gone: set[str] = set()
    paths = _status(root, prefix, tuple(drivers), deadline, gone)
    if paths is None:
        return None
    staged = _index_digest(root, deadline) if index is not None else None
    return Before(
        prefix, frozenset(paths), tuple(drivers), index_path, index, frozenset(gone), staged
    )


def after(root: str, was: Before, deadline: Deadline) -> list[Found] | None:
    """The files the command changed that ``git status`` did not list before it ran, with
    what they were; ``None`` when that cannot be told exactly (module doc)."""
    now = _status(root, was.prefix, was.drivers, deadline)
    if now is None:
        return None
    new = sorted(p for p in now if p not in was.listed)
    if not new:
        return []
    if len(new) > WATCH_FILES:
        return None
    if index_stat(was.index_path) != was.index and (
        was.staged is None or _index_digest(root, deadline) != was.staged
    ):
        return None  # the command changed the index: its copies may not be what the files were
    tracked = _staged(root, new, deadline)
    if tracked is None:
        return None
    found = [Found(p, None, None) for p in new if p not in tracked]
    copied = _copies(root, was, tracked, deadline)
    if copied is None:
        return None
    return sorted(found + copied, key=lambda f: f.path)


def _status(
    root: str,
    prefix: str,
    drivers: tuple[str, ...],
    deadline: Deadline,
    gone: set[str] | None = None,
) -> set[str] | None:
    """The workspace-relative paths ``git status`` lists; those it calls deleted are added
    to ``gone`` too, when given."""
    said = run_git(
        root,
        [
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            NO_SUBMODULES,
            "--",
            ".",
        ],
        limit=STATUS_MAX,
        overrides=drivers,
        timeout=deadline.left(),
    )
    if said is None or said[0] != 0:
        return None
    out: set[str] = set()
    for entry in said[1].split(b"\0"):
        if len(entry) < 4:
            continue
        path = entry[3:].decode("utf-8", "surrogateescape")
        if not path.startswith(prefix):
            continue
        rel = path[len(prefix) :]
        if rel and not rel.endswith("/"):
            out.add(rel)
            if gone is not None and b"D" in entry[:2]:
                gone.add(rel)
    return out


def _staged(
    root: str, paths: Sequence[str], deadline: Deadline
) -> dict[str, tuple[int, str]] | None:
    """``path → (mode, blob)`` of the index entries of ``paths`` (untracked ones have
    none); ``None`` for a conflict, a link or a submodule among them."""
    said = run_git(
        root,
        ["--literal-pathspecs", "ls-files", "-s", "-z", "--", *paths],
        limit=STATUS_MAX,
        timeout=deadline.left(),
    )
    if said is None or said[0] != 0:
        return None
    out: dict[str, tuple[int, str]] = {}
    for entry in said[1].split(b"\0"):
        if not entry:
            continue
        head, _, name = entry.partition(b"\t")
        fields = head.split()
        if len(fields) != 3 or fields[2] != b"0" or fields[0] not in (b"100644", b"100755"):
            return None
        out[name.decode("utf-8", "surrogateescape")] = (int(fields[0], 8), fields[1].decode())
    return out


def _copies(
    root: str, was: Before, tracked: dict[str, tuple[int, str]], deadline: Deadline
) -> list[Found] | None:
    """Each tracked file's index copy as checkout writes it; ``None`` when one cannot be
    taken as the file's earlier content (filtered, over the cap, not written)."""
    if not tracked:
        return []
    names = list(tracked)
    given = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in names)
    if any_filtered(root, given, deadline):
        return None  # checkout would run the filter's program (Git LFS)
    if not blobs_within(root, [tracked[p][1] for p in names], FILE_MAX, deadline):
        return None
    out: list[Found] = []
    with tempfile.TemporaryDirectory(prefix="frontier-watch-") as folder:
        wrote = run_git(
            root,
            ["checkout-index", f"--prefix={folder}/", "-z", "--stdin"],
            given=given,
            overrides=was.drivers,
            timeout=deadline.left(),
        )
        if wrote is None or wrote[0] != 0:
            return None
        for path in names:
            copy = os.path.join(folder, was.prefix, path)
            try:
                with open(copy, "rb") as f:
                    data = f.read(FILE_MAX + 1)
            except OSError:
                return None
            if len(data) > FILE_MAX:
                return None
            mode = tracked[path][0]
            out.append(Found(path, data, 0o755 if mode & stat.S_IXUSR else 0o644))
    return out


def _index_digest(root: str, deadline: Deadline) -> str | None:
    """sha256 of every index entry's mode, blob, stage and path (not its timestamps)."""
    said = run_git(root, ["ls-files", "-s", "-z"], limit=INDEX_BYTES, timeout=deadline.left())
    if said is None or said[0] != 0:
        return None
    return sha256_hex(said[1])


def _entries(path: str) -> int:
    """The entry count in an index file's header (``DIRC``, version, count)."""
    try:
        with open(path, "rb") as f:
            head = f.read(12)
    except OSError:
        return INDEX_MAX + 1
    if len(head) != 12 or head[:4] != b"DIRC":
        return INDEX_MAX + 1
    return int.from_bytes(head[8:12], "big")
