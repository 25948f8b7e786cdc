"""Where ``replace``'s ``old`` is when it is not there exactly: its lines, whole, with the
whitespace at their ends ignored.

``read`` shows a line's trailing spaces as nothing at all, and models copy lines without
them: ``old`` then never matched, the model read the file again, copied the same lines
the same way and failed again (a loop no re-reading could end). ``apply_patch`` always
matched so (DESIGN §5: "tolerating trailing whitespace", Codex's ladder,
``tools/patch_match.py``); ``replace`` and ``multi`` now do for ``old`` made of whole
lines. Leading whitespace is never ignored: ``new``'s indentation would then be wrong.
"""

from __future__ import annotations

from itertools import accumulate

from frontier.tools.patch_match import Haystack


def whole_lines_loosely(text: str, old: str) -> list[tuple[int, int]]:
    """The spans of ``text`` (at most two: one is the answer, two say it is ambiguous)
    whose lines are ``old``'s lines but for whitespace at their ends. A span covers the
    lines' trailing whitespace and, when ``old`` ends with a line break, the last line's
    break; never a ``\\r`` of a CRLF line end ``old`` did not include. ``old`` must begin
    and end at line boundaries of the match: a piece of a line is only ever exact."""
    ends_with_break = old.endswith("\n")
    wanted = [line.rstrip() for line in (old[:-1] if ends_with_break else old).split("\n")]
    if not any(wanted):
        return []
    lines = text.split("\n")
    found = Haystack(lines).find(wanted, "trailing", limit=2)
    if not found:
        return []
    starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    spans: list[tuple[int, int]] = []
    for first in found:
        last = first + len(wanted) - 1
        if ends_with_break and last == len(lines) - 1:
            continue  # ``old`` ends with a break the file's last line lacks
        end = starts[last] + len(lines[last])
        if ends_with_break:
            end += 1
        elif lines[last].endswith("\r"):
            end -= 1  # the CRLF stays whole
        spans.append((starts[first], end))
    return spans
