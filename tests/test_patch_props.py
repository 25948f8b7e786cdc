"""Property tests: difflib diffs of random edits always reproduce the target exactly."""

from __future__ import annotations

import difflib
import re
import string
from pathlib import Path
from tempfile import TemporaryDirectory

from hypothesis import given
from hypothesis import strategies as st

from frontier.tools.patch_engine import PatchError, apply_patch, plan_patch

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


# ----------------------------------------------------------------------------- both dialects

TERMINATED = st.lists(UNIQUE_LINE, max_size=40, unique_by=lambda s: s.strip())


@st.composite
def unique_edit(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Two versions of a file of distinct lines (every line newline-terminated)."""
    lines = draw(TERMINATED)
    fresh = (f"new {i}" for i in range(1000))
    b: list[str] = []
    for line in lines:
        op = draw(st.sampled_from(["keep"] * 4 + ["delete", "replace", "insert"]))
        if op == "keep":
            b.append(line)
        elif op == "replace":
            b.append(next(fresh))
        elif op == "insert":
            b.extend([next(fresh), line])
    if draw(st.booleans()):
        b.append(next(fresh))
    return lines, b


def text_of(lines: list[str], eol: str = "\n") -> str:
    return "".join(line + eol for line in lines)


def envelope(a: list[str], b: list[str], path: str = "f.txt") -> str:
    """The Codex envelope of a → b: one @@ chunk per difflib group, no line numbers."""
    out = ["*** Begin Patch\n", f"*** Update File: {path}\n"]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(3):
        out.append("@@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [f" {x}\n" for x in a[i1:i2]]
                continue
            out += [f"-{x}\n" for x in a[i1:i2]]
            out += [f"+{x}\n" for x in b[j1:j2]]
    return "".join(out) + "*** End Patch\n"


def _plan_twice(a: str, patch: str) -> tuple[str, bool, int]:
    """Apply, then apply again: the result, whether the second said "already applied", and
    whether the second changed the file's mtime (it must not)."""
    with TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.txt"
        path.write_bytes(a.encode())
        apply_patch(tmp, patch)
        first = path.read_bytes().decode()
        stamp = path.stat().st_mtime_ns
        again = apply_patch(tmp, patch)
        return first, again.already_applied, path.stat().st_mtime_ns - stamp


@given(unique_edit())
def test_codex_envelope_reproduces_target_and_twice_is_already_applied(
    pair: tuple[list[str], list[str]],
) -> None:
    a, b = pair
    if a == b or not b:  # a hunk left with no lines cannot be recognised in an empty file
        return
    first, already, touched = _plan_twice(text_of(a), envelope(a, b))
    assert first == text_of(b)
    assert already and touched == 0


@given(unique_edit(), st.sampled_from(["bare", "counts", "shift"]))
def test_unified_with_broken_headers_reproduces_target_and_twice_is_already_applied(
    pair: tuple[list[str], list[str]], how: str
) -> None:
    """``@@ @@`` headers, wrong counts, moved line numbers: located by content."""
    a, b = pair
    if a == b or not b:  # a hunk left with no lines cannot be recognised in an empty file
        return
    patch = make_patch(text_of(a), text_of(b))
    if how == "bare":
        patch = HEADER.sub("@@ @@", patch)
    elif how == "counts":
        patch = HEADER.sub(lambda m: f"@@ -{m[1]},99 +{m[3]},1", patch)
    else:
        patch = HEADER.sub(lambda m: f"@@ -{int(m[1]) + 7},{m[2] or ''} +{m[3]}", patch)
        patch = patch.replace(",,", ",").replace(", +", " +")
    first, already, touched = _plan_twice(text_of(a), patch)
    assert first == text_of(b)
    assert already and touched == 0


@given(unique_edit(), st.sampled_from(["unified", "codex"]), st.booleans())
def test_crlf_files_keep_crlf(pair: tuple[list[str], list[str]], dialect: str, bare: bool) -> None:
    """Models write LF patches; a CRLF file gets the change in CRLF."""
    a, b = pair
    if a == b or not a:  # an empty file has no line ending to keep
        return
    patch = make_patch(text_of(a), text_of(b)) if dialect == "unified" else envelope(a, b)
    if bare and dialect == "unified":
        patch = HEADER.sub("@@ @@", patch)
    assert _apply(text_of(a, "\r\n"), patch) == text_of(b, "\r\n")


@given(unique_edit(), st.lists(st.sampled_from([" ", "\t", "  "]), min_size=1))
def test_trailing_whitespace_in_the_file_is_tolerated_and_kept(
    pair: tuple[list[str], list[str]], spaces: list[str]
) -> None:
    a, b = pair
    if a == b:
        return
    ws = iter(spaces * 100)
    padded = [line.rstrip() + next(ws) for line in a]
    patch = make_patch(text_of(a), text_of(b))
    result = _apply(text_of(padded), patch)
    assert [x.rstrip() for x in result.split("\n")] == [x.rstrip() for x in text_of(b).split("\n")]
    kept = set(a) & set(b)
    assert all(line in set(padded) for line in result.splitlines() if line.rstrip() in kept)


@given(unique_edit(), st.sampled_from(["unified", "codex"]), st.data())
def test_every_prefix_of_a_patch_is_a_plan_or_a_patch_error(
    pair: tuple[list[str], list[str]], dialect: str, data: st.DataObject
) -> None:
    """A cut patch (any byte prefix) never crashes the engine and never writes half of it:
    it is planned whole or refused with a ``PatchError``."""
    a, b = pair
    patch = make_patch(text_of(a), text_of(b)) if dialect == "unified" else envelope(a, b)
    raw = patch.encode()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=12))
    with TemporaryDirectory() as tmp:
        (Path(tmp) / "f.txt").write_text(text_of(a))
        for cut in cuts:
            try:
                plan_patch(tmp, raw[:cut])
            except PatchError:
                pass
        assert (Path(tmp) / "f.txt").read_text() == text_of(a)


@given(st.binary(max_size=400))
def test_garbage_is_a_patch_error(raw: bytes) -> None:
    with TemporaryDirectory() as tmp:
        try:
            plan_patch(tmp, raw)
        except PatchError:
            pass


@given(edit_pair(unique=False))
def test_strict_diffs_read_as_unidiff_reads_them(pair: tuple[str, str]) -> None:
    """Where a diff is well formed, the lenient reader agrees with the strict one (``unidiff``,
    kept as this oracle): same hunks, same ranges, same lines."""
    from unidiff import PatchSet

    from frontier.tools.patch_parse import parse_patch

    a, b = pair
    if a == b:
        return
    patch = make_patch(a, b)
    ours = parse_patch(patch).files
    theirs = PatchSet(patch)
    assert len(ours) == len(theirs) == 1
    for mine, other in zip(ours[0].hunks, theirs[0], strict=True):
        assert (mine.old_start, mine.old_count, mine.new_start, mine.new_count) == (
            other.source_start,
            other.source_length,
            other.target_start,
            other.target_length,
        )
        rows: list[tuple[str, str, str]] = []
        for line in other:
            if line.line_type == "\\":  # "\ No newline at end of file": marks the line before
                rows[-1] = (*rows[-1][:2], "")
            else:
                rows.append((line.line_type, line.value.rstrip("\n"), "\n"))
        assert rows == list(zip(mine.tags, mine.texts, mine.eols, strict=True))


@given(edit_pair(unique=False), st.booleans())
def test_crlf_files_with_or_without_a_last_line_end_get_the_target(
    pair: tuple[str, str], exact: bool
) -> None:
    """A CRLF file, its last line ended or not: the exact diff (what `sed -i` and `git
    checkout --` read as a patch make) and the LF diff a model writes both give the
    target byte for byte. A changed last line without its end came out as `c\\r` (git: `c`)."""
    a, b = (text.replace("\n", "\r\n") for text in pair)
    if a == b or "\r\n" not in a:  # no line end: the file does not say it is CRLF
        return
    patch = make_patch(a, b) if exact else make_patch(*pair)
    assert _apply(a, patch) == b
