"""Crash-safe multi-file writes beneath the workspace root: every file wholly old or wholly new.

Every path is resolved beneath the root *now*, by directory descriptors
(``beneath``), and every step below happens in the real parent directory's
descriptor, so a directory swapped for a symlink after the review cannot redirect
the write. In order:

1. lock: each distinct parent directory is ``flock``ed (in a fixed order), so two
   Frontier sessions writing one workspace never interleave a check and a rename;
2. check: every target still has the bytes the approval was bound to;
3. temps: each new content is written to a temp file next to its target and
   fsynced (writeback started for all first, then fsynced concurrently: they share
   one or two journal commits);
4. pre-images: each existing target gets a hard link (a copy where links are not
   allowed) next to it, so it can be put back without free space;
5. the directories are fsynced, then the caller's intent journal is committed
   (``contract.IntentJournal.begin``): every target with its temp, its pre-image and both
   hashes. From here a crash at any instant is recovered by ``recover_intent``:
   forward if every missing rename can still be done, else back from the
   pre-images;
6. renames (``os.replace`` by descriptor) and deletions, then the directories
   fsynced again, every file read back, the pre-images removed, and the journal
   closed.

A failure in step 6 puts back every file already changed (renaming its pre-image
back: no space needed) and the error says exactly what is on disk. No temp or
pre-image file is ever left behind, unless a crash leaves it for recovery.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from frontier.tools import beneath
from frontier.tools.digest import sha256

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from frontier.tools.contract import IntentJournal

TEMP_SUFFIX = ".frontier-tmp"
OLD_SUFFIX = ".frontier-old"
_POOL_MIN_FILES = 3
"""Below this many files, threads cost more than they save."""
_POOL_MAX_WORKERS = 16
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FADVISE = getattr(os, "posix_fadvise", None)
_DONTNEED = getattr(os, "POSIX_FADV_DONTNEED", 0)


class AtomicWriteError(OSError):
    """A multi-file write failed; the message says which file and what is on disk now."""


class ChangedSinceReview(AtomicWriteError):
    """A target no longer has the bytes the approval was bound to; nothing was written."""


class FileWrite(NamedTuple):
    path: str
    """The path as reviewed (workspace-relative, as named): resolved beneath the root now."""
    data: bytes | None
    """New content; ``None`` deletes the file."""
    old: bytes | None
    """Content the approval was bound to (``None`` = absent): re-checked, and put back on
    failure."""
    mode: int | None = None
    """Permission bits for the new file; ``None`` keeps the current ones (or the umask)."""
    old_mode: int | None = None
    expect: str | None = None
    """The real workspace-relative path the review resolved ``path`` to; a write whose path
    resolves elsewhere now (a link repointed) is refused."""


def _replace(src: str, dst: str, dir_fd: int) -> None:
    """Indirection so tests can inject a rename fault (names inside ``dir_fd``)."""
    os.replace(src, dst, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def _unlink(name: str, dir_fd: int) -> None:
    """Indirection so tests can inject a deletion fault."""
    os.unlink(name, dir_fd=dir_fd)


def _crash_point(step: str) -> None:
    """A seam for crash tests: called before every step that changes the disk."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def default_mode() -> int:
    return 0o666 & ~_umask()


def _fsync_dir(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise  # a real I/O error on the directory: the renames may not be durable


def _new_name(target: str, suffix: str) -> str:
    return f".{target[:180]}.{os.urandom(6).hex()}{suffix}"


def _create(dir_fd: int, target: str, suffix: str, data: bytes, mode: int) -> tuple[str, int]:
    """A new file next to ``target`` holding ``data``; returns its name and its open, not
    yet fsynced descriptor. Nothing is left behind if this raises."""
    for _ in range(100):
        name = _new_name(target, suffix)
        try:
            fd = os.open(
                name,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC | _O_NOFOLLOW,
                0o600,
                dir_fd=dir_fd,
            )
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, f"could not create a temp file next to {target}")
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        os.unlink(name, dir_fd=dir_fd)
        raise
    return name, fd


def _start_writeback(fd: int) -> None:
    """Start writing the file's dirty pages now, without waiting (a hint: the fsync syncs).

    Linux starts asynchronous writeback for ``POSIX_FADV_DONTNEED``; with every temp's data
    on its way, the fsyncs that follow share one or two journal commits."""
    if _FADVISE is not None:
        try:
            _FADVISE(fd, 0, 0, _DONTNEED)
        except OSError:
            return  # not supported here (e.g. FUSE): the fsync still syncs


def _sync_close(fd: int) -> None:
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_POOL: ThreadPoolExecutor | None = None


def _shared_pool() -> ThreadPoolExecutor:
    """One pool for the process, made on first use (idle workers cost nothing)."""
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=_POOL_MAX_WORKERS, thread_name_prefix="fsync")
    return _POOL


def _sync_all(fds: list[int], pool: ThreadPoolExecutor | None) -> None:
    for fd in fds:
        _start_writeback(fd)
    if pool is None:
        errors: list[BaseException] = []
        for fd in fds:
            try:
                _sync_close(fd)
            except OSError as exc:
                errors.append(exc)
    else:
        futures = [pool.submit(_sync_close, fd) for fd in fds]
        errors = [exc for exc in (fut.exception() for fut in futures) if exc is not None]
    if errors:
        raise errors[0]


class _Target:
    """One file of the write, resolved and opened beneath the root (mutable, private)."""

    def __init__(self, write: FileWrite, parent: beneath.Parent, made: list[tuple[int, str]]):
        self.write = write
        self.fd = parent.fd
        self.name = parent.name
        self.rel = parent.rel
        self.made = made
        """Folders made for it: ``(descriptor of their parent, name)``, outermost first."""
        self.temp: str | None = None
        self.backup: str | None = None
        self.done = False


def _open_target(root: str | os.PathLike[str], w: FileWrite) -> _Target:
    found, missing = beneath._walk(root, w.path, create=False, follow_final=True)
    made: list[tuple[int, str]] = []
    try:
        if missing:
            if w.data is None:
                raise ChangedSinceReview(
                    errno.ESTALE,
                    f"file changed since review: {w.path} is gone; nothing written. Re-read "
                    "the workspace and re-issue the call",
                )
            found, made = _make_dirs(found)
        if w.expect is not None and found.rel != w.expect:
            raise AtomicWriteError(
                errno.EXDEV,
                f"{w.path} now resolves to {found.rel}, not to {w.expect} as reviewed (a link "
                "or folder changed); nothing written. Re-read it and re-issue the call",
            )
    except BaseException:
        os.close(found.fd)
        for fd, _ in reversed(made):
            os.close(fd)
        raise
    return _Target(w, found, made)


def _make_dirs(found: beneath.Parent) -> tuple[beneath.Parent, list[tuple[int, str]]]:
    """Make the missing folders of ``found.name`` (``a/b/file``) beneath ``found.fd``."""
    *folders, name = found.name.split("/")
    fd = found.fd
    made: list[tuple[int, str]] = []
    try:
        for folder in folders:
            try:
                os.mkdir(folder, 0o777, dir_fd=fd)
                made.append((os.dup(fd), folder))
            except FileExistsError:
                pass
            nfd = os.open(folder, beneath._DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        for pfd, folder in reversed(made):
            try:
                os.rmdir(folder, dir_fd=pfd)
            except OSError:
                pass  # not empty: someone else wrote there meanwhile, keep it
            os.close(pfd)
        raise
    return beneath.Parent(fd, name, found.rel), made


def commit_files(
    root: str | os.PathLike[str],
    writes: Sequence[FileWrite],
    *,
    journal: IntentJournal | None = None,
    check: bool = True,
    read_back: bool = True,
) -> None:
    """Write/delete every file beneath ``root``, or none of them; raises ``AtomicWriteError``
    (``ChangedSinceReview`` when a target changed since the review) saying what is on disk."""
    targets: list[_Target] = []
    locked: list[int] = []
    began = renamed = False
    try:
        for w in writes:
            targets.append(_open_target(root, w))
        locked = _lock_dirs(targets)
        if check:
            _check(targets)
        _write_temps(targets, _shared_pool() if len(writes) >= _POOL_MIN_FILES else None)
        _keep_pre_images(targets)
        for fd in _dirs(targets):
            _fsync_dir(fd)
        if journal is not None:
            journal.begin([_entry(t) for t in targets])
            began = True
        _rename_all(targets)  # on failure: every changed file put back, then raises
        renamed = True
        for fd in _dirs(targets):
            _fsync_dir(fd)
        if read_back:
            _read_back(targets)
        for t in targets:
            if t.backup is not None:
                _crash_point("drop pre-image")
                os.unlink(t.backup, dir_fd=t.fd)
                t.backup = None
        if journal is not None:
            journal.end("done")
    except BaseException:
        if not renamed:
            _undo_folders(targets)
        if began and journal is not None:
            try:
                journal.end("done" if renamed else "rolled back")
            except Exception:  # the journal stays open: recovery checks the files at next start
                pass
        raise
    finally:
        for t in targets:
            for name in (t.temp, t.backup):
                if name is not None:
                    try:
                        os.unlink(name, dir_fd=t.fd)
                    except FileNotFoundError:
                        pass
        for fd in locked:
            _unlock(fd)
        for t in targets:
            os.close(t.fd)
            for fd, _ in t.made:
                os.close(fd)


def _dirs(targets: Sequence[_Target]) -> list[int]:
    """One descriptor per distinct directory (and the parents of folders we made)."""
    seen: dict[tuple[int, int], int] = {}
    for t in targets:
        for fd in [t.fd, *(pfd for pfd, _ in t.made)]:
            st = os.fstat(fd)
            seen.setdefault((st.st_dev, st.st_ino), fd)
    return list(seen.values())


def _lock_dirs(targets: Sequence[_Target]) -> list[int]:
    import fcntl

    keyed: dict[tuple[int, int], int] = {}
    for t in targets:
        st = os.fstat(t.fd)
        keyed.setdefault((st.st_dev, st.st_ino), t.fd)
    locked: list[int] = []
    for key in sorted(keyed):
        fd = keyed[key]
        fcntl.flock(fd, fcntl.LOCK_EX)
        locked.append(fd)
    return locked


def _unlock(fd: int) -> None:
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    except OSError:
        return  # closing the descriptor releases it anyway


def _check(targets: Sequence[_Target]) -> None:
    for t in targets:
        now, _ = beneath.read_in(t.fd, t.name)
        if now != t.write.old:
            was, cur = sha256(t.write.old), sha256(now)
            raise ChangedSinceReview(
                errno.ESTALE,
                f"file changed since review: {t.write.path} (sha256 {_h(was)} when reviewed, "
                f"{_h(cur)} now); nothing written. Re-read the file and re-issue the call",
            )


def _h(digest: str | None) -> str:
    return "absent" if digest is None else digest[:12]


def _current_mode(t: _Target) -> int | None:
    try:
        return stat.S_IMODE(os.stat(t.name, dir_fd=t.fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return None


def _write_temps(targets: Sequence[_Target], pool: ThreadPoolExecutor | None) -> None:
    """Every temp created and written here first (creating a file needs a journal handle,
    which waits while a commit is being prepared), then all fsynced together."""
    fds: list[int] = []
    fallback: int | None = None
    try:
        for t in targets:
            w = t.write
            if w.data is None:
                continue
            mode = w.mode if w.mode is not None else _current_mode(t)
            if mode is None:
                fallback = default_mode() if fallback is None else fallback
                mode = fallback
            _crash_point("temp")
            t.temp, fd = _create(t.fd, t.name, TEMP_SUFFIX, w.data, mode)
            fds.append(fd)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    _sync_all(fds, pool)


def _keep_pre_images(targets: Sequence[_Target]) -> None:
    """A hard link to every existing target (a copy where links are refused)."""
    for t in targets:
        if t.write.old is None:
            continue
        _crash_point("pre-image")
        for _ in range(100):
            name = _new_name(t.name, OLD_SUFFIX)
            try:
                os.link(t.name, name, src_dir_fd=t.fd, dst_dir_fd=t.fd, follow_symlinks=False)
            except FileExistsError:
                continue
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EXDEV, errno.ENOTSUP, errno.EMLINK):
                    raise
                mode = t.write.old_mode if t.write.old_mode is not None else default_mode()
                name, fd = _create(t.fd, t.name, OLD_SUFFIX, t.write.old, mode)
                _sync_close(fd)
            t.backup = name
            break


def _entry(t: _Target) -> dict[str, Any]:
    folder = t.rel.rsplit("/", 1)[0] if "/" in t.rel else "."
    return {
        "path": t.write.path,
        "dir": folder,
        "name": t.name,
        "temp": t.temp,
        "pre_image": t.backup,
        "before": sha256(t.write.old),
        "after": sha256(t.write.data),
    }


def _rename_all(targets: Sequence[_Target]) -> None:
    order = [t for t in targets if t.write.data is not None] + [
        t for t in targets if t.write.data is None
    ]
    for t in order:
        _crash_point("rename")
        try:
            if t.write.data is None:
                _unlink(t.name, t.fd)
            else:
                assert t.temp is not None
                _replace(t.temp, t.name, t.fd)
                t.temp = None
        except OSError as exc:
            state = _roll_back(targets)
            raise AtomicWriteError(
                exc.errno or errno.EIO,
                f"writing {t.write.path} failed ({exc.strerror or exc}); {state}",
            ) from exc
        t.done = True


def _roll_back(targets: Sequence[_Target]) -> str:
    """Put every changed file back (pre-image renamed back: no free space needed); say what
    the disk holds now."""
    failed: list[str] = []
    restored = 0
    for t in reversed(targets):
        if not t.done:
            continue
        try:
            if t.backup is not None:
                _replace(t.backup, t.name, t.fd)
                t.backup = None
            else:
                os.unlink(t.name, dir_fd=t.fd)
            t.done = False
            restored += 1
        except OSError as exc:
            failed.append(f"{t.write.path} ({exc.strerror or exc}: it has the NEW content)")
    if failed:
        return "could NOT restore: " + ", ".join(failed) + " — check these files by hand"
    if restored:
        return f"the {restored} file(s) already written were put back; nothing changed on disk"
    return "nothing changed on disk"


def _read_back(targets: Sequence[_Target]) -> None:
    for t in targets:
        now, _ = beneath.read_in(t.fd, t.name)
        if now != t.write.data:
            raise AtomicWriteError(
                errno.EIO,
                f"read-back mismatch for {t.write.path}: the file on disk differs from what was "
                "written (another process may be writing it); every file was written — re-read "
                "it before continuing",
            )


def _undo_folders(targets: Sequence[_Target]) -> None:
    for t in targets:
        if t.done:
            continue
        for pfd, name in reversed(t.made):
            try:
                os.rmdir(name, dir_fd=pfd)
            except OSError:
                pass  # not empty (the file stayed, or someone else wrote there): keep it


# ----------------------------------------------------------------------------- recovery


def recover_intent(root: str | os.PathLike[str], entries: Sequence[Mapping[str, Any]]) -> str:
    """Finish or undo a multi-file write a crash interrupted, from its journal entries.

    Forward when every target not yet renamed still has its complete temp (the temps were
    fsynced before the journal was committed); otherwise back, every renamed target from its
    pre-image. Temps and pre-images are removed either way. Returns what was done."""
    opened: list[tuple[Mapping[str, Any], int]] = []
    try:
        for e in entries:
            found, missing = beneath._walk(
                root, f"{e['dir']}/{e['name']}", create=False, follow_final=False
            )
            if missing:
                os.close(found.fd)
                continue
            opened.append((e, found.fd))
        states = [(e, fd, _state(e, fd)) for e, fd in opened]
        if all(s in ("done", "pending") for _, _, s in states):
            if all(s == "done" for _, _, s in states):
                outcome = "done"
            elif all(_temp_ok(e, fd) for e, fd, s in states if s == "pending"):
                for e, fd, s in states:
                    if s == "pending":
                        if e["after"] is None:
                            os.unlink(e["name"], dir_fd=fd)
                        else:
                            os.replace(e["temp"], e["name"], src_dir_fd=fd, dst_dir_fd=fd)
                outcome = "rolled forward"
            else:
                outcome = _restore(states)
        else:
            outcome = _restore(states) + " (some files had changed: check them)"
        for e, fd in opened:
            for key in ("temp", "pre_image"):
                if e.get(key):
                    try:
                        os.unlink(e[key], dir_fd=fd)
                    except FileNotFoundError:
                        pass
            _fsync_dir(fd)
        return outcome
    finally:
        for _, fd in opened:
            os.close(fd)


def _state(e: Mapping[str, Any], fd: int) -> str:
    try:
        now, _ = beneath.read_in(fd, e["name"])
    except OSError:
        return "diverged"
    digest = sha256(now)
    if digest == e["after"]:
        return "done"
    if digest == e["before"]:
        return "pending"
    return "diverged"


def _temp_ok(e: Mapping[str, Any], fd: int) -> bool:
    if e["after"] is None:
        return True  # a deletion needs no temp
    if not e.get("temp"):
        return False
    try:
        data, _ = beneath.read_in(fd, e["temp"])
    except OSError:
        return False
    return sha256(data) == e["after"]


def _restore(states: Sequence[tuple[Mapping[str, Any], int, str]]) -> str:
    for e, fd, s in states:
        if s != "done":
            continue
        if e["before"] is None:
            os.unlink(e["name"], dir_fd=fd)
        elif e.get("pre_image"):
            data, _ = beneath.read_in(fd, e["pre_image"])
            if sha256(data) == e["before"]:
                os.replace(e["pre_image"], e["name"], src_dir_fd=fd, dst_dir_fd=fd)
    return "rolled back"


def remove_leftovers(root: str | os.PathLike[str], paths: Sequence[str]) -> list[str]:
    """Remove the temp and pre-image files a killed write left next to ``paths`` (when no
    journal was committed: then no target was renamed, so they are only copies). Returns the
    workspace-relative names removed."""
    removed: list[str] = []
    for path in paths:
        try:
            found, missing = beneath._walk(root, path, create=False, follow_final=False)
        except (OSError, beneath.PathError):
            continue
        try:
            if missing:
                continue
            prefix = f".{found.name[:180]}."
            folder = found.rel.rsplit("/", 1)[0] + "/" if "/" in found.rel else ""
            for entry in os.scandir(found.fd):
                if entry.name.startswith(prefix) and entry.name.endswith((TEMP_SUFFIX, OLD_SUFFIX)):
                    try:
                        os.unlink(entry.name, dir_fd=found.fd)
                    except FileNotFoundError:
                        continue
                    removed.append(folder + entry.name)
        finally:
            os.close(found.fd)
    return removed
