"""``AgentSession``: the one typed seam between the core and every front end.

The TUI (live, demo, welcome → demo, resume), headless ``run``/``demo`` and
``resume`` each hold an ``AgentSession`` and nothing else of the core. A front
end sends operations — ``send``, ``cancel_turn``, ``cancel_tool``, ``set_mode``,
``set_approval``, ``undo``, ``close`` — and receives the core's events through one
subscription (``subscribe``); what it shows about the session (id, workspace,
model, mode, what resuming reconciled…) is typed attributes, never the loop, the
store or the provider. Codex's core protocol is the model: typed ops in, typed
events out, no reaching into the agent's state. So renaming a loop attribute
breaks this module's type check, not a front end at run time.

``create_runtime`` (``runtime.py``) assembles one from a ``Config``; tests build
one around a scripted loop (anything with :class:`TurnLoop`'s shape).

The stored-session catalogue and the export read the store for the front ends
too (:func:`stored_sessions`, :meth:`AgentSession.export`), so no front end opens
a ``SessionStore`` or imports a command module.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from frontier.app.agent import attachments
from frontier.app.agent.approvals import Answer, AnswerOutcome, ApprovalDesk
from frontier.app.agent.attachments import Prepared, mark_seen, prepare, workspace_files
from frontier.app.agent.instructions import InstructionFile, ProjectInstructions
from frontier.app.agent.modes import Mode, get_mode
from frontier.app.agent.queue import MessageQueue, NotQueued, QueuedMessage
from frontier.app.agent.session_ops import (
    Cleared,
    CompactingLoop,
    HistoryLoop,
    ModelSwitched,
    ModelSwitcher,
    RequestingLoop,
    SessionDiff,
    clear_history,
    session_diff,
)
from frontier.app.agent.slash import Commands, load_commands
from frontier.app.agent.undo import UndoOutcome, run_undo
from frontier.app.events import Event, McpStarting, Notice, ToolResult, TurnEnded
from frontier.app.notices import with_notices
from frontier.app.secrets import Scrubber
from frontier.app.session.prompt_history import PromptHistory
from frontier.app.vocab import AGENT_MODES, APPROVALS, REASONING_EFFORTS
from frontier.tools.approval_rules import AllowedRule, ApprovalRules, Rule, rules_to_data
from frontier.tools.contract import Decision, ToolSpec
from frontier.tools.policy import PolicyApprover

if TYPE_CHECKING:
    import threading

    from frontier.app.agent.budget import ContextBudget
    from frontier.app.agent.context_report import ContextReport
    from frontier.app.agent.explain import Explanation
    from frontier.app.agent.history_events import HistoryRead
    from frontier.app.agent.rewind import RewindOutcome, RewindPoint
    from frontier.app.config import Config
    from frontier.app.model.conversation import Image
    from frontier.app.session.store import LogRecord, SessionInfo, SessionStore
    from frontier.tools.after_edit import AfterEditChecks, CheckSettings
    from frontier.tools.base import CancelToken
    from frontier.tools.file_views import FileViews
    from frontier.tools.formatting import Formatters
    from frontier.tools.jobs import Jobs, JobSummary, JobTail
    from frontier.tools.mcp_servers import McpHost
    from frontier.tools.registry import Registry

Observer = Callable[[Event], None]
MAX_OBSERVER_FAILURES = 20
"""Failures of observers kept word for word; more are only counted."""
Closer = Callable[[], Awaitable[None] | None]
RulesSaver = Callable[[dict[str, list[str]]], object]
"""Writes the workspace's remembered "always allow" rules (``config.save_approvals``)."""
EditHooksLoader = Callable[[list[str]], "tuple[AfterEditChecks | None, Formatters | None]"]
"""Makes the session's checks and formatters again (notes: what the person should hear)."""
ExportFormat = Literal["markdown", "jsonl"]


class SessionBusy(RuntimeError):
    """An operation that must wait for the turn to end (switching mode) came during one."""


class TurnLoop(Protocol):
    """What the façade drives: ``AgentLoop``, or a test's scripted loop."""

    @property
    def carried(self) -> Sequence[object]:
        """Results reconciled on resume that the model has not seen yet."""
        ...

    @property
    def frontier(self) -> int: ...
    def pending_bound(self) -> int: ...
    async def send(self, text: str, images: tuple[Image, ...] = ()) -> TurnEnded: ...
    def cancel_turn(self) -> None: ...
    async def stop_turn(self) -> None: ...
    def cancel_tool(self) -> bool: ...
    def set_mode(self, mode: Mode) -> None: ...

    @property
    def mode(self) -> Mode:
        """The protocol mode of the next model request."""
        ...

    @property
    def mode_pending(self) -> bool:
        """``--protocol auto`` waits for the server's answer before the first request."""
        ...

    effort: str | None
    """``/effort``'s choice for the next requests (``None``: the client's setting)."""

    @property
    def default_effort(self) -> str | None:
        """The client's setting (``--reasoning-effort``; ``None``: the model's own)."""
        ...


class EventHub:
    """The one event subscription: the loop and the tool boundary emit into it, and
    every observer gets every event, in the order they subscribed.

    Created before the loop (which needs somewhere to emit), then owned by the
    session; an observer is called synchronously, so it must be cheap (the TUI's
    only updates buffers; painting happens on its own timer)."""

    def __init__(self) -> None:
        self._observers: list[Observer] = []
        self.failures: list[str] = []
        """What observers raised (the first :data:`MAX_OBSERVER_FAILURES`), said by the
        front end: ``AgentSession.observer_failures``."""
        self.failed = 0
        """How many times an observer raised."""

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Add ``observer``; the returned function removes it again."""
        self._observers.append(observer)

        def unsubscribe() -> None:
            if observer in self._observers:
                self._observers.remove(observer)

        return unsubscribe

    def emit(self, event: Event) -> None:
        """Every observer gets ``event``; one that raises never reaches the emitter.

        The emitter is a tool streaming its output or the boundary committing a result:
        a front end's exception there became the call's result ("internal error while
        running shell") for a command that had run, and the tool's output reader died
        with it, so a command printing more than a pipe holds stalled until its timeout.
        The failure is kept for the front end to say; the other observers still get the
        event."""
        for observer in tuple(self._observers):
            try:
                observer(event)
            except Exception as exc:
                self.failed += 1
                if len(self.failures) < MAX_OBSERVER_FAILURES:
                    kind = type(event).__name__
                    self.failures.append(f"{type(exc).__name__}: {exc} (showing {kind})")


class AgentSession:
    """One agent session as a front end sees it: operations in, events out, typed facts.

    Facts fixed at creation are plain attributes; ``mode``, ``approval``,
    ``frontier``, ``carried``, ``busy`` and ``closed`` change as the session runs.
    """

    modes: tuple[str, ...] = AGENT_MODES
    """The protocol modes ``set_mode`` accepts (DESIGN §4)."""
    approvals: tuple[str, ...] = APPROVALS
    """The approval policies ``set_approval`` accepts (DESIGN §5)."""

    def __init__(
        self,
        loop: TurnLoop,
        events: EventHub,
        *,
        session_id: str,
        workspace: Path,
        model: str,
        wire: str = "openai-chat",
        resumed: bool = False,
        notes: Iterable[str] = (),
        recovered: Iterable[ToolResult] = (),
        recovery_notes: Iterable[str] = (),
        last_failure: str | None = None,
        instructions: Iterable[InstructionFile] = (),
        reload_instructions: Callable[[], ProjectInstructions] | None = None,
        demo_prompts: Iterable[str] = (),
        patch_dialect: str = "unified",
        registry: Registry | None = None,
        policy: PolicyApprover | None = None,
        store: SessionStore | None = None,
        scrubber: Scrubber | None = None,
        closers: Sequence[Closer] = (),
        rules_saver: RulesSaver | None = None,
        context_window: int | None = None,
        budget: ContextBudget | None = None,
        prompt_history: PromptHistory | None = None,
        queue: MessageQueue | None = None,
        notices: Iterable[str] = (),
        sandbox_label: str = "off",
        sandbox_active: bool = False,
        approvals: ApprovalDesk | None = None,
        mcp: McpHost | None = None,
        jobs: Jobs | None = None,
        views: FileViews | None = None,
        after_edit: AfterEditChecks | None = None,
        formatters: Formatters | None = None,
    ) -> None:
        """``queue``: the messages typed during a turn, shared with the loop (its
        ``inbox``); without one a queued message waits for the next ``send``.
        ``notices``: what the next message tells the model first (an undo it has not
        heard of, made with ``frontier undo`` or before the last run stopped).
        ``views``: what the model has seen of each file (the tool boundary's), which a
        file sent whole with a message (``@path``) joins."""
        self._loop = loop
        self._views = views
        self._events = events
        self.session_id = session_id
        self.workspace = workspace
        """Where the tools run (for a resumed session: where its project lives now)."""
        self.model = model
        self.wire = wire
        """The model API the session speaks (``--wire``)."""
        self.resumed = resumed
        """A stored session continued (``frontier resume``, the picker), not a new one."""
        self.notes: list[str] = list(notes)
        """What setting up changed that the user should hear about (a moved workspace...)."""
        self.recovered: list[ToolResult] = list(recovered)
        """Calls reconciled on resume (they were in flight when the last run stopped)."""
        self.recovery_notes: tuple[str, ...] = tuple(recovery_notes)
        """What recovery did that no reconciled result reports (a refused journal row):
        also in ``notes``; kept apart for commands that print only these (``undo``)."""
        self.last_failure = last_failure
        """A resumed session whose last turn the server's error ended: that error (its
        history shows it in place: ``history_events``; a front end that shows no history
        says it with the notes)."""
        self.instructions: tuple[InstructionFile, ...] = tuple(instructions)
        self._reload_instructions = reload_instructions
        """Reads the project's instruction files again into the system prompt
        (``create_runtime``'s; ``None``: a session not built there)."""
        """The project's instruction files found at start (or resume), outermost first,
        each saying whether the system prompt carries it whole, capped, or not; ``notes``
        lists them too (``InstructionFile.note``), so every front end shows them."""
        self.demo_prompts: list[str] = list(demo_prompts)
        """What the front end sends by itself (the demo's scripted task), in order."""
        self.patch_dialect = patch_dialect
        """The patch dialect apply_patch teaches (``config.patch_format`` resolved)."""
        self._registry = registry
        self.mcp = mcp
        """The session's MCP servers (``None``: none configured, issue 26): ``/mcp``."""
        self._context_window = context_window
        self._budget = budget
        self._rules_saver = rules_saver
        self._policy = policy
        self._store = store
        self._scrubber = scrubber if scrubber is not None else Scrubber()
        self._closers: list[Closer] = list(closers)
        self._closed = False
        self._busy = False
        self.prompt_history = (
            prompt_history if prompt_history is not None else PromptHistory(scrubber=self._scrubber)
        )
        """What the user typed in this workspace (↑/↓, ctrl+r), scrubbed; the front end adds."""
        self._queue = queue if queue is not None else MessageQueue(workspace)
        self._notices: list[str] = list(notices)
        self._commands_run = 0
        """``!COMMAND``s the person ran in this session (their rows are ``!1``, ``!2``…)."""
        self._command_cancel: CancelToken | None = None
        """Stops the person's command that runs now (Esc, ctrl+c)."""
        self.sandbox_label: str = sandbox_label
        """Where ``shell`` and ``python`` run, in the status bar's words (issue 22):
        ``workspace-write · net off``, ``read-only · net on``, ``off`` or
        ``unavailable: <reason>`` (then every command is asked first)."""
        self.sandbox_active: bool = sandbox_active
        """Commands run inside the OS sandbox (``sandbox_label`` says which)."""
        self._approvals = approvals
        self._jobs = jobs
        self.settings: Config | None = None
        """The settings the session's model client was made from (``create_runtime``'s, then
        each ``/model`` switch's): the endpoint it speaks to now, for ``/doctor`` and the
        next switch."""
        self._after_edit = after_edit
        self._formatters = formatters
        self.edit_hooks_loader: EditHooksLoader | None = None
        """Makes the after-edit checks and formatters again from the settings and gives
        them to the tool boundary (``create_runtime``'s): ``reload_checks`` after the
        person trusted a project's checks."""

    # ------------------------------------------------------------------ facts that change
    @property
    def checks(self) -> tuple[CheckSettings, ...]:
        """The after-edit checks for this workspace (config.toml's ``[checks.NAME]`` and the
        project's trusted ones, ``tools/after_edit.py``): ``/status`` and ``/checks`` list
        them."""
        return () if self._after_edit is None else tuple(self._after_edit.checks)

    @property
    def formatters(self) -> tuple[CheckSettings, ...]:
        """The formatters for this workspace (config.toml's ``[formatters.NAME]``, the project's,
        ``tools/formatting.py``), run before each review: ``/status`` and ``/checks`` list
        them."""
        return () if self._formatters is None else tuple(self._formatters.formatters)

    @property
    def checks_paused(self) -> bool:
        """``/checks off`` is in force (checks and formatters run on no call)."""
        hooks = [h for h in (self._after_edit, self._formatters) if h is not None]
        return bool(hooks) and all(h.paused for h in hooks)

    def pause_checks(self, paused: bool) -> bool:
        """``/checks off`` / ``on``: calls run no check and no formatter, or run them again,
        from the next call on (one running now finishes). False: this session has none."""
        hooks = [h for h in (self._after_edit, self._formatters) if h is not None]
        for hook in hooks:
            hook.paused = paused
        return bool(hooks)

    def reload_checks(self, notes: list[str]) -> bool:
        """Take config.toml's and the project's trusted checks and formatters afresh
        (``/checks trust``): each call that ends from now runs them (one being formatted
        now keeps the formatters it had). A ``/checks off`` stays in force. False: this
        session cannot."""
        if self.edit_hooks_loader is None:
            return False
        paused = self.checks_paused
        self._after_edit, self._formatters = self.edit_hooks_loader(notes)
        self.pause_checks(paused)
        return True

    @property
    def scrubber(self) -> Scrubber:
        """The session's secrets (API key, URL credentials, secret-looking env values):
        a front end scrubs what it shows with it (the TUI's ``UiState``)."""
        return self._scrubber

    @property
    def store_path(self) -> Path | None:
        """The database the session is stored in (``None``: not stored)."""
        return self._store.path if self._store is not None else None

    @property
    def tools(self) -> tuple[ToolSpec, ...]:
        """The tools the next request offers, as it is taught them: read from the registry
        each time, since an MCP server's tools join it when the server has started."""
        return tuple(self._registry.offered()) if self._registry is not None else ()

    @property
    def mode(self) -> str:
        """The protocol mode of the next model request: ``auto`` until the server has said
        (before the first request) which one ``--protocol auto`` uses. The mode assumed
        until then was shown as the session's, and the first response came in another."""
        return "auto" if self._loop.mode_pending else self._loop.mode.name

    @property
    def context_window(self) -> int | None:
        """The model's context window in tokens once known (the setting, the demo's, the
        server's answer or the default, settled before the first request; the server's
        own overflow error corrects it), else ``None``: the status bar then shows no
        share of it rather than a guess."""
        if self._budget is not None and self._budget.window:
            return self._budget.window
        return self._context_window

    @property
    def context_assumed(self) -> bool:
        """The window is only the default: neither the settings, the server nor the model
        catalogue said (the front ends say so, with how to set it)."""
        return self._budget is not None and self._budget.assumed

    def running_jobs(self) -> list[JobSummary]:
        """The background jobs still running (``shell`` with ``background: true``), oldest
        first: the status bar counts them, ``/jobs`` lists them."""
        return self._jobs.summaries() if self._jobs is not None else []

    def job_tail(self, job_id: str, lines: int = 40) -> JobTail | None:
        """A background job's last ``lines`` lines of output and its state, for the person
        (``/jobs show``), running or ended, scrubbed of secrets (a server printing its
        environment); ``None``: the session started no such job."""
        job = self._jobs.get(job_id) if self._jobs is not None else None
        if job is None:
            return None
        from frontier.tools.jobs import JobTail

        tail, scrub = job.tail(lines), self._scrubber.scrub
        shown = tuple(scrub(line) for line in tail.lines)
        return JobTail(tail.id, scrub(tail.command), tail.state, shown)

    async def stop_job(self, job_id: str) -> bool:
        """Stop a background job for the person (``/jobs stop``); False: no such job
        running. The model hears it at its next read of the job."""
        job = self._jobs.get(job_id) if self._jobs is not None else None
        if job is None or not job.running:
            return False
        await job.stop(by="the person")
        return True

    @property
    def effort(self) -> str:
        """How hard the model is asked to think from the next request
        (``vocab.REASONING_EFFORTS``): ``/effort``'s choice, else the setting's."""
        chosen = self._loop.effort
        return chosen if chosen is not None else (self._loop.default_effort or "auto")

    def set_effort(self, level: str) -> None:
        """Ask the model for ``level`` from the next request on (``auto``: its own);
        ``ValueError`` for another word. Never mid-response: the request is built whole."""
        if level not in REASONING_EFFORTS:
            raise ValueError(
                f"unknown reasoning effort {level!r}; choose {', '.join(REASONING_EFFORTS)}"
            )
        self._loop.effort = level

    @property
    def approval(self) -> str:
        """The approval policy the tool gate applies (``ask`` when there is no gate)."""
        return self._policy.policy if self._policy is not None else "ask"

    @property
    def frontier(self) -> int:
        """The confirmed byte offset of the response streaming now (0 between responses)."""
        return int(self._loop.frontier)

    def pending_bound(self) -> int:
        """DESIGN §3's bound on the pending bytes that applies right now."""
        return int(self._loop.pending_bound())

    @property
    def carried(self) -> int:
        """How many results the model has not seen yet: they go with the next message."""
        return len(self._loop.carried)

    @property
    def notices(self) -> tuple[str, ...]:
        """What the next message tells the model first (an undo the user made)."""
        return tuple(self._notices)

    @property
    def busy(self) -> bool:
        """A turn is running (``send`` has not returned)."""
        return self._busy

    @property
    def closed(self) -> bool:
        return self._closed

    # ------------------------------------------------------------------ events
    @property
    def observer_failures(self) -> tuple[int, tuple[str, ...]]:
        """How many times an observer (a front end's display) raised on an event, and
        the first of those failures' words: the session went on (``EventHub.emit``).
        Cheap enough for every flush of the TUI (none: ``(0, ())``)."""
        return self._events.failed, tuple(self._events.failures)

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Receive every event of this session from now on; returns the unsubscribe.

        The first subscription made on an event loop also routes the MCP servers' later
        notes (a server that stopped by itself), told on their own thread, to this loop
        as ``Notice`` events, and which are still starting as ``McpStarting``: every
        observer is called on the loop that subscribed."""
        self._route_mcp()
        return self._events.subscribe(observer)

    def _route_mcp(self) -> None:
        host = self.mcp
        if host is None or host.on_note is not None:
            return
        from frontier.app.loop_hop import to_loop

        emit = self._events.emit
        try:
            host.on_note = to_loop(lambda text: emit(Notice(text)))
        except RuntimeError:  # subscribed off a loop (a test, a script): /mcp still lists them
            return
        # which servers are still starting is read when the word reaches the loop, so the
        # last word is the truth however the thread's calls and this first one interleave
        told = to_loop(lambda _: emit(McpStarting(host.starting())))
        host.on_change = lambda: told(None)
        if host.starting():
            told(None)  # after this subscription: the observer is added first

    # ------------------------------------------------------------------ operations
    async def send(self, text: str, images: tuple[Image, ...] = ()) -> TurnEnded:
        """Run one user turn to its end; the returned event says why it ended.
        ``images``: attached to the message (``attach`` finds them in ``@`` mentions).

        Messages still queued from a turn that ended before they could go (it was
        cancelled, failed, or ran out of requests) were typed first, so they open this
        turn's message (``QueuedDelivered`` says so); ``text`` may then be empty.
        """
        earlier = self._queue.take()
        if earlier is not None:
            self._events.emit(earlier.event)
            text = f"{earlier.content}\n\n{text}" if text else earlier.content
            images = earlier.images + images
        text, self._notices = with_notices(self._notices, text), []
        self._busy = True
        try:
            return await self._loop.send(text, images)
        finally:
            self._busy = False

    async def undo(self, call: str | None = None) -> UndoOutcome:
        """Put back the files of call ``call`` (its id, e.g. ``c4``), or of the newest file
        change still in effect — only if every file still has the content that call left;
        otherwise nothing is written and the outcome names the file (``app/agent/undo.py``).

        The undo is a call of its own (``u1``…): reviewed by the person whatever the
        approval policy, recorded, written atomically, undoable. When it changes files the
        model is told with the next message (:attr:`notices`). Raises :class:`SessionBusy`
        during a turn (the model's calls could be writing the same files)."""
        if self._busy:
            raise SessionBusy("wait for the turn to end (or stop it) before undoing")
        if self._closed:
            raise ValueError(f"session {self.session_id} is closed")
        if self._store is None:
            raise ValueError(f"session {self.session_id} is not stored: nothing to undo")
        self._busy = True
        try:
            ask = self._policy.person if self._policy is not None else None
            outcome = await run_undo(
                self._store, self.session_id, self.workspace, ask, self._events.emit, call
            )
        finally:
            self._busy = False
        if outcome.notice is not None:
            self._notices.append(outcome.notice)
        return outcome

    async def run_command(self, command: str) -> ToolResult:
        """``!COMMAND``: run the person's own command in the workspace, outside the
        sandbox, its output shown live (``ToolStarted``/``ToolOutput``/``ToolFinished``
        for ``!N``) and told to the model with the next message (:attr:`notices`);
        ``app/agent/person_command.py``. Raises :class:`SessionBusy` during a turn."""
        from frontier.app.agent.person_command import notice_for, run_person_command
        from frontier.tools.base import CancelToken

        if self._busy:
            raise SessionBusy("wait for the turn to end (or stop it) before running a command")
        if self._closed:
            raise ValueError(f"session {self.session_id} is closed")
        self._busy = True
        self._commands_run += 1
        cancel = self._command_cancel = CancelToken()
        try:
            result = await run_person_command(
                command, f"!{self._commands_run}", str(self.workspace), self._events.emit, cancel
            )
        finally:
            self._busy = False
            self._command_cancel = None
        self._notices.append(notice_for(command, result))
        return result

    def reload_instructions(self) -> ProjectInstructions | None:
        """Read the project's instruction files again (``/memory`` after the person
        edited one): the next request's system prompt carries them. ``None`` when this
        session cannot (it reads them when it starts)."""
        if self._reload_instructions is None:
            return None
        project = self._reload_instructions()
        self.instructions = project.files
        return project

    # ------------------------------------------------------------------ the queue
    def queue(self, text: str) -> QueuedMessage:
        """Hold ``text`` for the next model request of the running turn — after the
        results of the tool round in progress, before the model is asked again; or, when
        the model answers without a call, as the next request of the same turn (the turn
        goes on instead of ending). With no turn running it waits for the next ``send``.
        """
        if not text.strip():
            raise ValueError("an empty message cannot be queued")
        if self._closed:
            raise ValueError(f"session {self.session_id} is closed")
        return self._queue.add(text)

    def queued(self) -> tuple[QueuedMessage, ...]:
        """What waits for the next request, oldest first."""
        return self._queue.items()

    def edit_queued(self, message_id: int, text: str) -> QueuedMessage:
        """Replace a queued message's text (it keeps its place in the queue); raises
        :class:`NotQueued` when it was delivered meanwhile."""
        if not text.strip():
            raise ValueError("a queued message cannot be empty: remove it instead")
        return self._queue.edit(message_id, text)

    def remove_queued(self, message_id: int) -> QueuedMessage:
        """Take a message out of the queue unsent; raises :class:`NotQueued` when it was
        delivered meanwhile."""
        return self._queue.remove(message_id)

    # ------------------------------------------------------------------ @path
    def attach(self, text: str) -> Prepared:
        """``text`` with the workspace files it mentions as ``@path`` attached (capped;
        ``app/agent/attachments.py``). Reads the files: a front end calls it off its loop.
        A file sent whole counts as read by the model (``tools/file_views.py``): it may
        then be written whole, as after a ``read``."""
        return mark_seen(prepare(self.workspace, text), self._views)

    def workspace_files(self, under: str = ".") -> tuple[list[str], bool]:
        """The paths ``@`` completion offers (``.gitignore``-aware, beneath the root), and
        whether they are all of them (else the listing was cut at ``COMPLETION_MAX``: a
        front end may ask again ``under`` the folder typed). Walks the tree: a front end
        calls it off its event loop."""
        paths = workspace_files(self.workspace, under=under)
        return paths, len(paths) < attachments.COMPLETION_MAX

    def search_files(self, query: str, stop: threading.Event) -> tuple[list[str], bool]:
        """The paths of the whole workspace holding ``query``'s characters in order, and
        whether that is all of them (``attachments.search_files``): ``@`` completion's way
        past a cut listing. Walks the tree: a front end calls it off its event loop, and
        sets ``stop`` when the answer is no longer wanted."""
        return attachments.search_files(self.workspace, query, stop)

    def cancel_turn(self) -> None:
        """Stop the running turn (its calls are cancelled; the session reads interrupted),
        or the person's command that runs instead (:meth:`run_command`)."""
        if self._command_cancel is not None:
            self._command_cancel.cancel()
            return
        self._loop.cancel_turn()

    def cancel_tool(self) -> bool:
        """Kill the running shell/python tool (recorded ``cancelled``, exit 130), or the
        person's command; False when nothing was running."""
        if self._command_cancel is not None:
            self._command_cancel.cancel()
            return True
        return self._loop.cancel_tool()

    def set_mode(self, name: str) -> None:
        """Use protocol mode ``name`` from the next model request on, and store it on the
        session's row (as ``/model`` stores the model): ``frontier -c`` continues in it.

        Raises ``ValueError`` for an unknown mode or a store that could not record it (the
        mode is then unchanged) and :class:`SessionBusy` during a turn: a mode switched
        mid-turn would change framing between two responses the model thinks are one
        conversation step.
        """
        mode = get_mode(name)
        if self._busy:
            raise SessionBusy("wait for the turn to end before switching mode")
        if self._store is not None:
            from frontier.app.session.db import StoreError

            try:
                self._store.set_mode(self.session_id, mode.name)
            except StoreError as exc:
                raise ValueError(f"the mode is unchanged: {exc}") from exc
        self._loop.set_mode(mode)

    def set_approval(self, policy: str) -> None:
        """Gate the next calls with ``policy`` (``ask``, ``auto-edit``, ``auto``,
        ``read-only``); a call already waiting for review keeps its review."""
        if policy not in APPROVALS:
            raise ValueError(f"unknown approval policy {policy!r}; choose {', '.join(APPROVALS)}")
        if self._policy is None:
            raise ValueError("this session has no approval gate to change")
        self._policy.policy = policy

    # ------------------------------------------------------------------ always allow
    @property
    def approval_rules(self) -> tuple[AllowedRule, ...]:
        """The "always allow" rules in force, each saying whether it is remembered for
        the workspace (else it ends with the session)."""
        rules = self._rules()
        return tuple(rules) if rules is not None else ()

    @property
    def can_allow_always(self) -> bool:
        """Rules can be made here (the session has a gate that keeps them)."""
        return self._rules() is not None

    def allow_always(self, rule: Rule, *, remember: bool = False) -> AllowedRule:
        """Approve calls matching ``rule`` from now on without asking (``ask`` and
        ``auto-edit``; never under ``read-only``); ``remember`` also saves it for the
        workspace. Raises ``RuleError`` (a ``ValueError``) for a rule that would reach
        outside the workspace; a failed save raises ``OSError`` / ``ConfigError`` with
        the rule still in force for this session."""
        rules = self._rules()
        if rules is None:
            raise ValueError("this session has no approval gate to remember a rule in")
        kept = rules.add(rule, remember=remember)
        if remember:
            self._save_rules(rules)
        return AllowedRule(kept, kept in rules.remembered())

    # ------------------------------------------------------------------ approvals
    @property
    def interactive(self) -> bool:
        """A person answers this session's ``ApprovalRequested`` events (set when it was
        made; without one, what needs a person is refused and says how to allow it)."""
        return self._approvals is not None and self._approvals.interactive

    @property
    def waiting_approvals(self) -> tuple[str, ...]:
        """The ``request_id`` of every question still waiting for ``answer``."""
        return self._approvals.waiting if self._approvals is not None else ()

    def answer(self, request_id: str, answer: Answer | Decision) -> AnswerOutcome:
        """Answer the question ``request_id`` (an ``ApprovalRequested`` event): approve or
        deny (``Decision``), with the hunks declined, and with an approval optionally an
        "always allow" rule (``Answer.always``; ``remember`` saves it for the workspace).

        The rule is made first, so the call that made it is recorded as approved by the
        person and the next matching call is not asked; a rule that cannot be made or
        saved leaves the decision standing and says why (``AnswerOutcome.problem``)."""
        if isinstance(answer, Decision):
            answer = Answer(answer)
        desk = self._approvals
        if desk is None or desk.call_of(request_id) is None:
            return AnswerOutcome(False)
        allowed: AllowedRule | None = None
        problem: str | None = None
        if answer.always is not None and answer.decision.approved:
            try:
                allowed = self.allow_always(answer.always, remember=answer.remember)
            except ValueError as exc:  # RuleError, ConfigError: nothing outside the workspace
                problem = f"cannot always allow that: {exc}"
            except OSError as exc:
                problem = f"allowed for this session only: saving failed ({exc})"
        return AnswerOutcome(desk.answer(request_id, answer), allowed, problem)

    def revoke_rule(self, rule: Rule) -> bool:
        """Stop allowing ``rule`` (and forget it for the workspace if it was remembered);
        False when it was not in force."""
        rules = self._rules()
        if rules is None:
            return False
        remembered = rule in rules.remembered()
        removed = rules.remove(rule)
        if removed and remembered:
            self._save_rules(rules)
        return removed

    def _rules(self) -> ApprovalRules | None:
        return self._policy.rules if self._policy is not None else None

    def _save_rules(self, rules: ApprovalRules) -> None:
        if self._rules_saver is not None:
            self._rules_saver(rules_to_data(rules.remembered()))

    # ------------------------------------------------------------------ the record
    def history(self) -> list[LogRecord]:
        """A resumed session's timeline so far (after reconciling), for a front end to
        show; empty for a new session (nothing happened before it)."""
        if not self.resumed or self._store is None:
            return []
        return self._store.records(self.session_id)

    async def export(self, fmt: ExportFormat = "markdown") -> str:
        """The session as ``frontier export`` writes it (Markdown or jsonl), scrubbed with
        every secret this session knows.

        Read off the event loop through a read-only connection of its own, so an
        export during a turn neither waits for nor interleaves with the loop's writes.
        """
        if self._store is None:
            raise ValueError(f"session {self.session_id} is not stored, so it cannot be exported")
        path = self._store.path
        return await asyncio.to_thread(_export_text, path, self.session_id, fmt, self._scrubber)

    async def explain(self, request_index: int) -> list[Explanation]:
        """The contract errors of response ``request_index`` of this session, explained
        (the framing-error inspector: bytes, frame, feedback, next attempt), read off the
        event loop through a read-only connection, as ``export`` reads."""
        if self._store is None:
            raise ValueError(f"session {self.session_id} is not stored: nothing to explain")
        from frontier.app.agent.explain import explain_stored

        path = self._store.path
        return await asyncio.to_thread(explain_stored, self.session_id, request_index, path)

    # ------------------------------------------------------------------ slash commands
    # (issue 23; the work is in ``session_ops.py``, the vocabulary in ``slash.py``)
    model_switcher: ModelSwitcher | None = None
    """Switches the model (``create_runtime`` sets it; ``None``: this session cannot)."""
    provider: str | None = None
    """The named provider the model is reached through (``--provider``, ``/model``)."""
    model_lister: Callable[[], Awaitable[tuple[str, ...]]] | None = None
    """What the endpoint's ``/models`` lists (``create_runtime`` sets it; ``None``: the
    demo's scripted model, which lists nothing)."""

    async def served_models(self) -> tuple[str, ...]:
        """The models the endpoint serves, for ``/model``: on a local server (Ollama, LM
        Studio) the names it can switch to, which the catalogue does not know."""
        return () if self.model_lister is None else await self.model_lister()

    async def switch_model(self, model: str, provider: str | None = None) -> ModelSwitched:
        """Use ``model`` (through ``provider``'s endpoint, when named) from the next
        request on; recorded in the session, so ``frontier resume`` continues with it. The
        conversation is typed, so any wire continues it. Raises :class:`SessionBusy`
        during a turn and ``ValueError`` (``ConfigError``) with the reason otherwise,
        having changed nothing."""
        if self._busy:
            raise SessionBusy("wait for the turn to end (or stop it) before switching model")
        if self._closed:
            raise ValueError(f"session {self.session_id} is closed")
        if self.model_switcher is None:
            raise ValueError("this session's model cannot be switched (the demo's is scripted)")
        if not model.strip():
            raise ValueError("name the model: /model NAME [--provider P]")
        self._busy = True
        try:
            switched = await self.model_switcher(model.strip(), provider)
        finally:
            self._busy = False
        self.model, self.wire = switched.model, switched.wire
        self.provider = switched.provider
        if switched.settings is not None:
            self.settings = switched.settings
        if switched.budget is not None:
            self._budget = switched.budget
        if switched.closer is not None:
            self._closers.insert(0, switched.closer)
        return switched

    def known_models(self) -> tuple[str, ...]:
        """The model catalogue's entries (``app/model/catalogue.py``), for ``/model``."""
        from frontier.app.model.catalogue import entries

        return tuple(info.id for info in entries() if not info.family)

    async def rewind_points(self) -> list[RewindPoint]:
        """The person's messages the model still has, oldest first, each with the files a
        rewind to before it would put back and the commands run since (``/rewind``; reads
        the store off the event loop)."""
        if self._store is None:
            return []
        from frontier.app.agent.rewind import rewind_points

        store = self._store
        return await asyncio.to_thread(rewind_points, store, self.session_id)

    async def rewind(
        self, number: int, *, files: bool = True, conversation: bool = True
    ) -> RewindOutcome:
        """``/rewind``: back to before the person's message ``number`` — the files the
        calls since changed put back (one reviewed, undoable undo call) and/or the model
        given the conversation before it (``app/agent/rewind.py``). The outcome carries the
        message's text to send again. Raises :class:`SessionBusy` during a turn."""
        if self._busy:
            raise SessionBusy("wait for the turn to end (or stop it) before rewinding")
        if self._closed:
            raise ValueError(f"session {self.session_id} is closed")
        if self._store is None:
            raise ValueError(f"session {self.session_id} is not stored: nothing to rewind")
        loop = self._loop
        if conversation and not isinstance(loop, HistoryLoop):
            raise ValueError("this session's loop keeps no history to rewind")
        from frontier.app.agent.rewind import run_rewind

        self._busy = True
        try:
            ask = self._policy.person if self._policy is not None else None
            outcome = await run_rewind(
                self._store,
                self.session_id,
                self.workspace,
                ask,
                self._events.emit,
                number,
                files=files,
                conversation=conversation,
                replace_history=loop.replace_history if isinstance(loop, HistoryLoop) else None,
                jobs=[(job.id, job.command) for job in self.running_jobs()],
            )
        finally:
            self._busy = False
        for note in (outcome.notice, outcome.jobs_notice):
            if note is not None:
                self._notices.append(note)
        return outcome

    def clear_context(self) -> Cleared:
        """``/clear``: the model gets an empty conversation from the next request on; the
        session, its record, its undo history and its queue stay (stored as a compaction,
        so a resumed session agrees). Raises :class:`SessionBusy` during a turn."""
        if self._busy:
            raise SessionBusy("wait for the turn to end (or stop it) before clearing the context")
        return clear_history(self._loop, self._store, self.session_id)

    async def compact(self) -> bool:
        """``/compact``: stub old results and summarise older rounds now, whatever the
        threshold (``Compactor.compact_now``; announced with ``Compacted``). False when
        there was nothing to compact. Raises :class:`SessionBusy` during a turn."""
        if self._busy:
            raise SessionBusy("wait for the turn to end (or stop it) before compacting")
        loop = self._loop
        if not isinstance(loop, CompactingLoop):
            raise ValueError("this session has no context budget to compact with")
        self._busy = True
        try:
            return await loop.compact_now()
        finally:
            self._busy = False

    def context_report(self) -> ContextReport:
        """``/context``: what the next request holds, part by part, in the budget's
        figures (``context_report.py``). Raises ``ValueError`` for a loop that builds no
        request (a test's scripted one)."""
        from frontier.app.agent.context_report import context_report

        loop = self._loop
        if not isinstance(loop, RequestingLoop):
            raise ValueError("this session cannot say what its next request holds")
        files = [f.path for f in self.instructions if f.in_prompt]
        return context_report(
            loop.request(), self.tools, loop.instructions, self._budget, files=files
        )

    async def diff(self) -> SessionDiff:
        """``/diff``: every file this session changed, from before its first change to
        now, as one diff (``session_ops.session_diff``); read off the event loop."""
        if self._store is None:
            raise ValueError(f"session {self.session_id} is not stored: no changes recorded")
        store = self._store
        return await asyncio.to_thread(session_diff, store, self.session_id, self.workspace)

    def slash_commands(self) -> Commands:
        """The built-in slash commands and this workspace's and user's custom ones
        (``slash.load_commands``). Reads files: a front end calls it off its loop."""
        from frontier.app.config import config_dir

        return load_commands(self.workspace, config_dir())

    # ------------------------------------------------------------------ closing
    async def close(self) -> None:
        """Close the provider, the store and the session lock — every one of them even
        when an earlier one fails (the store's last flush on a full disk); then raise
        the first failure, so the caller reports it instead of a traceback at exit.
        Closing twice does nothing. A turn still running is stopped first, and its
        commands' results committed (``AgentLoop.stop_turn``)."""
        self._closed = True
        await self._loop.stop_turn()
        failures: list[Exception] = []
        closers, self._closers = self._closers, []
        for closer in closers:
            try:
                result = closer()
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:
                failures.append(exc)
        if failures:
            raise failures[0]

    aclose = close
    """For ``contextlib.aclosing(session)``."""

    def history_events(self, keep: int | None = None) -> list[Event]:
        """A resumed session's timeline so far as the events it emitted live
        (``history_events.history_events``): a front end shows it through the same path
        as a live turn. Empty for a new session.

        ``keep``: the front end shows only its newest ``keep`` entries (the TUI's
        Transcript), so only the timeline's tail that makes them is read and decoded
        (``history_events.history_tail``), a page at a time from the end: 0.20-0.39 s at
        4,000 calls became ~0.02 s."""
        from frontier.app.agent.history_events import read_tail

        store = self._store
        if store is None or not self.resumed:
            return []
        return read_tail(store, self.session_id, keep).events

    def history_since(self, read: HistoryRead) -> list[Event]:
        """The events of the rows this session wrote after ``read`` was taken of its
        store (a front end showed that before the session was built: this resume's
        reconciled results are then the rest)."""
        from frontier.app.agent.history_events import events_since

        store = self._store
        if store is None or not self.resumed:
            return []
        return events_since(store, self.session_id, read)


def _export_text(path: Path, session_id: str, fmt: ExportFormat, scrubber: Scrubber) -> str:
    from frontier.app.session.export import read_session, to_jsonl, to_markdown
    from frontier.app.session.store import SessionStore

    with SessionStore.open_readonly(path) as store:
        info, found = read_session(store.db, session_id)
    records = [scrubber.scrub_obj(r) for r in found]
    if fmt == "jsonl":
        return to_jsonl(records)
    return to_markdown(scrubber.scrub_obj(info), records)


def stored_sessions() -> list[SessionInfo]:
    """Every stored session, newest first (the picker's list; ``[]`` before the first).

    Read-only, like ``frontier sessions``: listing never creates, migrates or locks
    anything. It blocks on the disk, so a front end calls it off its event loop.
    """
    from frontier.app.session.store import SessionStore, existing_store

    path = existing_store()
    if path is None:
        return []
    with SessionStore.open_readonly(path) as store:
        return store.list_sessions()


def stored_history(session_id: str, keep: int | None) -> HistoryRead | None:
    """``session_id``'s history as the person's store holds it, read-only (``None``: no
    store yet), the tail that makes a front end's newest ``keep`` entries: a front end
    shows it before the session is built. The session is not locked or reconciled yet:
    a call left running reads as stored, and :meth:`AgentSession.history_since` gives
    what the build then wrote."""
    from frontier.app.agent.history_events import read_tail
    from frontier.app.session.store import SessionStore, existing_store

    path = existing_store()
    if path is None:
        return None
    with SessionStore.open_readonly(path) as store:
        return read_tail(store, session_id, keep)


__all__ = [
    "AgentSession",
    "EventHub",
    "ExportFormat",
    "NotQueued",
    "QueuedMessage",
    "SessionBusy",
    "TurnLoop",
    "stored_history",
    "stored_sessions",
]
