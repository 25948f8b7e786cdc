"""Writing Frontier's own files: whole, or not at all (issue 21, item 14).

Every file Frontier writes outside the tool boundary — ``config.toml`` (the theme the
TUI remembers), ``approvals.toml``, ``frontier export -o``, the TUI's markdown exports
and screenshots, the prompt history when it is compacted — is replaced through
:func:`write_atomic`. (The tool boundary has its own journalled writer,
``tools/atomic.py``: a model's edits need undo and crash recovery, these do not.)

A plain ``write_text`` truncates the file first: a crash, a full disk or a kill in the
middle leaves half a config, and an approvals file cut in the middle of a rule.
``os.replace`` of a temp file without ``fsync`` is not enough either: after a power loss
the rename can be on disk before the data (ext4 ``data=writeback``, XFS), leaving an
empty file where the old one was. So: write a temp file in the same folder, ``fsync``
it, rename it over the target, ``fsync`` the folder so the rename itself is durable.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

DEFAULT_MODE = 0o666
"""A new file's mode before the umask, as ``open(path, "w")`` creates it."""

_UNSYNCABLE_DIR = frozenset({errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF})
"""What ``fsync`` of a directory answers on filesystems that cannot sync one (some
FUSE and network filesystems): the rename is then as durable as that filesystem makes
it, and failing the write for it would only lose the user's file."""


def write_atomic(
    path: str | os.PathLike[str],
    data: str | bytes,
    *,
    mode: int | None = None,
    exclusive: bool = False,
    encoding: str = "utf-8",
) -> Path:
    """Replace ``path`` with ``data``, whole or not at all; returns the path written.

    - The temp file (``.NAME.RANDOM.tmp``) is in the target's folder (a rename is atomic
      only within one filesystem) and is removed on any failure, so nothing is left
      behind: the old file stays as it was.
    - An existing file keeps its permission bits (a ``chmod 600`` config stays private);
      a new one gets ``mode`` (default ``0o666``) less the umask, as ``open`` would.
    - A symbolic link is written through: the file it points to is replaced and the link
      stays (a config.toml linked from a dotfiles repository stays linked).
    - ``exclusive``: fail with ``FileExistsError`` when ``path`` exists (an export that
      never overwrites). The name is claimed first with ``O_EXCL`` — so two writers
      cannot both take it — and then replaced atomically like any other file.

    ``str`` data is encoded with ``encoding`` (``surrogateescape``: text read from a
    file with undecodable bytes is written back as those bytes).
    """
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    body = data.encode(encoding, "surrogateescape") if isinstance(data, str) else data
    folder = target.parent
    claimed = False
    if exclusive:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, _new(mode))
        os.close(fd)
        claimed = True
    try:
        keep = _existing_mode(target)
        temp, fd = _temp_beside(target, _new(mode) if keep is None else 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                if keep is not None:
                    os.fchmod(handle.fileno(), keep)
                handle.write(body)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
        claimed = False
        sync_folder(folder)
    finally:
        if claimed:  # the name was taken for this write, which failed: give it back
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)
    return target


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """``fsync`` a folder, so a rename or a new name in it survives a power loss."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _UNSYNCABLE_DIR:
            raise
    finally:
        os.close(fd)


def _new(mode: int | None) -> int:
    return DEFAULT_MODE if mode is None else mode


def _existing_mode(target: Path) -> int | None:
    """The permission bits of the file being replaced (``None``: there is none yet)."""
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "not a regular file", str(target))
    return stat.S_IMODE(info.st_mode)


def _temp_beside(target: Path, mode: int) -> tuple[Path, int]:
    """A new, empty temp file in ``target``'s folder and its descriptor (``O_EXCL``:
    never one another process made; created with ``mode`` less the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for _ in range(100):
        # os.urandom, not the secrets module: that imports hashlib (OpenSSL, ~6 ms)
        temp = target.with_name(f".{target.name}.{os.urandom(4).hex()}.tmp")
        try:
            return temp, os.open(temp, flags, mode)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temp name beside it", str(target))


__all__ = ["sync_folder", "write_atomic"]
