"""Choosing what to compact in the history: pure functions, items in, items out.

The history is the loop's list of typed items (``model/conversation.py``): what every
wire encodes after the system prompt. It is read as *units* that are never split, so
that a compacted history still pairs every call with its result on every wire:

- a **round**: one :class:`AssistantTurn` (one model response) and the
  :class:`ToolResults` that follows it, native or framed, with any runtime feedback
  right after it (a repair request answers that response as its results do, and the images
  its tools read follow them). Results or
  feedback with no turn before them (a response that kept no text) are a round of their
  own;
- a **user** unit: one :class:`UserText` the *person* typed or queued (origin
  ``person``). Runtime texts (``notice``, ``carried``) are ``other`` units: the person
  did not type them, so they never stand for "the last thing the person said";
- a **summary** unit: an earlier compaction's summary (origin ``summary``) and the
  assistant's acknowledgement of it.

Three steps shorten it (docs/context-budget.md):

1. :func:`stub_results` — every result of a round older than the last ``keep_rounds``
   rounds gets a one-line stub body naming the call, its tool, how it ended, its size and
   where the full result is stored. The entry keeps its call id, tool, kind and exit
   code, and a framed result stays framed: a wire writes the frame from the body, so its
   byte count is the stub's without any frame being parsed here. A result is stubbed only
   when the stub is shorter.
2. :func:`trim_unread` — when the request would not fit the window at all, the results the
   model has not read yet (those answering its latest reply) are cut to their first 60 %
   and last 40 % (``tools/output_cap.py``) rather than stubbed: a stub of a result the
   model never saw tells it nothing of what its call did, and "call it again" repeats a
   command's side effects.
3. :func:`plan_summary` / :func:`apply_summary` — the units before the last
   ``keep_rounds`` rounds are replaced by one summary item (written by the model in a
   separate request; see ``compactor.py``), acknowledged by an assistant turn when the
   next kept item is on the user's side, so the summary stays a message of its own.

Invariants (``tests/test_compaction_props.py`` checks them over random histories): a
call is never split from its result (:func:`pairing_problems`); the last item the
person typed is kept verbatim; the estimated size never grows (stubs; a summary shorter
than what it replaces); stubbing twice changes nothing more. The system prompt (and the
project instructions in it) is not part of the history, so nothing here can drop it.
Nothing here knows any wire: :func:`~frontier.app.model.conversation.wire_messages`
makes the result valid for each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from frontier.app.model.conversation import (
    SUMMARY_MARK,
    AssistantTurn,
    Item,
    ResultEntry,
    ToolResults,
    UserText,
    assistant_text,
    call_text,
    image_note,
)
from frontier.app.record import record, replace
from frontier.tools.output_cap import cap_output

UnitKind = Literal["round", "user", "summary", "other"]

STUB_HEAD = "[result of "
STUB_TAIL = " elided to save context"
SUMMARY_ACK = "Understood; I will continue from that summary."
"""The assistant turn after a summary when the next kept item is on the user's side."""


@record
class Unit:
    """Items ``[start, end)`` of a history that stay together."""

    start: int
    end: int
    kind: UnitKind


@record
class Stub:
    """One result replaced by a stub."""

    index: int
    """The :class:`ToolResults` item holding it."""
    call_id: str
    name: str
    kind: str
    """How the call ended (``ok``, ``error``, ``denied``...)."""
    nbytes: int
    """The size of the result the model no longer sees (UTF-8 bytes of its body)."""
    where: str
    """Where the full result is kept (``session 1a2b3c4d log #57``), or empty."""


Locate = Callable[[int, str], tuple[str, str] | None]
"""``(item index, call id)`` → ``(where the result is stored, the call's tool name)``."""


@record
class SummaryPlan:
    """What :func:`apply_summary` replaces."""

    summarised: tuple[int, ...]
    """Indices of the items the summary replaces, in order."""
    kept_user: int | None
    """The last item the person typed, when it lies in the replaced part: it is kept
    verbatim, right after the summary."""
    rest: int
    """Items from here on are kept as they are (the last ``keep_rounds`` rounds)."""
    rounds: int
    """Rounds (model responses) summarised."""


# --------------------------------------------------------------------------- reading


def is_summary(item: Item) -> bool:
    """A compaction's summary. Known by its origin, not its text, so a person who types
    :data:`SUMMARY_MARK` is still the person."""
    return isinstance(item, UserText) and item.origin == "summary"


def is_stub(body: str) -> bool:
    """A result body :func:`stub_results` wrote (never stubbed again)."""
    return body.startswith(STUB_HEAD) and STUB_TAIL in body and body.endswith("]")


def _is_ack(item: Item) -> bool:
    return (
        isinstance(item, AssistantTurn)
        and item.text == SUMMARY_ACK
        and not item.calls
        and not item.cut
    )


def _is_feedback(item: Item) -> bool:
    """Runtime text that belongs to the round before it: a repair request, or the images
    the round's tools read (shown after its results)."""
    return isinstance(item, UserText) and item.origin in ("feedback", "tool")


def units(items: Sequence[Item]) -> list[Unit]:
    """The history as units that are never split (see the module doc), in one pass."""
    out: list[Unit] = []
    n = len(items)
    i = 0
    while i < n:
        item = items[i]
        j = i + 1
        kind: UnitKind
        if isinstance(item, UserText) and item.origin == "summary":
            if j < n and _is_ack(items[j]):
                j += 1
            kind = "summary"
        elif isinstance(item, UserText) and item.origin == "person":
            kind = "user"
        elif isinstance(item, UserText) and not _is_feedback(item):
            kind = "other"
        else:  # a turn, results, or feedback: the round goes on to what answered it
            if isinstance(item, AssistantTurn) and j < n and isinstance(items[j], ToolResults):
                j += 1
            while j < n and _is_feedback(items[j]):
                j += 1
            kind = "round"
        out.append(Unit(i, j, kind))
        i = j
    return out


def last_user(items: Sequence[Item]) -> int | None:
    """Index of the last item the person typed (never compacted), else ``None``."""
    for i in range(len(items) - 1, -1, -1):
        item = items[i]
        if isinstance(item, UserText) and item.origin == "person":
            return i
    return None


# --------------------------------------------------------------------------- step 1


def stub_text(call_id: str, name: str, kind: str, nbytes: int, where: str) -> str:
    """The one line a result becomes: enough for the model to know what it had and to
    call again for it, and for ``frontier export`` to find the original."""
    what = f"{call_id} {name}" if name else call_id
    place = f"; stored in {where}" if where else "; kept in the session store"
    return (
        f"{STUB_HEAD}{what} ({kind}, {nbytes:,} bytes){STUB_TAIL}{place} — "
        "call it again (asking for less output) if you need it]"
    )


def stub_results(
    items: Sequence[Item], *, keep_rounds: int, locate: Locate | None = None
) -> tuple[list[Item], tuple[Stub, ...]]:
    """Step 1: the history with every result older than the last ``keep_rounds`` rounds
    given a stub body (only where the stub is shorter), and what was stubbed.

    Only result bodies change, so every item keeps its place, type, call ids and notes:
    the pairing, the framing and the person's words cannot be touched by this step."""
    out = list(items)
    stubs: list[Stub] = []
    rounds = [u for u in units(items) if u.kind == "round"]
    for unit in rounds[: max(0, len(rounds) - max(0, keep_rounds))]:
        head = items[unit.start]
        names = {c.id: c.name for c in head.calls} if isinstance(head, AssistantTurn) else {}
        for k in range(unit.start, unit.end):

            def stubbed(
                entry: ResultEntry, k: int = k, names: Mapping[str, str] = names
            ) -> str | None:
                stub = _stub_for(k, entry, names, locate)
                if stub is not None:
                    stubs.append(stub)
                return None if stub is None else stub_text(*_args(stub))

            _rewrite_bodies(out, k, stubbed)
    return out, tuple(stubs)


def _rewrite_bodies(items: list[Item], k: int, body: Callable[[ResultEntry], str | None]) -> None:
    """``items[k]``, when it holds results, with each result's body replaced by what
    ``body`` makes of it (``None``: left as it is); only bodies change (steps 1 and 2)."""
    item = items[k]
    if not isinstance(item, ToolResults):
        return
    entries = [(entry, body(entry)) for entry in item.results]
    if any(new is not None for _, new in entries):
        results = tuple(e if new is None else replace(e, body=new) for e, new in entries)
        items[k] = replace(item, results=results)


def _args(stub: Stub) -> tuple[str, str, str, int, str]:
    return stub.call_id, stub.name, stub.kind, stub.nbytes, stub.where


def _stub_for(
    index: int, entry: ResultEntry, names: Mapping[str, str], locate: Locate | None
) -> Stub | None:
    """The stub for one result, or ``None`` when it is one already or would not be
    shorter. The store's tool name wins (a result read back from an old session may not
    carry one), then the entry's, then the calling turn's."""
    if is_stub(entry.body):
        return None
    located = locate(index, entry.call_id) if locate is not None else None
    where, name = located if located is not None else ("", "")
    stub = Stub(
        index,
        entry.call_id,
        name or entry.name or names.get(entry.call_id, ""),
        entry.kind or "ok",
        len(entry.body.encode("utf-8")),
        where,
    )
    if len(stub_text(*_args(stub)).encode("utf-8")) >= stub.nbytes:
        return None
    return stub


# --------------------------------------------------------------------------- step 2


@record
class Trim:
    """One unread result cut to its two ends."""

    call_id: str
    name: str
    nbytes: int
    """Its size before (UTF-8 bytes of its body)."""
    kept: int
    """Its size after, the line saying what was cut included."""


def unread_start(items: Sequence[Item]) -> int:
    """Where the items the model has not answered yet begin: after its latest reply."""
    for i in range(len(items) - 1, -1, -1):
        if isinstance(items[i], AssistantTurn):
            return i + 1
    return 0


def trim_unread(items: Sequence[Item], cap: int) -> tuple[list[Item], tuple[Trim, ...]]:
    """Step 2: the history with every result the model has not read yet longer than
    ``cap`` UTF-8 bytes cut to ``cap`` (its first 60 % and last 40 %, the cut said in a
    line of its own, as the tool-output cap does), and what was cut. Older results, stubs
    and every other item are untouched: only result bodies change, as in step 1."""
    out = list(items)
    trims: list[Trim] = []

    def trimmed(entry: ResultEntry) -> str | None:
        nbytes = len(entry.body.encode("utf-8", errors="surrogateescape"))
        if nbytes <= cap or is_stub(entry.body):
            return None
        body = cap_output(entry.body, cap)
        trims.append(Trim(entry.call_id, entry.name, nbytes, len(body.encode("utf-8"))))
        return body

    for k in range(unread_start(items), len(items)):
        _rewrite_bodies(out, k, trimmed)
    return out, tuple(trims)


# --------------------------------------------------------------------------- step 3


def plan_summary(items: Sequence[Item], *, keep_rounds: int) -> SummaryPlan | None:
    """Step 2's choice: every unit before the last ``keep_rounds`` rounds, except the last
    item the person typed; ``None`` when that holds no round (nothing worth a summary)."""
    all_units = units(items)
    rounds = [u for u in all_units if u.kind == "round"]
    keep = max(0, keep_rounds)
    if len(rounds) <= keep:
        return None
    cut = rounds[len(rounds) - keep].start if keep else len(items)
    protected = next((u for u in reversed(all_units) if u.kind == "user"), None)
    span = [u for u in all_units if u.end <= cut]
    summarised = [u for u in span if u != protected]
    n_rounds = sum(1 for u in summarised if u.kind == "round")
    if not n_rounds:
        return None
    indices = tuple(i for u in summarised for i in range(u.start, u.end))
    kept_user = protected.start if protected is not None and protected in span else None
    return SummaryPlan(indices, kept_user, cut, n_rounds)


def summary_item(summary: str, plan: SummaryPlan) -> UserText:
    """The summary as the model reads it: marked, so the model (and a resumed session,
    the export, the TUI) know it stands for earlier rounds kept in the store."""
    latest = " The user's latest message follows it verbatim." if plan.kept_user is not None else ""
    rounds = "1 earlier round" if plan.rounds == 1 else f"{plan.rounds} earlier rounds"
    head = (
        f"{SUMMARY_MARK} {rounds} ({len(plan.summarised)} messages) replaced by this summary "
        f"to save context; the originals stay in the session store.{latest}]"
    )
    return UserText(f"{head}\n\n{summary.strip()}", "summary")


def apply_summary(items: Sequence[Item], plan: SummaryPlan, summary: str) -> list[Item]:
    """Step 2: the history with ``plan``'s items replaced by one summary item, then the
    person's last item (when it was in the replaced part) and the kept rounds.

    The acknowledgement keeps the summary a message of its own: without it a wire would
    join it to the user-side item after it (roles alternate), and the person's words
    would read as part of the summary."""
    tail: list[Item] = [items[plan.kept_user]] if plan.kept_user is not None else []
    tail += items[plan.rest :]
    out: list[Item] = [summary_item(summary, plan)]
    if tail and not isinstance(tail[0], AssistantTurn):
        out.append(AssistantTurn(SUMMARY_ACK))
    return out + tail


# --------------------------------------------------------------------------- what to summarise


def transcript(items: Sequence[Item], indices: Sequence[int], cap: int) -> str:
    """The items to summarise as plain text for the summariser, at most about ``cap``
    characters: each piece (a text, a reply with its calls, one result) is cut to an
    equal share, head and tail kept, and pieces in the middle are left out when even that
    does not fit — the start (what was asked) and the end (what was being done) matter
    most to a summary."""
    pieces = [piece for i in indices for piece in _pieces(items[i])]
    if not pieces:
        return ""
    share = max(200, cap // len(pieces))
    lines = [f"{label}: {_cut(body.strip(), share)}" for label, body in pieces]
    head, tail = _fit(lines, cap)
    if head + tail == len(lines):
        return "\n\n".join(lines)
    dropped = len(lines) - head - tail
    gap = f"[… {dropped} messages left out …]"
    return "\n\n".join([*lines[:head], gap, *lines[len(lines) - tail :]])


def _pieces(item: Item) -> list[tuple[str, str]]:
    """``(label, text)`` for each thing an item says, empty ones left out."""
    if isinstance(item, UserText):
        return [("USER", item.text)] if item.text.strip() else []
    if isinstance(item, AssistantTurn):
        text = "\n".join(
            p for p in (assistant_text(item), *map(call_text, item.calls)) if p.strip()
        )
        return [("ASSISTANT", text)] if text else []
    out = [
        (f"TOOL RESULT {r.call_id} {r.name}" if r.name else f"TOOL RESULT {r.call_id}", r.body)
        for r in item.results
    ]
    if item.note.strip():
        out.append(("USER", item.note))
    return out


def _fit(lines: Sequence[str], cap: int) -> tuple[int, int]:
    """How many lines to keep from the start and from the end so the text fits ``cap``:
    the middle goes first, one line at a time, never the first and last line. Linear:
    the kept size is updated, never summed again."""
    n = len(lines)
    sizes = [len(line) + 2 for line in lines]
    head, tail = (n + 1) // 2, n // 2
    total = sum(sizes)
    while head + tail > 2 and total > cap:
        if head > tail:  # dropping alternates: the later of the two middle lines first
            head -= 1
            total -= sizes[head]
        else:
            total -= sizes[n - tail]
            tail -= 1
    return head, tail


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]}\n[… {len(text) - limit:,} characters left out …]\n{text[-tail:]}"


def mechanical_summary(items: Sequence[Item], indices: Sequence[int]) -> str:
    """A summary written without the model (when the summary request fails): what the
    person asked, what the assistant said first, and each call with how it ended."""
    lines: list[str] = []
    for i in indices:
        item = items[i]
        if isinstance(item, UserText):
            text = " ".join(item.text.split())
            if item.origin == "summary":
                lines.append(f"- an earlier summary: {_short(text, 600)}")
            elif item.origin == "person":
                lines.append(f"- the user wrote: {_short(text, 300)}")
            elif item.origin == "tool":
                lines.extend(f"  - {image_note(i)} was shown to the assistant" for i in item.images)
            elif item.origin != "feedback":  # a repair request says nothing worth keeping
                lines.append(f"- Frontier told the assistant: {_short(text, 200)}")
        elif isinstance(item, AssistantTurn):
            text = " ".join(item.text.split())
            prose = text.split(" call ", 1)[0] if text else ""  # a text protocol's calls
            if prose and not _is_ack(item):
                lines.append(f"- the assistant said: {_short(prose, 200)}")
            lines.extend(f"  - called {c.name} ({c.id})" for c in item.calls)
        else:
            before = items[i - 1] if i > 0 else None
            native = {c.id for c in before.calls} if isinstance(before, AssistantTurn) else set()
            for r in item.results:
                how = f"{r.kind or 'ok'}, {len(r.body.encode('utf-8')):,} bytes"
                if r.call_id in native:
                    lines.append(f"  - result {r.call_id}: {how}")
                else:  # a call written in the reply's text: named here
                    lines.append(f"  - called {r.name or 'a tool'} ({r.call_id}): {how}")
    return "(Written by Frontier, not the model: the summary request failed.)\n" + "\n".join(lines)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------- checking


def pairing_problems(items: Sequence[Item]) -> list[str]:
    """Every way ``items`` splits a call from its result (empty when none).

    An assistant turn's native calls must be answered, each exactly once, by the native
    (not framed) :class:`ToolResults` right after it; results must follow the turn that
    called: native results a turn with those calls, framed results a turn at all (their
    calls are in its text). Anything else a wire would patch (a ``not_executed`` result,
    results sent as text) and the model would read a call without its outcome."""
    problems: list[str] = []
    for k, item in enumerate(items):
        if isinstance(item, AssistantTurn) and item.calls:
            ids = [c.id for c in item.calls]
            if len(set(ids)) != len(ids):
                problems.append(f"item {k}: calls {ids} use an id twice")
            after = items[k + 1] if k + 1 < len(items) else None
            if not isinstance(after, ToolResults) or after.framed:
                problems.append(f"item {k}: calls {ids} without their results right after")
                continue
            answered = [r.call_id for r in after.results]
            if sorted(answered) != sorted(ids):
                problems.append(f"item {k + 1}: results for {answered}, but item {k} called {ids}")
        elif isinstance(item, ToolResults) and item.results:
            before = items[k - 1] if k > 0 else None
            answered = [r.call_id for r in item.results]
            if not isinstance(before, AssistantTurn):
                problems.append(f"item {k}: results for {answered} without the reply that called")
            elif not item.framed and not before.calls:
                problems.append(f"item {k}: results for {answered} but item {k - 1} made no call")
    return problems


__all__ = [
    "STUB_HEAD",
    "STUB_TAIL",
    "SUMMARY_ACK",
    "SUMMARY_MARK",
    "Locate",
    "Stub",
    "SummaryPlan",
    "Trim",
    "Unit",
    "UnitKind",
    "apply_summary",
    "is_stub",
    "is_summary",
    "last_user",
    "mechanical_summary",
    "pairing_problems",
    "plan_summary",
    "stub_results",
    "stub_text",
    "summary_item",
    "transcript",
    "trim_unread",
    "units",
    "unread_start",
]
