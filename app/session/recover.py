"""Crash recovery: reconcile calls that have no committed result (DESIGN §7).

Nothing is re-run. A multi-file write that died between its renames is first
finished or undone from its intent journal (``journal.recover_intents``), so it
is whole or absent. Then a file mutation is decided exactly by content hashes of
its target files (read beneath the workspace root) against the pre-image and
post-image hashes committed with the call row: all at post → ``applied``; all at
pre → ``not_applied``; anything else → ``diverged``, naming each file and its
state. Any other call becomes
``interrupted`` if its start mark was committed (it was running: the outcome
is unknown) or ``not_executed`` if not (it never began).

The reconciled result is committed like any other result, so it is exactly
what the model sees when the session resumes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from frontier.app.events import ToolResult
from frontier.app.session.hashing import short
from frontier.app.session.journal import recover_intents
from frontier.tools import beneath
from frontier.tools.atomic import remove_leftovers
from frontier.tools.digest import sha256

if TYPE_CHECKING:
    from frontier.app.session.store import CallRecord, SessionStore, Target


def recover_session(
    store: SessionStore, session_id: str, workspace: str | Path | None = None
) -> list[ToolResult]:
    """Reconcile, commit and return a result for every unresolved call, in call order.

    ``workspace`` defaults to the session's recorded workspace; target paths are
    relative to it.
    """
    root = (
        Path(workspace) if workspace is not None else Path(store.get_session(session_id).workspace)
    )
    journaled = recover_intents(store, session_id, root)
    results: list[ToolResult] = []
    for call in store.unresolved_calls(session_id):
        result = reconcile_call(call, root, journaled.get(call.call_id))
        store.add_result(session_id, call.seq, result, point="recover")
        results.append(result)
    return results


def reconcile_call(call: CallRecord, root: Path, journaled: str | None = None) -> ToolResult:
    """The result a call without one gets after a crash (pure apart from reading files);
    ``journaled`` says what the intent journal's recovery did to its write."""
    if call.targets:
        return _reconcile_mutation(call, root, journaled)
    if call.started is not None:
        return _result(
            call,
            "interrupted",
            f"{call.name} call {call.call_id!r} was running when Frontier stopped: outcome "
            "unknown: check before retrying (it may have partly or fully run)",
        )
    return _result(
        call,
        "not_executed",
        f"{call.name} call {call.call_id!r} was recorded but never started when Frontier "
        "stopped: it did not run; issue it again if it is still needed",
    )


def _reconcile_mutation(call: CallRecord, root: Path, journaled: str | None) -> ToolResult:
    removed = [] if journaled else remove_leftovers(root, [t.path for t in call.targets])
    states: list[tuple[Target, str, str | None]] = []
    for target in call.targets:
        now = _hash(root, target.path)
        if now == target.post:
            state = "applied"
        elif now == target.pre:
            state = "unchanged"
        else:
            state = "other"
        states.append((target, state, now))
    files = {t.path: {"state": s, "pre": t.pre, "post": t.post, "now": h} for t, s, h in states}
    meta = {
        "recovered": True,
        "files": files,
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


def _hash(root: Path, path: str) -> str | None:
    """sha256 of the file at ``path`` read beneath ``root`` (``None`` absent; a directory or
    other non-regular file never matches a recorded hash)."""
    try:
        return sha256(beneath.read_file(root, path)[0])
    except (IsADirectoryError, beneath.NotRegularFileError):
        return "<not a regular file>"
    except (OSError, ValueError):
        return "<unreadable>"


def _result(call: CallRecord, kind: str, output: str, meta: dict | None = None) -> ToolResult:
    return ToolResult(
        call_id=call.call_id,
        name=call.name,
        kind=kind,  # type: ignore[arg-type]
        output=output,
        exit_code=None,
        elapsed=0.0,
        meta=meta if meta is not None else {"recovered": True, "started": call.started is not None},
    )
