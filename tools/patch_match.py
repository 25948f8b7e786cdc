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

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from operator import add

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

    __slots__ = ("_joined", "_lines", "_starts")

    def __init__(self, lines: Sequence[str]) -> None:
        self._lines = lines
        self._joined: dict[str, str] = {}
        self._starts: dict[str, list[int]] = {}

    def __len__(self) -> int:
        return len(self._lines)

    def _level(self, level: str) -> tuple[str, list[int]]:
        joined = self._joined.get(level)
        if joined is None:
            lines = self._lines
            ks: Sequence[str] = lines  # exact keys are the lines, unless one ends in "\r"
            joined = "\n" + "\n".join(lines) + "\n" if level == "exact" else "\r\n"
            if "\r\n" in joined:
                ks = keys(lines, level)
                joined = "\n" + "\n".join(ks) + "\n"
            # offset of each line's first character (after its leading "\n"): 1 + the
            # lengths of the lines before it + one "\n" each; at C speed (a 4,000-line
            # file is searched by every hunk of a model's patch, and this was half of it)
            before = accumulate(map(len, ks), initial=0)
            starts = list(map(add, before, range(1, len(ks) + 1)))
            self._joined[level], self._starts[level] = joined, starts
        return joined, self._starts[level]

    def find(self, needle: Sequence[str], level: str, start: int = 0, limit: int = 0) -> list[int]:
        """Every line index ``>= start`` where ``needle`` (already keyed) matches, in order;
        at most ``limit`` of them when ``limit`` > 0."""
        n, m = len(self._lines), len(needle)
        if m == 0 or m > n - start:
            return []
        joined, starts = self._level(level)
        probe = "\n" + "\n".join(needle) + "\n"
        out: list[int] = []
        off = joined.find(probe, starts[start] - 1) if start < n else -1
        while off >= 0:
            line = bisect_right(starts, off + 1) - 1
            if line + m > n:
                break
            out.append(line)
            if limit and len(out) >= limit:
                break
            off = joined.find(probe, starts[line] + len(needle[0]) if line + 1 < n else off + 1)
        return out
