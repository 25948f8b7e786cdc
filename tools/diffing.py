"""Previews: the unified diff and hashes of one file as a mutation will change it.

Every mutation (apply_patch, write, replace, multi) is shown to the approver
the same way, computed from the exact bytes that will be written, so what is
reviewed is what lands on disk (DESIGN §5: approval is bound to content).
"""

from __future__ import annotations

import difflib
import hashlib

from frontier.tools.contract import FilePreview

NO_NEWLINE = "\\ No newline at end of file\n"


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def decode(data: bytes | None) -> str | None:
    """Text for display; undecodable bytes show as U+FFFD (the write uses the bytes)."""
    return None if data is None else data.decode("utf-8", errors="replace")


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def unified(path: str, old: str | None, new: str | None, context: int = 3) -> tuple[str, list[str]]:
    """``(diff, hunks)`` with ``--- a/path`` / ``+++ b/path`` headers (``/dev/null`` sides)."""
    a, b = _lines(old or ""), _lines(new or "")
    src = "/dev/null" if old is None else f"a/{path}"
    dst = "/dev/null" if new is None else f"b/{path}"
    body: list[str] = []
    hunks: list[str] = []
    current: list[str] = []
    for line in difflib.unified_diff(a, b, src, dst, n=context, lineterm="\n"):
        if line.startswith("@@"):
            if current:
                hunks.append("".join(current))
            current = []
        if not line.endswith("\n"):
            line = line + "\n" + NO_NEWLINE
        if line.startswith(("---", "+++")) and not current and not hunks:
            body.append(line)
            continue
        current.append(line)
        body.append(line)
    if current:
        hunks.append("".join(current))
    return "".join(body), hunks


def file_preview(path: str, old: bytes | None, new: bytes | None) -> FilePreview:
    old_text, new_text = decode(old), decode(new)
    diff, hunks = unified(path, old_text, new_text)
    added = sum(1 for h in hunks for ln in h.splitlines() if ln.startswith("+"))
    removed = sum(1 for h in hunks for ln in h.splitlines() if ln.startswith("-"))
    return FilePreview(
        path=path,
        old_text=old_text,
        new_text=new_text,
        diff=diff,
        old_hash=sha256(old),
        new_hash=sha256(new),
        added=added,
        removed=removed,
        hunks=tuple(hunks),
    )
