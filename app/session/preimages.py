"""Pre-images: each file's content before a mutation, kept so an undo can put it back.

A mutation's call row records each target's sha256 before and after (``calls.py``);
this part keeps the *bytes* behind the "before" hash, in table ``preimages`` (schema
v5), deduplicated by that hash: a file edited ten times costs ten versions, the same
version touched twice costs one.

Kept in two steps, so nothing that grows with a file's size sits between the
confirmation and the tool's start (issue 24; docs/decisions-preimages.md):

1. with the call row, in its transaction (:meth:`Preimages.rows`, :func:`insert`): a
   *placeholder* per version the store lacks — hash and size, no bytes, ``skipped``
   saying the content is not recorded yet. One indexed lookup per file; no byte is
   read, hashed or scanned;
2. after the tool has started and before its result commits (:meth:`Preimages.keep`,
   run by the boundary on a worker thread while the tool runs, or by
   ``SessionPersistence.commit_result`` at the latest): each body is checked against
   its hash, scanned for secrets and written, in its own transaction.

The bytes kept are the very bytes scanned and hashed (the preview's ``old_bytes``, the
content the approval is bound to), never a re-read of the file: a file that changes on
disk after the preview — even one that gains a secret — cannot get into the store,
because the store never looks at the disk, and the write itself then fails ("file
changed since review"). A crash between the two steps leaves the placeholder, so the
undo of that call says its earlier content was not recorded.

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

from collections.abc import Iterable

from frontier.app.hashes import sha256_hex
from frontier.app.record import record
from frontier.app.session.db import Database
from frontier.app.session.sqlite import sqlite3

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from frontier.tools.contract import FilePreview

FILE_CAP = 4 * 1024 * 1024
"""Bytes: a file larger than this is not kept (its undo is unavailable, and says so)."""
CALL_CAP = 32 * 1024 * 1024
"""Bytes of new pre-images one call may add; files past it are not kept."""

PENDING = "its content was not recorded: Frontier stopped while the call ran, before storing it"
"""``skipped`` of a placeholder row (:meth:`Preimages.rows`) until :meth:`Preimages.keep`
settles it; what an undo says when a crash came in between."""

Row = tuple[str, int, bytes | None, str | None]
"""``(hash, size, body, skipped)`` as inserted."""


@record
class Status:
    """What the store has for one content hash."""

    hash: str
    size: int
    kept: bool
    skipped: str | None
    """Why the body was not kept (``None`` when it was)."""


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB"


def _over_file_cap(size: int) -> str | None:
    if size > FILE_CAP:
        return f"{_mib(size)}, over the {_mib(FILE_CAP)} cap on a kept file"
    return None


class Preimages:
    """Table ``preimages``: the bytes behind a call row's "before" hashes."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def rows(self, files: Iterable[FilePreview]) -> list[Row]:
        """The rows to insert with a call row: a placeholder (no bytes, :data:`PENDING`) per
        version the store does not hold yet, or the final row of one over :data:`FILE_CAP`.
        Size-independent on purpose — one indexed lookup per file, no byte read, hashed or
        scanned: it runs inside the commit between the confirmation and the tool's start.
        :meth:`keep` fills the placeholders in once the tool has started."""
        rows: list[Row] = []
        seen: set[str] = set()
        for f in files:
            digest, body = f.old_hash, f.old_bytes
            if digest is None or body is None or digest in seen:
                continue  # absent before (undo deletes it), or no bytes carried
            seen.add(digest)
            if self._has_body(digest):
                continue
            size = len(body)
            rows.append((digest, size, None, _over_file_cap(size) or PENDING))
        return rows

    def keep(self, files: Iterable[FilePreview]) -> list[Row]:
        """Keep the bytes behind each file's "before" hash, in a transaction of their own
        (after the tool started, before its result commits); returns the rows written.

        Each body is checked against its hash and scanned for secrets *as held in
        memory* — the bytes the approval was bound to — and those same bytes are what is
        stored: nothing is re-read from the disk, so what is kept is always what was
        scanned. A version already kept is left as it is; a placeholder or an earlier
        "not kept" row gets this verdict."""
        return self.keep_bodies((f.old_hash, f.old_bytes) for f in files)

    def keep_bodies(self, bodies: Iterable[tuple[str | None, bytes | None]]) -> list[Row]:
        """:meth:`keep` of ``(hash, bytes)`` pairs: also the earlier content of files a
        command was found to change after it ran (``tools/command_changes.py``), which had
        no call row to carry placeholders — a version over :data:`FILE_CAP` gets its row
        here then."""
        rows = self.verdicts(bodies)
        if rows:
            self.db.write("preimages", lambda c: settle(c, rows))
        return rows

    def verdicts(self, bodies: Iterable[tuple[str | None, bytes | None]]) -> list[Row]:
        """The rows :meth:`keep_bodies` writes (each body kept, or why not), unwritten: for
        a caller that commits them with a row of its own (:func:`settle`)."""
        rows: list[Row] = []
        seen: set[str] = set()
        budget = CALL_CAP
        for digest, body in bodies:
            if digest is None or body is None or digest in seen:
                continue
            seen.add(digest)
            size = len(body)
            if self._has_body(digest):
                continue  # kept already
            why = self._refusal(digest, body, budget)
            if why is None:
                budget -= size
                rows.append((digest, size, body, None))
            else:
                rows.append((digest, size, None, why))
        return rows

    def _refusal(self, digest: str, body: bytes, budget: int) -> str | None:
        """Why ``body`` is not kept (``None``: it is). An edit's file over the cap already
        had this row with its call row; a command's changed file gets it here."""
        if (why := _over_file_cap(len(body))) is not None:
            return why
        if len(body) > budget:
            return f"the call's pre-images passed the {_mib(CALL_CAP)} cap per call"
        if sha256_hex(body) != digest:
            return "its bytes did not match the hash the call recorded"
        if self._holds_secret(body):
            return "it holds a secret (a key, or something shaped like a credential)"
        return None

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
    """Insert the call row's ``rows`` (:meth:`Preimages.rows`) inside its open transaction.
    A version that already has a row keeps it: :meth:`Preimages.keep` settles it."""
    c.executemany(
        "INSERT INTO preimages (hash, size, body, skipped) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (hash) DO UPDATE SET body = excluded.body, skipped = excluded.skipped"
        " WHERE preimages.body IS NULL AND excluded.body IS NOT NULL",
        list(rows),
    )


def settle(c: sqlite3.Connection, rows: Iterable[Row]) -> None:
    """:meth:`Preimages.keep`'s verdicts: a body or a reason replaces a placeholder (or an
    older reason); a version already kept is never touched."""
    c.executemany(
        "INSERT INTO preimages (hash, size, body, skipped) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (hash) DO UPDATE SET body = excluded.body, skipped = excluded.skipped"
        " WHERE preimages.body IS NULL",
        list(rows),
    )
