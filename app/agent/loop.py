"""The turn state machine (DESIGN §2, §4, §6).

One user turn = model requests until the model answers without a call (done),
the repair budget runs out, ``max_turns`` is reached, or persistence fails.
Per response: the client's events (neutral deltas, whatever the wire) -> mode adapter
-> transducer events; a call runs the moment its CallReady arrives in eager modes (in
confirmation order, while the stream keeps being read) or after the stream in batch
modes; results go back as result frames (text modes) or native results.

The history is the typed conversation (``app/model/conversation.py``): the loop owns it
and every round is one stored commit. It stays valid for every wire: a reply that was
interrupted, failed or lost in a crash is kept as an assistant turn with its marker
(``cut``), and every call keeps exactly one result.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from frontier.app.agent.continuation import Prefill, open_stream
from frontier.app.agent.frames import exit_code_of, result_body
from frontier.app.agent.image_window import newest_images
from frontier.app.agent.modes import Mode, ModeAdapter
from frontier.app.agent.repair import (
    MAX_REPAIRS,
    TOKEN_LIMIT_HINT,
    Failure,
    call_as_text,
    call_in_reasoning,
    cut_words,
    refused_reply,
    repair_text,
    truncation,
)
from frontier.app.agent.repeats import Repeats, shape, twin
from frontier.app.agent.shown_images import has_tool_images, shown_images
from frontier.app.events import (
    AssistantText,
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    Notice,
    PromptRead,
    ReasoningText,
    RepairRequested,
    ResponseEnded,
    ResponseStarted,
    Retry,
    StreamBytes,
    StreamStopped,
    TokenUsage,
    ToolCall,
    ToolFinished,
    ToolResult,
    TurnEnded,
)
from frontier.app.model.client import Client
from frontier.app.model.conversation import (
    AssistantTurn,
    CallEntry,
    Image,
    Item,
    Reasoning,
    ResultEntry,
    ToolResults,
    UserText,
    failed_cut,
    failure_of,
    without_images,
)
from frontier.app.model.errors import ModelError
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd, WireEvent
from frontier.app.record import field, record
from frontier.app.vocab import is_clean
from frontier.tools.registry import Registry

if TYPE_CHECKING:
    from frontier.app.agent.compactor import Compactor
    from frontier.app.agent.queue import Delivery

MAX_CALLS = 64
"""The most calls one response may make (``max_calls``, ``--max-calls``,
``FRONTIER_MAX_CALLS``; ``Config.max_calls`` has the same default). A model can stream
thousands of calls in one reply and each one runs, costs an approval or a process and
fills the history: the first call past the limit gets a ``not_executed`` result saying
so and the loop stops reading the response there (issue 21, item 12)."""

SLICE_SECONDS = 0.004
"""How long the turn may read buffered stream events before it lets the event loop run.
After a stall, hundreds of SSE events wait in the socket buffer and reading them never
suspends: one burst held a TUI's keys for 35-75 ms at 1,000 tok/s. A yield per event
would tax every event; a yield per 4 ms costs nothing measurable (issue 23)."""
RESUMED_SECONDS = 0.001
"""A wait this long for the next event means the read suspended (the loop ran): the
turn's slice starts afresh there."""

ASKED_AGAIN = (1.0, 2.0, 4.0)
"""Seconds before each new request of a response the server ended with a passing error
and nothing else (:func:`passing_error`): three at most, then the turn ends as before."""
PASSING_ERRORS = (
    "overloaded",  # Anthropic's overloaded_error, "the server is overloaded"
    "server_error",  # OpenAI's and most gateways' in-stream 5xx
    "api_error",  # Anthropic's
    "internal server error",
    "internal error",
    "rate limit",
    "rate_limit",
    "temporarily unavailable",
    "try again",
)
"""Words of an in-stream error that a new request may mend (lower case)."""

SESSION_STATE = {"done": "done", "cancelled": "interrupted"}
"""What ``frontier sessions`` shows after a turn ends this way (any other reason: failed,
but see :meth:`AgentLoop._state_after`)."""

EMPTY_REPLY = "the model's reply was empty"
"""``TurnEnded("done")``'s message when the last reply held no text and no call (or only
reasoning): said, so a person does not wait for an answer that never came."""
STOP_WAIT = 10.0
"""Seconds closing a session waits for its running turn to stop (:meth:`AgentLoop.stop_turn`):
a command is killed within ``tools.process.KILL_GRACE`` and drained within
``DRAIN_AFTER_EXIT``."""
INTERRUPTED = "[Reply interrupted by the user]"
"""The marker an interrupted reply keeps in the history (as Claude Code does): the model
learns it was cut, and the next user message never follows a user message."""
CRASHED = (
    "[Reply cut short: the session stopped while these calls ran; their results, as "
    "recorded or reconciled from the files, follow]"
)


class _Offered:
    """The tools offered, as ``in`` asks of a name the model wrote: under its own name or
    one it means (``Registry.named``: Qwen's call of ``bash`` that came back as text is a
    call of ``shell``)."""

    def __init__(self, registry: Registry, names: set[str]) -> None:
        self.registry, self.names = registry, names

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.registry.named(name) in self.names


def over_limit(call: ToolCall, limit: int) -> ToolResult:
    """The result of a call past the per-response limit: never run, and the model is
    told why and what to do, so it can send the rest after reading these results."""
    return ToolResult(
        call.id,
        call.name,
        "not_executed",
        f"not executed: this response already made {limit} calls, the most one response "
        f"may make (max_calls); this call and any after it in the response were not run. "
        f"Read the results above, then issue the remaining calls again, at most {limit} "
        "per response.",
    )


def last_failure(history: Sequence[Item]) -> str | None:
    """Why the last reply of ``history`` failed (what its :func:`failed_cut` says), or
    ``None`` when it did not: a resumed session says it (``runtime._resumed``)."""
    for item in reversed(history):
        if isinstance(item, AssistantTurn):
            return failure_of(item.cut)
    return None


class Boundary(Protocol):
    async def run(self, call: ToolCall) -> ToolResult: ...
    async def run_batch(
        self, calls: list[ToolCall], results: list[ToolResult] | None = None
    ) -> list[ToolResult]:
        """The calls in order, each result also appended to ``results`` once committed."""
        ...

    def cancel_running(self) -> bool: ...
    def halt(self) -> None:
        """The turn stopped: the batch running starts no further call."""
        ...

    @property
    def running(self) -> list[str]:
        """The ids of the calls executing now (past their gate and their start commit)."""
        ...


class SessionRecorder(Protocol):
    """The session store as a turn records itself (``session.store.SessionStore``).

    Every method commits before it returns and raises on failure; the loop turns a
    failure into ``PersistenceFailed`` and the turn ends ``session_persistence_failed``.
    """

    def append_items(self, session_id: str, items: Sequence[Item]) -> None: ...
    def add_assistant_text(
        self, session_id: str, text: str, *, interrupted: bool = False
    ) -> None: ...
    def add_turn_stopped(self, session_id: str, why: str) -> None: ...
    def add_reasoning(self, session_id: str, text: str) -> None: ...
    def add_contract_error(
        self, session_id: str, kind: str, message: str, offset: int, response_id: int | None = None
    ) -> None: ...
    def begin_response(
        self, session_id: str, mode: str, model: str, request_index: int, *, wire: str = ...
    ) -> int: ...
    def add_stream_event(self, response_id: int, t: float, data: str) -> None: ...
    def end_response(self, response_id: int, finish_reason: str) -> None: ...
    def set_state(self, session_id: str, state: str) -> None: ...
    def set_mode(self, session_id: str, mode: str) -> None: ...
    def checkpoint(self) -> bool: ...


class Inbox(Protocol):
    """Messages the user queued while the turn runs (``AgentSession.queue``)."""

    def waiting(self) -> bool: ...
    def take(self) -> Delivery | None:
        """Everything queued, as one user message (its text and images) and the event that
        tells the front ends (emitted once that message is committed); ``None`` when
        nothing is."""
        ...


class RequestCounter:
    """Numbers a session's model requests (``SESSION#N`` names response N): the loop's
    and the compactor's summary requests share one count."""

    def __init__(self, start: int = 0) -> None:
        self.next = start

    def take(self) -> int:
        index = self.next
        self.next += 1
        return index


@record
class Carried:
    """A result the model never saw (the session stopped first) and the call it answers
    (``None`` when the call row could not be found)."""

    call: ToolCall | None
    result: ToolResult


class PersistenceFailed(Exception):
    """The store could not commit; the turn ends ``session_persistence_failed``."""


class TooLong(Exception):
    """The server refused a request that no compaction could make fit (the person's
    message alone is larger than the window); the turn ends ``too_long``."""

    def __init__(self, message: str, history: Sequence[Item] | None = None) -> None:
        super().__init__(message)
        self.history = history
        """The history with that message withdrawn (the compactor has stored it), or
        ``None`` to keep it as it is."""


@contextlib.contextmanager
def _committing(what: str) -> Iterator[None]:
    """Any failure of the store call inside becomes ``PersistenceFailed`` naming it."""
    try:
        yield
    except Exception as exc:  # the store's own errors say what to do
        raise PersistenceFailed(f"session store: {what} failed: {exc}") from exc


@record(frozen=False)
class _Response:
    """What one model response produced, once its stream is over."""

    raw: bytearray = field(default_factory=bytearray)
    kept_end: int = 0
    """Offset up to which the raw text is kept in history (last confirmed text or call)."""
    prose: list[str] = field(default_factory=list)
    """Confirmed prose not yet emitted as an AssistantText."""
    text: list[str] = field(default_factory=list)
    """All confirmed prose of the response (native modes keep it as the turn's text)."""
    thoughts: list[str] = field(default_factory=list)
    """Reasoning not yet stored (``_flush_prose`` stores it before the prose it led to)."""
    reasoned: bool = False
    """Reasoning streamed in this response (a response that said only that is not asked
    again after an error)."""
    calls: list[ToolCall] = field(default_factory=list)
    started: dict[str, str] = field(default_factory=dict)
    """Calls whose header was confirmed but which never became ready (id -> name)."""
    failure: Failure | None = None
    stopped: bool = False
    finish_reason: str = "stop"
    error: str | None = None
    detail: str = ""
    """Why the stream broke off (a ``disconnect``'s cause), for the truncation message."""
    tasks: list[asyncio.Future[ToolResult]] = field(default_factory=list)
    """One per call in ``calls``, in order: the task running it (eager modes), or its
    result already (a call past ``max_calls``)."""
    batch: asyncio.Task[list[ToolResult]] | None = None
    """The other modes: the task running the calls after the stream (``run_batch``)."""
    batch_results: list[ToolResult] = field(default_factory=list)
    """Its results, as each is committed."""
    refused: dict[str, ToolResult] = field(default_factory=dict)
    """Calls past the per-response limit (``max_calls``), by id, and their
    ``not_executed`` results: paired like any call, never given to the boundary."""
    routed: set[str] = field(default_factory=set)
    """Shell calls already read as the file tool's call they mean (``AgentLoop._routed``):
    ``_registered`` takes them as they are."""
    readings: dict[tuple[object, ...], list[tuple[ToolCall, str, Mapping[str, Any]]]] = field(
        default_factory=dict
    )
    """Each shell call of this response as the model wrote it, by ``repeats.shape``, and
    what it was read as: a copy of one is read the same, so the twin rule still finds it."""
    shapes: dict[tuple[object, ...], ToolCall] = field(default_factory=dict)
    """The calls of this response by ``repeats.shape``: the first of each (a twin of one
    is not run)."""
    in_frame: bool = False
    usage: TokenUsage = field(default_factory=TokenUsage)
    """The server's token counts for the request (the context budget counts them)."""
    adapter: ModeAdapter | None = None


def passing_error(response: _Response) -> bool:
    """The server ended ``response`` with an error a new request may mend, before it said
    anything: no byte of the reply, no call, no reasoning."""
    if response.finish_reason != "error" or response.failure is not None:
        return False
    return not _said_anything(response) and _passing_words(response.error)


def cut_by_passing_error(response: _Response) -> bool:
    """The server ended ``response`` with an error a new request may mend after it had
    begun: the reply is cut like one a dropped connection cut (kept, and the model asked
    to go on from where it stopped), not the end of the turn."""
    if response.finish_reason != "error" or response.failure is not None or response.stopped:
        return False
    return _said_anything(response) and _passing_words(response.error)


def _said_anything(response: _Response) -> bool:
    return bool(response.calls or response.reasoned or bytes(response.raw).strip())


def _passing_words(error: str | None) -> bool:
    said = (error or "").lower()
    return any(word in said for word in PASSING_ERRORS)


def _stop_reason(stopped: asyncio.CancelledError) -> str:
    """Why the turn stopped: the message its cancel carried (``task.cancel(msg)``: a
    front end stopped by SIGTERM says so), else a person's stop."""
    said = stopped.args[0] if stopped.args else None
    return said if isinstance(said, str) and said else BY_THE_USER


BY_THE_USER = "turn cancelled by the user"
"""A turn's stop that carried no reason: a person's (Esc, ctrl+c, a quit)."""


SETUP_FAILURES = frozenset({"auth", "not_found", "connect", "protocol"})
"""``ModelError`` kinds that mean the setup is wrong (key, URL, model, server), not a
passing failure: the person is pointed at ``frontier doctor`` once."""
DOCTOR_HINT = (
    "`frontier doctor` with the same flags checks the endpoint, the key, the model and its "
    "tool calls, the sandbox and the rest of the setup in one run, each with its fix"
)


class AgentLoop:
    """Runs user turns against a model client through a tool boundary."""

    def __init__(
        self,
        *,
        client: Client,
        boundary: Boundary,
        registry: Registry,
        mode: Mode,
        emit: Callable[[Event], None] | None = None,
        store: SessionRecorder | None = None,
        session_id: str | None = None,
        max_turns: int = 20,
        history: Sequence[Item] = (),
        instructions: str = "",
        signals_call_done: bool = False,
        can_prefill: bool = False,
        compactor: Compactor | None = None,
        prefill: Prefill | None = None,
        inbox: Inbox | None = None,
        carried: Sequence[Carried] = (),
        requests: RequestCounter | None = None,
        settle: Callable[[], Awaitable[Mode | None]] | None = None,
        mode_pending: bool = False,
        fallback: Mode | None = None,
        max_calls: int = MAX_CALLS,
        slice_seconds: float | None = SLICE_SECONDS,
        root: str | None = None,
    ) -> None:
        """``compactor``: the context budget (``compactor.py``), ``None`` for none;
        ``prefill``: continuing a CTL response cut by ``length`` (``continuation.py``),
        ``None`` to resend it; ``inbox``: what the user queues during a turn; ``carried``:
        results reconciled on resume, reported with the next message;
        ``signals_call_done`` / ``can_prefill``: what the client's wire does
        (``WireCodec``); ``settle``: asked once before the first request, the mode
        ``--protocol auto`` settles on when only the server can say (``None``: keep it);
        ``mode_pending``: ``mode`` is only assumed until then (``set_mode`` keeps its
        choice over the server's answer); ``fallback``: the text mode a ``--protocol auto``
        session goes on in when the server refuses its ``tools[]`` before any reply
        (``None``: a refusal ends the turn, as for a mode the person chose);
        ``max_calls``: the most calls one response may make (:data:`MAX_CALLS`)."""
        if max_calls < 1:
            raise ValueError(f"max_calls must be at least 1, got {max_calls}")
        self.client = client
        self.effort: str | None = None
        """The reasoning effort ``/effort`` chose (``None``: the client's setting)."""
        self.boundary = boundary
        self.registry = registry
        self.root = root
        """The workspace, for a patch run as a command in a ``workdir``
        (``patch_via_shell.rebased``): ``None``, only one run in the root is read so."""
        self.mode = mode
        self._emit = emit or (lambda event: None)
        self.store = store
        self.session_id = session_id
        self.max_turns = max_turns
        self.max_calls = max_calls
        self.slice_seconds = slice_seconds
        """``SLICE_SECONDS``, or ``None``: read a burst whole (the demo at full speed, whose
        recordings must be the same every run: a yield lets a tool finish mid-burst)."""
        self.history: list[Item] = list(history)
        self.instructions = instructions
        """The project's instructions section of the system prompt (``instructions.py``):
        read from the workspace when the session is built or resumed, never stored."""
        self.signals_call_done = signals_call_done
        self.can_prefill = can_prefill
        self.compactor = compactor
        self.prefill = prefill
        self.inbox = inbox
        self.carried: list[Carried] = list(carried)
        self.requests = requests if requests is not None else RequestCounter()
        self._settle = settle
        self.mode_pending = mode_pending
        self._fallback = fallback
        self.takes_images = True
        """Whether images tools read are shown to the model: until its server refuses one
        (``_respond_without_images``)."""
        self.repeats = Repeats()
        """The latest identical calls of this turn (a third after two equal results is
        not run: ``repeats.py``)."""
        self._told_text_calls = False
        """The person was told the server sends tool calls back as text (once a session)."""
        self._told_doctor = False
        """The person was pointed at ``frontier doctor`` (once: a failed setup)."""
        self._adapter: ModeAdapter | None = None
        self._turn_task: asyncio.Task[Any] | None = None
        self._stopping = False
        """The running turn is in its stop (a cancel was taken): not to be cancelled again,
        which would cut short the wait for its calls' results."""
        self._current: _Response | None = None
        """The response streaming now (what an interrupted turn keeps of it)."""
        self._recorded: _Response | None = None
        """The last response whose round is in the history already."""
        self._cut_said = False
        """This turn's stop is in the timeline already: the prose it cut, marked."""

    # ------------------------------------------------------------------ state for the UI

    @property
    def model(self) -> str:
        return self.client.model

    @property
    def frontier(self) -> int:
        return self._adapter.frontier if self._adapter else 0

    def pending(self) -> bytes:
        return self._adapter.pending() if self._adapter else b""

    def pending_bound(self) -> int:
        return self._adapter.pending_bound() if self._adapter else 0

    def cancel_tool(self) -> bool:
        """Esc: kill the running shell/python tool (it is recorded as ``cancelled``)."""
        return self.boundary.cancel_running()

    def cancel_turn(self) -> None:
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()

    async def stop_turn(self, wait: float = STOP_WAIT) -> None:
        """Stop the running turn, if one runs in another task, and wait (at most ``wait``
        seconds) until it has ended: its commands killed, their results committed.

        What closing the session does first. A front end that quits while a command runs
        (the TUI's ctrl+q, SIGTERM) had its turn's task cancelled and the store closed in
        the same breath: the command's result, committed a moment later, found the store
        closed, and the session read as a crash ("outcome unknown"). A turn whose stop
        hangs past ``wait`` (a tool that ignores being stopped) is left to that crash path."""
        task = self._turn_task
        if task is None or task.done() or task is asyncio.current_task():
            return
        if not self._stopping and task.cancelling() == 0:
            task.cancel()
        await asyncio.wait({task}, timeout=wait)

    def set_mode(self, mode: Mode) -> None:
        self.mode = mode
        self.mode_pending = False  # the person's choice: the server's answer no longer counts
        self._fallback = None  # nor a refusal of its tools

    def use_client(
        self, client: Client, *, signals_call_done: bool, can_prefill: bool, prefill: Prefill | None
    ) -> None:
        """``/model``: later requests go to ``client`` (another model, wire or endpoint);
        the typed history goes with them unchanged. Between turns only (the session
        refuses a switch during one)."""
        self.client = client
        self.signals_call_done = signals_call_done
        self.can_prefill = can_prefill
        self.prefill = prefill
        self.takes_images = True  # another model: it may read them
        if self.compactor is not None:
            self.compactor.client = client  # summaries ask the model the session talks to

    async def compact_now(self) -> bool:
        """``/compact``: compact the history now, whatever the threshold (the compactor
        records and announces it); False when there was nothing to compact."""
        if self.compactor is None:
            return False
        return self._adopt(await self.compactor.compact_now(self.request(), self.mode.name))

    # ------------------------------------------------------------------ turns

    async def send(self, text: str, images: tuple[Image, ...] = ()) -> TurnEnded:
        """Run one user turn to its end; the returned event says why it ended.
        ``images``: what the person attached, sent with ``text``."""
        self._turn_task = asyncio.current_task()
        self._current = self._recorded = None
        self._cut_said = False
        try:
            self._set_state("active")
            ended = await self._turn(text, images)
        except asyncio.CancelledError as stopped:
            self._stopping = True
            # a call executing now is stopped by the boundary (its process group killed)
            # and returns its own ``cancelled`` result, committed like any result; the
            # calls still queued, preparing or waiting for approval never start. The
            # turn awaits its calls shielded: cancelling it never cancels a call's task
            # (that is the session closing: no result, recovery decides), which left a
            # command that ran uncommitted and told the model it was "not run"
            executing = set(self.boundary.running)
            self.boundary.cancel_running()
            out = self._current
            if out is not None:
                for call, task in zip(out.calls, out.tasks, strict=False):
                    if call.id not in executing:
                        task.cancel()
                if out.batch is not None and not out.batch.done():
                    self.boundary.halt()  # no further call of the batch starts
                    if not executing:  # preparing or waiting for approval: never ran
                        out.batch.cancel()
            if self._turn_task is not None:
                self._turn_task.uncancel()
            why = _stop_reason(stopped)
            ended = TurnEnded("cancelled", why)
            # the model reads why on resume: a person's stop, or a signal's ("stopped by SIGTERM")
            await self._keep_cut(
                INTERRUPTED if why == BY_THE_USER else f"[Reply interrupted: {why}]"
            )
            if not self._cut_said and self.store is not None and self.session_id is not None:
                with contextlib.suppress(PersistenceFailed), _committing("add_turn_stopped"):
                    self.store.add_turn_stopped(self.session_id, why)
        except PersistenceFailed as exc:
            ended = TurnEnded("session_persistence_failed", str(exc))
        except ModelError as exc:
            ended = TurnEnded("provider_error", str(exc))
            if exc.kind in SETUP_FAILURES and not self._told_doctor:
                self._told_doctor = True
                self._emit(Notice(DOCTOR_HINT))
            if exc.images_refused:  # or every later request would be refused the same way
                self._drop_images()
                self.takes_images = False  # later images are named, not sent
            await self._keep_cut(failed_cut(exc.message))
        except TooLong as exc:
            ended = TurnEnded("too_long", str(exc))
            if exc.history is not None:  # the message the model could not take, withdrawn
                self.replace_history(exc.history)
            await self._keep_cut(failed_cut(str(exc)))
        finally:
            self._turn_task = None
            self._stopping = False
        if ended.reason != "session_persistence_failed":
            with contextlib.suppress(PersistenceFailed):
                self._set_state(self._state_after(ended))
        self._emit(ended)
        return ended

    def _state_after(self, ended: TurnEnded) -> str:
        """The state a turn's end leaves. A message refused as too long before it was sent
        was withdrawn, the conversation as it was: ``done``. Listed ``failed``, a resume
        said "the last turn stopped before the model finished: it reached its limit of
        requests or of repairs", which it had not. One the server refused keeps its
        failure for the resume to name: ``failed``."""
        if ended.reason == "too_long" and last_failure(self.history) is None:
            return "done"
        return SESSION_STATE.get(ended.reason, "failed")

    def _set_state(self, state: str) -> None:
        """The session's state as ``frontier sessions`` lists it."""
        if self.store is not None and self.session_id is not None:
            with _committing("set_state"):
                self.store.set_state(self.session_id, state)

    async def _turn(self, text: str, images: tuple[Image, ...] = ()) -> TurnEnded:
        self.repeats.clear()  # the person spoke: asking again is theirs to ask
        items: list[Item] = self._carried_items()
        typed = UserText(text, "person", images)
        if images and not self.takes_images:  # its server refused one in this session
            typed = without_images(typed)
            names = ", ".join(image.name or "(pasted)" for image in images)
            self._emit(
                Notice(
                    f"not sent: {names} (the model takes no images: its server refused "
                    "one earlier in this session; /model switches to one that does); your "
                    "message goes without, the images named in it"
                )
            )
        items.append(typed)
        if self.compactor is not None:
            # a message no compaction can make fit is never sent, nor kept for the model
            refused = await self.compactor.refused(self._request_with(items))
            if refused is not None:
                return TurnEnded("too_long", refused)
        self.carried = []
        self._append(items)
        if self._settle is not None:
            settle, self._settle = self._settle, None
            settled = await settle()
            if settled is not None and self.mode_pending:
                self.mode = settled
                if self.store is not None and self.session_id is not None:
                    with _committing("the settled mode"):
                        self.store.set_mode(self.session_id, settled.name)
            self.mode_pending = False
        if self.prefill is not None:
            self.prefill.new_turn()  # MAX_CONTINUATIONS per turn
        repairs = 0
        limited = 0  # the repairs in a row whose reply the output token limit cut
        for request in range(self.max_turns):
            if request:
                self._deliver_queued()
            try:
                response = await self._respond_again_on_passing_error()
            except ModelError as exc:
                if exc.refused_call is None:
                    raise
                # the server refused the reply for a call it could not read: the model's
                # framing error, repaired as any other (Groq's tool_use_failed)
                response = _Response(finish_reason="error", error=exc.message)
                self._refused_reply(response, exc.refused_call, None)
            results = await self._results(response)
            if any(r.kind == "session_persistence_failed" for r in results):
                failed = next(r for r in results if r.kind == "session_persistence_failed")
                return TurnEnded("session_persistence_failed", failed.output)
            if response.finish_reason == "error" and response.failure is None:
                why = response.error or "the server reported an error"
                self._record_history(response, results, cut=failed_cut(why))
                return TurnEnded("provider_error", why)
            self._record_history(response, results)
            if response.failure is not None:
                repairs += 1
                limited = limited + 1 if response.finish_reason == "length" else 0
                if repairs > MAX_REPAIRS:
                    return TurnEnded(
                        "repair_limit",
                        f"{MAX_REPAIRS} repairs in a row failed; last error: "
                        f"{response.failure.kind}: {response.failure.message}"
                        + (TOKEN_LIMIT_HINT if limited > MAX_REPAIRS else ""),
                    )
                if response.finish_reason == "error":  # a passing error cut it: a moment first
                    self._emit(
                        Retry(
                            attempt=repairs,
                            delay=ASKED_AGAIN[0],
                            reason=f"the server ended the reply with an error ({response.error}) "
                            "after part of it: it is kept, cut, and the model asked to go on",
                            limit=MAX_REPAIRS,
                        )
                    )
                    await asyncio.sleep(ASKED_AGAIN[0])
                self._emit(
                    RepairRequested(
                        response.failure.kind,
                        response.failure.message,
                        repairs,
                        response.failure.resend,
                    )
                )
                continue
            repairs = 0
            if self.inbox is not None and self.inbox.waiting():
                continue  # the user wrote meanwhile: the turn goes on with that
            stuck = self.repeats.stuck()
            if stuck is not None:
                return TurnEnded("repeating", stuck)
            if not response.calls:
                # a reply of nothing (or only reasoning) looked like no reply at all
                empty = not bytes(response.raw).strip()
                return TurnEnded("done", EMPTY_REPLY if empty else "")
            ending = next((r for r in results if r.meta.get("terminates")), None)
            if ending is not None:  # ``finish``: the model's last word is its message
                said = " ".join(ending.output.split())
                return TurnEnded("done", said if len(said) <= 300 else said[:299] + "…")
        return TurnEnded(
            "max_turns",
            f"stopped after {self.max_turns} model response"
            f"{'s' if self.max_turns != 1 else ''} in this turn (max_turns; a reply continued "
            "after a cut counts once): send a message to go on",
        )

    def _carried_items(self) -> list[Item]:
        """Results the model never saw (the session stopped first), as the reply they
        answer — its calls, marked cut short — and the results, so a native call keeps
        its entry with its result attached and roles still alternate."""
        if not self.carried:
            return []
        native = self.mode.native  # a text protocol's results answer calls in the text
        calls = tuple(
            CallEntry(c.call.id, c.call.name, c.call.json_args())
            for c in self.carried
            if c.call is not None and native
        )
        explained = (
            "(The session was interrupted before these results reached you. Each is the "
            "outcome as recorded, or as reconciled from the files for a call that was still "
            "running.)"
        )
        results = tuple(_entry(c.result) for c in self.carried)
        return [
            AssistantTurn(calls=calls, cut=CRASHED),
            ToolResults(results, explained, framed=not native),
        ]

    # ------------------------------------------------------------------ one response

    def request(self) -> ModelRequest:
        """The next request: the system prompt, the history, the tools offered."""
        return self._request_with(())

    @property
    def default_effort(self) -> str | None:
        """The client's reasoning effort (``--reasoning-effort``; ``None``: the model's)."""
        return self.client.effort

    def _request_with(self, items: Sequence[Item]) -> ModelRequest:
        """The next request, were ``items`` added to the history; with the newest images
        only (``image_window.py``: the older are named, not sent)."""
        return ModelRequest(
            self.system_prompt(),
            newest_images((*self.history, *items)),
            self.mode.tools(self.registry),
            effort=self.effort,
        )

    def replace_history(self, items: Sequence[Item]) -> None:
        """Adopt a compacted history (the compactor has stored it)."""
        self.history[:] = items

    def _drop_images(self) -> None:
        """The server refused an image: every image taken out of the history (and of the
        store, through the compactor; without one, of this run's history only)."""
        if self.compactor is not None:
            dropped = self.compactor.drop_images(self.request())
            if dropped is not None:
                self.replace_history(dropped)
            return
        self.history[:] = [
            without_images(item) if isinstance(item, UserText) else item for item in self.history
        ]

    async def _respond_again_on_passing_error(self) -> _Response:
        """``_respond_or_fall_back``; asked again (up to :data:`ASKED_AGAIN` times, after
        its waits) when the server ended the response with a passing error before any of
        it: Anthropic's ``overloaded_error`` after ``message_start``, a gateway's
        ``server_error`` event. The same error as an HTTP status (529, 503) is retried by
        the transport; inside a 200 stream it ended the turn (``provider_error``) and the
        person had to send the message again. A response that said anything (text, a
        call, reasoning) is not asked again: it is kept, cut, as before."""
        response = await self._respond_or_fall_back()
        for attempt, delay in enumerate(ASKED_AGAIN, 1):
            if not passing_error(response):
                break
            self._emit(
                Retry(
                    attempt=attempt,
                    delay=delay,
                    reason=f"the server ended the response with an error before any of it "
                    f"({response.error}); asking again",
                    limit=len(ASKED_AGAIN),
                )
            )
            await asyncio.sleep(delay)
            response = await self._respond_or_fall_back()
        return response

    async def _respond_or_fall_back(self) -> _Response:
        """``_respond_in_budget``; when the server refuses native tool calls and the mode
        was ``--protocol auto``'s guess, not yet borne out by any reply, asked again in
        the text protocol (which sends no ``tools[]``), for the rest of the session.

        Before, ``auto`` on a vLLM started without ``--enable-auto-tool-choice`` or an
        Ollama model without tools in its template ended every message with the server's
        refusal, though the person had left the choice of protocol to Frontier."""
        try:
            response = await self._respond_in_budget()
        except ModelError as exc:
            if has_tool_images(self.history) and (
                exc.images_refused or self._refused_with_new_image(exc)
            ):
                response = await self._respond_without_images(exc)
                self._fallback = None
                return response
            fallback = self._fallback
            if fallback is None or not exc.tools_refused or not self.mode.native:
                raise
            self._fallback = None
            self.mode = fallback
            if self.store is not None and self.session_id is not None:
                with _committing("the fallback mode"):
                    self.store.set_mode(self.session_id, fallback.name)
            status = f" (HTTP {exc.status})" if exc.status is not None else ""
            self._emit(
                Notice(
                    f"the server refused native tool calls{status}: --protocol auto goes on "
                    f"in {fallback.name}, which writes calls in the text and sends no tools, "
                    "for the rest of this session (/mode or --protocol chooses another)"
                )
            )
            response = await self._respond_in_budget()
        self._fallback = None  # a reply: the mode is borne out
        return response

    def _refused_with_new_image(self, exc: ModelError) -> bool:
        """A request refused as malformed (400, 413, 415, 422) in words no sign in
        ``lasting_refusals`` knows, the first to carry an image a tool read since the
        model's last reply: the image is the likely cause (a server's own words for "no
        vision"), and left in the history it would refuse every later request the same
        way, a session stuck for good."""
        if exc.status not in (400, 413, 415, 422):
            return False
        for item in reversed(self.history):
            if isinstance(item, AssistantTurn):
                return False
            if isinstance(item, UserText) and item.origin == "tool" and item.images:
                return True
        return False

    async def _respond_without_images(self, refused: ModelError) -> _Response:
        """The server refused an image a tool read (the model takes no images): every image
        taken out of the history, each named, and the model asked again, once, so its turn
        goes on without the picture; later reads of an image name it without showing it.
        A person's image stops the turn instead (they chose to send it: the turn's end
        says so); a tool's was the model's own reach, and it can go on without it. Refused
        in words not known to mean "no images", the model is asked again all the same,
        and images count as refused only when that request is answered (a second refusal
        was about something else: it ends the turn, as it would have)."""
        known = refused.images_refused
        if known:
            self.takes_images = False
        self._drop_images()
        status = f" (HTTP {refused.status})" if refused.status is not None else ""
        why = "the model takes no images" if known else f"it said: {refused.message[:200]}"
        then = "" if known else "if it answers, "
        self._emit(
            Notice(
                f"the server refused the request carrying an image the model read{status}; "
                f"{why}. The image was taken out and the model asked again; {then}images "
                "it reads are named to it, not shown, for the rest of this session"
            )
        )
        response = await self._respond_in_budget()
        self.takes_images = False  # answered without it: the image was what it refused
        return response

    async def _respond_in_budget(self) -> _Response:
        """``_respond`` within the context budget: the history is compacted first when the
        request would pass it, and compacted and retried once when the server refuses the
        request as too long; a second refusal ends the turn with the server's words."""
        compactor = self.compactor
        if compactor is None:
            return await self._respond()
        self._adopt(await compactor.before_request(self.request(), self.mode.name))
        try:
            response = await self._respond()
        except ModelError as exc:
            overflow = compactor.overflow_in(exc)
            if overflow is None or not self._adopt(
                await compactor.after_overflow(
                    self.request(), self.mode.name, overflow, exc.message
                )
            ):
                raise
            response = await self._respond()
        else:  # the same refusal inside a 200 stream (an error event)
            failed = response.error if response.finish_reason == "error" else None
            overflow = compactor.overflow_in(failed)
            if overflow is not None and self._adopt(
                await compactor.after_overflow(
                    self.request(), self.mode.name, overflow, failed or ""
                )
            ):
                response = await self._respond()
        compactor.counted(response.usage)
        return response

    def _adopt(self, compacted: Sequence[Item] | None) -> bool:
        if compacted is None:
            return False
        self.replace_history(compacted)
        return True

    async def _respond(self) -> _Response:
        adapter = self.mode.adapter(signals_done=self.signals_call_done)
        self._adapter = adapter
        index = self.requests.take()
        self._emit(ResponseStarted(self.mode.name, index))
        # No call of this turn can be waiting to start now: the one moment the store's
        # WAL checkpoint (milliseconds of writes + fsync) delays nothing that matters.
        response_id: int | None = None
        if self.store is not None:
            with _committing("checkpoint"):
                self.store.checkpoint()
            if self.session_id is not None:
                with _committing("begin_response"):
                    response_id = self.store.begin_response(
                        self.session_id, self.mode.name, self.model, index, wire=self.client.wire
                    )
        out = _Response(adapter=adapter)
        self._current = out
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        stream = open_stream(  # continued from the frontier when cut (continuation.py)
            self.client,
            self.request(),
            mode=self.mode.name,
            prefill=self.prefill,
            can_prefill=self.can_prefill,
            resumable=lambda: None if out.stopped or out.failure else bytes(out.raw),
            emit=self._emit,
        )
        ended = False
        try:
            async for item in self._closing_on_error(stream, response_id):
                if isinstance(item, Retry | PromptRead):
                    self._emit(item)
                    continue
                if isinstance(item, StreamEnd):
                    out.finish_reason = item.finish_reason
                    out.error = item.error
                    out.detail = item.detail
                    out.usage = item.usage
                    self._emit(ResponseEnded(item.finish_reason, item.usage, item.detail))
                    for learned in item.notes:  # what the client learned (once a session)
                        self._emit(Notice(learned))
                    if item.refused_call is not None and not out.stopped:
                        self._refused_reply(out, item.refused_call, response_id)
                    ended = True
                    break
                assert isinstance(item, WireEvent)
                if self.store is not None and response_id is not None:
                    with _committing("add_stream_event"):
                        self.store.add_stream_event(response_id, item.t, item.raw)
                data, events = adapter.feed(item.deltas)
                if data:
                    self._emit(StreamBytes(len(out.raw), data))
                    out.raw += data
                scheduled = len(out.tasks)
                events = await self._routed(events, out)
                if self._handle(events, out, decoder, response_id):
                    break
                if len(out.tasks) > scheduled:
                    await asyncio.sleep(0)  # let the confirmed call start before reading on
        except asyncio.CancelledError:
            # Esc mid-reply: the prose confirmed so far was said; keep it, marked
            with contextlib.suppress(PersistenceFailed):
                self._flush_prose(out, decoder, final=True, interrupted=True)
            raise
        finally:
            with contextlib.suppress(Exception):
                await stream.aclose()
        if not ended:
            out.finish_reason = "stopped"
            self._emit(ResponseEnded("stopped"))
        elif not out.stopped and out.finish_reason != "error":
            clean = is_clean(out.finish_reason)
            finished = await self._routed(adapter.finish(clean), out)
            self._handle(finished, out, decoder, response_id)
            if not clean or adapter.truncated_calls:  # (a "clean" end inside a call's JSON)
                self._truncated(out, adapter, decoder, response_id)
            elif self.mode.native and not out.calls and out.failure is None:
                self._call_as_text(out, decoder, response_id)
        elif cut_by_passing_error(out):  # an overload mid-reply: cut, as a disconnect cuts
            self._handle(await self._routed(adapter.finish(False), out), out, decoder, response_id)
            out.detail = out.detail or (out.error or "")
            self._truncated(out, adapter, decoder, response_id)
        for note in adapter.notes():  # e.g. events the server sent that could not be read
            self._emit(note)
        self._flush_prose(out, decoder, final=True)
        if self.store is not None and response_id is not None:
            with _committing("end_response"):
                self.store.end_response(response_id, out.finish_reason)
        return out

    def _call_as_text(
        self, out: _Response, decoder: codecs.IncrementalDecoder, response_id: int | None
    ) -> None:
        """A native reply with no call whose text holds the model's own call syntax
        (``text_calls.py``): a ``bad_call`` the model is asked to write again; the person
        is told once what the server lacks. A reply with no text either whose reasoning
        holds one (Qwen3, DeepSeek V3.1 and Kimi K2 write the call before closing their
        thought, and vLLM's or SGLang's reasoning parser keeps it there) is one too: the
        turn ended "the model's reply was empty" and nothing ran. It is never run from the
        reasoning (a thought may draft a call it then drops): the model is asked to make it."""
        from frontier.app.agent.text_calls import text_call

        offered = _Offered(self.registry, {tool.name for tool in self.mode.tools(self.registry)})
        words = text_call(bytes(out.raw).decode("utf-8", "replace"), offered)
        if words is not None:
            failure = call_as_text(words)
            told = (
                "the server sent the model's tool call back as text "
                f"({words.splitlines()[0][:60]!r}…): its tool-call parser did not read "
                "it (vLLM: --enable-auto-tool-choice and the model's --tool-call-parser, "
                "openai for gpt-oss; "
                "llama.cpp: --jinja), so no call ran; the model is asked to write it "
                "again. --protocol ctl-heredoc has calls written in the text, which "
                "Frontier reads itself"
            )
        elif out.thoughts and not "".join(out.text).strip():
            words = text_call("".join(out.thoughts), offered)
            if words is None:
                return
            failure = call_in_reasoning(words)
            told = (
                "the model wrote its tool call inside its reasoning "
                f"({words.splitlines()[0][:60]!r}…), where the server keeps it as thought "
                "(a reasoning parser with Qwen3, DeepSeek V3.1 or Kimi K2), so no call ran; "
                "the model is asked to make the call. If it keeps doing so, turn its "
                "thinking off or use --protocol ctl-heredoc"
            )
        else:
            return
        error = ContractError(failure.kind, failure.message, len(out.raw))
        self._handle([error], out, decoder, response_id)
        if not self._told_text_calls:
            self._told_text_calls = True
            self._emit(Notice(told))

    def _refused_reply(self, out: _Response, words: str, response_id: int | None) -> None:
        """A reply the server refused for a call it could not read: a ``bad_call``
        contract error at the end of what streamed, shown and stored as any other, so
        the loop asks the model to write the call again."""
        failure = refused_reply(words)
        error = ContractError(failure.kind, failure.message, len(out.raw))
        self._handle([error], out, codecs.getincrementaldecoder("utf-8")(), response_id)

    def _truncated(
        self,
        out: _Response,
        adapter: ModeAdapter,
        decoder: codecs.IncrementalDecoder,
        response_id: int | None,
    ) -> None:
        """The failure of a response cut off (token limit, disconnect): which calls ran
        before the cut (eager modes), which were cut mid-arguments, and which were
        complete but held back — native-eos runs no call of a cut-off response, and
        native-inc none its wire had not proven complete — with their arguments, so the
        repair text can quote what the model may resend unchanged.

        A cut with no call open raises no contract error in the transducer: it is raised
        here, after the reply's prose, so the Transcript, a resumed session and the
        export say where the reply was cut (the export ran cut replies together)."""
        if out.failure is not None and out.failure.kind != "truncated":
            return
        if out.failure is None:
            said = cut_words(out.finish_reason, out.detail)
            self._flush_prose(out, decoder, final=True)
            self._handle(
                [ContractError("truncated", said, len(out.raw))], out, decoder, response_id
            )
        assert out.failure is not None
        message = out.failure.message
        out.failure = truncation(
            message,
            len(out.raw),
            mode=self.mode.name,
            finish_reason=out.finish_reason,
            cut=adapter.truncated_calls,
            held_arguments=adapter.held_arguments,
            open_calls=tuple(out.started.items()),
            confirmed=tuple((c.id, c.name) for c in out.calls),
            wire_proves=self.signals_call_done,
        )

    async def _closing_on_error(
        self, stream: AsyncIterator[Any], response_id: int | None
    ) -> AsyncIterator[Any]:
        """The client's items; a ``ModelError`` first closes the stored response row
        (``frontier sessions``/``check`` then see how it ended) and is then re-raised.

        It also yields to the event loop after ``SLICE_SECONDS`` of reading events that
        were already buffered (the read never suspended), so a burst cannot hold it."""
        try:
            sliced = asked = time.perf_counter()
            budget = self.slice_seconds
            async for item in stream:
                now = time.perf_counter()
                if budget is not None:  # (None: a burst is read whole)
                    if now - asked > RESUMED_SECONDS:
                        sliced = now  # the read suspended: the loop ran meanwhile
                    elif now - sliced > budget:
                        await asyncio.sleep(0)  # a burst: let keys and paints through
                        sliced = time.perf_counter()
                yield item
                asked = time.perf_counter()
        except ModelError as exc:
            self._emit(ResponseEnded("error", TokenUsage(), exc.message))
            if self.store is not None and response_id is not None:
                with contextlib.suppress(PersistenceFailed), _committing("end_response"):
                    self.store.end_response(response_id, "error")
            raise

    def _handle(
        self,
        events: list[Event],
        out: _Response,
        decoder: codecs.IncrementalDecoder,
        response_id: int | None,
    ) -> bool:
        """Emit events and act on them; True means stop reading this response."""
        for event in events:
            event = self._registered(event, out)
            self._emit(event)
            match event:
                case Confirmed(kind="text", offset=offset, data=data):
                    piece = decoder.decode(data)
                    out.prose.append(piece)
                    out.text.append(piece)
                    if not out.in_frame:
                        out.kept_end = max(out.kept_end, offset + len(data))
                case ReasoningText(text=thought):
                    if out.prose:  # prose before it is stored first: the timeline's order
                        self._flush_prose(out, decoder)
                    out.thoughts.append(thought)
                    out.reasoned = True
                case CallStarted(id=call_id, name=name, replaces=was):
                    self._flush_prose(out, decoder)
                    out.started.pop(was, None)
                    out.started[call_id] = name
                    out.in_frame = True
                case CallReady(call=call):
                    out.started.pop(call.id, None)
                    out.calls.append(call)
                    out.in_frame = False
                    out.kept_end = max(out.kept_end, min(call.offset + 1, len(out.raw)))
                    if len(out.calls) > self.max_calls:
                        self._refuse(call, out)
                        return True
                    if not self._twin(call, out) and self.mode.eager:
                        out.tasks.append(self._schedule(call, out.tasks))
                case ContractError(kind=kind, message=message, offset=offset):
                    if out.failure is None:
                        out.failure = Failure(kind, message, offset, tuple(out.started))
                        if self.store is not None and self.session_id is not None:
                            with _committing("add_contract_error"):
                                self.store.add_contract_error(
                                    self.session_id, kind, message, offset, response_id
                                )
                    out.stopped = out.stopped or kind != "truncated"
                    if kind != "truncated":
                        return True
                case StreamStopped():
                    out.stopped = True
                    return True
        return False

    def _registered(self, event: Event, out: _Response) -> Event:
        """A call under the name of the tool it means (``Registry.named``: ``Bash`` is
        ``shell``, ``functions.read`` is ``read``), from its header on: the front ends,
        the approval rules, the store and the history all see the one name, and a model
        shown its call as ``shell`` calls it so next. The raw stream keeps what was sent."""
        if isinstance(event, CallStarted):
            name = self.registry.named(event.name)
            if name != event.name:
                return CallStarted(event.id, name, event.offset, event.replaces)
        elif isinstance(event, CallReady) and event.call.id not in out.routed:
            call = event.call
            settled = self._settled(out)
            name, args = self.registry.meant(call.name, call.args, self.root, settled=settled)
            return self._meaning(event, name, args)
        return event

    def _meaning(self, event: CallReady, name: str, args: Mapping[str, Any]) -> CallReady:
        """``event`` with its call as ``name(args)``, the call ``Registry.meant`` read it
        as; a shell call read as a file tool's keeps the model's command (``origin``)."""
        call = event.call
        if name == call.name and args is call.args:
            return event
        origin = ""
        if name != "shell" and self.registry.named(call.name) == "shell":
            from frontier.tools.patch_via_shell import shell_line

            origin = shell_line(call.args)  # `sed -i …` run as apply_patch
        return CallReady(ToolCall(call.id, name, args, call.offset, origin))

    async def _routed(self, events: list[Event], out: _Response) -> list[Event]:
        """``events`` with each shell call read as the file tool's call it means, in a
        worker thread: reading one may run ``sed`` or ``git`` (up to a second, a huge
        repository's ``diff-files``), and the screen goes on meanwhile. Settled as
        ``_registered`` would judge it, an earlier call of this same batch that changes
        files counting as not run yet. Other calls are read as they come (cheap)."""
        if not any(isinstance(e, CallReady) for e in events):
            return events
        routed = list(events)
        pending = False
        for index, event in enumerate(events):
            if not isinstance(event, CallReady):
                continue
            call = event.call
            meant = self.registry.named(call.name)
            if meant == "shell":
                same = out.readings.setdefault(shape(call), [])
                earlier = next((r for r in same if r[0].args == call.args), None)
                if earlier is not None:  # a copy (a parser re-emitting it): read the same,
                    name, args = earlier[1], earlier[2]  # so `_twin` refuses it
                else:
                    settled = not pending and self._settled(out)
                    name, args = await asyncio.to_thread(
                        self.registry.meant, call.name, call.args, self.root, settled=settled
                    )
                    same.append((call, name, args))
                routed[index] = event = self._meaning(event, name, args)
                out.routed.add(call.id)
                meant = event.call.name
            tool = self.registry.get(meant)
            pending = pending or (tool is not None and tool.spec.mutates)
        return routed

    def _settled(self, out: _Response) -> bool:
        """Whether the workspace a call confirmed now reads is the one it will run in:
        every earlier call of this response has finished or changes nothing. A shell
        call read as a patch made from a file's content now (``echo x >> f``'s append,
        ``sed -i``'s edit) is made so only then: made before an earlier edit of that file
        ran, it would undo or misplace it (``Registry.meant``)."""
        for index, earlier in enumerate(out.calls):
            if index < len(out.tasks) and out.tasks[index].done():
                continue
            tool = self.registry.get(earlier.name)
            if tool is not None and tool.spec.mutates:
                return False
        return True

    def _twin(self, call: ToolCall, out: _Response) -> bool:
        """``call`` is the same as an earlier call of this response (``repeats.twin``): it
        gets its ``not_executed`` result (eager modes: a task in its place in the chain,
        so the calls after it still wait for the ones before) and is never run. True when
        it was one."""
        key = shape(call)
        earlier = out.shapes.get(key)
        if earlier is None or earlier.args != call.args:
            out.shapes.setdefault(key, call)
            return False
        refused = twin(call, earlier)
        out.refused[call.id] = refused
        if self.mode.eager:
            out.tasks.append(self._schedule(call, out.tasks, instead=refused))
        return True

    def _refuse(self, call: ToolCall, out: _Response) -> None:
        """``call`` is past the per-response limit: it gets its ``not_executed`` result
        (eager modes: as a task already done, so ``out.tasks`` stays one per call) and the
        response is read no further (``stopped``: the history keeps it up to this call,
        and a cut reply is not continued from a later byte)."""
        refused = over_limit(call, self.max_calls)
        out.refused[call.id] = refused
        out.stopped = True
        if self.mode.eager:
            done: asyncio.Future[ToolResult] = asyncio.get_running_loop().create_future()
            done.set_result(refused)  # done already: cancelling the turn cannot change it
            out.tasks.append(done)

    def _report_refused(self, out: _Response, results: Sequence[ToolResult]) -> None:
        """Tell the front ends about the refused calls among ``results``, after the
        calls before them finished (their rows close in confirmation order)."""
        for result in results:
            if result.call_id in out.refused:
                self._emit(ToolFinished(result))

    def _schedule(
        self,
        call: ToolCall,
        earlier: list[asyncio.Future[ToolResult]],
        instead: ToolResult | None = None,
    ) -> asyncio.Task[ToolResult]:
        """Run ``call`` after every earlier call of this response (confirmation order);
        ``instead``: its result without running it, in its turn all the same."""
        previous = earlier[-1] if earlier else None

        async def run_after() -> ToolResult:
            if previous is not None:
                with contextlib.suppress(Exception):
                    await asyncio.shield(previous)
                prior = previous.result() if previous.done() and not previous.cancelled() else None
                if prior is not None and prior.kind == "session_persistence_failed":
                    return ToolResult(
                        call.id,
                        call.name,
                        "not_executed",
                        "not run: the session store failed before this call",
                    )
            if instead is not None:
                return instead
            repeated = self.repeats.refused(call)
            if repeated is not None:
                self._emit(ToolFinished(repeated))
                return repeated
            result = await self.boundary.run(call)
            self.repeats.ran(call, result)
            return result

        return asyncio.create_task(run_after(), name=f"tool-{call.id}")

    def _flush_prose(
        self,
        out: _Response,
        decoder: codecs.IncrementalDecoder,
        final: bool = False,
        *,
        interrupted: bool = False,
    ) -> None:
        """Report and store the confirmed prose not yet reported (at a call, at the end,
        and — ``interrupted`` — when the turn is cancelled while the reply streams: the
        stored piece is then marked, so the timeline and the export say the reply was
        cut short by the user). The reasoning that came before that prose is stored first,
        so a resumed Transcript and the export show it where it streamed."""
        if out.thoughts:
            thoughts = "".join(out.thoughts)
            out.thoughts.clear()
            if self.store is not None and self.session_id is not None:
                with _committing("add_reasoning"):
                    self.store.add_reasoning(self.session_id, thoughts)
        if final:
            tail = decoder.decode(b"", final=True)
            out.prose.append(tail)
            out.text.append(tail)
        text = "".join(out.prose)
        out.prose.clear()
        if text.strip():
            self._emit(AssistantText(text))
            if self.store is not None and self.session_id is not None:
                with _committing("add_assistant_text"):
                    if interrupted:
                        self.store.add_assistant_text(self.session_id, text, interrupted=True)
                        self._cut_said = True
                    else:
                        self.store.add_assistant_text(self.session_id, text)

    async def _results(self, out: _Response) -> list[ToolResult]:
        """Every confirmed call paired with its result, in confirmation order (a call past
        ``max_calls`` with its ``not_executed`` one: never given to the boundary)."""
        if out.failure is not None and out.failure.kind == "truncated":
            for call_id, name in out.started.items():
                cut = ToolResult(call_id, name, "truncated", "not run: the response was cut off")
                self._emit(ToolFinished(cut))
        if self.mode.eager:
            shielded = [asyncio.shield(task) for task in out.tasks]
            results = list(await asyncio.gather(*shielded)) if shielded else []
        elif out.failure is not None or out.finish_reason == "error":
            return []
        else:
            allowed = []
            for c in out.calls:
                if c.id not in out.refused and (repeated := self.repeats.refused(c)):
                    out.refused[c.id] = repeated  # told with the other refusals below
                if c.id not in out.refused:
                    allowed.append(c)
            if allowed:
                run = self.boundary.run_batch(allowed, out.batch_results)
                out.batch = asyncio.create_task(run, name="tool-batch")
                await asyncio.shield(out.batch)
            by_id = {r.call_id: r for r in out.batch_results}
            for c in allowed:
                if c.id in by_id:
                    self.repeats.ran(c, by_id[c.id])
            results = list(out.batch_results)
            results += [out.refused[c.id] for c in out.calls if c.id in out.refused]
        self._report_refused(out, results)
        return results

    # ------------------------------------------------------------------ history

    def system_prompt(self) -> str:
        """The system prompt of the next request: the mode's, then the project's
        instructions (so compacting the history never drops them)."""
        return self.mode.system_prompt(self.registry, self.instructions)

    def _round(self, out: _Response, results: Sequence[ToolResult], cut: str = "") -> list[Item]:
        """What the model said (the kept part) and what it gets back, as items."""
        repair = repair_text(out.failure, mode=self.mode.name) if out.failure else ""
        reasoning = tuple(
            Reasoning(self.client.wire, data)
            for data in (out.adapter.reasoning if out.adapter is not None else ())
        )
        answered = {r.call_id for r in results}
        if self.mode.native:
            calls = tuple(
                CallEntry(c.id, c.name, c.json_args()) for c in out.calls if c.id in answered
            )
            turn = AssistantTurn("".join(out.text), calls, reasoning, cut)
        else:
            end = out.kept_end if (out.stopped or out.failure or cut) else len(out.raw)
            turn = AssistantTurn(out.raw[:end].decode("utf-8", "replace"), (), reasoning, cut)
        round_: list[Item] = [turn]
        if results or repair:
            entries = tuple(_entry(r) for r in results)
            round_.append(ToolResults(entries, repair, framed=not self.mode.native))
        pictures = shown_images(results, takes_images=self.takes_images)
        if pictures is not None:
            round_.append(pictures)
        return round_

    def _record_history(
        self, out: _Response, results: Sequence[ToolResult], *, cut: str = ""
    ) -> None:
        """Append the round and commit it in one transaction: history never holds an
        assistant turn without its results, and a result committed by the boundary but
        not yet in history is found on resume (``undelivered``) and re-sent."""
        self._recorded = out
        self._append(self._round(out, results, cut))

    async def _keep_cut(self, marker: str) -> None:
        """A turn ended without the reply's round in the history (interrupted, failed):
        keep what the model said, marked, with a result for each call that was confirmed
        (its own if it finished, else ``cancelled``), so roles alternate and every call
        is paired. Best effort: a store that fails here, or a second cancellation, leaves
        the history as it was (a resumed session repairs alternation when encoding)."""
        with contextlib.suppress(PersistenceFailed, asyncio.CancelledError):
            out = self._current
            if out is None or out is self._recorded:
                self._append([AssistantTurn(cut=marker)])
                return
            results: list[ToolResult] = []
            if out.tasks:
                done = await asyncio.gather(*out.tasks, return_exceptions=True)
                for call, result in zip(out.calls, done, strict=False):
                    if isinstance(result, ToolResult):
                        results.append(result)
                    else:  # cancelled before it started: it never ran
                        results.append(_not_run(call))
                self._report_refused(out, results)
            elif out.batch is not None:
                await asyncio.gather(out.batch, return_exceptions=True)
                answered = {r.call_id: r for r in out.batch_results}
                answered.update(out.refused)
                results = [answered.get(call.id) or _not_run(call) for call in out.calls]
                self._report_refused(out, results)
            self._record_history(out, results, cut=marker)

    def _deliver_queued(self) -> None:
        """At a request boundary — the round's results are in history, the next request
        is not yet made — what the user queued becomes one user message, stored as any
        typed message is (docs/decisions-tui.md, "Queued messages")."""
        taken = self.inbox.take() if self.inbox is not None else None
        if taken is None:
            return
        self._append([UserText(taken.content, "person", taken.images)])
        self._emit(taken.event)

    def _append(self, items: Sequence[Item]) -> None:
        """Add to history and commit it (one transaction)."""
        if not items:
            return
        self.history.extend(items)
        if self.store is not None and self.session_id is not None:
            with _committing("append_items"):
                self.store.append_items(self.session_id, items)


def _not_run(call: ToolCall) -> ToolResult:
    """The result of a call the stopped turn never started."""
    return ToolResult(call.id, call.name, "cancelled", "not run: the turn was interrupted")


def _entry(result: ToolResult) -> ResultEntry:
    """A result as the model reads it (capped; a failure headed by its kind)."""
    return ResultEntry(
        result.call_id, result.name, result.kind, exit_code_of(result), result_body(result)
    )


__all__ = [
    "CRASHED",
    "INTERRUPTED",
    "MAX_CALLS",
    "AgentLoop",
    "Boundary",
    "Carried",
    "Inbox",
    "PersistenceFailed",
    "RequestCounter",
    "SessionRecorder",
    "TooLong",
    "last_failure",
    "over_limit",
]
