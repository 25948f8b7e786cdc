"""apply_patch engine: the details users rely on (DESIGN §5)."""

from __future__ import annotations

import difflib
import os
import stat
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.tools.patch_engine import PatchError, apply_patch, plan_patch


def udiff(path: str, a: str, b: str, n: int = 3) -> str:
    return "".join(
        difflib.unified_diff(a.splitlines(True), b.splitlines(True), f"a/{path}", f"b/{path}", n=n)
    )


def numbered(count: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i}\n" for i in range(1, count + 1))


def leftovers(root: Path) -> list[str]:
    return [
        p.name
        for p in root.rglob("*")
        if p.name.endswith((".orig", ".rej", ".frontier-tmp")) or ".frontier-tmp" in p.name
    ]


def test_modify_reports_summary_and_writes(tmp_path: Path) -> None:
    a = numbered(50)
    b = a.replace("line 10\n", "line ten\n")
    (tmp_path / "f.txt").write_text(a)
    plan = apply_patch(tmp_path, udiff("f.txt", a, b))
    assert (tmp_path / "f.txt").read_text() == b
    assert plan.summary() == ["M f.txt (+1 −1)"]
    assert leftovers(tmp_path) == []


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    a = numbered(5)
    (tmp_path / "f.txt").write_text(a)
    apply_patch(tmp_path, udiff("f.txt", a, a.replace("line 2", "two")), dry_run=True)
    assert (tmp_path / "f.txt").read_text() == a


def test_hunk_far_from_hint_found_once_applies(tmp_path: Path) -> None:
    a = numbered(100)
    b = a.replace("line 60\n", "sixty\n")
    patch = udiff("f.txt", a, b).replace("@@ -57,7 +57,7 @@", "@@ -5,7 +5,7 @@")
    (tmp_path / "f.txt").write_text(a)
    plan = apply_patch(tmp_path, patch)
    assert (tmp_path / "f.txt").read_text() == b
    assert plan.changes[0].notes == ("hunk 1 at line 57 (header said 5)",)


def test_twice_found_hunk_uses_the_nearer_hint_or_is_ambiguous(tmp_path: Path) -> None:
    block = "def f():\n    return 1\n\n"
    a = "# top\n" + block + "x = 1\n" * 11 + block
    (tmp_path / "f.py").write_text(a)
    patch = "--- a/f.py\n+++ b/f.py\n@@ -14,2 +14,2 @@\n def f():\n-    return 1\n+    return 2\n"
    apply_patch(tmp_path, patch)
    after = "# top\n" + block + "x = 1\n" * 11 + block.replace("1", "2")
    assert (tmp_path / "f.py").read_text() == after
    (tmp_path / "f.py").write_text(a)
    # line 9 is equidistant from the matches at lines 2 and 16
    tie = patch.replace("@@ -14,2 +14,2 @@", "@@ -9,2 +9,2 @@")
    with pytest.raises(PatchError, match=r"ambiguous .* 2 places \(lines 2, 16\)"):
        apply_patch(tmp_path, tie)
    assert (tmp_path / "f.py").read_text() == a


def test_trailing_whitespace_context_keeps_file_version_added_lines_exact(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("alpha  \nbeta\ngamma\t\n")
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA   \n gamma\n"
    plan = apply_patch(tmp_path, patch)
    assert (tmp_path / "f.txt").read_text() == "alpha  \nBETA   \ngamma\t\n"
    assert "trailing whitespace" in plan.summary()[1]


def test_crlf_file_keeps_crlf_and_missing_final_newline(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"one\r\ntwo\r\nthree")
    patch = (
        "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n+one and a half\n two\n three\n"
        "\\ No newline at end of file\n"
    )
    apply_patch(tmp_path, patch)
    assert (tmp_path / "w.txt").read_bytes() == b"one\r\none and a half\r\ntwo\r\nthree"


def test_no_newline_marker_on_added_and_removed_lines(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"a\nb")
    patch = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
    apply_patch(tmp_path, patch)
    assert (tmp_path / "f").read_bytes() == b"a\nb\n"
    back = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n"
    apply_patch(tmp_path, back)
    assert (tmp_path / "f").read_bytes() == b"a\nc"


def test_permissions_are_preserved_and_git_mode_changes_apply(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    apply_patch(tmp_path, udiff("run.sh", "#!/bin/sh\necho hi\n", "#!/bin/sh\necho bye\n"))
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    mode_only = "diff --git a/run.sh b/run.sh\nold mode 100755\nnew mode 100644\n"
    apply_patch(tmp_path, mode_only)
    assert stat.S_IMODE(script.stat().st_mode) == 0o644


def test_create_and_delete_via_dev_null(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("bye\n")
    patch = (
        "--- /dev/null\n+++ b/pkg/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n"
        "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    )
    plan = apply_patch(tmp_path, patch)
    assert (tmp_path / "pkg/new.txt").read_text() == "hello\nworld\n"
    assert not (tmp_path / "old.txt").exists()
    assert plan.summary() == ["A pkg/new.txt (+2 −0)", "D old.txt (+0 −1)"]


def test_creating_an_existing_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("mine\n")
    with pytest.raises(PatchError, match="already exists"):
        apply_patch(tmp_path, "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+theirs\n")
    assert (tmp_path / "x").read_text() == "mine\n"


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


OLD = {"keep.py": "a\nb\nc\n", "gone.txt": "bye\n", "mv.txt": "same\n" * 6, "empty_dir/x": "x\n"}
NEW = {"keep.py": "a\nB\nc\n", "new.txt": "hi\n", "moved.txt": "same\n" * 6, "empty_dir/x": "x\n"}


def test_diff_ruN_epoch_creation_and_deletion(tmp_path: Path) -> None:
    """Plain ``diff -ruN``: creation/deletion are decided from -0,0/+0,0 (epoch timestamps)."""
    _tree(tmp_path / "a", OLD)
    _tree(tmp_path / "b", NEW)
    res = subprocess.run(["diff", "-ruN", "a", "b"], cwd=tmp_path, capture_output=True, check=False)
    work = tmp_path / "w"
    _tree(work, OLD)
    apply_patch(work, res.stdout)
    assert _snapshot(work) == _snapshot(tmp_path / "b")


def _git(cwd: Path, *args: str) -> bytes:
    cmd = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, check=True).stdout


def test_git_diff_rename_and_headers_only_creation(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _tree(repo, OLD)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "old")
    for name in OLD:
        (repo / name).unlink()
    _tree(repo, {**NEW, "blank.txt": ""})
    _git(repo, "add", "-A")
    patch = _git(repo, "diff", "--cached", "-M")
    assert b"rename from" in patch and b"new file mode" in patch
    work = tmp_path / "w"
    _tree(work, OLD)
    plan = apply_patch(work, patch)
    assert _snapshot(work) == {k: v.encode() for k, v in sorted({**NEW, "blank.txt": ""}.items())}
    assert "R mv.txt → moved.txt (+0 −0)" in plan.summary()


def test_patch_paths_cannot_escape_the_root(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "link").symlink_to("/")
    for target in ("../outside.txt", "/etc/passwd", "link/etc/hostname"):
        patch = f"--- /dev/null\n+++ {target}\n@@ -0,0 +1 @@\n+x\n"
        with pytest.raises(PatchError, match="outside the workspace"):
            apply_patch(root, patch)
    assert not (tmp_path / "outside.txt").exists()


def test_not_found_error_names_file_hunk_and_differing_line(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(numbered(10))
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -3,3 +3,3 @@\n line 3\n-line FOUR\n+4\n line 5\n"
    with pytest.raises(PatchError) as info:
        apply_patch(tmp_path, patch)
    msg = str(info.value)
    assert "f.txt hunk 1/1 (@@ -3,3 +3,3 @@, starting 'line 3')" in msg
    assert "at line 4 the file has 'line 4' but the patch expects 'line FOUR'" in msg
    assert "Re-read f.txt" in msg


def test_already_applied_patch_is_recognised_and_writes_nothing(tmp_path: Path) -> None:
    a, b = numbered(10), numbered(10).replace("line 5\n", "five\n")
    (tmp_path / "f.txt").write_text(b)
    before = os.stat(tmp_path / "f.txt").st_mtime_ns
    plan = apply_patch(tmp_path, udiff("f.txt", a, b))
    assert plan.already_applied and plan.already == ("f.txt",) and plan.changes == ()
    assert os.stat(tmp_path / "f.txt").st_mtime_ns == before


def test_malformed_patch_says_how_to_fix(tmp_path: Path) -> None:
    with pytest.raises(PatchError, match="no file entries"):
        plan_patch(tmp_path, "just some prose\n")
    with pytest.raises(PatchError, match="context diff"):
        plan_patch(tmp_path, "*** a/f\n--- b/f\n***************\n*** 1 ****\n")
    with pytest.raises(PatchError, match="an @@ hunk before any file header"):
        plan_patch(tmp_path, "@@ -1 +1 @@\n-a\n+b\n")


def test_symlink_inside_workspace_is_written_through(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("a\n")
    os.symlink("real.txt", tmp_path / "alias.txt")
    apply_patch(tmp_path, "--- a/alias.txt\n+++ b/alias.txt\n@@ -1 +1 @@\n-a\n+b\n")
    assert (tmp_path / "alias.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "b\n"


def test_non_utf8_bytes_survive(tmp_path: Path) -> None:
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9\nline\n")
    patch = b"--- a/latin.txt\n+++ b/latin.txt\n@@ -1,2 +1,2 @@\n caf\xe9\n-line\n+LINE\n"
    apply_patch(tmp_path, patch)
    assert (tmp_path / "latin.txt").read_bytes() == b"caf\xe9\nLINE\n"


BOM = "\ufeff".encode()


@pytest.mark.parametrize(
    "patch",
    [
        "*** Begin Patch\n*** Update File: App.cs\n@@\n-using System;\n+using System.IO;\n"
        " using System.Linq;\n*** End Patch\n",
        "--- a/App.cs\n+++ b/App.cs\n@@ -1,2 +1,2 @@\n-using System;\n+using System.IO;\n"
        " using System.Linq;\n",
    ],
    ids=["codex", "unified"],
)
def test_a_hunk_on_the_first_line_of_a_file_with_a_byte_order_mark_applies(
    tmp_path: Path, patch: str
) -> None:
    """Visual Studio saves C# with one: the model's hunk names ``using System;`` and the
    file's first line was ``\\ufeffusing System;`` ("context not found")."""
    source = BOM + b"using System;\r\nusing System.Linq;\r\n\r\nclass App {}\r\n"
    (tmp_path / "App.cs").write_bytes(source)
    apply_patch(tmp_path, patch)
    after = (tmp_path / "App.cs").read_bytes()
    assert after == BOM + b"using System.IO;\r\nusing System.Linq;\r\n\r\nclass App {}\r\n"


def test_a_byte_order_mark_stays_where_a_hunk_lower_down_changes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(BOM + b"import os\n\nprint(os.name)\n")
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-print(os.name)\n+print(os.sep)\n"
    apply_patch(tmp_path, patch + "*** End Patch\n")
    assert (tmp_path / "a.py").read_bytes() == BOM + b"import os\n\nprint(os.sep)\n"


@given(st.text(alphabet="a\ufeff\r\n é", max_size=40))
def test_text_with_a_byte_order_mark_round_trips(text: str) -> None:
    from frontier.tools.patch_engine import Text

    parsed = Text.parse(text)
    assert parsed.render() == text
    assert parsed.bom is text.startswith("\ufeff")
    if parsed.lines:  # one mark held apart; the first line is what follows it
        assert parsed.lines[0] == text.removeprefix("\ufeff").split("\n")[0]


@pytest.mark.parametrize(
    "patch",
    [
        "*** Begin Patch\n*** Add File: src\\util.py\n+x = 1\n*** End Patch\n",
        "--- /dev/null\n+++ b/src\\util.py\n@@ -0,0 +1 @@\n+x = 1\n",
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: src\\util.py\n@@\n-a\n+b\n"
        "*** End Patch\n",
    ],
    ids=["add", "unified-create", "move"],
)
def test_a_new_file_named_with_a_windows_separator_is_refused(tmp_path: Path, patch: str) -> None:
    """``src\\util.py`` was made in the root: a file whose name holds a backslash."""
    (tmp_path / "src").mkdir()
    (tmp_path / "a.py").write_text("a\n")
    with pytest.raises(PatchError, match=r"write the path as 'src/util\.py'"):
        apply_patch(tmp_path, patch)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.py", "src"]


def test_a_file_that_has_a_backslash_in_its_name_is_changed_as_named(tmp_path: Path) -> None:
    (tmp_path / "odd\\name.txt").write_text("a\n")
    patch = "*** Begin Patch\n*** Update File: odd\\name.txt\n@@\n-a\n+b\n*** End Patch\n"
    apply_patch(tmp_path, patch)
    assert (tmp_path / "odd\\name.txt").read_text() == "b\n"
