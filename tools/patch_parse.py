"""One entry point for patch text in either dialect: unwrap, detect, parse.

Models wrap patches: in a Markdown fence (```` ```diff ````), in a shell heredoc
(``apply_patch <<'EOF' … EOF``, as Codex-trained models do), or with a line of
prose before the diff. What was peeled off is recorded on the ``Patch`` so the
result can say so. The dialect is then decided from the text itself: a
``*** Begin Patch`` line means OpenAI Codex's envelope, anything else is read
as a unified diff.
"""

from __future__ import annotations

import re

from frontier.tools.patch_codex import BEGIN, parse_codex
from frontier.tools.patch_model import Patch, PatchParseError

__all__ = ["Patch", "PatchParseError", "parse_patch", "unwrap"]

MAX_PATCH_BYTES = 16 * 1024 * 1024
"""A patch larger than this is refused before it is read (the tool's own size limit)."""
# Strings, compiled on first use (``re``'s cache): a patch as it is needs neither (start-up,
# issue 24).
_FENCE = r"^\s*(`{3,}|~{3,})\s*([\w+-]*)\s*$"
_HEREDOC = r"^\s*(?:cd\s+\S+\s*&&\s*)?(?:apply_patch|applypatch)?\s*<<-?\s*(['\"]?)(\w+)\1\s*$"
_MARKERS = ("--- ", "+++ ", "@@", "diff --git ", BEGIN, "*** Update File:", "*** Add File:")


def unwrap(text: str) -> tuple[str, tuple[str, ...]]:
    """The patch inside a Markdown fence and/or a heredoc, and what was removed."""
    peeled: list[str] = []
    for _ in range(3):  # a heredoc inside a fence, at most a few layers
        body = text.strip()
        if not body:
            break
        cut = body.find("\n")
        head = body if cut < 0 else body[:cut]
        tail = body[body.rfind("\n") + 1 :]
        if head.lstrip().startswith(_MARKERS) or _looks_like_patch(head):
            # The common case: a patch as it is, never split here. Such a line is neither
            # a fence nor a heredoc: its first non-space character is none of ` ~ c a <.
            break
        lines = body.split("\n")
        first, last = 0, len(lines) - 1
        fence = re.match(_FENCE, head)
        if fence:
            mark = fence.group(1)
            end = next(
                (k for k in range(last, first, -1) if lines[k].strip() == mark[0] * len(mark)),
                None,
            )
            if end is None:
                end = next(
                    (k for k in range(last, first, -1) if lines[k].strip().startswith(mark)), None
                )
            if end is not None:
                text = "\n".join(lines[first + 1 : end]) + "\n"
                peeled.append(f"a {mark}{fence.group(2)} fence")
                continue
        heredoc = re.match(_HEREDOC, head)
        if heredoc and last > first and tail.strip().endswith(heredoc.group(2)):
            tag = heredoc.group(2)
            inner = lines[first + 1 : last]
            end_line = tail.rstrip()
            if end_line.strip() != tag:  # "*** End PatchEOF": the tag glued to the last line
                inner.append(end_line[: len(end_line) - len(tag)])
            text = "\n".join(inner) + "\n"
            peeled.append(f"a <<{tag} heredoc")
            continue
        if not fence and not heredoc:
            found = _fenced_block(lines)
            if found is not None:
                text = found
                peeled.append("prose around a fenced block")
                continue
        break
    return text, tuple(peeled)


def _looks_like_patch(line: str) -> bool:
    return line.startswith(("Index: ", "diff ", "--- ", "*** "))


def _fenced_block(lines: list[str]) -> str | None:
    """The first fenced block holding a patch marker, when prose surrounds it."""
    k = 0
    while k < len(lines):
        fence = re.match(_FENCE, lines[k])
        if fence:
            mark = fence.group(1)
            for e in range(k + 1, len(lines)):
                if lines[e].strip() == mark[0] * len(mark):
                    body = lines[k + 1 : e]
                    if any(line.lstrip().startswith(_MARKERS) for line in body):
                        return "\n".join(body) + "\n"
                    k = e
                    break
        k += 1
    return None


def _envelope_start(body: str) -> int | None:
    """Where a ``*** Begin Patch`` line starts after some prose (no unified header first)."""
    offset = 0
    for line in body.split("\n", 200)[:200]:
        if line.startswith(("--- ", "diff --git ", "@@")):
            return None
        if line.strip() == BEGIN:
            return offset
        offset += len(line) + 1
    return None


def parse_patch(text: str) -> Patch:
    """Parse a patch in either dialect; raises ``PatchParseError`` with an actionable message."""
    if not text.strip():
        raise PatchParseError(
            "the patch is empty; send a unified diff (--- a/PATH, +++ b/PATH, @@ hunks) or a "
            "'*** Begin Patch' envelope"
        )
    if len(text) > MAX_PATCH_BYTES:
        raise PatchParseError(
            f"the patch is {len(text)} characters, over the {MAX_PATCH_BYTES} limit; split it "
            "into several smaller patches"
        )
    body, peeled = unwrap(text)
    head = next((line.strip() for line in body.split("\n", 64)[:64] if line.strip()), "")
    if head == BEGIN or head.startswith(BEGIN):
        return Patch("codex", parse_codex(body), peeled)
    at = _envelope_start(body)
    if at is not None:
        return Patch("codex", parse_codex(body[at:]), (*peeled, "prose before the envelope"))
    if head.startswith(("*** Update File:", "*** Add File:", "*** Delete File:")):
        raise PatchParseError(
            "the patch starts with a '*** ... File:' header but has no '*** Begin Patch' line; "
            "wrap it in '*** Begin Patch' ... '*** End Patch'"
        )
    from frontier.tools.patch_unified import parse_unified  # here: a Codex patch never needs it

    return Patch("unified", parse_unified(body), peeled)
