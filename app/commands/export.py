"""``frontier export ID --format jsonl|markdown [-o FILE]`` — a stored session, readable.

jsonl: one record per line, ``{"type": "user"|"assistant"|"call"|"result"|"error", ...}``
in the order things happened; each result carries its ``kind`` and the ``id``
of its call. Consecutive confirmed assistant pieces are joined into one record.

The store is opened read-only (a read-only data dir can be exported), and a call
whose process died before its result reads as ``interrupted`` without a resume
(``session.export.read_session``). What the store holds was scrubbed when written;
the export is scrubbed again with the secrets this process knows (a session stored
before a key was known, or before this scrubbing existed).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from frontier.app.secrets import Scrubber
from frontier.app.session.export import read_session, to_jsonl, to_markdown
from frontier.app.session.store import (
    SessionStore,
    StoreError,
    default_path,
    existing_store,
)


def main(args: argparse.Namespace) -> int:
    try:
        path = existing_store()
        if path is None:
            print(
                f"frontier export: no sessions yet (looked in {default_path()}); "
                "start one with `frontier` or `frontier demo`",
                file=sys.stderr,
            )
            return 2
        with SessionStore.open_readonly(path) as store:
            info, records = read_session(store, args.session_id)
    except StoreError as exc:
        print(f"frontier export: {exc}", file=sys.stderr)
        return 2
    fmt = getattr(args, "format", "markdown") or "markdown"
    scrubber = Scrubber.from_env()
    records = [scrubber.scrub_obj(r) for r in records]
    text = to_jsonl(records) if fmt == "jsonl" else to_markdown(scrubber.scrub_obj(info), records)
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
