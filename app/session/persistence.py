"""The session store as the tool boundary sees it (``tools.contract.Persistence``).

The boundary calls, for every call that passed prepare and gate:
``persist_call`` (before any side effect) → ``mark_started`` (just before the
side effect) → ``commit_result`` (before the model sees the result), or
``persist_and_start`` for the first two in one commit when execution follows at
once. Each commits its own transaction and raises :class:`StoreError` on failure,
which the boundary turns into ``session_persistence_failed``.

A mutation's pre-images are kept in two steps (``preimages.py``): the call row carries
placeholders only, so its commit does not grow with the files' size, and
:meth:`SessionPersistence.keep_preimages` stores the bytes once the tool has started —
the boundary runs it on a worker thread while the tool runs; ``commit_result`` runs it
first if nobody did, so a result never commits before its call's pre-images.

CTL call ids are chosen by the model and may repeat across responses of one
session, so the adapter remembers which stored call row each live id refers to.
It is built on the call ledger alone (and the intent journal beside it), not on
the whole store.
"""

from __future__ import annotations

from collections.abc import Mapping

from frontier.app.events import ToolCall, ToolResult
from frontier.app.session.calls import CallLedger
from frontier.app.session.db import StoreError
from frontier.app.session.journal import StoreJournal

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from frontier.tools.contract import FilePreview, Preview, ToolSpec


class SessionPersistence:
    """Implements ``frontier.tools.contract.Persistence`` for one session."""

    def __init__(self, ledger: CallLedger, session_id: str) -> None:
        self.ledger = ledger
        self.session_id = session_id
        self._refs: dict[str, int] = {}
        self._unkept: dict[str, tuple[FilePreview, ...]] = {}
        """Per live call id: the files whose pre-images still wait for ``keep_preimages``."""

    def persist_call(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        """Commit the call row with each target's pre-image and expected post-image hash."""
        self._refs[call.id] = self.ledger.add_call(self.session_id, call, spec, preview)
        self._note_unkept(call.id, spec, preview)

    def persist_and_start(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        """``persist_call`` + ``mark_started`` in one commit, for a call that runs at once."""
        self._refs[call.id] = self.ledger.add_call(
            self.session_id, call, spec, preview, started=True
        )
        self._note_unkept(call.id, spec, preview)

    def keep_preimages(self, call_id: str) -> None:
        """Store the bytes behind the call's placeholders (scan, hash check, one commit):
        safe on a worker thread; a second call, or one for a call without any, does
        nothing. Raises :class:`StoreError` when the store fails."""
        files = self._unkept.pop(call_id, None)
        if files:
            self.ledger.preimages.keep(files)

    def keep_found(self, bodies: Mapping[str, bytes]) -> None:
        """Store the earlier content of files a command was found to change (its result
        records their hashes: ``tools/command_changes.py``): scanned, checked and capped as
        an edit's pre-images; safe on a worker thread."""
        self.ledger.preimages.keep_bodies(bodies.items())

    def _note_unkept(self, call_id: str, spec: ToolSpec, preview: Preview) -> None:
        files = tuple(f for f in preview.files if f.old_bytes is not None)
        if spec.mutates and files:
            self._unkept[call_id] = files
        else:
            self._unkept.pop(call_id, None)  # an id reused by a model: not the old call's

    def mark_started(self, call_id: str) -> None:
        """Commit that the side effect is about to begin (→ ``interrupted`` after a crash)."""
        ref = self._ref(call_id)
        if ref is None:
            raise StoreError(
                f"mark_started({call_id!r}): no persisted call with that id in session "
                f"{self.session_id}; persist_call must be committed before execution"
            )
        self.ledger.add_started(self.session_id, ref, call_id)

    def commit_result(self, result: ToolResult) -> None:
        """Commit the result row, after the call's pre-images (``keep_preimages``, if still
        due); a call rejected before persisting gets a result row alone."""
        self.keep_preimages(result.call_id)
        ref = self._ref(result.call_id)
        self.ledger.add_result(self.session_id, ref, result)
        if ref is not None and self._refs.get(result.call_id) == ref:
            del self._refs[result.call_id]

    def commit_rejected(self, call: ToolCall, result: ToolResult) -> None:
        """Commit the result of a call that was never persisted, with its arguments."""
        self.ledger.add_rejected(self.session_id, call, result)

    def journal(self, call_id: str) -> StoreJournal:
        """The intent journal for this call's multi-file writes (``contract.IntentJournal``)."""
        return StoreJournal(self.ledger.db, self.session_id, call_id)

    def _ref(self, call_id: str) -> int | None:
        ref = self._refs.get(call_id)
        if ref is None:
            ref = self.ledger.find_open_call(self.session_id, call_id)
        return ref
