"""A stored session as records a person or a tool can read (jsonl / Markdown).

The one home of the export format, used by ``frontier export``, the TUI's export
key (through ``AgentSession.export``) and the tests. Record types:
``{"type": "user"|"reasoning"|"assistant"|"call"|"result"|"error"|"ended", ...}`` in the
order things happened (``reasoning``: what the model streamed of its thinking, stored
since stop 53); each result carries its ``kind`` and the ``id`` of its call; ``ended`` is
a turn that stopped where a reply failed (its ``reason`` and the server's ``message``) or
was stopped where no prose was being said (``cancelled``, and who stopped it).

A session nobody holds is exported as a reader must see it (:func:`read_session`):
a call its dead process left without a result ends in an ``interrupted`` (or
``not_executed``) result marked ``"inferred": true`` — nothing is written, and a
resume commits the reconciled result in its place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from frontier.app import fastjson
from frontier.app.notices import split_notices
from frontier.app.session.catalogue import Catalogue, SessionInfo
from frontier.app.session.db import Database, StoreError
from frontier.app.session.timeline import Failure, LogRecord, Timeline
from frontier.app.session.times import iso_time
from frontier.app.vocab import DEFAULT_WIRE
from frontier.tools.patch_summary import change_lines, output_first, result_changes

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

    from frontier.app.session.compactions import CompactionRecord

INTERRUPTED_NOTE = (
    "⏹ interrupted: the turn was stopped (by the user, or a signal) while this reply streamed; "
    "the text above is what was confirmed until then"
)


def read_session(db: Database, id_or_prefix: str) -> tuple[SessionInfo, list[dict[str, Any]]]:
    """The session an id (or unique prefix) names and its export records, as a reader
    sees them (``inflight.records_as_read``). From the database, not the store's façade:
    ``frontier export`` opens only what it reads (start-up, issue 24)."""
    from frontier.app.session.compactions import Compactions
    from frontier.app.session.inflight import records_as_read

    info = Catalogue(db).get_session(id_or_prefix)
    try:
        compactions = Compactions(db).all(info.id)
    except StoreError:  # a database older than schema v4, read without migrating
        compactions = []
    try:
        failures = Timeline(db).failures(info.id)
    except StoreError:  # a database older than schema v2 (no log_seq), read without migrating
        failures = []
    return info, list(export_records(records_as_read(db, info.id), compactions, failures))


def export_records(
    log: list[LogRecord],
    compactions: Sequence[CompactionRecord] = (),
    failures: Sequence[Failure] = (),
) -> Iterator[dict[str, Any]]:
    """The timeline as export records (``started`` marks fold into their call), with a
    ``compaction`` record where the history sent to the model was shortened (the
    records around it are the originals), and an ``ended`` record where a reply failed
    (``Timeline.failures``: the turn ended there, ``provider_error``)."""
    started = {r.ref for r in log if r.type == "started"}
    marks = sorted(compactions, key=lambda c: (c.log_seq or 0, c.id))
    ends = sorted(failures, key=lambda f: f.log_seq)
    text: list[str] = []
    text_t = 0.0
    interrupted = False

    def flush() -> Iterator[dict[str, Any]]:
        nonlocal interrupted
        if text:
            record: dict[str, Any] = {
                "type": "assistant",
                "t": iso_time(text_t),
                "text": "".join(text),
            }
            if interrupted:  # the user stopped the turn while this reply streamed
                record["interrupted"] = True
            yield record
            text.clear()
            interrupted = False

    for r in log:
        d = r.data
        while marks and (marks[0].log_seq or 0) < r.seq:  # before a reply failed there:
            yield from flush()  # the request that failed was the compacted one
            yield compaction_record(marks.pop(0))
        while ends and ends[0].log_seq < r.seq:
            yield from flush()
            yield ended_record(ends.pop(0))
        if r.type == "assistant" and "reasoning" in d:
            yield from flush()
            yield {"type": "reasoning", "t": iso_time(r.t), "text": str(d["reasoning"])}
            continue
        if r.type == "assistant" and d.get("interrupted") and not d.get("text"):
            yield from flush()  # a turn stopped where no prose was being said
            yield stopped_record(r.t, str(d.get("why") or "the turn was stopped"))
            continue
        if r.type == "assistant":
            if not text:
                text_t = r.t
            text.append(str(d.get("text", "")))
            interrupted = interrupted or bool(d.get("interrupted"))
            continue
        if r.type == "started":
            continue
        yield from flush()
        t = iso_time(r.t)
        if r.type == "user":
            user = {"type": "user", "t": t, "text": d.get("text", "")}
            images = d.get("images")
            if isinstance(images, list) and images:
                user["images"] = [str(name) for name in images]
            yield user
        elif r.type == "call":
            yield {
                "type": "call",
                "t": t,
                "id": d.get("id"),
                "name": d.get("name"),
                "args": d.get("args", {}),
                "tool_kind": d.get("kind"),
                "targets": d.get("targets", []),
                "started": r.seq in started,
                **({"diff": d["diff"]} if isinstance(d.get("diff"), str) else {}),
                **_origin(d),
            }
        elif r.type == "result":
            meta = d.get("meta") or {}
            if r.ref is None and isinstance(d.get("args"), dict):  # rejected, never persisted
                yield {
                    "type": "call",
                    "t": t,
                    "id": d.get("id"),
                    "name": d.get("name"),
                    "args": d["args"],
                    "tool_kind": None,
                    "targets": [],
                    "started": False,
                    **_origin(d),
                }
            yield {
                "type": "result",
                "t": t,
                "id": d.get("id"),
                "name": d.get("name"),
                "kind": d.get("kind"),
                "exit": d.get("exit"),
                "elapsed": d.get("elapsed"),
                "output": d.get("output", ""),
                "recovered": bool(meta.get("recovered")),
                **({"inferred": True} if meta.get("inferred") else {}),
                **_mutation_meta(meta),
                **_sandbox_meta(meta),
            }
        elif r.type == "error":
            yield {
                "type": "error",
                "t": t,
                "kind": d.get("kind"),
                "message": d.get("message"),
                "offset": d.get("offset"),
            }
    yield from flush()
    for mark in marks:
        yield compaction_record(mark)
    for end in ends:
        yield ended_record(end)


def ended_record(failure: Failure) -> dict[str, Any]:
    """A failed reply as an export record: its turn ended there, and why."""
    return {
        "type": "ended",
        "t": iso_time(failure.t),
        "reason": failure.reason,
        "message": failure.why,
    }


def stopped_record(t: float, why: str) -> dict[str, Any]:
    """A turn stopped (Esc, a signal) where no reply's prose was being said
    (``Timeline.add_turn_stopped``): its turn ended there, as a failed reply's does."""
    return {"type": "ended", "t": iso_time(t), "reason": "cancelled", "message": why}


def compaction_record(c: CompactionRecord) -> dict[str, Any]:
    """A compaction as an export record (what it replaced, by how much)."""
    d = c.detail
    return {
        "type": "compaction",
        "t": iso_time(c.t),
        "step": c.step,
        "reason": d.get("reason"),
        "before": d.get("before"),
        "after": d.get("after"),
        "window": d.get("window"),
        "rounds": d.get("rounds"),
        "messages": len(c.items),  # the history items it left (the key predates items)
        **({"source": d["source"]} if d.get("source") else {}),
        **({"trimmed": len(d["trimmed"])} if isinstance(d.get("trimmed"), list) else {}),
        **({"images": [str(n) for n in d["images"]]} if isinstance(d.get("images"), list) else {}),
        **({"to": d["to"]} if isinstance(d.get("to"), int) else {}),  # /rewind's message
    }


def to_jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(fastjson.dumps(r, ensure_ascii=False) + "\n" for r in records)


def to_markdown(info: SessionInfo, records: list[dict[str, Any]]) -> str:
    out = [
        f"# Frontier session {info.id}",
        "",
        "| | |",
        "|---|---|",
        f"| started | {iso_time(info.started)} |",
        f"| workspace | `{info.workspace}` |",
        f"| model | {info.model} |",
        f"| mode | {info.mode} |",
        *([f"| wire | {info.wire} |"] if info.wire != DEFAULT_WIRE else []),
        f"| turns | {info.turns} |",
        f"| state | {info.state} |",
        "",
    ]
    if not records:
        out += ["_Nothing was recorded in this session._", ""]
    for r in records:
        kind = r["type"]
        if kind == "user":  # the notes a message opened with, quoted apart from what was typed
            notes, typed = split_notices(r["text"])
            out += ["## You", ""]
            for note in notes:
                lines = _closed_fences(note).splitlines()
                out += ["> _note_", ">", *[f"> {line}".rstrip() for line in lines], ""]
            out += [typed, ""] if typed or not notes else []
            out += [f"_image attached: {name}_" for name in r.get("images", ())]
            out += [""] if r.get("images") else []
        elif kind == "reasoning":  # quoted: it reads as the model's aside, not its reply
            quoted = _closed_fences(r["text"]).strip("\n").splitlines()
            out += ["> _thinking_", ">", *[f"> {line}".rstrip() for line in quoted], ""]
        elif kind == "assistant":
            # (a reply's text begins with the blank lines a model writes after its
            # thought's </think>: kept in the records, not drawn as empty paragraphs)
            text = _LEADING_BLANK.sub("", r["text"]).rstrip()
            out += ["## Assistant", "", _closed_fences(text), ""]
            if r.get("interrupted"):
                out += [f"_{INTERRUPTED_NOTE}_", ""]
        elif kind == "call":
            note = "" if r["started"] else " (not started)"
            out += [f"### ▸ {r['name']} `{r['id']}`{note}", ""]
            origin = r.get("from")
            if origin and "\n" in origin:  # a here-document: its lines as a block
                out += ["From the model's command:", "", *_fenced(origin, "sh"), ""]
            elif origin:
                out += [f"From the model's command: {_code(origin)}", ""]
            out += [*_call_body(r), ""]
        elif kind == "result":
            parts = [f"**result** `{r['kind']}`"]
            if r["exit"] is not None:
                parts.append(f"exit {r['exit']}")
            if r["elapsed"]:
                parts.append(f"{r['elapsed']:.2f} s")
            if r["recovered"]:
                parts.append("(reconciled after a crash)")
            if r.get("inferred"):
                parts.append("(its Frontier stopped; not reconciled yet)")
            if r.get("sandbox"):
                parts.append(f"sandbox: {r['sandbox']}")
            if r.get("escalated"):
                parts.append("escalated: approved outside the sandbox")
            elif r.get("sandbox_stopped"):
                parts.append(f"stopped by the sandbox: {r['sandbox_stopped']}")
            out += [f"{' · '.join(parts)} — `{r['id']}`", ""]
            changes = change_lines(r)  # the record carries the result's changes keys
            if r["output"] and (not changes or output_first(r)):  # a command's output stays
                out += [*_fenced(r["output"], "text"), ""]
            if changes:  # a mutation: its files say it better than its output
                items, told = _checks_markdown(r)
                told = [] if output_first(r) else told  # a command's output is above, whole
                out += [f"- {_code(line)}" for line in changes] + items + [""] + told
        elif kind == "compaction" and r["reason"] in ("clear", "rewind"):
            what = (
                "**context cleared** (/clear): from here on the model was sent none of the above"
                if r["reason"] == "clear"
                else f"**rewound** (/rewind) to before message {r.get('to', '?')}: from here on "
                + (
                    f"the model was sent only the {r['messages']} item"
                    f"{'s' if r['messages'] != 1 else ''} before it"
                    if r["messages"]
                    else "the model was sent none of the above"
                )
            )
            out += [f"> ⇤ {what}; the records above are the originals", ""]
        elif kind == "compaction":
            what = "old tool results stubbed" if r["step"] == "stub" else "oldest rounds summarised"
            if r.get("trimmed"):
                what = "the latest tool results cut to their first 60% and last 40%"
            why = " (the server said the request was too long)" if r["reason"] == "overflow" else ""
            if r["reason"] == "too_long":  # docs/context-budget.md: a message withdrawn
                what, why = "the message above withdrawn, too long for the model", ""
            if r["reason"] == "images_refused":  # the model takes no images
                named = ", ".join(r.get("images") or ())
                what, why = f"the images above ({named}) taken out: the model takes none", ""
            out += [
                f"> ⇣ **compacted**{why}: {what} ({r['rounds'] or 0} rounds), "
                f"{r['before'] or 0:,} → {r['after'] or 0:,} of {r['window'] or 0:,} tokens; "
                "from here on the model was sent "
                "the shortened history, the records above are the originals",
                "",
            ]
        elif kind == "error":
            message = str(r["message"]).replace("\n", "\n> ")
            out += [f"> **contract error** `{r['kind']}` at byte {r['offset']}: {message}", ""]
        elif kind == "ended":
            out += [f"> **turn ended** `{r['reason']}`: {r['message']}", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _checks_markdown(r: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The after-edit checks of a mutation's result: a list item each, and what the model
    was told of them when one did not pass (``tools/after_edit.py``)."""
    from frontier.app.check_text import CHECK_OPENING, check_lines

    lines = check_lines(r)
    items = [f"- {_code(line)}" for line, _failed in lines]
    told = r["output"].find(CHECK_OPENING)
    if told < 0 or not any(failed for _line, failed in lines):
        return items, []
    return items, [*_fenced(r["output"][told + 1 :], "text"), ""]


def _mutation_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """A mutation result's ``changes`` / ``already_applied`` (DESIGN §5), when it has them."""
    out: dict[str, Any] = {}
    if "changes" in meta:
        out["changes"] = [dict(c) for c in result_changes(meta)]
    if "already_applied" in meta:
        out["already_applied"] = bool(meta["already_applied"])
    if isinstance(meta.get("checks"), list):  # the person's after-edit checks
        out["checks"] = [dict(c) for c in meta["checks"] if isinstance(c, dict)]
    from frontier.app.check_text import FORMAT_KEYS

    for key in FORMAT_KEYS:  # tools/formatting.py
        if isinstance(meta.get(key), list):
            out[key] = [str(v) for v in meta[key]]
    return out


def _sandbox_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """An exec result's sandbox (issue 22): ``sandbox`` — its label (``workspace-write ·
    net off``, ``off``, ``unavailable``, ``outside the sandbox (approved)``);
    ``escalated`` — the person approved running it outside after the sandbox stopped it
    (``escalated_from``: the first attempt's sandbox); ``sandbox_stopped`` — what the
    sandbox refused when it stood."""
    raw = meta.get("sandbox")
    if not isinstance(raw, dict):
        return {}
    out: dict[str, Any] = {"sandbox": sandbox_label(raw)}
    if raw.get("mode") == "escalated":
        out["escalated"] = True
        first = meta.get("escalated_from")
        if isinstance(first, dict):
            out["escalated_from"] = sandbox_label(first)
    elif meta.get("sandbox_stopped"):
        out["sandbox_stopped"] = str(meta["sandbox_stopped"])
    return out


def sandbox_label(raw: dict[str, Any]) -> str:
    """A stored ``{"mode", "network"}`` in words, as ``tools/sandbox.py`` ``SandboxRecord``
    labels it (the store does not import the tools)."""
    mode = str(raw.get("mode", ""))
    if mode in ("workspace-write", "read-only"):
        return f"{mode} · net {'on' if raw.get('network') else 'off'}"
    if mode == "escalated":
        return "outside the sandbox (approved)"
    return mode or "unknown"


def _origin(d: Mapping[str, Any]) -> dict[str, Any]:
    """``from``: the model's command a call was run for (``sed -i …`` as ``apply_patch``)."""
    origin = d.get("origin")
    return {"from": origin} if isinstance(origin, str) and origin else {}


def _call_body(r: dict[str, Any]) -> list[str]:
    """A patch as a ```diff block (either dialect reads fine as one); another mutation's
    previewed diff when the record has it; else the arguments as JSON."""
    args = r["args"]
    patch = args.get("patch") if isinstance(args, dict) else None
    if r["name"] == "apply_patch" and isinstance(patch, str):
        return _fenced(patch, "diff")
    if r.get("diff") and r.get("tool_kind") == "edit":
        return _fenced(r["diff"], "diff")
    return _fenced(fastjson.dumps(args, indent=2, ensure_ascii=False), "json")


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


_LEADING_BLANK = re.compile(r"\A(?:[ \t]*\r?\n)+")


def _closed_fences(text: str) -> str:
    """``text`` with a code fence it leaves open closed (a reply cut off or interrupted
    inside a code block would otherwise swallow the rest of the export)."""
    open_fence = ""
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if match is None:
            continue
        fence = match.group(1)
        if not open_fence:
            open_fence = fence
        elif (
            fence[0] == open_fence[0]
            and len(fence) >= len(open_fence)
            and not line.strip(fence[0] + " \t")
        ):
            open_fence = ""
    if not open_fence:
        return text
    return text.rstrip("\n") + "\n" + open_fence


def _code(text: str) -> str:
    """Inline code that survives backticks in ``text`` (a path with a backtick)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    tick = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{tick}{pad}{text}{pad}{tick}"


def _fenced(text: str, lang: str) -> list[str]:
    """A code fence longer than any backtick run inside ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{lang}", text.rstrip("\n"), fence]
