"""``frontier export ID|--last --format jsonl|markdown [-o FILE]`` — a stored session,
readable (``--last``: this directory's session used last, ``session_pick``).

jsonl: one record per line, ``{"type": "user"|"reasoning"|"assistant"|"call"|"result"|
"error"|"ended", ...}`` in the order things happened; each result carries its ``kind``
and the ``id`` of its call. Consecutive confirmed assistant pieces are joined into one record.

The store is opened read-only (a read-only data dir can be exported), and a call
whose process died before its result reads as ``interrupted`` without a resume
(``session.export.read_session``). What the store holds was scrubbed when written;
the export is scrubbed again with the secrets this process knows (a session stored
before a key was known, or before this scrubbing existed).

A stored session is untrusted input, and both forms end up on terminals (``export ID``
prints, ``-o`` files are ``cat``-ed or rendered), so the Markdown is made
``terminal_safe`` (escapes shown as ``\\x1b``, ``\\u202e``) and the jsonl ``json_safe``
(the same characters as ``\\u`` escapes: it parses to exactly the stored values), the same
text whether printed or written to ``-o``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from frontier.app.frontends.terminal_text import json_safe, safe_print, terminal_safe
from frontier.app.secrets import Scrubber
from frontier.app.session.db import Database, StoreError, default_path, existing_store
from frontier.app.session.export import read_session, to_jsonl, to_markdown


def main(args: argparse.Namespace) -> int:
    from frontier.app.commands.session_pick import chosen

    session_id = chosen("export", args.session_id, bool(args.last), Path("."))
    if session_id is None:
        return 2
    try:
        path = existing_store()
        if path is None:
            safe_print(
                f"frontier export: no sessions yet (looked in {default_path()}); "
                "start one with `frontier` or `frontier demo`",
                file=sys.stderr,
            )
            return 2
        db = Database.open_readonly(path)
        try:
            info, records = read_session(db, session_id)
        finally:
            db.close()
    except StoreError as exc:
        safe_print(f"frontier export: {exc}", file=sys.stderr)
        return 2
    fmt = getattr(args, "format", "markdown") or "markdown"
    scrubber = Scrubber.from_env()
    records = [scrubber.scrub_obj(r) for r in records]
    if fmt == "jsonl":
        text = json_safe(to_jsonl(records))
    else:
        text = terminal_safe(to_markdown(scrubber.scrub_obj(info), records))
    out = getattr(args, "output", None)
    if not out or out == "-":
        safe_print(text, end="")
        return 0
    try:
        _write_atomic(Path(out), text)
    except OSError as exc:
        safe_print(f"frontier export: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    safe_print(f"wrote {len(records)} records of session {info.id} to {out}", file=sys.stderr)
    return 0


def _write_atomic(path: Path, text: str) -> None:
    """``-o FILE``: replaced whole or not at all, and on disk when this returns
    (``app/files.write_atomic``: temp, fsync, rename, fsync of the folder)."""
    from frontier.app.files import write_atomic  # -o only: stdout needs none of it

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)  # not a terminal: a file, its text made safe by main()
