"""Background jobs: a command that keeps running after its call (a dev server, a watcher).

``shell`` with ``background: true`` starts the command as a job of the session and returns
at once (with what it printed in its first second, so a port already in use is seen); the
``job`` tool reads what it printed since the last read (waiting ``wait`` seconds, or until
``until`` appears), and stops it. Without jobs a model that started ``npm run dev`` or
``python -m http.server`` waited its call's whole time limit and had the server killed, or
escaped it with ``&`` and lost its output and its stop (Claude Code's Bash has
``run_in_background``, Codex CLI's ``exec_command`` a session to poll; pi and Aider have
neither).

A job runs as a command does: its own process group, in the sandbox when there is one,
listed with the reaper (it dies with Frontier, however Frontier dies), its environment
without secrets. It lives as long as the session's process: closing the session stops
every job (TERM, grace, KILL), and a resumed session has none (its model is told so when
it asks). What a job printed is kept per read within the tool-output cap (first 60 % and
last 40 % of what arrived since the last read), so a chatty server holds at most that.
The job's id is the id of the call that started it: unique in the session's history, so
a model never reads another job by an old id.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping
from typing import Any

from frontier.app.events import ResultKind, ToolCall
from frontier.app.record import record
from frontier.tools.arg_aliases import JOB
from frontier.tools.base import CancelToken, Outcome, Prepared, ToolError
from frontier.tools.contract import Preview, ToolContext, ToolSpec
from frontier.tools.output_cap import CappedBuffer, IncrementalText
from frontier.tools.process import (
    DRAIN_AFTER_EXIT,
    exit_code,
    exit_of,
    release,
    spawn,
    stop_group,
)
from frontier.tools.sandbox import tidy
from frontier.tools.terminal_output import terminal_text

MAX_JOBS = 8
"""Jobs running at once in a session: a model looping on ``background: true`` is refused
at the ninth rather than filling the machine."""
FIRST_LOOK = 1.0
"""Seconds a background start waits for the command to fail at once (a port in use, a
typo) before it returns: the model sees that failure in the same call."""
MAX_WAIT = 600
"""The longest a read may wait, in seconds."""
TAIL = 16384
"""Characters of a job's latest output kept for the person (``/jobs show``), whatever the
model has read: the end of a dev server's log, not its whole."""


@record
class JobSummary:
    """One job as a front end lists it (``/jobs``)."""

    id: str
    command: str
    elapsed: float


@record
class JobTail:
    """A job's latest output as the person asks for it (``/jobs show ID``)."""

    id: str
    command: str
    state: str
    """``running for 12s``, ``exited 1 after 3s``, ``stopped by the person after 40s``."""
    lines: tuple[str, ...]


@record
class JobRead:
    """What a read of a job returns: its output since the last read and its state."""

    job_id: str
    output: str
    running: bool
    exit_code: int | None
    elapsed: float
    """Seconds since the job started (to its exit, once it exited)."""
    found: bool = False
    """``until`` appeared in the output."""
    stopped_by: str = ""
    """Who stopped it, when it was stopped: ``the model`` (``job`` with ``stop``) or
    ``the person`` (``/jobs stop``)."""

    def render(self) -> str:
        """The text the model reads: the output, then one line saying where the job is."""
        out = terminal_text(self.output) if self.output else "(no new output)"
        if self.found and not self.output:
            out = "(nothing new: the text was in what it printed when it started)"
        out += "" if out.endswith("\n") else "\n"
        if self.stopped_by:
            who = "" if self.stopped_by == "the model" else f" by {self.stopped_by}"
            state = f"stopped{who} after {self.elapsed:.1f}s (process group killed)"
        elif self.running:
            state = f"still running ({self.elapsed:.1f}s)"
        else:
            state = f"exited {self.exit_code} after {self.elapsed:.1f}s"
        return out + f"[job {self.job_id} {state}]"


class Job:
    """One running (or ended) command and what it printed since the last read."""

    def __init__(
        self,
        job_id: str,
        command: str,
        proc: asyncio.subprocess.Process,
        *,
        contained: bool,
        made: list[str],
    ) -> None:
        self.id = job_id
        self.command = command
        self.proc = proc
        self.contained = contained
        self._made = made
        self.started = time.monotonic()
        self.ended: float | None = None
        self.exit_code: int | None = None
        self.stopped_by = ""
        """``the model`` or ``the person`` once stopped (an exit of its own: empty)."""
        self._window = CappedBuffer()
        self._text = IncrementalText()
        self._recent = ""
        """The window's last characters, so an ``until`` split across two pieces is found."""
        self._tail = ""
        """The last ``TAIL`` characters it printed, for the person; a read never empties it."""
        self._first_look = ""
        """The end of what the start call showed: the model did not ask for it, so the
        first read's ``until`` finds it there too (``http.server`` says "Serving HTTP"
        within its first second; waiting for it again waited the whole ``wait``)."""
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())
        self._exit = exit_of(proc)
        self.over = asyncio.create_task(self._wait_exit())
        """Done once the job has exited and been tidied (its group released)."""

    @property
    def running(self) -> bool:
        return self.exit_code is None

    def elapsed(self) -> float:
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    def _take(self, chunk: str) -> None:
        if chunk:
            self._window.append(chunk.encode("utf-8", errors="surrogateescape"))
            self._recent = (self._recent + chunk)[-4096:]
            self._tail = (self._tail + chunk)[-TAIL:]
        self._changed.set()

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while True:
            data = await self.proc.stdout.read(65536)
            if not data:
                break
            self._take(self._text.feed(data))
        self._take(self._text.feed(b"", final=True))

    async def _wait_exit(self) -> None:
        status = await self._exit
        with contextlib.suppress(TimeoutError):  # a child it left behind may hold the pipe
            await asyncio.wait_for(asyncio.shield(self._reader), DRAIN_AFTER_EXIT)
        self.exit_code = exit_code(self.proc, status)
        self.ended = time.monotonic()
        self._changed.set()
        await self._finish()

    async def _finish(self) -> None:
        """The job is over: its group no longer listed, the sandbox's files for it gone."""
        if not self._reader.done():  # a child it left behind holds the output: it goes too
            await stop_group(self.proc, self.contained)
        else:
            await self.proc.wait()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        release(self.proc.pid)
        tidy(self._made)
        self._made = []

    def summary(self) -> JobSummary:
        return JobSummary(self.id, self.command, self.elapsed())

    def tail(self, lines: int) -> JobTail:
        """Its last ``lines`` lines of output as a terminal shows them (colours and
        progress bars' redraws resolved), for the person; the model's reads are untouched."""
        shown = terminal_text(self._tail).splitlines()[-lines:] if self._tail else []
        if self.stopped_by:
            state = f"stopped by {self.stopped_by} after {self.elapsed():.0f}s"
        elif self.running:
            state = f"running for {self.elapsed():.0f}s"
        else:
            state = f"exited {self.exit_code} after {self.elapsed():.0f}s"
        return JobTail(self.id, self.command, state, tuple(shown))

    def _drain(self, *, found: bool = False) -> JobRead:
        window, self._window = self._window, CappedBuffer()
        self._first_look, self._recent = "", ""
        return JobRead(
            job_id=self.id,
            output=window.text() if window.total else "",
            running=self.running,
            exit_code=self.exit_code,
            elapsed=self.elapsed(),
            found=found,
            stopped_by=self.stopped_by,
        )

    async def first_look(self) -> JobRead:
        """The start call's look: what the job printed in its first ``FIRST_LOOK`` seconds,
        or all of it when it ended by then."""
        read = await self.read(FIRST_LOOK, None, CancelToken())
        self._first_look = read.output[-4096:]
        return read

    async def read(self, wait: float, until: str | None, cancel: CancelToken) -> JobRead:
        """What arrived since the last read, once ``until`` appears in it, the job exits,
        ``wait`` seconds pass or ``cancel`` is set, whichever comes first."""
        deadline = time.monotonic() + wait
        cancelled = asyncio.ensure_future(cancel.event.wait())
        try:
            while True:
                if until and (until in self._recent or until in self._first_look):
                    return self._drain(found=True)
                left = deadline - time.monotonic()
                if not self.running or left <= 0 or cancel.cancelled:
                    return self._drain()
                self._changed.clear()
                changed = asyncio.ensure_future(self._changed.wait())
                try:
                    await asyncio.wait(
                        {changed, cancelled}, timeout=left, return_when=asyncio.FIRST_COMPLETED
                    )
                finally:
                    changed.cancel()
        finally:
            cancelled.cancel()

    async def stop(self, by: str = "the model") -> JobRead:
        """Stop the job's whole group (TERM, grace, KILL) and return its last output;
        ``by`` is said to the model when another read finds it stopped."""
        if self.running:
            self.stopped_by = by
            await stop_group(self.proc, self.contained)
            await self.over
        return self._drain()


class Jobs:
    """A session's background jobs, by id."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def running(self) -> list[Job]:
        return [job for job in self._jobs.values() if job.running]

    def summaries(self) -> list[JobSummary]:
        """The jobs still running, oldest first."""
        return [job.summary() for job in self.running()]

    async def start(
        self,
        job_id: str,
        command: str,
        argv: list[str],
        *,
        cwd: str,
        env: dict[str, str],
        contained: bool,
        made: list[str],
    ) -> Job:
        """Start ``argv`` as job ``job_id``. Raises ``JobError`` when ``MAX_JOBS`` run."""
        if len(self.running()) >= MAX_JOBS:
            tidy(made)
            raise JobError(
                f"{MAX_JOBS} background jobs are running already "
                f"({', '.join(j.id for j in self.running())}): stop one with the job tool "
                "(stop: true) first"
            )
        try:
            proc = await spawn(argv, cwd=cwd, env=env)
        except OSError:
            tidy(made)
            raise
        job = Job(job_id, command, proc, contained=contained, made=made)
        self._jobs[job_id] = job
        return job

    async def close(self) -> None:
        """Stop every job still running (the session is closing), all at once: each may
        take its grace (TERM, 0.5 s, KILL), and quitting waited for them one by one."""
        await asyncio.gather(*(job.stop() for job in self.running()))
        for job in self._jobs.values():  # the ones that ended meanwhile: tidied
            with contextlib.suppress(asyncio.CancelledError):
                await job.over


class JobError(Exception):
    """A job could not start (too many run): the message is for the model."""


class JobTool:
    """``job``: read a background job's new output (waiting for it), or stop the job.

    Policy class ``read``: it starts nothing, and stopping a job the session started (whose
    start was approved) is not a new side effect a person must approve."""

    bytes_args: frozenset[str] = frozenset()
    spec = ToolSpec(
        name="job",
        description=(
            "A background job's output since the last read, and whether it runs; waits up "
            "to `wait` s, or until `until` appears. stop: true stops it."
        ),
        parameters={
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "the job id"},
                "wait": {"type": "integer", "minimum": 0, "maximum": MAX_WAIT},
                "until": {"type": "string", "description": "text to wait for"},
                "stop": {"type": "boolean"},
            },
            "required": ["id"],
        },
        kind="read",
        timeout=MAX_WAIT + 30.0,
        enforces_timeout=True,
        aliases=JOB,
    )

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        what = "stop" if args.get("stop") else "read"
        return Prepared(
            args=args, preview=Preview(kind="none", summary=f"job {what}: {args['id']}")
        )

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        args = prepared.args
        job_id = str(args["id"])
        job = ctx.jobs.get(job_id) if ctx.jobs is not None else None
        if job is None:
            known = [j.id for j in ctx.jobs.running()] if ctx.jobs is not None else []
            shown = job_id if len(job_id) <= 80 else job_id[:77] + "…"  # a model's id: quoted short
            raise ToolError(
                f"no job {shown!r} in this session's process"
                + (f" (running: {', '.join(known)})" if known else " (none is running)")
                + ": jobs end when the Frontier process that started them ends (a resumed "
                "session starts with none); start it again with shell background: true"
            )
        if args.get("stop"):
            read = await job.stop()
        else:
            wait = min(float(args.get("wait") or 0), MAX_WAIT)
            until = args.get("until") or None
            read = await job.read(wait, until, cancel)
            if cancel.cancelled:  # Esc stops the wait, not the job
                note = "\n[the wait was stopped by the person; the job keeps running]"
                return Outcome(kind="cancelled", output=read.render() + note)
        kind: ResultKind = "error" if not read.running and read.exit_code not in (0, None) else "ok"
        if read.stopped_by:  # stopped on purpose, not a failure of the job
            kind = "ok"
        return Outcome(kind=kind, output=read.render(), exit_code=read.exit_code)
