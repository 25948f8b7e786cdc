"""Unified-diff parsing on top of ``unidiff`` into small frozen values.

``unidiff`` validates the structure and gives the metadata (file names,
timestamps, git headers, hunk ranges). It runs in ``metadata_only`` mode,
which checks every hunk body line's type and the ``@@`` counts without
building a regex match and a ``Line`` object per line (2.5-6x faster); the
hunk bodies it has validated are then sliced out of the same line list here
with plain first-character checks. The engine also needs line endings split
from content, ``\\ No newline at end of file`` attached to the line it follows,
``a/``/``b/`` prefixes stripped, git modes/renames/copies from the extended
headers, and whether a side carries the ``diff -N`` epoch timestamp.

Values are ``NamedTuple``s, not dataclasses: ``frontier apply-patch`` must start
fast and importing ``dataclasses`` (which pulls in ``inspect``) costs ~15 ms.
"""

from __future__ import annotations

import re
from operator import itemgetter
from typing import NamedTuple

from unidiff import PatchSet
from unidiff.constants import RE_HUNK_HEADER
from unidiff.errors import UnidiffParseError

DEV_NULL = "/dev/null"
NO_NEWLINE_MARKER = "\\ No newline at end of file"
_EPOCH = re.compile(r"^\s*(1970-01-01|1969-12-31|Thu Jan\s+1 \d\d:\d\d:\d\d 1970)")
_MODE_LINES = {
    "new file mode": "new_mode",
    "deleted file mode": "old_mode",
    "old mode": "old_mode",
    "new mode": "new_mode",
}
_INDEX_MODE = re.compile(r"^index [0-9a-fA-F]+\.\.[0-9a-fA-F]+ (\d+)$")


class PatchParseError(ValueError):
    """The text is not a unified diff we can apply; the message says where and why."""


class PatchLine(NamedTuple):
    tag: str
    """``" "`` context, ``"-"`` removed, ``"+"`` added."""
    text: str
    """Line content without its line ending."""
    eol: str
    """``"\\n"``, ``"\\r\\n"``, or ``""`` when marked ``\\ No newline at end of file``."""


class Hunk(NamedTuple):
    """One hunk as parallel columns (one entry per body line), so the engine can compare and
    splice whole runs of lines with list slices instead of visiting each line."""

    index: int
    """1-based position in its file entry."""
    source_start: int
    source_length: int
    target_start: int
    target_length: int
    header: str
    tags: str
    """One character per body line: ``" "`` context, ``"-"`` removed, ``"+"`` added."""
    texts: tuple[str, ...]
    """Each line's content without its line ending."""
    eols: tuple[str, ...]
    """Each line's ending: ``"\\n"``, ``"\\r\\n"``, or ``""`` (``\\ No newline at end of file``)."""

    @property
    def lines(self) -> tuple[PatchLine, ...]:
        return tuple(map(PatchLine, self.tags, self.texts, self.eols))

    @property
    def old(self) -> list[str]:
        """The lines the hunk expects in the file (context and removed), in order."""
        return [t for g, t in zip(self.tags, self.texts, strict=True) if g != "+"]

    @property
    def new(self) -> list[str]:
        """The lines the hunk leaves in the file (context and added), in order."""
        return [t for g, t in zip(self.tags, self.texts, strict=True) if g != "-"]

    @property
    def added(self) -> int:
        return self.tags.count("+")

    @property
    def removed(self) -> int:
        return self.tags.count("-")


class FilePatch(NamedTuple):
    old_path: str | None
    """Workspace-relative source path; ``None`` for ``/dev/null``."""
    new_path: str | None
    hunks: tuple[Hunk, ...]
    old_mode: int | None = None
    new_mode: int | None = None
    source_epoch: bool = False
    target_epoch: bool = False
    rename: bool = False
    copy: bool = False
    binary: bool = False
    special_mode: str | None = None
    """A git mode we refuse to apply (symlink ``120000``, submodule ``160000``)."""

    @property
    def name(self) -> str:
        return self.new_path or self.old_path or "?"


def _unquote(name: str) -> str:
    name = name.strip()
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        body = name[1:-1]
        raw = body.encode("latin-1", "backslashreplace").decode("unicode_escape")
        return raw.encode("latin-1", "surrogateescape").decode("utf-8", "surrogateescape")
    return name


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


def _side(name: str | None) -> str | None:
    if name is None:
        return None
    name = _unquote(name)
    return None if name in (DEV_NULL, "") else name


def _modes(info_lines: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    rename_from = rename_to = None
    for raw in info_lines:
        line = raw.rstrip("\r\n")
        for prefix, key in _MODE_LINES.items():
            if line.startswith(prefix + " "):
                out[key] = line[len(prefix) + 1 :].strip()
        m = _INDEX_MODE.match(line)
        if m:
            out.setdefault("old_mode", m.group(1))
            out.setdefault("new_mode", m.group(1))
        for word in ("rename", "copy"):
            if line.startswith(f"{word} from "):
                rename_from = _unquote(line[len(word) + 6 :])
                out[word] = True
            elif line.startswith(f"{word} to "):
                rename_to = _unquote(line[len(word) + 4 :])
                out[word] = True
        if line.startswith("GIT binary patch") or line.startswith("Binary files "):
            out["binary"] = True
    out["rename_from"], out["rename_to"] = rename_from, rename_to
    return out


def _octal(value: object) -> int | None:
    if not isinstance(value, str) or not value.isdigit():
        return None
    return int(value, 8)


def split_lines(text: str) -> list[str]:
    """Lines with their ``\\n`` kept, split exactly as ``unidiff`` iterates a string (on
    ``\\n`` only: a ``\\r`` stays in its line)."""
    parts = text.split("\n")
    last = parts.pop()
    out = [p + "\n" for p in parts]
    if last:
        out.append(last)
    return out


def _hunks(lines: list[str], patch_set: PatchSet, plain: bool) -> list[tuple[Hunk, ...]]:
    """Each file entry's hunks with their bodies, cut from the lines ``unidiff`` validated.

    Between bodies we look for the next line matching ``unidiff``'s own hunk-header regex
    (only header lines lie there), then take exactly the body ``unidiff`` consumed. A body
    without ``\\`` lines is ``source_length + added`` lines: with ``plain`` (no ``\\r`` in the
    patch) it is cut with one slice and split into columns without a per-line Python loop.
    Otherwise lines are counted as ``unidiff`` counts them (``\\`` lines inside do not count).
    A ``\\ No newline at end of file`` marks the line before it.
    """
    out: list[list[Hunk]] = []
    total = len(lines)
    cursor = 0
    header_match = RE_HUNK_HEADER.match
    last: tuple[list[Hunk], int] | None = None
    """The hunk a ``\\ No newline`` marker after a body belongs to."""
    for pf in patch_set:
        hunks: list[Hunk] = []
        for h in pf:
            m = None
            while m is None:
                if cursor >= total:
                    raise PatchParseError(
                        f"{pf.path}: hunk @@ -{h.source_start},{h.source_length} @@ could not be "
                        "matched to its body; check the @@ lines and the lines between hunks"
                    )
                line = lines[cursor]
                cursor += 1
                if line[:2] == "@@":
                    m = header_match(line)
                elif last is not None and line.startswith(NO_NEWLINE_MARKER):
                    _mark_no_newline(*last)
            ss, sl, ts, tl = m.group(1, 2, 3, 4)
            s_start, t_start = int(ss), int(ts)
            s_len = 1 if sl is None else int(sl)
            t_len = 1 if tl is None else int(tl)
            if (s_start, s_len, t_start, t_len) != (
                h.source_start,
                h.source_length,
                h.target_start,
                h.target_length,
            ):
                raise PatchParseError(
                    f"{pf.path}: hunk @@ -{h.source_start},{h.source_length} @@ could not be "
                    "matched to its body; check the @@ lines and the lines between hunks"
                )
            end = cursor + s_len + h.added
            body = lines[cursor:end]
            tags = "".join(map(_first, body)) if plain else "\\"
            if "\\" not in tags and body and body[-1][-1:] == "\n":
                tags = tags.replace("\n", " ")
                texts = tuple(map(_inner, body))
                eols: tuple[str, ...] = ("\n",) * len(body)
            else:  # a marker inside, CRLF, or the patch's last line has no newline
                end = _body_end(lines, cursor, s_len, t_len)
                tags, texts, eols = _columns(lines[cursor:end])
            cursor = end
            hunks.append(
                Hunk(
                    index=len(hunks) + 1,
                    source_start=s_start,
                    source_length=s_len,
                    target_start=t_start,
                    target_length=t_len,
                    header=f"@@ -{s_start},{s_len} +{t_start},{t_len} @@",
                    tags=tags,
                    texts=texts,
                    eols=eols,
                )
            )
            last = (hunks, len(hunks) - 1)
        out.append(hunks)
    if last is not None:  # markers after the patch's last body
        for line in lines[cursor:]:
            if line.startswith(NO_NEWLINE_MARKER):
                _mark_no_newline(*last)
    return [tuple(hunks) for hunks in out]


_first = itemgetter(0)
_inner = itemgetter(slice(1, -1))
"""A plain body line is TAG + TEXT + ``"\\n"`` (an empty context line is just ``"\\n"``)."""


def _mark_no_newline(hunks: list[Hunk], i: int) -> None:
    h = hunks[i]
    if h.eols:
        hunks[i] = h._replace(eols=(*h.eols[:-1], ""))


def _body_end(lines: list[str], start: int, s_len: int, t_len: int) -> int:
    """Index just past a hunk body, counting lines as ``unidiff`` does."""
    j, total = start, len(lines)
    src = tgt = 0
    while (src < s_len or tgt < t_len) and j < total:
        c = lines[j][:1]
        j += 1
        if c == "+":
            tgt += 1
        elif c == "-":
            src += 1
        elif c != "\\":
            src += 1
            tgt += 1
    return j


def _columns(body: list[str]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Tags, texts and line endings of one hunk body, line by line (CRLF, markers)."""
    tags: list[str] = []
    texts: list[str] = []
    eols: list[str] = []
    for line in body:
        tag = line[:1]
        if tag == "\\":
            if eols:
                eols[-1] = ""
            continue
        if tag in ("\n", "\r", ""):
            tag, value = " ", line
        elif tag in (" ", "-", "+"):
            value = line[1:]
        else:  # unidiff rejected this already; kept so a mismatch can never slip through
            raise PatchParseError(f"hunk line expected, got {line[:40]!r}")
        if value[-1:] == "\n":
            if value[-2:-1] == "\r":
                texts.append(value[:-2])
                eols.append("\r\n")
            else:
                texts.append(value[:-1])
                eols.append("\n")
        else:
            texts.append(value)
            eols.append("\n")
        tags.append(tag)
    return "".join(tags), tuple(texts), tuple(eols)


def parse_patch(text: str) -> list[FilePatch]:
    """Parse every file entry; raises ``PatchParseError`` with an actionable message."""
    if not text.strip():
        raise PatchParseError("the patch is empty; send a unified diff with ---/+++ headers")
    lines = split_lines(text)
    try:
        patch_set = PatchSet(lines, metadata_only=True)
    except UnidiffParseError as exc:
        raise PatchParseError(
            f"the patch is not a valid unified diff ({exc}); check that every hunk's "
            "@@ -a,b +c,d @@ counts match its lines (b = context+removed, d = context+added) "
            "and that every hunk line starts with ' ', '-' or '+'"
        ) from exc
    plain = "\r" not in text
    files = [
        _file(pf, hunks)
        for pf, hunks in zip(patch_set, _hunks(lines, patch_set, plain), strict=True)
    ]
    if not files:
        raise PatchParseError(
            "no file entries found; a patch needs '--- a/PATH' and '+++ b/PATH' header lines "
            "followed by @@ hunks"
        )
    return files


def _file(pf: object, hunks: tuple[Hunk, ...]) -> FilePatch:
    info = [str(x) for x in (pf.patch_info or [])]  # type: ignore[attr-defined]
    meta = _modes(info)
    old, new = _side(pf.source_file), _side(pf.target_file)  # type: ignore[attr-defined]
    rename = bool(meta.get("rename")) or bool(getattr(pf, "is_rename", False))
    copy = bool(meta.get("copy"))
    if (rename or copy) and meta["rename_from"] and meta["rename_to"]:
        old, new = str(meta["rename_from"]), str(meta["rename_to"])
    else:
        old, new = _strip_prefixes(old, new)
    old_mode, new_mode = _octal(meta.get("old_mode")), _octal(meta.get("new_mode"))
    special = None
    for m in (old_mode, new_mode):
        if m is not None and (m & 0o170000) in (0o120000, 0o160000):
            special = oct(m)[2:]
    source_ts: str | None = pf.source_timestamp  # type: ignore[attr-defined]
    target_ts: str | None = pf.target_timestamp  # type: ignore[attr-defined]
    return FilePatch(
        old_path=old,
        new_path=new,
        hunks=hunks,
        old_mode=None if old_mode is None else old_mode & 0o7777,
        new_mode=None if new_mode is None else new_mode & 0o7777,
        source_epoch=bool(source_ts and _EPOCH.match(source_ts)),
        target_epoch=bool(target_ts and _EPOCH.match(target_ts)),
        rename=rename and not copy,
        copy=copy,
        binary=bool(meta.get("binary")) or bool(getattr(pf, "is_binary_file", False)),
        special_mode=special,
    )
