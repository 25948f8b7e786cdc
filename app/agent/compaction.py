"""Choosing what to compact in a chat history: pure functions, messages in, messages out.

The history is the list of chat messages the loop sends after its system prompt
(``AgentLoop.messages``). It is read as *units* that are never split:

- a **round**: one assistant message (one model response) and the results it got
  back — its ``tool`` messages (native modes), or the ``user`` message of result
  frames and repair text that follows it (text modes, ``frames.py``); a feedback
  message whose response kept no text is a round of its own;
- a **user** unit: one message the person typed (or queued);
- a **summary** unit: an earlier compaction's summary message and its acknowledgement.

Two steps shorten it (docs/context-budget.md):

1. :func:`stub_results` — every tool result of a round older than the last
   ``keep_rounds`` rounds becomes a one-line stub naming the call, its tool, how
   it ended, its size and where the full result is stored. A CTL result frame
   stays a well-formed frame (its byte count is the stub's), a ``tool`` message
   keeps its ``tool_call_id``. A result is stubbed only when the stub is shorter.
2. :func:`plan_summary` / :func:`apply_summary` — the units before the last
   ``keep_rounds`` rounds are replaced by one marked summary message (written by
   the model in a separate request; see ``compactor.py``), acknowledged by an
   assistant message when the next kept message is the user's, so roles still
   alternate.

Invariants (``tests/test_compaction_props.py`` checks them over random histories): a
call is never split from its result; the last message the person typed is kept
verbatim; the result is never longer than the input (stubs; a summary shorter than
what it replaces); stubbing twice changes nothing more. The system prompt (and the
project instructions in it) is not part of the history, so nothing here can drop it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from frontier.app.events import RESULT_KINDS

Message = Mapping[str, Any]
UnitKind = Literal["round", "user", "summary", "other"]

FEEDBACK = re.compile(r"result [A-Za-z0-9_.:-]{1,64} exit=\S+ \d+\n|error (truncated|contract)\b")
"""A ``user`` message the loop wrote (result frames, repair prompts): the session store's
test too (``session/timeline.py``)."""
_FRAME = re.compile(rb"result ([A-Za-z0-9_.:-]{1,64}) exit=(\S+) (\d+)\n")
_CTL_CALL = re.compile(
    r"^call ([A-Za-z0-9_.:-]{1,64}) ([A-Za-z_][A-Za-z0-9_.-]{0,63})[ \t]*$", re.M
)
_KIND = re.compile(r"^\[(" + "|".join(map(re.escape, RESULT_KINDS)) + r")\]")

STUB_HEAD = "[result of "
STUB_TAIL = " elided to save context"
SUMMARY_MARK = "[Frontier compacted the conversation:"
"""How a summary message starts (a resumed history, the export and the TUI know it by this)."""
SUMMARY_ACK = "Understood; I will continue from that summary."
"""The assistant message after a summary when the next kept message is the user's."""


@dataclass(frozen=True)
class Unit:
    """Messages ``[start, end)`` of a history that stay together."""

    start: int
    end: int
    kind: UnitKind


@dataclass(frozen=True)
class Stub:
    """One result replaced by a stub."""

    index: int
    """The message holding it."""
    call_id: str
    name: str
    kind: str
    """How the call ended (``ok``, ``error``, ``denied``...)."""
    nbytes: int
    """The size of the result the model no longer sees (UTF-8 bytes)."""
    where: str
    """Where the full result is kept (``session 1a2b3c4d #log 57``), or empty."""


Locate = Callable[[int, str], tuple[str, str] | None]
"""``(message index, call id)`` → ``(where the result is stored, the call's tool name)``."""


@dataclass(frozen=True)
class SummaryPlan:
    """What :func:`apply_summary` replaces."""

    summarised: tuple[int, ...]
    """Indices of the messages the summary replaces, in order."""
    kept_user: int | None
    """The last message the person typed, when it lies in the replaced part: it is kept
    verbatim, right after the summary."""
    rest: int
    """Messages from here on are kept as they are (the last ``keep_rounds`` rounds)."""
    rounds: int
    """Rounds (model responses) summarised."""


# --------------------------------------------------------------------------- reading


def text_of(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, Mapping) and "text" in p
        )
    return ""


def is_feedback(message: Message) -> bool:
    """A ``user`` message the loop wrote: result frames and/or a repair prompt."""
    return message.get("role") == "user" and FEEDBACK.match(text_of(message)) is not None


def is_summary(message: Message) -> bool:
    return message.get("role") == "user" and text_of(message).startswith(SUMMARY_MARK)


def is_stub(body: str) -> bool:
    return body.startswith(STUB_HEAD) and STUB_TAIL in body and body.endswith("]")


def units(messages: Sequence[Message]) -> list[Unit]:
    """The history as units that are never split (see the module doc)."""
    out: list[Unit] = []
    n = len(messages)
    i = 0
    while i < n:
        role = messages[i].get("role")
        j = i + 1
        if role == "assistant":
            while j < n and messages[j].get("role") == "tool":
                j += 1
            if j < n and is_feedback(messages[j]):
                j += 1
            kind: UnitKind = "round"
        elif role == "user" and is_summary(messages[i]):
            if j < n and _is_ack(messages[j]):
                j += 1
            kind = "summary"
        elif role == "user":
            kind = "round" if is_feedback(messages[i]) else "user"
        elif role == "tool":  # not written by the loop: kept together, never paired
            while j < n and messages[j].get("role") == "tool":
                j += 1
            kind = "other"
        else:
            kind = "other"
        out.append(Unit(i, j, kind))
        i = j
    return out


def _is_ack(message: Message) -> bool:
    return (
        message.get("role") == "assistant"
        and text_of(message) == SUMMARY_ACK
        and not message.get("tool_calls")
    )


def last_user(messages: Sequence[Message]) -> int | None:
    """Index of the last message the person typed (never compacted), else ``None``."""
    for unit in reversed(units(messages)):
        if unit.kind == "user":
            return unit.start
    return None


def call_names(message: Message) -> dict[str, str]:
    """Call id → tool name, from an assistant message (``tool_calls`` or CTL ``call`` lines)."""
    names: dict[str, str] = {}
    for call in message.get("tool_calls") or ():
        if isinstance(call, Mapping):
            function = call.get("function")
            name = function.get("name") if isinstance(function, Mapping) else None
            if isinstance(call.get("id"), str):
                names[call["id"]] = str(name or "")
    for match in _CTL_CALL.finditer(text_of(message)):
        names.setdefault(match.group(1), match.group(2))
    return names


@dataclass(frozen=True)
class Frame:
    """One ``result`` frame inside a feedback message (byte offsets into its UTF-8)."""

    call_id: str
    exit: str
    body: bytes
    start: int
    end: int


def frames(text: str) -> tuple[list[Frame], bytes]:
    """The result frames a feedback message starts with, and what follows them (repair
    text). Parsing stops at the first thing that is not a well-formed frame."""
    data = text.encode("utf-8")
    found: list[Frame] = []
    pos = 0
    while True:
        match = _FRAME.match(data, pos)
        if match is None:
            break
        size = int(match.group(3))
        body_end = match.end() + size
        if data[body_end : body_end + 5] != b"\nend\n":
            break
        found.append(
            Frame(
                match.group(1).decode(),
                match.group(2).decode(),
                data[match.end() : body_end],
                pos,
                body_end + 5,
            )
        )
        pos = body_end + 5
    return found, data[pos:]


def result_kind(body: str) -> str:
    """How a result ended, from the body the model reads (``[kind] ...`` for failures)."""
    match = _KIND.match(body)
    return match.group(1) if match else "ok"


# --------------------------------------------------------------------------- step 1


def stub_text(call_id: str, name: str, kind: str, nbytes: int, where: str) -> str:
    what = f"{call_id} {name}" if name else call_id
    place = f"; stored in {where}" if where else "; kept in the session store"
    return (
        f"{STUB_HEAD}{what} ({kind}, {nbytes:,} bytes){STUB_TAIL}{place} — "
        "call it again (asking for less output) if you need it]"
    )


def _frame(call_id: str, exit_: str, body: str) -> bytes:
    data = body.encode("utf-8")
    return f"result {call_id} exit={exit_} {len(data)}\n".encode() + data + b"\nend\n"


def stub_results(
    messages: Sequence[Message], *, keep_rounds: int, locate: Locate | None = None
) -> tuple[list[dict[str, Any]], tuple[Stub, ...]]:
    """Step 1: the history with every result older than the last ``keep_rounds`` rounds
    replaced by a stub (only where the stub is shorter), and what was stubbed."""
    out = [dict(m) for m in messages]
    stubs: list[Stub] = []
    rounds = [u for u in units(messages) if u.kind == "round"]
    old = rounds[: max(0, len(rounds) - max(0, keep_rounds))]
    for unit in old:
        head = messages[unit.start]
        names = call_names(head) if head.get("role") == "assistant" else {}
        for k in range(unit.start + 1, unit.end):
            message = messages[k]
            if message.get("role") == "tool":
                body = text_of(message)
                call_id = str(message.get("tool_call_id", ""))
                stub = _stub_for(k, call_id, body, names, locate)
                if stub is not None:
                    out[k]["content"] = stub_text(*_args(stub))
                    stubs.append(stub)
            elif is_feedback(message) and isinstance(message.get("content"), str):
                found, rest = frames(message["content"])
                if not found:
                    continue
                parts: list[bytes] = []
                changed = False
                for frame in found:
                    body = frame.body.decode("utf-8", "replace")
                    stub = _stub_for(k, frame.call_id, body, names, locate)
                    if stub is None:
                        parts.append(_frame(frame.call_id, frame.exit, body))
                        continue
                    parts.append(_frame(frame.call_id, frame.exit, stub_text(*_args(stub))))
                    stubs.append(stub)
                    changed = True
                if changed:
                    out[k]["content"] = (b"".join(parts) + rest).decode("utf-8", "replace")
    return out, tuple(stubs)


def _args(stub: Stub) -> tuple[str, str, str, int, str]:
    return stub.call_id, stub.name, stub.kind, stub.nbytes, stub.where


def _stub_for(
    index: int, call_id: str, body: str, names: Mapping[str, str], locate: Locate | None
) -> Stub | None:
    """The stub for one result, or ``None`` when it is one already or would not be shorter."""
    if is_stub(body):
        return None
    located = locate(index, call_id) if locate is not None else None
    where, name = located if located is not None else ("", "")
    stub = Stub(
        index,
        call_id,
        name or names.get(call_id, ""),
        result_kind(body),
        len(body.encode("utf-8")),
        where,
    )
    if len(stub_text(*_args(stub)).encode("utf-8")) >= stub.nbytes:
        return None
    return stub


# --------------------------------------------------------------------------- step 2


def plan_summary(messages: Sequence[Message], *, keep_rounds: int) -> SummaryPlan | None:
    """Step 2's choice: every unit before the last ``keep_rounds`` rounds, except the last
    message the person typed; ``None`` when that holds no round (nothing to gain)."""
    all_units = units(messages)
    rounds = [u for u in all_units if u.kind == "round"]
    keep = max(0, keep_rounds)
    if len(rounds) <= keep:
        return None
    cut = rounds[len(rounds) - keep].start if keep else len(messages)
    protected = next((u for u in reversed(all_units) if u.kind == "user"), None)
    span = [u for u in all_units if u.end <= cut]
    summarised = [u for u in span if u != protected]
    n_rounds = sum(1 for u in summarised if u.kind == "round")
    if not n_rounds:
        return None
    indices = tuple(i for u in summarised for i in range(u.start, u.end))
    kept_user = protected.start if protected is not None and protected in span else None
    return SummaryPlan(indices, kept_user, cut, n_rounds)


def summary_message(summary: str, plan: SummaryPlan) -> dict[str, Any]:
    latest = " The user's latest message follows it verbatim." if plan.kept_user is not None else ""
    rounds = "1 earlier round" if plan.rounds == 1 else f"{plan.rounds} earlier rounds"
    head = (
        f"{SUMMARY_MARK} {rounds} ({len(plan.summarised)} messages) replaced by this summary "
        f"to save context; the originals stay in the session store.{latest}]"
    )
    return {"role": "user", "content": f"{head}\n\n{summary.strip()}"}


def apply_summary(
    messages: Sequence[Message], plan: SummaryPlan, summary: str
) -> list[dict[str, Any]]:
    """Step 2: the history with ``plan``'s messages replaced by one summary message."""
    tail = [dict(messages[plan.kept_user])] if plan.kept_user is not None else []
    tail += [dict(m) for m in messages[plan.rest :]]
    out = [summary_message(summary, plan)]
    if tail and tail[0].get("role") != "assistant":
        out.append({"role": "assistant", "content": SUMMARY_ACK})
    return out + tail


# --------------------------------------------------------------------------- what to summarise


ROLE_LABEL = {"user": "USER", "assistant": "ASSISTANT", "tool": "TOOL RESULT", "system": "SYSTEM"}


def transcript(messages: Sequence[Message], indices: Sequence[int], cap: int) -> str:
    """The messages to summarise as plain text for the summariser, at most about ``cap``
    characters: each message is cut to an equal share (its head and tail kept), and
    messages in the middle are left out when even that does not fit."""
    picked = [messages[i] for i in indices]
    if not picked:
        return ""
    share = max(200, cap // len(picked))
    lines: list[str] = []
    for message in picked:
        role = str(message.get("role", ""))
        label = ROLE_LABEL.get(role, role.upper())
        if role == "tool":
            label += f" {message.get('tool_call_id', '')}"
        body = text_of(message)
        for call in message.get("tool_calls") or ():
            function = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(function, Mapping):
                body += f"\n[calls {function.get('name')} {function.get('arguments', '')}]"
        lines.append(f"{label}: {_cut(body.strip(), share)}")
    dropped = 0
    while len(lines) > 2 and sum(len(line) + 2 for line in lines) > cap:
        del lines[len(lines) // 2]
        dropped += 1
    if dropped:
        lines.insert(len(lines) // 2, f"[… {dropped} messages left out …]")
    return "\n\n".join(lines)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]}\n[… {len(text) - limit:,} characters left out …]\n{text[-tail:]}"


def mechanical_summary(messages: Sequence[Message], indices: Sequence[int]) -> str:
    """A summary written without the model (when the summary request fails): what the
    person asked, what the assistant said first, and each call with how it ended."""
    lines: list[str] = []
    for i in indices:
        message = messages[i]
        role = message.get("role")
        text = " ".join(text_of(message).split())
        if is_summary(message):
            lines.append(f"- an earlier summary: {_short(text, 600)}")
        elif role == "user" and not is_feedback(message):
            lines.append(f"- the user wrote: {_short(text, 300)}")
        elif role == "assistant":
            prose = text.split(" call ", 1)[0] if text else ""
            if prose and prose != SUMMARY_ACK:
                lines.append(f"- the assistant said: {_short(prose, 200)}")
            for call_id, name in call_names(message).items():
                lines.append(f"  - called {name} ({call_id})")
        elif role == "tool":
            body = text_of(message)
            lines.append(
                f"  - result {message.get('tool_call_id', '')}: {result_kind(body)}, "
                f"{len(body.encode('utf-8')):,} bytes"
            )
        if role == "user" and is_feedback(message):
            found, _ = frames(text_of(message))
            for frame in found:
                body = frame.body.decode("utf-8", "replace")
                lines.append(
                    f"  - result {frame.call_id}: {result_kind(body)}, {len(frame.body):,} bytes"
                )
    return "(Written by Frontier, not the model: the summary request failed.)\n" + "\n".join(lines)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------- checking


def pairing_problems(messages: Sequence[Message]) -> list[str]:
    """Every way ``messages`` splits a call from its result (empty when none): a ``tool``
    message not right after its assistant's ``tool_calls``, a call without its ``tool``
    message, a result frame not right after an assistant message that made the call."""
    problems: list[str] = []
    for unit in units(messages):
        head = messages[unit.start]
        if unit.kind == "other" and head.get("role") == "tool":
            problems.append(f"message {unit.start}: tool results without their call")
            continue
        if unit.kind != "round":
            continue
        calls = (
            [c.get("id") for c in head.get("tool_calls") or () if isinstance(c, Mapping)]
            if head.get("role") == "assistant"
            else []
        )
        answered = [
            messages[k].get("tool_call_id")
            for k in range(unit.start, unit.end)
            if messages[k].get("role") == "tool"
        ]
        if sorted(map(str, calls)) != sorted(map(str, answered)):
            problems.append(f"message {unit.start}: calls {calls} but results for {answered}")
        names = call_names(head) if head.get("role") == "assistant" else {}
        for k in range(unit.start, unit.end):
            message = messages[k]
            if not is_feedback(message):
                continue
            found, _ = frames(text_of(message))
            if found and head.get("role") != "assistant":
                problems.append(f"message {k}: result frames without the message that called")
            ctl = _CTL_CALL.search(text_of(head)) is not None
            for frame in found:
                if ctl and frame.call_id not in names:
                    problems.append(
                        f"message {k}: result {frame.call_id} for no call of {unit.start}"
                    )
    return problems


__all__ = [
    "SUMMARY_ACK",
    "SUMMARY_MARK",
    "Frame",
    "Stub",
    "SummaryPlan",
    "Unit",
    "apply_summary",
    "call_names",
    "frames",
    "is_feedback",
    "is_stub",
    "is_summary",
    "last_user",
    "mechanical_summary",
    "pairing_problems",
    "plan_summary",
    "result_kind",
    "stub_results",
    "stub_text",
    "transcript",
    "units",
]
