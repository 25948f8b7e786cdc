"""Property tests for the planner's searches, against the plainest statement of each.

``Haystack.find`` maps offsets to lines and ``bisect_left`` searches without the ``bisect``
module, and ``unwrap`` decides that a patch as it is holds no fence or heredoc without
their patterns (start-up, issue 24): each must answer exactly as the obvious version does.
"""

from __future__ import annotations

import bisect
import re

from hypothesis import given
from hypothesis import strategies as st

from frontier.tools import patch_parse
from frontier.tools.patch_match import LEVELS, Haystack, bisect_left, keys

LINE = st.text(alphabet="ab \t\r\u00a0\u2014", max_size=4)


def naive_find(
    lines: list[str], needle: list[str], level: str, start: int, limit: int
) -> list[int]:
    """Every ``i >= start`` where the keys of ``lines[i:i + len(needle)]`` are ``needle``
    (overlapping ones too), the first ``limit`` of them when ``limit`` > 0."""
    hay, m, out = keys(lines, level), len(needle), []
    if m == 0:
        return []
    for i in range(start, len(lines) - m + 1):
        if hay[i : i + m] == needle:
            out.append(i)
            if limit and len(out) >= limit:
                break
    return out


@given(
    st.lists(LINE, max_size=30),
    st.lists(LINE, min_size=1, max_size=3),
    st.sampled_from(LEVELS),
    st.integers(0, 32),
    st.integers(0, 3),
)
def test_find_is_every_occurrence(
    lines: list[str], needle: list[str], level: str, start: int, limit: int
) -> None:
    keyed = keys(needle, level)
    hay = Haystack(lines)
    assert hay.find(keyed, level, start, limit) == naive_find(lines, keyed, level, start, limit)
    assert hay.find(keyed, level, start, limit) == hay.find(keyed, level, start, limit)  # cached


@given(st.lists(st.integers(-5, 40)), st.integers(-10, 50))
def test_bisect_left_is_the_standard_one(values: list[int], x: int) -> None:
    values.sort()
    assert bisect_left(values, x) == bisect.bisect_left(values, x)


HEAD = st.text(alphabet=" \t\u3000`~<-'\"acdpplyI*+@_EOFx", max_size=24)


@given(HEAD)
def test_a_line_read_as_a_patch_is_neither_fence_nor_heredoc(head: str) -> None:
    """``unwrap`` keeps a text whose first line starts like a patch without asking the two
    patterns: for such a line they can never match."""
    if head.lstrip().startswith(patch_parse._MARKERS) or patch_parse._looks_like_patch(head):
        assert not re.match(patch_parse._FENCE, head)
        assert not re.match(patch_parse._HEREDOC, head)


_LINE = st.text(alphabet="ab =", max_size=4)
_TAIL = st.sampled_from(["", " ", "  ", "\t", " \t"])


@given(
    st.lists(st.tuples(_LINE, _TAIL), min_size=1, max_size=12),
    st.data(),
    st.booleans(),
    st.booleans(),
)
def test_replace_finds_whole_lines_whatever_their_trailing_whitespace(
    rows: list[tuple[str, str]], data: st.DataObject, with_break: bool, crlf: bool
) -> None:
    """``replace``'s loose match: the span found is the lines chosen, their trailing
    whitespace included and their line ends whole, whenever those lines (keyed without
    trailing whitespace) occur once; ambiguity is said, never guessed."""
    from frontier.tools.replace_match import whole_lines_loosely

    end = "\r\n" if crlf else "\n"
    text = "".join(line + tail + end for line, tail in rows)
    first = data.draw(st.integers(0, len(rows) - 1))
    last = data.draw(st.integers(first, len(rows) - 1))
    keys = [line.rstrip() for line, _ in rows]
    wanted = keys[first : last + 1]
    if not any(wanted) or (wanted[-1] == "" and not with_break):
        return  # "a\n" + "" reads as "a\n" with its break: the other case
    old = end.join(wanted) + (end if with_break else "")
    spans = whole_lines_loosely(text, old)
    m = len(wanted)
    places = [i for i in range(len(keys) - m + 1) if keys[i : i + m] == wanted]
    assert len(spans) == min(len(places), 2)
    if len(places) == 1:
        (s, e) = spans[0]
        starts = [sum(len(a + b + end) for a, b in rows[:i]) for i in range(len(rows) + 1)]
        assert s == starts[first]
        assert e == (starts[last + 1] if with_break else starts[last + 1] - len(end))


_BODY = st.text(alphabet="ab=", min_size=1, max_size=4)


@given(
    st.lists(st.tuples(st.integers(0, 3), _BODY), min_size=1, max_size=10),
    st.data(),
    st.sampled_from([4, 8, 2]),
)
def test_a_tab_file_is_found_by_its_indentation_in_spaces_and_written_back_in_tabs(
    rows: list[tuple[int, str]], data: st.DataObject, width: int
) -> None:
    """``old`` copied from a tab-indented file with each tab as ``width`` spaces: when
    that width is the one found and the lines occur once so, the span is the lines
    chosen, and the same lines written back (:func:`with_tabs`) are the file's own."""
    from frontier.tools.replace_match import tabs_for_spaces, with_tabs

    text = "".join("\t" * depth + body + "\n" for depth, body in rows)
    first = data.draw(st.integers(0, len(rows) - 1))
    last = data.draw(st.integers(first, len(rows) - 1))
    chosen = rows[first : last + 1]
    old = "\n".join(" " * (width * depth) + body for depth, body in chosen)
    spans, found = tabs_for_spaces(text, old)
    if not any(depth for depth, _ in chosen):
        assert spans == []  # nothing indented in old: not this rule's
        return
    assert found != 0  # the chosen lines themselves match at ``width`` at least
    if found != width:
        return  # a width tried first found lines of its own
    keyed = [" " * (width * d) + b for d, b in rows]
    wanted = keyed[first : last + 1]
    places = [i for i in range(len(rows)) if keyed[i : i + len(wanted)] == wanted]
    assert len(spans) == min(len(places), 2)
    if len(places) == 1:
        starts = [sum(len("\t" * d + b) + 1 for d, b in rows[:i]) for i in range(len(rows) + 1)]
        assert spans[0] == (starts[first], starts[last + 1] - 1)
        assert with_tabs(old, width) == text[spans[0][0] : spans[0][1]]


@given(
    st.text(alphabet="ab \t\n}", max_size=60),
    st.text(alphabet="ab \t\n}", max_size=30),
)
def test_where_old_stops_matching_is_said_of_lines_that_exist(text: str, old: str) -> None:
    """``first_difference`` (a "not found"'s hint) on any text and any ``old``: never an
    error, and every line it names is one of the file's and one of ``old``'s."""
    from frontier.tools.replace_match import first_difference

    said = first_difference(text, old)
    if said is None:
        return
    lines = text.split("\n")
    count = len(lines) - (lines[-1] == "")
    in_file = re.findall(r"line (\d+) of the file", said) + re.findall(r"file's line (\d+)", said)
    in_old = re.findall(r"`old`'s line (\d+)", said) + re.findall(r"its line (\d+)", said)
    assert in_file and in_old, said
    assert all(1 <= int(n) <= count for n in in_file), (said, count)
    assert all(1 <= int(n) <= len(old.split("\n")) for n in in_old), said


_TYPO = "ab \n\"'-\u201c\u201d\u2018\u2019\u2014\u00a0"
"""Letters, ASCII punctuation and its typographic twins, line breaks."""


def _fold(text: str) -> str:
    from frontier.tools.replace_match import _PUNCTUATION

    return text.translate(_PUNCTUATION)


@given(st.text(alphabet=_TYPO, min_size=1, max_size=60), st.data())
def test_old_is_found_by_its_punctuation_exactly_where_it_folds_to_the_file(
    text: str, data: st.DataObject
) -> None:
    """``typographic``: every span found is a place where the file, its quotes, dashes and
    spaces read as ASCII, is ``old`` so read; all of them up to two; none when neither
    side holds a typographic character."""
    from frontier.tools.replace_match import typographic

    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    chosen = text[start:end]
    old = "".join(data.draw(st.sampled_from([c, _fold(c)])) for c in chosen)  # the model's copy
    spans = typographic(text, old)
    if _fold(old) == old and text.isascii():
        assert spans == []
        return
    folded, wanted = _fold(text), _fold(old)
    places = [i for i in range(len(text)) if folded.startswith(wanted, i)]
    assert start in places  # the place it was copied from is always one
    assert spans == [(i, i + len(old)) for i in places[:2]]


@given(
    st.text(alphabet=_TYPO, min_size=1, max_size=40),
    st.text(alphabet=_TYPO, max_size=40),
    st.data(),
)
def test_new_keeps_the_files_punctuation_only_where_it_keeps_old(
    found: str, new: str, data: st.DataObject
) -> None:
    """``in_file_punctuation``: the text written reads as ``new`` (each character is
    ``new``'s, or the file's where the two differ only as typographic twins), and a ``new``
    equal to ``old`` writes the file's text back unchanged. A model's straight quote is
    made curly only where the file had that very character in the text ``new`` kept."""
    from frontier.tools.replace_match import in_file_punctuation

    old = "".join(data.draw(st.sampled_from([c, _fold(c)])) for c in found)
    written = in_file_punctuation(new, old, found)
    assert len(written) == len(new) and _fold(written) == _fold(new)
    for w, n in zip(written, new, strict=True):
        assert w == n or (_fold(w) == _fold(n) and w in found)
    assert in_file_punctuation(old, old, found) == found
