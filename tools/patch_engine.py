"""The apply_patch engine shared by the tool and ``frontier apply-patch``.

Two phases, so a failure never leaves a half-applied patch:

1. ``plan_patch`` parses the diff once and locates every hunk of every file in
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

Speed: a file is read with one open/fstat/read and split once; a hunk at its
hint is checked with one list-slice comparison, a search is ``str.find`` over
the file's lines joined once per key, and the new file is spliced from whole
runs of lines, so no step walks a file line by line in Python.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from frontier.tools.patch_parse import FilePatch, Hunk, PatchParseError, parse_patch
from frontier.tools.paths import PathError, WorkspacePath, real_root, resolve

if TYPE_CHECKING:
    from frontier.tools.contract import FilePreview, Preview

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
    layout: Layout | None = None
    """How ``new`` was built from ``old`` by one entry's hunks, for the preview (else it diffs)."""


class Layout(NamedTuple):
    """The engine's own lines of a file before and after, and where each hunk was located
    (0-based line in ``old``): the preview renders the diff from them instead of diffing."""

    old: Text
    new: Text
    placed: tuple[tuple[int, Hunk], ...]


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
        """The diff of every file, rendered from the located hunks where there are some (no
        diff search: O(changed lines) plus a C-speed check of the unchanged runs)."""
        from frontier.tools.contract import Preview
        from frontier.tools.diffing import file_preview

        files = tuple(
            file_preview(c.path, c.old, c.new) if c.layout is None else _preview(c, c.layout)
            for c in self.changes
        )
        return Preview(kind="diff", files=files, summary="; ".join(self.summary()))


def _preview(c: FileChange, layout: Layout) -> FilePreview:
    from frontier.tools.diffing import file_preview

    blocks, keys = preview_hints(layout)
    return file_preview(c.path, c.old, c.new, blocks, keys)


def preview_hints(
    layout: Layout,
) -> tuple[list[tuple[int, int, int, int]], tuple[list[str], list[str]]]:
    """The changed line ranges and both sides' line keys (``diffing.line_keys``) of a layout."""
    a, b = layout.old.keys(), layout.new.keys()
    blocks = _blocks(layout.placed)
    if len(b) < len(layout.new.lines):  # an added empty last line with no newline is no line
        blocks = [(i1, i2, j1, min(j2, len(b))) for i1, i2, j1, j2 in blocks]
    return blocks, (a, b)


def _blocks(placed: Sequence[tuple[int, Hunk]]) -> list[tuple[int, int, int, int]]:
    """The changed line ranges ``(i1, i2, j1, j2)`` (old ``[i1, i2)`` → new ``[j1, j2)``) of
    hunks located at ``placed`` positions: each run of ``-``/``+`` lines, adjacent runs merged.
    The preview checks them against the real old and new lines, so this only aligns."""
    out: list[tuple[int, int, int, int]] = []
    shift = 0  # new index - old index
    for pos, hunk in placed:
        i = pos
        tags = hunk.tags
        for run in _RUNS.finditer(tags):
            start, end = run.span()
            k = end - start
            tag = tags[start]
            if tag == " ":
                i += k
                continue
            i1, j1 = i, i + shift
            if tag == "-":
                i += k
                shift -= k
            else:
                shift += k
            if out and out[-1][1] == i1 and out[-1][3] == j1:
                out[-1] = (out[-1][0], i, out[-1][2], i + shift)
            else:
                out.append((i1, i, j1, i + shift))
    return out


# ------------------------------------------------------------------ text helpers


class Text:
    """A file as line contents (a CRLF line keeps its ``\\r``) plus its final-newline state.

    Splitting on ``\\n`` only, and keeping ``\\r`` in the content, makes unchanged lines
    round-trip byte for byte and keeps every operation at C speed (split/join/slices).
    """

    __slots__ = ("crlf", "final_newline", "has_cr", "lines")

    def __init__(
        self, lines: list[str], final_newline: bool, crlf: bool, has_cr: bool = False
    ) -> None:
        self.lines = lines
        self.final_newline = final_newline
        self.crlf = crlf
        self.has_cr = has_cr
        """Some line ends in ``\\r``: exact comparisons must also try without it."""

    @classmethod
    def parse(cls, text: str) -> Text:
        parts = text.split("\n")
        final = parts[-1] == ""
        if final:
            parts.pop()
        has_cr = "\r" in text
        crlf = has_cr and text.count("\r\n") * 2 > text.count("\n")
        return cls(parts, final or not parts, crlf, has_cr)

    def render(self) -> str:
        if not self.lines:
            return ""
        return "\n".join(self.lines) + ("\n" if self.final_newline else "")

    def keys(self) -> list[str]:
        """``diffing.line_keys(self.render())`` without splitting the text again."""
        lines = self.lines
        if self.final_newline or not lines:
            return lines
        last = lines[-1]
        return [*lines[:-1], last + "\n"] if last else lines[:-1]


def _bare(line: str) -> str:
    return line[:-1] if line.endswith("\r") else line


def _enc(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def _dec(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOATIME = getattr(os, "O_NOATIME", 0)
"""Reads (plan, re-check, read-back) must not dirty inodes: an atime update needs a journal
handle, which waits while a commit forced by the write's fsyncs is being prepared."""


def read_file(path: str | os.PathLike[str]) -> tuple[bytes | None, int | None]:
    """``(bytes, permission bits)`` with one open/fstat/read, or ``(None, None)`` if absent.

    Opened with ``O_NOATIME`` when allowed (see ``_O_NOATIME``).

    Raises ``IsADirectoryError`` for a directory (other ``OSError``s propagate).
    """
    try:
        fd = os.open(path, os.O_RDONLY | _O_CLOEXEC | _O_NOATIME)
    except FileNotFoundError:
        return None, None
    except PermissionError:
        if not _O_NOATIME:
            raise
        try:  # O_NOATIME is only allowed on files we own
            fd = os.open(path, os.O_RDONLY | _O_CLOEXEC)
        except FileNotFoundError:
            return None, None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        want = st.st_size + 1
        chunk = os.read(fd, want)
        if len(chunk) < want:  # the common case: the whole file in one read
            return chunk, stat.S_IMODE(st.st_mode)
        parts = [chunk]
        while chunk := os.read(fd, 1 << 16):
            parts.append(chunk)
        return b"".join(parts), stat.S_IMODE(st.st_mode)
    finally:
        os.close(fd)


def _short(text: str, n: int = 80) -> str:
    return repr(text if len(text) <= n else text[:n] + "…")


# ------------------------------------------------------------------ hunk location


class _Locator:
    """Finds hunks in one file's lines.

    At the hint a hunk is checked with one list-slice comparison. A search joins the file's
    lines once (per key: exact, or trailing whitespace stripped) and finds the hunk's joined
    lines with ``str.find``, so no per-line Python work is done for the common cases.
    """

    def __init__(self, text: Text) -> None:
        self.lines = text.lines
        self.has_cr = text.has_cr
        self._hay: dict[bool, str] = {}
        self._index: dict[str, list[int]] | None = None

    @staticmethod
    def key(text: str, loose: bool) -> str:
        return text.rstrip() if loose else _bare(text)

    def exact_at(self, old: list[str], pos: int) -> bool:
        """The common case, checked before any search: the hunk is where it says."""
        n = len(old)
        if pos + n > len(self.lines):
            return False
        seg = self.lines[pos : pos + n]
        if seg == old:
            return True
        return self.has_cr and all(a == t or _bare(a) == t for a, t in zip(seg, old, strict=True))

    def _haystack(self, loose: bool) -> str:
        """``"\\n" + keys joined by "\\n" + "\\n"``: line k starts after the k-th ``\\n``."""
        hay = self._hay.get(loose)
        if hay is None:
            if loose:
                body = "\n".join([c.rstrip() for c in self.lines])
            else:
                body = "\n".join(self.lines)
                if self.has_cr:  # drop each line's final \r (CRLF vs LF is never a mismatch)
                    body = body.replace("\r\n", "\n")
                    if body.endswith("\r"):
                        body = body[:-1]
            hay = self._hay[loose] = "\n" + body + "\n"
        return hay

    def matches(self, old: Sequence[str], loose: bool) -> list[int]:
        """Every start position where ``old`` matches (any position, sorted)."""
        hay = self._haystack(loose)
        needle = "\n" + "\n".join([self.key(t, loose) for t in old]) + "\n"
        limit = len(self.lines) - len(old)
        out: list[int] = []
        line = last = 0
        find, count = hay.find, hay.count
        off = find(needle)
        while off >= 0:
            line += count("\n", last, off)
            last = off
            if line > limit:
                break
            out.append(line)
            off = find(needle, off + 1)
        return out

    def closest(self, old: Sequence[str], hint: int) -> str:
        """Describe the best partial match, to tell the model what differs."""
        if not old:
            return ""
        if self._index is None:
            self._index = {}
            for i, c in enumerate(self.lines):
                self._index.setdefault(self.key(c, True), []).append(i)
        first = self.key(old[0], True)
        starts = self._index.get(first, [])
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
    new, notes, _ = _apply_hunks(path, text, hunks)
    return new, notes


def _apply_hunks(
    path: str, text: Text, hunks: Sequence[Hunk]
) -> tuple[Text, list[str], list[tuple[int, Hunk]]]:
    """``apply_hunks`` that also returns where each hunk was placed (for the preview)."""
    lines = text.lines
    loc = _Locator(text)
    placed: list[tuple[int, Hunk]] = []
    notes: list[str] = []
    delta = 0
    min_pos = 0
    for hunk in hunks:
        old = hunk.old
        n = len(old)
        base = hunk.source_start - 1 if n else hunk.source_start
        hint = max(0, base + delta)
        if n == 0:
            pos = min(max(hint, min_pos), len(lines))
            if pos != base:
                notes.append(
                    f"hunk {hunk.index} inserted at line {pos + 1} (header said {base + 1})"
                )
        elif hint >= min_pos and loc.exact_at(old, hint):
            pos = hint
            if pos != base:
                notes.append(
                    f"hunk {hunk.index} applied at line {pos + 1} (header said {hunk.source_start})"
                )
        else:
            pos = _search(path, hunk, len(hunks), loc, old, hint, min_pos, notes)
            if pos != base:
                notes.append(
                    f"hunk {hunk.index} applied at line {pos + 1} (header said {hunk.source_start})"
                )
        placed.append((pos, hunk))
        delta = pos - base
        min_pos = pos + n
    return _assemble(text, placed), notes, placed


def _search(
    path: str,
    hunk: Hunk,
    total: int,
    loc: _Locator,
    old: list[str],
    hint: int,
    min_pos: int,
    notes: list[str],
) -> int:
    """The hunk is not at its hint: search the whole file, exact first, then ignoring
    trailing whitespace; the match nearest the hint wins, a tie is ambiguous."""
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
    new = hunk.new
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


_RUNS = re.compile(r" +|-+|\++")
"""Runs of one tag in ``Hunk.tags``: spliced with one slice each."""


def _assemble(text: Text, placed: Sequence[tuple[int, Hunk]]) -> Text:
    """Context lines keep the file's bytes, added lines get the file's line ending."""
    lines, total = text.lines, len(text.lines)
    cr = "\r" if text.crlf else ""
    out: list[str] = []
    last_nl = True
    """Whether what ends ``out`` so far is followed by a newline."""
    cur = 0
    for pos, hunk in placed:
        if pos > cur:
            out.extend(lines[cur:pos])
            last_nl = pos < total or text.final_newline
        k = pos
        tags = hunk.tags
        for run in _RUNS.finditer(tags):
            start, end = run.span()
            if tags[start] == " ":
                k += end - start
                out.extend(lines[k - (end - start) : k])
                last_nl = k < total or text.final_newline
            elif tags[start] == "-":
                k += end - start
            else:
                added = hunk.texts[start:end]
                out.extend([t + cr for t in added] if cr else added)
                last_nl = hunk.eols[end - 1] != ""
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
        self.layout: Layout | None = None
        """Set when ``data`` is ``orig`` changed by one entry's hunks, else None."""


class _Tree:
    """The workspace as the patch sees it: later entries see earlier entries' results."""

    def __init__(self, root: str | Path) -> None:
        self.root = root
        self.slots: dict[Path, _Slot] = {}
        self._dirs: dict[str, Path | None] = {}

    def _resolve(self, rel: str) -> WorkspacePath:
        """``paths.resolve`` with each directory resolved once per patch.

        A plain relative path (no ``.``/``..``/empty parts) whose last part is not a symlink
        resolves to its resolved directory plus its name, which is what ``realpath`` returns;
        everything else (and every refusal, for its message) goes through ``resolve``.
        """
        parts = rel.split("/")
        if (
            os.path.isabs(rel)
            or "\x00" in rel
            or not rel.strip()
            or any(p in ("", ".", "..") for p in parts)
        ):
            return resolve(self.root, rel)
        parent = "/".join(parts[:-1])
        if parent not in self._dirs:
            try:
                self._dirs[parent] = (
                    resolve(self.root, parent).real if parent else real_root(self.root)
                )
            except PathError:
                self._dirs[parent] = None
        directory = self._dirs[parent]
        if directory is None:
            return resolve(self.root, rel)
        real = directory / parts[-1]
        if os.path.islink(real):
            return resolve(self.root, rel)
        return WorkspacePath(rel=rel, real=real)

    def slot(self, rel: str, entry: str) -> _Slot:
        try:
            wp = self._resolve(rel)
        except PathError as exc:
            raise PatchError(f"{entry}: {exc}") from exc
        if wp.real in self.slots:
            return self.slots[wp.real]
        try:
            data, mode = read_file(wp.real)
        except IsADirectoryError:
            raise PatchError(f"{entry}: {wp.rel} is a directory, not a file") from None
        s = _Slot(wp.real, wp.rel, data, mode)
        self.slots[wp.real] = s
        return s


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or ``None`` if it does not exist (or is a directory)."""
    try:
        return read_file(path)[0]
    except IsADirectoryError:
        return None


def plan_patch(root: str | Path, patch: str | bytes) -> PatchPlan:
    """Locate every hunk of every file in memory; raise ``PatchError`` if any fails."""
    text = _dec(patch) if isinstance(patch, bytes) else patch
    try:
        entries = parse_patch(text)
    except PatchParseError as exc:
        raise PatchError(str(exc)) from exc
    tree = _Tree(root)
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
                layout=s.layout,
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
        bad = [h for h in fp.hunks if h.tags.strip("+")]
        if bad:
            raise PatchError(
                f"{slot.path} hunk {bad[0].index}: a file creation may only contain '+' lines"
            )
        content = "".join([t + e for h in fp.hunks for t, e in zip(h.texts, h.eols, strict=True)])
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
            old = [t.rstrip() for h in fp.hunks for t in h.old]
            have = [c.rstrip() for c in text.lines]
            if old != have:
                raise PatchError(
                    f"{slot.path}: the patch deletes this file but its removed lines differ from "
                    f"the file's current content ({len(old)} vs {len(have)} lines); re-read it"
                )
        slot.data = None
        slot.mode = None
        slot.layout = None
        slot.removed += len(text.lines)
        return
    new_text, notes, placed = _apply_hunks(slot.path, text, fp.hunks)
    first = slot.data is slot.orig and not slot.hunks
    slot.layout = Layout(text, new_text, tuple(placed)) if first else None
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
        src.layout = None
        src.renamed_from = fp.old_path
    dst.data, dst.mode = data, mode
    dst.layout = None
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
    from frontier.tools import atomic  # the write path only: keeps --dry-run start-up fast

    check_unchanged(changes)
    writes = [
        atomic.FileWrite(path=c.real, data=c.new, old=c.old, mode=c.new_mode, old_mode=c.old_mode)
        for c in changes
    ]

    def read_back() -> None:
        for c in changes:
            if read_bytes(c.real) != c.new:
                raise PatchError(
                    f"read-back mismatch for {c.path}: the file on disk differs from what was "
                    "written (another process may be writing it); re-read it before continuing"
                )

    try:
        atomic.commit_files(writes, verify=read_back)
    except atomic.AtomicWriteError as exc:
        raise PatchError(str(exc)) from exc


def apply_plan(plan: PatchPlan) -> None:
    write_changes(plan.changes)


def apply_patch(root: str | Path, patch: str | bytes, *, dry_run: bool = False) -> PatchPlan:
    """Plan and (unless ``dry_run``) write; raises ``PatchError`` with nothing written."""
    plan = plan_patch(root, patch)
    if not dry_run:
        apply_plan(plan)
    return plan
