"""Crash recovery: reconcile calls that have no committed result (DESIGN §7).

Nothing is re-run. A multi-file write that died between its renames is first
finished or undone from its intent journal (:func:`recover_intents`), so it
is whole or absent. Then a file mutation is decided exactly by content hashes of
its target files (read beneath the workspace root) against the pre-image and
post-image hashes committed with the call row: all at post → ``applied``; all at
pre → ``not_applied``; anything else → ``diverged``, naming each file and its
state. Any other call becomes
``interrupted`` if its start mark was committed (it was running: the outcome
is unknown) or ``not_executed`` if not (it never began).

The reconciled result is committed like any other result, so it is exactly
what the model sees when the session resumes. Until then a reader shows the same
verdict for a call that is not a mutation, without writing (``inflight.py``).

This is the one module of the session layer that touches the workspace: it reads
target files beneath the root and lets the atomic writer (``tools.atomic``) finish
or undo its own interrupted writes, since only the writer knows its temp and
pre-image files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from frontier.app.events import ResultKind, ToolResult
from frontier.app.session.calls import CallLedger, CallRecord, Target
from frontier.app.session.db import Database
from frontier.app.session.hashing import short
from frontier.app.session.inflight import outcome_unknown
from frontier.app.session.journal import close_intent, open_intents


class WorkspaceFiles(Protocol):
    """The file operations recovery needs, on the session's workspace (paths relative to
    it). The tool layer wrote those files and implements this
    (``frontier.tools.workspace_files.BeneathFiles``); the runtime passes it in, so the
    session layer never imports the tools."""

    def digest(self, path: str) -> str | None:
        """sha256 of the file now (``None`` when absent; a marker string when unreadable)."""
        ...

    def finish_write(self, entries: Sequence[Mapping[str, Any]]) -> str:
        """Roll an interrupted multi-file write forward or back; say which."""
        ...

    def remove_leftovers(self, paths: Sequence[str]) -> list[str]:
        """Remove a killed write's temps and pre-images; the names removed."""
        ...


def recover_session(ledger: CallLedger, session_id: str, files: WorkspaceFiles) -> list[ToolResult]:
    """Reconcile, commit and return a result for every unresolved call, in call order;
    target paths are relative to the workspace ``files`` works on."""
    journaled = recover_intents(ledger.db, session_id, files)
    results: list[ToolResult] = []
    for call in ledger.unresolved_calls(session_id):
        result = reconcile_call(call, files, journaled.get(call.call_id))
        ledger.add_result(session_id, call.seq, result, point="recover")
        results.append(result)
    return results


def recover_intents(db: Database, session_id: str, files: WorkspaceFiles) -> dict[str, str]:
    """Finish or undo every write a crash interrupted; ``call id → what was done``."""
    done: dict[str, str] = {}
    for intent in open_intents(db, session_id):
        try:
            outcome = files.finish_write(intent.entries)
        except OSError as exc:
            outcome = f"could not be completed nor undone ({exc.strerror or exc})"
        close_intent(db, intent.id, outcome)
        done[intent.call_id] = outcome
    return done


def reconcile_call(
    call: CallRecord, files: WorkspaceFiles, journaled: str | None = None
) -> ToolResult:
    """The result a call without one gets after a crash (pure apart from reading files);
    ``journaled`` says what the intent journal's recovery did to its write."""
    if call.targets:
        return _reconcile_mutation(call, files, journaled)
    return outcome_unknown(call, {"recovered": True, "started": call.started is not None})


def _reconcile_mutation(
    call: CallRecord, files: WorkspaceFiles, journaled: str | None
) -> ToolResult:
    removed = [] if journaled else files.remove_leftovers([t.path for t in call.targets])
    states: list[tuple[Target, str, str | None]] = []
    for target in call.targets:
        now = files.digest(target.path)
        if now == target.post:
            state = "applied"
        elif now == target.pre:
            state = "unchanged"
        else:
            state = "other"
        states.append((target, state, now))
    seen = {t.path: {"state": s, "pre": t.pre, "post": t.post, "now": h} for t, s, h in states}
    meta: dict[str, Any] = {
        "recovered": True,
        "files": seen,
        "started": call.started is not None,
        "removed_temps": removed,
        "journal": journaled,
    }
    how = ""
    if journaled == "rolled forward":
        how = " Its write was interrupted between its renames and was completed from the journal."
    elif journaled == "rolled back":
        how = " Its write was interrupted between its renames and was undone from the journal."
    kinds = {s for _, s, _ in states}
    n = len(states)
    noun = "file" if n == 1 else "files"
    if kinds == {"applied"}:
        return _result(
            call,
            "applied",
            f"{call.name} call {call.call_id!r} was interrupted by a crash, but the change is "
            f"on disk: all {n} {noun} match the approved result.{how} Do not apply it again.",
            meta,
        )
    if kinds == {"unchanged"}:
        return _result(
            call,
            "not_applied",
            f"{call.name} call {call.call_id!r} was interrupted by a crash before writing: "
            f"all {n} {noun} are unchanged.{how} Issue the change again if it is still needed.",
            meta,
        )
    lines = [_describe(t, s, h) for t, s, h in states]
    return _result(
        call,
        "diverged",
        f"{call.name} call {call.call_id!r} was interrupted by a crash and the files match "
        "neither the state before it nor the approved result:\n"
        + "\n".join(lines)
        + "\nRead these files before editing them again.",
        meta,
    )


def _describe(target: Target, state: str, now: str | None) -> str:
    if state == "applied":
        return f"  {target.path}: has the approved change"
    if state == "unchanged":
        return f"  {target.path}: unchanged (the change was not written)"
    return (
        f"  {target.path}: changed by something else (expected {short(target.pre)} before or "
        f"{short(target.post)} after, found {short(now)})"
    )


def _result(call: CallRecord, kind: ResultKind, output: str, meta: dict[str, Any]) -> ToolResult:
    return ToolResult(call.call_id, call.name, kind, output, exit_code=None, elapsed=0.0, meta=meta)
