"""A file the person rewrote in the review: their version is written instead of the
model's, and the model is told how it differs.

A reviewer who wants one line changed in an otherwise good edit had two answers: deny
with a reason and wait for the model to try again (a round trip, and it may change
something else), or approve and fix it by hand afterwards (the model then works from a
file it no longer knows). ``e`` in the review opens the file as the model would write it
in the person's editor; what they save is shown as the diff from the file as it is now,
and approving writes exactly that — through the same plan, atomic write, pre-image and
undo as the model's version. The model is told with the result: the file now holds the
person's version, and the diff from its own to theirs, so its next edit starts from
what is really there.

Only a file the change creates or modifies, as UTF-8 text, and not a move's
destination; the review refuses the rest before an editor opens.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import PurePosixPath

from frontier.app.record import replace
from frontier.tools.contract import FilePreview, Preview
from frontier.tools.digest import sha256
from frontier.tools.patch_engine import EDIT_MAX_FILE, PatchPlan, file_change_preview

NOTE_LIMIT = 8 * 1024
"""Characters of the diff (model's version → the person's) the model is told at most."""


def editor_name(path: str) -> str:
    """The name the editor's copy of ``path`` gets (its own name, so the editor colours
    it by its suffix), or ``edit.txt`` where the model's path makes a poor file name: a
    control character, ``..``, or over 100 characters."""
    name = PurePosixPath(path).name
    if name in ("", ".", "..") or len(name) > 100 or not name.isprintable():
        return "edit.txt"
    return name


def not_editable(file: FilePreview) -> str | None:
    """Why the review's editor cannot open ``file`` (``None``: it can): a deletion, a
    move, or bytes that are not UTF-8 text (the editor would not give them back)."""
    if file.new_text is None:
        return f"{file.path}: this change deletes it: nothing to edit"
    if file.moved_from is not None or file.moved_to is not None:
        return f"{file.path}: a moved file is edited after it is written"
    same_new = sha256(file.new_text.encode()) == file.new_hash
    same_old = file.old_text is None or sha256(file.old_text.encode()) == file.old_hash
    if not (same_new and same_old):
        return f"{file.path}: not UTF-8 text: edit it after it is written"
    return None


def as_edited(file: FilePreview, data: bytes) -> FilePreview:
    """``file`` as the review shows it with ``data`` as its new content: the diff from the
    file as it is now (hunks numbered as the boundary will number them), its pre-image and
    modes kept."""
    from frontier.tools.diffing import file_preview

    base = file.old_text.encode() if file.old_text is not None else None
    return replace(
        file_preview(file.path, base, data),
        old_hash=file.old_hash,
        old_bytes=file.old_bytes,
        old_mode=file.old_mode,
        new_mode=file.new_mode,
    )


class EditError(ValueError):
    """An edit the plan cannot take (a path it does not write, a deletion, a move)."""


def apply_edits(
    plan: PatchPlan, preview: Preview, edited: Sequence[tuple[str, bytes]]
) -> tuple[PatchPlan, Preview, tuple[str, ...], str]:
    """The plan and preview with each edited file's content replaced by the person's;
    the paths that differ from the model's version, and what the model is told."""
    wanted = dict(edited)
    changes = []
    changed: list[str] = []
    notes: list[str] = []
    for c in plan.changes:
        data = wanted.pop(c.path, None)
        if data is None:
            changes.append(c)
            continue
        if c.new is None or c.renamed_from is not None or c.renamed_to is not None:
            raise EditError(f"{c.path}: this change deletes or moves it: it cannot be edited")
        if data == c.new:
            changes.append(c)
            continue
        if len(data) > EDIT_MAX_FILE:
            raise EditError(f"{c.path}: the edited file is over {EDIT_MAX_FILE >> 20} MiB")
        theirs = c._replace(new=data, layout=None)
        shown = file_change_preview(theirs)
        changes.append(theirs._replace(added=shown.added, removed=shown.removed))
        changed.append(c.path)
        notes.append(_told(c.path, c.new, data))
    if wanted:
        raise EditError(f"edited {', '.join(sorted(wanted))}, which this change does not write")
    new_plan = plan._replace(changes=tuple(changes))
    files = tuple(file_change_preview(c) for c in new_plan.changes)
    summary = "; ".join(new_plan.summary()[:20])
    return (
        new_plan,
        replace(preview, files=files, summary=summary),
        tuple(changed),
        "\n".join(notes),
    )


def _told(path: str, mine: bytes, theirs: bytes) -> str:
    return (
        f"The user edited {path} in the review before it was written: the file holds their "
        f"version, not yours. Their changes to yours:\n{diff_from(path, mine, theirs, 'theirs')}"
    )


def diff_from(path: str, mine: bytes, theirs: bytes, label: str) -> str:
    """The unified diff from the model's version of ``path`` to ``theirs`` (``label/path``),
    cut at :data:`NOTE_LIMIT` characters: what the model is told of a rewrite."""
    a = mine.decode("utf-8", "replace").splitlines(keepends=True)
    b = theirs.decode("utf-8", "replace").splitlines(keepends=True)
    diff = "".join(
        line if line.endswith("\n") else line + "\n"
        for line in difflib.unified_diff(a, b, f"yours/{path}", f"{label}/{path}")
    )
    if len(diff) > NOTE_LIMIT:
        diff = diff[:NOTE_LIMIT] + f"[… {len(diff) - NOTE_LIMIT:,} more characters of the diff]\n"
    return diff
