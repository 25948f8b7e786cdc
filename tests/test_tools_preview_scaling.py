"""The preview of a write/replace/multi costs linear work in the file's size, whatever the
edit, and stays byte-exact (a coarser diff is the only price of a costly input).

Nothing is timed: the cost is counted as Python lines executed in the diff code
(``sys.settrace``), which grows 4x for 4x the input here and ~16x with the old
``SequenceMatcher`` on the whole changed middle."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_tools_preview import check_preview, edit_pair

from frontier.tools import diffing
from frontier.tools.diffing import bounded_opcodes, file_preview, line_keys, text_opcodes

DIFF_FILES = (diffing.__file__, difflib.__file__)


def alternate(n: int) -> tuple[str, str]:
    """The issue's case: a write changing every other line of an n-line file."""
    old = "".join(f"row {i}\n" for i in range(n))
    new = "".join(f"row {i}\n" if i % 2 == 0 else f"changed {i}\n" for i in range(n))
    return old, new


@contextmanager
def counted() -> Iterator[list[int]]:
    """Counts the lines executed in diffing.py and difflib.py while the block runs."""
    box = [0]

    def local(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "line":
            box[0] += 1
        return local

    def outer(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        return local if frame.f_code.co_filename in DIFF_FILES else None

    old = sys.gettrace()
    sys.settrace(outer)
    try:
        yield box
    finally:
        sys.settrace(old)


def cost(old: str, new: str) -> int:
    a, b = line_keys(old), line_keys(new)
    with counted() as box:
        text_opcodes(a, b)
    return box[0]


@pytest.mark.parametrize(
    "shape",
    [
        alternate,
        lambda n: ("".join(f"r{i}\n" for i in range(n)), "".join(f"s{i}\n" for i in range(n))),
        lambda n: (
            "".join(f"r{i % 8}\n" for i in range(n)),
            "".join(f"r{i % 5}\n" for i in range(n)),
        ),
        lambda n: (
            "".join(f"r{i}\n" for i in range(n)),
            "".join(f"r{i}\n" for i in range(n)[::-1]),
        ),
    ],
    ids=["every-other-line", "every-line", "few-distinct-lines", "reversed"],
)
def test_diff_work_grows_linearly(shape: Callable[[int], tuple[str, str]]) -> None:
    small, large = cost(*shape(1000)), cost(*shape(4000))
    assert large <= 5 * small, (small, large)
    assert large <= 60 * 8000, large


def test_difflib_only_ever_sees_a_small_middle(monkeypatch: pytest.MonkeyPatch) -> None:
    """SequenceMatcher is quadratic on this input (a 5k-line write took 3.3 s): it may only
    run on a changed middle of at most DIFFLIB_MAX old x new lines."""
    seen: list[tuple[int, int]] = []
    real = difflib.SequenceMatcher

    def spy(isjunk: object, a: list[str], b: list[str]) -> difflib.SequenceMatcher[str]:
        seen.append((len(a), len(b)))
        return real(None, a, b)

    monkeypatch.setattr(difflib, "SequenceMatcher", spy)
    old, new = alternate(5000)
    fp = file_preview("big.txt", old.encode(), new.encode())
    assert all(x * y <= 40_000 for x, y in seen), seen
    check_preview(fp, old.encode(), new.encode())
    assert (fp.added, fp.removed, len(fp.hunks)) == (2500, 2500, 1)


def test_a_large_alternating_write_shows_each_changed_line() -> None:
    """Anchored on the unchanged lines: the same diff SequenceMatcher gives, not one
    'replace everything' block."""
    old, new = alternate(20_000)
    fp = file_preview("big.txt", old.encode(), new.encode())
    check_preview(fp, old.encode(), new.encode())
    rows = fp.diff.split("\n")
    assert rows[2:7] == ["@@ -1,20000 +1,20000 @@", " row 0", "-row 1", "+changed 1", " row 2"]
    a, b = (line_keys(t) for t in alternate(1000))
    assert (
        bounded_opcodes(a, b, 0, 1000, 0, 1000) == difflib.SequenceMatcher(None, a, b).get_opcodes()
    )


# ----------------------------------------------------------------------------- exactness


@given(edit_pair())
def test_every_branch_of_the_bounded_diff_is_exact(pair: tuple[str, str]) -> None:
    """Small inputs, with the thresholds lowered so that anchors, the one-line case, Myers,
    Myers giving up and the budget running out all happen."""
    a_text, b_text = pair
    a, b = line_keys(a_text), line_keys(b_text)
    for work, max_d, small in ((None, None, 64), (10**6, 10**6, 0), (40, 3, 4), (3, 1, 0)):
        with patch.object(diffing, "MYERS_SMALL", small):
            ops = bounded_opcodes(a, b, 0, len(a), 0, len(b), work=work, max_d=max_d)
        check_ops(a, b, ops)
    with (
        patch.object(diffing, "DIFFLIB_MAX", 0),
        patch.object(diffing, "MYERS_SMALL", 2),
        patch.object(diffing, "WORK_MIN", 30),
        patch.object(diffing, "WORK_PER_LINE", 1),
        patch.object(diffing, "MYERS_MAX_D", 4),
    ):
        fp = file_preview("f.txt", a_text.encode(), b_text.encode())
    check_preview(fp, a_text.encode(), b_text.encode())


@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=40), st.data())
def test_unbounded_myers_is_a_shortest_edit(lines: list[str], data: st.DataObject) -> None:
    other = data.draw(st.lists(st.sampled_from(["a", "b", "c", "f"]), max_size=40))
    ops = bounded_opcodes(lines, other, 0, len(lines), 0, len(other), work=10**9, max_d=10**6)
    check_ops(lines, other, ops)
    kept = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    matcher = difflib.SequenceMatcher(None, lines, other, autojunk=False)
    lcs = _lcs(lines, other)
    assert kept == lcs >= sum(m.size for m in matcher.get_matching_blocks())


def _lcs(a: list[str], b: list[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def check_ops(a: list[str], b: list[str], ops: list[diffing.Op]) -> None:
    """Opcodes in difflib's form that cover both sides in order; every equal run is equal."""
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j) and i1 <= i2 and j1 <= j2
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        else:
            assert tag == diffing._tag(i1, i2, j1, j2)
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
