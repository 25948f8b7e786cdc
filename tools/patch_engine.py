"""The apply_patch engine shared by the tool and ``frontier apply-patch``.

Two phases, so a failure never leaves a half-applied patch:

1. ``plan_patch`` parses the patch once (either dialect, ``patch_parse``), then
   places every hunk of every file in memory (``patch_place``: at its header's
   line, else by content, exact first and then looser) and builds each file's
   new bytes. A patch whose result is already in the files is reported as
   such; one that is half applied, or any hunk that cannot be placed, raises
   ``PatchError`` naming the file, the hunk and why — nothing is touched.
2. ``apply_plan`` re-checks that every target still has the bytes the plan
   was computed from (approval is bound to content), writes all files through
   ``atomic.commit_files`` and reads them back.

Line endings, a missing final newline and permission bits are preserved:
context lines keep the file's version, added lines use the patch's text with
the file's dominant line ending. Modes a patch sets are normalised as git does
(0644 or 0755 under the umask; never setuid, setgid or sticky).

Dialect differences kept on purpose (each is what that dialect's users expect):
a Codex ``*** Add File`` over an existing file and a ``*** Move to`` onto one
overwrite it, as Codex does; in a unified diff both are errors. Deleting a file
that is already gone is "already applied" in a unified diff and an error in the
Codex envelope (Codex's own rule).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from frontier.tools import beneath
from frontier.tools.patch_model import FilePatch, Hunk, PatchParseError
from frontier.tools.patch_parse import parse_patch
from frontier.tools.patch_place import HunkPlaceError, Placed, Placer
from frontier.tools.patch_summary import change_line
from frontier.tools.paths import PathError, new_name_problem, real_root, resolve
from frontier.tools.utf16 import cannot_edit, is_utf16

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Literal, NamedTuple

    from frontier.tools.patch_model import Dialect
else:
    from frontier.app.record import NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

    from frontier.tools.contract import FilePreview, IntentJournal, Preview

if TYPE_CHECKING:
    Action = Literal["create", "modify", "delete"]


class PatchError(ValueError):
    """The patch cannot be applied; nothing was written. The message says where and why."""


class Layout(NamedTuple):
    """How one entry's hunks built ``new`` from ``old``: the preview renders the changed
    regions from it (no diff search) and labels each review hunk with its notes and the
    earlier hunks it depends on."""

    old: Text
    new: Text
    placed: Placed


class FileChange(NamedTuple):
    path: str
    """Workspace-relative path as shown to users."""
    real: Path
    old: bytes | None
    new: bytes | None
    old_mode: int | None
    new_mode: int | None
    action: Action
    hunks: int = 0
    added: int = 0
    removed: int = 0
    notes: tuple[str, ...] = ()
    renamed_from: str | None = None
    layout: Layout | None = None
    base: bytes | None = None
    """The bytes the diff is shown from when they are not ``old`` (a move: the source's)."""
    renamed_to: str | None = None
    """Set on the source of a rename (this change deletes it)."""

    @property
    def shown_old(self) -> bytes | None:
        return self.base if self.renamed_from is not None else self.old


class PatchPlan(NamedTuple):
    changes: tuple[FileChange, ...]
    already: tuple[str, ...] = ()
    """Files whose part of the patch is already present (nothing to write for them)."""
    dialect: Dialect = "unified"
    unwrapped: tuple[str, ...] = ()
    root: str = ""
    """The workspace the plan was made in (the write resolves every path beneath it again)."""

    @property
    def already_applied(self) -> bool:
        return not self.changes and bool(self.already)

    def summary(self) -> list[str]:
        """``M path (+3 −1)`` per file, plus indented notes on hunks that moved or matched
        loosely (the same lines every front end shows: ``patch_summary.change_line``)."""
        out: list[str] = []
        shown = [c for c in self.changes if c.renamed_to is None]
        for c, row in zip(shown, self.meta(), strict=True):
            out.append(change_line(row))
            out.extend(f"  {n}" for n in c.notes)
        return out

    def meta(self) -> list[dict[str, object]]:
        """The ``changes`` list a tool result carries (what the panes summarise)."""
        return [
            {
                "status": _status(c),
                "path": c.path,
                "from": c.renamed_from,
                "added": c.added,
                "removed": c.removed,
                "hunks": c.hunks,
                "mode": _mode(c),
                "declined": [],
            }
            for c in self.changes
            if c.renamed_to is None
        ]

    def preview(self) -> Preview:
        """The diff of every file, rendered from the placed hunks where there are some."""
        from frontier.tools.contract import Preview

        files = tuple(file_change_preview(c) for c in self.changes)
        return Preview(kind="diff", files=files, summary="; ".join(self.summary()[:20]))


def _status(c: FileChange) -> str:
    if c.renamed_from is not None:
        return "R"
    return {"create": "A", "modify": "M", "delete": "D"}[c.action]


def _mode(c: FileChange) -> str:
    """A mode worth naming: a new executable file's, or a change."""
    if c.action == "create" and c.new_mode is not None and c.new_mode & 0o111:
        return f"{c.new_mode:o}"
    if c.old_mode is not None and c.new_mode is not None and c.old_mode != c.new_mode:
        return f"{c.old_mode:o} \u2192 {c.new_mode:o}"
    return ""


def file_change_preview(c: FileChange) -> FilePreview:
    """One change as the review shows it: from the placed hunks when known (notes and
    dependencies per review hunk), else by diffing; a move is shown at its destination."""
    from frontier.app.record import replace
    from frontier.tools.diffing import file_preview, sha256

    if c.renamed_to is not None:
        fp = file_preview(c.path, c.old, None)
        return replace(
            fp, diff="", hunks=(), added=0, removed=0, moved_to=c.renamed_to, old_mode=c.old_mode
        )
    base = c.shown_old
    fp = file_preview(c.path, base, c.new) if c.layout is None else _layout_preview(c, c.layout)
    return replace(
        fp,
        old_hash=sha256(c.old),
        old_bytes=c.old,
        old_mode=c.old_mode,
        new_mode=c.new_mode,
        moved_from=c.renamed_from,
    )


def _layout_preview(c: FileChange, layout: Layout) -> FilePreview:
    from frontier.app.record import replace
    from frontier.tools.diffing import file_preview

    blocks = change_blocks(layout.placed, len(layout.old.lines))
    a, b = layout.old.keys(), layout.new.keys()
    spans = [(i1, i2, j1, min(j2, len(b))) for i1, i2, j1, j2, _ in blocks]
    fp = file_preview(c.path, c.shown_old, c.new, spans, (a, b))
    by_index = {p.hunk.index: p for p in layout.placed.placements}
    owner: dict[int, int] = {}  # patch hunk index -> review hunk index
    labelled = []
    for h in fp.hunks:
        i1, i2, j1, j2 = h.span
        ids = sorted(
            {
                k
                for b1, b2, c1, c2, hs in blocks
                if b1 <= i2 and b2 >= i1 and c1 <= j2 and c2 >= j1
                for k in hs
            }
        )
        for k in ids:
            owner.setdefault(k, h.index)
        notes = tuple(
            f"patch hunk {k}: {by_index[k].why}" for k in ids if k in by_index and by_index[k].why
        )
        labelled.append((h, ids, notes))
    out = []
    for h, ids, notes in labelled:
        deps = sorted(
            {owner[d] for k in ids if k in by_index for d in by_index[k].depends_on if d in owner}
            - {h.index}
        )
        out.append(replace(h, notes=notes, depends_on=tuple(d for d in deps if d < h.index)))
    return replace(fp, hunks=tuple(out))


def change_blocks(placed: Placed, n_old: int) -> list[tuple[int, int, int, int, frozenset[int]]]:
    """The changed regions ``(i1, i2, j1, j2, hunks)`` of a placed entry, from the origin of
    every line (old ``[i1, i2)`` became new ``[j1, j2)``; ``hunks`` made the change)."""
    out: list[tuple[int, int, int, int, frozenset[int]]] = []
    i = j = 0

    def change(i1: int, i2: int, j1: int, j2: int, hunks: set[int]) -> None:
        if out and out[-1][1] == i1 and out[-1][3] == j1:
            p1, _, q1, _, hs = out[-1]
            out[-1] = (p1, i2, q1, j2, hs | hunks)
        else:
            out.append((i1, i2, j1, j2, frozenset(hunks)))

    deleted = placed.deleted_by
    for kind, x, n in placed.runs:
        if kind == 0:
            if x > i:
                change(i, x, j, j, {deleted[k] for k in range(i, x) if k in deleted})
            i, j = x + n, j + n
        else:
            change(i, i, j, j + n, {x})
            j += n
    if i < n_old:
        change(i, n_old, j, j, {deleted[k] for k in range(i, n_old) if k in deleted})
    return out


class Text:
    """A file as line contents (a CRLF line keeps its ``\\r``) plus its final-newline state.

    Splitting on ``\\n`` only, and keeping ``\\r`` in the content, makes unchanged lines
    round-trip byte for byte and keeps every operation at C speed (split/join/slices).

    A byte order mark is held apart from the first line (``bom``) and written back in
    front: the model never sees it and its hunks name the first line without it. A hunk
    touching line 1 of a file a Windows editor saved (C# projects' files, by default)
    failed as "context not found ... most similar: line 1: '\\ufeffusing System;'".
    """

    __slots__ = ("bom", "crlf", "final_newline", "has_cr", "lines")

    def __init__(
        self,
        lines: list[str],
        final_newline: bool,
        crlf: bool,
        has_cr: bool = False,
        bom: bool = False,
    ) -> None:
        self.lines = lines
        self.final_newline = final_newline
        self.crlf = crlf
        self.has_cr = has_cr
        """Some line ends in ``\\r``: exact comparisons must also try without it."""
        self.bom = bom
        """The file starts with U+FEFF, which is not part of its first line."""

    @classmethod
    def parse(cls, text: str) -> Text:
        bom = text.startswith("\ufeff")
        if bom:
            text = text[1:]
        parts = text.split("\n")
        final = parts[-1] == ""
        if final:
            parts.pop()
        has_cr = "\r" in text
        crlf = has_cr and text.count("\r\n") * 2 > text.count("\n")
        return cls(parts, final or not parts, crlf, has_cr, bom)

    def render(self) -> str:
        mark = "\ufeff" if self.bom else ""
        if not self.lines:
            return mark
        return mark + "\n".join(self.lines) + ("\n" if self.final_newline else "")

    def keys(self) -> list[str]:
        """``diffing.line_keys(self.render())`` without splitting the text again."""
        lines = self.lines
        if self.final_newline or not lines:
            return lines
        last = lines[-1]
        return [*lines[:-1], last + "\n"] if last else lines[:-1]


def _enc(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def _dec(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _short(text: str, n: int = 80) -> str:
    return repr(text if len(text) <= n else text[:n] + "…")


# ------------------------------------------------------------------ planning


class _Slot:
    """One path's evolving state while the patch is planned (mutable, engine-private)."""

    def __init__(self, real: Path, path: str, orig: bytes | None, orig_mode: int | None) -> None:
        self.real, self.path = real, path
        self.orig, self.orig_mode = orig, orig_mode
        self.data, self.mode = orig, orig_mode
        self.hunks = self.added = self.removed = 0
        self.notes: list[str] = []
        self.renamed_from: str | None = None
        self.renamed_to: str | None = None
        self.base: bytes | None = None
        self.layout: Layout | None = None
        """Set when ``data`` is ``orig`` changed by one entry's hunks, else None."""
        self.applied: list[str] = []
        """Parts of the patch for this path that change it (``hunk 2``, ``creation``)."""
        self.present: list[str] = []
        """Parts whose result is already here."""


class _Tree:
    """The workspace as the patch sees it: later entries see earlier entries' results."""

    def __init__(self, root: str | Path, max_file: int | None = None) -> None:
        self.root = root
        self.base = real_root(root)
        self.slots: dict[Path, _Slot] = {}
        self.max_file = max_file
        """Bytes of a file the patch may change (the agent's tool: ``EDIT_MAX_FILE``);
        ``None``: any size (``frontier apply-patch``)."""

    def slot(self, rel: str, entry: str) -> _Slot:
        """The path's slot, read beneath the root (each path is resolved by descriptors:
        ``beneath``; a path is one slot whatever name reaches it)."""
        try:
            wp = resolve(self.root, rel)
        except PathError as exc:
            raise PatchError(f"{entry}: {exc}") from exc
        except OSError as exc:
            raise PatchError(f"{entry}: {os_message(rel, exc)}") from exc
        if wp.real in self.slots:
            return self.slots[wp.real]
        try:
            data, mode = beneath.read_file(self.base, wp.rel, self.max_file)
        except IsADirectoryError:
            raise PatchError(f"{entry}: {wp.rel} is a directory, not a file") from None
        except beneath.TooLargeError as exc:
            raise PatchError(f"{entry}: {too_large_to_edit(wp.rel, exc.size, exc.cap)}") from None
        except OSError as exc:
            raise PatchError(f"{entry}: {os_message(wp.rel, exc)}") from exc
        s = _Slot(wp.real, wp.rel, data, mode)
        self.slots[wp.real] = s
        return s


def os_message(path: str, exc: OSError) -> str:
    """A plain message for an OS error on a workspace path (never an "internal error")."""
    import errno

    if isinstance(exc, beneath.NotRegularFileError):
        return str(exc)
    plain = {
        errno.ENAMETOOLONG: "the name is too long for the file system; use a shorter name",
        errno.ELOOP: "a symbolic link loop (or too many links) on the way; fix or remove the link",
        errno.EACCES: "permission denied; Frontier cannot read or write it",
        errno.EPERM: "operation not permitted on it",
        errno.ENOSPC: "no space left on the device",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EROFS: "the file system is read-only",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.EISDIR: "it is a directory, not a file",
    }
    return f"{path}: {plain.get(exc.errno or 0, exc.strerror or str(exc))}"


EDIT_MAX_FILE = 64 * 1024 * 1024
"""Bytes of a file the agent's editing tools change (``edit.py``'s, apply_patch): its review
holds the old and new text and their diff, several times its size; past it, a command does
the job. ``frontier apply-patch`` has no limit."""


def too_large_to_edit(rel: str, size: int, cap: int) -> str:
    """Why an editing tool leaves a file alone (decided by its size, before it is read)."""
    return (
        f"{rel} is {size} bytes, over the {cap} byte limit of the file tools (its review "
        "would hold it several times over); change it with a command instead (sed, a script)"
    )


def plan_patch(root: str | Path, patch: str | bytes, max_file: int | None = None) -> PatchPlan:
    """Place every hunk of every file in memory; raise ``PatchError`` if any fails or the
    patch is half applied (or, with ``max_file``, names a file over that many bytes). A
    plan with no changes and ``already`` set: already applied."""
    text = _dec(patch) if isinstance(patch, bytes) else patch
    try:
        parsed = parse_patch(text)
    except PatchParseError as exc:
        raise PatchError(str(exc)) from exc
    tree = _Tree(root, max_file)
    for fp in parsed.files:
        _plan_entry(tree, fp)
    _check_consistent(tree)
    changes: list[FileChange] = []
    already: list[str] = []
    for s in tree.slots.values():
        if s.data == s.orig and s.mode == s.orig_mode:
            if s.present and not s.applied:
                already.append(s.path)
            continue
        action: Action = "create" if s.orig is None else "delete" if s.data is None else "modify"
        changes.append(
            FileChange(
                path=s.path,
                real=s.real,
                old=s.orig,
                new=s.data,
                old_mode=s.orig_mode,
                new_mode=s.mode,
                action=action,
                hunks=s.hunks,
                added=s.added,
                removed=s.removed,
                notes=tuple(s.notes),
                renamed_from=s.renamed_from,
                layout=s.layout,
                base=s.base,
                renamed_to=s.renamed_to,
            )
        )
    return PatchPlan(tuple(changes), tuple(already), parsed.dialect, parsed.unwrapped, str(root))


def _check_consistent(tree: _Tree) -> None:
    """Every file's part of the patch is either all still to do or all already there."""
    mixed = [s for s in tree.slots.values() if s.applied and s.present]
    if mixed:
        s = mixed[0]
        raise PatchError(
            f"{s.path}: the patch is half applied — {', '.join(s.present)} "
            f"{'is' if len(s.present) == 1 else 'are'} already in the file but "
            f"{', '.join(s.applied)} "
            f"{'is' if len(s.applied) == 1 else 'are'} not; nothing written. Re-read {s.path} "
            "and send only the part that is still missing"
        )
    done = [s.path for s in tree.slots.values() if s.present]
    todo = [s.path for s in tree.slots.values() if s.applied]
    if done and todo:
        raise PatchError(
            f"the patch is half applied: {', '.join(done[:5])} already "
            f"{'has' if len(done) == 1 else 'have'} {'its' if len(done) == 1 else 'their'} "
            f"changes but {', '.join(todo[:5])} {'does' if len(todo) == 1 else 'do'} not; nothing "
            "written. Send a patch for the files that still need it"
        )


def _is_creation(fp: FilePatch, exists: bool) -> bool:
    if fp.old_path is None:
        return True
    hunks = fp.hunks
    zero = bool(hunks) and all(h.old_start == 0 and h.old_count == 0 for h in hunks)
    return zero and (fp.source_epoch or not exists)


def _is_deletion(fp: FilePatch) -> bool:
    if fp.new_path is None:
        return True
    hunks = fp.hunks
    zero = bool(hunks) and all(h.new_start == 0 and h.new_count == 0 for h in hunks)
    return zero and fp.target_epoch


def git_mode(mode: int | None, umask: int | None = None) -> int | None:
    """A mode from a patch as git applies it: executable or not, under the umask."""
    if mode is None:
        return None
    if umask is None:
        umask = os.umask(0o022)
        os.umask(umask)
    return (0o777 if mode & 0o111 else 0o666) & ~umask


def _plan_entry(tree: _Tree, fp: FilePatch) -> None:
    entry = fp.name
    if fp.binary:
        raise PatchError(f"{entry}: binary patches are not supported; use the write tool instead")
    if fp.special_mode:
        raise PatchError(
            f"{entry}: git mode {fp.special_mode} (symlink or submodule) is not supported"
        )
    fp = fp._replace(old_mode=git_mode(fp.old_mode), new_mode=git_mode(fp.new_mode))
    if fp.rename or fp.copy:
        _plan_move(tree, fp)
        return
    target_rel = fp.new_path or fp.old_path
    assert target_rel is not None
    if fp.old_path and fp.new_path and fp.old_path != fp.new_path:
        new_slot = tree.slot(fp.new_path, entry)
        target_rel = fp.new_path if new_slot.data is not None else fp.old_path
    slot = tree.slot(target_rel, entry)
    exists = slot.data is not None
    if _is_creation(fp, exists):
        _plan_creation(slot, fp)
    elif _is_deletion(fp):
        _plan_deletion(slot, fp)
    elif not exists:
        hint = (
            "to create it use '*** Add File: PATH'"
            if fp.dialect == "codex"
            else "to create it use '--- /dev/null' and '+++ b/PATH' with only '+' lines"
        )
        raise PatchError(f"{slot.path}: no such file in the workspace; {hint}")
    else:
        _plan_update(slot, fp)


def _plan_creation(slot: _Slot, fp: FilePatch) -> None:
    if slot.data is None and (problem := new_name_problem(slot.path)) is not None:
        raise PatchError(problem)
    bad = [h for h in fp.hunks if h.tags.strip("+")]
    if bad:
        raise PatchError(
            f"{slot.path} hunk {bad[0].index}: a file creation may only contain '+' lines"
        )
    content = "".join([t + e for h in fp.hunks for t, e in zip(h.texts, h.eols, strict=True)])
    data = _enc(content)
    added = sum(h.added for h in fp.hunks)
    if slot.data is not None:
        if slot.data == data:
            slot.present.append("its creation")
            return
        if fp.dialect != "codex":
            raise PatchError(
                f"{slot.path}: the patch creates this file but it already exists with other "
                "content; send a modification hunk (--- a/PATH) instead, or delete it first"
            )
        slot.notes.append("'*** Add File' replaced the existing file's whole content")
        slot.removed += len(Text.parse(_dec(slot.data)).lines)
    slot.applied.append("its creation")
    slot.data = data
    slot.mode = fp.new_mode if fp.new_mode is not None else slot.mode
    slot.hunks += len(fp.hunks)
    slot.added += added
    slot.layout = None


def _plan_deletion(slot: _Slot, fp: FilePatch) -> None:
    if slot.data is None:
        if fp.dialect == "codex":
            raise PatchError(f"{slot.path}: cannot delete it: no such file in the workspace")
        slot.present.append("its deletion")
        return
    text = Text.parse(_dec(slot.data))
    if fp.hunks:
        old = [t.rstrip() for h in fp.hunks for t in h.old]
        have = [c.rstrip() for c in text.lines]
        if old != have:
            raise PatchError(
                f"{slot.path}: the patch deletes this file but its removed lines differ from "
                f"the file's current content ({len(old)} vs {len(have)} lines); re-read it"
            )
    slot.applied.append("its deletion")
    slot.data = None
    slot.mode = None
    slot.layout = None
    slot.removed += len(text.lines)


def _place_all(path: str, text: Text, hunks: Sequence[Hunk]) -> Placed:
    placer = Placer(text.lines, text.final_newline, text.crlf, path)
    total = len(hunks)
    for hunk in hunks:
        try:
            placer.locate(hunk)
        except HunkPlaceError as exc:
            raise PatchError(f"{_where(path, hunk, total)}: {exc}") from None
    return placer.finish()


def _where(path: str, hunk: Hunk, total: int) -> str:
    first = hunk.first_line.strip()
    named = f", starting {_short(first, 60)}" if first else ""
    return f"{path} hunk {hunk.index}/{total} ({hunk.header[:60]}{named})"


def _record(slot: _Slot, placed: Placed) -> list[str]:
    """Sort the placements into the slot's applied/present parts; return their notes."""
    notes: list[str] = []
    for p in placed.placements:
        label = f"hunk {p.hunk.index}"
        (slot.present if p.status == "present" else slot.applied).append(label)
        if p.status == "placed" and p.why:
            notes.append(f"hunk {p.hunk.index} {p.why}")
    return notes


def _plan_update(slot: _Slot, fp: FilePatch) -> None:
    assert slot.data is not None
    if fp.hunks and is_utf16(slot.data):  # its lines are not the model's: say why
        raise PatchError(cannot_edit(slot.path))
    text = Text.parse(_dec(slot.data))
    placed = _place_all(slot.path, text, fp.hunks)
    notes = _record(slot, placed)
    if any(p.status == "present" for p in placed.placements):
        return
    new_text = Text(placed.lines, placed.last_newline, text.crlf, bom=text.bom)
    first = slot.data is slot.orig and not slot.hunks
    slot.layout = Layout(text, new_text, placed) if first else None
    slot.data = _enc(new_text.render())
    if fp.new_mode is not None and fp.new_mode != slot.mode:
        slot.mode = fp.new_mode
        slot.applied.append("its mode change")
    elif not fp.hunks and fp.new_mode is not None:
        slot.present.append("its mode")
    slot.hunks += len(fp.hunks)
    slot.added += sum(h.added for h in fp.hunks)
    slot.removed += sum(h.removed for h in fp.hunks)
    slot.notes.extend(notes)


def _plan_move(tree: _Tree, fp: FilePatch) -> None:
    assert fp.old_path and fp.new_path
    verb = "rename" if fp.rename else "copy"
    what = f"{verb} {fp.old_path} -> {fp.new_path}"
    src = tree.slot(fp.old_path, fp.old_path)
    dst = tree.slot(fp.new_path, fp.new_path)
    if src.data is None:
        if dst.data is not None and _moved_already(dst, fp):
            dst.present.append(f"the {verb} from {fp.old_path}")
            return
        raise PatchError(f"{what}: {fp.old_path} does not exist")
    if dst.data is None and (problem := new_name_problem(fp.new_path)) is not None:
        raise PatchError(f"{what}: {problem}")
    if dst.data is not None and dst.real != src.real:
        if fp.dialect != "codex":
            raise PatchError(
                f"{what}: {fp.new_path} already exists; delete it first or pick another name"
            )
        dst.notes.append(f"'*** Move to' replaced the existing {fp.new_path}")
    data = src.data
    notes: list[str] = []
    if fp.hunks and is_utf16(data):
        raise PatchError(cannot_edit(fp.old_path))
    if fp.hunks:
        placed = _place_all(fp.new_path, Text.parse(_dec(data)), fp.hunks)
        if any(p.status == "present" for p in placed.placements):
            raise PatchError(
                f"{what}: some hunks are already in {fp.old_path}; re-read it and send the "
                "rename with the changes still missing"
            )
        notes = [f"hunk {p.hunk.index} {p.why}" for p in placed.placements if p.why]
        text = Text.parse(_dec(data))
        data = _enc(Text(placed.lines, placed.last_newline, text.crlf, bom=text.bom).render())
    mode = fp.new_mode if fp.new_mode is not None else src.mode
    base = src.data
    if fp.rename:
        src.data, src.mode = None, None
        src.layout = None
        src.renamed_to = fp.new_path
        src.applied.append(f"the {verb} to {fp.new_path}")
    dst.data, dst.mode = data, mode
    dst.layout = None
    dst.base = base
    dst.renamed_from = fp.old_path if fp.rename else None
    dst.applied.append(f"the {verb} from {fp.old_path}")
    dst.hunks += len(fp.hunks)
    dst.added += sum(h.added for h in fp.hunks)
    dst.removed += sum(h.removed for h in fp.hunks)
    dst.notes.extend(notes)
    if fp.copy:
        dst.notes.append(f"copied from {fp.old_path}")


def _moved_already(dst: _Slot, fp: FilePatch) -> bool:
    """The source is gone and the destination already holds every hunk's new lines."""
    assert dst.data is not None
    lines = [c.rstrip() for c in Text.parse(_dec(dst.data)).lines]
    joined = "\n" + "\n".join(lines) + "\n"
    return all(
        ("\n" + "\n".join(t.rstrip() for t in h.new) + "\n") in joined for h in fp.hunks if h.new
    )


def apply_hunks(path: str, text: Text, hunks: Sequence[Hunk]) -> tuple[Text, list[str]]:
    """Place every hunk and build the new text (for tests and one-file callers)."""
    placed = _place_all(path, text, hunks)
    if any(p.status == "present" for p in placed.placements):
        raise PatchError(f"{path}: some hunks are already applied")
    notes = [f"hunk {p.hunk.index} {p.why}" for p in placed.placements if p.why]
    return Text(placed.lines, placed.last_newline, text.crlf, bom=text.bom), notes


# ------------------------------------------------------------------ writing


def write_changes(
    root: str | Path,
    changes: Sequence[FileChange],
    journal: IntentJournal | None = None,
    on_wait: Callable[[str], object] | None = None,
) -> None:
    """Write every change atomically beneath ``root`` (re-checked against the reviewed bytes
    under a lock, read back); raises ``PatchError`` saying exactly what is on disk.
    ``on_wait`` is told once if a folder is locked by another process (the CLI says so)."""
    from frontier.tools import atomic  # the write path only: keeps --dry-run start-up fast

    base = real_root(root)
    writes = [
        atomic.FileWrite(
            path=c.path,
            data=c.new,
            old=c.old,
            mode=c.new_mode,
            old_mode=c.old_mode,
            expect=_real_rel(base, c.real),
        )
        for c in changes
    ]
    try:
        atomic.commit_files(
            base, writes, journal=journal if len(writes) > 1 else None, on_wait=on_wait
        )
    except atomic.AtomicWriteError as exc:
        raise PatchError(str(exc)) from exc
    except PathError as exc:
        raise PatchError(f"{exc}; nothing written") from exc
    except OSError as exc:
        raise PatchError(f"{os_message(exc.filename or '?', exc)}; nothing written") from exc


def _real_rel(base: Path, real: Path) -> str:
    try:
        rel = real.relative_to(base).as_posix()
    except ValueError:
        return str(real)
    return rel or "."


def apply_plan(plan: PatchPlan, root: str | Path) -> None:
    write_changes(root, plan.changes)


def apply_patch(root: str | Path, patch: str | bytes, *, dry_run: bool = False) -> PatchPlan:
    """Plan and (unless ``dry_run``) write; raises ``PatchError`` with nothing written."""
    plan = plan_patch(root, patch)
    if not dry_run:
        apply_plan(plan, root)
    return plan
