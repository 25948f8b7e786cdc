"""``AgentSession``: the one typed seam between the core and every front end.

The TUI (live, demo, welcome → demo, resume), headless ``run``/``demo`` and
``resume`` each hold an ``AgentSession`` and nothing else of the core. A front
end sends operations — ``send``, ``cancel_turn``, ``cancel_tool``, ``set_mode``,
``set_approval``, ``close`` — and receives the core's events through one
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

from frontier.app.agent.modes import Mode, get_mode
from frontier.app.events import Event, ToolResult, TurnEnded
from frontier.app.secrets import Scrubber
from frontier.app.vocab import AGENT_MODES, APPROVALS
from frontier.tools.contract import ToolSpec
from frontier.tools.policy import PolicyApprover

if TYPE_CHECKING:
    from frontier.app.session.store import LogRecord, SessionInfo, SessionStore

Observer = Callable[[Event], None]
Closer = Callable[[], Awaitable[None] | None]
ExportFormat = Literal["markdown", "jsonl"]


class SessionBusy(RuntimeError):
    """An operation that must wait for the turn to end (switching mode) came during one."""


class TurnLoop(Protocol):
    """What the façade drives: ``AgentLoop``, or a test's scripted loop."""

    carried: list[ToolResult]
    """Results reconciled on resume that the model has not seen yet."""

    @property
    def frontier(self) -> int: ...
    def pending_bound(self) -> int: ...
    async def send(self, text: str) -> TurnEnded: ...
    def cancel_turn(self) -> None: ...
    def cancel_tool(self) -> bool: ...
    def set_mode(self, mode: Mode) -> None: ...


class EventHub:
    """The one event subscription: the loop and the tool boundary emit into it, and
    every observer gets every event, in the order they subscribed.

    Created before the loop (which needs somewhere to emit), then owned by the
    session; an observer is called synchronously, so it must be cheap (the TUI's
    only updates buffers; painting happens on its own timer)."""

    def __init__(self) -> None:
        self._observers: list[Observer] = []

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Add ``observer``; the returned function removes it again."""
        self._observers.append(observer)

        def unsubscribe() -> None:
            if observer in self._observers:
                self._observers.remove(observer)

        return unsubscribe

    def emit(self, event: Event) -> None:
        for observer in tuple(self._observers):
            observer(event)


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
        mode: str,
        resumed: bool = False,
        notes: Iterable[str] = (),
        recovered: Iterable[ToolResult] = (),
        demo_prompts: Iterable[str] = (),
        patch_dialect: str = "unified",
        tools: Iterable[ToolSpec] = (),
        policy: PolicyApprover | None = None,
        store: SessionStore | None = None,
        scrubber: Scrubber | None = None,
        closers: Sequence[Closer] = (),
    ) -> None:
        self._loop = loop
        self._events = events
        self.session_id = session_id
        self.workspace = workspace
        """Where the tools run (for a resumed session: where its project lives now)."""
        self.model = model
        self.resumed = resumed
        """A stored session continued (``frontier resume``, the picker), not a new one."""
        self.notes: list[str] = list(notes)
        """What setting up changed that the user should hear about (a moved workspace...)."""
        self.recovered: list[ToolResult] = list(recovered)
        """Calls reconciled on resume (they were in flight when the last run stopped)."""
        self.demo_prompts: list[str] = list(demo_prompts)
        """What the front end sends by itself (the demo's scripted task), in order."""
        self.patch_dialect = patch_dialect
        """The patch dialect apply_patch teaches (``config.patch_format`` resolved)."""
        self.tools: tuple[ToolSpec, ...] = tuple(tools)
        """The tools this session offers the model, as it is taught them."""
        self._mode = mode
        self._policy = policy
        self._store = store
        self._scrubber = scrubber if scrubber is not None else Scrubber()
        self._closers: list[Closer] = list(closers)
        self._closed = False
        self._busy = False

    # ------------------------------------------------------------------ facts that change
    @property
    def mode(self) -> str:
        """The protocol mode of the next model request."""
        return self._mode

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
    def busy(self) -> bool:
        """A turn is running (``send`` has not returned)."""
        return self._busy

    @property
    def closed(self) -> bool:
        return self._closed

    # ------------------------------------------------------------------ events
    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Receive every event of this session from now on; returns the unsubscribe."""
        return self._events.subscribe(observer)

    # ------------------------------------------------------------------ operations
    async def send(self, text: str) -> TurnEnded:
        """Run one user turn to its end; the returned event says why it ended."""
        self._busy = True
        try:
            return await self._loop.send(text)
        finally:
            self._busy = False

    def cancel_turn(self) -> None:
        """Stop the running turn (its calls are cancelled; the session reads interrupted)."""
        self._loop.cancel_turn()

    def cancel_tool(self) -> bool:
        """Kill the running shell/python tool (recorded ``cancelled``, exit 130); False
        when nothing was running."""
        return self._loop.cancel_tool()

    def set_mode(self, name: str) -> None:
        """Use protocol mode ``name`` from the next model request on.

        Raises ``ValueError`` for an unknown mode and :class:`SessionBusy` during a
        turn: a mode switched mid-turn would change framing between two responses
        the model thinks are one conversation step.
        """
        mode = get_mode(name)
        if self._busy:
            raise SessionBusy("wait for the turn to end before switching mode")
        self._loop.set_mode(mode)
        self._mode = mode.name

    def set_approval(self, policy: str) -> None:
        """Gate the next calls with ``policy`` (``ask``, ``auto-edit``, ``auto``,
        ``read-only``); a call already waiting for review keeps its review."""
        if policy not in APPROVALS:
            raise ValueError(f"unknown approval policy {policy!r}; choose {', '.join(APPROVALS)}")
        if self._policy is None:
            raise ValueError("this session has no approval gate to change")
        self._policy.policy = policy

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

    # ------------------------------------------------------------------ closing
    async def close(self) -> None:
        """Close the provider, the store and the session lock — every one of them even
        when an earlier one fails (the store's last flush on a full disk); then raise
        the first failure, so the caller reports it instead of a traceback at exit.
        Closing twice does nothing."""
        self._closed = True
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


def _export_text(path: Path, session_id: str, fmt: ExportFormat, scrubber: Scrubber) -> str:
    from frontier.app.session.export import read_session, to_jsonl, to_markdown
    from frontier.app.session.store import SessionStore

    with SessionStore.open_readonly(path) as store:
        info, found = read_session(store, session_id)
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
