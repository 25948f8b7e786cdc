"""What a command or script changed among the files it names: kept before, compared after.

A command edits files too — ``perl -pi -e … a.py``, ``black src/``, ``ruff check --fix .``,
``cp a b``, ``echo x > notes.txt``, a script given a path — and those writes were invisible
to ``/undo``, to a rewind and to the after-edit checks: only the commands Frontier reads as a
file tool's (``rm``, ``mv``, ``sed -i``, a here-document write: ``tools/*_via_shell.py``)
became reviewed, undoable patches. So just before a ``shell`` command runs, the content of
every workspace file its line names — directly, by a glob, or inside a folder it names
(``.`` is the workspace; a name not there before that is a folder after, ``cp -r src
backup``, ``mkdir out``, is walked then: its files are new), or a script's string literals
name (a here-document's body, ``python3 -c``, the ``python`` tool's code:
``command_words.literal_words``) — is read and held; when it ends (whatever its exit: a killed
``ruff --fix`` may have fixed half) each of those files is read again, and every one it
changed, created or deleted is the call's change, its earlier content kept by the store as
an edit's is (``app/session/preimages.py``: hashed, scanned for secrets, capped). The
result then carries ``files``/``changes`` as an edit's does (so the checks run and the
panes show ``M a.py (+2 −1)``) and ``targets``, the hashes ``/undo`` checks and puts back.

What is not watched, on purpose:

- outside a git work tree, a command that names no path (``pytest``, ``make``, ``npm
  install``): what it writes is not known beforehand, and reading the whole workspace
  before every command would cost every command. In one, ``git status`` before and after
  tells (``tools/command_changes_git.py``): the files it lists before are held as if
  named, and a file it lists only after was unchanged (the index's copy is what it was)
  or is new — so there a named folder is not walked either;
- the operands of a program that only reads them (``cat``, ``grep``, ``ls``, ``git diff``,
  ``sed`` without ``-i``, ``find`` without ``-delete``/``-exec``): only their redirections
  (``> out.txt``) are;
- what ``.gitignore`` leaves out, ``.git``, and what a build remakes (``__pycache__``,
  ``node_modules``: ``destructive.remade``) — a test run's caches are no change of the
  person's;
- a line the reading cannot follow (a ``$``/backquote word, a ``cd`` to a folder not named
  plainly: what comes after it is relative to an unknown folder).

Bounded: at most :data:`WATCH_FILES` files and :data:`WATCH_BYTES` bytes held, none over the
store's :data:`~frontier.app.session.preimages.FILE_CAP`. A command that names more is not
watched *at all* — an undo that put back part of what it did would be worse than none — and
its result says why (``meta["unwatched"]``). docs/decisions-tools.md, "A command's changes".
"""

from __future__ import annotations

import functools
import hashlib
import os
import posixpath
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping

from frontier.app.hashes import sha256_hex
from frontier.app.record import record, replace
from frontier.tools import beneath
from frontier.tools.command_words import Named, named, named_in_script, only_reads
from frontier.tools.destructive import remade
from frontier.tools.paths import PathError

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

    from frontier.tools.command_changes_git import Before

WATCH_FILES = 2_000
"""Files held before a command at most; one that names more is not watched."""
WATCH_BYTES = 32 * 1024 * 1024
"""Bytes held before a command at most (the store's cap on one call's pre-images)."""
FILE_MAX = 4 * 1024 * 1024
"""The largest file held (the store keeps none larger: ``preimages.FILE_CAP``)."""
HASH_MAX = 256 * 1024 * 1024
"""A file the command left larger than this is not hashed: its changes are not recorded."""
SHOWN = 20
"""Changed files listed to the model; the rest are counted."""


@record
class Changed:
    """One file a command changed."""

    path: str
    old: bytes | None
    """Its content before (``None``: the command created it, or — after a crash — its
    earlier content was not kept: ``old_hash`` tells them apart)."""
    old_mode: int | None
    new: bytes | None
    """Its content after, when at most :data:`FILE_MAX` bytes (else ``None``, as for a
    deleted file: ``new_hash`` tells them apart)."""
    new_hash: str | None
    """sha256 of its content after (``None``: the command deleted it)."""
    new_mode: int | None
    old_hash: str | None
    """sha256 of its content before (``None``: it was not there)."""


Held = tuple["bytes | None", "int | None", str]
"""A file held before a command: its bytes (``None``: not kept, after a crash), its
permission bits and its sha256."""


class Watch:
    """The files a command names, as they were just before it ran (:meth:`take`)."""

    def __init__(self, root: str | os.PathLike[str], named: Named) -> None:
        self.root = root
        self.named = named
        self.before: dict[str, Held] = {}
        """Each file held: its bytes, permission bits and hash."""
        self.found: set[str] = set()
        """Paths met before the command but not held (unreadable): not new after it."""
        self.git: Before | None = None
        """The git work tree as it was, when the root is in one (``command_changes_git``)."""
        self.listed: tuple[str, ...] = ()
        """The files ``git status`` listed before, held as if named."""
        self.made_folders: list[str] = []
        """Names not there before the command that are folders after it (:meth:`changes`)."""
        self._total = 0
        self._held_after = 0

    @classmethod
    def take(
        cls, root: str | os.PathLike[str], command: str, *, script: bool = False
    ) -> Watch | str | None:
        """The named files held now: the watch; ``None`` when the line names nothing to
        watch; or why it is not watched (more than the bounds). ``script``: ``command`` is
        the ``python`` tool's code, read for its string literals alone."""
        names = named_in_script(command, root) if script else named(command, root)
        if names.over is not None:
            return names.over
        watch = cls(root, names)
        if script or not only_reads(command):
            watch._watch_repository()
        if watch.git is not None and names.folders:
            # git answers for a folder's files: the ones it lists are held, the rest are the
            # index's (the walk would read them all, and stop at WATCH_FILES)
            watch.named = replace(names, folders=())
        why = watch._hold(watch._located())
        if why is not None:
            return why
        if not names.files and not names.folders and watch.git is None:
            return None
        return watch

    def held(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        """What was held, as the session store keeps it before the command runs (so a crash
        while it runs loses nothing of it: :meth:`resumed`): the record — names, each held
        file's hash and permission bits, what git listed — and the bytes behind each hash
        (the store keeps them as pre-images are: scanned, capped, deduplicated)."""
        git = self.git
        kept: dict[str, Any] = {
            "held": HELD_VERSION,
            "files": list(self.named.files),
            "folders": list(self.named.folders),
            "before": [[rel, h[2], h[1]] for rel, h in sorted(self.before.items())],
            "found": sorted(self.found),
            "listed": list(self.listed),
            "git": None
            if git is None
            else {
                "listed": sorted(git.listed),
                "index": list(git.index) if git.index else None,
                "staged": git.staged,
            },
        }
        git_listed = len(git.listed) if git is not None else 0
        if max(len(self.found), len(self.listed), git_listed) > LISTED_MAX:
            raise ValueError(f"it lists more than {LISTED_MAX:,} files")
        bodies = {digest: data for data, _, digest in self.before.values() if data is not None}
        return kept, bodies

    @classmethod
    def resumed(
        cls,
        root: str | os.PathLike[str],
        held: object,
        body_of: Callable[[str], bytes | None],
    ) -> Watch:
        """The watch :meth:`held` recorded, taken up again after a crash: each file's bytes
        from ``body_of`` (the store; ``None`` where it did not keep them), git's listing as
        it was with this repository's settings now. ``held`` comes from a store, which is
        untrusted input: raises ``ValueError`` for one :meth:`held` could not have made."""
        if not isinstance(held, dict) or held.get("held") != HELD_VERSION:
            raise ValueError("not a command's held files")
        folders = _outermost(_rel_list(held, "folders"))  # each part of the tree walked once
        watch = cls(root, Named(_rel_list(held, "files"), folders))
        before = held.get("before")
        if not isinstance(before, list) or len(before) > WATCH_FILES:
            raise ValueError("its held files are not a list within the bound")
        for item in before:
            if not (isinstance(item, list) and len(item) == 3):
                raise ValueError("a held file is not [path, hash, mode]")
            rel, digest, mode = item
            if not (_rel_ok(rel) and isinstance(digest, str) and _HEX64.fullmatch(digest)):
                raise ValueError("a held file has no relative path or no sha256")
            if not (mode is None or (type(mode) is int and 0 <= mode <= 0o7777)):
                raise ValueError("a held file's mode is not permission bits")
            body = body_of(digest)
            if body is not None and sha256_hex(body) != digest:
                body = None  # the store's copy is not what was held: not put back
            watch.before[rel] = (body, mode, digest)
        watch.found = set(_rel_list(held, "found", LISTED_MAX))
        watch.listed = _rel_list(held, "listed", LISTED_MAX)
        git = held.get("git")
        if git is not None:
            watch._resume_repository(git)
        return watch

    def covers(self, path: str) -> bool:
        """Whether :meth:`changes` looks at ``path`` (held, named, beneath a named folder,
        or in the git work tree it watches)."""
        if self.git is not None or path in self.before or path in self.found:
            return True
        if path in self.named.files or "." in self.named.folders:
            return True
        return any(path.startswith(f"{folder}/") for folder in self.named.folders)

    def _resume_repository(self, listing: object) -> None:
        """git's listing before the command, with what this repository's settings switch off
        now (never options read from the store: they are passed to git)."""
        from frontier.tools import command_changes_git as git
        from frontier.tools.bounded_run import Deadline

        if not isinstance(listing, dict):
            raise ValueError("its git listing is not an object")
        listed = _rel_list(listing, "listed", LISTED_MAX)
        index = listing.get("index")
        if index is not None and not (
            isinstance(index, list) and len(index) == 3 and all(type(n) is int for n in index)
        ):
            raise ValueError("its git index stamp is not three integers")
        staged = listing.get("staged")
        if staged is not None and not (isinstance(staged, str) and _HEX64.fullmatch(staged)):
            raise ValueError("its git index digest is not a sha256")
        now = git.before(str(beneath.real_root(self.root)), Deadline(git.SECONDS))
        if now is not None:
            stamp = (index[0], index[1], index[2]) if index is not None else None
            self.git = replace(now, listed=frozenset(listed), index=stamp, staged=staged)

    def _watch_repository(self) -> None:
        """In a git work tree, also every file ``git status`` lists (held as if named) and
        what it says of the rest after (``tools/command_changes_git.py``); when git cannot
        say, or the files it lists are more than the bounds, the named files alone."""
        from frontier.tools import command_changes_git as git
        from frontier.tools.bounded_run import Deadline

        real = str(beneath.real_root(self.root))
        was = git.before(real, Deadline(git.SECONDS))
        if was is None:
            return
        listed = tuple(p for p in sorted(was.listed) if p not in self.before and not remade(p))
        on_disk = sum(1 for p in listed if p not in was.gone)
        if len(self.before) + on_disk > WATCH_FILES:
            return  # more uncommitted files than a watch holds: not read only to be dropped
        kept = dict(self.before), set(self.found), self._total
        if self._hold(self._at(listed)) is not None:
            self.before, self.found, self._total = kept  # too much uncommitted work to hold
            return
        self.git, self.listed = was, listed

    def _hold(self, located: Iterable[tuple[str, int, str]]) -> str | None:
        for rel, fd, name in located:
            if rel in self.found or rel in self.before:
                continue
            try:
                data, mode = beneath.read_in(fd, name, FILE_MAX)
            except beneath.TooLargeError:
                return f"it names {rel}, larger than the {_mib(FILE_MAX)} kept of a file"
            except OSError:
                self.found.add(rel)
                continue  # not a regular file, or unreadable: nothing of it to put back
            if data is None:
                continue  # a name the command may create
            self._total += len(data)
            if len(self.before) >= WATCH_FILES:
                return f"it names more than {WATCH_FILES:,} files"
            if self._total > WATCH_BYTES:
                return f"the files it names hold more than {_mib(WATCH_BYTES)}"
            self.before[rel] = (data, mode, sha256_hex(data))
        return None

    def _at(self, paths: Iterable[str]) -> Iterator[tuple[str, int, str]]:
        """``(rel, folder descriptor, name)`` of each path, resolved beneath the root now."""
        for rel in paths:
            try:
                with beneath.parent(self.root, rel, follow_final=False) as where:
                    yield rel, where.fd, where.name
            except (OSError, PathError, ValueError):
                continue

    def _located(self) -> Iterator[tuple[str, int, str]]:
        """``(rel, folder descriptor, name)`` of every file named, listed by git or beneath
        a named folder, resolved beneath the root now; the descriptor is valid until the
        next item."""
        yield from self._at(self.named.files)
        yield from self._at(self.listed)
        made = () if self.git is not None else self.named.files  # git lists a new folder's
        if not self.named.folders and not made:
            return
        from frontier.tools.gitignore import walk

        real = beneath.real_root(self.root)
        for name in made:  # a name not there before, a folder now: `cp -r src backup`
            if name in self.before or name in self.found:
                continue
            try:
                for entry in walk(real, name):
                    if not remade(entry.rel):
                        yield entry.rel, entry.dir_fd, entry.name
            except (OSError, ValueError):
                continue  # not there, or not a folder: a file is compared above
            self.made_folders.append(name)
        for folder in self.named.folders:
            try:
                for entry in walk(real, folder):
                    if not remade(entry.rel):
                        yield entry.rel, entry.dir_fd, entry.name
            except (OSError, ValueError):
                continue  # gone, or replaced by a file: its files are looked up one by one

    def changes(self) -> list[Changed] | str:
        """Every held file the command changed (content or permission bits) or deleted, and
        every file it created among the names and beneath the folders, in path order; or
        why they are not recorded (it made more than the bounds: a record of part of
        what it did would undo part)."""
        out: dict[str, Changed] = {}
        seen: set[str] = set()
        self._held_after = 0
        self.made_folders = []
        try:
            for rel, fd, name in self._located():
                if rel in seen:
                    continue
                seen.add(rel)
                if rel in self.found:
                    continue  # met before but not held (unreadable): not the command's
                changed = self._compare(rel, functools.partial(_state, fd, name))
                if changed is not None:
                    out[rel] = changed
                if len(out) > WATCH_FILES:
                    return f"it changed more than {WATCH_FILES:,} files"
            for rel in self.before.keys() - seen:  # held, not met again: deleted, or moved
                changed = self._compare(rel, functools.partial(self._state_of, rel))
                if changed is not None:
                    out[rel] = changed
            for path, old, git_mode in self._unlisted_before(seen):
                changed = self._compare(
                    path, functools.partial(self._state_of, path), old, git_mode, git=True
                )
                if changed is not None:
                    out[path] = changed
                if len(out) > WATCH_FILES:
                    return f"it changed more than {WATCH_FILES:,} files"
        except _TooLarge as exc:
            return str(exc)
        return [out[k] for k in sorted(out)]

    def _unlisted_before(self, seen: set[str]) -> list[tuple[str, bytes | None, int | None]]:
        """The files git lists now and did not before the command: what they were (the
        index's copy; ``None``: new). Nothing when git cannot say exactly."""
        if self.git is None:
            return []
        from frontier.tools import command_changes_git as git
        from frontier.tools.bounded_run import Deadline

        found = git.after(str(beneath.real_root(self.root)), self.git, Deadline(git.SECONDS))
        return [
            (f.path, f.old, f.old_mode)
            for f in found or ()
            if f.path not in seen and f.path not in self.found and not remade(f.path)
        ]

    def _compare(
        self,
        rel: str,
        state: Callable[[], _State],
        old: bytes | None = None,
        old_mode: int | None = None,
        *,
        git: bool = False,
    ) -> Changed | None:
        old_hash = None if old is None else sha256_hex(old)
        if rel in self.before:
            old, old_mode, old_hash = self.before[rel]
        try:
            new, new_hash, new_mode = state()
        except _TooLarge:
            raise
        except (OSError, PathError, ValueError):
            return None  # a folder now, or unreadable: nothing Frontier can put back
        if git and old_mode is not None and new_mode is not None:
            old_mode = _as_git_had(old_mode, new_mode)
        if new_hash is None and old_hash is None:
            return None
        if old_hash is not None and new_hash == old_hash and new_mode == old_mode:
            return None
        if new is not None:  # held for the line counts only while within the bound
            self._held_after += len(new)
            new = new if self._held_after <= WATCH_BYTES else None
        return Changed(rel, old, old_mode, new, new_hash, new_mode, old_hash)

    def _state_of(self, rel: str) -> _State:
        try:
            with beneath.parent(self.root, rel, follow_final=False) as where:
                return _state(where.fd, where.name)
        except FileNotFoundError:
            return None, None, None  # its folder is gone too


HELD_VERSION = 1
"""The shape of :meth:`Watch.held`'s record (a store written by a later one is not read)."""
RUNS = 2
"""Runs of one command at most (in the sandbox, then once outside it): its held records."""
LISTED_MAX = 200_000
"""Paths a held record lists at most in each of ``found``, ``listed`` and git's listing:
:meth:`Watch.held` keeps no larger record, :meth:`Watch.resumed` reads none."""
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _rel_ok(path: object) -> bool:
    """A workspace-relative path as the watch records them (from an untrusted store): not
    absolute, no ``..``, no NUL; it is still resolved beneath the root when used."""
    if not isinstance(path, str) or not path or len(path) > 4096 or "\0" in path:
        return False
    norm = posixpath.normpath(path)
    return not norm.startswith(("/", "../")) and norm != ".." and norm == path


def _outermost(folders: tuple[str, ...]) -> tuple[str, ...]:
    """``folders`` without one inside another (or named twice): the outer walk covers it."""
    kept: set[str] = set()
    for folder in sorted(set(folders), key=lambda f: (f.count("/"), f)):
        parts = folder.split("/")
        if "." in kept or any("/".join(parts[:i]) in kept for i in range(1, len(parts))):
            continue
        kept.add(folder)
    return tuple(sorted(kept))


def _rel_list(held: Mapping[str, Any], key: str, most: int = WATCH_FILES) -> tuple[str, ...]:
    found = held.get(key)
    if not isinstance(found, list) or len(found) > most:
        raise ValueError(f"its {key} are not a list within the bound")
    if not all(_rel_ok(p) for p in found):
        raise ValueError(f"its {key} are not all relative paths")
    return tuple(found)


def _as_git_had(git_mode: int, now: int) -> int:
    """A file's permission bits before, from what git keeps of them (executable or not:
    ``0o755``/``0o644``) and its bits now: the rest is the person's (``0o664`` under a
    group umask) and a command that changed the content left it."""
    if git_mode & 0o111:
        return now | ((now & 0o444) >> 2)
    return now & ~0o111


class _TooLarge(OSError):
    """A file left too large to hash (:data:`HASH_MAX`): the record gives up."""


_State = tuple[bytes | None, str | None, int | None]
"""``(bytes when small enough, sha256, permission bits)`` of a file now; all ``None``: absent."""


def _state(fd: int, name: str) -> _State:
    opened = beneath.open_regular(fd, name)
    if opened is None:
        return None, None, None
    file, st = opened
    try:
        mode = stat.S_IMODE(st.st_mode)
        if st.st_size <= FILE_MAX:
            try:
                data = beneath.read_fd(file, st.st_size, FILE_MAX)
                return data, sha256_hex(data), mode
            except ValueError:  # grew past the cap while read
                os.lseek(file, 0, os.SEEK_SET)
        digest = hashlib.sha256()
        read = 0
        while chunk := os.read(file, 1 << 20):
            read += len(chunk)
            if read > HASH_MAX:
                raise _TooLarge(f"it left a file larger than {_mib(HASH_MAX)} ({name})")
            digest.update(chunk)
        return None, digest.hexdigest(), mode
    finally:
        os.close(file)


def _mib(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB"


@record
class Recorded:
    """A command's changes as its result carries them."""

    meta: dict[str, Any]
    """``files`` and ``changes`` (as an edit's: the checks, the panes, the export) and
    ``targets`` (each file's hashes before and after and its permission bits before: what
    ``/undo`` checks and puts back; ``app/session/calls.py`` reads them)."""
    kept: dict[str, bytes]
    """sha256 → the bytes it hashes: each changed file's earlier content, for the store."""
    note: str
    """What the model is told: ``[the command changed 2 files: M a.py (+1 −1), A b.py]``."""


def recorded(
    changes: list[Changed], root: str | os.PathLike[str], made: Iterable[str] = ()
) -> Recorded | None:
    """``changes`` as the command's result records them (``None``: it changed nothing);
    ``made``: the folders it made where nothing was (``Watch.made_folders``), recorded with
    every folder beneath them that holds a file it created (an undo removes them emptied)."""
    if not changes:
        return None
    from frontier.tools.diffing import file_preview
    from frontier.tools.patch_engine import FileChange, PatchPlan

    real = beneath.real_root(root)
    rows: list[FileChange] = []
    uncounted: set[str] = set()
    for c in changes:
        action: Literal["create", "modify", "delete"] = (
            "create" if c.old_hash is None else "delete" if c.new_hash is None else "modify"
        )
        known = c.old is not None or c.old_hash is None  # not kept: no lines to count
        counted = known and (c.new is not None or action == "delete")
        fp = file_preview(c.path, c.old, c.new) if counted else None
        if not counted:
            uncounted.add(c.path)  # a side not kept or too large: "(lines not counted)"
        rows.append(
            FileChange(
                path=c.path,
                real=real / c.path,
                old=c.old,
                new=c.new,
                old_mode=c.old_mode,
                new_mode=c.new_mode,
                action=action,
                hunks=len(fp.hunks) if fp is not None else 0,
                added=fp.added if fp is not None else 0,
                removed=fp.removed if fp is not None else 0,
            )
        )
    plan = PatchPlan(tuple(rows), root=str(real))
    meta: dict[str, Any] = {
        "files": [c.path for c in changes],
        "changes": [
            {**row, "counted": False} if row["path"] in uncounted else row for row in plan.meta()
        ],
        "targets": [
            {"path": c.path, "pre": c.old_hash, "post": c.new_hash, "mode": c.old_mode}
            for c in changes
        ],
    }  # fmt: skip
    kept = {c.old_hash: c.old for c in changes if c.old is not None and c.old_hash is not None}
    folders = _folders_of(made, [c.path for c in changes if c.old_hash is None])
    if folders:
        meta["made"] = folders
    return Recorded(meta, kept, _note(meta))


def _folders_of(made: Iterable[str], created: Iterable[str]) -> list[str]:
    """Each of ``made`` that holds a created file, with the folders between it and those
    files, outermost first."""
    out: set[str] = set()
    for top in made:
        for path in created:
            if not path.startswith(f"{top}/"):
                continue
            parts = path.split("/")[:-1]
            out.update("/".join(parts[:i]) for i in range(top.count("/") + 1, len(parts) + 1))
    return sorted(out, key=lambda f: (f.count("/"), f))


def _note(meta: Mapping[str, Any]) -> str:
    """``[the command changed 2 files: M a.py (+1 −1), A b.py (+3 −0)]``: what the model
    reads of a record."""
    from frontier.app.check_text import CHANGED_OPENING
    from frontier.tools.patch_summary import change_lines

    lines = change_lines(meta, SHOWN)
    if lines and lines[-1].startswith("+"):  # change_lines' "+N more"
        lines[-1] = f"and {lines[-1][1:]}"
        shown = ", ".join(lines[:-1]) + f" {lines[-1]}"
    else:
        shown = ", ".join(lines)
    n = len(meta.get("files") or ())
    return f"{CHANGED_OPENING[1:]}{n} {'file' if n == 1 else 'files'}: {shown}]"


def recovered(
    root: str | os.PathLike[str],
    holds: Iterable[object],
    body_of: Callable[[str], bytes | None],
) -> Recorded | str | None:
    """What a command a crash interrupted had changed by now, from the watch the store kept
    before it ran (:meth:`Watch.held`); ``None``: nothing; a string: why it cannot be told.

    A command run again outside the sandbox (``ToolBoundary._escalate``) has two: the first
    compared with the files now already spans both runs, so a later one adds only files
    the first did not watch (both compared with now, :func:`both_runs` would take the
    first run's leftovers for what the files were). More than :data:`RUNS` is no record
    Frontier makes."""
    records = list(holds)
    if len(records) > RUNS:
        return f"what it held before it ran is not a record Frontier makes (over {RUNS} runs)"
    watches: list[Watch] = []
    for held in records:
        try:
            watches.append(Watch.resumed(root, held, body_of))
        except ValueError as exc:
            return f"what it held before it ran is not a record Frontier makes ({exc})"
    out: dict[str, Changed] = {}
    for n, watch in enumerate(watches):
        found = watch.changes()
        if isinstance(found, str):
            return found
        for c in found:
            if n == 0 or not (c.path in out or watches[0].covers(c.path)):
                out[c.path] = c
    made = [f for watch in watches for f in watch.made_folders]
    return recorded([out[p] for p in sorted(out)], root, made)


RECORD_KEYS = ("files", "changes", "targets", "unwatched", "made")
"""The keys of a result's meta this module writes (:func:`recorded`, ``unwatched``)."""


def both_runs(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """What a command run twice changed — in the sandbox, then approved outside it
    (``ToolBoundary._escalate``) — as one record: each file from what the first run found
    to what the second left (a file back where it began left out). Either run unwatched:
    nothing recorded, and why."""
    for meta in (first, second):
        if isinstance(meta.get("unwatched"), str):
            return {"unwatched": meta["unwatched"]}
    begun: dict[str, dict[str, Any]] = {}
    rows: dict[str, Any] = {}
    for meta in (first, second):
        for t in meta.get("targets") or ():
            path = t["path"]
            begun[path] = (
                {**t, "pre": begun[path]["pre"], "mode": begun[path]["mode"]}
                if path in begun
                else dict(t)
            )
        for row in meta.get("changes") or ():
            rows[row["path"]] = row
    targets = [t for t in begun.values() if t["pre"] != t["post"]]
    if not targets:
        return {}
    paths = sorted(t["path"] for t in targets)
    out = {
        "files": paths,
        "changes": [rows[p] for p in paths if p in rows],
        "targets": sorted(targets, key=lambda t: t["path"]),
    }
    made = {f for meta in (first, second) for f in meta.get("made") or () if isinstance(f, str)}
    if made:
        out["made"] = sorted(made, key=lambda f: (f.count("/"), f))
    return out
