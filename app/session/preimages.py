"""Pre-images: each file's content before a mutation, kept so an undo can put it back.

A mutation's call row records each target's sha256 before and after (``calls.py``);
this part keeps the *bytes* behind the "before" hash, in table ``preimages`` (schema
v5), deduplicated by that hash: a file edited ten times costs ten versions, the same
version touched twice costs one. The rows are written inside the call row's own
transaction (:meth:`Preimages.rows` before it, :func:`insert` in it), so a pre-image
is durable before the tool starts and therefore before the mutation's first rename —
one fsync, not two, on the path from confirmation to the write.

Capped, and the store still never holds a secret:

- a file over :data:`FILE_CAP` (4 MiB) is not kept;
- a call keeps at most :data:`CALL_CAP` (32 MiB) of new pre-images (a patch touching
  hundreds of large files); versions the store already has cost nothing;
- a file in which the store's scrubber finds a secret (a known key, or something shaped
  like a credential) is not kept: every other string the store writes is scrubbed, and
  a scrubbed pre-image would not be the file.

A version not kept still gets a row, with ``body`` NULL and ``skipped`` saying why, so
an undo of that call can say exactly why it is unavailable (:meth:`Preimages.status`).
A file that did not exist before the mutation has no pre-image ("absent"): undoing the
mutation deletes it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from frontier.app.session.db import Database

if TYPE_CHECKING:
    from frontier.tools.contract import FilePreview

FILE_CAP = 4 * 1024 * 1024
"""Bytes: a file larger than this is not kept (its undo is unavailable, and says so)."""
CALL_CAP = 32 * 1024 * 1024
"""Bytes of new pre-images one call may add; files past it are not kept."""

Row = tuple[str, int, bytes | None, str | None]
"""``(hash, size, body, skipped)`` as inserted."""


@dataclass(frozen=True)
class Status:
    """What the store has for one content hash."""

    hash: str
    size: int
    kept: bool
    skipped: str | None
    """Why the body was not kept (``None`` when it was)."""


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB"


class Preimages:
    """Table ``preimages``: the bytes behind a call row's "before" hashes."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def rows(self, files: Iterable[FilePreview]) -> list[Row]:
        """The rows to insert with a call row, for the files it changes: one per version
        the store does not hold yet (kept, or with why not). Reads the store and scans the
        files for secrets; the caller inserts them in the call row's transaction."""
        rows: list[Row] = []
        seen: set[str] = set()
        budget = CALL_CAP
        for f in files:
            digest, body = f.old_hash, f.old_bytes
            if digest is None or body is None or digest in seen:
                continue  # absent before (undo deletes it), or no bytes carried
            seen.add(digest)
            if self._has_body(digest):
                continue
            size = len(body)
            why = None
            if size > FILE_CAP:
                why = f"{_mib(size)}, over the {_mib(FILE_CAP)} cap on a kept file"
            elif size > budget:
                why = f"the call's pre-images passed the {_mib(CALL_CAP)} cap per call"
            elif self._holds_secret(body):
                why = "it holds a secret (a key, or something shaped like a credential)"
            if why is None:
                budget -= size
                rows.append((digest, size, body, None))
            else:
                rows.append((digest, size, None, why))
        return rows

    def _has_body(self, digest: str) -> bool:
        found = self.db.read(
            "SELECT 1 FROM preimages WHERE hash = ? AND body IS NOT NULL", (digest,)
        )
        return bool(found)

    def _holds_secret(self, body: bytes) -> bool:
        text = body.decode("utf-8", "surrogateescape")
        return self.db.scrub(text) != text

    def get(self, digest: str) -> bytes | None:
        """The kept bytes with this sha256 (``None``: never kept)."""
        found = self.db.read("SELECT body FROM preimages WHERE hash = ?", (digest,))
        if not found or found[0][0] is None:
            return None
        return bytes(found[0][0])

    def status(self, digest: str) -> Status | None:
        """Whether the bytes with this hash are kept, and if not why (``None``: no row —
        the mutation was recorded before pre-images were kept, or carried no bytes)."""
        found = self.db.read(
            "SELECT size, body IS NOT NULL, skipped FROM preimages WHERE hash = ?", (digest,)
        )
        if not found:
            return None
        size, kept, skipped = found[0]
        return Status(digest, int(size), bool(kept), skipped)

    def total(self) -> tuple[int, int]:
        """``(versions kept, bytes kept)`` over the whole store."""
        found = self.db.read(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM preimages WHERE body IS NOT NULL"
        )
        return int(found[0][0]), int(found[0][1])


def insert(c: sqlite3.Connection, rows: Iterable[Row]) -> None:
    """Insert ``rows`` inside the open transaction. A version already kept stays as it is;
    one recorded as not kept gets its body when a later call could keep it."""
    c.executemany(
        "INSERT INTO preimages (hash, size, body, skipped) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (hash) DO UPDATE SET body = excluded.body, skipped = excluded.skipped"
        " WHERE preimages.body IS NULL AND excluded.body IS NOT NULL",
        list(rows),
    )
