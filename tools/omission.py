"""A line that stands for code the model left out: ``// ... existing code ...``.

Models rewriting a file (or a function in ``replace``'s ``new``) write a placeholder where
the code they did not repeat was: ``# ... rest of the methods unchanged ...``,
``{/* ... existing code ... */}``, ``(rest of code ...)``. Written, the placeholder deletes
that code, and in a long diff the deletion is easy to approve (Gemini CLI, Copilot and
Bolt users lost code this way; Gemini CLI refuses such edits since). Here an edit whose
new text holds a placeholder line the file did not already hold is refused before the
review, with what to do instead; nothing is written.

A placeholder is a line alone: a comment (or a bracketed or bare phrase) beginning or
ending with an ellipsis, in words that say something was left out. Code that merely contains ``...``
(Python's ``Ellipsis``, a spread, a string) is not one, nor is a placeholder the file
already had (an edit of this very kind of text), nor any line of a prose file (a README
may show one) or of a new file (nothing is deleted).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from frontier.tools.patch_engine import FileChange

PROSE = frozenset((".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".org", ".tex"))
"""Files whose text may show a placeholder on purpose (docs about code)."""
MAX_LINE = 120
"""A placeholder is short; a longer comment with an ellipsis is prose."""

_OPENERS = ("{/*", "<!--", "/*", "//", "#", "--", ";", "%", "*")
_CLOSERS = ("*/}", "-->", "*/")
_ELLIPSIS = re.compile(r"\.\.\.|…")
_AT_AN_END = re.compile(r"^(\.\.\.|…)|(\.\.\.|…)$")
_LEFT_OUT = re.compile(
    r"\b(rest of|remaining|existing|unchanged|(remains?|stays?) the same|same as before"
    r"|as before|previous (code|implementation|content)|other (methods|functions|code"
    r"|fields|imports|cases|tests|properties|routes|components|handlers)"
    r"|keep( the)? existing|no changes?|omitted|elided|skipped for brevity|for brevity)\b"
)


def placeholder(line: str) -> str | None:
    """``line``'s placeholder text, normalised (lower case, single spaces), or ``None``
    when the line is not one."""
    text = line.strip()
    if not text or len(text) > MAX_LINE or not _ELLIPSIS.search(text):
        return None
    commented = False
    for opener in _OPENERS:
        if text.startswith(opener):
            text, commented = text[len(opener) :].strip(), True
            break
    for closer in _CLOSERS:
        if text.endswith(closer):
            text = text[: -len(closer)].strip()
            break
    bracketed = text[:1] in "([" and text[-1:] in ")]"
    if bracketed:
        text = text[1:-1].strip()
    if not _AT_AN_END.search(text):
        return None  # "Note: ... existing callers work": prose, not a stand-in
    if not (commented or bracketed or _ELLIPSIS.match(text)):
        return None  # code: a call, a spread, an Ellipsis, a string
    words = " ".join(text.lower().split())
    return words if _LEFT_OUT.search(words) else None


def _placeholders(text: str) -> Iterator[tuple[int, str, str]]:
    """``(line number, normalised text, the line)`` of each placeholder line of ``text``:
    only the lines holding an ellipsis are looked at (found at C speed), so a 4 MB file
    costs its ellipses, not its lines."""
    number, counted, done = 1, 0, -1
    for mark in _ELLIPSIS.finditer(text):
        if mark.start() <= done:
            continue  # a line already looked at
        start = text.rfind("\n", 0, mark.start()) + 1
        end = text.find("\n", mark.end())
        done = end = len(text) if end < 0 else end
        number += text.count("\n", counted, start)
        counted = start
        line = text[start:end]
        found = placeholder(line)
        if found is not None:
            yield number, found, line.strip()


def omission(changes: Iterable[FileChange]) -> str | None:
    """Why these changes would delete code behind a placeholder (the first new one: file,
    line, text), or ``None``. A file that already holds the same placeholder as often may
    keep it."""
    for change in changes:
        if change.old is None or change.new is None:
            continue
        if change.path[change.path.rfind(".") :].lower() in PROSE:
            continue
        added = list(_placeholders(change.new.decode("utf-8", "replace")))
        if not added:
            continue
        old = change.old.decode("utf-8", "replace")
        had = Counter(found for _, found, _ in _placeholders(old))
        for number, found, line in added:
            if had[found] > 0:
                had[found] -= 1
                continue
            return (
                f"{change.path}: line {number} as the edit leaves it, {line!r}, stands for code "
                "left out: written, it would delete that code. Write those lines out in full (read "
                "the file for them), or change only the lines that change (replace, or a "
                "patch with context); nothing was written"
            )
    return None
