"""shell and python: child processes in their own process group.

``start_new_session`` gives every call its own process group, so a timeout or
Esc kills the command *and* everything it spawned (``killpg``), not just the
shell. Output (stdout and stderr merged, in order) streams live to observers
and is kept within the 60/40 cap. The child's environment never contains a
secret-named variable (``*KEY*``, ``*SECRET*``, ``*TOKEN*``, ``*PASSWORD*``, … unless the user
lets one through with ``FRONTIER_TOOL_ENV_ALLOW``; Frontier's own key never).

A running call's group also dies with Frontier, however Frontier dies (``kill
-9`` included): a small reaper process, started once, holds the read end of a
pipe only Frontier can write to and is told each running group; when the pipe
closes (the kernel closes it when Frontier's process ends) it stops the groups
still listed. A command waits at a gate (:func:`gated`) until its group is listed, so a
Frontier killed in between leaves nothing running. See ``docs/decisions-tools.md``, "A
running tool dies with Frontier".

With a sandbox (``ctx.sandbox``, ``tools/sandbox.py``) the command runs inside ``bwrap``:
bwrap is the group's leader and the command runs in a PID namespace of its own, in its own
session. A stop (timeout, Esc) sends SIGTERM to every process below bwrap (the command and
whatever it started, ``setsid`` or not), waits the same grace, then kills bwrap's group:
bwrap's death takes the whole namespace with it (``--die-with-parent``), and so does the
command's own end, so no background job outlives the call.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import os
import posixpath
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from frontier.app.events import ResultKind, ToolCall
from frontier.app.programs import find_program
from frontier.app.record import record
from frontier.app.secret_shapes import secret_named
from frontier.tools import beneath
from frontier.tools.arg_aliases import SHELL
from frontier.tools.base import CancelToken, Outcome, Prepared, ToolError
from frontier.tools.contract import Preview, ToolContext, ToolSpec
from frontier.tools.destructive import destroys, empties_itself, python_destroys
from frontier.tools.digest import sha256
from frontier.tools.output_cap import CappedBuffer, IncrementalText
from frontier.tools.paths import PathError, real_root, resolve
from frontier.tools.process_tree import descendants, process_tree
from frontier.tools.sandbox import SandboxRecord, tidy
from frontier.tools.terminal_output import terminal_text

if TYPE_CHECKING:
    from frontier.tools.command_changes import Recorded, Watch

EXIT_CANCELLED = 130
EXIT_TIMEOUT = 124
KILL_GRACE = 0.5
"""Seconds between SIGTERM and SIGKILL when stopping a process group."""
DRAIN_AFTER_EXIT = 2.0
"""How long to keep reading after the main process exits (a background child may hold the pipe)."""
MAX_TIMEOUT = 3600


NEVER_PASSED = ("FRONTIER_API_KEY", "OPENAI_API_KEY")
"""Frontier's own key: kept from every tool, whatever ``FRONTIER_TOOL_ENV_ALLOW`` says."""
_WITHHELD: set[str] = set()
"""The variables this process read a model's key from (:func:`withhold`)."""
ALLOW_ENV = "FRONTIER_TOOL_ENV_ALLOW"
"""Comma-separated names the user lets through anyway (``GITHUB_TOKEN,AWS_PROFILE``)."""


def is_secret(name: str, allowed: frozenset[str] = frozenset()) -> bool:
    """A variable kept from a tool's process: named like a secret (:func:`secret_named`)
    and not let through by ``FRONTIER_TOOL_ENV_ALLOW``, or Frontier's own key."""
    upper = name.upper()
    if upper in NEVER_PASSED or upper in _WITHHELD:
        return True
    if upper in allowed:
        return False
    return secret_named(upper)


def withhold(name: str) -> None:
    """Keep variable ``name`` from every tool from now on, as :data:`NEVER_PASSED`: the
    provider's ``key_env``, which may have any name (``LLM_AUTH``) — one that does not
    read as a secret's was passed to commands, which could print it encoded past the
    scrubber (an audit: ``env | base64``)."""
    _WITHHELD.add(name.upper())


def _allowed() -> frozenset[str]:
    raw = os.environ.get(ALLOW_ENV, "")
    return frozenset(name.strip().upper() for name in raw.split(",") if name.strip())


NO_EDITOR = {"GIT_EDITOR": "true", "VISUAL": "true", "EDITOR": "true"}
"""What a command may open to have a text edited: nothing that waits. A command has no
terminal, so an editor it opened (``git commit`` without ``-m``, ``git commit --amend``,
``git rebase --continue``, ``crontab -e``) waited unseen for the call's time limit (vim: 120
s, then its screen's escape codes as the output). ``true`` ends at once: git keeps the
message it has, or says "Aborting commit due to empty commit message"."""


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The parent environment minus secret-named variables (:func:`secret_named`, except
    those ``FRONTIER_TOOL_ENV_ALLOW`` names) and ``CDPATH``, with :data:`NO_EDITOR` over
    it, plus ``extra`` (filtered the same way)."""
    allowed = _allowed()
    env = {k: v for k, v in os.environ.items() if not is_secret(k, allowed)}
    env.update(NO_EDITOR)
    env.update({k: v for k, v in (extra or {}).items() if not is_secret(k, allowed)})
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.setdefault("PAGER", "cat")
    env.setdefault("GIT_PAGER", "cat")
    # `cd sub` would search the person's CDPATH first (in scripts too): Frontier reads a
    # command's `cd DIR` as the workspace's DIR (the reviewed patches, the watch)
    env.pop("CDPATH", None)
    return env


@record
class ProcessResult:
    kind: ResultKind
    exit_code: int
    output: str
    elapsed: float
    total_bytes: int


REAPER_SCRIPT = f"""\
# tool-group reaper: stops the listed process groups when stdin closes
import os, signal, sys, time
groups = set()
for line in sys.stdin.buffer:
    try:
        pgid = int(line[1:])
    except ValueError:
        continue
    (groups.add if line[:1] == b"+" else groups.discard)(pgid)
def signal_all(sig):
    alive = False
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
            alive = True
        except OSError:
            pass
    return alive
if signal_all(signal.SIGTERM):
    time.sleep({KILL_GRACE!r})
    signal_all(signal.SIGKILL)
"""
"""The reaper's whole program: ``+PGID`` / ``-PGID`` lines, then TERM, grace, KILL at EOF.

It reads until end of file, which comes only when every copy of the pipe's write
end is closed: Frontier's descriptor is non-inheritable (closed on exec, and in a
forked child by ``_GroupReaper._after_fork``), so that is when Frontier's process
ends, by ``exit`` or by ``SIGKILL``. The stop is the same TERM → 0.5 s → KILL as a
timeout or Esc, so a command can clean up (``git`` removes its lock file).
"""


class _GroupReaper:
    """Frontier's side of the reaper: one per process, started at the first tool call.

    Why a watcher process rather than ``prctl(PR_SET_PDEATHSIG)`` in the child:
    the death signal reaches only the direct child (a shell's ``sleep 1000 &`` or
    pipeline would survive), it needs code between ``fork`` and ``exec`` (a
    ``preexec_fn``, not safe in a threaded process), it fires when the *thread*
    that forked exits, and macOS has no equivalent. A pipe's end of file is
    portable, and the reaper kills the whole group.
    """

    _lock: ClassVar[threading.Lock] = threading.Lock()
    _proc: ClassVar[subprocess.Popen[bytes] | None] = None
    _fd: ClassVar[int | None] = None
    _groups: ClassVar[set[int]] = set()
    """The groups listed now, so a replacement reaper can be told all of them."""
    _failed: ClassVar[bool] = False
    """A start failed (no interpreter, out of processes): tools still run, unguarded."""

    @classmethod
    def watch(cls, pgid: int) -> None:
        """List ``pgid`` as running: the reaper stops it if Frontier dies before ``release``."""
        with cls._lock:
            cls._groups.add(pgid)
            cls._send(f"+{pgid}\n".encode())

    @classmethod
    def ready(cls) -> None:
        """Start the reaper now if none runs (a command about to start will be listed)."""
        with cls._lock:
            if cls._fd is None:
                cls._start()

    @classmethod
    def release(cls, pgid: int) -> None:
        """The call is over (its group stopped, or left to finish as it always could)."""
        with cls._lock:
            cls._groups.discard(pgid)
            if cls._fd is not None:
                cls._send(f"-{pgid}\n".encode())

    @classmethod
    def _send(cls, line: bytes) -> None:
        for _ in range(2):  # a reaper somebody killed is replaced once
            if cls._fd is None:
                if not cls._start():
                    return
                line = b"".join(f"+{pgid}\n".encode() for pgid in sorted(cls._groups))
                if not line:
                    return
            assert cls._fd is not None
            try:
                os.write(cls._fd, line)  # a few lines, < PIPE_BUF: one atomic write
                return
            except OSError:  # EPIPE: the reaper is gone
                cls._close()

    @classmethod
    def _start(cls) -> bool:
        if cls._failed or not sys.executable:
            return False
        read_end, write_end = os.pipe()  # both non-inheritable (PEP 446)
        try:
            cls._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", REAPER_SCRIPT],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd="/",
                env=child_env(),
                start_new_session=True,  # no terminal signals; outlives Frontier's group
            )
        except OSError:
            os.close(write_end)
            cls._failed = True
            return False
        finally:
            os.close(read_end)
        cls._fd = write_end
        return True

    @classmethod
    def _close(cls) -> None:
        if cls._fd is not None:
            with contextlib.suppress(OSError):
                os.close(cls._fd)
            cls._fd = None
        proc, cls._proc = cls._proc, None
        if proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(KILL_GRACE + 1.0)  # at once unless a group was still running

    @classmethod
    def shutdown(cls) -> None:
        """At a clean exit: close the pipe (the reaper stops what is still listed) and reap it."""
        with cls._lock:
            cls._close()

    @classmethod
    def _after_fork(cls) -> None:
        """A forked child must not hold the pipe open (the reaper would wait for it too)."""
        if cls._fd is not None:
            with contextlib.suppress(OSError):
                os.close(cls._fd)
        cls._fd = None
        cls._proc = None
        cls._groups = set()  # the parent's calls, not the child's
        cls._lock = threading.Lock()  # another thread may have held it at the fork


atexit.register(_GroupReaper.shutdown)
os.register_at_fork(after_in_child=_GroupReaper._after_fork)


def _killpg(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


HELD_NOTE = (
    f"\n[the command exited, but a job it started in the background kept its output open: "
    f"not read after {DRAIN_AFTER_EXIT:g} s, and the command's process group stopped. To "
    "leave a job running, send its output elsewhere: `cmd > cmd.log 2>&1 &`]\n"
)


ASKED_FOR_CODE = 400
"""Times the exit status reaped by asyncio's watcher is looked for on the loop before it is
given up as unknown (100 turns of the loop, then every 10 ms: about 3 s at most)."""


def exit_of(proc: asyncio.subprocess.Process) -> asyncio.Future[int | None]:
    """The main process's exit status once it exits, whatever holds its output.

    Python 3.11's ``Process.wait`` resolves only once the output pipe closes too: a job the
    command left in the background (``python -m http.server &``, ``setsid …``) holds it, so
    a command that ended at once ran to its time limit and was called "timed out". A daemon
    thread waits for the exit with ``WNOWAIT`` (asyncio's watcher still reaps it) and says
    the status as ``returncode`` would; where ``waitid`` is missing, ``Process.wait``. When
    the watcher reaped it first, its ``returncode`` is waited for on the loop (the
    watcher's callback is then on its way), not reported unknown."""
    waitid = getattr(os, "waitid", None)
    if waitid is None:
        return asyncio.ensure_future(proc.wait())
    loop = asyncio.get_running_loop()
    future: asyncio.Future[int | None] = loop.create_future()

    def deliver(status: int | None, tries: int = 0) -> None:
        if future.done():
            return
        if status is None and proc.returncode is None and tries < ASKED_FOR_CODE:
            # reaped by asyncio's watcher, whose own callback, already on its way, has not
            # run yet: read as "exit 129" once under load (a job's `exit 3`). Wait for it.
            again = functools.partial(deliver, None, tries + 1)
            if tries < 100:
                loop.call_soon(again)
            else:
                loop.call_later(0.01, again)
            return
        future.set_result(status)

    def watch() -> None:
        status: int | None = None
        try:
            info = waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        except ChildProcessError:  # reaped already: asyncio has its code
            info = None
        if info is not None:
            killed = info.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
            status = -info.si_status if killed else info.si_status
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(deliver, status)

    threading.Thread(target=watch, name=f"frontier-exit-{proc.pid}", daemon=True).start()
    return future


def exit_code(proc: asyncio.subprocess.Process, status: int | None) -> int:
    """The exit code a shell would say: asyncio's, else the one :func:`exit_of` read; a
    signal as 128 + its number; -1 (129) when neither knows."""
    code = proc.returncode if proc.returncode is not None else status
    code = -1 if code is None else code
    return 128 - code if code < 0 else code


async def stop_group(proc: asyncio.subprocess.Process, contained: bool = False) -> None:
    """TERM, grace, KILL. ``contained``: ``proc`` is bwrap, which would die of the TERM at
    once and take the sandbox with it (KILL, no grace); so the TERM goes to every process
    inside but bwrap's init (whose end, too, ends everything at once), and the KILL to
    bwrap's group. When the TERM reached no one inside (stopped in the first milliseconds,
    while bwrap still sets the sandbox up), the KILL comes at once: there was no grace to
    give, and a stop then waited all of ``KILL_GRACE`` for nothing."""
    termed = True
    if contained:
        tree = process_tree()
        init = set(tree.get(proc.pid, ()))
        termed = False
        for pid in descendants(proc.pid, tree):
            if pid not in init:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGTERM)
                    termed = True
    else:
        _killpg(proc.pid, signal.SIGTERM)
    if termed:
        try:
            await asyncio.wait_for(proc.wait(), KILL_GRACE)
        except TimeoutError:
            pass
    _killpg(proc.pid, signal.SIGKILL)
    await proc.wait()


GATE_SHELL = "/bin/sh"


def gated(argv: list[str], *, stdin: bool) -> list[str]:
    """``argv`` behind a gate: ``sh`` reads one line of its stdin, then becomes the command
    (``exec``: the same process, group and descriptors), with the rest of the stdin when
    ``stdin`` (the ``python`` tool's code), else with ``/dev/null`` as before; at end of
    file it exits 1 and the command never starts. One ``sh`` start, ~1 ms."""
    script = 'read _ && exec "$@"' if stdin else 'read _ && exec "$@" </dev/null'
    return [GATE_SHELL, "-c", script, argv[0], *argv]


async def run_process(
    argv: list[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    cancel: CancelToken,
    on_output: Callable[[str], None] | None = None,
    stdin_data: bytes | None = None,
    contained: bool = False,
) -> ProcessResult:
    """Run ``argv`` to completion, timeout or cancellation; never raises for the child's fate.
    ``contained``: ``argv`` is a sandbox's (``Sandbox.wrap``), stopped from the inside."""
    started = time.monotonic()
    proc = await spawn(argv, cwd=cwd, env=env, stdin=stdin_data is not None)
    try:
        return await _supervise(proc, started, timeout, cancel, on_output, stdin_data, contained)
    finally:
        _GroupReaper.release(proc.pid)


async def spawn(
    argv: list[str], *, cwd: str, env: Mapping[str, str], stdin: bool = False
) -> asyncio.subprocess.Process:
    """Start ``argv`` in a process group of its own, listed with the reaper before it runs
    (stdout and stderr merged into one pipe); the caller ``release``s the group when it is
    over. ``stdin``: the caller writes the child's stdin and closes it."""
    # The reaper first (once a process, a fork and exec: milliseconds), so the moment the
    # command exists is the moment it can be listed: started after the spawn, a Frontier
    # killed while the reaper was still starting left the command's group running (CI
    # caught a shell's children surviving ``kill -9`` under load, stop 32).
    _GroupReaper.ready()
    # The command waits at a gate until its group is listed: the spawn's await gives the
    # loop up while the pipes connect, and a loaded machine ran the child (a shell, its
    # background job, its pipeline) before ``watch``; a ``kill -9`` of Frontier then left
    # them running (CI, stop 45). The gate is the first line of the child's stdin: if
    # Frontier dies first, it reads end of file and the command never runs.
    proc = await asyncio.create_subprocess_exec(
        *gated(argv, stdin=stdin),
        cwd=cwd,
        env=dict(env),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    _GroupReaper.watch(proc.pid)
    assert proc.stdin is not None
    proc.stdin.write(b"\n")  # the gate opens; one byte, in the pipe's buffer at once
    if not stdin:
        proc.stdin.close()
    return proc


def release(pgid: int) -> None:
    """A group :func:`spawn` started is over: the reaper no longer stops it."""
    _GroupReaper.release(pgid)


def reaper_ready() -> None:
    """Start the reaper now, before a process another library spawns (an MCP server the
    SDK starts in a session of its own): listing it after is then a pipe write."""
    _GroupReaper.ready()


def watch_group(pgid: int) -> None:
    """List a group another library started with the reaper, so Frontier's death (even
    ``kill -9``) stops it as it stops a command's; :func:`release` when it has ended."""
    _GroupReaper.watch(pgid)


async def _supervise(
    proc: asyncio.subprocess.Process,
    started: float,
    timeout: float,
    cancel: CancelToken,
    on_output: Callable[[str], None] | None,
    stdin_data: bytes | None,
    contained: bool = False,
) -> ProcessResult:
    """Stream the output and wait for exit, timeout or cancel; stop the group if needed."""
    buf = CappedBuffer()
    text = IncrementalText()

    async def feed_stdin() -> None:
        assert proc.stdin is not None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.write(stdin_data or b"")
            await proc.stdin.drain()
            proc.stdin.close()

    async def read() -> None:
        assert proc.stdout is not None
        while True:
            data = await proc.stdout.read(65536)
            if not data:
                break
            buf.append(data)
            chunk = text.feed(data)
            if chunk and on_output is not None:
                on_output(chunk)

    writer = asyncio.create_task(feed_stdin()) if stdin_data is not None else None
    reader = asyncio.create_task(read())
    waiter = exit_of(proc)
    cancelled = asyncio.create_task(cancel.event.wait())
    kind: ResultKind = "ok"
    status: int | None = None
    held = False
    try:
        either: set[asyncio.Future[Any]] = {waiter, cancelled}
        done, _ = await asyncio.wait(either, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if waiter in done:
            status = waiter.result()
        else:
            kind = "cancelled" if cancelled in done else "timeout"
            await stop_group(proc, contained)
        try:
            await asyncio.wait_for(asyncio.shield(reader), DRAIN_AFTER_EXIT)
        except TimeoutError:
            held = kind == "ok"  # a background job kept the output open: said below
            _killpg(proc.pid, signal.SIGKILL)
            reader.cancel()
    except asyncio.CancelledError:
        await stop_group(proc, contained)
        raise
    finally:
        for task in (cancelled, reader, writer, waiter):
            if task is not None and not task.done():
                task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    if held:
        buf.append(HELD_NOTE.encode())
    elif proc.returncode is None and status is None:
        await proc.wait()  # its output has closed: only asyncio's word of the exit is left
    code = exit_code(proc, status)
    if kind == "cancelled":
        code = EXIT_CANCELLED
    elif kind == "timeout":
        code = EXIT_TIMEOUT
    elif code != 0:
        kind = "error"
    return ProcessResult(
        kind=kind,
        exit_code=code,
        output=buf.text(),
        elapsed=time.monotonic() - started,
        total_bytes=buf.total,
    )


def _timeout_param(default: int) -> dict[str, Any]:
    return {
        "type": "integer",
        "description": f"seconds before the process group is killed (default {default})",
        "minimum": 1,
        "maximum": MAX_TIMEOUT,
    }


def rendered(res: ProcessResult, timeout: float) -> str:
    """A finished command's output as the model reads it: how it ended said after it."""
    out = terminal_text(res.output) if res.output else "(no output)"
    out += "" if out.endswith("\n") else "\n"
    if res.kind == "timeout":
        out += f"[timed out after {timeout:g}s: process group killed; output above is partial]"
    elif res.kind == "cancelled":
        out += "[cancelled by the user: process group killed, exit=130]"
    elif res.kind == "error":
        out += f"[exit {res.exit_code}]"
    return out


_ONLY_CD = re.compile(r"\s*(?:cd|pushd)(?:\s+[^;&|\n`$()]*)?\s*")
"""A command line that only changes the folder (``cd frontend``)."""
CD_NOTE = (
    "\n[each command starts in the workspace root: this cd lasted for itself only; give "
    "workdir, or run cd DIR && COMMAND]"
)
"""Said of a command that only changes the folder: Claude Code's Bash keeps the folder
between calls, and its models ran `cd frontend`, then `npm test`, which ran at the root."""


def _kind_in(root: str, path: str) -> str | None:
    """What ``path`` names in the workspace now: ``"file"``, ``"dir"``, or ``None``
    (nothing, or outside it: the sandbox keeps a command's writes inside)."""
    try:
        real = resolve(root, path).real
        return "dir" if real.is_dir() else "file" if real.is_file() else None
    except (OSError, PathError):
        return None


_SCRIPT_NAME = re.compile(r"\s*[\w./-]+\.py\s*")
SCRIPT_NOTE = (
    "[{name} is a file name, run as Python code: the python tool runs the code it is given; "
    "to run the file, call shell with python3 {name}]"
)
"""Said when the python tool's code was only a script's name (``c.py``) and failed: small
models passed the file to run as the code, and met ``NameError: name 'c' is not defined``."""


_CAT = re.compile(r"\s*cat[ \t]+(?:--[ \t]+)?([A-Za-z0-9_./@%+,=:-]+)\s*")
"""``cat FILE``: one plain path, printed whole."""


def _saw_by_cat(ctx: ToolContext, command: str, res: ProcessResult) -> None:
    """The model read a file whole with ``cat FILE`` (after at most a ``cd DIR &&``, as
    ``workdir`` becomes): when what it was shown is that file's text exactly, it counts
    as a ``read`` for ``write`` (``tools/file_views.py``; shell-trained models read with
    ``cat`` and write with ``cat > FILE <<'EOF'``). Anything less than proof (another
    command, output cut or redrawn, the file changed since) counts as nothing."""
    if ctx.views is None:
        return
    from frontier.tools.patch_via_shell import cd_prefix, went_to

    cd, line = cd_prefix(command)  # the one reading of ``cd DIR &&`` (bash's logical cd)
    folder = went_to(str(ctx.root), "", cd) if cd else ""
    found = _CAT.fullmatch(line) if folder is not None else None
    if found is None or folder is None:
        return
    try:
        rel = resolve(ctx.root, posixpath.join(folder, found.group(1))).rel
        data, _mode = beneath.read_file(ctx.root, rel, res.total_bytes)
        text = data.decode("utf-8") if data is not None else None
    except (OSError, ValueError, PathError):  # gone, grown, outside, not text: no proof
        return
    shown = data is not None and len(data) == res.total_bytes and text == res.output
    if shown and text is not None and terminal_text(text) == text:  # no redraw, no colour
        ctx.views.saw(rel, sha256(data))


def _runs_for(args: Mapping[str, Any], usual: float) -> str:
    """How long the call lets its command run, when that is not the tool's usual limit
    (``Preview.runs_for``): a job has none, a ``timeout`` may give an hour."""
    if args.get("background"):
        return "as a background job, no time limit"
    timeout = args.get("timeout")
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout != usual:
        return f"for up to {timeout:g} s (usually {usual:g} s)"
    return ""


class _ExecTool:
    spec: ToolSpec
    bytes_args: frozenset[str] = frozenset()
    field: str

    def argv(self, args: Mapping[str, Any], root: str) -> tuple[list[str], bytes | None]:
        """The program to run (found beneath no ``root``: ``app/programs.py``) and its
        stdin."""
        raise NotImplementedError

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        source = args[self.field]
        if not source.strip():
            raise ToolError(f"{self.spec.name}: `{self.field}` is empty", kind="arg")
        name = self.spec.name + (" (background)" if args.get("background") else "")
        if self.spec.name == "shell" and (empties := empties_itself(source)) is not None:
            raise ToolError(empties)
        if self.spec.name == "shell":
            destroyed = destroys(source, kind_of=functools.partial(_kind_in, ctx.root))
        else:
            destroyed = python_destroys(source)
        return Prepared(
            args=args,
            preview=Preview(
                kind="command",
                command=source,
                summary=f"{name}: {source}",
                destroys=destroyed,
                runs_for=_runs_for(args, self.spec.timeout),
            ),
            needs_approval=True,
        )

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        timeout = float(prepared.args.get("timeout") or self.spec.timeout)
        root = str(real_root(ctx.root))
        argv, stdin = self.argv(prepared.args, root)
        env = child_env(ctx.env)
        sink = ctx.output

        def on_output(text: str) -> None:
            if sink is not None:
                sink(call.id, text)

        # No sandbox object: unconfined by choice (``--sandbox off``, or one command the
        # person approved to run outside). One that cannot start: unconfined too, but only
        # after the policy asked, and recorded as ``unavailable``.
        sandbox = ctx.sandbox
        record = sandbox.record if sandbox is not None else SandboxRecord("off")
        contained = sandbox is not None and sandbox.active
        made: list[str] = []
        if sandbox is not None and contained:
            argv, env, made = sandbox.wrap(argv, root, env)
        if prepared.args.get("background"):
            started = {"sandbox": record.as_meta(), "background": call.id}
            source = str(prepared.args[self.field])
            return await _background(call, source, ctx, argv, root, env, contained, made, started)
        writable = not (contained and record.mode == "read-only")
        watch = await _watch(self.field, prepared.args, ctx) if writable else None
        unheld = await _hold(watch, ctx)
        try:
            res = await run_process(
                argv,
                cwd=root,
                env=env,
                timeout=timeout,
                cancel=cancel,
                on_output=on_output,
                stdin_data=stdin,
                contained=contained,
            )
        finally:
            tidy(made)
        output = rendered(res, timeout)
        found = await _changed(watch, ctx)
        source = str(prepared.args[self.field])
        if self.field == "code" and res.kind == "error" and _SCRIPT_NAME.fullmatch(source):
            output += SCRIPT_NOTE.format(name=source.strip())
        if self.field == "command" and res.kind == "ok":
            if _ONLY_CD.fullmatch(prepared.args["command"]):
                output += CD_NOTE
            _saw_by_cat(ctx, prepared.args["command"], res)
        meta: dict[str, Any] = {"bytes": res.total_bytes, "sandbox": record.as_meta()}
        if res.kind == "error" and sandbox is not None and contained:
            what = sandbox.stopped_by(res.output)
            if what is not None:
                output += f"\n[stopped by the sandbox: {what}]"
                meta["sandbox_stopped"] = what
        kept: Mapping[str, bytes] = {}
        if unheld is not None:
            meta["unheld"] = unheld
        if isinstance(found, str):
            meta["unwatched"] = found
        elif found is not None:
            output = f"{output.rstrip(chr(10))}\n{found.note}"
            meta.update(found.meta)
            kept = found.kept
        return Outcome(res.kind, output, exit_code=res.exit_code, meta=meta, kept=kept)


async def _watch(field: str, args: Mapping[str, Any], ctx: ToolContext) -> Watch | str | None:
    """The files a ``shell`` command or a ``python`` script names, held before it runs
    (``tools/command_changes.py``); off the event loop, as they are read."""
    from frontier.tools.command_changes import Watch

    source, script = str(args[field]), field == "code"
    try:
        take = functools.partial(Watch.take, script=script)
        return await asyncio.to_thread(take, ctx.root, source)
    except Exception as exc:  # the watch serves undo: it must never keep a command from running
        return f"its files could not be read before it ran ({type(exc).__name__}: {exc})"


async def _hold(watch: Watch | str | None, ctx: ToolContext) -> str | None:
    """Keep what ``watch`` holds in the session store before the command runs (``HoldsWatch``),
    so a crash while it runs does not lose what it changes; why not, when the store
    failed (the command runs all the same: the watch serves undo, and its result still
    records the changes if Frontier lives to see it end)."""
    from frontier.tools.contract import HoldsWatch

    journal = ctx.journal
    if watch is None or isinstance(watch, str) or not isinstance(journal, HoldsWatch):
        return None

    def hold() -> None:  # the record sorts what git listed: off the event loop too
        journal.hold(*watch.held())

    try:
        await asyncio.to_thread(hold)
    except Exception as exc:  # the store failed: said in the result's meta, never fatal here
        return f"its files could not be kept before it ran ({type(exc).__name__}: {exc})"
    return None


async def _changed(watch: Watch | str | None, ctx: ToolContext) -> Recorded | str | None:
    """What the command changed among the files held, as its result records it, or why it
    is not recorded (the watch's reason, or it made more than the bounds)."""
    if watch is None or isinstance(watch, str):
        return watch
    from frontier.tools.command_changes import recorded

    def compare() -> Recorded | str | None:
        found = watch.changes()
        if isinstance(found, str):
            return found
        return recorded(found, ctx.root, watch.made_folders)

    try:
        return await asyncio.to_thread(compare)
    except Exception as exc:  # the command ran: its result must not be lost to the record
        return f"its files could not be read after it ran ({type(exc).__name__}: {exc})"


async def _background(
    call: ToolCall,
    command: str,
    ctx: ToolContext,
    argv: list[str],
    root: str,
    env: dict[str, str],
    contained: bool,
    made: list[str],
    meta: dict[str, Any],
) -> Outcome:
    """``background: true``: start the command as a job (``tools/jobs.py``) and return
    what it printed in its first second, or its end if it ended by then."""
    from frontier.tools.jobs import JobError

    jobs = ctx.jobs
    if jobs is None:
        tidy(made)
        raise ToolError("background jobs are not available here: run it without background")
    try:
        job = await jobs.start(
            call.id, command, argv, cwd=root, env=env, contained=contained, made=made
        )
    except JobError as exc:
        raise ToolError(str(exc)) from exc
    first = await job.first_look()
    if first.running:
        head = (
            f"[started in the background as job {job.id}: read its output with the job tool "
            f'(id "{job.id}", wait N seconds or until TEXT appears), stop it with stop: '
            "true; it is stopped when the session ends]\n"
        )
        return Outcome(kind="ok", output=head + first.render(), meta=meta)
    kind: ResultKind = "ok" if first.exit_code == 0 else "error"
    return Outcome(kind=kind, output=first.render(), exit_code=first.exit_code, meta=meta)


class ShellTool(_ExecTool):
    field = "command"
    spec = ToolSpec(
        name="shell",
        description=(
            "Run a shell command (bash -c) in the workspace root. stdout and stderr are merged; "
            "long output keeps its first 60% and last 40%. No terminal: stdin is empty and an "
            "editor exits at once (git commit -m MSG). A server or watcher: background: "
            "true, then the job tool (& jobs end with the command)."
        ),
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "the command line"},
                "timeout": _timeout_param(120),
                "background": {"type": "boolean", "description": "keep it running as a job"},
                "workdir": {"type": "string", "description": "folder to run in (default: root)"},
            },
            "required": ["command"],
        },
        sequential=True,
        mutates=True,
        kind="exec",
        timeout=120.0,
        enforces_timeout=True,
        aliases=SHELL,
    )

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        """``workdir`` (Codex's models send it with every call, often the workspace's
        own absolute path) becomes a ``cd`` in the command line the review shows: the
        same run as a model writing ``cd src && …``, checked to be a folder of the
        workspace first so a wrong one is a clear error, not a failed ``cd``."""
        folder = args.get("workdir")
        args = {k: v for k, v in args.items() if k != "workdir"}
        if folder and folder.strip():
            rel = _workspace_folder(ctx, folder.strip())
            if rel:
                args["command"] = f"cd -- {shlex.quote(rel)} && {args['command']}"
        return super().prepare(args, ctx)

    def argv(self, args: Mapping[str, Any], root: str) -> tuple[list[str], bytes | None]:
        shell = find_program("bash", root) or "/bin/sh"
        return [shell, "-c", args["command"]], None


def _workspace_folder(ctx: ToolContext, folder: str) -> str:
    """``folder`` relative to the workspace root (``""``: the root itself), or a
    ``ToolError``: outside it, missing, or not a folder."""
    try:
        where = resolve(ctx.root, folder)
    except PathError as exc:
        raise ToolError(f"shell: workdir: {exc}", kind="arg") from exc
    if not where.real.is_dir():
        raise ToolError(f"shell: workdir {folder!r} is not a folder of the workspace", "arg")
    return "" if where.rel in (".", "") else where.rel


class PythonTool(_ExecTool):
    field = "code"
    spec = ToolSpec(
        name="python",
        description=(
            "Run a Python 3 script (python3 on PATH) in the workspace root; print what you "
            "need to see."
        ),
        parameters={
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "the Python source to run"},
                "timeout": _timeout_param(120),
            },
            "required": ["code"],
        },
        sequential=True,
        mutates=True,
        kind="exec",
        timeout=120.0,
        enforces_timeout=True,
    )

    def argv(self, args: Mapping[str, Any], root: str) -> tuple[list[str], bytes | None]:
        python = find_program("python3", root) or sys.executable
        return [python, "-u", "-"], args["code"].encode("utf-8")
