"""Paths resolved beneath the workspace root at the moment of use, through directory
descriptors, so no swap of a directory for a symlink can redirect a read or a write.

``openat2(RESOLVE_BENEATH)`` done by hand, portably: from a descriptor of the real
root, every component is opened with ``O_DIRECTORY | O_NOFOLLOW`` relative to the
previous one. A symlink met on the way is read (``readlinkat``) and its target
walked the same way, so a link that stays inside the workspace is followed and one
that leaves it is refused; ``..`` never climbs above the root; a component swapped
for a link between the check and the open fails the ``O_NOFOLLOW`` open and is
resolved again. The caller gets the descriptor of the final component's real
parent directory and its real name: a write then creates its temp file, renames
and fsyncs *in that descriptor* (``dir_fd=``), wherever the path points by then.

Reads open the final component with ``O_NONBLOCK | O_NOFOLLOW`` and check
``S_ISREG`` on the descriptor, so a FIFO, a device or a socket in the workspace is
refused instead of blocking the agent forever.

**The root itself is pinned** (issue 21, item 9). Resolving the root by its path on
every call let a swap of the workspace folder for a symlink (``mv ws ws.old; ln -s
/elsewhere ws``, one shell call) redirect every later read and write. A session opens
its root once (``pin_root``: ``O_DIRECTORY | O_NOFOLLOW`` on the real path) and every
walk starts from that descriptor, never from the path; each walk also checks that the
path still names the pinned folder (same ``st_dev``/``st_ino``, not a link) and refuses
with ``WorkspaceReplaced`` — "the workspace folder was replaced" — if not. The pin is
carried by the root value itself (``PinnedPath``, ``PinnedRoot``), so code that only
passes the root along (``patch_engine``, ``search``) keeps it without knowing.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PosixPath

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from frontier.app.record import NamedTuple

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOATIME = getattr(os, "O_NOATIME", 0)
"""Reads must not dirty inodes: an atime update needs a journal handle, which waits while a
commit forced by a write's fsyncs is being prepared."""
_DIR_FLAGS = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
MAX_LINK_HOPS = 40
"""As the kernel's own limit: more links than this on one path is a loop."""
_RETRIES = 8
"""A component that keeps changing kind between check and open: give up after this."""


class PathError(ValueError):
    """A path that is empty, malformed or outside the workspace root."""


class NotRegularFileError(OSError):
    """A FIFO, device, socket or other non-regular file: never opened for content."""


class TooLargeError(OSError):
    """A file over the size its reader was given (``read_file(cap=)``): not read."""

    def __init__(self, name: str, size: int, cap: int) -> None:
        super().__init__(errno.EFBIG, f"{name} is {size:,} bytes, over {cap:,}", name)
        self.size = size
        self.cap = cap


class Parent(NamedTuple):
    fd: int
    """Open descriptor of the final component's real parent directory (the caller closes)."""
    name: str
    """The final component's real name in that directory (a link that stays inside is
    resolved; the name may not exist yet)."""
    rel: str
    """The real path relative to the root, POSIX separators (``.`` for the root itself)."""


class WorkspaceReplaced(PathError):
    """The pinned workspace folder is no longer at its path (moved, deleted, or swapped for
    a link or another folder): every tool refuses, nothing is read or written."""


class Pin:
    """The workspace folder as it was when the session started: an open descriptor of it
    and its identity. Holding the descriptor keeps the inode allocated, so a folder deleted
    and re-created cannot come back with the same ``(st_dev, st_ino)`` and pass the check.

    Why a descriptor rather than only comparing ``(st_dev, st_ino)`` on each call: a
    comparison leaves a window between the check and the open in which the folder can be
    swapped; a walk that starts from the descriptor has no window. The comparison is kept
    as well, so a replaced folder is *refused* with a clear message instead of silently
    working on a folder that is no longer at the path the user and the store know.
    """

    def __init__(self, path: str, fd: int) -> None:
        import threading  # here: only a session pins its root; ~1 ms of apply-patch start-up
        import weakref

        st = os.fstat(fd)
        self.path = path
        """The folder's real path when pinned (no symlink on it then)."""
        self.dev, self.ino = st.st_dev, st.st_ino
        self._fd = fd
        self._lock = threading.Lock()
        self._closer = weakref.finalize(self, os.close, fd)
        """Closes the descriptor at ``close()``, or when the pin is collected."""

    def check(self) -> None:
        """Raise ``WorkspaceReplaced`` unless ``path`` still names the pinned folder."""
        try:
            st: os.stat_result | None = os.stat(self.path, follow_symlinks=False)
        except OSError:
            st = None
        if (
            st is not None
            and stat.S_ISDIR(st.st_mode)
            and (st.st_dev, st.st_ino) == (self.dev, self.ino)
        ):
            return
        raise WorkspaceReplaced(_replaced(self.path, st))

    def open_dir(self) -> int:
        """A new descriptor of the pinned folder, opened from the pin (never by path).

        A new open file description, not a ``dup``: a ``flock`` taken on it is its own,
        so two writes in this process still exclude each other (a lock on a shared
        description would be shared)."""
        with self._lock:
            if not self._closer.alive:
                raise OSError(
                    errno.EBADF, "the workspace is no longer open (its session was closed)"
                )
            self.check()
            return os.open(".", _DIR_FLAGS, dir_fd=self._fd)

    def close(self) -> None:
        """Release the descriptor (the session ended); later walks fail with ``EBADF``."""
        with self._lock:
            self._closer()

    @property
    def closed(self) -> bool:
        return not self._closer.alive

    def as_path(self) -> PinnedPath:
        carrier = PinnedPath(self.path)
        carrier.pin = self
        return carrier

    def as_text(self) -> PinnedRoot:
        carrier = PinnedRoot(self.path)
        carrier.pin = self
        return carrier


class PinnedPath(PosixPath):
    """The root as a ``Path`` that carries its ``Pin`` (what ``pin_root`` and
    ``real_root`` return): walks from it start at the pinned descriptor. Paths derived
    from it (``root / "a"``, ``.parent``) carry none (class default)."""

    pin: Pin | None = None

    def unpin(self) -> None:
        """Release the pin's descriptor (the session closed); later walks fail (``EBADF``)."""
        if self.pin is not None:
            self.pin.close()


class PinnedRoot(str):
    """The root as text that carries its ``Pin``: ``ToolContext.root`` is a ``str``."""

    pin: Pin | None = None


def pin_of(root: object) -> Pin | None:
    """The pin ``root`` carries, if any."""
    pin = getattr(root, "pin", None)
    return pin if isinstance(pin, Pin) else None


def pin_root(root: str | os.PathLike[str]) -> PinnedPath:
    """``root`` pinned: its real path opened ``O_DIRECTORY | O_NOFOLLOW`` now (a root that
    already carries a pin keeps it). Raises ``OSError`` if it is not a folder."""
    return _pin(root).as_path()


def pin_text(root: str | os.PathLike[str]) -> PinnedRoot:
    """``pin_root`` as text (``ToolContext.root``)."""
    return _pin(root).as_text()


def _pin(root: str | os.PathLike[str]) -> Pin:
    pin = pin_of(root)
    if pin is not None:
        return pin
    real = os.path.realpath(root)
    fd = os.open(real, _DIR_FLAGS)
    try:
        return Pin(real, fd)
    except BaseException:
        os.close(fd)
        raise


def check_root(root: object) -> None:
    """Raise ``WorkspaceReplaced`` if ``root`` is pinned and its folder was replaced."""
    pin = pin_of(root)
    if pin is not None:
        pin.check()


def open_root(root: str | os.PathLike[str]) -> int:
    """A descriptor of the root folder: from its pin (checked) when it carries one, else
    opened by its real path. For walkers that start at the root (the caller closes it)."""
    pin = pin_of(root)
    if pin is not None:
        return pin.open_dir()
    return os.open(real_root(root), _DIR_FLAGS)


def real_root(root: str | os.PathLike[str]) -> Path:
    """The root's real path; a pinned root is checked (``WorkspaceReplaced``) and keeps
    its pin, so what is resolved from it walks from the pinned descriptor too."""
    pin = pin_of(root)
    if pin is not None:
        pin.check()
        return pin.as_path()
    return Path(os.path.realpath(root))


def _replaced(path: str, st: os.stat_result | None) -> str:
    if st is None:
        now = "no longer exists (moved or deleted)"
    elif stat.S_ISLNK(st.st_mode):
        try:
            now = f"is now a symbolic link to {os.readlink(path)!r}"
        except OSError:
            now = "is now a symbolic link"
    elif stat.S_ISDIR(st.st_mode):
        now = "is now a different folder"
    else:
        now = "is now a file, not a folder"
    return (
        f"the workspace folder was replaced since the session started: {path!r} {now}; "
        "nothing was read or written. Stop and tell the user: every tool refuses until the "
        "folder is put back (to work in another folder, the user resumes the session there "
        "with --workspace DIR)"
    )


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _outside(path: str, base: Path, via_link: bool) -> PathError:
    why = "is a symlink that points" if via_link else "is"
    return PathError(
        f"path {path!r} {why} outside the workspace root {str(base)!r}; only files inside the "
        "workspace can be used"
    )


def check_name(path: object) -> str:
    """A path the model gave, before any filesystem access: text, not empty, no NUL."""
    if not isinstance(path, str) or not path.strip():
        raise PathError("empty path; give a path relative to the workspace root, e.g. src/app.py")
    if "\x00" in path:
        raise PathError(f"path {path!r} contains a NUL byte")
    return path


def _inside(base: Path, target: str) -> list[str] | None:
    """The components of absolute ``target`` below ``base``, or ``None`` if not beneath it
    (tried as written, then with the links *outside* the workspace resolved)."""
    for candidate in (os.path.normpath(target), os.path.realpath(target)):
        if candidate == str(base):
            return []
        prefix = str(base).rstrip("/") + "/"
        if candidate.startswith(prefix):
            return candidate[len(prefix) :].split("/")
    return None


def _relative_parts(base: Path, path: str) -> list[str]:
    if os.path.isabs(path):
        parts = _inside(base, path)
        if parts is None:
            error = _outside(path, base, via_link=False)
            meant = _meant(base, path)
            if meant is not None:
                error = PathError(f"{error} (paths are relative to it: did you mean {meant!r}?)")
            raise error
        return parts
    return path.split("/")


def _meant(base: Path, path: str) -> str | None:
    """The workspace's own path an absolute one outside it likely meant: models trained in
    containers write ``/testbed/src/app.py``, ``/workspace/…`` or ``/repo/…`` for the
    project's ``src/app.py``. The longest tail of ``path`` that names something in the
    workspace, else one of two parts or more whose folder is there (a new file); only a
    hint in the refusal, never used."""
    parts = [p for p in path.split("/") if p not in ("", ".")][-32:]
    if ".." in parts:
        return None
    tails = ["/".join(parts[i:]) for i in range(1, len(parts))]
    for tail in tails:
        if os.path.lexists(os.path.join(base, tail)):
            return tail
    for tail in tails:
        folder = tail.rpartition("/")[0]
        if folder and os.path.isdir(os.path.join(base, folder)):
            return tail
    return None


def _walk(
    root: str | os.PathLike[str], path: str, *, create: bool, follow_final: bool
) -> tuple[Parent, bool]:
    """Resolve ``path`` beneath ``root``; ``(parent, missing_dirs)``. With ``create``, missing
    directories are made (beneath, by descriptor); without it, a missing directory ends the
    walk and the rest of the path is taken as written (``missing_dirs`` is then True and
    ``fd`` is the deepest existing directory)."""
    check_name(path)
    pin = pin_of(root)
    base = Path(pin.path) if pin is not None else real_root(root)
    todo: deque[str] = deque(_relative_parts(base, path))
    stack = [pin.open_dir() if pin is not None else os.open(base, _DIR_FLAGS)]
    names: list[str] = []
    hops = retries = 0
    try:
        while todo:
            part = todo.popleft()
            if part in ("", "."):
                continue
            if part == "..":
                if len(stack) == 1:
                    raise _outside(path, base, via_link=hops > 0)
                os.close(stack.pop())
                names.pop()
                continue
            last = not any(p not in ("", ".") for p in todo)
            here = stack[-1]
            try:
                st: os.stat_result | None = os.stat(part, dir_fd=here, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if st is None and (twin := _composed_twin(here, part)) is not None:
                part = twin
                try:
                    st = os.stat(part, dir_fd=here, follow_symlinks=False)
                except FileNotFoundError:
                    st = None
            if st is not None and stat.S_ISLNK(st.st_mode) and (follow_final or not last):
                hops += 1
                if hops > MAX_LINK_HOPS:
                    raise OSError(errno.ELOOP, f"too many levels of symbolic links in {path!r}")
                target = os.readlink(part, dir_fd=here)
                if os.path.isabs(target):
                    parts = _inside(base, target)
                    if parts is None:
                        raise _outside(path, base, via_link=True)
                    for fd in stack[1:]:
                        os.close(fd)
                    del stack[1:]
                    names.clear()
                    todo.extendleft(reversed(parts))
                else:
                    todo.extendleft(reversed(target.split("/")))
                continue
            if last:
                return Parent(stack.pop(), part, "/".join([*names, part])), False
            if st is None:
                if not create:
                    rest = "/".join(p for p in todo if p not in ("", "."))
                    if ".." in todo:
                        raise PathError(
                            f"path {path!r} goes through a folder that does not exist, then '..';"
                            " give the path without '..'"
                        )
                    return Parent(
                        stack.pop(), "/".join([part, rest]), "/".join([*names, part, rest])
                    ), True
                try:
                    os.mkdir(part, 0o777, dir_fd=here)
                except FileExistsError:
                    pass  # made meanwhile: opened (never followed) below
            elif not stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode):
                raise NotADirectoryError(
                    errno.ENOTDIR, f"{'/'.join([*names, part])} is a file, not a folder", path
                )
            try:
                fd = os.open(part, _DIR_FLAGS, dir_fd=here)
            except OSError as exc:  # swapped for a link (or a file) since the stat: again
                if (
                    exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT)
                    or retries > _RETRIES
                ):
                    raise
                retries += 1
                todo.appendleft(part)
                continue
            stack.append(fd)
            names.append(part)
        return Parent(stack.pop(), ".", "/".join(names) or "."), False
    finally:
        for fd in stack:
            os.close(fd)


def _composed_twin(dir_fd: int, name: str) -> str | None:
    """The one entry of the folder whose name is ``name`` composed otherwise (Unicode's
    NFC and NFD: ``é`` as one character, or as ``e`` and an accent), when ``name`` is not
    there. A name made on macOS is kept decomposed, and a model writes it composed: its
    ``write`` made a second file that looks like the first, and ``read`` found none.

    Or whose name is not UTF-8 (``caf\\xe9.txt``, Latin-1 from an old archive) and was
    shown to the model with U+FFFD for its odd bytes (``glob``, ``grep``, a listing): the
    name the model writes back, ``caf\ufffd.txt``, named nothing, so such a file could be
    listed but never read or edited.

    Only a name that is not ASCII is looked for (the folder is listed then); two such
    twins on disk are left alone (which one was meant is unknown)."""
    if name.isascii():
        return None
    try:
        names = os.listdir(dir_fd)
    except OSError:
        return None
    if "\ufffd" in name:
        found = [n for n in names if n != name and name in _shown_forms(n)]
        if found:
            return found[0] if len(found) == 1 else None
    import unicodedata

    want = unicodedata.normalize("NFC", name)
    found = [n for n in names if not n.isascii() and unicodedata.normalize("NFC", n) == want]
    return found[0] if len(found) == 1 else None


_AS_SHOWN = {code: "\ufffd" for code in range(0xDC80, 0xDD00)}
"""Each byte of a file name that is not UTF-8 (a surrogate, as ``os.listdir`` gives it)
as U+FFFD (``str.translate``: no regular expression on a command's path)."""


def as_shown(name: str) -> str:
    """``name`` as the model is shown it: each byte that is not UTF-8 as U+FFFD (a name so
    written back finds the file: :func:`_composed_twin`)."""
    return name.translate(_AS_SHOWN)


def _shown_forms(name: str) -> tuple[str, ...]:
    """``name`` with its undecodable bytes as U+FFFD: one each, or as UTF-8's decoder
    with ``replace`` makes them (a cut sequence is one); the forms a tool may have shown."""
    each = as_shown(name)
    if each == name:
        return ()
    return (each, name.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


@contextmanager
def parent(
    root: str | os.PathLike[str], path: str, *, create: bool = False, follow_final: bool = True
) -> Iterator[Parent]:
    """The real parent directory (an open descriptor, closed on exit) and name of ``path``.

    ``create`` makes missing directories beneath the root. A final component that is a link
    inside the workspace is resolved to its target unless ``follow_final`` is False.
    """
    found, missing = _walk(root, path, create=create, follow_final=follow_final)
    try:
        if missing:
            raise FileNotFoundError(errno.ENOENT, "no such folder", path)
        yield found
    finally:
        os.close(found.fd)


def missing_folders(root: str | os.PathLike[str], path: str) -> list[str]:
    """The folders beneath the root a write of ``path`` would make (not there now),
    outermost first, as real workspace-relative paths: what an undo of that write may
    remove again once it has emptied them."""
    found, missing = _walk(root, path, create=False, follow_final=False)
    os.close(found.fd)
    if not missing:
        return []
    folders = found.name.split("/")[:-1]
    base = found.rel[: len(found.rel) - len(found.name)].rstrip("/")
    out: list[str] = []
    for name in folders:
        base = f"{base}/{name}" if base else name
        out.append(base)
    return out


def remove_empty_folder(root: str | os.PathLike[str], path: str) -> bool:
    """Remove the folder ``path`` beneath the root if it is empty (never the root itself,
    never through a link); whether it was removed."""
    if path in ("", "."):
        return False
    try:
        with parent(root, path, follow_final=False) as where:
            os.rmdir(where.name, dir_fd=where.fd)
    except (OSError, PathError):
        return False  # not empty, not a folder, gone, or out of bounds: left as it is
    return True


def resolve_rel(root: str | os.PathLike[str], path: str) -> str:
    """The real workspace-relative path of ``path`` (links inside the workspace resolved,
    folders not yet made taken as written); raises ``PathError`` if it leaves the root."""
    found, _ = _walk(root, path, create=False, follow_final=True)
    os.close(found.fd)
    return found.rel


def open_regular(dir_fd: int, name: str) -> tuple[int, os.stat_result] | None:
    """``name`` in ``dir_fd`` opened for reading, never blocking and never through a link;
    ``None`` if absent. Raises ``NotRegularFileError`` / ``IsADirectoryError``."""
    flags = os.O_RDONLY | _O_CLOEXEC | _O_NOFOLLOW | _O_NONBLOCK
    try:
        fd = os.open(name, flags | _O_NOATIME, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except PermissionError:
        if not _O_NOATIME:
            raise
        try:  # O_NOATIME is only allowed on files we own
            fd = os.open(name, flags, dir_fd=dir_fd)
        except FileNotFoundError:
            return None
    except OSError as exc:
        if exc.errno == errno.EISDIR:
            raise IsADirectoryError(errno.EISDIR, "Is a directory", name) from None
        raise
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode):
        return fd, st
    os.close(fd)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", name)
    raise NotRegularFileError(
        errno.EINVAL,
        f"{name} is {_kind(st.st_mode)}, not a regular file; Frontier reads and writes regular "
        "files only",
    )


def read_fd(fd: int, size: int, cap: int | None = None) -> bytes:
    """The rest of ``fd`` (``size``: what ``fstat`` said); with ``cap``, at most ``cap``
    bytes: past it (a file that grew) ``ValueError``."""
    want = size + 1
    chunk = os.read(fd, want)
    if len(chunk) < want:  # the common case: the whole file in one read
        return chunk
    parts = [chunk]
    read = len(chunk)
    while cap is None or read <= cap:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        read += len(chunk)
    raise ValueError(read)


def read_in(dir_fd: int, name: str, cap: int | None = None) -> tuple[bytes | None, int | None]:
    """``(bytes, permission bits)`` of ``name`` in ``dir_fd``, ``(None, None)`` if absent;
    a file over ``cap`` bytes raises :class:`TooLargeError` without being read."""
    opened = open_regular(dir_fd, name)
    if opened is None:
        return None, None
    fd, st = opened
    try:
        if cap is not None and st.st_size > cap:
            raise TooLargeError(name, st.st_size, cap)
        try:
            return read_fd(fd, st.st_size, cap), stat.S_IMODE(st.st_mode)
        except ValueError as grew:
            raise TooLargeError(name, int(grew.args[0]), cap or 0) from None
    finally:
        os.close(fd)


def read_file(
    root: str | os.PathLike[str], path: str, cap: int | None = None
) -> tuple[bytes | None, int | None]:
    """A file's bytes and permission bits, resolved beneath ``root`` now; ``(None, None)``
    if it (or a folder on its way) does not exist; over ``cap`` bytes,
    :class:`TooLargeError` (its size decides: a file the workspace holds can be any size,
    and reading a gigabyte to refuse it cost a second and a gigabyte of memory)."""
    found, missing = _walk(root, path, create=False, follow_final=True)
    try:
        if missing:
            return None, None
        return read_in(found.fd, found.name, cap)
    finally:
        os.close(found.fd)


def read_capped(
    root: str | os.PathLike[str], path: str, cap: int
) -> tuple[bytes | None, int | None]:
    """As :func:`read_file`, for a file the workspace controls and Frontier only needs small
    (a project's settings): ``(None, size)`` without reading it when it holds more than
    ``cap`` bytes, so a hostile gigabyte costs nothing."""
    found, missing = _walk(root, path, create=False, follow_final=True)
    try:
        if missing:
            return None, None
        opened = open_regular(found.fd, found.name)
        if opened is None:
            return None, None
        fd, st = opened
        try:
            if st.st_size > cap:
                return None, st.st_size
            parts: list[bytes] = []
            left = cap + 1  # one byte more tells a file that grew past the cap
            while left > 0 and (chunk := os.read(fd, min(left, 1 << 16))):
                parts.append(chunk)
                left -= len(chunk)
            data = b"".join(parts)
            return (None, len(data)) if len(data) > cap else (data, len(data))
        finally:
            os.close(fd)
    finally:
        os.close(found.fd)
