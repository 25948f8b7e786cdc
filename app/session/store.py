"""The session store: SQLite, append-only, persist-before-execute (DESIGN §7).

:class:`SessionStore` composes the store's parts, each a module with one job, and
gives front ends, commands and tests one object to open and close:

- ``db.py`` — the connection: WAL, ``synchronous=FULL``, the one write path (every
  write method commits its own ``BEGIN IMMEDIATE`` … ``COMMIT`` before it returns),
  checkpoints, secrets scrubbing, errors that say what to do;
- ``catalogue.py`` — sessions: create, state, list/get, who holds one, CLI look-ups;
- ``timeline.py`` — the history sent to the model (typed conversation items) and the
  session's timeline;
- ``responses.py`` — each model response's raw stream, buffered per token and
  written inside the next commit of any kind (so a call lands with the bytes that
  proved it);
- ``calls.py`` — call, ``started`` and result rows; ``persistence.py`` is the tool
  boundary's view of them (``tools.contract.Persistence``) and ``journal.py`` the
  intent journal of multi-file writes;
- ``preimages.py`` — each mutation's files as they were before it, by hash, capped (what
  an undo puts back), committed with the call row;
- ``compactions.py`` — the steps that shortened the history sent to the model (old
  results stubbed, old rounds summarised); ``load_items`` applies the latest;
- ``recover.py`` — reconciling calls without a result after a crash; ``inflight.py``
  what a reader shows for them before that.

The agent loop and the tool boundary call typed parts through Protocols
(``agent.loop.SessionRecorder``, ``tools.contract.Persistence``); the methods here
are thin delegations kept for the code that holds the whole store.

A failed write raises :class:`StoreError` whose message says what to do
(``free space in <dir>``, ``close the other Frontier``…); the tool boundary turns it
into ``session_persistence_failed`` and ends the turn. Commands that only read
(``sessions``, ``export``, ``check``, ``replay``) open the database read-only
(:meth:`SessionStore.open_readonly`), so a read-only data dir does not stop them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from frontier.app.events import ToolCall, ToolResult
from frontier.app.model.conversation import Item
from frontier.app.secrets import Scrubber
from frontier.app.session import inflight
from frontier.app.session.calls import CallLedger, CallRecord, Target
from frontier.app.session.catalogue import (
    STATES,
    Catalogue,
    SessionInfo,
    find_session,
    sanitize_url,
    session_recordings,
)
from frontier.app.session.compactions import Compactions
from frontier.app.session.db import (
    DB_NAME,
    Database,
    SessionNotFound,
    StoreError,
    default_path,
    existing_store,
)
from frontier.app.session.persistence import SessionPersistence
from frontier.app.session.preimages import Preimages
from frontier.app.session.recover import recover_session
from frontier.app.session.responses import RecordedResponse, Responses
from frontier.app.session.timeline import Failure, LogRecord, Timeline, iso_time

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from frontier.app.session import lock as session_lock
    from frontier.app.session.recover import WorkspaceFiles
    from frontier.tools.contract import Preview, ToolSpec

__all__ = [
    "DB_NAME",
    "STATES",
    "CallRecord",
    "LogRecord",
    "RecordedResponse",
    "SessionInfo",
    "SessionNotFound",
    "SessionStore",
    "StoreError",
    "Target",
    "default_path",
    "existing_store",
    "find_session",
    "iso_time",
    "sanitize_url",
    "session_recordings",
]


class SessionStore:
    """All of ``sessions.db``, composed of its parts. Thread-safe; one connection."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.catalogue = Catalogue(db)
        self.timeline = Timeline(db)
        self.responses = Responses(db)
        self.preimages = Preimages(db)
        """Each mutation's files as they were before it, for undo (``preimages.py``)."""
        self.ledger = CallLedger(db, self.responses, self.preimages)
        self.compactions = Compactions(db)
        """Each step that shortened the history sent to the model (``compactions.py``)."""

    @classmethod
    def open(
        cls, path: Path | None = None, *, secrets: Iterable[str | None] | Scrubber = ()
    ) -> SessionStore:
        """Open (creating and migrating as needed) the store at ``path`` (``Database.open``)."""
        return cls(Database.open(path, secrets=secrets))

    @classmethod
    def open_readonly(cls, path: Path | None = None) -> SessionStore:
        """Open an existing store for reading only (``Database.open_readonly``)."""
        return cls(Database.open_readonly(path))

    @property
    def path(self) -> Path:
        return self.db.path

    @property
    def readonly(self) -> bool:
        return self.db.readonly

    @property
    def fault_hook(self) -> Callable[[str], None] | None:
        """Test hook on every commit point (see ``Database.fault_hook``)."""
        return self.db.fault_hook

    @fault_hook.setter
    def fault_hook(self, hook: Callable[[str], None] | None) -> None:
        self.db.fault_hook = hook

    def checkpoint(self) -> bool:
        return self.db.checkpoint()

    def close(self) -> None:
        """Flush buffered stream events (best effort is not enough: errors raise) and close.

        The connection is closed even when that last flush fails (a full disk), so
        the caller can report the :class:`StoreError` and exit without a traceback.
        """
        with self.db.lock:
            try:
                if self.responses.release_all():
                    self.db.write("stream", lambda c: None)
            finally:
                self.db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- sessions

    def create_session(
        self,
        workspace: str,
        model: str,
        base_url: str | None,
        mode: str,
        *,
        wire: str | None = None,
    ) -> str:
        return self.catalogue.create_session(workspace, model, base_url, mode, wire=wire)

    def set_workspace(self, session_id: str, workspace: str) -> None:
        self.catalogue.set_workspace(session_id, workspace)

    def set_state(self, session_id: str, state: str) -> None:
        self.catalogue.set_state(session_id, state)

    def set_mode(self, session_id: str, mode: str) -> None:
        self.catalogue.set_mode(session_id, mode)

    def list_sessions(self) -> list[SessionInfo]:
        return self.catalogue.list_sessions()

    def get_session(self, id_or_prefix: str) -> SessionInfo:
        return self.catalogue.get_session(id_or_prefix)

    def lock_session(self, session_id: str) -> session_lock.SessionLock:
        return self.catalogue.lock_session(session_id)

    # ----------------------------------------------------------------- history & text

    def append_items(self, session_id: str, items: Sequence[Item]) -> None:
        """Store history items in one commit (``Timeline.append_items``)."""
        self.timeline.append_items(session_id, items)

    def load_items(self, session_id: str) -> list[Item]:
        """The conversation as the model is sent it: the latest compaction applied
        (``compactions.py``); ``timeline.load_items`` has the originals."""
        return self.compactions.history(session_id)

    def add_assistant_text(self, session_id: str, text: str, *, interrupted: bool = False) -> None:
        self.timeline.add_assistant_text(session_id, text, interrupted=interrupted)

    def add_turn_stopped(self, session_id: str, why: str) -> None:
        self.timeline.add_turn_stopped(session_id, why)

    def add_reasoning(self, session_id: str, text: str) -> None:
        self.timeline.add_reasoning(session_id, text)

    def add_contract_error(
        self,
        session_id: str,
        kind: str,
        message: str,
        offset: int,
        response_id: int | None = None,
    ) -> None:
        self.timeline.add_contract_error(session_id, kind, message, offset, response_id)

    def records(self, session_id: str) -> list[LogRecord]:
        """The session timeline as stored (what a process that holds it reads)."""
        return self.timeline.records(session_id)

    def records_after(self, session_id: str, after: int) -> list[LogRecord]:
        """The timeline's rows after ``seq = after`` (``Timeline.records_after``)."""
        return self.timeline.records_after(session_id, after)

    def records_before(self, session_id: str, before: int | None, limit: int) -> list[LogRecord]:
        """A page of the timeline, newest first as pages go (``Timeline.records_before``)."""
        return self.timeline.records_before(session_id, before, limit)

    def failures(self, session_id: str) -> list[Failure]:
        """The session's failed replies, each placed in the timeline (``Timeline.failures``)."""
        return self.timeline.failures(session_id)

    def records_as_read(self, session_id: str) -> list[LogRecord]:
        """The timeline as a reader must show it: while no process holds the session,
        each call left without a result ends in an inferred ``interrupted`` /
        ``not_executed`` result (``inflight.settle``; nothing is written)."""
        return inflight.records_as_read(self.db, session_id)

    # ----------------------------------------------------------------- responses

    def begin_response(
        self,
        session_id: str,
        mode: str,
        model: str,
        request_index: int,
        *,
        wire: str | None = None,
    ) -> int:
        return self.responses.begin_response(session_id, mode, model, request_index, wire=wire)

    def add_stream_event(self, response_id: int, t: float, data: str) -> None:
        self.responses.add_stream_event(response_id, t, data)

    def end_response(self, response_id: int, finish_reason: str) -> None:
        self.responses.end_response(response_id, finish_reason)

    def recordings(self, session_id: str) -> list[RecordedResponse]:
        return self.responses.recordings(session_id)

    def next_request_index(self, session_id: str) -> int:
        return self.responses.next_request_index(session_id)

    # ----------------------------------------------------------------- calls & results

    def persistence(self, session_id: str) -> SessionPersistence:
        """The :class:`tools.contract.Persistence` the tool boundary uses for this session."""
        return SessionPersistence(self.ledger, session_id)

    def add_call(
        self,
        session_id: str,
        call: ToolCall,
        spec: ToolSpec | None = None,
        preview: Preview | None = None,
        response_id: int | None = None,
        *,
        started: bool = False,
    ) -> int:
        """The call row and, for a mutation, its pre-images at once (the live path splits
        them: ``SessionPersistence.keep_preimages`` runs while the tool runs, issue 24)."""
        ref = self.ledger.add_call(session_id, call, spec, preview, response_id, started=started)
        if spec is not None and spec.mutates and preview is not None:
            files = tuple(f for f in preview.files if f.old_bytes is not None)
            if files:
                self.ledger.preimages.keep(files)
        return ref

    def add_result(
        self, session_id: str, ref: int | None, result: ToolResult, *, point: str = "result"
    ) -> None:
        self.ledger.add_result(session_id, ref, result, point=point)

    def calls(self, session_id: str) -> list[CallRecord]:
        return self.ledger.calls(session_id)

    def unresolved_calls(self, session_id: str) -> list[CallRecord]:
        return self.ledger.unresolved_calls(session_id)

    def undelivered_results(self, session_id: str) -> list[ToolResult]:
        return self.ledger.undelivered_results(session_id)

    def undelivered(self, session_id: str) -> list[tuple[ToolCall | None, ToolResult]]:
        """Results the model never saw, each with the call it answers (``CallLedger``)."""
        return self.ledger.undelivered(session_id)

    def recover(
        self,
        session_id: str,
        workspace: str | Path | None = None,
        *,
        files: Callable[[Path], WorkspaceFiles],
    ) -> list[ToolResult]:
        """Reconcile every call without a result, commit and return the results (§7);
        target paths are relative to ``workspace`` (default: the session's own), read
        through ``files(workspace)`` (``tools.workspace_files.BeneathFiles``)."""
        root = (
            Path(workspace)
            if workspace is not None
            else Path(self.get_session(session_id).workspace)
        )
        return recover_session(self.ledger, session_id, files(root))
