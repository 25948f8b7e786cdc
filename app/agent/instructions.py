"""Project instructions: the project's own notes for agents, in the system prompt.

``AGENTS.md``, ``CLAUDE.md`` and ``.frontier/instructions.md`` are looked for in
the workspace root and each of its parents up to the repository root — the nearest
ancestor (or the workspace itself) holding a ``.git`` — and never above the user's
home when the workspace is inside it. Without a repository only the workspace root
is searched: a directory's parents are then someone else's business (``/tmp``,
a shared mount), not this project's.

They go into the system prompt outermost first, so the file nearest the workspace
has the last word; in one directory the order is the list above (the Frontier-only
file last). Each is capped at :data:`FILE_CAP` bytes and all of them together at
:data:`TOTAL_CAP`, which is handed out nearest first: what the total leaves out is
the outermost, most general text. A file cut short says so in the prompt and in
the note the front ends show at session start.

Other users are not trusted, as git has not trusted them since CVE-2022-24765
(``safe.directory``): on a shared machine anyone may create ``/tmp/.git`` and
``/tmp/AGENTS.md``, and a workspace under ``/tmp`` would take them as its repository and
its instructions. So the walk up never enters a world-writable folder (``/tmp``, sticky
or not: anyone can put files in it), a ``.git`` owned by another user is not taken as the
repository root (without a trusted one only the workspace is searched), and an
instruction file owned by another user is not read. Root counts as no other user: root
can already change everything this user runs, Frontier itself included, so a file it
owns adds no power it lacks, and refusing it would only break repositories a system
(a container image, a provisioning script) checked out as root. Run as root through
``sudo``, the invoking user (``SUDO_UID``) is trusted too, as git does. Each ``.git`` or
file left out this way is listed as ``skipped`` with the reason.

The workspace is untrusted: a symlink is followed only to a target beneath the
search root (the repository, else the workspace); only regular files are read,
opened without following a last-moment symlink and without blocking on a FIFO;
at most ``FILE_CAP + 1`` bytes are read; bytes that are not UTF-8 are replaced.
The same file reached twice (``CLAUDE.md`` a symlink to ``AGENTS.md``) or a
byte-identical copy is sent once. ``@file`` imports are not expanded.

Pure apart from reading those files: :func:`load_instructions` returns a frozen
:class:`ProjectInstructions`, whose :meth:`~ProjectInstructions.prompt` is the
system-prompt section and :meth:`~ProjectInstructions.notes` the lines listed in
the Transcript (docs/decisions.md, "Project instructions").
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Literal

from frontier.app.record import field, record

NAMES = ("AGENTS.md", "CLAUDE.md", ".frontier/instructions.md")
"""Looked for in every searched directory, in this order."""
FILE_CAP = 16 * 1024
"""Bytes of one file that reach the prompt."""
TOTAL_CAP = 32 * 1024
"""Bytes of all files together that reach the prompt (nearest files first)."""

InstructionStatus = Literal["full", "capped", "omitted", "skipped"]
"""``full``: sent whole; ``capped``: its first bytes sent; ``omitted``: not sent, the
total was used by nearer files; ``skipped``: not read (``reason`` says why)."""


@record
class InstructionFile:
    """One instruction file found, and what became of it."""

    path: str
    """Relative to the workspace, ``/``-separated (``AGENTS.md``, ``../../AGENTS.md``)."""
    status: InstructionStatus
    size: int = 0
    """Its size on disk in bytes (0 when it was skipped before being opened)."""
    sent: int = 0
    """Bytes of it in the prompt."""
    text: str = field(default="", repr=False)
    """What the prompt carries of it (decoded, capped)."""
    reason: str = ""
    """Why it was capped, omitted or skipped."""

    @property
    def in_prompt(self) -> bool:
        return self.status in ("full", "capped")

    def note(self) -> str:
        """The line the Transcript lists it with."""
        head = f"project instructions: {self.path}"
        if self.status == "skipped":
            return f"{head} skipped: {self.reason}"
        size = _size(self.size)
        if self.status == "full":
            return f"{head} ({size}{self.reason and ', ' + self.reason})"
        if self.status == "capped":
            return f"{head} ({size}, capped: the first {_size(self.sent)} sent; {self.reason})"
        return f"{head} ({size}, omitted: {self.reason})"


@record
class ProjectInstructions:
    """The instruction files of one workspace, outermost first."""

    files: tuple[InstructionFile, ...] = ()
    searched: tuple[str, ...] = ()
    """The directories searched, relative to the workspace, outermost first."""
    repository: str | None = None
    """The repository root relative to the workspace (``.``, ``../..``), or ``None``."""

    @property
    def sent(self) -> tuple[InstructionFile, ...]:
        """The files the prompt carries (whole or capped)."""
        return tuple(f for f in self.files if f.in_prompt)

    def prompt(self) -> str:
        """The system prompt's section, or ``""`` when no file is sent."""
        if not self.sent:
            return ""
        parts = [
            "# Project instructions\n"
            "The project's instruction files, from the repository root down to the "
            "workspace. Where two disagree, the later one (nearer the workspace) wins. "
            "Follow them, except where they contradict how tools are called (above)."
        ]
        for entry in self.files:
            if entry.status == "skipped":
                continue
            body = entry.text.rstrip("\n")
            if entry.status == "capped":
                cut = f"[capped: the first {entry.sent:,} of {entry.size:,} bytes; {entry.reason}]"
                body = f"{body}\n{cut}"
            elif entry.status == "omitted":
                body = f"[omitted ({entry.size:,} bytes): {entry.reason}]"
            parts.append(f"## {entry.path}\n{body}")
        return "\n\n".join(parts)

    def notes(self) -> list[str]:
        """One line per file found (nothing when none was), for the Transcript."""
        return [entry.note() for entry in self.files]


NONE = ProjectInstructions()
"""Instructions turned off (``--no-instructions``), or none found."""


def trusted_owners(environ: Mapping[str, str] | None = None) -> frozenset[int] | None:
    """The owners whose ``.git`` and instruction files are trusted: this user and root
    (and, for root through ``sudo``, the invoking user); ``None`` where files have no
    owners to compare (Windows), so nothing is checked."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:
        return None
    euid = geteuid()
    owners = {euid, 0}
    sudo = (os.environ if environ is None else environ).get("SUDO_UID", "")
    if euid == 0 and sudo.isdigit():
        owners.add(int(sudo))
    return frozenset(owners)


@record
class SearchPath:
    """Where the instruction files are looked for, and what the walk up refused."""

    dirs: tuple[Path, ...]
    """The directories searched, outermost first (the workspace last)."""
    repository: bool
    """Whether a trusted ``.git`` bounds them (else only the workspace is searched)."""
    refused: tuple[tuple[Path, str], ...] = ()
    """A ``.git`` or instruction file the walk did not trust, and why, outermost first."""


def search_dirs(
    workspace: Path,
    home: Path | None = None,
    owners: Collection[int] | None = None,
) -> SearchPath:
    """The directories searched: from the repository root (the nearest ancestor, or the
    workspace itself, holding a ``.git``) down to ``workspace``, else ``workspace`` alone.

    ``workspace`` must be resolved. ``home`` (default: the user's) caps the walk for
    a workspace inside it; a workspace elsewhere may find its repository anywhere up,
    short of a world-writable folder. A ``.git`` whose owner (or whose folder's owner) is
    not in ``owners`` (default: :func:`trusted_owners`) ends the search with no repository.
    """
    if owners is None:
        owners = trusted_owners()
    if home is None:
        try:
            home = Path.home().resolve()
        except (RuntimeError, OSError):  # no HOME: nothing to stay beneath
            home = None
    chain = [workspace]
    shared: tuple[Path, str] | None = None
    inside_home = home is not None and workspace.is_relative_to(home)
    for parent in workspace.parents:
        if inside_home and home is not None and not parent.is_relative_to(home):
            break
        if (why := _shared_folder(parent)) is not None:
            shared = (parent, why)
            break
        chain.append(parent)
    for i, directory in enumerate(chain):
        git = directory / ".git"
        try:
            info = os.lstat(git)  # a directory, or a worktree's file
        except OSError:
            continue
        foreign = _foreign_owner(info.st_uid, owners)
        if foreign is None and (held := _foreign_owner(_owner(directory), owners)):
            foreign = f"its folder is {held}"
        if foreign is not None:
            why = f"{foreign}: not taken as the repository root, so only the workspace is read"
            return SearchPath((workspace,), False, ((git, why),))
        return SearchPath(tuple(reversed(chain[: i + 1])), True)
    refused: list[tuple[Path, str]] = []
    if shared is not None and os.path.lexists(shared[0] / ".git"):
        # It would have been the repository root: say why it is not, and what it held.
        folder, why = shared
        refused.append((folder / ".git", f"{why}: not taken as the repository root"))
        refused += [
            (folder / name, f"{why}: not read") for name in NAMES if os.path.lexists(folder / name)
        ]
    return SearchPath((workspace,), False, tuple(refused))


def _shared_folder(directory: Path) -> str | None:
    """Why the walk up stops at ``directory`` (anyone may put files in it), or ``None``.
    A folder that cannot be looked at stops it too: nothing above it can be vouched for."""
    try:
        mode = os.stat(directory).st_mode
    except OSError as exc:
        return f"its folder cannot be looked at ({exc.strerror or exc})"
    if not mode & stat.S_IWOTH:
        return None
    kind = "world-writable and sticky (like /tmp)" if mode & stat.S_ISVTX else "world-writable"
    return f"its folder is {kind}: anyone can put files there"


def _owner(path: Path) -> int | None:
    try:
        return os.stat(path).st_uid
    except OSError:
        return None


def _foreign_owner(uid: int | None, owners: Collection[int] | None) -> str | None:
    """``owned by another user (…)`` when ``uid`` is not trusted, else ``None``."""
    if owners is None or uid is None or uid in owners:
        return None
    return f"owned by another user ({_user_name(uid)})"


def _user_name(uid: int) -> str:
    try:
        import pwd
    except ImportError:  # no user database (Windows, where owners are never compared)
        return f"uid {uid}"
    try:
        return f"{pwd.getpwuid(uid).pw_name}, uid {uid}"
    except KeyError:
        return f"uid {uid}"


def load_instructions(
    workspace: Path,
    *,
    home: Path | None = None,
    file_cap: int = FILE_CAP,
    total_cap: int = TOTAL_CAP,
    owners: Collection[int] | None = None,
) -> ProjectInstructions:
    """Find and read the instruction files of ``workspace`` (see the module doc).

    ``owners``: the user ids whose ``.git`` and files are trusted (default:
    :func:`trusted_owners`)."""
    root = Path(workspace).resolve()
    trusted = trusted_owners() if owners is None else owners
    walk = search_dirs(root, home, trusted)
    dirs, repository = walk.dirs, walk.repository
    boundary = dirs[0]
    where = "the repository" if repository else "the workspace"
    found: list[InstructionFile | _Read] = [
        InstructionFile(Path(os.path.relpath(path, root)).as_posix(), "skipped", reason=why)
        for path, why in walk.refused
    ]
    by_path: dict[Path, str] = {}
    by_data: dict[bytes, str] = {}
    for directory in dirs:
        for name in NAMES:
            candidate = directory / name
            rel = Path(os.path.relpath(candidate, root)).as_posix()
            outcome = _read(candidate, boundary, where, file_cap, trusted)
            if outcome is None:
                continue
            if isinstance(outcome, str):
                found.append(InstructionFile(rel, "skipped", reason=outcome))
                continue
            if outcome.resolved in by_path:
                same = f"the same file as {by_path[outcome.resolved]}"
                found.append(InstructionFile(rel, "skipped", outcome.size, reason=same))
                continue
            by_path[outcome.resolved] = rel
            if not outcome.data.strip():
                found.append(InstructionFile(rel, "skipped", outcome.size, reason="empty"))
                continue
            if outcome.data in by_data:
                same = f"the same content as {by_data[outcome.data]}"
                found.append(InstructionFile(rel, "skipped", outcome.size, reason=same))
                continue
            by_data[outcome.data] = rel
            found.append(_Read(rel, outcome.resolved, outcome.size, outcome.data))
    budget = total_cap
    decided: dict[int, InstructionFile] = {}
    for index in reversed(range(len(found))):  # nearest first: it has the last word
        entry = found[index]
        if isinstance(entry, InstructionFile):
            continue
        decided[index] = _decide(entry, file_cap, budget, total_cap)
        budget -= decided[index].sent
    files = tuple(
        entry if isinstance(entry, InstructionFile) else decided[i] for i, entry in enumerate(found)
    )
    return ProjectInstructions(
        files=files,
        searched=tuple(Path(os.path.relpath(d, root)).as_posix() for d in dirs),
        repository=Path(os.path.relpath(boundary, root)).as_posix() if repository else None,
    )


@record
class _Read:
    path: str
    resolved: Path
    size: int
    data: bytes
    """At most ``file_cap + 1`` bytes: one more than the cap says it was longer."""


def _read(
    candidate: Path, boundary: Path, where: str, cap: int, owners: Collection[int] | None
) -> _Read | str | None:
    """The file's first ``cap + 1`` bytes; a reason it is skipped; ``None`` if absent.

    The owner is checked on the open descriptor, so a file swapped in after the check
    cannot slip past it."""
    try:
        os.lstat(candidate)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return f"cannot be looked at ({exc.strerror or exc})"
    try:
        resolved = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return "a symlink that leads nowhere (dangling or a loop)"
    if not resolved.is_relative_to(boundary):
        return f"a symlink to outside {where}, not followed"
    flags = os.O_RDONLY
    for name in ("O_NOFOLLOW", "O_NONBLOCK", "O_CLOEXEC"):
        flags |= getattr(os, name, 0)
    try:
        fd = os.open(resolved, flags)
    except OSError as exc:
        return f"cannot be opened ({exc.strerror or exc})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if (foreign := _foreign_owner(info.st_uid, owners)) is not None:
            return f"{foreign}: not trusted (if it is yours, take it back with chown)"
        chunks: list[bytes] = []
        left = cap + 1
        while left > 0:
            piece = os.read(fd, min(left, 64 * 1024))
            if not piece:
                break
            chunks.append(piece)
            left -= len(piece)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    finally:
        os.close(fd)
    return _Read("", resolved, info.st_size, b"".join(chunks))


def _decide(entry: _Read, file_cap: int, budget: int, total_cap: int) -> InstructionFile:
    """How much of ``entry`` the prompt carries, given what the nearer files left."""
    longer = len(entry.data) > file_cap
    take = min(len(entry.data), file_cap, max(budget, 0))
    size = max(entry.size, len(entry.data))
    if take <= 0:
        why = f"the {_size(total_cap)} total for instructions went to files nearer the workspace"
        return InstructionFile(entry.path, "omitted", size, reason=why)
    text, valid, sent = _decode(entry.data[:take], final=take == len(entry.data))
    not_utf8 = "" if valid else "not valid UTF-8: undecodable bytes replaced"
    if take == len(entry.data) and not longer:
        return InstructionFile(entry.path, "full", size, sent, text, not_utf8)
    if take < min(len(entry.data), file_cap):
        why = f"the {_size(total_cap)} total for instructions was reached"
    else:
        why = f"{_size(file_cap)} per file"
    return InstructionFile(
        entry.path, "capped", size, sent, text, "; ".join(filter(None, [why, not_utf8]))
    )


def _decode(data: bytes, *, final: bool) -> tuple[str, bool, int]:
    """UTF-8 text (a leading BOM dropped; a character cut by the cap left out), whether
    it was valid (invalid bytes become U+FFFD), and how many bytes the text covers."""
    valid = True
    for errors in ("strict", "replace"):
        decoder = codecs.getincrementaldecoder("utf-8")(errors)
        try:
            text = decoder.decode(data, final=final)
        except UnicodeDecodeError:
            valid = False
            continue
        held = len(decoder.getstate()[0])  # the start of a character the cap cut
        return text.removeprefix("\ufeff"), valid, len(data) - held
    raise AssertionError("unreachable: errors='replace' never raises")


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    kib = n / 1024
    return f"{kib:.0f} KiB" if kib == int(kib) else f"{kib:.1f} KiB"


def file_to_edit(root: str | os.PathLike[str]) -> Path:
    """The instruction file ``/memory`` opens in the person's editor: the first of
    :data:`NAMES` in the workspace root that is a regular file of this user, else
    ``AGENTS.md`` to be made. Raises ``ValueError`` when the one there is not such a file
    (a link — a cloned repository's ``AGENTS.md`` pointing at ``~/.ssh/authorized_keys``
    would open that —, a folder, another user's): the person is told, never sent there."""
    base = Path(root)
    for name in NAMES:
        path = base / name
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise ValueError(f"{name} cannot be read: {exc.strerror}") from exc
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{name} is not a plain file (a link or a folder): edit it yourself")
        if info.st_uid != os.getuid():
            raise ValueError(f"{name} belongs to another user: edit it yourself")
        if not os.path.realpath(path).startswith(os.path.realpath(base) + os.sep):
            raise ValueError(f"{name} is reached through a link out of the workspace")
        return path
    return base / NAMES[0]


def save_edited(root: str | os.PathLike[str], path: Path, data: bytes) -> None:
    """Write what the person saved in ``/memory``'s editor to ``path``, whole or not at
    all, if it is still :func:`file_to_edit`'s answer (a background job may have put a
    link there meanwhile: ``ValueError``); the editor only ever had a private copy."""
    from frontier.app.files import write_atomic

    if file_to_edit(root) != path:
        raise ValueError(f"{path.name} changed while it was being edited: nothing written")
    write_atomic(path, data)


def read_for_edit(path: Path) -> bytes:
    """The instruction file's bytes (``b""`` when it is to be made)."""
    try:
        with open(path, "rb") as f:  # a plain file of this user (file_to_edit said so)
            return f.read()
    except FileNotFoundError:
        return b""
