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

A failure in step 6 (or Ctrl-C between two renames) puts back every file already
changed (renaming its pre-image back: no space needed) and the error says exactly what
is on disk. No temp or pre-image file is ever left behind, unless a crash leaves it for
recovery. They are removed *before* the journal is closed, so a journal that cannot be
closed (``JournalNotClosed``: the store failing) names nothing recovery could act on.

The journal is untrusted when read back (a store travels; a data dir can be edited), so
what the writer writes is also checked here (``check_intent``), and ``recover_intent``
acts only on entries that pass and whose own temps or pre-images are on disk.

**Stopping** (issue 21, item 4). A write run for a tool call gets the call's deadline and
its Esc through a ``WriteStop`` (passed in, or the ambient ``CALL_STOP`` the tool boundary
sets for the call). Until step 5 the writer gives up when asked — the locks are waited for
with it ("the folder is locked by another process"), and it is checked once more right
before the journal commit (before the first rename when there is no journal) — and
nothing is written: ``WriteStopped``. From that point on it is never interrupted: it runs
to its real outcome, which the boundary waits for and records. So "stopped" always means
nothing was written, and a write never lands after its call's result. A write with no call
behind it (``frontier apply-patch``) waits for a locked folder ``LOCK_WAIT`` seconds, then
says which process holds it (``FolderLocked``): nothing waits on a lock for ever.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from collections.abc import Callable, Mapping, Sequence

from frontier.tools import beneath

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Literal, NamedTuple
else:
    from frontier.app.record import NamedTuple

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor
    from contextvars import ContextVar

    from frontier.tools.contract import IntentJournal

TEMP_SUFFIX = ".frontier-tmp"
OLD_SUFFIX = ".frontier-old"
_NAME_CUT = 180
"""A temp or pre-image is named after its target (``_new_name``): this many characters
of the target's name are kept."""
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


class JournalNotClosed(AtomicWriteError):
    """The write is over — the message says what is on disk — but its intent journal could
    not record it (``IntentJournal.end`` raised: the session store or the journal file).

    Raised, never swallowed: a journal that cannot be written is a failing store, and the
    one running the write must hear of it (the tool boundary ends the turn as a session
    store failure, as for any other record it could not make; ``frontier apply-patch``
    prints it and fails). Raised only once the write is whole (new or put back) and its
    temps and pre-images are gone, so the open journal is harmless: recovery at the next
    start finds none of its leftovers and touches nothing."""

    def __str__(self) -> str:
        return str(self.strerror)  # read by people and models: no "[Errno 5]" prefix


class WriteStopped(AtomicWriteError):
    """The write was asked to stop (deadline, Esc) before its point of no return; nothing
    was written."""

    def __str__(self) -> str:
        return str(self.strerror)  # read by people and models: no "[Errno 125]" prefix


class FolderLocked(WriteStopped):
    """A write with no call behind it (the CLI) waited ``LOCK_WAIT`` for a folder another
    process holds and gave up; nothing was written."""


if TYPE_CHECKING:
    StopReason = Literal["timeout", "cancelled"]


class WriteStop:
    """How a call's deadline and its cancellation reach the writer's thread.

    Also the writer's one report back to the boundary, ``unrecorded`` (read once the
    writer has returned).

    Thread-safe: the event loop asks (``request``), the writer's thread checks (``check``,
    ``commit``). The two race only over one decision, made under a lock: either the
    request comes first and the writer gives up at its next check (nothing written,
    ``gave_up`` says where it was), or the writer passed its point of no return first
    (``committed``) and will finish. ``request`` returns which, so the caller knows
    whether "stopped" will be true before it says so. ``deadline`` (``time.monotonic``)
    stops the writer on time even if the loop that would ask is late.
    """

    def __init__(self, deadline: float | None = None) -> None:
        import threading  # here: a CLI write makes no stop unless a folder is locked

        self.deadline = deadline
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._reason: StopReason | None = None
        self.committed = False
        """The writer passed its point of no return: it finishes whatever is asked."""
        self.gave_up: str | None = None
        """Where the writer was when it stopped (``waiting for the folder 'src', which is
        locked by another process``); ``None`` unless it stopped."""
        self.on_wait: Callable[[str], object] | None = None
        """Told once, from the writer's thread, when a folder it must lock is held by
        another process (a line naming the folder and, when the system says, the holder's
        pid): the boundary shows it as the call's live output, so a wait is never silent."""
        self.unrecorded: JournalNotClosed | None = None
        """Set by the writer when its write is over but its intent journal could not record
        it (``JournalNotClosed``, also raised): the one thing the boundary must learn
        whatever the tool makes of the error — it ends the turn as a store failure."""

    @property
    def reason(self) -> StopReason | None:
        """Why a stop was asked (``timeout`` also when the deadline passed by itself)."""
        return self._reason

    def request(self, reason: StopReason) -> bool:
        """Ask the writer to stop; ``False`` when it is already past its point of no return."""
        with self._lock:
            if self._reason is None:
                self._reason = reason
            self._wake.set()
            return not self.committed

    def until_requested(self, timeout: float) -> bool:
        """Block until a stop is asked (or ``timeout`` seconds): for progress and tests."""
        return self._wake.wait(timeout)

    def _due(self) -> StopReason | None:
        late = self.deadline is not None and time.monotonic() >= self.deadline
        if self._reason is None and late:
            self._reason = "timeout"
            self._wake.set()
        return self._reason

    def check(self, doing: str) -> None:
        """Raise ``WriteStopped`` if a stop was asked; ``doing`` says where the writer is."""
        with self._lock:
            why = self._due()
            if why is None or self.committed:
                return
            self.gave_up = doing
        raise WriteStopped(errno.ECANCELED, _stopped_text(why, doing))

    def commit(self) -> None:
        """The point of no return: raise ``WriteStopped`` if a stop came first, else mark
        the write committed (from here it is never stopped)."""
        with self._lock:
            why = self._due()
            if why is None:
                self.committed = True
                return
            self.gave_up = "about to write"
        raise WriteStopped(errno.ECANCELED, _stopped_text(why, "about to write"))

    def wait(self, seconds: float) -> None:
        """Sleep up to ``seconds``, waking at once when a stop is asked or at the deadline."""
        if self.deadline is not None:
            seconds = min(seconds, max(0.0, self.deadline - time.monotonic()))
        self._wake.wait(seconds)


def _stopped_text(why: StopReason, doing: str) -> str:
    cause = "its time limit passed" if why == "timeout" else "it was cancelled"
    return f"stopped because {cause} while {doing}; nothing was written"


if TYPE_CHECKING:
    CALL_STOP: ContextVar[WriteStop | None]
    """The running tool call's ``WriteStop``, set by the tool boundary for the call's task.

    Ambient on purpose: a tool reaches ``commit_files`` through layers that carry no token
    (``edit.write_plan`` → ``patch_engine.write_changes``, the undo tool), and every one of
    them must honour the call's deadline. ``asyncio.to_thread`` copies the context, so the
    writer's thread sees the value of the call it runs for."""


def __getattr__(name: str) -> object:
    """``CALL_STOP``, made on first use: ``contextvars`` is ~0.5 ms of ``frontier
    apply-patch``'s start-up (issue 24), and only the tool boundary sets the variable."""
    if name == "CALL_STOP":
        from contextvars import ContextVar

        # setdefault: two threads asking first at once still get the one variable
        made: ContextVar[WriteStop | None] = ContextVar("frontier_call_stop", default=None)
        return globals().setdefault("CALL_STOP", made)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


LOCK_POLL_MAX = 0.1
"""Seconds between attempts at a folder lock another process holds (the first after 5 ms;
a stop wakes the wait at once)."""
LOCK_WAIT = 10.0
"""Seconds a write with no call to stop it (the CLI: ``frontier apply-patch``) waits for a
folder another process holds before giving up with :class:`FolderLocked`: it waited
silently for as long as the other process took, for ever if that one hung."""


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


def umask() -> int:
    """The process's umask (read by setting it and back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def default_mode() -> int:
    """The mode a new file gets (``0o666`` less the umask)."""
    return 0o666 & ~umask()


def _fsync_dir(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise  # a real I/O error on the directory: the renames may not be durable


def _new_name(target: str, suffix: str) -> str:
    return f".{target[:_NAME_CUT]}.{os.urandom(6).hex()}{suffix}"


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


def _forget_pool_in_child() -> None:
    """A forked child has none of the parent's pool threads, yet the pool would count them
    as idle and never start one: work submitted there would wait forever. The child makes
    its own pool on first use."""
    global _POOL
    _POOL = None


os.register_at_fork(after_in_child=_forget_pool_in_child)


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
    stop: WriteStop | None = None,
    on_wait: Callable[[str], object] | None = None,
) -> None:
    """Write/delete every file beneath ``root``, or none of them; raises ``AtomicWriteError``
    (``ChangedSinceReview`` when a target changed since the review, ``WriteStopped`` when
    ``stop`` — default: the running call's ``CALL_STOP`` — was asked before the point of no
    return, ``JournalNotClosed`` when the write is over but ``journal`` could not record
    it) saying what is on disk. Without any stop (the CLI), a folder another process holds
    is waited for ``LOCK_WAIT`` seconds at most (``FolderLocked``: nothing written), and
    ``on_wait`` is told so once as the wait begins (a call's stop has its own ``on_wait``)."""
    if stop is None:
        ambient = globals().get("CALL_STOP")  # not made yet: no call has set it
        stop = None if ambient is None else ambient.get()
    targets: list[_Target] = []
    locked: list[int] = []
    began = renamed = False
    failure: BaseException | None = None
    try:
        if stop is not None:
            stop.check("starting")
        for w in writes:
            targets.append(_open_target(root, w))
        _lock_dirs(targets, locked, stop, on_wait)
        if check:
            _check(targets)
        _write_temps(targets, _shared_pool() if len(writes) >= _POOL_MIN_FILES else None)
        _keep_pre_images(targets)
        for fd in _dirs(targets):
            _fsync_dir(fd)
        if stop is not None:
            stop.commit()  # the point of no return: after it, the write is finished
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
    except BaseException as exc:
        failure = exc
        if not renamed:
            _undo_folders(targets)
        raise
    finally:
        try:
            _remove_copies(targets)  # before the journal is closed: see _close_journal
            if began and journal is not None:
                _close_journal(journal, renamed=renamed, failure=failure, stop=stop)
        finally:
            for fd in locked:
                _unlock(fd)
            for t in targets:
                os.close(t.fd)
                for fd, _ in t.made:
                    os.close(fd)


def _remove_copies(targets: Sequence[_Target]) -> None:
    """The temps and pre-images still there (a write that failed or was stopped)."""
    for t in targets:
        for name in (t.temp, t.backup):
            if name is not None:
                try:
                    os.unlink(name, dir_fd=t.fd)
                except FileNotFoundError:
                    pass


def _close_journal(
    journal: IntentJournal,
    *,
    renamed: bool,
    failure: BaseException | None,
    stop: WriteStop | None,
) -> None:
    """Record the write's end (``done`` or ``rolled back``) in its journal; if that fails,
    raise ``JournalNotClosed`` saying what is on disk (see its docstring for why it is
    raised, never swallowed).

    Called once the write's temps and pre-images are gone, so a journal left open holds
    nothing recovery could act on: at the next start it finds none of the journal's
    leftovers and touches nothing (``NOTHING_TO_FINISH``), whichever way the write went.
    The failure is also left on ``stop`` (``WriteStop.unrecorded``) for the tool boundary.
    An interruption in flight (Ctrl-C, a cancellation: not an ``Exception``) is not
    replaced: it carries the journal's failure as a note."""
    try:
        journal.end("done" if renamed else "rolled back")
    except Exception as exc:
        if isinstance(failure, AtomicWriteError):  # it says what is on disk
            on_disk = str(failure.strerror or failure)
        elif renamed:
            on_disk = "the write is complete: every file has its new content"
        else:  # interrupted between its renames: put back (``_rename_all``'s note says)
            notes = "; ".join(getattr(failure, "__notes__", ()))
            on_disk = f"the write was interrupted ({type(failure).__name__}) {notes}".strip()
        closing = JournalNotClosed(
            exc.errno if isinstance(exc, OSError) and exc.errno else errno.EIO,
            f"{on_disk}. But its intent journal could not be closed ({exc}): the session "
            "store (or the journal file) is failing; check the disk and the data dir. The "
            "files are as just said, and recovery will leave them so",
        )
        if stop is not None:
            stop.unrecorded = closing
        if failure is not None and not isinstance(failure, Exception):
            failure.add_note(str(closing))
            return
        raise closing from exc


def _dirs(targets: Sequence[_Target]) -> list[int]:
    """One descriptor per distinct directory (and the parents of folders we made)."""
    seen: dict[tuple[int, int], int] = {}
    for t in targets:
        for fd in [t.fd, *(pfd for pfd, _ in t.made)]:
            st = os.fstat(fd)
            seen.setdefault((st.st_dev, st.st_ino), fd)
    return list(seen.values())


def _lock_dirs(
    targets: Sequence[_Target],
    locked: list[int],
    stop: WriteStop | None,
    on_wait: Callable[[str], object] | None = None,
) -> None:
    """Lock every target's folder (in a fixed order), appending each to ``locked`` as soon
    as it is held (so the caller releases exactly those if a later one fails)."""
    keyed: dict[tuple[int, int], _Target] = {}
    for t in targets:
        st = os.fstat(t.fd)
        keyed.setdefault((st.st_dev, st.st_ino), t)
    for key in sorted(keyed):
        t = keyed[key]
        _lock(t.fd, _folder_of(t.rel), stop, on_wait)
        locked.append(t.fd)


def _folder_of(rel: str) -> str:
    """How a target's folder is named in a message: ``the folder 'src'``, or the root."""
    folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
    return f"the folder {folder!r}" if folder else "the workspace folder"


def _waiting_for_lock(folder: str) -> None:
    """A seam for tests: called once when a folder's lock is held by someone else."""


def _lock(
    fd: int,
    folder: str,
    stop: WriteStop | None,
    on_wait: Callable[[str], object] | None = None,
) -> None:
    """``flock`` the folder; while another process holds it, wait until ``stop`` is asked
    (``WriteStopped``), or — with no stop, the CLI — at most ``LOCK_WAIT`` seconds
    (``FolderLocked``, naming the process that holds it when the system tells). Either
    way the wait is said once as it begins: to the stop's ``on_wait``, else to ``on_wait``."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    _waiting_for_lock(folder)
    tell = stop.on_wait if stop is not None else on_wait
    if tell is not None:
        limit = "" if stop is not None else f"; giving up after {LOCK_WAIT:g} s"
        tell(
            f"waiting for {folder}, which another process{held_by(fd)} has locked "
            f"(another Frontier session, an editor or a build writing there){limit}\n"
        )
    own = stop is None
    if stop is None:
        stop = WriteStop(time.monotonic() + LOCK_WAIT)
    doing = f"waiting for {folder}, which is locked by another process"
    delay = 0.005
    try:
        while True:
            stop.check(doing)
            stop.wait(delay)
            stop.check(doing)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                delay = min(delay * 2, LOCK_POLL_MAX)
    except WriteStopped:
        if not own:
            raise
        raise FolderLocked(
            errno.EAGAIN,
            f"{folder} is locked by another process{held_by(fd)}, still after {LOCK_WAIT:g} s: try "
            "again once it has finished (another Frontier session, an editor or a build "
            "writing there)",
        ) from None


def held_by(fd: int) -> str:
    """`` (pid N)`` naming who holds ``fd``'s lock, for a "locked by another process"
    message; empty when the system does not say."""
    holder = lock_holder(fd)
    return f" (pid {holder})" if holder is not None else ""


def lock_holder(fd: int) -> int | None:
    """The pid holding a ``flock`` on ``fd``'s file, as Linux's ``/proc/locks`` lists it
    (``None`` elsewhere, or when it is not listed): a name for the "locked by" message."""
    info = os.fstat(fd)
    where = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as listing:
            for line in listing:
                fields = line.split()
                # "1: FLOCK  ADVISORY  WRITE 12350 00:2a:1234 0 EOF"; "1: -> …" is a waiter
                if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == where:
                    return int(fields[4]) if fields[4].isdigit() else None
    except OSError:
        return None
    return None


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
            was, cur = _sha256(t.write.old), _sha256(now)
            raise ChangedSinceReview(
                errno.ESTALE,
                f"file changed since review: {t.write.path} (sha256 {_h(was)} when reviewed, "
                f"{_h(cur)} now); nothing written. Re-read the file and re-issue the call",
            )


def _sha256(data: bytes | None) -> str | None:
    """``digest.sha256``, imported when a hash is first needed (a mismatch, a journal,
    recovery): a one-file write hashes nothing (start-up, issue 24)."""
    from frontier.tools.digest import sha256

    return sha256(data)


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
            try:
                t.temp, fd = _create(t.fd, t.name, TEMP_SUFFIX, w.data, mode)
            except OSError as exc:  # a full disk, a read-only file system: named by the
                exc.filename = str(w.path)  # file written, not its temp twin (".a.txt.…-tmp")
                raise
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
        "before": _sha256(t.write.old),
        "after": _sha256(t.write.data),
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
        except BaseException as exc:  # Ctrl-C between two renames (the CLI's main thread)
            exc.add_note(f"interrupted before writing {t.write.path}; {_roll_back(targets)}")
            raise
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


# ------------------------------------------------------------- journal entries, checked
#
# An intent journal is untrusted input: it comes from a session store (which people send
# each other to debug a session) or from a file in the data dir, and recovery renames and
# deletes the files it names. The writer is the one that knows what it writes, so the
# check lives here, next to ``_entry`` and ``_new_name``, and ``recover_intent`` applies
# it itself, whoever calls it (``workspace_files.BeneathFiles``, ``file_journal``, a test).


ENTRY_KEYS = ("path", "dir", "name", "temp", "pre_image", "before", "after")
"""What ``_entry`` writes for each target. Other keys are ignored (recovery never
reads them), so a journal written by a later version that adds one still recovers."""
NOTHING_TO_FINISH = "nothing to finish (none of the temp or pre-image files it names is left)"
"""What an open journal comes to when none of its own leftovers exists: the write was
finished (or recovered) before the journal could be closed, or the journal was not written
here. Either way no file is touched."""
_HASH = r"[0-9a-f]{64}"
"""Compiled on first use (``re``'s cache): only recovery reads journals (start-up, issue 24)."""
_RANDOM = r"\.[0-9a-f]{12}"
"""``_new_name``'s random part: ``os.urandom(6).hex()``, after a dot."""
_SHOWN = 80


class InvalidIntent(ValueError):
    """A journal entry the writer could not have written; nothing was touched."""


def check_intent(entries: object) -> str | None:
    """Why ``entries`` is not a journal ``commit_files`` could have written (``None`` when
    it is). Pure: reads no file, so it can run before anything is touched."""
    if not isinstance(entries, list):
        return f"its entries are {type(entries).__name__}, not a list"
    for n, entry in enumerate(entries, 1):
        problem = _check_entry(entry)
        if problem is not None:
            return f"entry {n} of {len(entries)}: {problem}"
    return None


def _check_entry(entry: object) -> str | None:
    if not isinstance(entry, dict):
        return f"it is {type(entry).__name__}, not an object"
    missing = [k for k in ENTRY_KEYS if k not in entry]
    if missing:
        return "it has no " + ", ".join(missing)
    path, folder, name = entry["path"], entry["dir"], entry["name"]
    if not isinstance(path, str) or not path or "\x00" in path:
        return f"path {_shown(path)} is not a file path"
    problem = _check_folder(folder) or _check_component("name", name)
    if problem is not None:
        return problem
    assert isinstance(name, str)
    for key in ("before", "after"):
        value = entry[key]
        if value is not None and not (isinstance(value, str) and re.fullmatch(_HASH, value)):
            return f"{key} {_shown(value)} is not a sha256 (64 lowercase hex digits) or null"
    for key, suffix, hash_key, why in (
        ("temp", TEMP_SUFFIX, "after", "new content"),
        ("pre_image", OLD_SUFFIX, "before", "old content"),
    ):
        value = entry[key]
        if (value is None) != (entry[hash_key] is None):
            return (
                f"{key} {_shown(value)} does not go with {hash_key} {_shown(entry[hash_key])}"
                f" (the writer keeps a {key.replace('_', '-')} exactly when there is {why})"
            )
        if value is not None and not _own_name(value, name, suffix):
            return (
                f"{key} {_shown(value)} is not a {key.replace('_', '-')} name the writer makes "
                f"for {_shown(name)} (.NAME.<12 hex digits>{suffix}, in the same folder)"
            )
    return None


def _check_folder(folder: object) -> str | None:
    """``dir``: ``.`` or a relative path of plain components (the writer records the real
    path of the target's folder relative to the root: never absolute, never ``..``)."""
    if folder == ".":
        return None
    if not isinstance(folder, str) or not folder:
        return f"dir {_shown(folder)} is not a folder path"
    if folder.startswith("/"):
        return f"dir {_shown(folder)} is absolute, not a folder beneath the workspace root"
    for part in folder.split("/"):
        problem = _check_component("dir", part, whole=folder)
        if problem is not None:
            return problem
    return None


def _check_component(key: str, part: object, whole: object = None) -> str | None:
    """One file or folder name: text, not empty, not ``.`` or ``..``, no ``/`` or NUL."""
    shown = _shown(part if whole is None else whole)
    if not isinstance(part, str) or not part:
        return f"{key} {shown} has an empty or missing name"
    if part in (".", ".."):
        return f"{key} {shown} leaves its folder ({part!r})"
    if "/" in part or "\x00" in part:
        return f"{key} {shown} is not a single file name"
    return None


def _own_name(value: object, target: str, suffix: str) -> bool:
    """Exactly ``_new_name(target, suffix)``'s shape: ``.TARGET[:180].<hex12>SUFFIX``."""
    if not isinstance(value, str):
        return False
    pattern = re.escape(f".{target[:_NAME_CUT]}") + _RANDOM + re.escape(suffix)
    return re.fullmatch(pattern, value) is not None


def _shown(value: object) -> str:
    """A value from the journal as it may be shown: ``repr`` (control and bidi characters
    escaped), cut short (a crafted entry can be any size)."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _any_leftover(root: str | os.PathLike[str], entries: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a temp or pre-image the journal names is a regular file beneath the root.

    Every journal the writer commits has such files until its last step (dropping the
    pre-images, when every target already has its new content): so a journal without
    any needs nothing done, and one naming files nobody made (crafted) gets nothing."""
    for e in entries:
        names = [e[k] for k in ("temp", "pre_image") if e[k] is not None]
        if not names:
            continue
        try:
            found, missing = beneath._walk(
                root, f"{e['dir']}/{e['name']}", create=False, follow_final=False
            )
        except (OSError, beneath.PathError):
            continue  # its folder is gone or leads outside: nothing of it to act on
        try:
            if missing:
                continue
            for name in names:
                try:
                    st = os.stat(name, dir_fd=found.fd, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    return True
        finally:
            os.close(found.fd)
    return False


# ----------------------------------------------------------------------------- recovery


def recover_intent(root: str | os.PathLike[str], entries: Sequence[Mapping[str, Any]]) -> str:
    """Finish or undo a multi-file write a crash interrupted, from its journal entries.

    Forward when every target not yet renamed still has its complete temp (the temps were
    fsynced before the journal was committed); otherwise back, every renamed target from its
    pre-image. Temps and pre-images are removed either way. Returns what was done.

    The entries are untrusted, whoever passes them: ``InvalidIntent`` (nothing touched) for
    any the writer could not have written (``check_intent``), and ``NOTHING_TO_FINISH``
    (nothing touched) when none of the temps and pre-images they name is left, since then
    it is no write interrupted here — every journal the writer commits has such files until
    its last step, and a made-up one (right shapes, invented names) has none: without this,
    a well-formed crafted "deletion" would have recovery delete a file it names."""
    problem = check_intent(entries)
    if problem is not None:
        raise InvalidIntent(problem)
    if not _any_leftover(root, entries):
        return NOTHING_TO_FINISH
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
    digest = _sha256(now)
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
    return _sha256(data) == e["after"]


def _restore(states: Sequence[tuple[Mapping[str, Any], int, str]]) -> str:
    for e, fd, s in states:
        if s != "done":
            continue
        if e["before"] is None:
            os.unlink(e["name"], dir_fd=fd)
        elif e.get("pre_image"):
            data, _ = beneath.read_in(fd, e["pre_image"])
            if _sha256(data) == e["before"]:
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
            prefix = f".{found.name[:_NAME_CUT]}."
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
