"""Property tests: difflib diffs of random edits always reproduce the target exactly."""

from __future__ import annotations

import difflib
import re
import string
from pathlib import Path
from tempfile import TemporaryDirectory

from hypothesis import given
from hypothesis import strategies as st

from frontier.tools.patch_engine import apply_patch

LINE = st.text(alphabet="ab \t", max_size=4)
UNIQUE_LINE = st.text(alphabet=string.ascii_letters + " \t", min_size=1, max_size=10)
HEADER = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", re.M)


def make_patch(a: str, b: str) -> str:
    out: list[str] = []
    for line in difflib.unified_diff(a.splitlines(True), b.splitlines(True), "a/f.txt", "b/f.txt"):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


@st.composite
def edit_pair(draw: st.DrawFn, unique: bool) -> tuple[str, str]:
    if unique:
        lines = draw(st.lists(UNIQUE_LINE, max_size=40, unique_by=lambda s: s.rstrip()))
    else:
        lines = draw(st.lists(LINE, max_size=30))
    fresh = (f"new {i}" for i in range(1000))
    b: list[str] = []
    for line in lines:
        op = draw(st.sampled_from(["keep"] * 5 + ["delete", "replace", "insert"]))
        if op == "keep":
            b.append(line)
        elif op == "replace":
            b.append(next(fresh))
        elif op == "insert":
            b.extend([next(fresh), line])
    if draw(st.booleans()):
        b.append(next(fresh))
    a_text = "\n".join(lines) + ("\n" if lines and draw(st.booleans()) else "")
    b_text = "\n".join(b) + ("\n" if b and draw(st.booleans()) else "")
    return a_text, b_text


def _apply(a: str, patch: str) -> str:
    with TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.txt"
        path.write_bytes(a.encode())
        apply_patch(tmp, patch)
        return path.read_bytes().decode()


@given(edit_pair(unique=False))
def test_difflib_patch_reproduces_target(pair: tuple[str, str]) -> None:
    a, b = pair
    if a == b:
        return
    assert _apply(a, make_patch(a, b)) == b


@given(edit_pair(unique=True), st.lists(st.integers(-15, 15), min_size=1, max_size=10))
def test_shifted_hunk_headers_still_apply(pair: tuple[str, str], shifts: list[int]) -> None:
    a, b = pair
    if a == b or not a:
        return
    shift = iter(shifts * 10)

    def move(m: re.Match[str]) -> str:
        start = int(m.group(1))
        if start == 0:
            return m.group(0)
        new = max(1, start + next(shift))
        return f"@@ -{new}{m.group(2) or ''} +{m.group(3)}{m.group(4) or ''} @@"

    patch = HEADER.sub(move, make_patch(a, b))
    assert _apply(a, patch) == b


@given(edit_pair(unique=True), st.lists(st.sampled_from(["", " ", "\t", "  \t"]), min_size=1))
def test_trailing_whitespace_in_context_is_tolerated(
    pair: tuple[str, str], spaces: list[str]
) -> None:
    a, b = pair
    if a == b:
        return
    ws = iter(spaces * 200)
    lines = make_patch(a, b).splitlines(True)
    for i, line in enumerate(lines):
        if line.startswith(" ") and line.endswith("\n"):
            lines[i] = " " + line[1:-1].rstrip() + next(ws, "") + "\n"
    assert _apply(a, "".join(lines)) == b
