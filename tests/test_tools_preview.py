"""The approval preview shows exactly the change that will be written (DESIGN §5).

A preview's diff, applied strictly (every hunk at its ``@@`` line, every context and removed
line equal byte for byte, the ``@@`` counts right) to the old text, must give the new text; its
hashes, counts and hunk texts must agree with it. apply_patch previews are rendered from the
located hunks (no diff search), the other tools' from difflib on the changed middle.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from frontier.tools import diffing
from frontier.tools.contract import FilePreview
from frontier.tools.diffing import NO_NEWLINE, block_opcodes, file_preview, line_keys
from frontier.tools.patch_engine import PatchError, PatchPlan, Text, apply_hunks, change_blocks
from frontier.tools.patch_engine import plan_patch as _plan_patch
from frontier.tools.patch_parse import parse_patch

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")
MARKER = NO_NEWLINE.rstrip("\n")


def split(text: str) -> list[str]:
    """Lines with their ``\\n`` (split on ``\\n`` only); the last may lack one."""
    parts = text.split("\n")
    last = parts.pop()
    return [p + "\n" for p in parts] + ([last] if last else [])


def strict_apply(old: str, diff: str) -> str:
    """Apply a unified diff with no tolerance at all: any mismatch is an assertion error."""
    a = split(old)
    rows = diff.split("\n")
    assert rows.pop() == "", "a diff ends with a newline"
    if not rows:
        return old
    assert rows[0].startswith("--- ") and rows[1].startswith("+++ ")
    out: list[str] = []
    cur, k = 0, 2
    while k < len(rows):
        m = HUNK.match(rows[k])
        assert m, f"expected a hunk header, got {rows[k]!r}"
        s1, s2 = int(m[1]), int(m[3])
        l1 = int(m[2]) if m[2] is not None else 1
        l2 = int(m[4]) if m[4] is not None else 1
        start = s1 - 1 if l1 else s1
        assert start >= cur, "hunks in order, not overlapping"
        out.extend(a[cur:start])
        assert len(out) == (s2 - 1 if l2 else s2), "the +c line number is where the hunk lands"
        i, seen_old, seen_new = start, 0, 0
        k += 1
        while k < len(rows) and not rows[k].startswith("@@"):
            tag, text = rows[k][:1], rows[k][1:] + "\n"
            assert tag in (" ", "-", "+"), f"unexpected diff line {rows[k]!r}"
            if k + 1 < len(rows) and rows[k + 1] == MARKER:
                text = text[:-1]
                k += 1
            if tag != "+":
                assert i < len(a) and a[i] == text, f"old line {i + 1}: {a[i : i + 1]} != {text!r}"
                i += 1
                seen_old += 1
            if tag != "-":
                out.append(text)
                seen_new += 1
            k += 1
        assert (seen_old, seen_new) == (l1, l2), "the @@ counts match the body"
        cur = i
    out.extend(a[cur:])
    return "".join(out)


def hunk_texts(fp: FilePreview) -> tuple[str, ...]:
    """Each hunk's text as the preview's unified diff has it (``@@`` line included); body lines
    start with ' ', '-', '+' or '\\', so a line starting "@@" is always a header."""
    body = fp.diff.split("\n", 2)[2] if fp.diff else ""
    if not body:
        return ()
    parts = body.split("\n@@")
    last = len(parts) - 1
    return tuple(
        ("@@" if k else "") + part + ("\n" if k < last else "") for k, part in enumerate(parts)
    )


def check_structure(fp: FilePreview) -> None:
    """The review's structured hunks say exactly what the diff text says."""
    texts = hunk_texts(fp)
    assert len(texts) == len(fp.hunks)
    for text, h in zip(texts, fp.hunks, strict=True):
        rows = text.split("\n")
        assert rows.pop() == ""
        assert rows[0] == h.header
        body = [r for r in rows[1:] if r != MARKER]
        assert [r[:1] for r in body] == [line.sign for line in h.lines]
        assert [r[1:].removesuffix("\r") for r in body] == [line.text for line in h.lines]
        marked = [rows[k - 1][:1] for k in range(1, len(rows)) if rows[k] == MARKER]
        assert len(marked) == sum(line.no_newline for line in h.lines)
        i1, i2, j1, j2 = h.span
        assert (i2 - i1, j2 - j1) == (h.old_count, h.new_count)


def check_preview(fp: FilePreview, old: bytes | None, new: bytes | None) -> None:
    """Everything the reviewer is shown agrees with the bytes that will be written."""
    assert fp.old_hash == (None if old is None else hashlib.sha256(old).hexdigest())
    assert fp.new_hash == (None if new is None else hashlib.sha256(new).hexdigest())
    assert fp.old_text == (None if old is None else old.decode("utf-8", "replace"))
    assert fp.new_text == (None if new is None else new.decode("utf-8", "replace"))
    assert strict_apply(fp.old_text or "", fp.diff) == (fp.new_text or "")
    body = fp.diff.split("\n", 2)[2] if fp.diff else ""
    assert "".join(hunk_texts(fp)) == body
    check_structure(fp)
    rows = body.split("\n")
    assert fp.added == sum(1 for r in rows if r.startswith("+"))
    assert fp.removed == sum(1 for r in rows if r.startswith("-"))
    if fp.old_text is not None and fp.new_text is not None and fp.diff:
        # our own engine finds every hunk exactly at its @@ line, with no tolerance used (it
        # gives added lines the file's dominant line ending, so compare texts only without CR)
        (entry,) = parse_patch(fp.diff).files
        result, notes = apply_hunks(fp.path, Text.parse(fp.old_text), entry.hunks)
        assert notes == []
        if "\r" not in fp.old_text + fp.new_text:
            assert result.render() == fp.new_text


# ----------------------------------------------------------------------------- strategies

LINE = st.text(alphabet="ab \t", max_size=4)


@st.composite
def edit_pair(draw: st.DrawFn, crlf: bool = True) -> tuple[str, str]:
    """A random file and a random edit of it: repeated lines, trailing whitespace, CRLF lines
    and a missing final newline on either side."""
    lines = draw(st.lists(LINE, max_size=30))
    if crlf and draw(st.booleans()):
        lines = [ln + "\r" if draw(st.booleans()) else ln for ln in lines]
    fresh = iter(f"new {i}" for i in range(1000))
    b: list[str] = []
    for line in lines:
        op = draw(st.sampled_from(["keep"] * 5 + ["delete", "replace", "insert", "ws"]))
        if op == "keep":
            b.append(line)
        elif op == "replace":
            b.append(next(fresh))
        elif op == "insert":
            b.extend([next(fresh), line])
        elif op == "ws":
            b.append(line + " ")
    if draw(st.booleans()):
        b.append(next(fresh))
    a_text = "\n".join(lines) + ("\n" if lines and draw(st.booleans()) else "")
    b_text = "\n".join(b) + ("\n" if b and draw(st.booleans()) else "")
    return a_text, b_text


def make_patch(a: str, b: str, n: int = 3) -> str:
    rows = difflib.unified_diff(split(a), split(b), "a/f.txt", "b/f.txt", n=n)
    return "".join(r if r.endswith("\n") else r + "\n" + NO_NEWLINE for r in rows)


def plan_patch(a: str, patch: str) -> PatchPlan:
    with TemporaryDirectory() as tmp:
        (Path(tmp) / "f.txt").write_bytes(a.encode())
        return _plan_patch(tmp, patch)


def fast_path_used(plan: PatchPlan) -> bool:
    """The preview came from the engine's own lines and located hunks, not a split + diff."""
    for c in plan.changes:
        if c.layout is None:
            return False
        a, b = line_keys(diffing.decode(c.old)), line_keys(diffing.decode(c.new))
        keys = (c.layout.old.keys(), c.layout.new.keys())
        blocks = [
            (i1, i2, j1, min(j2, len(keys[1])))
            for i1, i2, j1, j2, _ in change_blocks(c.layout.placed, len(c.layout.old.lines))
        ]
        if keys != (a, b) or block_opcodes(a, b, blocks) is None:
            return False
    return True


# ----------------------------------------------------------------------------- properties


@given(edit_pair())
def test_difflib_preview_of_any_edit_reproduces_the_new_bytes(pair: tuple[str, str]) -> None:
    a, b = pair
    check_preview(file_preview("f.txt", a.encode(), b.encode()), a.encode(), b.encode())


@given(
    edit_pair(),
    st.sampled_from([0, 1, 3, 5]),
    st.booleans(),
    st.sampled_from([0, 0, 2, -2, 7]),
)
def test_apply_patch_preview_is_the_change_written(
    pair: tuple[str, str], context: int, loose_ws: bool, shift: int
) -> None:
    """Random patches, applied loosely (trailing whitespace on the context, headers moved):
    the preview, rendered from the located hunks, is exactly old → new as written."""
    a, b = pair
    patch = make_patch(a, b, context)
    if loose_ws:
        patch = re.sub(r"(?m)^ (.*?)(\r?)$", r" \1  \2", patch)
    if shift:
        patch = re.sub(r"(?m)^@@ -(\d+)", lambda m: f"@@ -{max(1, int(m[1]) + shift)}", patch)
    try:
        plan = plan_patch(a, patch)
    except PatchError:
        assume(False)
        return
    preview = plan.preview()
    assert len(preview.files) == len(plan.changes)
    for c, fp in zip(plan.changes, preview.files, strict=True):
        check_preview(fp, c.old, c.new)
    assert fast_path_used(plan)


@given(edit_pair(crlf=False))
def test_apply_patch_preview_of_a_difflib_patch_is_that_patch(pair: tuple[str, str]) -> None:
    """Same hunks, same context, same merging and the same @@ lines as difflib's own diff."""
    a, b = pair
    assume(a != b)
    patch = make_patch(a, b)
    plan = plan_patch(a, patch)
    (fp,) = plan.preview().files
    assert fp.diff == patch


@given(
    edit_pair(),
    st.lists(st.tuples(*[st.integers(0, 40)] * 4), max_size=4),
    edit_pair(),
)
def test_wrong_hints_never_give_a_wrong_preview(
    pair: tuple[str, str], raw: list[tuple[int, int, int, int]], other: tuple[str, str]
) -> None:
    """Blocks and keys are only hints: wrong ones are detected and ignored, never shown."""
    a, b = pair
    blocks = sorted((min(w, x), max(w, x), min(y, z), max(y, z)) for w, x, y, z in raw)
    keys = (line_keys(other[0]), line_keys(other[1]))
    for hints in ((blocks, None), (None, keys), (blocks, keys)):
        fp = file_preview("f.txt", a.encode(), b.encode(), *hints)
        check_preview(fp, a.encode(), b.encode())


# ----------------------------------------------------------------------------- examples


def _plan(tmp_path: Path, files: dict[str, bytes], patch: str) -> PatchPlan:
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return _plan_patch(tmp_path, patch)


def test_context_and_removed_lines_show_the_files_whitespace(tmp_path: Path) -> None:
    """The patch omits trailing whitespace; the preview shows the file's bytes."""
    plan = _plan(
        tmp_path,
        {"f.py": b"def f():  \n    x = 1   \n    return x\n"},
        "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n"
        " def f():\n-    x = 1\n+    x = 2\n     return x\n",
    )
    (fp,) = plan.preview().files
    assert hunk_texts(fp) == (
        "@@ -1,3 +1,3 @@\n def f():  \n-    x = 1   \n+    x = 2\n     return x\n",
    )
    check_preview(fp, plan.changes[0].old, plan.changes[0].new)


def test_crlf_file_preview_shows_added_lines_with_the_files_ending(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path,
        {"w.txt": b"one\r\ntwo\r\nthree\r\n"},
        "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
    )
    (fp,) = plan.preview().files
    assert plan.changes[0].new == b"one\r\n2\r\nthree\r\n"
    assert hunk_texts(fp) == ("@@ -1,3 +1,3 @@\n one\r\n-two\r\n+2\r\n three\r\n",)
    assert fast_path_used(plan)
    check_preview(fp, plan.changes[0].old, plan.changes[0].new)


def test_appending_after_a_last_line_without_newline_shows_that_line_changing(
    tmp_path: Path,
) -> None:
    """A sloppy patch keeps the unterminated last line as context and appends: the written
    file gains a newline on that line, and the preview says so."""
    plan = _plan(
        tmp_path, {"f.txt": b"a\nb"}, "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"
    )
    (fp,) = plan.preview().files
    assert plan.changes[0].new == b"a\nb\nc\n"
    assert hunk_texts(fp) == (f"@@ -1,2 +1,3 @@\n a\n-b\n{NO_NEWLINE}+b\n+c\n",)
    assert (fp.added, fp.removed) == (2, 1)
    assert fast_path_used(plan)
    check_preview(fp, plan.changes[0].old, plan.changes[0].new)


def test_an_empty_last_line_without_newline_is_no_line(tmp_path: Path) -> None:
    """Replacing the last line by an empty one with no newline leaves "a\\n": one line removed."""
    plan = _plan(
        tmp_path,
        {"f.txt": b"a\nb\n"},
        f"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+\n{NO_NEWLINE}",
    )
    (fp,) = plan.preview().files
    assert plan.changes[0].new == b"a\n"
    assert hunk_texts(fp) == ("@@ -1,2 +1 @@\n a\n-b\n",)
    assert fast_path_used(plan)


def test_a_line_removed_and_added_back_is_not_shown_as_a_change(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path,
        {"f.txt": b"".join(b"%d\n" % i for i in range(20))},
        "--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\n-4\n-5\n-6\n+4\n+FIVE\n+6\n",
    )
    (fp,) = plan.preview().files
    assert hunk_texts(fp) == ("@@ -3,7 +3,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n",)


def test_hunks_whose_context_touches_are_merged_as_difflib_merges_them(tmp_path: Path) -> None:
    """6 unchanged lines between two changes: one hunk; 7: two hunks (3 lines of context)."""
    old = "".join(f"{i}\n" for i in range(60))
    changed = {5: "five", 12: "twelve", 20: "twenty", 40: "forty"}  # gaps of 6, 7 and 19
    new = "".join(f"{changed.get(i, i)}\n" for i in range(60))
    # the model's patch has one hunk per change with one line of context
    patch = make_patch(old, new, n=1)
    plan = _plan(tmp_path, {"f.txt": old.encode()}, patch)
    (fp,) = plan.preview().files
    assert fp.diff == make_patch(old, new)
    assert [h.header for h in fp.hunks] == [
        "@@ -3,14 +3,14 @@",
        "@@ -18,7 +18,7 @@",
        "@@ -38,7 +38,7 @@",
    ]
    assert fast_path_used(plan)


def test_shifted_hunks_preview_where_they_apply(tmp_path: Path) -> None:
    old = "".join(f"line {i}\n" for i in range(100))
    new = old.replace("line 50\n", "LINE 50\n")
    patch = make_patch(old, new).replace("@@ -48,7 +48,7 @@", "@@ -60,7 +60,7 @@")
    plan = _plan(tmp_path, {"f.txt": old.encode()}, patch)
    (fp,) = plan.preview().files
    assert hunk_texts(fp)[0].startswith("@@ -48,7 +48,7 @@\n")
    assert fast_path_used(plan)
    check_preview(fp, plan.changes[0].old, plan.changes[0].new)


def test_create_delete_rename_and_repeated_entries(tmp_path: Path) -> None:
    patch = (
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"
        "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
        "diff --git a/old.txt b/moved.txt\nsimilarity index 80%\nrename from old.txt\n"
        "rename to moved.txt\n--- a/old.txt\n+++ b/moved.txt\n@@ -1,2 +1,2 @@\n k\n-v\n+w\n"
        "--- a/twice.txt\n+++ b/twice.txt\n@@ -1,2 +1,2 @@\n-1\n+one\n 2\n"
        "--- a/twice.txt\n+++ b/twice.txt\n@@ -1,2 +1,2 @@\n one\n-2\n+two\n"
    )
    files = {"gone.txt": b"bye\n", "old.txt": b"k\nv\n", "twice.txt": b"1\n2\n"}
    plan = _plan(tmp_path, files, patch)
    preview = plan.preview()
    by_path = {fp.path: fp for fp in preview.files}
    assert set(by_path) == {"new.txt", "gone.txt", "old.txt", "moved.txt", "twice.txt"}
    for c in plan.changes:
        if c.renamed_to is None and c.renamed_from is None:
            check_preview(by_path[c.path], c.old, c.new)
    assert by_path["old.txt"].moved_to == "moved.txt" and by_path["old.txt"].hunks == ()
    moved = by_path["moved.txt"]
    assert moved.moved_from == "old.txt" and moved.old_hash is None
    assert moved.diff == "--- a/moved.txt\n+++ b/moved.txt\n@@ -1,2 +1,2 @@\n k\n-v\n+w\n"
    assert by_path["new.txt"].diff == "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"
    assert by_path["gone.txt"].diff == "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    assert hunk_texts(by_path["twice.txt"]) == ("@@ -1,2 +1,2 @@\n-1\n-2\n+one\n+two\n",)


def test_mode_only_change_has_an_empty_diff(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_bytes(b"echo hi\n")
    (tmp_path / "run.sh").chmod(0o644)
    patch = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
    plan = _plan_patch(tmp_path, patch)
    (fp,) = plan.preview().files
    assert (fp.diff, fp.hunks, fp.added, fp.removed) == ("", (), 0, 0)
    assert fp.old_hash == fp.new_hash


def test_invalid_utf8_is_shown_replaced_but_hashed_as_written(tmp_path: Path) -> None:
    old = b"caf\xe9\nok\n"
    plan = _plan(tmp_path, {"l1.txt": old}, "--- a/l1.txt\n+++ b/l1.txt\n@@ -2 +2 @@\n-ok\n+OK\n")
    (fp,) = plan.preview().files
    assert plan.changes[0].new == b"caf\xe9\nOK\n"
    assert hunk_texts(fp) == ("@@ -1,2 +1,2 @@\n caf\ufffd\n-ok\n+OK\n",)
    check_preview(fp, old, plan.changes[0].new)


def test_apply_patch_preview_runs_no_diff_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = "".join(f"row {i}\n" for i in range(3000))
    new = old.replace("row 10\n", "ROW 10\n").replace("row 2500\n", "")
    patch = make_patch(old, new)
    plan = _plan(tmp_path, {"f.txt": old.encode()}, patch)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("difflib.SequenceMatcher used for an apply_patch preview")

    monkeypatch.setattr(difflib, "SequenceMatcher", refuse)
    (fp,) = plan.preview().files
    assert fp.diff == patch


def test_text_edit_preview_diffs_only_the_changed_region(monkeypatch: pytest.MonkeyPatch) -> None:
    """write/replace/multi have no hunks: difflib sees only the lines between the common
    prefix and suffix, so an edit in a large file costs what the edit costs."""
    old = "".join(f"row {i}\n" for i in range(20_000))
    new = old.replace("row 9000\nrow 9001\n", "changed\n")
    seen: list[tuple[int, int]] = []
    real = difflib.SequenceMatcher

    def spy(isjunk: object, a: list[str], b: list[str]) -> difflib.SequenceMatcher[str]:
        seen.append((len(a), len(b)))
        return real(None, a, b)

    monkeypatch.setattr(difflib, "SequenceMatcher", spy)
    fp = file_preview("big.txt", old.encode(), new.encode())
    assert seen == [(2, 1)]
    assert hunk_texts(fp) == (
        "@@ -8998,8 +8998,7 @@\n row 8997\n row 8998\n row 8999\n-row 9000\n-row 9001\n"
        "+changed\n row 9002\n row 9003\n row 9004\n",
    )
    check_preview(fp, old.encode(), new.encode())


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"", b"x\n"),
        (b"x\n", b""),
        (b"x", b"x\n"),
        (b"x\n", b"x"),
        (b"a\nb", b"a\nc"),
        (b"\n", b"\n\n"),
        (b"a\x0cb\n", b"a\x0cc\n"),
        (b"a\rb\r\nc\n", b"a\rB\r\nc\n"),
    ],
)
def test_edge_texts(old: bytes, new: bytes) -> None:
    check_preview(file_preview("f.txt", old, new), old, new)
    check_preview(file_preview("f.txt", None, new), None, new)
    check_preview(file_preview("f.txt", old, None), old, None)
