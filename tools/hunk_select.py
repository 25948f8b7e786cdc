"""Hunk-level accept: write only the hunks a person accepted in the review (DESIGN §5).

The review's hunks (``PreviewHunk``) are computed from the exact old and new
bytes, and everything outside them is identical on both sides, so the bytes
to write are the old file with each accepted hunk's span taken from the new
one. A hunk whose patch context used a declined hunk's lines (``depends_on``)
is declined with it. The narrowed plan gets a fresh preview, so the call row
records the hashes of what is really written and recovery stays exact.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from frontier.app.record import replace
from frontier.tools.contract import Decision, FilePreview, Preview
from frontier.tools.patch_engine import FileChange, PatchPlan, file_change_preview


class Declined(NamedTuple):
    path: str
    index: int  # type: ignore[assignment]  # a field, shadowing tuple.index (unused here)
    header: str
    because: int | None = None
    """The declined hunk this one depends on, when it was not declined itself."""


class Selection(NamedTuple):
    plan: PatchPlan
    preview: Preview
    declined: tuple[Declined, ...]
    everything_declined: bool


def _lines(data: bytes | None) -> list[bytes]:
    """Lines split on ``\\n`` only, endings kept: line *k* is ``diffing.line_keys``' line *k*."""
    if not data:
        return []
    parts = data.split(b"\n")
    last = parts.pop()
    out = [p + b"\n" for p in parts]
    if last:
        out.append(last)
    return out


def closure(fp: FilePreview, chosen: Iterable[int]) -> dict[int, int | None]:
    """Declined hunk index → the declined hunk it follows (``None`` if chosen itself)."""
    out: dict[int, int | None] = {i: None for i in chosen}
    for h in fp.hunks:  # depends_on names earlier hunks only: one pass in order is enough
        if h.index not in out:
            base = next((d for d in h.depends_on if d in out), None)
            if base is not None:
                out[h.index] = base
    return out


def select(plan: PatchPlan, preview: Preview, decision: Decision) -> Selection:
    """The plan and preview narrowed to the hunks not in ``decision.declined``."""
    wanted: dict[str, set[int]] = {}
    for path, index in decision.declined:
        wanted.setdefault(path, set()).add(index)
    by_path = {fp.path: fp for fp in preview.files}
    declined: list[Declined] = []
    changes: list[FileChange] = []
    for c in plan.changes:
        fp = by_path.get(c.path)
        chosen = wanted.get(c.path)
        if fp is None or not chosen or not fp.hunks:
            changes.append(c)
            continue
        gone = closure(fp, chosen)
        headers = {h.index: h.header for h in fp.hunks}
        declined.extend(Declined(c.path, i, headers.get(i, "?"), gone[i]) for i in sorted(gone))
        narrowed = _narrow(c, fp, set(gone))
        if narrowed is not None:
            changes.append(narrowed)
    kept = {c.path for c in changes}
    changes = [c for c in changes if c.renamed_to is None or c.renamed_to in kept]
    everything = not changes
    new_plan = plan._replace(changes=tuple(changes))
    files = tuple(file_change_preview(c) for c in new_plan.changes)
    summary = "; ".join(new_plan.summary()[:20])
    return Selection(
        new_plan, replace(preview, files=files, summary=summary), tuple(declined), everything
    )


def _narrow(c: FileChange, fp: FilePreview, gone: set[int]) -> FileChange | None:
    """``c`` with the ``gone`` hunks left as they were; ``None`` when nothing is left to do
    (a declined creation or deletion, or every hunk of a modification)."""
    if len(gone) >= len(fp.hunks) and c.renamed_from is None:
        if c.action == "modify" and c.old_mode != c.new_mode:
            return c._replace(new=c.old, added=0, removed=0, layout=None)  # the mode still
        return None
    old, new = _lines(c.shown_old), _lines(c.new)
    out: list[bytes] = []
    cur = 0
    added = removed = 0
    for h in fp.hunks:
        i1, i2, j1, j2 = h.span
        out.extend(old[cur:i1])
        if h.index in gone:
            out.extend(old[i1:i2])
        else:
            out.extend(new[j1:j2])
            added += h.added
            removed += h.removed
        cur = i2
    out.extend(old[cur:])
    data = b"".join(out)
    return c._replace(new=data, added=added, removed=removed, layout=None)


def describe(selection: Selection, reason: str) -> str:
    """What the model is told about the hunks the person declined."""
    if not selection.declined:
        return ""
    by_file: dict[str, list[Declined]] = {}
    for d in selection.declined:
        by_file.setdefault(d.path, []).append(d)
    parts: list[str] = []
    for path, rows in by_file.items():
        items = ", ".join(
            f"{d.index} ({d.header})"
            + (f" because it depends on hunk {d.because}" if d.because else "")
            for d in rows
        )
        parts.append(f"{path}: hunk{'s' if len(rows) > 1 else ''} {items}")
    why = reason.strip() or "no reason given"
    return "declined by the user in review (not written): " + "; ".join(parts) + f". Reason: {why}"
