"""apply_patch on the patches the world writes: models' unified diffs, diff -ruN, the Codex
envelope, fences and heredocs; already-applied and half-applied patches (DESIGN §5)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from frontier.tools.patch_engine import PatchError, apply_patch, plan_patch
from frontier.tools.patch_parse import parse_patch


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


# ----------------------------------------------------------------------------- models' unified


def test_bare_header_is_located_by_content_never_reported_as_already_applied(
    tmp_path: Path,
) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\nd\n")
    plan = apply_patch(tmp_path, "--- a/f.txt\n+++ b/f.txt\n@@ @@\n c\n-d\n+D\n")
    assert (tmp_path / "f.txt").read_text() == "a\nb\nc\nD\n"
    assert plan.summary() == ["M f.txt (+1 −1)", "  hunk 1 at line 3"]


def test_aider_style_function_headers_anchor_the_hunk(tmp_path: Path) -> None:
    body = "    x = 1\n    return x\n"
    (tmp_path / "m.py").write_text(f"def f():\n{body}\n\ndef g():\n{body}")
    patch = "--- m.py\n+++ m.py\n@@ def g(): @@\n     x = 1\n-    return x\n+    return -x\n"
    apply_patch(tmp_path, patch)
    assert (tmp_path / "m.py").read_text() == (
        f"def f():\n{body}\n\ndef g():\n    x = 1\n    return -x\n"
    )


def test_same_lines_twice_without_a_header_to_choose_is_ambiguous(tmp_path: Path) -> None:
    text = "def f():\n    x = 1\n    return x\n\ndef g():\n    x = 1\n    return x\n"
    (tmp_path / "m.py").write_text(text)
    with pytest.raises(PatchError, match=r"ambiguous .* 2 places \(lines 2, 6\)"):
        apply_patch(tmp_path, "--- a/m.py\n+++ b/m.py\n@@ @@\n     x = 1\n-    return x\n+    y\n")
    assert (tmp_path / "m.py").read_text() == text


def test_wrong_counts_are_recounted_from_the_body(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\nd\n")
    apply_patch(tmp_path, "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,9 @@\n a\n b\n-c\n+C\n d\n")
    assert (tmp_path / "f.txt").read_text() == "a\nb\nC\nd\n"


def test_a_removed_line_reading_like_a_header_is_kept_where_the_counts_say(
    tmp_path: Path,
) -> None:
    (tmp_path / "f.md").write_text("x\n-- a\ny\n")
    patch = "--- a/f.md\n+++ b/f.md\n@@ -1,3 +1,3 @@\n x\n--- a\n++++ b\n y\n"
    apply_patch(tmp_path, patch)
    assert (tmp_path / "f.md").read_text() == "x\n+++ b\ny\n"


def test_blank_context_lines_without_their_space_and_blank_separators(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("a = 1\n\nb = 2\n\n\nc = 3\n")
    patch = (
        "Here is the fix:\n\n--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n a = 1\n\n-b = 2\n+b = 3\n"
        "\n@@ -6 +6 @@\n-c = 3\n+c = 4\n\n"
    )
    apply_patch(tmp_path, patch)
    assert (tmp_path / "f.py").read_text() == "a = 1\n\nb = 3\n\n\nc = 4\n"


@pytest.mark.parametrize(
    "wrap",
    [
        "```diff\n{}```\n",
        "Sure, here it is:\n\n```patch\n{}```\nLet me know.\n",
        "~~~\n{}~~~\n",
        "apply_patch <<'EOF'\n{}EOF\n",
        "```\napply_patch <<EOF\n{}EOF\n```\n",
    ],
    ids=["fence", "prose-and-fence", "tilde-fence", "heredoc", "heredoc-in-fence"],
)
@pytest.mark.parametrize("dialect", ["unified", "codex"])
def test_fences_and_heredocs_around_either_dialect(tmp_path: Path, wrap: str, dialect: str) -> None:
    (tmp_path / "f.txt").write_text("one\ntwo\n")
    body = (
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
        if dialect == "unified"
        else "*** Begin Patch\n*** Update File: f.txt\n@@\n one\n-two\n+2\n*** End Patch\n"
    )
    plan = apply_patch(tmp_path, wrap.format(body))
    assert (tmp_path / "f.txt").read_text() == "one\n2\n"
    assert plan.dialect == dialect and plan.unwrapped


def test_dialect_is_detected_from_the_text() -> None:
    assert parse_patch("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n").dialect == "unified"
    assert parse_patch("*** Begin Patch\n*** Delete File: x\n*** End Patch\n").dialect == "codex"
    with pytest.raises(ValueError, match="no '\\*\\*\\* Begin Patch' line"):
        parse_patch("*** Update File: x\n@@\n-a\n+b\n")


# ----------------------------------------------------------------------------- already applied


def test_reapplying_a_hunk_that_ends_the_file_is_already_applied(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\n")
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"
    apply_patch(tmp_path, patch)
    plan = apply_patch(tmp_path, patch)
    assert plan.already_applied and plan.already == ("f.txt",)
    assert (tmp_path / "f.txt").read_text() == "a\nb\nc\n"


def test_reapplying_a_two_file_patch_reports_both_and_writes_nothing(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "a\nb\n", "b.txt": "x\ny\n"})
    patch = (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"
        "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,3 @@\n x\n y\n+z\n"
    )
    apply_patch(tmp_path, patch)
    before = {p: os.stat(tmp_path / p).st_mtime_ns for p in ("a.txt", "b.txt")}
    plan = apply_patch(tmp_path, patch)
    assert plan.already_applied and set(plan.already) == {"a.txt", "b.txt"}
    assert {p: os.stat(tmp_path / p).st_mtime_ns for p in before} == before


def test_half_applied_patch_is_an_error_naming_the_hunks(tmp_path: Path) -> None:
    lines = "".join(f"line {i}\n" for i in range(1, 31))
    (tmp_path / "f.txt").write_text(lines.replace("line 5\n", "FIVE\n"))
    patch = (
        "--- a/f.txt\n+++ b/f.txt\n@@ -4,3 +4,3 @@\n line 4\n-line 5\n+FIVE\n line 6\n"
        "@@ -24,3 +24,3 @@\n line 24\n-line 25\n+TWENTY-FIVE\n line 26\n"
    )
    with pytest.raises(PatchError, match="half applied — hunk 1 is already in the file but hunk 2"):
        apply_patch(tmp_path, patch)
    assert "TWENTY" not in (tmp_path / "f.txt").read_text()


def test_half_applied_across_files_names_them(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "a\nB\nc\n", "b.txt": "x\ny\nz\n"})
    patch = (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        "--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n"
    )
    with pytest.raises(
        PatchError, match=r"half applied: a\.txt already has its changes but b\.txt"
    ):
        apply_patch(tmp_path, patch)
    assert (tmp_path / "b.txt").read_text() == "x\ny\nz\n"


# ----------------------------------------------------------------------------- diff -ruN


def test_diff_ruN_between_differently_named_folders(tmp_path: Path) -> None:
    old = {"pkg/a.py": "a = 1\n", "gone.txt": "bye\n", "README": "hello\n"}
    new = {"pkg/a.py": "a = 2\n", "pkg/new.py": "n = 1\n", "README": "hello\n", "empty": ""}
    write(tmp_path / "pkg-1.0", old)
    write(tmp_path / "pkg-1.1", new)
    res = subprocess.run(
        ["diff", "-ruN", "pkg-1.0", "pkg-1.1"], cwd=tmp_path, capture_output=True, check=False
    )
    assert b"1970-01-01" in res.stdout
    work = tmp_path / "work"
    write(work, old)
    plan = apply_patch(work, res.stdout)
    assert tree(work) == {k: v.encode() for k, v in new.items() if v}
    assert plan.summary() == ["D gone.txt (+0 −1)", "M pkg/a.py (+1 −1)", "A pkg/new.py (+1 −0)"]


def test_a_modified_file_with_an_epoch_stamp_is_still_a_modification(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\n")
    patch = (
        "--- a/f.txt\t1970-01-01 00:00:00.000000000 +0000\n"
        "+++ b/f.txt\t2024-05-01 10:00:00.000000000 +0000\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    )
    apply_patch(tmp_path, patch)
    assert (tmp_path / "f.txt").read_text() == "a\nB\n"


def test_trailing_whitespace_in_the_file_not_in_the_patch(tmp_path: Path) -> None:
    copy = "def f():\n    return 1\n"
    text = "def f():  \n    return 1\n" + "\n" * 30 + copy  # an exact copy far away
    (tmp_path / "f.py").write_text(text)
    patch = "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
    plan = apply_patch(tmp_path, patch)
    assert (tmp_path / "f.py").read_text() == text.replace("1\n", "2\n", 1)
    assert "trailing whitespace" in plan.summary()[1]


# ----------------------------------------------------------------------------- Codex envelope


def test_codex_envelope_add_update_move_delete(tmp_path: Path) -> None:
    write(tmp_path, {"src/app.py": "import os\n\ndef main():\n    print('hi')\n", "old.txt": "x\n"})
    patch = (
        "*** Begin Patch\n"
        "*** Add File: docs/notes.md\n+# Notes\n+\n+first\n"
        "*** Update File: src/app.py\n*** Move to: src/main.py\n"
        "@@ def main():\n-    print('hi')\n+    print('hello')\n"
        "*** Delete File: old.txt\n"
        "*** End Patch\n"
    )
    plan = apply_patch(tmp_path, patch)
    assert tree(tmp_path) == {
        "docs/notes.md": b"# Notes\n\nfirst\n",
        "src/main.py": b"import os\n\ndef main():\n    print('hello')\n",
    }
    assert plan.dialect == "codex"
    assert [line for line in plan.summary() if not line.startswith(" ")] == [
        "A docs/notes.md (+3 −0)",
        "R src/app.py → src/main.py (+1 −1)",
        "D old.txt (+0 −1)",
    ]


def test_codex_chunks_fold_unicode_punctuation_and_keep_the_files_lines(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("msg = \u201chello \u2014 world\u201d\nend = 1\n")
    patch = (
        '*** Begin Patch\n*** Update File: t.py\n@@\n msg = "hello - world"\n-end = 1\n'
        "+end = 2\n*** End Patch\n"
    )
    plan = apply_patch(tmp_path, patch)
    assert (tmp_path / "t.py").read_text() == "msg = \u201chello \u2014 world\u201d\nend = 2\n"
    assert "Unicode" in plan.summary()[1]


def test_codex_crlf_patch_and_crlf_file(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    patch = (
        "*** Begin Patch\r\n*** Update File: w.txt\r\n@@\r\n one\r\n-two\r\n+2\r\n*** End Patch\r\n"
    )
    apply_patch(tmp_path, patch)
    assert (tmp_path / "w.txt").read_bytes() == b"one\r\n2\r\n"


def test_codex_multiple_context_lines_narrow_the_place(tmp_path: Path) -> None:
    cls = "class {}:\n    def run(self):\n        return 0\n\n"
    text = cls.format("A") + cls.format("B")
    (tmp_path / "c.py").write_text(text)
    patch = (
        "*** Begin Patch\n*** Update File: c.py\n@@ class B:\n@@     def run(self):\n"
        "-        return 0\n+        return 1\n*** End Patch\n"
    )
    apply_patch(tmp_path, patch)
    assert (tmp_path / "c.py").read_text() == cls.format("A") + cls.format("B").replace("0", "1")


def test_codex_same_chunk_in_two_places_is_ambiguous_and_atomic(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "x\ny\nx\ny\n"})
    patch = (
        "*** Begin Patch\n*** Add File: new.txt\n+n\n*** Update File: a.txt\n@@\n x\n-y\n+Y\n"
        "*** End Patch\n"
    )
    with pytest.raises(PatchError, match=r"ambiguous .*lines 1, 3"):
        apply_patch(tmp_path, patch)
    assert tree(tmp_path) == {"a.txt": b"x\ny\nx\ny\n"}


def test_codex_errors_name_the_patch_line(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\n")
    cases = {
        "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+b\n": "must be '\\*\\*\\* End Patch'",
        "*** Begin Patch\n*** Frobnicate: f.txt\n*** End Patch\n": "patch line 2: .*not a valid",
        "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\nb\n*** End Patch\n": "patch line 5",
    }
    for patch, message in cases.items():
        with pytest.raises(PatchError, match=message):
            plan_patch(tmp_path, patch)


def test_model_error_text_shows_what_was_expected_and_the_nearest_lines(tmp_path: Path) -> None:
    (tmp_path / "g.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    patch = (
        "*** Begin Patch\n*** Update File: g.py\n@@\n def greet(person):\n"
        "-    return f'hello {person}'\n+    return f'hi {person}'\n*** End Patch\n"
    )
    with pytest.raises(PatchError) as info:
        plan_patch(tmp_path, patch)
    msg = str(info.value)
    assert "g.py hunk 1/1 (@@, starting 'def greet(person):')" in msg
    assert "most similar: line 1: 'def greet(name):'" in msg
    assert "the hunk expects:\n      def greet(person):" in msg
    assert "Re-read g.py" in msg


def test_git_modes_are_normalised_never_setuid(tmp_path: Path) -> None:
    patch = (
        "diff --git a/run.sh b/run.sh\nnew file mode 104755\n--- /dev/null\n+++ b/run.sh\n"
        "@@ -0,0 +1 @@\n+echo hi\n"
        "diff --git a/data b/data\nnew file mode 100000\n--- /dev/null\n+++ b/data\n"
        "@@ -0,0 +1 @@\n+x\n"
    )
    plan = apply_patch(tmp_path, patch)
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "run.sh").stat().st_mode & 0o7777 == 0o777 & ~umask
    assert (tmp_path / "data").stat().st_mode & 0o7777 == 0o666 & ~umask
    assert plan.summary()[0] == f"A run.sh (+1 −0, mode {0o777 & ~umask:o})"
