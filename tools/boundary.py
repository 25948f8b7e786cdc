"""The tool boundary: where a confirmed call becomes a side effect (DESIGN §5).

Every call takes one path, and each step can end it with a typed result:

1. prepare  — known tool? arguments coerced/valid? the tool computes its plan
              and preview (``unknown_tool`` / ``arg`` / ``error`` / ``timeout``), in a
              worker thread when it reads and diffs files (``_prepare``);
   then, for a mutation, the person's formatters on the files it will write
              (``tools/formatting.py``: the review shows the formatted files);
2. gate     — ``before_hook``, then the approver for edits and exec (``denied``);
3. persist  — ``persist_call`` with the preview (file hashes) before any side
              effect, ``mark_started`` right before execution
              (``session_persistence_failed``: the tool never runs);
4. execute  — ``ok`` / ``error`` / ``runtime`` / ``timeout`` / ``cancelled``, bounded
              by the tool's ``spec.timeout`` unless it enforces its own (exec tools);
              at the deadline (or Esc) a file mutation is *asked* to stop and waited
              for: it stops before its point of no return, and then nothing was
              written, or it finishes and its real outcome is recorded (``_execute``);
              a write whose intent journal the store could not close is a
              ``session_persistence_failed`` saying what is on disk; a mutation's
              pre-images are stored on a worker thread meanwhile (off the confirm →
              start path) and awaited before the result (``_keep_preimages``);
5. finish   — ``after_hook`` may rewrite the result (the person's after-edit checks,
              ``tools/after_edit.py``; the call is still running), then ``commit_result``
              (failure: ``session_persistence_failed``, the result is withheld).

The hook runs *before* the commit so the committed result is exactly the one
the model sees. ``ToolFinished`` is emitted for every call; ``ToolStarted``
only when execution actually begins.

The workspace root is pinned when the boundary is made (``beneath.pin_root``; the
runtime pins it at session start and passes it in): tools get it as ``ctx.root``, a
``PinnedRoot`` whose walks start at the pinned descriptor, and every call is refused —
"the workspace folder was replaced" — once the folder at the root's path is not the
pinned one (checked before prepare and again before execute, since an approval can take
minutes).

Commands run in the session's OS sandbox (``sandbox``, ``tools/sandbox.py``; issue 22): the
command's preview says so (``Preview.sandbox``) before approval, and when the sandbox
stopped one (``meta["sandbox_stopped"]``) the person may be asked once to run it outside
(``_escalate``): the same call, run again unconfined, one result.
"""

from __future__ import annotations

import asyncio
import contextvars
import errno
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from frontier.app.events import Event, ResultKind, ToolCall, ToolFinished, ToolOutput, ToolResult
from frontier.app.events import ToolStarted as ToolStartedEvent
from frontier.app.record import record, replace
from frontier.tools import beneath
from frontier.tools.atomic import CALL_STOP, JournalNotClosed, WriteStop
from frontier.tools.base import CancelToken, Outcome, Prepared, Tool, ToolError
from frontier.tools.contract import (
    AfterHook,
    Approver,
    BeforeHook,
    Decision,
    IntentJournal,
    KeepsFound,
    KeepsPreimages,
    Persistence,
    Preview,
    ToolContext,
    ToolSpec,
)
from frontier.tools.file_views import CallViews, FileViews
from frontier.tools.output_cap import cap_output
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import Registry
from frontier.tools.schema import ArgError, coerce_args

if TYPE_CHECKING:
    from frontier.tools.atomic import StopReason
    from frontier.tools.formatting import Formatters
    from frontier.tools.jobs import Jobs
    from frontier.tools.sandbox import Sandbox

REISSUE = "Re-issue the call with corrected arguments."


@record
class _Ready:
    call: ToolCall
    spec: ToolSpec
    tool: Tool
    prepared: Prepared
    started_recorded: bool = False
    """The call row and its start were committed together (``persist_and_start``)."""


@record
class _Running:
    """What stops a running call: its token (exec tools kill their process group) and its
    ``WriteStop`` (a file write gives up before its point of no return)."""

    token: CancelToken
    stop: WriteStop

    def stop_now(self, reason: StopReason) -> None:
        self.token.cancel()
        self.stop.request(reason)


class ToolBoundary:
    """Runs confirmed calls; never raises for a tool's failure (every call gets a result)."""

    def __init__(
        self,
        registry: Registry,
        root: str | Path,
        approver: Approver,
        persistence: Persistence | None,
        emit: Callable[[Event], None] | None = None,
        before_hook: BeforeHook | None = None,
        after_hook: AfterHook | None = None,
        *,
        policy: str | None = None,
        env: Mapping[str, str] | None = None,
        sandbox: Sandbox | None = None,
        jobs: Jobs | None = None,
    ) -> None:
        self.registry = registry
        self.root: str = _pinned(root)
        """As tools get it (``ctx.root``): a ``PinnedRoot`` unless the folder could not be
        opened (then tools fail on it as before, each with its own message)."""
        self.sandbox = sandbox
        """Where exec tools run (``ctx.sandbox``); ``None``: unconfined (``--sandbox off``)."""
        self.jobs = jobs
        """The session's background jobs (``shell`` with ``background: true``)."""
        self.views = FileViews()
        """What the model last read or wrote of each file (``ctx.views``)."""
        self.approver: Approver = (
            PolicyApprover(policy, approver, sandbox=sandbox) if policy else approver
        )
        if isinstance(self.approver, PolicyApprover):  # protected paths judged by real file
            self.approver.bind_root(self.root)
        self.persistence = persistence
        self.emit = emit
        self.before_hook = before_hook
        self.after_hook = after_hook
        self.env = dict(env or {})
        self.persistence_failed = False
        """Set once the store failed: the turn must end (no further calls run)."""
        self._running: dict[str, _Running] = {}
        self._halted = False
        """The turn was stopped (:meth:`halt`): the running batch starts no further call."""
        self._in_flight: set[str] = set()
        """Calls past their start commit whose result is not committed yet (:attr:`running`)."""
        self._escalating: dict[str, asyncio.Future[Decision | None]] = {}
        """Questions to run a call again outside the sandbox, waiting for an answer."""
        self.formatters: Formatters | None = None
        """The person's formatters, run on what a call will write before its review
        (``tools/formatting.py``); ``None``: none."""
        self._formatting: dict[str, CancelToken] = {}
        """Calls whose files are being formatted: Esc stops the formatter."""

    # ----------------------------------------------------------------- public API

    async def run(self, call: ToolCall) -> ToolResult:
        """One call, full path: prepare → gate → persist → execute → commit."""
        staged = await self._stage(call, start_now=True)
        if isinstance(staged, ToolResult):
            return await self._finish(call, staged, executed=False)
        try:
            result = await self._execute(staged)
            result = await self._escalate(staged, result)
            return await self._finish(call, result, executed=True)
        finally:  # cancelled (the session closing): no longer in flight either
            self._in_flight.discard(call.id)

    async def run_batch(
        self, calls: Sequence[ToolCall], results: list[ToolResult] | None = None
    ) -> list[ToolResult]:
        """Segmented: consecutive parallel-safe calls run concurrently, sequential ones alone.

        Results are committed in the original order, and appended to ``results`` as they
        are (so a caller cancelled midway knows which calls have theirs). A
        ``session_persistence_failed`` result, a successful ``terminates`` tool or
        :meth:`halt` ends the batch; the remaining calls get ``not_executed`` results
        (still paired, never run).
        """
        results = [] if results is None else results
        self._halted = False
        i = 0
        while i < len(calls):
            seg = [calls[i]]
            if not self._sequential(calls[i]):
                while i + len(seg) < len(calls) and not self._sequential(calls[i + len(seg)]):
                    seg.append(calls[i + len(seg)])
            results.extend(await self._run_segment(seg))
            i += len(seg)
            stop = self._stop_reason(results)
            if stop is not None:
                for call in calls[i:]:
                    results.append(await self._not_executed(call, stop))
                break
        return results

    def halt(self) -> None:
        """The turn was stopped while a batch runs: the calls running now end as
        :meth:`cancel_running` ends them, each with its own result, and the batch starts
        no further call (each gets ``not_executed``)."""
        self._halted = True

    def cancel_running(self) -> bool:
        """Esc: cancel every running call (exec tools kill their process group; a file
        write stops unless it is already past its point of no return, then it finishes);
        a question to run one again outside the sandbox is withdrawn (it keeps its
        sandboxed result)."""
        running = list(self._running.values())
        for run in running:
            run.stop_now("cancelled")
        for token in list(self._formatting.values()):
            token.cancel()
        for asking in list(self._escalating.values()):
            asking.cancel()
        return bool(running)

    @property
    def running(self) -> list[str]:
        """The calls past their start commit whose result is not committed yet: running,
        or finishing (its pre-images kept, a question to run it outside the sandbox). A
        stopped turn must let each of these commit its own result: cancelling its task
        is the session closing (no result; recovery decides)."""
        return sorted(self._in_flight)

    # ----------------------------------------------------------------- steps

    def _sequential(self, call: ToolCall) -> bool:
        tool = self.registry.get(call.name)
        return bool(tool and tool.spec.sequential)

    def _ctx(
        self,
        journal: IntentJournal | None = None,
        *,
        outside: bool = False,
        views: CallViews | None = None,
    ) -> ToolContext:
        """``outside``: the one run of a command the person approved outside the sandbox;
        ``views``: the running call's door to :attr:`views` (its changes are stored)."""

        def sink(call_id: str, text: str) -> None:
            if self.emit is not None:
                self.emit(ToolOutput(call_id=call_id, data=text))

        sandbox = None if outside else self.sandbox
        return ToolContext(
            root=self.root,
            output=sink,
            env=self.env,
            journal=journal,
            sandbox=sandbox,
            jobs=self.jobs,
            views=self.views if views is None else views,
        )

    def _inside(self, spec: ToolSpec, prepared: Prepared) -> Prepared:
        """An exec call's preview, saying it will run inside the sandbox (its label)."""
        sandbox = self.sandbox
        if spec.kind != "exec" or spec.source != "builtin" or sandbox is None:
            return prepared  # an MCP server's tool runs in its server, never in the sandbox
        if not sandbox.active:
            return prepared
        if prepared.preview.kind != "command":
            return prepared
        return replace(prepared, preview=replace(prepared.preview, sandbox=sandbox.label))

    def _journal(self, call_id: str) -> IntentJournal | None:
        """The store's intent journal for this call's multi-file writes, if it keeps one."""
        return self.persistence.journal(call_id) if self.persistence is not None else None

    async def _stage(self, call: ToolCall, *, start_now: bool = False) -> _Ready | ToolResult:
        """prepare → gate → persist_call; a ``ToolResult`` means the call ends here.

        ``start_now``: execution follows at once, so ``persist_and_start`` records the
        call and its start in one commit (one fsync less between confirmation and the
        tool starting). Store commits run on the event-loop thread on purpose: a worker
        thread measured slower end to end (the GIL hand-off cost more than the ~1 ms
        fsync it would hide; see docs/benchmarks/overlap.md), and the tool may not
        start before the commit.
        """
        if self.persistence_failed:
            return _result(call, "not_executed", "not executed: the session store failed earlier")
        replaced = self._root_replaced()
        if replaced is not None:
            return _result(call, "error", replaced)
        tool = self.registry.get(call.name)
        if tool is None:
            names = ", ".join(s.name for s in self.registry.offered())  # what it may use
            hint = self.registry.unknown_hint(call.name, call.args)
            return _result(
                call,
                "unknown_tool",
                f"unknown tool {call.name!r}{f' ({hint})' if hint else ''}. Available tools: "
                f"{names}. Re-issue the call with one of these names.",
            )
        spec = tool.spec
        try:
            args = coerce_args(spec.name, spec.parameters, call.args, tool.bytes_args, spec.aliases)
        except ArgError as exc:
            return _result(call, "arg", f"invalid arguments: {exc}. {REISSUE}")
        except Exception as exc:  # the schema (an MCP server's), not the model's arguments
            return _result(call, "error", _schema_failed(spec, exc))
        try:
            prepared = await self._prepare(tool, args)
        except ToolError as exc:
            suffix = f" {REISSUE}" if exc.kind == "arg" else ""
            return _result(call, exc.kind, f"{exc}{suffix}")
        except _PrepareTimeout:
            return _result(call, "timeout", _prepare_timed_out(spec))
        except beneath.WorkspaceReplaced as exc:  # swapped since the check above
            return _result(call, "error", str(exc))
        except OSError as exc:
            if exc.errno not in FILE_ERRNOS:
                return _result(call, "runtime", _runtime(spec.name, "preparing", exc))
            kind: ResultKind = "arg" if exc.errno == errno.ENAMETOOLONG else "error"
            return _result(call, kind, _os_failure(spec.name, "preparing", exc))
        except Exception as exc:
            return _result(call, "runtime", _runtime(spec.name, "preparing", exc))
        prepared = self._inside(spec, prepared)
        if self.formatters is not None and spec.mutates:  # before the review: it shows them
            prepared = await self._format(call, prepared)
        denied, decision = await self._gate(call, spec, prepared)
        if denied is not None:
            return denied
        if decision is not None and decision.edited:
            rewritten = _edited(call, prepared, decision)
            if isinstance(rewritten, ToolResult):
                return rewritten
            prepared = rewritten
        if decision is not None and decision.declined:
            narrowed = _narrow(call, prepared, decision)
            if isinstance(narrowed, ToolResult):
                return narrowed
            prepared = narrowed
        if self.persistence is not None:
            try:
                if start_now:
                    self.persistence.persist_and_start(call, spec, prepared.preview)
                else:
                    self.persistence.persist_call(call, spec, prepared.preview)
            except Exception as exc:
                return self._store_failed(call, f"could not record the call ({exc})", ran=False)
        return _Ready(call, spec, tool, prepared, started_recorded=start_now)

    async def _format(self, call: ToolCall, prepared: Prepared) -> Prepared:
        """The person's formatters on the files the call will write (``tools/formatting.py``);
        Esc stops them (the model's version stays)."""
        assert self.formatters is not None
        token = CancelToken()
        self._formatting[call.id] = token
        try:
            return await self.formatters(prepared, token)
        except Exception as exc:  # the call goes on as the model wrote it, and says why
            return replace(prepared, format_failed=(f"the formatting step failed: {exc}",))
        finally:
            self._formatting.pop(call.id, None)

    async def _prepare(self, tool: Tool, args: Mapping[str, Any]) -> Prepared:
        """The tool's own prepare: inline when it is small, else off the loop.

        An edit tool's prepare reads the files and diffs them for the review, which grows
        with their size; past ``INLINE_PREPARE_BYTES`` it runs in a worker thread bounded by
        ``spec.timeout`` (``_PrepareTimeout``; the thread is abandoned — prepare has no side
        effects), so the stream and the TUI keep going meanwhile. Read and exec tools only
        coerce and resolve a path, and a small edit costs less than the hand-off (measured:
        +0.3 ms p50, up to +5 ms p99 on confirm → start), so those run inline.
        """
        if not _prepare_off_loop(tool.spec, args, self.root):
            return tool.prepare(args, self._ctx())
        work = asyncio.ensure_future(asyncio.to_thread(tool.prepare, args, self._ctx()))
        done, _ = await asyncio.wait({work}, timeout=tool.spec.timeout)
        if not done:
            work.cancel()
            raise _PrepareTimeout
        return work.result()

    async def _gate(
        self, call: ToolCall, spec: ToolSpec, prepared: Prepared
    ) -> tuple[ToolResult | None, Decision | None]:
        """``(denied result, None)`` or ``(None, the approval)`` (``None`` when none needed)."""
        if self.before_hook is not None:
            try:
                verdict = await self.before_hook(call, spec)
            except Exception as exc:
                failed = f"denied: the before_tool_call hook failed ({exc})"
                return _result(call, "denied", failed), None
            if verdict is not None and not verdict.approved:
                return _result(call, "denied", _denied_text(verdict.reason, "a hook")), None
        if not prepared.needs_approval:
            return None, None
        try:
            decision = await self.approver.approve(call, spec, prepared.preview)
        except Exception as exc:
            return _result(call, "denied", f"denied: the approver failed ({exc})"), None
        if not decision.approved:
            text = _denied_text(decision.reason, decision.by)
            meta = {"unanswered": decision.unanswered} if decision.unanswered is not None else None
            return _result(call, "denied", text, meta=meta), None
        return None, decision

    def _root_replaced(self) -> str | None:
        """The refusal when the pinned workspace folder is no longer at its path."""
        try:
            beneath.check_root(self.root)
        except beneath.WorkspaceReplaced as exc:
            return str(exc)
        return None

    async def _escalate(self, ready: _Ready, first: ToolResult) -> ToolResult:
        """After the sandbox stopped a command: ask the person (``ask``/``auto-edit`` with
        someone to ask; :meth:`PolicyApprover.escalate`) to run it once outside. Approved:
        the same call runs again unconfined — not persisted again, one result: the
        sandboxed attempt's output, a line saying the person approved, the second run's
        output. Denied: the sandboxed result stands, with the reason."""
        what = first.meta.get("sandbox_stopped")
        if not what or ready.spec.kind != "exec" or self.persistence_failed:
            return first
        escalate = getattr(self.approver, "escalate", None)
        if escalate is None:
            return first
        call = ready.call
        preview = Preview(
            kind="command",
            command=ready.prepared.preview.command,
            summary="run outside the sandbox",
            sandbox=None,
            escalation=str(what),
        )
        asking = asyncio.ensure_future(escalate(call, ready.spec, preview))
        self._escalating[call.id] = asking
        try:
            decision: Decision | None = await asking
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is None or current.cancelling():
                raise  # this call's own task: the session is closing
            stopped = "[not run outside the sandbox: the turn was stopped before an answer.]"
            return replace(first, output=f"{first.output}\n{stopped}")
        except Exception as exc:
            decision = Decision(False, f"the approver failed ({exc})", by="frontier")
        finally:
            self._escalating.pop(call.id, None)
        if decision is None:
            return first
        if not decision.approved:
            why = decision.reason.strip() or "no reason given"
            note = (
                f"[not run outside the sandbox: denied by {decision.by}: {why}. Do not retry "
                "the same command unchanged; adjust the approach.]"
            )
            return replace(first, output=f"{first.output}\n{note}")
        second = await self._execute(replace(ready, started_recorded=True), outside=True)
        if second.kind == "session_persistence_failed":
            return second
        from frontier.tools.command_changes import RECORD_KEYS, both_runs

        meta = {
            k: v for k, v in second.meta.items() if k != "sandbox_stopped" and k not in RECORD_KEYS
        }
        meta.update(both_runs(first.meta, second.meta))  # both runs may have written
        meta["sandbox"] = {"mode": "escalated", "network": True}
        meta["escalated_from"] = first.meta.get("sandbox")
        output = f"{first.output}\n{ESCALATED}\n{second.output}"
        return replace(
            second, output=cap_output(output), elapsed=first.elapsed + second.elapsed, meta=meta
        )

    async def _execute(self, ready: _Ready, *, outside: bool = False) -> ToolResult:
        """Run the tool to its real outcome; a result never precedes the tool's end.

        The tool runs as its own task. At the deadline (``spec.timeout``, unless the tool
        enforces its own) or on Esc it is asked to stop: its token is cancelled and its
        ``WriteStop`` — ambient in the task (``atomic.CALL_STOP``), so it reaches the
        writer's thread — is requested. A file mutation is then *waited for*, never
        abandoned: cancelling the coroutine would leave its ``asyncio.to_thread`` writer
        running, and the write would land after a result that said it was stopped (issue
        21, item 4). A read is cancelled as before (its walker stops on cancellation).
        """
        call = ready.call
        # ``outside``: the escalated second run of a call whose start is already recorded
        if self.persistence is not None and not ready.started_recorded:
            try:
                self.persistence.mark_started(call.id)
            except Exception as exc:
                return self._store_failed(call, f"could not record the start ({exc})", ran=False)
        self._in_flight.add(call.id)  # until its result is committed (``_finish``)
        try:
            journal = self._journal(call.id)
        except Exception as exc:
            return self._store_failed(call, f"could not open the write journal ({exc})", ran=False)
        replaced = self._root_replaced()  # the approval may have taken minutes
        if replaced is not None:
            return _result(call, "error", replaced)
        started = time.monotonic()
        limit = None if ready.spec.enforces_timeout else ready.spec.timeout
        run = _Running(CancelToken(), WriteStop(None if limit is None else started + limit))
        if self.emit is not None:
            run.stop.on_wait = _told_from_a_thread(self.emit, call.id)
        self._running[call.id] = run
        if self.emit is not None:
            self.emit(ToolStartedEvent(call=call))
        context = contextvars.copy_context()
        context.run(CALL_STOP.set, run.stop)
        seen = CallViews(self.views)
        work = asyncio.get_running_loop().create_task(
            ready.tool.execute(
                call, ready.prepared, self._ctx(journal, outside=outside, views=seen), run.token
            ),
            context=context,
        )
        keeping = None if outside else self._keep_preimages(ready)
        try:
            timed_out = await _outcome_of(work, run, limit, mutates=ready.spec.mutates)
        except BaseException:
            if keeping is not None:  # the session is closing: the thread finishes on its own
                keeping.add_done_callback(_retrieved)
            raise
        finally:
            self._running.pop(call.id, None)
        result = self._result_of(ready, work, run.stop, limit, started, timed_out=timed_out)
        if seen.ops:  # stored with the result: a resumed session knows what the model saw
            result = replace(result, meta={**result.meta, "views": seen.ops})
        if run.stop.unrecorded is not None:
            if keeping is not None:
                keeping.add_done_callback(_retrieved)
            return self._journal_not_closed(call, run.stop.unrecorded, result)
        if keeping is not None:
            try:
                await keeping
            except Exception as exc:
                why = (
                    f"could not keep the files' earlier content for undo ({exc}); the tool "
                    f"ran (outcome {result.kind})"
                )
                return self._store_failed(call, why, ran=True)
        found = _found(work)
        if found and isinstance(self.persistence, KeepsFound):
            try:
                await asyncio.to_thread(self.persistence.keep_found, found)
            except Exception as exc:
                why = (
                    f"could not keep the earlier content of the files the command changed "
                    f"({exc}); it ran (outcome {result.kind})"
                )
                return self._store_failed(call, why, ran=True)
        return result

    def _keep_preimages(self, ready: _Ready) -> asyncio.Future[None] | None:
        """A mutation's pre-images, stored on a worker thread while the tool runs: their
        secret scan, hash check and blob commit grow with the files' size, so they are
        kept off the confirm → start path (issue 24) and awaited before the result
        commits (a store that is not ``KeepsPreimages`` keeps them in ``commit_result``)."""
        store = self.persistence
        if not isinstance(store, KeepsPreimages) or not ready.spec.mutates:
            return None
        return asyncio.ensure_future(asyncio.to_thread(store.keep_preimages, ready.call.id))

    def _journal_not_closed(
        self, call: ToolCall, failed: JournalNotClosed, result: ToolResult
    ) -> ToolResult:
        """The write is over but the store could not record its end (``IntentJournal.end``
        failed; the writer reports it on the call's ``WriteStop``, whatever the tool made of
        the error it raised): a store failure like any other record the boundary could not
        make — the turn ends, and the result, which the store could not take, is not
        committed. The text says what is on disk (the writer's own words); recovery at the
        next start decides the call from its files, and the open journal, whose temps and
        pre-images are gone, touches nothing."""
        why = f"{failed} (the tool reported {result.kind})"
        return self._store_failed(call, why, ran=True)

    def _result_of(
        self,
        ready: _Ready,
        work: asyncio.Task[Outcome],
        stop: WriteStop,
        limit: float | None,
        started: float,
        *,
        timed_out: bool,
    ) -> ToolResult:
        """The result for what the finished tool task really did."""
        call, spec = ready.call, ready.spec
        elapsed = time.monotonic() - started
        if work.cancelled():  # a read stopped at its deadline
            return _result(call, "timeout", _execute_timed_out(spec, limit or 0.0), elapsed=elapsed)
        if stop.gave_up is not None:  # a write stopped before its point of no return
            kind: ResultKind = "timeout" if stop.reason == "timeout" else "cancelled"
            text = _write_stopped(spec, kind, limit or 0.0, stop.gave_up)
            return _result(call, kind, text, elapsed=elapsed, meta={"written": False})
        exc = work.exception()
        if isinstance(exc, beneath.WorkspaceReplaced):
            return _result(call, "error", str(exc), elapsed=elapsed)
        if isinstance(exc, ToolError):
            return _result(call, exc.kind, str(exc), elapsed=elapsed)
        if isinstance(exc, OSError):  # a TimeoutError here is the tool's own (ETIMEDOUT)
            return self._failed(ready, exc, started)
        if exc is not None:
            return _result(call, "runtime", _runtime(spec.name, "running", exc), elapsed=elapsed)
        outcome = work.result()
        output, meta = outcome.output, dict(outcome.meta)
        kind = outcome.kind
        if timed_out and kind == "cancelled":  # stopped by its token, its own way
            kind = "timeout"
        elif timed_out and spec.mutates:
            output = f"{output}\n{_finished_late(limit or 0.0, committed=stop.committed)}"
            meta["overran"] = limit
        elif stop.reason == "cancelled" and spec.mutates and stop.committed:
            output = f"{output}\n{ESC_TOO_LATE}"
            meta["esc_too_late"] = True
        if ready.prepared.edited:
            output = f"{output}\n{ready.prepared.edited_note}"
            meta["edited"] = list(ready.prepared.edited)
        if ready.prepared.declined:
            output = f"{output}\n{ready.prepared.declined_note}"
            meta = _with_declined(meta, ready.prepared.declined)
        if ready.prepared.formatted:
            output = f"{output}\n{ready.prepared.formatted_note}"
            meta["formatted"] = list(ready.prepared.formatted)
            meta["formatted_by"] = list(ready.prepared.formatted_by)
        left = (*ready.prepared.format_failed, *ready.prepared.format_left)
        if left:
            output = f"{output}\n[the person's formatter left it as sent: {'; '.join(left)}]"
        if ready.prepared.format_failed:
            meta["format_failed"] = list(ready.prepared.format_failed)
        if ready.prepared.format_left:
            meta["format_left"] = list(ready.prepared.format_left)
        return ToolResult(
            call_id=call.id,
            name=call.name,
            kind=kind,
            output=cap_output(output),
            exit_code=outcome.exit_code,
            elapsed=elapsed,
            meta=meta,
            images=outcome.images,
        )

    def _failed(self, ready: _Ready, exc: OSError, started: float) -> ToolResult:
        """An ``OSError`` out of execute: a plain ``error`` when it is a file's condition
        (a name too long, a link loop, permission denied…), else an internal error."""
        elapsed = time.monotonic() - started
        if exc.errno in FILE_ERRNOS:
            kind: ResultKind = "arg" if exc.errno == errno.ENAMETOOLONG else "error"
            return _result(
                ready.call, kind, _os_failure(ready.spec.name, "running", exc), elapsed=elapsed
            )
        return _result(
            ready.call, "runtime", _runtime(ready.spec.name, "running", exc), elapsed=elapsed
        )

    async def _finish(self, call: ToolCall, result: ToolResult, *, executed: bool) -> ToolResult:
        """after_hook, then commit (unless the store already failed), then emit."""
        if self.persistence_failed:
            self._emit_finished(result)
            return result
        if self.after_hook is not None:
            # still running: Esc stops what the hook runs (an after-edit check's command)
            token = CancelToken()
            if executed:
                self._running[call.id] = _Running(token, WriteStop(None))
            try:
                changed = await self.after_hook(call, result, token)
            except Exception as exc:
                meta = {**result.meta, "after_hook_error": str(exc)}
                changed = replace(result, meta=meta)
            finally:
                if executed:
                    self._running.pop(call.id, None)
            if changed is not None:
                result = changed
        if self.persistence is not None:
            try:
                if executed:
                    self.persistence.commit_result(result)
                else:  # never persisted: rejected at prepare or gate, or a stopped batch
                    self.persistence.commit_rejected(call, result)
            except Exception as exc:
                what = f"ran (outcome {result.kind})" if executed else "did not run"
                result = self._store_failed(
                    call, f"could not record the result ({exc}); the tool {what}", ran=executed
                )
        self._in_flight.discard(call.id)
        self._emit_finished(result)
        return result

    def _emit_finished(self, result: ToolResult) -> None:
        if self.emit is not None:
            self.emit(ToolFinished(result=result))

    def _store_failed(self, call: ToolCall, why: str, *, ran: bool) -> ToolResult:
        self.persistence_failed = True
        return _result(
            call,
            "session_persistence_failed",
            f"session store failure: {why}. The turn ends; check the disk and the data dir.",
            meta={"executed": ran},
        )

    async def _run_segment(self, seg: Sequence[ToolCall]) -> list[ToolResult]:
        if len(seg) == 1:
            return [await self.run(seg[0])]
        staged: list[_Ready | ToolResult] = []
        for call in seg:
            staged.append(await self._stage(call))
        if self.persistence_failed:
            outs: list[ToolResult] = []
            for call, s in zip(seg, staged, strict=True):
                if isinstance(s, _Ready):
                    s = _result(call, "not_executed", "not executed: the session store failed")
                outs.append(await self._finish(call, s, executed=False))
            return outs

        async def one(s: _Ready | ToolResult) -> ToolResult:
            if not isinstance(s, _Ready):
                return s
            return await self._escalate(s, await self._execute(s))

        try:
            raw = await asyncio.gather(*(one(s) for s in staged))
            return [
                await self._finish(call, r, executed=isinstance(s, _Ready))
                for call, r, s in zip(seg, raw, staged, strict=True)
            ]
        finally:  # cancelled (the session closing): no longer in flight either
            self._in_flight.difference_update(call.id for call in seg)

    def _stop_reason(self, results: Sequence[ToolResult]) -> str | None:
        if self.persistence_failed:
            return "the session store failed earlier in this batch"
        if self._halted:
            return "the turn was interrupted"
        last = results[-1]
        tool = self.registry.get(last.name)
        if tool is not None and tool.spec.terminates and last.ok:
            return f"call {last.call_id} ({last.name}) ended the batch"
        return None

    async def _not_executed(self, call: ToolCall, why: str) -> ToolResult:
        result = _result(call, "not_executed", f"not executed: {why}")
        return await self._finish(call, result, executed=False)


def _found(work: asyncio.Task[Outcome]) -> Mapping[str, bytes]:
    """``Outcome.kept`` of a tool that finished with an outcome (else nothing)."""
    if work.cancelled() or work.exception() is not None:
        return {}
    return work.result().kept


def _result(
    call: ToolCall,
    kind: ResultKind,
    output: str,
    *,
    elapsed: float = 0.0,
    meta: Mapping[str, Any] | None = None,
) -> ToolResult:
    return ToolResult(
        call_id=call.id,
        name=call.name,
        kind=kind,
        output=output,
        exit_code=None,
        elapsed=elapsed,
        meta=dict(meta or {}),
    )


def _pinned(root: str | Path) -> str:
    """``root`` as tools get it: carrying its pin (the runtime's, made at session start, or
    one made now). A root that cannot be opened stays plain text: the tools then report
    it on each call as they always did, and a test can build a boundary without one."""
    try:
        return beneath.pin_text(root)
    except OSError:
        return str(root)


async def _outcome_of(
    work: asyncio.Task[Outcome], run: _Running, limit: float | None, *, mutates: bool
) -> bool:
    """Wait for the tool task to end, asking it to stop at ``limit``; whether it timed out.

    Once asked, a mutation is waited for until it ends (it stops before its point of no
    return or finishes); anything else is cancelled too, and waited for until its task
    has unwound. Cancelling *this* wait (the session closing) asks the tool to stop the
    same way and still waits before re-raising, so no tool outlives its call.
    """
    try:
        done, _ = await asyncio.wait({work}, timeout=limit)
    except asyncio.CancelledError:
        run.stop_now("cancelled")
        if not mutates:
            work.cancel()
        try:
            await _until_done(work)
        finally:
            if work.done() and not work.cancelled():
                work.exception()  # seen: the result goes with the cancellation (recovery)
        raise
    if done:
        return False
    run.stop_now("timeout")
    if not mutates:
        work.cancel()
    await _until_done(work)
    return True


def _told_from_a_thread(emit: Callable[[Event], None], call_id: str) -> Callable[[str], None]:
    """``WriteStop.on_wait`` for a call: the writer's thread hands its line to the event
    loop, which emits it as the call's live output (``app/loop_hop.py``)."""
    from frontier.app.loop_hop import to_loop

    return to_loop(lambda text: emit(ToolOutput(call_id=call_id, data=text)))


def _retrieved(future: asyncio.Future[None]) -> None:
    """Mark a pre-image keeping nobody awaits any more as seen (no "never retrieved"
    warning): its call ends without a committed result, and recovery decides it."""
    if not future.cancelled():
        future.exception()


async def _until_done(work: asyncio.Task[Outcome]) -> None:
    """Wait for ``work`` even through cancellations of the caller, then re-raise one."""
    cancelled = False
    while not work.done():
        try:
            await asyncio.wait({work})
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError


def _edited(call: ToolCall, prepared: Prepared, decision: Decision) -> Prepared | ToolResult:
    """The prepared mutation with the files the person rewrote in the review holding their
    versions (``tools/review_edit.py``), or an ``error`` result when it cannot take them."""
    from frontier.tools.patch_engine import PatchPlan
    from frontier.tools.review_edit import EditError, apply_edits

    if not isinstance(prepared.plan, PatchPlan):
        return _result(call, "error", "an edit in the review of a call that writes no files")
    try:
        plan, preview, changed, note = apply_edits(prepared.plan, prepared.preview, decision.edited)
    except EditError as exc:
        return _result(call, "error", f"the review's edit was not written: {exc}")
    return replace(prepared, plan=plan, preview=preview, edited=changed, edited_note=note)


def _narrow(call: ToolCall, prepared: Prepared, decision: Decision) -> Prepared | ToolResult:
    """The prepared mutation with the hunks the person declined left out (hunk-level accept),
    or a ``denied`` result when nothing is left to write."""
    from frontier.tools.hunk_select import describe, select
    from frontier.tools.patch_engine import PatchPlan

    if not isinstance(prepared.plan, PatchPlan):
        return _result(
            call, "denied", _denied_text("hunks declined on a call without hunks", "the user")
        )
    selection = select(prepared.plan, prepared.preview, decision)
    note = describe(selection, decision.reason)
    if selection.everything_declined:
        return _result(call, "denied", f"denied by {decision.by}: every hunk was declined. {note}")
    declined = tuple((d.path, d.index) for d in selection.declined)
    return replace(
        prepared,
        plan=selection.plan,
        preview=selection.preview,
        declined=declined,
        declined_note=note,
    )


def _with_declined(meta: dict[str, Any], declined: tuple[tuple[str, int], ...]) -> dict[str, Any]:
    """``meta["changes"]`` rows get the hunk indices the person declined."""
    rows = []
    for row in meta.get("changes", []):
        gone = sorted(i for p, i in declined if p == row.get("path"))
        rows.append({**row, "declined": gone})
    return {**meta, "changes": rows}


def _denied_text(reason: str, who: str) -> str:
    why = reason.strip() or "no reason given"
    return f"denied by {who}: {why}. Do not retry the same call unchanged; adjust the approach."


def _runtime(tool: str, step: str, exc: BaseException) -> str:
    return (
        f"internal error while {step} {tool}: {type(exc).__name__}: {exc}. This is not caused "
        "by your arguments; try a different approach or report it"
    )


def _schema_failed(spec: ToolSpec, exc: Exception) -> str:
    """The call's error when checking its arguments failed unexpectedly: the model is told
    which tool and why, and the turn goes on (a raw traceback ended it, and every later
    call of that tool ended its turn the same way)."""
    whose = " (its MCP server's)" if spec.source == "mcp" else ""
    why = str(exc)
    why = why if len(why) <= 300 else why[:297] + "..."
    return (
        f"{spec.name}: the tool's argument schema{whose} could not be applied: "
        f"{type(exc).__name__}: {why}. The call was not run; calling this tool again will "
        "likely fail the same way, so use another tool or approach"
    )


class _PrepareTimeout(Exception):
    """The tool's prepare outlived ``spec.timeout`` (not a ``TimeoutError`` the tool raised)."""


INLINE_PREPARE_BYTES = 32 * 1024
"""An edit whose arguments and target files total at most this is prepared inline: a
one-line edit of such a file prepares in ~0.3 ms, what a worker-thread hand-off adds on
the confirm → start path (p50; up to ~5 ms p99), and even an edit of every other line
blocks the loop only ~5 ms (docs/decisions-tools.md, "Prepare off the loop")."""


def _prepare_off_loop(spec: ToolSpec, args: Mapping[str, Any], root: str) -> bool:
    """Only an edit tool's prepare reads and diffs files, and only a large one is worth the
    hand-off; read and exec tools only check their arguments."""
    if spec.kind != "edit":
        return False
    size = _arg_bytes(args)
    if size > INLINE_PREPARE_BYTES:
        return True
    paths = [args["path"]] if isinstance(args.get("path"), str) else []
    for entry in args.get("files") or ():  # undo: every file it puts back
        if isinstance(entry, Mapping) and isinstance(entry.get("path"), str):
            paths.append(entry["path"])
    patch = args.get("patch")
    if isinstance(patch, (str, bytes)):
        from frontier.tools.patch_summary import patch_paths

        paths += patch_paths(patch)
    for path in paths:
        try:  # only a size, for this choice: nothing is opened or shown
            size += os.stat(os.path.join(root, path)).st_size
        except (OSError, ValueError):
            continue
        if size > INLINE_PREPARE_BYTES:
            return True
    return False


def _arg_bytes(value: Any) -> int:
    if isinstance(value, (str, bytes)):
        return len(value)
    if isinstance(value, Mapping):
        return sum(_arg_bytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_arg_bytes(v) for v in value)
    return 0


def _prepare_timed_out(spec: ToolSpec) -> str:
    return (
        f"{spec.name}: timed out after {spec.timeout:g} s while preparing the call (reading "
        "the files and computing the diff to review); nothing was run or written. Make a "
        "smaller change (e.g. replace or apply_patch on the lines that change instead of "
        "rewriting a large file) and re-issue it."
    )


def _execute_timed_out(spec: ToolSpec, limit: float) -> str:
    what = f"{spec.name}: timed out after {limit:g} s and was stopped"
    return f"{what}; nothing was returned. Narrow the request (a smaller path, glob or window)."


def _write_stopped(spec: ToolSpec, kind: ResultKind, limit: float, doing: str) -> str:
    """A mutation stopped before its point of no return: true only if nothing was written,
    which is exactly when the writer says it gave up (``WriteStop.gave_up``)."""
    if kind == "timeout":
        what = f"{spec.name}: timed out after {limit:g} s and was stopped"
    else:
        what = f"{spec.name}: cancelled by the user"
    advice = "Re-issue the call"
    if "locked" in doing:
        advice += (
            " once the other process (another Frontier session, an editor or a build writing "
            "there) has finished"
        )
    return f"{what} while {doing}; nothing was written. {advice}."


ESCALATED = "[the person approved running it outside the sandbox]"
"""Between the sandboxed attempt's output and the escalated run's (``_escalate``)."""

ESC_TOO_LATE = (
    "(Esc came after it had begun writing, so it was finished, not stopped; the outcome "
    "above is what happened.)"
)


def _finished_late(limit: float, *, committed: bool) -> str:
    if committed:
        why = "it had already begun writing when the limit came, so it was finished, not stopped"
    else:
        why = "it ended after the limit without having to be stopped"
    return f"(It ran past its {limit:g} s limit: {why}; the outcome above is what happened.)"


FILE_ERRNOS = frozenset(
    {
        errno.ENAMETOOLONG,
        errno.ELOOP,
        errno.EACCES,
        errno.EPERM,
        errno.ENOENT,
        errno.ENOTDIR,
        errno.EISDIR,
        errno.ENOSPC,
        errno.EDQUOT,
        errno.EROFS,
        errno.EBUSY,
        errno.ETXTBSY,
    }
)
"""Errors that describe a file or the disk, not a bug: reported plainly (``_os_failure``)."""

_FILE_ADVICE = {
    errno.ENAMETOOLONG: "a file name is over 255 bytes or the path over 4096; use a shorter path",
    errno.ELOOP: "a symbolic link on the path leads back to itself (a link loop); use another path",
    errno.EACCES: "Frontier's user may not access it; use another path or ask the user to fix "
    "its permissions",
    errno.ENOENT: "it does not exist; check the path with glob",
    errno.ENOTDIR: "a part of the path is a file, not a folder; check the path with glob",
    errno.EISDIR: "it is a folder; give a file path (glob lists files)",
    errno.ENOSPC: "the disk is full; ask the user to free space",
    errno.EDQUOT: "the disk quota is exhausted; ask the user to free space",
    errno.EROFS: "the file system is read-only",
}


def _os_failure(tool: str, step: str, exc: OSError) -> str:
    """What the model reads for a file's condition: which file, what, and what to do."""
    what = exc.strerror or str(exc)
    name = exc.filename if exc.filename is not None else ""
    where = f" {_short_name(str(name))}" if name != "" else ""
    advice = _FILE_ADVICE.get(exc.errno or 0, "")
    if exc.errno == errno.EPERM:
        advice = _FILE_ADVICE[errno.EACCES]
    tail = f"; {advice}" if advice else ""
    return f"{tool}: {what}{where} (while {step}){tail}."


def _short_name(name: str) -> str:
    return repr(name if len(name) <= 120 else name[:60] + "…" + name[-40:])
