"""A lenient reader of unified diffs (git, GNU ``diff -ruN``, and what models write).

Models miscount ``@@`` ranges, drop them (``@@ @@``, ``@@ def f():``), strip the
space of empty context lines and wrap patches in prose; tools write epoch
timestamps, differing top folders, git extended headers and quoted names. This
reader takes every hunk's body from its lines — it ends at the next ``@@``, the
next file header or the first line that is no hunk line — and keeps the
header's numbers only as a location hint. The counts are still used where they
are consistent with the body, because only they can tell a removed line that
reads ``-- x`` from a file header (``--- x`` followed by ``+++ y``).

Cost is linear in the patch: one pass over its lines, no regex per body line.
"""

from __future__ import annotations

import re
from operator import itemgetter

from frontier.tools.patch_model import FilePatch, Hunk, PatchParseError, split_patch_lines

DEV_NULL = "/dev/null"
# The patterns are strings, compiled on first use (``re``'s own cache): compiled at import
# they cost ~0.6 ms of ``frontier apply-patch``'s start-up (issue 24), and most diffs need
# only some of them (no timestamps: no _EPOCH; no git lines: no _INDEX_MODE).
_HEADER = r"^@@+ *-(\d+)(?:,(\d+))? +\+(\d+)(?:,(\d+))? *(?:@@+)?(.*)$"
_EPOCH = r"^\s*(1970-01-01|1969-12-31|Thu Jan\s+1 \d\d:\d\d:\d\d(\.\d+)? 1970)"
_TRAILING_TS = (
    r"\s+(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?(?: ?[+-]\d{4})?"
    r"|\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})$"
)
_MODE_LINES = {
    "new file mode": "new_mode",
    "deleted file mode": "old_mode",
    "old mode": "old_mode",
    "new mode": "new_mode",
}
_INDEX_MODE = r"^index [0-9a-fA-F]+\.\.[0-9a-fA-F]+ (\d+)$"
_GIT_EXTENDED = (
    "old mode ",
    "new mode ",
    "deleted file mode ",
    "new file mode ",
    "similarity index ",
    "dissimilarity index ",
    "rename from ",
    "rename to ",
    "copy from ",
    "copy to ",
    "index ",
    "Binary files ",
    "GIT binary patch",
)
_NO_ANCHOR = {"", "...", "…"}


def parse_unified(text: str) -> tuple[FilePatch, ...]:
    """Every file entry of a unified diff; raises ``PatchParseError`` with the patch line."""
    lines = split_patch_lines(text)
    reader = _Reader(lines)
    files = reader.files()
    if not files:
        if any(line.startswith("*** ") for line in lines[:50]) and any(
            line.startswith("--- ") for line in lines[:50]
        ):
            raise PatchParseError(
                "this looks like a context diff (diff -c), which is not supported; send a "
                "unified diff (diff -u: '--- a/PATH', '+++ b/PATH', '@@' hunks) instead"
            )
        if reader.stray_hunk is not None:
            raise PatchParseError(
                f"patch line {reader.stray_hunk}: an @@ hunk before any file header; start each "
                "file with '--- a/PATH' and '+++ b/PATH' lines"
            )
        raise PatchParseError(
            "no file entries found; a unified diff needs '--- a/PATH' and '+++ b/PATH' header "
            "lines followed by @@ hunks (or use the '*** Begin Patch' envelope)"
        )
    return tuple(files)


class _Entry:
    """A file entry being read (mutable, reader-private)."""

    def __init__(self, line_no: int) -> None:
        self.line_no = line_no
        self.old: str | None = None
        self.new: str | None = None
        self.old_ts = self.new_ts = ""
        self.has_names = False
        self.git_old: str | None = None
        self.git_new: str | None = None
        self.info: list[str] = []
        self.hunks: list[Hunk] = []


class _Reader:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.n = len(lines)
        self.i = 0
        self.stray_hunk: int | None = None

    def files(self) -> list[FilePatch]:
        out: list[FilePatch] = []
        lines, n = self.lines, self.n
        while self.i < n:
            line = lines[self.i]
            if line.startswith("diff --git "):
                entry = _Entry(self.i + 1)
                entry.git_old, entry.git_new = _git_names(line[len("diff --git ") :])
                self.i += 1
                while self.i < n and lines[self.i].startswith(_GIT_EXTENDED):
                    entry.info.append(lines[self.i])
                    self.i += 1
                if self._at_names():
                    self._names(entry)
                self._hunks(entry)
                out.append(_file(entry))
            elif self._at_names():
                entry = _Entry(self.i + 1)
                self._names(entry)
                self._hunks(entry)
                out.append(_file(entry))
            else:
                if line.startswith("@@") and self.stray_hunk is None:
                    self.stray_hunk = self.i + 1
                self.i += 1
        return out

    def _at_names(self) -> bool:
        i = self.i
        return (
            i + 1 < self.n
            and self.lines[i].startswith("--- ")
            and self.lines[i + 1].startswith("+++ ")
        )

    def _names(self, entry: _Entry) -> None:
        entry.old, entry.old_ts = _name_and_stamp(self.lines[self.i][4:])
        entry.new, entry.new_ts = _name_and_stamp(self.lines[self.i + 1][4:])
        entry.has_names = True
        self.i += 2

    def _hunks(self, entry: _Entry) -> None:
        lines, n = self.lines, self.n
        while True:
            j = self.i
            while j < n and lines[j] == "":
                j += 1
            if j >= n or not lines[j].startswith("@@"):
                return
            self.i = j
            entry.hunks.append(self._hunk(entry, len(entry.hunks) + 1))

    def _hunk(self, entry: _Entry, index: int) -> Hunk:
        lines = self.lines
        header = lines[self.i]
        line_no = self.i + 1
        m = re.match(_HEADER, header)
        old_start = old_count = new_start = new_count = None
        anchors: tuple[str, ...] = ()
        if m:
            old_start, new_start = int(m.group(1)), int(m.group(3))
            old_count = 1 if m.group(2) is None else int(m.group(2))
            new_count = 1 if m.group(4) is None else int(m.group(4))
        else:
            anchor = header.strip("@ \t")
            if anchor not in _NO_ANCHOR:
                anchors = (anchor,)
        start = self.i + 1
        end = None
        if old_count is not None and new_count is not None:
            end = self._counted_end(start, old_count, new_count)
        if end is None:
            end = self._recounted_end(start)
        self.i = end
        tags, texts, eols = _columns(lines, start, end)
        if not tags:
            raise PatchParseError(
                f"patch line {line_no}: {entry.new or entry.old or 'the file'}: hunk {header!r} "
                "has no lines; each hunk needs context (' '), removed ('-') or added ('+') lines"
            )
        return Hunk(
            index=index,
            tags=tags,
            texts=texts,
            eols=eols,
            header=header,
            old_start=old_start,
            old_count=old_count,
            new_start=new_start,
            new_count=new_count,
            anchors=anchors,
            line_no=line_no,
        )

    def _counted_end(self, start: int, old_count: int, new_count: int) -> int | None:
        """Where the body ends if the header's counts describe it, else ``None``."""
        lines, n = self.lines, self.n
        src = tgt = 0
        j = start
        while (src < old_count or tgt < new_count) and j < n:
            c = lines[j][:1]
            if c == "+":
                tgt += 1
            elif c == "-":
                src += 1
            elif c in (" ", ""):
                src += 1
                tgt += 1
            elif c != "\\":
                return None
            j += 1
        if src != old_count or tgt != new_count:
            return None
        while j < n and lines[j].startswith("\\"):
            j += 1
        k = j
        while k < n and lines[k] == "":
            k += 1
        if k < n and lines[k][:1] in (" ", "-", "+") and not self._header_pair(k):
            return None  # more hunk lines follow: the counts are too small
        return j

    def _header_pair(self, k: int) -> bool:
        return (
            k + 1 < self.n
            and self.lines[k].startswith("--- ")
            and self.lines[k + 1].startswith("+++ ")
        )

    def _recounted_end(self, start: int) -> int:
        """The body is every hunk line up to the next header; trailing blank lines are
        separators, not context."""
        lines, n = self.lines, self.n
        j = start
        last = start  # just past the last non-blank body line
        while j < n:
            line = lines[j]
            c = line[:1]
            if c == "":
                j += 1
                continue
            if c == " " or c == "\\":
                pass
            elif c == "-":
                if line.startswith("--- ") and self._header_pair(j):
                    break
            elif c == "+":
                pass
            else:
                break
            j += 1
            last = j
        return last


_first = itemgetter(0)
_rest = itemgetter(slice(1, None))


def _columns(
    lines: list[str], start: int, end: int
) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Tags, texts and line endings of one hunk body; the common body (no empty line, no
    ``\\`` marker) is split at C speed, without a Python loop per line."""
    body = lines[start:end]
    if "" not in body:
        tags = "".join(map(_first, body))
        if "\\" not in tags:
            return tags, tuple(map(_rest, body)), ("\n",) * len(body)
    tag_list: list[str] = []
    texts: list[str] = []
    eols: list[str] = []
    for line in body:
        c = line[:1]
        if c == "\\":
            if eols:
                eols[-1] = ""
            continue
        if c == "":
            tag_list.append(" ")
            texts.append("")
        else:
            tag_list.append(c)
            texts.append(line[1:])
        eols.append("\n")
    return "".join(tag_list), tuple(texts), tuple(eols)


def _unquote(name: str) -> str:
    name = name.strip()
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        body = name[1:-1]
        raw = body.encode("latin-1", "backslashreplace").decode("unicode_escape")
        return raw.encode("latin-1", "surrogateescape").decode("utf-8", "surrogateescape")
    return name


def _name_and_stamp(rest: str) -> tuple[str | None, str]:
    if "\t" in rest:
        name, stamp = rest.split("\t", 1)
    else:
        m = re.search(_TRAILING_TS, rest)
        name, stamp = (rest[: m.start()], m.group(1)) if m else (rest, "")
    name = _unquote(name.rstrip())
    return (None if name in (DEV_NULL, "") else name), stamp.strip()


def _git_names(rest: str) -> tuple[str | None, str | None]:
    """The two paths of a ``diff --git a/X b/Y`` line (quoted or not)."""
    rest = rest.strip()
    if rest.startswith('"'):
        end = rest.find('"', 1)
        while end > 0 and rest[end - 1] == "\\":
            end = rest.find('"', end + 1)
        if end < 0:
            return None, None
        return _unquote(rest[: end + 1]), _unquote(rest[end + 1 :])
    if rest.endswith('"'):
        start = rest.rfind(' "')
        return (rest[:start], _unquote(rest[start + 1 :])) if start > 0 else (None, None)
    # Unquoted: "a/X b/X" — split where the two halves name the same path.
    half = len(rest) // 2
    if len(rest) % 2 == 1 and rest[half] == " " and rest[:half][2:] == rest[half + 1 :][2:]:
        return rest[:half], rest[half + 1 :]
    parts = rest.split(" b/", 1)
    if len(parts) == 2:
        return parts[0], "b/" + parts[1]
    parts = rest.split(" ", 1)
    return (parts[0], parts[1]) if len(parts) == 2 else (None, None)


def _strip_prefixes(old: str | None, new: str | None) -> tuple[str | None, str | None]:
    """-p1 when the names carry ``a/``+``b/`` or differing top folders, else -p0."""

    def drop(p: str) -> str:
        return p.split("/", 1)[1] if "/" in p else p

    if old and new:
        if (old.startswith("a/") and new.startswith("b/")) or (
            "/" in old and "/" in new and old.split("/", 1)[0] != new.split("/", 1)[0]
        ):
            return drop(old), drop(new)
        return old, new
    one = old or new
    if one and (one.startswith("a/") or one.startswith("b/")):
        one = drop(one)
    return (one, None) if old else (None, one)


def _octal(value: str | None) -> int | None:
    if value is None or not value.isdigit():
        return None
    return int(value, 8)


def _file(entry: _Entry) -> FilePatch:
    modes: dict[str, str] = {}
    rename_from: str | None = None
    rename_to: str | None = None
    rename = copy = binary = False
    created = deleted = False
    for line in entry.info:
        for prefix, key in _MODE_LINES.items():
            if line.startswith(prefix + " "):
                modes[key] = line[len(prefix) + 1 :].strip()
                created |= prefix == "new file mode"
                deleted |= prefix == "deleted file mode"
        m = re.match(_INDEX_MODE, line)
        if m:
            modes.setdefault("old_mode", m.group(1))
            modes.setdefault("new_mode", m.group(1))
        for word in ("rename", "copy"):
            if line.startswith(f"{word} from "):
                rename_from = _unquote(line[len(word) + 6 :])
            elif line.startswith(f"{word} to "):
                rename_to = _unquote(line[len(word) + 4 :])
            else:
                continue
            rename |= word == "rename"
            copy |= word == "copy"
        binary |= line.startswith(("GIT binary patch", "Binary files "))
    old: str | None
    new: str | None
    if (rename or copy) and rename_from and rename_to:
        old, new = rename_from, rename_to
    elif entry.has_names:
        old, new = _strip_prefixes(entry.old, entry.new)
    else:  # a git entry without ---/+++ lines: mode change, empty file, binary
        old, new = _strip_prefixes(entry.git_old, entry.git_new)
        if created:
            old = None
        elif deleted:
            new = None
    old_mode, new_mode = _octal(modes.get("old_mode")), _octal(modes.get("new_mode"))
    special = None
    for mode in (old_mode, new_mode):
        if mode is not None and (mode & 0o170000) in (0o120000, 0o160000):
            special = oct(mode)[2:]
    return FilePatch(
        old_path=old,
        new_path=new,
        hunks=tuple(entry.hunks),
        dialect="unified",
        old_mode=old_mode,
        new_mode=new_mode,
        source_epoch=_epoch(entry.old_ts),
        target_epoch=_epoch(entry.new_ts),
        rename=rename and not copy,
        copy=copy,
        binary=binary,
        special_mode=special,
        line_no=entry.line_no,
    )


def _epoch(stamp: str) -> bool:
    """``diff -N``'s timestamp of an absent side (no stamp at all, as git writes: not)."""
    return bool(stamp) and re.match(_EPOCH, stamp) is not None
