"""The turn state machine (DESIGN §2, §4, §6).

One user turn = model requests until the model answers without a call (done),
the repair budget runs out, ``max_turns`` is reached, or persistence fails.
Per response: provider chunks -> mode adapter -> transducer events; a call
runs the moment its CallReady arrives in eager modes (in confirmation order,
while the stream keeps being read) or after the stream in batch modes; results
go back as result frames (text modes) or ``tool`` messages (native modes).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from frontier.app.agent.continuation import Prefill, open_stream
from frontier.app.agent.frames import result_body, result_frame
from frontier.app.agent.modes import Mode, ModeAdapter
from frontier.app.agent.repair import MAX_REPAIRS, Failure, repair_text
from frontier.app.events import (
    AssistantText,
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    RepairRequested,
    ResponseEnded,
    ResponseStarted,
    Retry,
    StreamBytes,
    StreamStopped,
    ToolCall,
    ToolFinished,
    ToolResult,
    TurnEnded,
)
from frontier.app.providers.base import Chunk, Provider, StreamEnd
from frontier.app.providers.errors import ProviderError
from frontier.app.vocab import is_clean
from frontier.tools.registry import Registry

if TYPE_CHECKING:
    from frontier.app.agent.compactor import Compactor

SESSION_STATE = {"done": "done", "cancelled": "interrupted"}
"""What ``frontier sessions`` shows after a turn ends this way (any other reason: failed)."""


class Boundary(Protocol):
    async def run(self, call: ToolCall) -> ToolResult: ...
    async def run_batch(self, calls: list[ToolCall]) -> list[ToolResult]: ...
    def cancel_running(self) -> bool: ...


class SessionRecorder(Protocol):
    """The session store as a turn records itself (``session.store.SessionStore``).

    Every method commits before it returns and raises on failure; the loop turns a
    failure into ``PersistenceFailed`` and the turn ends ``session_persistence_failed``.
    """

    def append_message(
        self, session_id: str, message: dict[str, Any], *, from_user: bool | None = None
    ) -> None: ...
    def append_messages(self, session_id: str, messages: list[dict[str, Any]]) -> None: ...
    def add_assistant_text(
        self, session_id: str, text: str, *, interrupted: bool = False
    ) -> None: ...
    def add_contract_error(
        self, session_id: str, kind: str, message: str, offset: int, response_id: int | None = None
    ) -> None: ...
    def begin_response(self, session_id: str, mode: str, model: str, request_index: int) -> int: ...
    def add_stream_event(self, response_id: int, t: float, data: str) -> None: ...
    def end_response(self, response_id: int, finish_reason: str) -> None: ...
    def set_state(self, session_id: str, state: str) -> None: ...
    def checkpoint(self) -> bool: ...


class Inbox(Protocol):
    """Messages the user queued while the turn runs (``AgentSession.queue``)."""

    def waiting(self) -> bool: ...
    def take(self) -> tuple[str, Event] | None:
        """Everything queued, as one user message's content, and the event that tells the
        front ends (emitted once that message is committed); ``None`` when nothing is."""
        ...


class PersistenceFailed(Exception):
    """The store could not commit; the turn ends ``session_persistence_failed``."""


@contextlib.contextmanager
def _committing(what: str) -> Iterator[None]:
    """Any failure of the store call inside becomes ``PersistenceFailed`` naming it."""
    try:
        yield
    except Exception as exc:  # the store's own errors say what to do
        raise PersistenceFailed(f"session store: {what} failed: {exc}") from exc


@dataclass
class _Response:
    """What one model response produced, once its stream is over."""

    raw: bytearray = field(default_factory=bytearray)
    kept_end: int = 0
    """Offset up to which the raw text is kept in history (last confirmed text or call)."""
    prose: list[str] = field(default_factory=list)
    """Confirmed prose not yet emitted as an AssistantText."""
    text: list[str] = field(default_factory=list)
    """All confirmed prose of the response (native modes send it as ``content``)."""
    calls: list[ToolCall] = field(default_factory=list)
    started: dict[str, str] = field(default_factory=dict)
    """Calls whose header was confirmed but which never became ready (id -> name)."""
    failure: Failure | None = None
    stopped: bool = False
    finish_reason: str = "stop"
    error: str | None = None
    detail: str = ""
    """Why the stream broke off (a ``disconnect``'s cause), for the truncation message."""
    tasks: list[asyncio.Task[ToolResult]] = field(default_factory=list)
    in_frame: bool = False
    usage: dict[str, Any] = field(default_factory=dict)
    """The server's ``usage`` for the request (the context budget counts it)."""


class AgentLoop:
    """Runs user turns against a provider through a tool boundary."""

    def __init__(
        self,
        *,
        provider: Provider,
        boundary: Boundary,
        registry: Registry,
        mode: Mode,
        emit: Callable[[Event], None] | None = None,
        store: SessionRecorder | None = None,
        session_id: str | None = None,
        model: str = "",
        max_turns: int = 20,
        messages: list[dict[str, Any]] | None = None,
        instructions: str = "",
    ) -> None:
        self.provider = provider
        self.boundary = boundary
        self.registry = registry
        self.mode = mode
        self._emit = emit or (lambda event: None)
        self.store = store
        self.session_id = session_id
        self.model = model
        self.max_turns = max_turns
        self.messages: list[dict[str, Any]] = list(messages or [])
        self.instructions = instructions
        """The project's instructions section of the system prompt (``instructions.py``):
        read from the workspace when the session is built or resumed, never stored."""
        self._adapter: ModeAdapter | None = None
        self._turn_task: asyncio.Task[Any] | None = None
        self._live_tasks: list[asyncio.Task[ToolResult]] = []
        """The current response's scheduled calls (cancelled with the turn)."""
        self.request_index = 0
        self.carried: list[ToolResult] = []
        """Results reconciled on resume; the next user message reports them first."""
        self.inbox: Inbox | None = None
        """Set by ``AgentSession``: what the user queued goes in before the next request."""
        self.compactor: Compactor | None = None
        """Set by the runtime: the context budget (``compactor.py``) counts each request and
        compacts the history before one would pass it; ``None``: no budget."""
        self.prefill: Prefill | None = None
        """Set by the runtime: a CTL response cut by ``length`` is continued from its
        frontier where the endpoint can (``continuation.py``); ``None`` resends it."""

    # ------------------------------------------------------------------ state for the UI

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

    def set_mode(self, mode: Mode) -> None:
        self.mode = mode

    # ------------------------------------------------------------------ turns

    async def send(self, text: str) -> TurnEnded:
        """Run one user turn to its end; the returned event says why it ended."""
        self._turn_task = asyncio.current_task()
        try:
            self._set_state("active")
            ended = await self._turn(text)
        except asyncio.CancelledError:
            self.boundary.cancel_running()
            for task in self._live_tasks:  # queued calls and pending approvals stop too
                task.cancel()
            if self._turn_task is not None:
                self._turn_task.uncancel()
            ended = TurnEnded("cancelled", "turn cancelled by the user")
        except PersistenceFailed as exc:
            ended = TurnEnded("session_persistence_failed", str(exc))
        except ProviderError as exc:
            ended = TurnEnded("provider_error", str(exc))
        finally:
            self._turn_task = None
        if ended.reason != "session_persistence_failed":
            with contextlib.suppress(PersistenceFailed):
                self._set_state(SESSION_STATE.get(ended.reason, "failed"))
        self._emit(ended)
        return ended

    def _set_state(self, state: str) -> None:
        """The session's state as ``frontier sessions`` lists it."""
        if self.store is not None and self.session_id is not None:
            with _committing("set_state"):
                self.store.set_state(self.session_id, state)

    async def _turn(self, text: str) -> TurnEnded:
        if self.carried:
            frames = "".join(result_frame(r) for r in self.carried)
            text = (
                "(The session was interrupted before these results reached you. Each is the "
                "outcome as recorded, or as reconciled from the files for a call that was "
                "still running:)\n" + frames + "\n" + text
            )
            self.carried = []
        self._append({"role": "user", "content": text}, from_user=True)
        if self.prefill is not None:
            self.prefill.new_turn()  # MAX_CONTINUATIONS per turn
        repairs = 0
        for request in range(self.max_turns):
            if request:
                self._deliver_queued()
            response = await self._respond_in_budget()
            if response.finish_reason == "error":
                return TurnEnded("provider_error", response.error or "the server reported an error")
            results = await self._results(response)
            if any(r.kind == "session_persistence_failed" for r in results):
                failed = next(r for r in results if r.kind == "session_persistence_failed")
                return TurnEnded("session_persistence_failed", failed.output)
            self._record_history(response, results)
            if response.failure is not None:
                repairs += 1
                if repairs > MAX_REPAIRS:
                    return TurnEnded(
                        "repair_limit",
                        f"{MAX_REPAIRS} repairs in a row failed; last error: "
                        f"{response.failure.kind}: {response.failure.message}",
                    )
                self._emit(
                    RepairRequested(response.failure.kind, response.failure.message, repairs)
                )
                continue
            repairs = 0
            if self.inbox is not None and self.inbox.waiting():
                continue  # the user wrote meanwhile: the turn goes on with that
            if not response.calls:
                return TurnEnded("done")
            if any(r.meta.get("terminates") for r in results):
                return TurnEnded("done", "a tool ended the task")
        return TurnEnded("max_turns", f"stopped after {self.max_turns} model requests")

    # ------------------------------------------------------------------ one response

    async def _respond_in_budget(self) -> _Response:
        """``_respond`` within the context budget: the history is compacted first when the
        request would pass it, and compacted and retried once when the server refuses the
        request as too long; a second refusal ends the turn with the server's words."""
        compactor = self.compactor
        if compactor is None:
            return await self._respond()
        await compactor.before_request(self)
        try:
            response = await self._respond()
        except ProviderError as exc:
            overflow = compactor.overflow_in(exc)
            if overflow is None or not await compactor.after_overflow(self, overflow):
                raise
            response = await self._respond()
        else:  # the same refusal inside a 200 stream (an ``{"error": ...}`` event)
            failed = response.error if response.finish_reason == "error" else None
            overflow = compactor.overflow_in(failed)
            if overflow is not None and await compactor.after_overflow(self, overflow):
                response = await self._respond()
        compactor.counted(response.usage)
        return response

    async def _respond(self) -> _Response:
        adapter = self.mode.adapter()
        self._adapter = adapter
        index = self.request_index
        self.request_index += 1
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
                        self.session_id, self.mode.name, self.model, index
                    )
        out = _Response()
        self._live_tasks = out.tasks
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        stream = open_stream(  # continued from the frontier when cut (continuation.py)
            self.provider,
            self._request_messages(),
            tools=self.mode.tools(self.registry),
            mode=self.mode.name,
            prefill=self.prefill,
            resumable=lambda: None if out.stopped or out.failure else bytes(out.raw),
            emit=self._emit,
        )
        ended = False
        try:
            async for item in self._closing_on_error(stream, response_id):
                if isinstance(item, Retry):
                    self._emit(item)
                    continue
                if isinstance(item, StreamEnd):
                    out.finish_reason = item.finish_reason
                    out.error = item.error
                    out.detail = item.detail
                    out.usage = dict(item.usage or {})
                    self._emit(ResponseEnded(item.finish_reason, item.usage or {}, item.detail))
                    ended = True
                    break
                assert isinstance(item, Chunk)
                if self.store is not None and response_id is not None:
                    with _committing("add_stream_event"):
                        self.store.add_stream_event(response_id, item.t, item.raw)
                data, events = adapter.feed(item.data)
                if data:
                    self._emit(StreamBytes(len(out.raw), data))
                    out.raw += data
                scheduled = len(out.tasks)
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
            self._handle(adapter.finish(clean), out, decoder, response_id)
            if not clean and out.failure is None:
                why = f" ({out.detail})" if out.detail else ""
                out.failure = Failure(
                    "truncated",
                    f"the response ended with finish_reason={out.finish_reason}{why}",
                    len(out.raw),
                    tuple(out.started),
                )
        self._flush_prose(out, decoder, final=True)
        if self.store is not None and response_id is not None:
            with _committing("end_response"):
                self.store.end_response(response_id, out.finish_reason)
        return out

    async def _closing_on_error(
        self, stream: AsyncIterator[Any], response_id: int | None
    ) -> AsyncIterator[Any]:
        """The provider's items; a ``ProviderError`` first closes the stored response row
        (``frontier sessions``/``check`` then see how it ended) and is then re-raised."""
        try:
            async for item in stream:
                yield item
        except ProviderError as exc:
            self._emit(ResponseEnded("error", {}, exc.message))
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
            self._emit(event)
            match event:
                case Confirmed(kind="text", offset=offset, data=data):
                    piece = decoder.decode(data)
                    out.prose.append(piece)
                    out.text.append(piece)
                    if not out.in_frame:
                        out.kept_end = max(out.kept_end, offset + len(data))
                case CallStarted(id=call_id, name=name):
                    self._flush_prose(out, decoder)
                    out.started[call_id] = name
                    out.in_frame = True
                case CallReady(call=call):
                    out.started.pop(call.id, None)
                    out.calls.append(call)
                    out.in_frame = False
                    out.kept_end = max(out.kept_end, min(call.offset + 1, len(out.raw)))
                    if self.mode.eager:
                        out.tasks.append(self._schedule(call, out.tasks))
                case ContractError(kind=kind, message=message, offset=offset):
                    out.failure = Failure(kind, message, offset, tuple(out.started))
                    if self.store is not None and self.session_id is not None:
                        with _committing("add_contract_error"):
                            self.store.add_contract_error(
                                self.session_id, kind, message, offset, response_id
                            )
                    out.stopped = True
                    return True
                case StreamStopped():
                    out.stopped = True
                    return True
        return False

    def _schedule(
        self, call: ToolCall, earlier: list[asyncio.Task[ToolResult]]
    ) -> asyncio.Task[ToolResult]:
        """Run ``call`` after every earlier call of this response (confirmation order)."""
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
            return await self.boundary.run(call)

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
        cut short by the user; the model's history is left as it was)."""
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
                    else:
                        self.store.add_assistant_text(self.session_id, text)

    async def _results(self, out: _Response) -> list[ToolResult]:
        """Every confirmed call paired with its result, in confirmation order."""
        if out.failure is not None and out.failure.kind == "truncated":
            for call_id, name in out.started.items():
                cut = ToolResult(call_id, name, "truncated", "not run: the response was cut off")
                self._emit(ToolFinished(cut))
        if self.mode.eager:
            return list(await asyncio.gather(*out.tasks)) if out.tasks else []
        if out.failure is not None and out.failure.kind == "truncated":
            return []
        if out.failure is not None:
            return []
        return list(await self.boundary.run_batch(out.calls)) if out.calls else []

    # ------------------------------------------------------------------ history

    def system_prompt(self) -> str:
        """The system prompt of the next request: the mode's, then the project's
        instructions (so compacting the messages never drops them)."""
        return self.mode.system_prompt(self.registry, self.instructions)

    def _request_messages(self) -> list[dict[str, Any]]:
        system = {"role": "system", "content": self.system_prompt()}
        return [system, *self.messages]

    def _record_history(self, out: _Response, results: list[ToolResult]) -> None:
        """Append what the model said (kept part) and what it gets back, as one round.

        The round is committed in one transaction: history never holds an assistant
        message without its results, and a result committed by the boundary but not
        yet in history is found on resume (``undelivered_results``) and re-sent.
        """
        repair = repair_text(out.failure, mode=self.mode.name) if out.failure else ""
        round_: list[dict[str, Any]] = []
        if self.mode.native:
            ran = {r.call_id for r in results}
            calls = [c for c in out.calls if c.id in ran]
            text = "".join(out.text)
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                message["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.json_args())},
                    }
                    for c in calls
                ]
            if text or calls:
                round_.append(message)
            round_.extend(
                {"role": "tool", "tool_call_id": r.call_id, "content": result_body(r)}
                for r in results
            )
            if repair:
                round_.append({"role": "user", "content": repair})
        else:
            end = out.kept_end if (out.stopped or out.failure) else len(out.raw)
            text = out.raw[:end].decode("utf-8", "replace")
            if text:
                round_.append({"role": "assistant", "content": text})
            feedback = "".join(result_frame(r) for r in results) + repair
            if feedback:
                round_.append({"role": "user", "content": feedback})
        self.messages.extend(round_)
        if round_ and self.store is not None and self.session_id is not None:
            with _committing("append_messages"):
                self.store.append_messages(self.session_id, round_)

    def _deliver_queued(self) -> None:
        """At a request boundary — the round's results are in history, the next request
        is not yet made — what the user queued becomes one user message, stored as any
        typed message is (docs/decisions-tui.md, "Queued messages")."""
        taken = self.inbox.take() if self.inbox is not None else None
        if taken is None:
            return
        content, delivered = taken
        self._append({"role": "user", "content": content}, from_user=True)
        self._emit(delivered)

    def _append(self, message: dict[str, Any], *, from_user: bool = False) -> None:
        """Add to history and commit it; ``from_user`` marks what the person typed."""
        self.messages.append(message)
        if self.store is not None and self.session_id is not None:
            with _committing("append_message"):
                self.store.append_message(self.session_id, message, from_user=from_user)
