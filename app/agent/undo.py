"""Undo: choose the mutation to put back, check it can be, run it as a reviewed call, tell
the model (DESIGN §5, issue 15).

:meth:`AgentSession.undo` (the TUI's ``/undo`` and palette, ``frontier undo``) calls
:func:`run_undo`, which

1. **chooses** the call: the one named (``c4``; a call id the model reused names its
   newest use that changed files), else the newest file mutation still in effect — not
   an undo, and not undone already. Repeated undos so walk back through the session;
   naming an undo (``u1``) undoes *it*, which brings its call's changes back;
2. **checks**, writing nothing when it cannot: every file must still have the hash the
   call left (else the refusal names the file, its hash now and the one expected, and a
   later call of the session that wrote it, if one did), and every earlier version must
   have been kept (``app/session/preimages.py`` says why one was not);
3. **runs** an ``undo`` call (``tools/undo.py``) through a
   :class:`~frontier.tools.boundary.ToolBoundary` of its own: reviewed by the
   session's interactive approver whatever the approval policy (the policy governs
   the model's calls; an undo is the person's own action, and they see what it writes),
   recorded with pre/post hashes and pre-images (an undo can be undone), written by the
   journaled atomic writer, its result committed;
4. **tells the model** with the next user message (:func:`notice_for`): the result is
   logged after the last message the model saw, so a session resumed later (an undo made
   with ``frontier undo``) finds it among the undelivered results and
   :func:`split_undone` turns it into the same note instead of a result frame.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from pathlib import Path

from frontier.app.events import Event, ToolCall, ToolResult
from frontier.app.record import record

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

    from frontier.app.model.request import ModelRequest
    from frontier.app.model.stream import StreamItem
    from frontier.app.session.calls import CallRecord, Target
    from frontier.app.session.store import SessionStore
    from frontier.tools.contract import Approver, Decision, Preview, ToolSpec

    UndoKind = Literal["undone", "refused", "not_found", "denied", "failed"]

UNDO_TOOL = "undo"
"""``tools.undo.UNDO_TOOL`` (repeated here so importing this module stays light)."""
UNDO_ID_PREFIX = "u"


@record
class UndoOutcome:
    """What an undo did, for the person (``message``) and the model (``notice``)."""

    kind: UndoKind
    """``undone``; ``refused`` (it cannot be undone as things are: nothing written);
    ``not_found`` (no such call); ``denied`` (the review said no); ``failed`` (the write
    failed: ``message`` says what is on disk)."""
    message: str
    call: str | None = None
    """The id of the call undone (or that could not be)."""
    undo_id: str | None = None
    """The id of the ``undo`` call that ran (``u1``), when one ran."""
    result: ToolResult | None = None
    notice: str | None = None
    """What the model is told with the next user message (only when files changed)."""

    @property
    def undone(self) -> bool:
        return self.kind == "undone"


# --------------------------------------------------------------------------- choosing


def wrote_files(call: CallRecord) -> bool:
    """A file mutation that succeeded and changed files (not a dry run, not "already
    applied", not an error), or a command found to have changed files whatever its exit
    (``tools/command_changes.py``: a failed ``ruff --fix`` may have fixed half): what an
    undo can put back."""
    result = call.result
    return (
        call.mutates
        and bool(call.targets)
        and result is not None
        and (result.ok or "targets" in result.meta)
        and bool(result.meta.get("files"))
    )


def _refs(call: CallRecord) -> list[int]:
    """The rows of the calls an undo undid: its ``ref``, or a rewind's ``rewind.refs``
    (every change after the message it went back to)."""
    ref = call.args.get("ref")
    if isinstance(ref, int):
        return [ref]
    rewind = call.args.get("rewind")
    refs = rewind.get("refs") if isinstance(rewind, dict) else None
    return [r for r in refs if isinstance(r, int)] if isinstance(refs, list) else []


def undone_by(calls: Sequence[CallRecord]) -> dict[int, CallRecord]:
    """``call seq → the undo in effect that undid it``. An undo that was itself undone no
    longer counts, so the calls it had undone are in effect again."""
    by_seq = {c.seq: c for c in calls}
    out: dict[int, CallRecord] = {}
    for c in calls:
        if c.name != UNDO_TOOL or not wrote_files(c):
            continue
        for ref in _refs(c):
            out[ref] = c
            target = by_seq.get(ref)
            if target is not None and target.name == UNDO_TOOL:
                for inner in _refs(target):
                    if out.get(inner) is target:
                        del out[inner]
    return out


def choose(calls: Sequence[CallRecord], wanted: str | None) -> CallRecord | UndoOutcome:
    """The call to undo, or the outcome saying why there is none."""
    undone = undone_by(calls)
    if wanted is None:
        for c in reversed(calls):
            if c.name != UNDO_TOOL and wrote_files(c) and c.seq not in undone:
                return c
        hint = ""
        if undone:
            last = max(undone.values(), key=lambda u: u.seq)
            hint = (
                f" (every change is undone already; to bring one back, undo its undo: "
                f"`undo {last.call_id}`)"
            )
        return UndoOutcome("refused", f"nothing to undo: no file change is in effect{hint}")
    named = [c for c in calls if c.call_id == wanted]
    if not named:
        changed = [f"{c.call_id} {c.name}" for c in calls if wrote_files(c)][-8:]
        listed = f"; calls that changed files: {', '.join(changed)}" if changed else ""
        return UndoOutcome("not_found", f"no call {wanted!r} in this session{listed}", wanted)
    writers = [c for c in named if wrote_files(c)]
    if not writers:
        return UndoOutcome("refused", _not_undoable(named[-1]), wanted)
    # servers reuse ids across responses (LM Studio's call_0): the newest change of that
    # name still in effect, so undoing it again reaches the one before
    in_effect = [c for c in writers if c.seq not in undone]
    target = in_effect[-1] if in_effect else writers[-1]
    if target.seq in undone:
        by = undone[target.seq]
        return UndoOutcome(
            "refused",
            f"{wanted} was already undone by {by.call_id}; to bring its changes back, undo "
            f"{by.call_id}",
            wanted,
        )
    return target


def _not_undoable(call: CallRecord) -> str:
    result = call.result
    unwatched = result.meta.get("unwatched") if result is not None else None
    if isinstance(unwatched, str):
        return (
            f"{call.call_id} {call.name}: what it changed was not recorded ({unwatched}); "
            "nothing to undo"
        )
    if call.name in ("shell", "python") and not call.targets:
        return (
            f"{call.call_id} {call.name} changed none of the files it names; what a command "
            "or script writes elsewhere is not recorded, and cannot be undone"
        )
    if not call.mutates or not call.targets:
        return (
            f"{call.call_id} is a {call.name} call: only file changes (write, replace, multi, "
            "apply_patch, a command's changes to the files it names, undo) can be undone"
        )
    if result is None:
        return f"{call.call_id} {call.name} has no result yet; nothing to undo"
    first = result.output.strip().splitlines()[0] if result.output.strip() else ""
    if not result.ok:
        return f"{call.call_id} {call.name} changed nothing (its result: {result.kind}: {first})"
    return f"{call.call_id} {call.name} changed no file ({first or 'nothing written'})"


# --------------------------------------------------------------------------- checking


class Digests:
    """sha256 of workspace files now, resolved beneath the root at the moment of use."""

    def __init__(self, root: Path) -> None:
        from frontier.tools.workspace_files import BeneathFiles

        self.files = BeneathFiles(root)

    def __call__(self, path: str) -> str | None:
        return self.files.digest(path)


def check(
    target: CallRecord,
    calls: Sequence[CallRecord],
    digest: Callable[[str], str | None],
    store: SessionStore,
) -> str | None:
    """Why ``target`` cannot be undone now (``None``: it can). Reads the files."""
    from frontier.tools.undo import changed_since

    for t in target.targets:
        now = digest(t.path)
        if now != t.post:
            refusal = changed_since(t.path, target.call_id, now, t.post)
            later = _later_writer(target, calls, t.path, now)
            if later is not None:
                refusal += (
                    f". {later.call_id} {later.name} changed it after {target.call_id}: "
                    f"undo {later.call_id} first"
                )
            return refusal
    for t in target.targets:
        missing = not_kept(store, t)
        if missing is not None:
            return (
                f"undo unavailable: {target.call_id}'s earlier content of {t.path} was not "
                f"kept ({missing}); nothing written"
            )
    return None


def _later_writer(
    target: CallRecord, calls: Sequence[CallRecord], path: str, now: str | None
) -> CallRecord | None:
    """The newest later call of the session whose write left ``path`` as it is now."""
    for c in reversed(calls):
        if c.seq <= target.seq:
            break
        if wrote_files(c) and any(x.path == path and x.post == now for x in c.targets):
            return c
    return None


def not_kept(store: SessionStore, target: Target) -> str | None:
    if target.pre is None:
        return None  # absent before: the undo deletes it
    status = store.preimages.status(target.pre)
    if status is None:
        return "the call was recorded before Frontier kept earlier versions"
    if not status.kept:
        return status.skipped or "not kept"
    return None


# --------------------------------------------------------------------------- running


def undo_call(target: CallRecord, undo_id: str) -> ToolCall:
    """The ``undo`` call that puts ``target``'s files back (its arguments are recorded)."""
    files: list[dict[str, Any]] = []
    for t in target.targets:
        entry: dict[str, Any] = {"path": t.path}
        if t.post is not None:
            entry["expect"] = t.post
        if t.pre is not None:
            entry["restore"] = t.pre
        if t.mode is not None:
            entry["mode"] = t.mode
        files.append(entry)
    args: dict[str, Any] = {"call": target.call_id, "name": target.name, "ref": target.seq}
    rewind = target.args.get("rewind")
    if isinstance(rewind, dict):  # undoing a rewind's files: every change comes back
        args["undid"] = f"the rewind to before message {rewind.get('to')}"
    elif target.name == UNDO_TOOL:  # undoing an undo: say what comes back
        args["undid"] = f"{target.args.get('call')} {target.args.get('name')}"
    args["files"] = files
    made = made_folders(target)
    if made:
        args["folders"] = made
    return ToolCall(undo_id, UNDO_TOOL, args)


def made_folders(call: CallRecord) -> list[str]:
    """The folders ``call`` made (its result's ``meta["made"]``: a new file's folders, a
    command's ``cp -r src backup``), which its undo removes once it has emptied them."""
    made = call.result.meta.get("made") if call.result is not None else None
    return [f for f in made if isinstance(f, str)] if isinstance(made, list) else []


def next_undo_id(store: SessionStore, session_id: str) -> str:
    """``u1``, ``u2``…: one more than any ``u<N>`` id the session has used."""
    used = [0]
    for cid in store.ledger.ids_with_prefix(session_id, UNDO_ID_PREFIX):
        digits = cid[len(UNDO_ID_PREFIX) :]
        if digits.isdigit():
            used.append(int(digits))
    return f"{UNDO_ID_PREFIX}{max(used) + 1}"


class ReviewFirst:
    """``tools.contract.Approver`` for an undo: always the person's review (``ask``), never
    the policy; with nobody to ask it is denied, saying how to allow it. A protected path
    (``.git``, ``.frontier``: git runs what they say), named or reached through a link
    beneath ``root``, is named in the preview (``Preview.protected``), which no unseen
    approval (:class:`Approve`) covers: a command could leave a link ``x`` to
    ``.git/hooks/pre-commit`` where the model's script had been, and ``frontier undo
    --yes`` "recreated x" into the hook."""

    def __init__(self, ask: Approver | None, root: Path | None = None) -> None:
        self.ask = ask
        self.root = root

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        from frontier.tools.contract import Decision
        from frontier.tools.policy import naming_protected, protected_files

        preview = naming_protected(preview, protected_files(preview, self.root))
        if self.ask is None:
            if preview.protected:
                return unseen_protected(preview.protected)
            return Decision(
                False,
                "an undo is reviewed first and nobody can be asked here: use /undo in the "
                "TUI, run `frontier undo` in a terminal, or pass --yes",
                by="frontier",
                unanswered="--yes",
            )
        return await self.ask.approve(call, spec, preview)


def unseen_protected(protected: tuple[str, ...]) -> Decision:
    """The refusal of an undo writing a protected path that nobody looks at."""
    from frontier.tools.contract import Decision

    return Decision(
        False,
        f"{', '.join(protected)}: a protected path (git runs what it says), changed only "
        "after you review it: run `frontier undo` in a terminal without --yes, or /undo in "
        "the TUI",
        by="frontier",
    )


class Approve:
    """``frontier undo --yes``: the person approved on the command line, unseen — which
    covers no protected path (:attr:`Preview.protected`)."""

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        from frontier.tools.contract import Decision

        if preview.protected:
            return unseen_protected(preview.protected)
        return Decision(True, "approved with --yes")


async def run_undo_call(
    store: SessionStore,
    session_id: str,
    root: Path,
    approver: Approver | None,
    emit: Callable[[Event], None] | None,
    call: ToolCall,
) -> ToolResult:
    """Run an ``undo`` call through a boundary of its own: reviewed by the person whatever
    the policy, recorded in the session's store, written atomically."""
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.registry import Registry
    from frontier.tools.undo import UndoTool

    boundary = ToolBoundary(
        Registry([UndoTool(store.preimages)]),
        root,
        ReviewFirst(approver, root),
        store.persistence(session_id),
        emit=emit,
    )
    return await boundary.run(call)


async def run_undo(
    store: SessionStore,
    session_id: str,
    root: Path,
    approver: Approver | None,
    emit: Callable[[Event], None] | None,
    wanted: str | None = None,
) -> UndoOutcome:
    """Undo ``wanted`` (a call id) or the newest change in effect; see the module doc."""
    calls = store.ledger.calls(session_id)
    chosen = choose(calls, wanted)
    if isinstance(chosen, UndoOutcome):
        return chosen
    refusal = check(chosen, calls, Digests(root), store)
    if refusal is not None:
        return UndoOutcome("refused", refusal, chosen.call_id)
    call = undo_call(chosen, next_undo_id(store, session_id))
    result = await run_undo_call(store, session_id, root, approver, emit, call)
    kind: UndoKind
    if result.kind == "ok":
        kind = "undone"
    elif result.kind == "denied":
        kind = "denied"
    elif result.output.startswith(("refused", "undo unavailable")):
        kind = "refused"
    else:
        kind = "failed"
    return UndoOutcome(
        kind,
        result.output,
        chosen.call_id,
        call.id,
        result,
        notice_for(result) if kind == "undone" else None,
    )


# --------------------------------------------------------------------------- telling the model


def notice_for(result: ToolResult, *, rewound: bool = True) -> str | None:
    """The note the next user message opens with, for an undo's result (``None``: there
    is nothing the model needs to hear — the undo wrote nothing). ``rewound``: for a
    rewind's files, whether its conversation step was stored too (a crash between the
    two leaves the files put back and the model's conversation whole)."""
    if result.name != UNDO_TOOL:
        return None
    undo = result.meta.get("undo")
    if result.kind == "ok" and isinstance(undo, dict) and isinstance(undo.get("rewind"), dict):
        rewind = undo["rewind"] if rewound else {**undo["rewind"], "conversation": False}
        return rewind_notice(rewind, _paths(undo), _declined(result))
    if result.kind == "ok" and isinstance(undo, dict):
        what = f"call {undo.get('call')} {undo.get('name')}"
        if undo.get("name") == UNDO_TOOL:
            undid = f" of {undo['undid']}" if undo.get("undid") else ""
            what = (
                f"call {undo.get('call')} (their undo{undid}), so the changes it had undone "
                "are back"
            )
        declined = _declined(result)
        partly = f" except the hunks they kept ({', '.join(declined)})" if declined else ""
        return (
            f"(The user undid {what}{partly}: {put_back(undo)}. Those files are as they "
            "were before that call; re-read them before editing them.)"
        )
    files = result.meta.get("files")
    paths = ", ".join(files) if isinstance(files, dict) else ""
    if result.kind == "applied":
        return (
            f"(An undo the user ran ({result.call_id}) was interrupted by a crash and finished "
            f"on recovery: {paths} are as they were before the call it undid; re-read them "
            "before editing them.)"
        )
    if result.kind == "diverged":
        return (
            f"(An undo the user ran ({result.call_id}) was interrupted by a crash: {result.output})"
        )
    return None


def put_back(undo: dict[str, Any]) -> str:
    """``restored a.py; deleted new.py``: what an undo's result (its ``meta["undo"]``)
    put back, grouped as the model and the person are told it."""
    return "; ".join(
        f"{key} {', '.join(undo.get(key) or ())}"
        for key in ("restored", "deleted", "recreated")
        if undo.get(key)
    )


def _declined(result: ToolResult) -> list[str]:
    """The hunks a person kept out of an undo's review (``a.py #2``)."""
    return [
        f"{row.get('path')} #{n}"
        for row in result.meta.get("changes", ())
        for n in row.get("declined", ())
    ]


def _paths(undo: dict[str, Any]) -> list[str]:
    return [p for key in ("restored", "deleted", "recreated") for p in undo.get(key) or ()]


def rewind_notice(
    rewind: dict[str, Any], paths: Sequence[str], declined: Sequence[str]
) -> str | None:
    """What the model is told after a rewind's files were put back: nothing when its
    conversation was rewound too and every hunk went back (its history then says what
    the files are), else where the files differ from what it saw."""
    conversation = rewind.get("conversation") is True
    if conversation and not declined:
        return None
    kept = f", except the hunks they kept ({', '.join(declined)})" if declined else ""
    if conversation:
        return (
            "(The user took the conversation back to before one of their messages and put "
            f"back the files changed since{kept}. Re-read {', '.join(paths)} before editing "
            f"{'it' if len(paths) == 1 else 'them'}.)"
        )
    message = rewind.get("message")
    since = f" {message!r}" if isinstance(message, str) else ""
    return (
        f"(The user put back the files changed since their message{since} as they were "
        f"before it{kept}: {', '.join(paths)}. Re-read them before editing them.)"
    )


def split_undone(
    results: Sequence[ToolResult], rewound: Callable[[str], bool] = lambda call_id: True
) -> tuple[list[ToolResult], list[str]]:
    """Results the model has not seen, as ``(results to send as frames, undo notes)``: an
    undo is the person's action, not a call the model made, so it is told as a note.
    ``rewound(call_id)``: whether a rewind's conversation step followed its undo call."""
    rest: list[ToolResult] = []
    notes: list[str] = []
    for r in results:
        if r.name == UNDO_TOOL:
            note = notice_for(r, rewound=rewound(r.call_id))
            if note is not None:
                notes.append(note)
        else:
            rest.append(r)
    return rest, notes


# --------------------------------------------------------------------------- no model


class NoModel:
    """The client of a session opened only to undo (``frontier undo``): no endpoint is
    contacted, no key resolved; a request would say so."""

    def __init__(self, model: str = "", wire: str = "openai-chat") -> None:
        self.model = model
        self.wire = wire
        self.effort: str | None = None

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        from frontier.app.model.stream import StreamEnd  # `undo --list` never asks

        yield StreamEnd(
            "error",
            error="this session was opened without a model (frontier undo); resume it with "
            "`frontier resume ID` to talk to the model",
        )

    async def aclose(self) -> None:
        return None
