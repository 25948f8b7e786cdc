"""Finding a run of lines in a file: the matching ladder and a linear-time search.

The ladder is Codex's (``seek_sequence.rs``): exact, then ignoring trailing
whitespace, then ignoring whitespace at both ends, then with Unicode
punctuation folded to ASCII (dashes, quotes, non-breaking and other spaces),
because models retype what they read. The first level at which a hunk matches
decides; the caller notes a loose match. CRLF vs LF is never a mismatch.

A search joins the keys of a file's lines once per level and finds the joined
needle with ``str.find``; line numbers come from a bisect over line offsets, so
locating a hunk costs O(file) at C speed, never O(file × hunk) in Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

LEVELS = ("exact", "trailing", "both", "unicode")
LEVEL_NOTES = {
    "exact": "",
    "trailing": "ignoring trailing whitespace",
    "both": "ignoring leading and trailing whitespace",
    "unicode": "after folding Unicode punctuation and spaces to ASCII",
}
_FOLD = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\uff07", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\uff02", '"'),
        **dict.fromkeys(
            "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
            "\u202f\u205f\u3000",
            " ",
        ),
        "\u2026": "...",
    }
)


def bare(line: str) -> str:
    """A file line without its CR (CRLF vs LF is never a mismatch)."""
    return line[:-1] if line.endswith("\r") else line


def key(line: str, level: str) -> str:
    if level == "exact":
        return bare(line)
    if level == "trailing":
        return line.rstrip()
    if level == "both":
        return line.strip()
    return line.translate(_FOLD).strip()


def keys(lines: Sequence[str], level: str) -> list[str]:
    if level == "exact":
        return [line[:-1] if line.endswith("\r") else line for line in lines]
    if level == "trailing":
        return [line.rstrip() for line in lines]
    if level == "both":
        return [line.strip() for line in lines]
    return [line.translate(_FOLD).strip() for line in lines]


class Haystack:
    """The keys of a list of lines at each level, joined once, for repeated searches."""

    __slots__ = ("_before", "_joined", "_lines")

    def __init__(self, lines: Sequence[str]) -> None:
        self._lines = lines
        self._joined: dict[str, str] = {}
        self._before: dict[str, list[int]] = {}

    def __len__(self) -> int:
        return len(self._lines)

    def _level(self, level: str) -> tuple[str, list[int]]:
        """The joined keys at ``level`` and ``before``: ``before[i]``, the length of the
        keys before line ``i``, so line ``i`` starts at offset ``before[i] + i + 1`` (after
        its leading ``"\\n"``). One C-speed pass each (a 4,000-line file is searched by
        every hunk of a model's patch, and this was half of it)."""
        joined = self._joined.get(level)
        if joined is None:
            lines = self._lines
            ks: Sequence[str] = lines  # exact keys are the lines, unless one ends in "\r"
            joined = "\n" + "\n".join(lines) + "\n" if level == "exact" else "\r\n"
            if "\r" in joined and "\r\n" in joined:  # "\r" first: a memchr, most files have none
                ks = keys(lines, level)
                joined = "\n" + "\n".join(ks) + "\n"
            self._joined[level] = joined
            self._before[level] = list(accumulate(map(len, ks), initial=0))
        return joined, self._before[level]

    def find(self, needle: Sequence[str], level: str, start: int = 0, limit: int = 0) -> list[int]:
        """Every line index ``>= start`` where ``needle`` (already keyed) matches, in order;
        at most ``limit`` of them when ``limit`` > 0."""
        n, m = len(self._lines), len(needle)
        if m == 0 or m > n - start:
            return []
        joined, before = self._level(level)
        probe = "\n" + "\n".join(needle) + "\n"
        out: list[int] = []
        off = joined.find(probe, before[start] + start) if start < n else -1
        while off >= 0:
            line = _line_at(before, off, n)
            if line + m > n:
                break
            out.append(line)
            if limit and len(out) >= limit:
                break
            after = before[line] + line + 1 + len(needle[0])
            off = joined.find(probe, after if line + 1 < n else off + 1)
        return out


def _line_at(before: list[int], off: int, n: int) -> int:
    """The line whose leading ``"\\n"`` is the last at or before offset ``off`` of the joined
    keys: the last ``i < n`` with ``before[i] + i <= off``."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if before[mid] + mid <= off:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def bisect_left(values: Sequence[int], x: int) -> int:
    """``bisect.bisect_left`` for the planner's short sorted lists of line numbers, here so
    ``frontier apply-patch`` does not load ``bisect`` and ``_bisect`` (~0.3 ms of start-up,
    issue 24)."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo
