"""Rewind: take the session back to before one of the person's messages — the
conversation the model gets, the files the session's calls changed since, or both.

A person who sees the model go the wrong way wants to say it again differently, from
before the wrong turn; Claude Code's rewind (Esc Esc: code and conversation, either or
both), Codex CLI's backtrack and pi's fork do this. Frontier keeps everything a rewind
needs already: the history as stored items with their timeline positions, and every
file change's pre-image for undo. So a rewind is two steps the session already knows,
and the record keeps everything that happened:

- **files**: one ``undo`` call (``tools/undo.py``) whose files are every file a call
  changed after the message — each put back to what the first such call found, only if
  it still has what the last one left — reviewed by the person like any undo, recorded,
  written atomically, itself undoable (undoing it brings every change back). The calls
  it undid count as undone (``undo.undone_by`` reads its ``rewind.refs``), so a later
  ``/undo`` walks back from before the message. A ``shell`` command's changes to the files
  its line names are among them (``tools/command_changes.py``); anything else a command
  (``shell``, ``python``) that ran after it wrote is unknown and not put back, and the
  person is told;
- **conversation**: a compaction (reason ``rewind``) whose items are the history before
  the message, so the model's next request — and a resumed session's — starts there.

The message's text comes back for the person to send again, changed or not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from frontier.app.agent.undo import (
    UNDO_TOOL,
    Digests,
    made_folders,
    next_undo_id,
    not_kept,
    notice_for,
    put_back,
    run_undo_call,
    undone_by,
    wrote_files,
)
from frontier.app.events import Compacted, Event, ToolCall, ToolResult
from frontier.app.listing import listing
from frontier.app.notices import NOTICE_OPENINGS, REWOUND_JOBS_OPENING, split_notices
from frontier.app.record import record

TYPE_CHECKING = False  # typing is not imported at run time
if TYPE_CHECKING:
    from typing import Any, Literal

    from frontier.app.model.conversation import Item
    from frontier.app.session.calls import CallRecord
    from frontier.app.session.store import SessionStore
    from frontier.tools.contract import Approver

    RewindKind = Literal["rewound", "not_found", "refused", "denied", "failed"]

PREVIEW_CHARS = 80
"""A message's first line is cut to this in a list of them."""


NAMES_KEPT = 20
"""Files and commands a point names (the rest are counted): a long session's first
message has a thousand files changed since, and the picker shows a few."""


@record
class RewindPoint:
    """One of the person's messages the model still has: where a rewind can go back to."""

    number: int
    """1 for the first such message of the history, counting on."""
    text: str
    """What the person typed: the notes sent with it and the files its ``@`` mentions
    attached left out (sent again, the mentions attach the files as they are then)."""
    index: int
    """Its place in the history: the conversation rewound is the items before it."""
    position: int
    """Its timeline row: the calls after it are those with a higher ``seq``."""
    files: tuple[str, ...] = ()
    """Files a call changed after it that are not back to what they were (a rewind of
    the files puts these back), in the order first changed; the first ``NAMES_KEPT``."""
    file_count: int = 0
    commands: tuple[str, ...] = ()
    """Commands that ran after it (``shell``, ``python``: what they wrote beyond the files
    a command names is unknown and not put back), as ``c7 shell``, in order; the first
    ``NAMES_KEPT``."""
    command_count: int = 0

    @property
    def first_line(self) -> str:
        line = self.text.strip().split("\n", 1)[0]
        return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"


def named(names: Sequence[str], count: int, shown: int = NAMES_KEPT) -> str:
    """``a.py, b.py`` or ``a.py, b.py and 3 more``."""
    return listing(names, shown, total=count)


@record
class RewindOutcome:
    """What a rewind did, for the person."""

    kind: RewindKind
    """``rewound``; ``not_found`` (no such message: nothing done); ``refused`` (nothing
    done: a file changed since, an earlier version not kept…); ``denied`` (the review of
    the files said no: nothing done); ``failed`` (the files' write failed: ``message``
    says what is on disk; or the files were put back and the conversation's step could
    not be stored: the model is told of the files, ``notice``)."""
    message: str
    text: str = ""
    """The message rewound to, for the person to send again."""
    forgotten: int = 0
    """History items the model no longer gets (0 when the conversation was kept)."""
    undo_id: str | None = None
    """The ``undo`` call that put the files back (``u3``), when one ran."""
    result: ToolResult | None = None
    notice: str | None = None
    """What the model is told with the next message (the state differs from what its
    history says), or ``None``."""
    jobs_notice: str | None = None
    """The background jobs still running that calls after the message started: the
    rewound conversation no longer names them, so the model is told their ids."""


def rewind_points(store: SessionStore, session_id: str) -> list[RewindPoint]:
    """The person's messages the model still has, oldest first, each with what a rewind
    to before it would put back. Reads the store only (the files are read when it runs):
    one sweep of the calls from the newest back, so a long session's picker opens in
    about the time its history takes to read (``bench/rewind_points.py``)."""
    history = store.compactions.positioned(session_id)
    return _points(history, store.ledger.calls(session_id))


def _points(
    history: Sequence[tuple[Item, int | None]], calls: Sequence[CallRecord]
) -> list[RewindPoint]:
    from frontier.app.agent.attachments import typed_of
    from frontier.app.model.conversation import UserText

    persons = [
        (index, item, position)
        for index, (item, position) in enumerate(history)
        if isinstance(item, UserText) and item.origin == "person" and position is not None
    ]
    since = _Since()
    at = len(calls) - 1
    points: list[RewindPoint] = []
    for number, (index, item, position) in reversed(list(enumerate(persons, 1))):
        while at >= 0 and calls[at].seq > position:
            since.add_earlier(calls[at])
            at -= 1
        _, sent = split_notices(item.text)
        files, file_count = since.files()
        commands, command_count = since.commands()
        points.append(
            RewindPoint(
                number,
                typed_of(sent),  # its @mentions attach the files again when it is sent
                index,
                position,
                files,
                file_count,
                commands,
                command_count,
            )
        )
    points.reverse()
    return points


class _Since:
    """What the calls after a point did, the calls added from the newest back: per file
    what the first of them found and what the last left (changed: they differ), and the
    commands run."""

    def __init__(self) -> None:
        self.found: dict[str, str | None] = {}
        self.left: dict[str, str | None] = {}
        self.order: dict[str, None] = {}
        """Files by the earliest call that changed them, that call's last (insertion
        order: the newest added is the earliest in the session)."""
        self.changed = 0
        self.ran: list[str] = []

    def add_earlier(self, call: CallRecord) -> None:
        if _ran_command(call):
            self.ran.append(f"{call.call_id} {call.name}")
        if not wrote_files(call):
            return
        for t in reversed(call.targets):  # added backwards: its first file ends up first
            path = t.path
            was = path in self.found and self.found[path] != self.left[path]
            if path not in self.left:
                self.left[path] = t.post
            self.found[path] = t.pre
            self.order.pop(path, None)
            self.order[path] = None
            self.changed += (self.found[path] != self.left[path]) - was

    def files(self) -> tuple[tuple[str, ...], int]:
        names: list[str] = []
        for path in reversed(self.order):  # earliest changed first
            if len(names) == NAMES_KEPT:
                break
            if self.found[path] != self.left[path]:
                names.append(path)
        return tuple(names), self.changed

    def commands(self) -> tuple[tuple[str, ...], int]:
        return tuple(reversed(self.ran[-NAMES_KEPT:])), len(self.ran)


def _ran_command(call: CallRecord) -> bool:
    """A command that started: what it changed on disk is unknown."""
    return call.kind == "exec" and call.started is not None


def _net_changes(later: Sequence[CallRecord]) -> dict[str, dict[str, Any]]:
    """Per file a call changed in ``later`` (in order), the undo entry putting it back to
    what the first of them found from what the last left — files back where they began
    left out."""
    first: dict[str, dict[str, Any]] = {}
    last: dict[str, tuple[str | None, str]] = {}
    for c in later:
        if not wrote_files(c):
            continue
        for t in c.targets:
            if t.path not in first:
                entry: dict[str, Any] = {"path": t.path}
                if t.pre is not None:
                    entry["restore"] = t.pre
                if t.mode is not None:
                    entry["mode"] = t.mode
                first[t.path] = entry
            last[t.path] = (t.post, c.call_id)
    out: dict[str, dict[str, Any]] = {}
    for path, entry in first.items():
        post, by = last[path]
        if post == entry.get("restore"):
            continue  # changed and changed back (an edit and its undo)
        if post is not None:
            entry["expect"] = post
        entry["by"] = by
        out[path] = entry
    return out


def _files_call(
    point: RewindPoint,
    calls: Sequence[CallRecord],
    entries: Sequence[dict[str, Any]],
    undo_id: str,
    conversation: bool,
) -> ToolCall:
    """The ``undo`` call putting back every file changed after ``point`` (``entries``:
    :func:`_net_changes` of the calls after it)."""
    undone = undone_by(calls)
    later = [c for c in calls if c.seq > point.position]
    refs = [c.seq for c in later if c.name != UNDO_TOOL and wrote_files(c) and c.seq not in undone]
    ids = [f"{c.call_id} {c.name}" for c in later if c.seq in refs]
    args: dict[str, Any] = {
        "call": f"message {point.number}",
        "name": "rewind",
        "rewind": {
            "to": point.number,
            "message": point.first_line,
            "calls": ids,
            "refs": refs,
            "conversation": conversation,
        },
        "files": list(entries),
    }
    made = [f for c in later if c.seq in refs for f in made_folders(c)]
    if made:
        args["folders"] = list(dict.fromkeys(made))
    return ToolCall(undo_id, UNDO_TOOL, args)


def _check(
    store: SessionStore, entries: Sequence[dict[str, Any]], digest: Callable[[str], str | None]
) -> str | None:
    """Why the files cannot be put back now (``None``: they can); nothing is written."""
    from frontier.app.session.calls import Target
    from frontier.tools.undo import changed_since

    for e in entries:
        now = digest(e["path"])
        if now != e.get("expect"):
            return changed_since(e["path"], e["by"], now, e.get("expect"))
    for e in entries:
        missing = not_kept(store, Target(e["path"], e.get("restore"), e.get("expect")))
        if missing is not None:
            return (
                f"rewind unavailable: the content of {e['path']} before then was not kept "
                f"({missing}); nothing written"
            )
    return None


async def run_rewind(
    store: SessionStore,
    session_id: str,
    root: Path,
    approver: Approver | None,
    emit: Callable[[Event], None] | None,
    number: int,
    *,
    files: bool,
    conversation: bool,
    replace_history: Callable[[list[Item]], None] | None,
    jobs: Sequence[tuple[str, str]] = (),
) -> RewindOutcome:
    """Rewind to before the person's message ``number`` (:func:`rewind_points`): put its
    later file changes back (``files``: reviewed, one undo call) and/or give the model the
    history before it (``conversation``). Nothing is done when the files cannot be put
    back or their review is declined."""
    if not files and not conversation:
        raise ValueError("a rewind takes back the conversation, the files, or both")
    if conversation and replace_history is None:
        raise ValueError("this session's loop keeps no history to rewind")
    history = store.compactions.positioned(session_id)  # each read once, for every step
    calls = store.ledger.calls(session_id)
    points = _points(history, calls)
    chosen = next((p for p in points if p.number == number), None)
    if chosen is None:
        have = (
            f"1–{len(points)}"
            if len(points) > 1
            else "1"
            if points
            else "none: no message of yours is in the history"
        )
        return RewindOutcome("not_found", f"no message {number} to rewind to (messages: {have})")
    undo_id: str | None = None
    result: ToolResult | None = None
    if files and chosen.file_count:
        entries = list(_net_changes([c for c in calls if c.seq > chosen.position]).values())
        refusal = _check(store, entries, Digests(root))
        if refusal is not None:  # all or nothing, as an undo: say what can be done instead
            hint = " (the conversation alone can still be taken back: the files stay as they are)"
            return RewindOutcome("refused", refusal + (hint if conversation else ""), chosen.text)
        call = _files_call(chosen, calls, entries, next_undo_id(store, session_id), conversation)
        result = await run_undo_call(store, session_id, root, approver, emit, call)
        undo_id = call.id
        if result.kind == "denied":  # its output says by whom and why (no terminal…)
            why = result.output.split(". Do not retry")[0].strip().rstrip(".")
            return RewindOutcome("denied", f"not rewound, {why}; nothing changed", chosen.text)
        if result.kind != "ok":
            refused = result.output.startswith(("refused", "undo unavailable"))
            return RewindOutcome(
                "refused" if refused else "failed", result.output, chosen.text, 0, undo_id, result
            )
    forgotten = 0
    taken = len(points) - chosen.number + 1  # the person's messages the model loses
    notice = _notice(chosen, conversation, result)
    if conversation and replace_history is not None:
        # a note no undo row carries is kept with the step, so a resume still tells it
        kept = notice if result is None else None
        try:
            forgotten = _rewind_conversation(
                store, session_id, history, chosen, replace_history, kept, taken
            )
        except Exception as exc:  # a full disk: the files are back, the conversation whole
            if result is None:
                raise
            return RewindOutcome(
                "failed",
                f"the files were put back ({_put_back(result)}) but the conversation could "
                f"not be rewound: {exc}",
                chosen.text,
                0,
                undo_id,
                result,
                notice_for(result, rewound=False),
            )
        if emit is not None:
            emit(compaction_of(chosen.number, forgotten, taken))
    return RewindOutcome(
        "rewound",
        _said(chosen, files, conversation, result),
        chosen.text,
        forgotten,
        undo_id,
        result,
        notice,
        _jobs_notice(calls, chosen, jobs) if conversation else None,
    )


def _rewind_conversation(
    store: SessionStore,
    session_id: str,
    history: Sequence[tuple[Item, int | None]],
    point: RewindPoint,
    replace_history: Callable[[list[Item]], None],
    notice: str | None,
    messages: int,
) -> int:
    """Record the ``history`` before ``point`` as a compaction and give it to the loop;
    ``notice``: what the model is to be told with the next message (see
    :func:`undelivered_notice`); ``messages``: the person's messages it takes out."""
    kept = history[: point.index]
    detail: dict[str, Any] = {
        "reason": "rewind",
        "before": None,
        "after": 0,
        "rounds": 0,
        "items": len(history) - len(kept),
        "to": point.number,
        "messages": messages,
    }
    if notice is not None:
        detail["notice"] = notice
    store.compactions.add(
        session_id,
        "summary",  # the schema's steps; detail.reason says it was a rewind
        [item for item, _ in kept],
        detail,
        log_seqs=[position for _, position in kept],
    )
    replace_history([item for item, _ in kept])
    return len(history) - len(kept)


def undelivered_notice(store: SessionStore, session_id: str) -> str | None:
    """The note of a "conversation only" rewind that no message has carried yet (the
    session was closed before the next one): a resumed session opens its next message
    with it, as it does an undo's. Nothing stored after the step: not delivered."""
    latest = store.compactions.latest(session_id)
    if latest is None or latest.detail.get("reason") != "rewind":
        return None
    notice = latest.detail.get("notice")
    if not isinstance(notice, str) or not notice.startswith(NOTICE_OPENINGS):
        return None  # an edited or damaged store: never an arbitrary text to the model
    if len(store.compactions.positioned(session_id)) != len(latest.items):
        return None  # a message was stored after it: it carried the note
    return notice


def conversation_stored(store: SessionStore, session_id: str) -> Callable[[str], bool]:
    """``call_id → whether a rewind's conversation step was stored after that undo call``
    (``split_undone``'s ``rewound``). The files go first; a crash before the step leaves
    the model's conversation whole, so its note must say the files were put back."""
    steps = [
        s.log_seq for s in store.compactions.steps(session_id) if s.detail.get("reason") == "rewind"
    ]
    if not steps:
        return lambda call_id: False
    undos = {c.call_id: c.seq for c in store.ledger.calls(session_id) if c.name == UNDO_TOOL}
    return lambda call_id: call_id in undos and max(steps) > undos[call_id]


def compaction_of(number: int, forgotten: int, messages: int) -> Compacted:
    """The Transcript's line for a rewound conversation (live; a resumed session makes
    the same from the stored detail: ``compaction_event``)."""
    from frontier.app.agent.compaction_event import compaction_event

    detail = {"reason": "rewind", "items": forgotten, "to": number, "after": 0}
    return compaction_event("summary", {**detail, "messages": messages})


def _notice(point: RewindPoint, conversation: bool, result: ToolResult | None) -> str | None:
    """What the model must hear with the next message: where the files are not what its
    (rewound or not) history says."""
    if result is not None:
        return notice_for(result)  # the files were put back: ``undo.rewind_notice``
    if conversation and point.file_count:
        return (
            "(The user took the conversation back to before one of their messages; files "
            f"changed after it were kept as they are now: {named(point.files, point.file_count)}"
            ". Re-read them before editing them.)"
        )
    return None


def _jobs_notice(
    calls: Sequence[CallRecord], point: RewindPoint, jobs: Sequence[tuple[str, str]]
) -> str | None:
    """The note naming the running ``jobs`` (``(id, command)``; a job's id is the id of
    the call that started it) that a call after ``point`` started: the model's rewound
    conversation has no trace of them, and a dev server it started again would meet its
    own port in use."""
    if not jobs:
        return None
    later = {c.call_id for c in calls if c.seq > point.position}
    named_jobs = [f"{job_id} ({_short(command)})" for job_id, command in jobs if job_id in later]
    if not named_jobs:
        return None
    return (
        f"{REWOUND_JOBS_OPENING}still run: {', '.join(named_jobs)}. Read or stop them with the "
        "job tool and these ids before starting them again.)"
    )


def _short(command: str) -> str:
    flat = " ".join(command.split())
    return flat if len(flat) <= 60 else flat[:59] + "…"


def _put_back(result: ToolResult) -> str:
    """``restored a.py; deleted new.py``: what the rewind's undo put back."""
    undo = result.meta.get("undo")
    return put_back(undo) if isinstance(undo, dict) else ""


def _said(
    point: RewindPoint,
    files: bool,
    conversation: bool,
    result: ToolResult | None,
) -> str:
    """The person's one line: what was taken back, what stayed."""
    n = point.number
    restored = _put_back(result) if result is not None else ""
    if conversation and files:
        said = f"rewound to before your message {n}: the conversation and the files"
        said += f" ({restored})" if restored else " (no file had changed since)"
    elif conversation:
        said = f"rewound to before your message {n}: the conversation"
        if point.file_count:
            said += f"; the files stay as they are ({named(point.files, point.file_count, 5)})"
    else:
        said = f"rewound the files to before your message {n} ({restored or 'none changed'})"
        said += "; the model keeps the conversation"
    if point.command_count:
        shown = named(point.commands, point.command_count, 5)
        plural = "s" if point.command_count != 1 else ""
        them = "the files it names" if point.command_count == 1 else "the files they name"
        said += f"; not put back: what the command{plural} run since wrote beyond {them} ({shown})"
    return said


__all__ = [
    "RewindOutcome",
    "RewindPoint",
    "compaction_of",
    "conversation_stored",
    "named",
    "rewind_points",
    "run_rewind",
    "undelivered_notice",
]
