"""The apply_patch engine shared by the tool and ``frontier apply-patch``.

Two phases, so a failure never leaves a half-applied patch:

1. ``plan_patch`` parses the diff and locates every hunk of every file in
   memory — at its ``@@ -a`` line (shifted by how far earlier hunks of the same
   file moved), else by search, exact first and then ignoring trailing
   whitespace — and builds each file's new bytes. Any problem raises
   ``PatchError`` naming the file, the hunk and why; nothing is touched.
2. ``apply_plan`` re-checks that every target still has the bytes the plan
   was computed from (approval is bound to content), writes all files through
   ``atomic.commit_files`` and reads them back.

Line endings, a missing final newline and permission bits are preserved:
context lines keep the file's version, added lines use the patch's text with
the file's dominant line ending.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from frontier.tools import atomic
from frontier.tools.patch_parse import FilePatch, Hunk, PatchParseError, parse_patch
from frontier.tools.paths import PathError, resolve

if TYPE_CHECKING:
    from frontier.tools.contract import Preview

Action = Literal["create", "modify", "delete"]


class PatchError(ValueError):
    """The patch cannot be applied; nothing was written. The message says where and why."""


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


class PatchPlan(NamedTuple):
    changes: tuple[FileChange, ...]

    def summary(self) -> list[str]:
        """One line per file (plus indented notes about hunks that moved or matched loosely)."""
        out: list[str] = []
        for c in self.changes:
            if c.renamed_from is not None and c.action == "delete":
                continue
            if c.renamed_from is not None:
                head = f"R {c.renamed_from} -> {c.path}"
            else:
                head = {"create": "A", "modify": "M", "delete": "D"}[c.action] + f" {c.path}"
            detail = f"+{c.added} -{c.removed}"
            if c.hunks:
                detail += f", {c.hunks} hunk{'s' if c.hunks != 1 else ''}"
            if c.old_mode is not None and c.new_mode is not None and c.old_mode != c.new_mode:
                detail += f", mode {c.old_mode:o} -> {c.new_mode:o}"
            out.append(f"{head} ({detail})")
            out.extend(f"  {n}" for n in c.notes)
        return out

    def preview(self) -> Preview:
        from frontier.tools.contract import Preview
        from frontier.tools.diffing import file_preview

        files = tuple(file_preview(c.path, c.old, c.new) for c in self.changes)
        return Preview(kind="diff", files=files, summary="; ".join(self.summary()))


# ------------------------------------------------------------------ text helpers


class Text:
    """A file as line contents (a CRLF line keeps its ``\\r``) plus its final-newline state.

    Splitting on ``\\n`` only, and keeping ``\\r`` in the content, makes unchanged lines
    round-trip byte for byte and keeps every operation at C speed (split/join/slices).
    """

    __slots__ = ("crlf", "final_newline", "lines")

    def __init__(self, lines: list[str], final_newline: bool, crlf: bool) -> None:
        self.lines = lines
        self.final_newline = final_newline
        self.crlf = crlf

    @classmethod
    def parse(cls, text: str) -> Text:
        parts = text.split("\n")
        final = parts[-1] == ""
        if final:
            parts.pop()
        crlf = text.count("\r\n") * 2 > text.count("\n")
        return cls(parts, final or not parts, crlf)

    def render(self) -> str:
        if not self.lines:
            return ""
        return "\n".join(self.lines) + ("\n" if self.final_newline else "")


def _bare(line: str) -> str:
    return line[:-1] if line.endswith("\r") else line


def _enc(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def _dec(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _short(text: str, n: int = 80) -> str:
    return repr(text if len(text) <= n else text[:n] + "…")


# ------------------------------------------------------------------ hunk location


class _Locator:
    """Finds hunks in one file's lines; indexes are built once per file and key."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._index: dict[bool, dict[str, list[int]]] = {}

    @staticmethod
    def key(text: str, loose: bool) -> str:
        return text.rstrip() if loose else _bare(text)

    def index(self, loose: bool) -> dict[str, list[int]]:
        idx = self._index.get(loose)
        if idx is None:
            idx = {}
            for i, c in enumerate(self.lines):
                idx.setdefault(self.key(c, loose), []).append(i)
            self._index[loose] = idx
        return idx

    def exact_at(self, old: Sequence[str], pos: int) -> bool:
        """The common case, checked before any index is built: the hunk is where it says."""
        if pos + len(old) > len(self.lines):
            return False
        lines = self.lines
        return all(lines[pos + k] == t or _bare(lines[pos + k]) == t for k, t in enumerate(old))

    def matches(self, old: Sequence[str], loose: bool) -> list[int]:
        """Every start position where ``old`` matches (any position, sorted)."""
        idx = self.index(loose)
        keys = [self.key(t, loose) for t in old]
        best_j, best = 0, None
        for j, k in enumerate(keys):
            hits = idx.get(k)
            if not hits:
                return []
            if best is None or len(hits) < len(best):
                best_j, best = j, hits
        assert best is not None
        n, total = len(keys), len(self.lines)
        out: list[int] = []
        for i in best:
            q = i - best_j
            if q < 0 or q + n > total:
                continue
            if all(self.key(self.lines[q + k], loose) == keys[k] for k in range(n)):
                out.append(q)
        return out

    def closest(self, old: Sequence[str], hint: int) -> str:
        """Describe the best partial match, to tell the model what differs."""
        if not old:
            return ""
        idx = self.index(True)
        first = self.key(old[0], True)
        starts = idx.get(first, [])
        if not starts:
            return f"the hunk's first old line {_short(old[0])} does not occur in the file"
        best_q, best_k = starts[0], -1
        for q in starts:
            k = 0
            while (
                k < len(old)
                and q + k < len(self.lines)
                and self.key(self.lines[q + k], True) == self.key(old[k], True)
            ):
                k += 1
            if k > best_k or (k == best_k and abs(q - hint) < abs(best_q - hint)):
                best_q, best_k = q, k
        at = best_q + best_k
        if at >= len(self.lines):
            return (
                f"closest match starts at line {best_q + 1}: the first {best_k} of {len(old)} "
                "old lines match, then the file ends"
            )
        return (
            f"closest match starts at line {best_q + 1}: the first {best_k} of {len(old)} old "
            f"lines match; at line {at + 1} the file has {_short(_bare(self.lines[at]))} but the "
            f"patch expects {_short(old[best_k])}"
        )


def _where(path: str, hunk: Hunk, total: int) -> str:
    return f"{path} hunk {hunk.index}/{total} ({hunk.header})"


def apply_hunks(path: str, text: Text, hunks: Sequence[Hunk]) -> tuple[Text, list[str]]:
    """Locate every hunk against the original lines, then build the new text."""
    lines = text.lines
    loc = _Locator(lines)
    placed: list[tuple[int, Hunk]] = []
    notes: list[str] = []
    delta = 0
    min_pos = 0
    for hunk in hunks:
        old = [ln.text for ln in hunk.old]
        n = len(old)
        base = hunk.source_start - 1 if n else hunk.source_start
        hint = max(0, base + delta)
        if n == 0:
            pos = min(max(hint, min_pos), len(lines))
            if pos != base:
                notes.append(
                    f"hunk {hunk.index} inserted at line {pos + 1} (header said {base + 1})"
                )
        else:
            pos = _choose(path, hunk, len(hunks), loc, old, hint, min_pos, notes)
            if pos != base:
                notes.append(
                    f"hunk {hunk.index} applied at line {pos + 1} (header said {hunk.source_start})"
                )
        placed.append((pos, hunk))
        delta = pos - base
        min_pos = pos + n
    return _assemble(text, placed), notes


def _choose(
    path: str,
    hunk: Hunk,
    total: int,
    loc: _Locator,
    old: list[str],
    hint: int,
    min_pos: int,
    notes: list[str],
) -> int:
    if hint >= min_pos and loc.exact_at(old, hint):
        return hint
    for loose in (False, True):
        every = loc.matches(old, loose)
        found = [q for q in every if q >= min_pos]
        if not found:
            if every:
                raise PatchError(
                    f"{_where(path, hunk, total)}: its context only matches at line "
                    f"{every[0] + 1}, which overlaps or precedes the previous hunk; hunks of one "
                    "file must be in file order and must not overlap — merge or reorder them"
                )
            continue
        if loose:
            notes.append(f"hunk {hunk.index} matched ignoring trailing whitespace")
        if hint in found:
            return hint
        if len(found) == 1:
            return found[0]
        found.sort(key=lambda q: abs(q - hint))
        if abs(found[0] - hint) < abs(found[1] - hint):
            return found[0]
        lines_at = ", ".join(str(q + 1) for q in sorted(found)[:8])
        raise PatchError(
            f"{_where(path, hunk, total)}: ambiguous — its context matches {len(found)} places "
            f"(lines {lines_at}) and the @@ line number is not nearer to one of them; add more "
            "context lines or fix the @@ -a line number so the hunk is unique"
        )
    new = [ln.text for ln in hunk.lines if ln.tag != "-"]
    if new and new != old and loc.matches(new, True):
        at = loc.matches(new, True)[0] + 1
        raise PatchError(
            f"{_where(path, hunk, total)}: context not found, but the hunk's result is already "
            f"present at line {at} — the change looks already applied; re-read {path} before "
            "sending it again"
        )
    raise PatchError(
        f"{_where(path, hunk, total)}: context not found — {loc.closest(old, hint)}. Re-read "
        f"{path} and regenerate the hunk against its current content"
    )


def _assemble(text: Text, placed: Sequence[tuple[int, Hunk]]) -> Text:
    lines, total = text.lines, len(text.lines)
    cr = "\r" if text.crlf else ""
    out: list[str] = []
    last_nl = True
    cur = 0

    def file_nl(k: int) -> bool:
        return k < total - 1 or text.final_newline

    for pos, hunk in placed:
        if pos > cur:
            out.extend(lines[cur:pos])
            last_nl = file_nl(pos - 1)
        k = pos
        for pl in hunk.lines:
            if pl.tag == " ":
                out.append(lines[k])
                last_nl = file_nl(k)
                k += 1
            elif pl.tag == "-":
                k += 1
            else:
                out.append(pl.text + cr)
                last_nl = pl.eol != ""
        cur = k
    if cur < total:
        out.extend(lines[cur:])
        last_nl = text.final_newline
    return Text(out, last_nl, text.crlf)


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


class _Tree:
    """The workspace as the patch sees it: later entries see earlier entries' results."""

    def __init__(self, root: str | Path, reader: Callable[[Path], bytes | None]) -> None:
        self.root = root
        self.reader = reader
        self.slots: dict[Path, _Slot] = {}

    def slot(self, rel: str, entry: str) -> _Slot:
        try:
            wp = resolve(self.root, rel)
        except PathError as exc:
            raise PatchError(f"{entry}: {exc}") from exc
        if wp.real in self.slots:
            return self.slots[wp.real]
        if wp.real.is_dir():
            raise PatchError(f"{entry}: {wp.rel} is a directory, not a file")
        data = self.reader(wp.real)
        mode = atomic.current_mode(wp.real) if data is not None else None
        s = _Slot(wp.real, wp.rel, data, mode)
        self.slots[wp.real] = s
        return s


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return None


def plan_patch(root: str | Path, patch: str | bytes) -> PatchPlan:
    """Locate every hunk of every file in memory; raise ``PatchError`` if any fails."""
    text = _dec(patch) if isinstance(patch, bytes) else patch
    try:
        entries = parse_patch(text)
    except PatchParseError as exc:
        raise PatchError(str(exc)) from exc
    tree = _Tree(root, read_bytes)
    for fp in entries:
        _plan_entry(tree, fp)
    changes: list[FileChange] = []
    for s in tree.slots.values():
        if s.data == s.orig and s.mode == s.orig_mode:
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
            )
        )
    return PatchPlan(tuple(changes))


def _is_creation(fp: FilePatch, exists: bool) -> bool:
    if fp.old_path is None:
        return True
    zero = bool(fp.hunks) and all(h.source_start == 0 and h.source_length == 0 for h in fp.hunks)
    return zero and (fp.source_epoch or not exists)


def _is_deletion(fp: FilePatch) -> bool:
    if fp.new_path is None:
        return True
    zero = bool(fp.hunks) and all(h.target_start == 0 and h.target_length == 0 for h in fp.hunks)
    return zero and fp.target_epoch


def _plan_entry(tree: _Tree, fp: FilePatch) -> None:
    entry = f"{fp.name}"
    if fp.binary:
        raise PatchError(f"{entry}: binary patches are not supported; use the write tool instead")
    if fp.special_mode:
        raise PatchError(
            f"{entry}: git mode {fp.special_mode} (symlink or submodule) is not supported"
        )
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
    total = len(fp.hunks)
    if _is_creation(fp, exists):
        bad = [h for h in fp.hunks if any(ln.tag != "+" for ln in h.lines)]
        if bad:
            raise PatchError(
                f"{slot.path} hunk {bad[0].index}: a file creation may only contain '+' lines"
            )
        content = "".join(ln.text + ln.eol for h in fp.hunks for ln in h.lines)
        data = _enc(content)
        if exists and slot.data != data:
            raise PatchError(
                f"{slot.path}: the patch creates this file but it already exists; "
                "send a modification hunk (--- a/PATH) instead, or delete it first"
            )
        slot.data = data
        slot.mode = fp.new_mode if fp.new_mode is not None else slot.mode
        slot.hunks += total
        slot.added += sum(h.added for h in fp.hunks)
        return
    if not exists:
        raise PatchError(
            f"{slot.path}: no such file in the workspace; to create it use '--- /dev/null' and "
            "'+++ b/PATH' with only '+' lines"
        )
    assert slot.data is not None
    text = Text.parse(_dec(slot.data))
    if _is_deletion(fp):
        if fp.hunks:
            old = [ln.text.rstrip() for h in fp.hunks for ln in h.lines if ln.tag != "+"]
            have = [c.rstrip() for c in text.lines]
            if old != have:
                raise PatchError(
                    f"{slot.path}: the patch deletes this file but its removed lines differ from "
                    f"the file's current content ({len(old)} vs {len(have)} lines); re-read it"
                )
        slot.data = None
        slot.mode = None
        slot.removed += len(text.lines)
        return
    new_text, notes = apply_hunks(slot.path, text, fp.hunks)
    slot.data = _enc(new_text.render())
    if fp.new_mode is not None:
        slot.mode = fp.new_mode
    slot.hunks += total
    slot.added += sum(h.added for h in fp.hunks)
    slot.removed += sum(h.removed for h in fp.hunks)
    slot.notes.extend(notes)


def _plan_move(tree: _Tree, fp: FilePatch) -> None:
    assert fp.old_path and fp.new_path
    verb = "rename" if fp.rename else "copy"
    src = tree.slot(fp.old_path, fp.old_path)
    dst = tree.slot(fp.new_path, fp.new_path)
    if src.data is None:
        raise PatchError(f"{verb} {fp.old_path} -> {fp.new_path}: {fp.old_path} does not exist")
    if dst.data is not None and dst.real != src.real:
        raise PatchError(
            f"{verb} {fp.old_path} -> {fp.new_path}: {fp.new_path} already exists; "
            "delete it first or pick another name"
        )
    data = src.data
    notes: list[str] = []
    if fp.hunks:
        new_text, notes = apply_hunks(fp.new_path, Text.parse(_dec(data)), fp.hunks)
        data = _enc(new_text.render())
    mode = fp.new_mode if fp.new_mode is not None else src.mode
    if fp.rename:
        src.data, src.mode = None, None
        src.renamed_from = fp.old_path
    dst.data, dst.mode = data, mode
    dst.renamed_from = fp.old_path if fp.rename else None
    dst.hunks += len(fp.hunks)
    dst.added += sum(h.added for h in fp.hunks)
    dst.removed += sum(h.removed for h in fp.hunks)
    dst.notes.extend(notes)
    if fp.copy:
        dst.notes.append(f"copied from {fp.old_path}")


# ------------------------------------------------------------------ writing


def check_unchanged(changes: Sequence[FileChange]) -> None:
    """Raise if any target's bytes differ from those the plan (and the approval) saw."""
    for c in changes:
        now = read_bytes(c.real)
        if now != c.old:
            from frontier.tools.diffing import sha256

            was, cur = sha256(c.old), sha256(now)
            raise PatchError(
                f"file changed since review: {c.path} (sha256 {_h(was)} when reviewed, "
                f"{_h(cur)} now); nothing written. Re-read the file and re-issue the call"
            )


def _h(digest: str | None) -> str:
    return "absent" if digest is None else digest[:12]


def write_changes(changes: Sequence[FileChange]) -> None:
    """Atomically write every change, then read each file back and compare."""
    check_unchanged(changes)
    writes = [
        atomic.FileWrite(path=c.real, data=c.new, old=c.old, mode=c.new_mode, old_mode=c.old_mode)
        for c in changes
    ]
    try:
        atomic.commit_files(writes)
    except atomic.AtomicWriteError as exc:
        raise PatchError(str(exc)) from exc
    for c in changes:
        back = read_bytes(c.real)
        if back != c.new:
            raise PatchError(
                f"read-back mismatch for {c.path}: the file on disk differs from what was "
                "written (another process may be writing it); re-read it before continuing"
            )


def apply_plan(plan: PatchPlan) -> None:
    write_changes(plan.changes)


def apply_patch(root: str | Path, patch: str | bytes, *, dry_run: bool = False) -> PatchPlan:
    """Plan and (unless ``dry_run``) write; raises ``PatchError`` with nothing written."""
    plan = plan_patch(root, patch)
    if not dry_run:
        apply_plan(plan)
    return plan
