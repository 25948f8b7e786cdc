"""Calls and results: the rows of persist-before-execute (DESIGN §7).

A call row is committed before any side effect, with each target file's pre-image
and expected post-image hash (recovery decides a crashed mutation by them); a
``started`` row just before the side effect (a crash after it reads as
``interrupted``, before it as ``not_executed``); the result row before the model can
see it. A call row always commits together with the stream bytes that proved it
(:meth:`Responses.release_held` first, then the rows ride in the same transaction).

CTL call ids are chosen by the model (``c1`` in every response is normal), so a
``started``/``result`` row points at its call row by ``ref`` (the call's ``seq``),
never by id; a result for a call that was never persisted (rejected at prepare or
gate) is stored with ``ref = NULL``. A call has exactly one result: a second is
refused.
"""

from __future__ import annotations

from collections.abc import Mapping

from frontier.app import fastjson
from frontier.app.events import ToolCall, ToolResult
from frontier.app.record import record, replace
from frontier.app.session.db import Database, StoreError
from frontier.app.session.journal import close_holds
from frontier.app.session.preimages import Preimages
from frontier.app.session.preimages import insert as insert_preimages
from frontier.app.session.responses import Responses
from frontier.app.session.sqlite import sqlite3
from frontier.app.session.timeline import append_log

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

    from frontier.tools.contract import Preview, ToolSpec


@record
class Target:
    """A file a mutation changes, with the hashes recovery compares against."""

    path: str
    pre: str | None
    """sha256 of the file as previewed/approved (``None`` = did not exist)."""
    post: str | None
    """sha256 the approved change produces (``None`` = the change deletes it)."""
    mode: int | None = None
    """Permission bits before (``None``: absent or not recorded): what an undo restores."""


@record
class CallRecord:
    """A persisted call with its start mark and (if committed) its result."""

    seq: int
    call_id: str
    name: str
    args: Mapping[str, Any]
    t: float
    kind: str
    """``read`` / ``edit`` / ``exec`` (the tool's policy class)."""
    mutates: bool
    targets: tuple[Target, ...]
    command: str | None
    started: float | None
    result: ToolResult | None
    response_id: int | None = None


def result_to_json(result: ToolResult) -> dict[str, Any]:
    """A result as its timeline row stores it."""
    return {
        "id": result.call_id,
        "name": result.name,
        "kind": result.kind,
        "output": result.output,
        "exit": result.exit_code,
        "elapsed": result.elapsed,
        "meta": dict(result.meta),
    }


def result_from_json(d: Mapping[str, Any]) -> ToolResult:
    return ToolResult(
        call_id=d["id"],
        name=d.get("name", ""),
        kind=d["kind"],
        output=d.get("output", ""),
        exit_code=d.get("exit"),
        elapsed=float(d.get("elapsed") or 0.0),
        meta=d.get("meta") or {},
    )


class CallLedger:
    """The call, ``started`` and result rows of every session."""

    def __init__(
        self, db: Database, responses: Responses, preimages: Preimages | None = None
    ) -> None:
        self.db = db
        self.responses = responses
        self.preimages = preimages if preimages is not None else Preimages(db)

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
        """Commit a call row (with each target file's pre/post hashes); returns its ``seq``.

        ``started`` also records, in the same transaction, that execution begins now:
        one fsync instead of two on the path from confirmation to the tool starting.
        A crash right after it reconciles as ``interrupted`` (the safe reading).
        A mutation's pre-images ride in the same transaction as placeholders only (hash and
        size); their bytes are stored once the tool has started (``preimages.py``).
        """
        files = preview.files if preview is not None else ()
        targets = [
            {"path": f.path, "pre": f.old_hash, "post": f.new_hash, "mode": f.old_mode}
            for f in files
        ]
        kept = self.preimages.rows(files) if spec is not None and spec.mutates else []
        data = {
            "id": call.id,
            "name": call.name,
            "args": call.json_args(),
            "offset": call.offset,
            "kind": spec.kind if spec is not None else "read",
            "mutates": bool(spec.mutates) if spec is not None else False,
            "targets": targets,
            "command": preview.command if preview is not None else None,
            "summary": preview.summary if preview is not None else "",
            **({"origin": call.origin} if call.origin else {}),
        }
        if response_id is None:
            response_id = self.responses.latest(session_id)

        def insert(c: sqlite3.Connection) -> int:
            seq = append_log(
                self.db, c, session_id, "call", data, call_id=call.id, response_id=response_id
            )
            insert_preimages(c, kept)
            if started:
                append_log(self.db, c, session_id, "started", {}, call_id=call.id, ref=seq)
            return seq

        self.responses.release_held()
        return self.db.write("call", insert)

    def add_started(self, session_id: str, ref: int, call_id: str) -> None:
        """Commit that the call at ``ref`` is about to execute."""
        self.db.write(
            "started",
            lambda c: append_log(self.db, c, session_id, "started", {}, call_id=call_id, ref=ref),
        )

    def add_result(
        self, session_id: str, ref: int | None, result: ToolResult, *, point: str = "result"
    ) -> None:
        """Commit a result row (``ref`` = its call's ``seq``; ``None``: never persisted)."""
        data = result_to_json(result)

        def insert(c: sqlite3.Connection) -> int:
            if (
                ref is not None
                and c.execute(
                    "SELECT 1 FROM log WHERE ref = ? AND type = 'result'", (ref,)
                ).fetchone()
            ):
                raise StoreError(
                    f"call {result.call_id!r} (row {ref}) already has a committed result; "
                    "a call is paired with exactly one result"
                )
            if ref is not None:  # a command's held files: kept for a crash, which did not come
                close_holds(c, session_id, result.call_id)
            return append_log(
                self.db, c, session_id, "result", data, call_id=result.call_id, ref=ref
            )

        self.db.write(point, insert)

    def add_rejected(self, session_id: str, call: ToolCall, result: ToolResult) -> None:
        """Commit the result of a call that never got a call row (``ref = NULL``); the row
        keeps the call's arguments, so an export still shows what was denied."""
        data = {**result_to_json(result), "args": call.json_args()}
        if call.origin:
            data["origin"] = call.origin
        self.db.write(
            "result",
            lambda c: append_log(
                self.db, c, session_id, "result", data, call_id=result.call_id, ref=None
            ),
        )

    def find_open_call(self, session_id: str, call_id: str) -> int | None:
        """``seq`` of the newest call row with this id that has no result yet."""
        rows = self.db.read(
            "SELECT c.seq FROM log c WHERE c.session_id = ? AND c.type = 'call'"
            " AND c.call_id = ? AND NOT EXISTS"
            " (SELECT 1 FROM log r WHERE r.ref = c.seq AND r.type = 'result')"
            " ORDER BY c.seq DESC LIMIT 1",
            (session_id, call_id),
        )
        return int(rows[0][0]) if rows else None

    def calls(self, session_id: str, *, unresolved: bool = False) -> list[CallRecord]:
        """Every persisted call of the session, in order, with start mark and result
        (``unresolved``: only those without a result, found by the index, not decoded)."""
        rows = self.db.read(
            "SELECT c.seq, c.t, c.response_id, c.data,"
            " (SELECT s.t FROM log s WHERE s.ref = c.seq AND s.type = 'started' LIMIT 1),"
            " (SELECT r.data FROM log r WHERE r.ref = c.seq AND r.type = 'result' LIMIT 1)"
            " FROM log c WHERE c.session_id = ? AND c.type = 'call'"
            + (
                " AND NOT EXISTS (SELECT 1 FROM log r WHERE r.ref = c.seq AND r.type = 'result')"
                if unresolved
                else ""
            )
            + " ORDER BY c.seq",
            (session_id,),
        )
        out = []
        for seq, t, rid, data, started, result in rows:
            d = fastjson.loads(data)
            out.append(
                CallRecord(
                    seq=seq,
                    call_id=d["id"],
                    name=d["name"],
                    args=d.get("args", {}),
                    t=t,
                    kind=d.get("kind", "read"),
                    mutates=bool(d.get("mutates")),
                    targets=tuple(
                        Target(x["path"], x.get("pre"), x.get("post"), x.get("mode"))
                        for x in d.get("targets", ())
                    ),
                    command=d.get("command"),
                    started=started,
                    result=result_from_json(fastjson.loads(result)) if result else None,
                    response_id=rid,
                )
            )
            if not out[-1].targets and out[-1].result is not None:
                out[-1] = _with_found_targets(out[-1], out[-1].result)
        return out

    def file_views(self, session_id: str) -> list[object]:
        """What the session's calls recorded of the files the model saw (their results'
        ``meta["views"]``, ``tools/file_views.py``), in order: a resumed session replays
        them. Only rows that can hold one are decoded."""
        rows = self.db.read(
            "SELECT json_extract(data, '$.meta.views') FROM log"
            " WHERE session_id = ? AND type = 'result' AND instr(data, '\"views\"') > 0"
            " AND json_valid(data) ORDER BY seq",
            (session_id,),
        )
        ops: list[object] = []
        for (views,) in rows:  # only the list is decoded here: a result's text stays in C
            value = fastjson.loads(views) if isinstance(views, str) else None
            if isinstance(value, list):
                ops += value
        return ops

    def ids_with_prefix(self, session_id: str, prefix: str) -> list[str]:
        """Every call id of the session that starts with ``prefix``, calls and results alike
        (a call rejected before its row was written leaves only a result)."""
        rows = self.db.read(
            "SELECT DISTINCT call_id FROM log WHERE session_id = ? AND type IN ('call', 'result')"
            " AND substr(call_id, 1, ?) = ?",
            (session_id, len(prefix), prefix),
        )
        return [str(r[0]) for r in rows]

    def unresolved_calls(self, session_id: str) -> list[CallRecord]:
        """Calls persisted without a committed result (what recovery reconciles): read
        alone, since every resume asks (a 4,000-call session decoded every call and result
        to find none: ~80 ms)."""
        return self.calls(session_id, unresolved=True)

    def undelivered_results(self, session_id: str) -> list[ToolResult]:
        """Committed results the model never saw (logged after the last stored item that
        carries results or a person's text to the model: ``results`` / ``user``, and a
        chat ``tool`` message in sessions from before typed items).

        A crash between committing a result and appending the round leaves such
        results; resume must report them, or a model would redo a done side effect.
        """
        return [result for _, result in self.undelivered(session_id)]

    def undelivered(self, session_id: str) -> list[tuple[ToolCall | None, ToolResult]]:
        """:meth:`undelivered_results`, each with the call it answers as its ``call`` row
        stored it (id, name, arguments as stored, offset): the row the result points at
        (``ref``), which for a live call is the most recent call row with that id at or
        before the result (ids repeat across responses). A call rejected before it was
        persisted is rebuilt from its result row, which keeps the arguments; ``None`` when
        no call was recorded at all (a result committed for a call never persisted)."""
        rows = self.db.read(
            "SELECT r.data, c.data FROM log r LEFT JOIN log c"
            " ON c.seq = r.ref AND c.type = 'call' AND c.session_id = r.session_id"
            " WHERE r.session_id = ? AND r.type = 'result' AND r.seq > "
            "COALESCE((SELECT MAX(log_seq) FROM messages WHERE session_id = ?"
            " AND role IN ('user', 'results', 'tool')), 0) ORDER BY r.seq",
            (session_id, session_id),
        )
        out: list[tuple[ToolCall | None, ToolResult]] = []
        for result_data, call_data in rows:
            d = fastjson.loads(result_data)
            result = result_from_json(d)
            if call_data is not None:
                call: ToolCall | None = call_from_json(fastjson.loads(call_data))
            elif isinstance(d.get("args"), dict):  # rejected: the result row keeps the args
                call = ToolCall(result.call_id, result.name, d["args"], 0, call_origin(d))
            else:
                call = None
            out.append((call, result))
        return out


def _with_found_targets(call: CallRecord, result: ToolResult) -> CallRecord:
    """A command's call row names no files (what it would write was not known before it
    ran); the files it was found to change are its result's ``targets``
    (``tools/command_changes.py``): they are the call's, for undo and a rewind."""
    found = result.meta.get("targets")
    if not isinstance(found, list):
        return call
    targets = tuple(
        Target(str(x["path"]), _digest(x.get("pre")), _digest(x.get("post")), _mode(x.get("mode")))
        for x in found
        if isinstance(x, dict) and isinstance(x.get("path"), str)
    )
    return replace(call, targets=targets)


def _digest(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _mode(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def call_from_json(d: Mapping[str, Any]) -> ToolCall:
    """A call as its ``call`` row stores it (arguments JSON-safe, as stored: bytes that
    were not UTF-8 read ``{"base64": ...}``; the model's command it was run for)."""
    offset = d.get("offset")
    return ToolCall(
        id=str(d.get("id") or ""),
        name=str(d.get("name") or ""),
        args=dict(d.get("args") or {}),
        offset=offset if isinstance(offset, int) else 0,
        origin=call_origin(d),
    )


def call_origin(d: Mapping[str, Any]) -> str:
    """The model's command a stored call was run for (``ToolCall.origin``), ``""`` if none
    (rows stored before stop 61 have none)."""
    origin = d.get("origin")
    return origin if isinstance(origin, str) else ""
