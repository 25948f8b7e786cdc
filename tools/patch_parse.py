"""Unified-diff parsing on top of ``unidiff`` into small frozen values.

The engine needs more than ``unidiff`` gives directly: line endings split from
content, ``\\ No newline at end of file`` attached to the line it follows,
``a/``/``b/`` prefixes stripped, git modes/renames/copies from the extended
headers, and whether a side carries the ``diff -N`` epoch timestamp.

Values are ``NamedTuple``s, not dataclasses: ``frontier apply-patch`` must start
fast and importing ``dataclasses`` (which pulls in ``inspect``) costs ~15 ms.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

DEV_NULL = "/dev/null"
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
    index: int
    """1-based position in its file entry."""
    source_start: int
    source_length: int
    target_start: int
    target_length: int
    header: str
    lines: tuple[PatchLine, ...]

    @property
    def old(self) -> list[PatchLine]:
        return [ln for ln in self.lines if ln.tag != "+"]

    @property
    def added(self) -> int:
        return sum(1 for ln in self.lines if ln.tag == "+")

    @property
    def removed(self) -> int:
        return sum(1 for ln in self.lines if ln.tag == "-")


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


def _hunk(index: int, h: object) -> Hunk:
    lines: list[PatchLine] = []
    for ln in h:  # type: ignore[attr-defined]
        tag = ln.line_type
        value: str = ln.value
        if tag == "\\":
            if lines:
                prev = lines[-1]
                lines[-1] = PatchLine(prev.tag, prev.text, "")
            continue
        if tag not in (" ", "-", "+"):
            continue
        if value.endswith("\r\n"):
            text, eol = value[:-2], "\r\n"
        elif value.endswith("\n"):
            text, eol = value[:-1], "\n"
        else:
            text, eol = value, "\n"
        lines.append(PatchLine(tag, text, eol))
    header = f"@@ -{h.source_start},{h.source_length} +{h.target_start},{h.target_length} @@"  # type: ignore[attr-defined]
    return Hunk(
        index=index,
        source_start=h.source_start,  # type: ignore[attr-defined]
        source_length=h.source_length,  # type: ignore[attr-defined]
        target_start=h.target_start,  # type: ignore[attr-defined]
        target_length=h.target_length,  # type: ignore[attr-defined]
        header=header,
        lines=tuple(lines),
    )


def parse_patch(text: str) -> list[FilePatch]:
    """Parse every file entry; raises ``PatchParseError`` with an actionable message."""
    if not text.strip():
        raise PatchParseError("the patch is empty; send a unified diff with ---/+++ headers")
    try:
        patch_set = PatchSet(text)
    except UnidiffParseError as exc:
        raise PatchParseError(
            f"the patch is not a valid unified diff ({exc}); check that every hunk's "
            "@@ -a,b +c,d @@ counts match its lines (b = context+removed, d = context+added) "
            "and that every hunk line starts with ' ', '-' or '+'"
        ) from exc
    files: list[FilePatch] = []
    for pf in patch_set:
        info = [str(x) for x in (pf.patch_info or [])]
        meta = _modes(info)
        old, new = _side(pf.source_file), _side(pf.target_file)
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
        files.append(
            FilePatch(
                old_path=old,
                new_path=new,
                hunks=tuple(_hunk(i + 1, h) for i, h in enumerate(pf)),
                old_mode=None if old_mode is None else old_mode & 0o7777,
                new_mode=None if new_mode is None else new_mode & 0o7777,
                source_epoch=bool(pf.source_timestamp and _EPOCH.match(pf.source_timestamp)),
                target_epoch=bool(pf.target_timestamp and _EPOCH.match(pf.target_timestamp)),
                rename=rename and not copy,
                copy=copy,
                binary=bool(meta.get("binary")) or bool(getattr(pf, "is_binary_file", False)),
                special_mode=special,
            )
        )
    if not files:
        raise PatchParseError(
            "no file entries found; a patch needs '--- a/PATH' and '+++ b/PATH' header lines "
            "followed by @@ hunks"
        )
    return files
