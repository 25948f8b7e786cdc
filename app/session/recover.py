"""Crash recovery: reconcile calls that have no committed result (DESIGN §7).

Nothing is re-run. A multi-file write that died between its renames is first
finished or undone from its intent journal (:func:`recover_intents`), so it
is whole or absent. Then a file mutation is decided exactly by content hashes of
its target files (read beneath the workspace root) against the pre-image and
post-image hashes committed with the call row: all at post → ``applied``; all at
pre → ``not_applied``; anything else → ``diverged``, naming each file and its
state. Any other call becomes
``interrupted`` if its start mark was committed (it was running: the outcome
is unknown) or ``not_executed`` if not (it never began). A command that was running
with its watch's held files in the store (``journal.HOLDING``: what the files it names,
and in a git work tree the files git lists, were just before it ran) is compared with
them: what it had changed by now is recorded on its result as its own result would have
(``meta.targets``, the earlier content in ``preimages``), so ``/undo`` can put it back.

The reconciled result is committed like any other result, so it is exactly
what the model sees when the session resumes. Until then a reader shows the same
verdict for a call that is not a mutation, without writing (``inflight.py``).

This is the one module of the session layer that touches the workspace: it reads
target files beneath the root and lets the atomic writer (``tools.atomic``) finish
or undo its own interrupted writes, since only the writer knows its temp and
pre-image files. A store is untrusted input (a session can come from someone else), so
the writer's side checks every journal entry first; one it refuses is closed
``invalid: …`` with nothing touched, and the call's reconciled result says so. A row
whose call has no result to carry that (a crafted row naming a call that already has
one, or no call at all) becomes a note for the person instead (:func:`recover`):
whatever recovery did or refused is said somewhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from frontier.app.events import ToolResult
from frontier.app.record import record, replace
from frontier.app.session.calls import CallLedger, CallRecord, Target
from frontier.app.session.db import Database
from frontier.app.session.hashing import short
from frontier.app.session.inflight import outcome_unknown
from frontier.app.session.journal import (
    HOLDING,
    LEFT,
    close_intent,
    held_files,
    open_intents,
)

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NamedTuple, Protocol

    from frontier.app.events import ResultKind
else:
    from frontier.app.record import NamedTuple

INVALID = "invalid"
"""How a journal row recovery refused begins (``invalid: why; nothing was touched``): the
state it is closed with, and the start of what ``reconcile_call`` is told."""
_UNTOUCHED = "; nothing was touched"
REFUSED_HEAD = "Intent journal refused (crafted or damaged): no file was touched."
"""The first line of a reconciled result whose journal was refused: the headless printer
shows a result's first line, and this is what a person must not miss."""


if TYPE_CHECKING:  # a type only: typing.Protocol is not imported at run time

    class WorkspaceFiles(Protocol):
        """The file operations recovery needs, on the session's workspace (paths relative to
        it). The tool layer wrote those files and implements this
        (``frontier.tools.workspace_files.BeneathFiles``); the runtime passes it in, so the
        session layer never imports the tools."""

        def digest(self, path: str) -> str | None:
            """sha256 of the file now (``None`` when absent; a marker string when unreadable)."""
            ...

        def check_write(self, entries: object) -> str | None:
            """Why ``entries`` (a journal row as stored: untrusted) is not one the writer could
            have written; ``None`` when it is. Reads no file."""
            ...

        def finish_write(self, entries: Sequence[Mapping[str, Any]]) -> str:
            """Roll an interrupted multi-file write forward or back; say which. Raises
            ``ValueError`` (nothing touched) for entries ``check_write`` refuses."""
            ...

        def remove_leftovers(self, paths: Sequence[str]) -> list[str]:
            """Remove a killed write's temps and pre-images; the names removed."""
            ...

        def command_changes(
            self, held: Sequence[object], body_of: Callable[[str], bytes | None]
        ) -> tuple[dict[str, Any], dict[str, bytes], str] | str | None:
            """What an interrupted command had changed since its watch held ``held`` (the
            records as stored: untrusted), ``body_of`` giving the bytes the store kept:
            ``(meta, earlier content by hash, the model's note)``; ``None``: nothing; a
            string: why it cannot be told."""
            ...


@record
class Recovery:
    """What recovering a session did: a committed result per call that had none, and a
    note for the person per journal row no such result reports."""

    results: tuple[ToolResult, ...]
    """In call order; each committed, so it is exactly what the model sees next."""
    notes: tuple[str, ...]
    """A journal row recovery refused, or acted on, for a call it reconciled no result for
    (so the model is never told, and only the person can be): front ends show these with
    the session's other notes (``AgentSession.notes``: headless and the TUI)."""


class Closed(NamedTuple):
    """One intent row recovery closed, and what it came to."""

    call_id: str
    outcome: str


def recover(ledger: CallLedger, session_id: str, files: WorkspaceFiles) -> Recovery:
    """Reconcile, commit and return a result for every unresolved call, in call order
    (target paths are relative to the workspace ``files`` works on), and the notes for
    journal rows no result reports."""
    closed = recover_intents(ledger.db, session_id, files)
    journaled = {row.call_id: row.outcome for row in closed}
    holding = held_files(ledger.db, session_id)
    results: list[ToolResult] = []
    for call in ledger.unresolved_calls(session_id):
        result = reconcile_call(call, files, journaled.get(call.call_id))
        held = holding.pop(call.call_id, [])
        if held and call.started is not None and not call.targets:
            try:
                found = files.command_changes(held, ledger.preimages.get)
            except Exception as exc:  # a store is untrusted: recovery must go on
                found = f"reading what it held failed ({type(exc).__name__}: {exc})"
            result, kept = _with_changes(result, found)
            ledger.preimages.keep_bodies(kept.items())  # before the result names them
        ledger.add_result(session_id, call.seq, result, point="recover")  # closes its holds
        results.append(result)
    if holding:  # rows no call without a result owns (a crafted store's): done with them
        _close_left(ledger.db, session_id)
    answered = {result.call_id for result in results}
    reported = {row.call_id: row for row in closed}  # the row a call's result speaks of
    notes = [
        _unanswered(row)
        for row in closed
        if row.call_id not in answered or reported[row.call_id] is not row
    ]
    return Recovery(tuple(results), tuple(note for note in notes if note is not None))


def _with_changes(
    result: ToolResult, found: tuple[dict[str, Any], dict[str, bytes], str] | str | None
) -> tuple[ToolResult, dict[str, bytes]]:
    """An interrupted command's result with what it had changed by the time recovery looked
    (``found``: ``WorkspaceFiles.command_changes``) — the files as an edit's (``targets``:
    ``/undo`` puts them back) — and their earlier content, for the store."""
    if found is None:
        said = "\n[it had changed none of the files Frontier watched for it]"
        return replace(result, output=result.output + said), {}
    if isinstance(found, str):
        said = f"\n[what it changed is not known: {found}]"
        meta = {**result.meta, "unwatched": found}
        return replace(result, output=result.output + said, meta=meta), {}
    changed, kept, said = found
    meta = {**result.meta, **changed}
    return replace(result, output=f"{result.output}\n{said}", meta=meta), kept


def _close_left(db: Database, session_id: str) -> None:
    """Close the held-files rows of calls that have a result (a crafted store's): recovery
    is done with them."""
    db.write(
        "closing the commands' held files",
        lambda c: c.execute(
            "UPDATE intents SET state = ? WHERE session_id = ? AND state = ?",
            (LEFT, session_id, HOLDING),
        ),
    )


def recover_session(ledger: CallLedger, session_id: str, files: WorkspaceFiles) -> list[ToolResult]:
    """:func:`recover`'s results (``SessionStore.recover``; the runtime calls
    :func:`recover` itself, to show its notes too)."""
    return list(recover(ledger, session_id, files).results)


def _unanswered(row: Closed) -> str | None:
    """The note for a journal row no reconciled result speaks of (its call has a result
    already, there is no such call, or the call has another row: rows someone wrote into
    the store), ``None`` when recovery found nothing to do with it. The call id comes from
    the store: shown as ``repr``."""
    call = repr(row.call_id if len(row.call_id) <= 60 else row.call_id[:59] + "…")
    row_of = (
        f"the session store's intent journal row for call {call}, which no interrupted call "
        "accounts for"
    )
    if row.outcome.startswith(f"{INVALID}: "):
        why = row.outcome.removeprefix(f"{INVALID}: ").removesuffix(_UNTOUCHED)
        return (
            f"{REFUSED_HEAD} Recovery refused {row_of}: it is not one Frontier writes "
            f"({why}). If this session came from someone else, its store may have been edited"
        )
    if row.outcome.startswith(("rolled", "could not")):
        return (
            f"Recovery acted on {row_of}, as on an interrupted write: {row.outcome}. Check "
            "the files it names before going on"
        )
    return None


def recover_intents(db: Database, session_id: str, files: WorkspaceFiles) -> list[Closed]:
    """Finish or undo every write a crash interrupted; each row and what was done.

    Every row is checked first (``files.check_write``): a row naming anything the writer
    never writes (a temp ``../victim.txt``, an absolute pre-image, a hash that is no
    sha256) is closed as invalid and touches nothing, whatever the other rows say."""
    done: list[Closed] = []
    for intent in open_intents(db, session_id):
        entries = intent.entries
        if not isinstance(entries, list):
            kind = type(entries).__name__
            outcome = _invalid(intent.problem or f"its entries are {kind}, not a list")
        elif (problem := files.check_write(entries)) is not None:
            outcome = _invalid(problem)
        else:
            try:
                outcome = files.finish_write(entries)
            except ValueError as exc:  # refused before touching anything (or a path gone bad)
                outcome = _invalid(str(exc))
            except OSError as exc:
                outcome = f"could not be completed nor undone ({exc.strerror or exc})"
        close_intent(db, intent.id, outcome)
        done.append(Closed(intent.call_id, outcome))
    return done


def _invalid(problem: str) -> str:
    return f"{INVALID}: {problem}{_UNTOUCHED}"


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
    how = head = ""
    if journaled == "rolled forward":
        how = " Its write was interrupted between its renames and was completed from the journal."
    elif journaled == "rolled back":
        how = " Its write was interrupted between its renames and was undone from the journal."
    elif journaled is not None and journaled.startswith(f"{INVALID}: "):
        why = journaled.removeprefix(f"{INVALID}: ").removesuffix(_UNTOUCHED)
        head = REFUSED_HEAD + "\n"  # first: a front end that shows one line shows this one
        how = (
            " Its intent journal in the session store is not one Frontier writes "
            f"({why}), so recovery touched no file: the files are as found."
        )
    kinds = {s for _, s, _ in states}
    n = len(states)
    noun = "file" if n == 1 else "files"
    if kinds == {"applied"}:
        return _result(
            call,
            "applied",
            f"{head}{call.name} call {call.call_id!r} was interrupted by a crash, but the change "
            f"is on disk: all {n} {noun} match the approved result.{how} Do not apply it again.",
            meta,
        )
    if kinds == {"unchanged"}:
        return _result(
            call,
            "not_applied",
            f"{head}{call.name} call {call.call_id!r} was interrupted by a crash before writing: "
            f"all {n} {noun} are unchanged.{how} Issue the change again if it is still needed.",
            meta,
        )
    lines = [_describe(t, s, h) for t, s, h in states]
    return _result(
        call,
        "diverged",
        f"{head}{call.name} call {call.call_id!r} was interrupted by a crash and the files match "
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
