"""Where ``replace``'s ``old`` is when it is not there exactly: its lines, whole, with the
whitespace at their ends ignored, or with the file's indenting tabs read as spaces, or
with typographic quotes, dashes and spaces read as ASCII (:func:`typographic`).

``read`` shows a line's trailing spaces as nothing at all, and models copy lines without
them: ``old`` then never matched, the model read the file again, copied the same lines
the same way and failed again (a loop no re-reading could end). ``apply_patch`` always
matched so (DESIGN §5: "tolerating trailing whitespace", Codex's ladder,
``tools/patch_match.py``); ``replace`` and ``multi`` now do for ``old`` made of whole
lines.

A file indented with tabs (Go, Makefiles) met an ``old`` indented with spaces: the model
copied tabs as the spaces it saw, and every edit of an indented line failed (Claude
Code #26996, and the four reports before it). Such an ``old`` is found with the file's
leading tabs read as spaces of one width, and ``new`` is written with its leading spaces
as tabs of that width (:func:`with_tabs`), so the file keeps its style. Other leading
whitespace is never ignored: ``new``'s indentation would then be wrong.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from functools import lru_cache
from itertools import accumulate

from frontier.tools.patch_match import _FOLD, Haystack, key

TAB_WIDTHS = (4, 8, 2)
"""The widths a model's spaces may stand for a tab in, tried in this order."""


def whole_lines_loosely(text: str, old: str) -> list[tuple[int, int]]:
    """The spans of ``text`` (at most two: one is the answer, two say it is ambiguous)
    whose lines are ``old``'s lines but for whitespace at their ends. A span covers the
    lines' trailing whitespace and, when ``old`` ends with a line break, the last line's
    break; never a ``\\r`` of a CRLF line end ``old`` did not include. ``old`` must begin
    and end at line boundaries of the match: a piece of a line is only ever exact."""
    lines = text.split("\n")
    return _spans(lines, _runs(lines, old), old.endswith("\n"))


def tabs_for_spaces(text: str, old: str) -> tuple[list[tuple[int, int]], int]:
    """For a file indented with tabs and an ``old`` indented with spaces, the spans (as
    :func:`whole_lines_loosely`'s) whose lines are ``old``'s once their leading tabs are
    spaces of one width (the first width that finds any), and that width; ``([], 0)``
    when ``old`` holds a tab or no indented line, the file no tab-indented line, or
    nothing matches."""
    if "\t" in old or not any(line.startswith(" ") for line in old.split("\n")):
        return [], 0
    lines = text.split("\n")
    if not any(line.startswith("\t") for line in lines):
        return [], 0
    for width in TAB_WIDTHS:
        runs = _runs([_spaced(line, width) for line in lines], old)
        if runs:
            return _spans(lines, runs, old.endswith("\n")), width
    return [], 0


def with_tabs(new: str, width: int) -> str:
    """``new``'s indentation in the file's tabs: each line's leading spaces as tabs of
    ``width``, a remainder kept as spaces."""
    out = []
    for line in new.split("\n"):
        body = line.lstrip(" ")
        spaces = len(line) - len(body)
        out.append("\t" * (spaces // width) + " " * (spaces % width) + body)
    return "\n".join(out)


def _spaced(line: str, width: int) -> str:
    body = line.lstrip("\t")
    return " " * (width * (len(line) - len(body))) + body


def _runs(lines: list[str], old: str) -> list[tuple[int, int]]:
    """``(first, last)`` line indices (at most two runs) whose lines, without whitespace
    at their ends, are ``old``'s."""
    ends_with_break = old.endswith("\n")
    wanted = [line.rstrip() for line in (old[:-1] if ends_with_break else old).split("\n")]
    if not any(wanted):
        return []
    found = Haystack(lines).find(wanted, "trailing", limit=2)
    runs = [(first, first + len(wanted) - 1) for first in found]
    # ``old`` ending with a break the file's last line lacks is not that line
    return [(a, b) for a, b in runs if not (ends_with_break and b == len(lines) - 1)]


def _spans(
    lines: list[str], runs: list[tuple[int, int]], ends_with_break: bool
) -> list[tuple[int, int]]:
    if not runs:
        return []
    starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    spans: list[tuple[int, int]] = []
    for first, last in runs:
        end = starts[last] + len(lines[last])
        if ends_with_break:
            end += 1
        elif lines[last].endswith("\r"):
            end -= 1  # the CRLF stays whole
        spans.append((starts[first], end))
    return spans


_PUNCTUATION = {k: v for k, v in _FOLD.items() if isinstance(v, str) and len(v) == 1}
"""Typographic quotes, dashes and spaces, each to its one ASCII character (``apply_patch``'s
``unicode`` level, but for the ellipsis, which is three): a text and its fold have the same
length, so a place in one is the same place in the other."""
ALIGNED_MAX = 1000
"""Characters of a changed run of lines aligned one by one (:func:`in_file_punctuation`);
a longer one is written as the model sent it (the alignment is quadratic at worst: 0.06 s
at 1,000, 1 s at 4,000 characters)."""
ALIGNED_LINES_MAX = 2000
"""Lines of ``old`` and ``new`` together aligned at all (0.25 s at worst); past it
:func:`in_file_punctuation` refuses (``TooLongToAlign``)."""


class TooLongToAlign(ValueError):
    """``old`` and ``new`` are too long to keep the file's punctuation in what ``new``
    keeps of ``old``, in bounded time."""


def typographic(text: str, old: str) -> list[tuple[int, int]]:
    """The spans of ``text`` (at most two) that are ``old`` once typographic quotes,
    dashes and spaces on either side are read as ASCII: a model writes ``"`` where the
    file has ``“`` (every copy of a prose line failed: Copilot CLI #3254, octo-agent #317),
    or ``“`` where the file has ``"``. ``[]`` when neither holds such a character."""
    folded_old = old.translate(_PUNCTUATION)
    if folded_old == old and text.isascii():
        return []  # nothing typographic on either side: an exact miss is a miss
    folded = _folded(text)
    spans: list[tuple[int, int]] = []
    at = folded.find(folded_old)
    while at != -1 and len(spans) < 2:
        spans.append((at, at + len(old)))
        at = folded.find(folded_old, at + 1)
    return spans


@lru_cache(maxsize=1)
def _folded(text: str) -> str:
    """``text`` folded once for all of a ``multi``'s edits (a megabyte of prose took 40 ms
    each time; the string's hash is kept by the string itself)."""
    return text.translate(_PUNCTUATION)


def in_file_punctuation(new: str, old: str, found: str) -> str:
    """``new`` as it goes into the file when ``old`` was found as ``found`` only by its
    punctuation: what ``new`` keeps of ``old`` is written as the file has it, what it
    changes as the model wrote it. So an edit of one word in a line with curly quotes
    keeps them, and a model's straight quotes in code it wrote are never made curly
    (Claude Code's own normalisation did that: #31863, #63732). Aligned by lines, then
    by characters within a changed run of lines (at most :data:`ALIGNED_MAX`);
    :class:`TooLongToAlign` past :data:`ALIGNED_LINES_MAX` lines."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    if len(old_lines) + len(new_lines) > ALIGNED_LINES_MAX:
        raise TooLongToAlign(f"{len(old_lines)} + {len(new_lines)} lines")
    found_lines = found.split("\n")  # as long as old's: the fold keeps every character
    out: list[str] = []
    lines = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for op, i1, i2, j1, j2 in lines.get_opcodes():
        if op == "equal":
            out += found_lines[i1:i2]
        elif op == "replace":
            a, b = "\n".join(old_lines[i1:i2]), "\n".join(new_lines[j1:j2])
            if len(a) > ALIGNED_MAX or len(b) > ALIGNED_MAX:
                out += new_lines[j1:j2]
            else:
                out.append(_aligned(a, b, "\n".join(found_lines[i1:i2])))
        elif op == "insert":
            out += new_lines[j1:j2]
    return "\n".join(out)


def _aligned(old: str, new: str, found: str) -> str:
    pieces: list[str] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        pieces.append(found[i1:i2] if op == "equal" else new[j1:j2])
    return "".join(pieces)


SHOWN = 100
"""Characters of a line a "not found" quotes."""


CANDIDATES = 50
"""Places of ``old``'s first line weighed for its "not found" (a ``}`` occurs often)."""


def first_difference(text: str, old: str) -> str | None:
    """Where ``old`` stops matching the file, for its "not found": of the places its first
    line is in the file (its indentation and line ends aside; the first
    :data:`CANDIDATES`), the one where most of its lines follow, and there the first line
    that differs, quoted as the file has it and as ``old`` has it; or, when all of them
    follow but for indentation, the first line indented otherwise. The model fixes that
    line instead of reading the whole file again. ``None`` when ``old``'s first line is
    nowhere in the file."""
    wanted = old.split("\n")
    head = next((i for i, line in enumerate(wanted) if line.strip()), None)
    if head is None:
        return None
    first = key(wanted[head], "unicode")  # its quotes and dashes aside: said below
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the last line's break starts no line
    best: tuple[int, int] | None = None  # (lines that follow as they are, where)
    places = (i for i, line in enumerate(lines) if key(line, "unicode") == first)
    for _, at in zip(range(CANDIDATES), places, strict=False):
        follow = 0
        while head + follow < len(wanted) and at + follow < len(lines):
            if lines[at + follow].strip() != wanted[head + follow].strip():
                break
            follow += 1
        if best is None or follow > best[0]:
            best = (follow, at)
        if follow == len(wanted) - head:
            break  # all of it follows: none can do better
    if best is None:
        return None
    follow, at = best
    k, n = head + follow, at + follow
    where = f"`old`'s line {head + 1} is line {at + 1} of the file, and "
    if k < len(wanted):
        if n >= len(lines):
            return f"{where}the file ends before its line {k + 1}"
        only = ""
        if key(lines[n], "unicode") == key(wanted[k], "unicode"):
            only = " (only in punctuation: the file has typographic quotes, dashes or spaces "
            only += "where `old` has ASCII ones; copy them as the file has them)"
        if k == head:  # found by its letters, not as it is
            return (
                f"`old`'s line {k + 1} is line {n + 1} of the file but for its punctuation: "
                f"the file has {_q(lines[n])}, `old` has {_q(wanted[k])}{only}"
            )
        return (
            f"{where}its line {k + 1} differs: the file's line {n + 1} is {_q(lines[n])}, "
            f"`old` has {_q(wanted[k])}{only}"
        )
    for j in range(head, len(wanted)):  # all follow: an indentation differs
        have = lines[at + j - head].rstrip()
        if have != wanted[j].rstrip():
            return (
                f"{where}its line {j + 1} is indented otherwise: the file's line "
                f"{at + j - head + 1} is {_q(have)}, `old` has {_q(wanted[j])}"
            )
    return None


def _q(line: str) -> str:
    line = line.rstrip("\r")
    return repr(line if len(line) <= SHOWN else line[: SHOWN - 1] + "…")
