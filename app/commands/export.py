"""``frontier export ID --format jsonl|markdown [-o FILE]`` — a stored session, readable.

jsonl: one record per line, ``{"type": "user"|"assistant"|"call"|"result"|"error", ...}``
in the order things happened; each result carries its ``kind`` and the ``id``
of its call. Consecutive confirmed assistant pieces are joined into one record.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from frontier.app.session.store import (
    LogRecord,
    SessionInfo,
    SessionStore,
    StoreError,
    default_path,
    iso_time,
)


def main(args: argparse.Namespace) -> int:
    path = default_path()
    if not path.exists():
        print(
            f"frontier export: no sessions yet (looked in {path}); "
            "start one with `frontier` or `frontier demo`",
            file=sys.stderr,
        )
        return 2
    try:
        with SessionStore.open(path) as store:
            info = store.get_session(args.session_id)
            records = list(export_records(store.records(info.id)))
    except StoreError as exc:
        print(f"frontier export: {exc}", file=sys.stderr)
        return 2
    fmt = getattr(args, "format", "markdown") or "markdown"
    text = to_jsonl(records) if fmt == "jsonl" else to_markdown(info, records)
    out = getattr(args, "output", None)
    if not out or out == "-":
        sys.stdout.write(text)
        return 0
    try:
        _write_atomic(Path(out), text)
    except OSError as exc:
        print(f"frontier export: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {len(records)} records of session {info.id} to {out}", file=sys.stderr)
    return 0


def export_records(log: list[LogRecord]) -> Iterator[dict[str, Any]]:
    """The timeline as export records (``started`` marks fold into their call)."""
    started = {r.ref for r in log if r.type == "started"}
    text: list[str] = []
    text_t = 0.0

    def flush() -> Iterator[dict[str, Any]]:
        if text:
            yield {"type": "assistant", "t": iso_time(text_t), "text": "".join(text)}
            text.clear()

    for r in log:
        d = r.data
        if r.type == "assistant":
            if not text:
                text_t = r.t
            text.append(str(d.get("text", "")))
            continue
        if r.type == "started":
            continue
        yield from flush()
        t = iso_time(r.t)
        if r.type == "user":
            yield {"type": "user", "t": t, "text": d.get("text", "")}
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
            }
        elif r.type == "result":
            meta = d.get("meta") or {}
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


def to_jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


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
        f"| turns | {info.turns} |",
        f"| state | {info.state} |",
        "",
    ]
    if not records:
        out += ["_Nothing was recorded in this session._", ""]
    for r in records:
        kind = r["type"]
        if kind == "user":
            out += ["## You", "", r["text"], ""]
        elif kind == "assistant":
            out += ["## Assistant", "", r["text"], ""]
        elif kind == "call":
            args = json.dumps(r["args"], indent=2, ensure_ascii=False)
            note = "" if r["started"] else " (not started)"
            out += [f"### ▸ {r['name']} `{r['id']}`{note}", "", *_fenced(args, "json"), ""]
        elif kind == "result":
            parts = [f"**result** `{r['kind']}`"]
            if r["exit"] is not None:
                parts.append(f"exit {r['exit']}")
            if r["elapsed"]:
                parts.append(f"{r['elapsed']:.2f} s")
            if r["recovered"]:
                parts.append("(reconciled after a crash)")
            out += [f"{' · '.join(parts)} — `{r['id']}`", ""]
            if r["output"]:
                out += [*_fenced(r["output"], "text"), ""]
        elif kind == "error":
            message = str(r["message"]).replace("\n", "\n> ")
            out += [f"> **contract error** `{r['kind']}` at byte {r['offset']}: {message}", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _fenced(text: str, lang: str) -> list[str]:
    """A code fence longer than any backtick run inside ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{lang}", text.rstrip("\n"), fence]


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
