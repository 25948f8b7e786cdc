"""One network of its own for all of a session's sandboxed commands (network off).

With the network off each command used to get a namespace of its own, so a server a
background job started (``npm run dev``, ``python -m http.server``; ``tools/jobs.py``)
answered nobody: the next command's ``curl`` met its own empty loopback. Here the session
makes one namespace, with only a loopback, and every command joins it: they reach each
other on ``127.0.0.1`` and still nothing else (no internet, not the machine's own
``localhost``).

The namespace is made by a small holder: ``bwrap --unshare-net`` (which brings the
loopback up) running ``cat`` on a pipe only Frontier writes to, so it ends with Frontier
however Frontier ends (``--die-with-parent`` too); joining it is tried once (``nsenter …
true``) before any command relies on it. A command enters it with ``nsenter``
by the holder's ``/proc/PID/ns/net`` (and its user namespace, where bwrap made one:
unprivileged, the network namespace belongs to it), then runs its own ``bwrap`` without
``--unshare-net``. Before each use the holder's namespace is checked to be the one made
(its id read again), so a holder that died, whose process id came back as another
process, is never entered: a new holder is made. Where ``nsenter`` is missing or the
holder cannot start, each command has a network of its own as before.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading

from frontier.app.programs import find_program

HOLDER_START = 10.0
"""Seconds to wait for the holder to say its process id (a loaded machine: milliseconds)."""


class SessionNet:
    """The holder of one session's network namespace, made on first use."""

    def __init__(self, bwrap: str) -> None:
        self._bwrap = bwrap
        self._nsenter = find_program("nsenter")
        self._lock = threading.Lock()
        self._holder: subprocess.Popen[bytes] | None = None
        self._pid = 0
        self._net_id = ""
        self._user = False
        """The holder is in a user namespace of its own (bwrap unprivileged): join it too."""
        self.failed = self._nsenter is None
        """No shared namespace can be made: each command gets its own."""

    def prefix(self) -> list[str] | None:
        """``nsenter …`` that puts a command in the session's namespace, or ``None``
        (none can be made: the command unshares its own)."""
        with self._lock:
            if self.failed:
                return None
            if not self._alive() and not self._start():
                return None
            return self._enter()

    def _enter(self) -> list[str]:
        assert self._nsenter is not None
        argv = [self._nsenter, f"--net=/proc/{self._pid}/ns/net"]
        if self._user:
            argv += [f"--user=/proc/{self._pid}/ns/user", "--preserve-credentials"]
        return [*argv, "--"]

    def _alive(self) -> bool:
        if self._holder is None or self._holder.poll() is not None:
            return False
        try:
            return os.readlink(f"/proc/{self._pid}/ns/net") == self._net_id
        except OSError:
            return False

    def _start(self) -> bool:
        self._stop()
        read_end, write_end = os.pipe()
        say = ["--info-fd", str(write_end)]
        argv = [self._bwrap, "--unshare-net", "--ro-bind", "/", "/", "--die-with-parent", *say]
        try:
            holder = subprocess.Popen(
                [*argv, "--", "cat"],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(write_end,),
                start_new_session=True,
                cwd="/",
            )
        except OSError:
            os.close(read_end)
            os.close(write_end)
            self.failed = True
            return False
        os.close(write_end)
        info = _read_info(read_end)
        try:
            pid = int(json.loads(info)["child-pid"])
            net_id = os.readlink(f"/proc/{pid}/ns/net")
            user = os.readlink(f"/proc/{pid}/ns/user") != os.readlink("/proc/self/ns/user")
        except (ValueError, KeyError, TypeError, OSError):
            _end(holder)
            self.failed = True
            return False
        self._holder, self._pid, self._net_id, self._user = holder, pid, net_id, user
        if not self._can_enter():
            self._stop()
            self.failed = True
            return False
        return True

    def _can_enter(self) -> bool:
        """Whether a command can join the namespace: a setuid bwrap makes it in the host's
        user namespace, which an unprivileged process may not enter (``nsenter`` would
        fail every command); then each command keeps a network of its own."""
        try:
            probe = subprocess.run(
                [*self._enter(), "true"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=HOLDER_START,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return probe.returncode == 0

    def _stop(self) -> None:
        holder, self._holder = self._holder, None
        if holder is not None:
            _end(holder)

    def close(self) -> None:
        """End the holder (the session ended); its namespace goes with the last process
        in it."""
        with self._lock:
            self._stop()


def _read_info(fd: int) -> bytes:
    """bwrap's info JSON (``{"child-pid": N}``) from its info pipe: read until it parses
    (the sandboxed child may hold the pipe open after), bounded: a stuck holder is given
    up on after ``HOLDER_START`` seconds."""
    import select

    data = b""
    try:
        while len(data) < 4096:
            ready, _, _ = select.select([fd], [], [], HOLDER_START)
            if not ready:
                break
            piece = os.read(fd, 4096)
            if not piece:
                break
            data += piece
            with contextlib.suppress(ValueError):
                json.loads(data)
                break
    finally:
        os.close(fd)
    return data


def _end(holder: subprocess.Popen[bytes]) -> None:
    if holder.stdin is not None:
        with contextlib.suppress(OSError):
            holder.stdin.close()  # cat reads end of file: the holder ends
    try:
        holder.wait(2.0)
    except subprocess.TimeoutExpired:
        holder.kill()
        holder.wait()
