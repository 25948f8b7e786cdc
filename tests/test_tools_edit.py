"""read / write / replace / multi acceptance cases, through the boundary."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tools_fakes import call, make_boundary, model_has_read

from frontier.tools.registry import Registry, default_registry


@pytest.fixture
def f(tmp_path: Path) -> Path:
    p = tmp_path / "f.py"
    p.write_text("x = 1\ny = 2\nx = 1\nz = 3\n")
    return p


async def test_replace_two_matches_is_ambiguous_and_file_unchanged(tmp_path: Path, f: Path) -> None:
    before = f.read_bytes()
    r = await make_boundary(tmp_path).run(call("replace", path="f.py", old="x = 1", new="x = 9"))
    assert r.kind == "error"
    assert "ambiguous: 2 matches at lines 1, 3" in r.output
    assert f.read_bytes() == before


async def test_replace_zero_matches_is_not_found(tmp_path: Path, f: Path) -> None:
    r = await make_boundary(tmp_path).run(call("replace", path="f.py", old="w = 0", new="w = 1"))
    assert r.kind == "error" and "not found" in r.output


async def test_replace_one_match_succeeds_and_reads_back(tmp_path: Path, f: Path) -> None:
    r = await make_boundary(tmp_path).run(call("replace", path="f.py", old="y = 2", new="y = 20"))
    assert r.kind == "ok", r.output
    assert f.read_text() == "x = 1\ny = 20\nx = 1\nz = 3\n"


async def test_replace_in_crlf_file_keeps_crlf(tmp_path: Path) -> None:
    p = tmp_path / "w.txt"
    p.write_bytes(b"a\r\nb\r\nc\r\n")
    r = await make_boundary(tmp_path).run(call("replace", path="w.txt", old="a\nb\n", new="A\nB\n"))
    assert r.kind == "ok", r.output
    assert p.read_bytes() == b"A\r\nB\r\nc\r\n"


async def test_multi_failing_in_the_middle_leaves_file_unchanged(tmp_path: Path, f: Path) -> None:
    before = f.read_bytes()
    edits = [
        {"old": "y = 2", "new": "y = 3"},
        {"old": "nope", "new": "x"},
        {"old": "z", "new": "q"},
    ]
    r = await make_boundary(tmp_path).run(call("multi", path="f.py", edits=edits))
    assert r.kind == "error" and "edit 2" in r.output and "no edit was applied" in r.output
    assert f.read_bytes() == before


async def test_multi_rejects_overlapping_edits(tmp_path: Path, f: Path) -> None:
    edits = [{"old": "y = 2\nx", "new": "Y"}, {"old": "2\nx = 1\nz", "new": "Q"}]
    r = await make_boundary(tmp_path).run(call("multi", path="f.py", edits=edits))
    assert r.kind == "error" and "overlap" in r.output


async def test_multi_applies_all_against_the_original(tmp_path: Path, f: Path) -> None:
    edits = [{"old": "z = 3", "new": "z = 30"}, {"old": "y = 2", "new": "y = 20"}]
    r = await make_boundary(tmp_path).run(call("multi", path="f.py", edits=edits))
    assert r.kind == "ok", r.output
    assert f.read_text() == "x = 1\ny = 20\nx = 1\nz = 30\n"


async def test_write_creates_parents_and_keeps_mode(tmp_path: Path) -> None:
    b = make_boundary(tmp_path)
    r = await b.run(call("write", path="pkg/sub/new.py", content="print(1)\n"))
    assert r.kind == "ok" and "created pkg/sub/new.py" in r.output
    script = tmp_path / "run.sh"
    script.write_text("old")
    script.chmod(0o750)
    model_has_read(b, "run.sh")
    await b.run(call("write", path="run.sh", content="new"))
    assert script.read_text() == "new" and (script.stat().st_mode & 0o777) == 0o750


@pytest.mark.parametrize(
    ("was", "content", "written"),
    [
        (b"a\r\nb\r\n", "a\nB\n", b"a\r\nB\r\n"),  # a Windows file keeps its line ends
        (b"\xef\xbb\xbfa\r\n", "A\n", b"\xef\xbb\xbfA\r\n"),  # and its byte order mark
        (b"a\r\nb\r\n", "a\r\nB\n", b"a\r\nB\n"),  # CRLF written is as the model wrote it
        (b"a\nb\n", "a\nB\n", b"a\nB\n"),
        (b"a\r\nb\n\n\n", "A\n", b"A\n"),  # mostly LF: left as written
        (b"\x89PNG\r\n\x1a\n\x00\x00\r\n", "A\n", b"A\n"),  # a binary file has no form
    ],
    ids=["crlf", "bom", "model-crlf", "lf", "mostly-lf", "binary"],
)
async def test_write_over_a_file_keeps_its_line_ends_and_mark(
    tmp_path: Path, was: bytes, content: str, written: bytes
) -> None:
    """A whole-file rewrite of a Windows file changed every line's ending (the whole file
    in the review's diff and in git's) and dropped its byte order mark."""
    (tmp_path / "w.txt").write_bytes(was)
    b = make_boundary(tmp_path)
    model_has_read(b, "w.txt")
    r = await b.run(call("write", path="w.txt", content=content))
    assert r.kind == "ok", r.output
    assert (tmp_path / "w.txt").read_bytes() == written


async def test_write_of_a_new_path_with_a_windows_separator_is_refused(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "odd\\name.txt").write_text("a")
    b = make_boundary(tmp_path)
    r = await b.run(call("write", path="src\\util.py", content="x"))
    assert r.kind == "arg" and "write the path as 'src/util.py'" in r.output
    assert not (tmp_path / "src\\util.py").exists()
    model_has_read(b, "odd\\name.txt")
    r = await b.run(call("write", path="odd\\name.txt", content="b"))  # it exists: as named
    assert r.kind == "ok" and (tmp_path / "odd\\name.txt").read_text() == "b"


async def test_read_window_binary_and_missing(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"row {i}\n" for i in range(1, 2001)))
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02")
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9\n")
    b = make_boundary(tmp_path)
    r = await b.run(call("read", path="big.txt"))
    assert r.output.splitlines()[-1] == (
        "[showing lines 1–500 of 2000; call read with offset=501 to continue]"
    )
    r = await b.run(call("read", path="big.txt", offset=1999))
    assert r.output.splitlines()[-1] == "[showing lines 1999–2000 of 2000]"
    assert "binary" in (await b.run(call("read", path="blob.bin"))).output
    r = await b.run(call("read", path="latin.txt"))
    assert r.kind == "error" and "not UTF-8 text (invalid byte at offset 3)" in r.output
    r = await b.run(call("read", path="nope.txt"))
    assert r.kind == "error" and "no such file" in r.output
    r = await b.run(call("read", path="big.txt", offset=5000))
    assert "past the end" in r.output


async def test_read_output_respects_the_byte_cap(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text(("y" * 1000 + "\n") * 200)
    r = await make_boundary(tmp_path).run(call("read", path="wide.txt"))
    assert len(r.output.encode()) < 26 * 1024
    assert "call read with offset=" in r.output


async def test_a_file_over_the_read_limit_is_refused_without_being_read(tmp_path: Path) -> None:
    """A 1.6 GB log was read whole (0.8 s, 1.6 GB of memory) to be refused; now its size
    decides. A 1 TiB file (sparse: it costs no disk) read whole could not fit in memory."""
    with (tmp_path / "huge.log").open("wb") as huge:
        huge.truncate(1 << 40)
    r = await make_boundary(tmp_path).run(call("read", path="huge.log"))
    assert r.kind == "error"
    assert r.output.startswith(f"huge.log is {1 << 40} bytes, over the 20971520 byte read limit")


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("replace", {"path": "huge.log", "old": "a", "new": "b"}),
        ("multi", {"path": "huge.log", "edits": [{"old": "a", "new": "b"}]}),
        ("write", {"path": "huge.log", "content": "small now\n"}),
        ("apply_patch", {"patch": "--- a/huge.log\n+++ b/huge.log\n@@ -1 +1 @@\n-a\n+b\n"}),
    ],
)
async def test_the_editing_tools_leave_a_file_over_their_limit_unread(
    tmp_path: Path, tool: str, args: dict[str, object]
) -> None:
    """Their review holds the old and new text and the diff, several times the file: a
    file over 64 MiB is refused by its size, with what to do instead, and left as it was."""
    with (tmp_path / "huge.log").open("wb") as huge:
        huge.truncate(1 << 40)
    r = await make_boundary(tmp_path).run(call(tool, **args))
    assert r.kind == "error"
    assert (
        f"huge.log is {1 << 40} bytes, over the 67108864 byte limit of the file tools" in r.output
    )
    assert "change it with a command instead" in r.output
    assert (tmp_path / "huge.log").stat().st_size == 1 << 40


ESCAPES = ["../x.txt", "/etc/passwd", "link/etc/passwd"]


@pytest.mark.parametrize("target", ESCAPES, ids=["dotdot", "absolute", "symlink"])
@pytest.mark.parametrize(
    "tool,args",
    [
        ("read", {}),
        ("write", {"content": "x"}),
        ("replace", {"old": "root", "new": "toor"}),
        ("multi", {"edits": [{"old": "root", "new": "toor"}]}),
        ("grep", {"pattern": "root"}),
    ],
)
async def test_escape_attempts_are_refused(
    tmp_path: Path, target: str, tool: str, args: dict[str, object]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "link").symlink_to("/")
    r = await make_boundary(ws).run(call(tool, path=target, **args))
    assert r.kind == "error"
    assert "outside the workspace root" in r.output
    assert not (tmp_path / "x.txt").exists()


async def test_apply_patch_escape_via_symlink_is_refused(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "link").symlink_to(tmp_path)
    patch = "--- /dev/null\n+++ b/link/evil.txt\n@@ -0,0 +1 @@\n+x\n"
    r = await make_boundary(ws).run(call("apply_patch", patch=patch))
    assert r.kind == "error" and "outside the workspace root" in r.output
    assert not (tmp_path / "evil.txt").exists()


async def test_glob_refuses_escaping_patterns(tmp_path: Path) -> None:
    r = await make_boundary(tmp_path).run(call("glob", pattern="../*"))
    assert r.kind == "error" and "relative to the workspace" in r.output


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("a\nb.py", "'a\\nb.py': a new file's name would hold a line break"),
        ("a.py ", "'a.py ': a new file's name would hold a space at its start or end"),
        (" src/a.py", "' src/a.py': a new file's name would hold a space"),
        ("src\ta.py", "'src\\ta.py': a new file's name would hold a line break, a control"),
        ("evil\u202ecod.txt", "'evil\\u202ecod.txt': a new file's name would hold a line"),
        ("a\u200b.py", "'a\\u200b.py': a new file's name would hold a line break, a control"),
        ("~/notes.txt", "'~/notes.txt': '~' and '$NAME' are not expanded here"),
        ("$HOME/notes.txt", "'$HOME/notes.txt': '~' and '$NAME' are not expanded here"),
        ("src/${TMPDIR}/x", "'src/${TMPDIR}/x': '~' and '$NAME' are not expanded here"),
    ],
)
async def test_write_of_a_new_name_with_whitespace_at_an_end_or_a_control_is_refused(
    tmp_path: Path, path: str, says: str
) -> None:
    """Each was made as written: a file named with the line end of a heredoc's argument."""
    r = await make_boundary(tmp_path).run(call("write", path=path, content="x"))
    assert r.kind == "arg" and r.output.startswith(says), r.output
    assert list(tmp_path.iterdir()) == []


async def test_a_missing_path_with_a_space_at_an_end_is_shown_quoted(tmp_path: Path) -> None:
    """``real.py : no such file`` hid the space: nothing the model could see."""
    (tmp_path / "real.py").write_text("hi\n")
    r = await make_boundary(tmp_path).run(call("read", path="real.py "))
    assert r.output.startswith("'real.py ': no such file (the path holds a line break")


async def test_a_path_sent_as_a_heredoc_loses_its_line_end(tmp_path: Path) -> None:
    """``arg path <<EOF`` gives ``"a.py\\n"``: it names ``a.py`` (write made ``"a.py\\n"``)."""
    b = make_boundary(tmp_path)
    r = await b.run(call("write", path="a.py\n", content="x\n"))
    assert r.kind == "ok" and (tmp_path / "a.py").read_text() == "x\n"
    r = await b.run(call("read", path="a.py\r\n"))
    assert r.kind == "ok" and r.output.startswith("     1\tx")


@pytest.mark.parametrize("path", ["src/Outer$Inner.java", "a~b.txt", "notes.txt~", "my file.txt"])
async def test_names_with_those_characters_inside_are_made(tmp_path: Path, path: str) -> None:
    r = await make_boundary(tmp_path).run(call("write", path=path, content="x"))
    assert r.kind == "ok", r.output
    assert (tmp_path / path).read_text() == "x"


# ------------------------------------------------------------------ the names models send


async def test_the_parameter_names_other_agents_taught_a_model_are_taken(
    tmp_path: Path,
) -> None:
    """Claude Code's file_path / old_string / new_string, opencode's filePath, pi's
    oldText, the text editor's file_text, Codex's apply_patch input and opencode's
    patchText: each was an
    argument error and a repair round (GLM and Kimi K2 loop on them)."""
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    b = make_boundary(tmp_path)
    read = await b.run(call("read", 1, file_path="a.py"))
    assert read.kind == "ok" and "x = 1" in read.output
    edit = await b.run(call("replace", 2, filePath="a.py", old_string="x = 1", new_string="x = 3"))
    assert edit.kind == "ok", edit.output
    edits = [{"oldText": "x = 3", "newText": "x = 4"}, {"old_str": "y = 2", "new_str": "y = 5"}]
    multi = await b.run(call("multi", 3, file_path="a.py", edits=edits))
    assert multi.kind == "ok", multi.output
    assert (tmp_path / "a.py").read_text() == "x = 4\ny = 5\n"
    made = await b.run(call("write", 4, file_path="b.txt", file_text="hi\n"))
    assert made.kind == "ok" and (tmp_path / "b.txt").read_text() == "hi\n"
    patch = "*** Begin Patch\n*** Add File: c.txt\n+c\n*** End Patch\n"
    patched = await b.run(call("apply_patch", 5, input=patch))
    assert patched.kind == "ok" and (tmp_path / "c.txt").read_text() == "c\n"
    again = patch.replace("c.txt", "d.txt")  # opencode's apply_patch takes patchText
    patched = await b.run(call("apply_patch", 7, patchText=again))
    assert patched.kind == "ok" and (tmp_path / "d.txt").read_text() == "c\n"
    ran = await b.run(call("shell", 6, cmd="echo ran"))
    assert ran.kind == "ok" and ran.output.startswith("ran")


async def test_the_arguments_of_other_agents_tools_under_their_names_are_taken(
    tmp_path: Path,
) -> None:
    """What Gemini CLI's, Codex's, Cline's and Cursor's tools call them, as a model
    calling ``read_file``, ``list_dir`` or ``run_shell_command`` sends them: Claude Code's
    Bash and Gemini CLI's shell send a ``description`` of the command every time."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("Alpha = 1\n")
    b = make_boundary(tmp_path)
    read = await b.run(call("read", 1, absolute_path=str(tmp_path / "src" / "a.py")))
    assert read.kind == "ok" and "Alpha = 1" in read.output, read.output
    listed = await b.run(call("read", 2, dir_path="src"))
    assert listed.kind == "ok" and listed.output.startswith("src/ is a folder"), listed.output
    found = await b.run(call("glob", 3, pattern="*.py", dir_path="src"))
    assert found.kind == "ok" and "src/a.py" in found.output, found.output
    grep = await b.run(call("grep", 4, regex="alpha", include="*.py", case_insensitive=True))
    assert grep.kind == "ok" and "src/a.py:1" in grep.output, grep.output
    ran = await b.run(call("shell", 5, command="echo ran", description="Say that it ran"))
    assert ran.kind == "ok" and ran.output.startswith("ran"), ran.output
    both = await b.run(call("glob", 6, pattern="*", path="src", directory="."))
    assert both.kind == "arg" and "are the same argument" in both.output


def test_a_tool_name_is_read_as_the_tool_it_means_only_when_that_tool_is_there() -> None:
    reg = default_registry()
    assert [reg.named(n) for n in ("Bash", "LS", "MultiEdit", "grep_files", "READ")] == [
        "shell",
        "read",
        "multi",
        "grep",
        "read",
    ]
    assert reg.named("functions.apply_patch") == "apply_patch"
    assert reg.named("edit_file") == "edit_file"  # Cursor's takes a sketch: not ours
    bare = Registry([reg.get(n) for n in reg.names() if n != "shell"])  # type: ignore[misc]
    assert bare.named("bash") == "bash"  # no shell offered: nothing to mean


async def test_a_name_and_its_alias_together_are_refused_not_guessed(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    b = make_boundary(tmp_path)
    both = await b.run(call("read", 1, path="a.py", file_path="b.py"))
    assert both.kind == "arg" and "'file_path' and 'path' are the same argument" in both.output
    other = await b.run(call("read", 2, filename="a.py"))  # not a name anyone taught
    assert other.kind == "arg" and "unknown argument 'filename'" in other.output


async def test_reading_a_folder_lists_it(tmp_path: Path) -> None:
    """Models read a folder to see what is in it (Anthropic's text editor lists one it is
    asked to view); it was an error and a round trip to glob."""
    (tmp_path / "src" / "lib").mkdir(parents=True)
    (tmp_path / "src" / "a.py").write_text("x\n")
    (tmp_path / "src" / "lib" / "b.py").write_text("y\n")
    (tmp_path / "src" / "lib" / "c.py").write_text("z\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.o").write_text("o")
    (tmp_path / ".gitignore").write_text("build/\n")
    b = make_boundary(tmp_path)
    r = await b.run(call("read", 1, path="src"))
    assert r.kind == "ok", r.output
    assert r.output.splitlines()[:3] == [
        "src/ is a folder: 2 entries (.gitignore'd left out)",
        "  lib/  (2 files)",
        "  a.py",
    ]
    top = await b.run(call("read", 2, path="."))
    assert "  src/  (3 files)" in top.output and "build" not in top.output
    escape = tmp_path / "src" / "up"
    escape.symlink_to(tmp_path.parent)  # a folder link leaving the workspace
    refused = await b.run(call("read", 3, path="src/up"))
    assert refused.kind == "error" and "outside the workspace" in refused.output


async def test_replace_with_all_renames_every_occurrence_and_says_how_many(
    tmp_path: Path,
) -> None:
    """Claude Code's Edit takes replace_all for a rename; without it here a model had to
    send one call per occurrence, or got "ambiguous" and nothing to do about it."""
    (tmp_path / "a.py").write_text("foo = 1\nprint(foo)\nfoo += 2\n")
    b = make_boundary(tmp_path)
    one = await b.run(call("replace", 1, path="a.py", old="foo", new="bar"))
    assert one.kind == "error" and "or all: true to replace every one" in one.output
    assert (tmp_path / "a.py").read_text() == "foo = 1\nprint(foo)\nfoo += 2\n"
    every = await b.run(call("replace", 2, path="a.py", old="foo", new="bar", replace_all=True))
    assert every.kind == "ok" and "replace 3 occurrences in a.py from line 1" in every.output
    assert (tmp_path / "a.py").read_text() == "bar = 1\nprint(bar)\nbar += 2\n"
    missing = await b.run(call("replace", 3, path="a.py", old="foo", new="x", all=True))
    assert missing.kind == "error" and "not found" in missing.output


async def test_reading_an_image_gives_the_picture_and_says_what_it_is(tmp_path: Path) -> None:
    """The loop shows the picture after the round's results (test_wires_loopback); one past
    the APIs' bounds is scaled down to fit (tests/test_image_fit.py), and one that cannot
    be read to scale it is refused saying so, the file untouched."""
    import base64

    from test_images import PNG as png

    from frontier.app.image import IMAGE_MAX

    (tmp_path / "shot.png").write_bytes(png)
    b = make_boundary(tmp_path)
    r = await b.run(call("read", 1, path="shot.png"))
    assert r.kind == "ok" and r.output == f"shot.png is an image (image/png, {len(png)} bytes)"
    (image,) = r.images
    assert (image.media_type, image.name) == ("image/png", "shot.png")
    assert base64.b64decode(image.data) == png
    hollow = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40  # a signature, no image
    for name, data in (("hollow.png", hollow), ("big.png", hollow + b"\x00" * IMAGE_MAX)):
        (tmp_path / name).write_bytes(data)
        r = await b.run(call("read", 2, path=name))
        assert r.kind == "error" and r.images == ()
        assert "it cannot be shown: not an image that can be read" in r.output
        assert (tmp_path / name).read_bytes() == data


async def test_old_found_only_without_its_lines_trailing_whitespace_is_replaced_and_said(
    tmp_path: Path,
) -> None:
    """``read`` shows trailing spaces as nothing; a model copying the lines never matched
    them, read again, copied the same, failed again. Whole lines match loosely (as
    apply_patch's hunks do), the result says so, the CRLF stays; indentation still counts."""
    (tmp_path / "a.py").write_text("x = 1   \ny = 2\t\nz = 3\n")
    (tmp_path / "w.py").write_bytes(b"a = 1  \r\nb = 2\r\nc = 3\r\n")
    b = make_boundary(tmp_path)
    r = await b.run(call("replace", 1, path="a.py", old="x = 1\ny = 2", new="x = 3\ny = 4"))
    assert r.kind == "ok", r.output
    assert "ignoring whitespace at line ends" in r.output
    assert (tmp_path / "a.py").read_text() == "x = 3\ny = 4\nz = 3\n"
    r = await b.run(call("replace", 2, path="w.py", old="a = 1\nb = 2\n", new="a = 0\nb = 0\n"))
    assert r.kind == "ok", r.output
    assert (tmp_path / "w.py").read_bytes() == b"a = 0\r\nb = 0\r\nc = 3\r\n"
    edits = [{"old": "a = 0 \nb = 0", "new": "a = 9\nb = 9"}, {"old": "c = 3", "new": "c = 9"}]
    r = await b.run(call("multi", 3, path="w.py", edits=edits))
    assert r.kind == "ok" and "(1 ignoring whitespace at line ends)" in r.output, r.output
    assert (tmp_path / "w.py").read_bytes() == b"a = 9\r\nb = 9\r\nc = 9\r\n"
    (tmp_path / "i.py").write_text("if x:\n    y = 1  \n    z = 2\n")
    r = await b.run(call("replace", 4, path="i.py", old="if x:\n  y = 1\n  z = 2", new="-"))
    assert r.kind == "error" and "not found" in r.output  # leading whitespace is never loose
    (tmp_path / "d.py").write_text("p = 1 \nq = 2\np = 1\nq = 2 \n")
    r = await b.run(call("replace", 5, path="d.py", old="p = 1\nq = 2\n", new="-"))
    assert r.kind == "error" and "ambiguous (ignoring whitespace at line ends)" in r.output
    assert "lines 1, 3" in r.output and (tmp_path / "d.py").read_text().startswith("p = 1 \n")


async def test_write_over_a_file_changed_since_the_model_read_it_is_refused(
    tmp_path: Path,
) -> None:
    """The person edited the file in their editor while the agent worked; the model then
    wrote it whole from what it had read, and the edit was gone (silently under
    auto-edit). Read again, it writes; its own writes and replace: as before."""
    target = tmp_path / "a.py"
    target.write_text("x = 1\n")
    b = make_boundary(tmp_path)
    assert (await b.run(call("read", 1, path="a.py"))).kind == "ok"
    target.write_text("x = 1\nperson = 1\n")  # the person, meanwhile
    r = await b.run(call("write", 2, path="a.py", content="x = 2\n"))
    assert r.kind == "error" and "a.py changed since you last read it" in r.output, r.output
    assert "nothing written" in r.output and target.read_text() == "x = 1\nperson = 1\n"
    assert (await b.run(call("read", 3, path="a.py"))).kind == "ok"
    r = await b.run(call("write", 4, path="a.py", content="x = 2\nperson = 1\n"))
    assert r.kind == "ok", r.output
    r = await b.run(call("write", 5, path="a.py", content="x = 3\nperson = 1\n"))
    assert r.kind == "ok", r.output  # what it wrote last is what it saw
    target.write_text("x = 3\nperson = 2\n")
    r = await b.run(call("replace", 6, path="a.py", old="x = 3", new="x = 4"))
    assert r.kind == "ok", r.output  # finds its text as given: undoes nothing


async def test_write_over_a_file_the_model_never_read_is_refused(tmp_path: Path) -> None:
    """Asked to add a section to README.md, a model wrote a README of its own over the
    one it never read: what the file held was replaced by a guess (under auto-edit,
    unseen). Refused, nothing written, until it reads the file; a new file, an empty one,
    a file it created itself or read through @path: written as before."""
    readme = tmp_path / "README.md"
    readme.write_text("# Project\n\nInstall with make.\n")
    b = make_boundary(tmp_path)
    r = await b.run(call("write", 1, path="README.md", content="# Project\n\n## Usage\n"))
    assert r.kind == "error" and r.output.startswith(
        "README.md exists (3 lines, 30 bytes) and you have not read it in this session"
    ), r.output
    assert "nothing written" in r.output and "Read it first" in r.output
    assert readme.read_text() == "# Project\n\nInstall with make.\n"
    assert (await b.run(call("read", 2, path="README.md"))).kind == "ok"
    r = await b.run(call("write", 3, path="README.md", content="# Project\n\n## Usage\n"))
    assert r.kind == "ok", r.output
    (tmp_path / "empty.py").write_text("")
    r = await b.run(call("write", 4, path="empty.py", content="x = 1\n"))
    assert r.kind == "ok", r.output  # nothing in it to lose
    assert (await b.run(call("write", 5, path="new.py", content="a\n"))).kind == "ok"
    r = await b.run(call("write", 6, path="new.py", content="b\n"))
    assert r.kind == "ok", r.output  # it wrote it: it knows it


async def test_write_over_a_file_read_only_in_part_names_the_lines_not_read(
    tmp_path: Path,
) -> None:
    """read shows 500 lines at a time: a model that read the first window of a long file
    and wrote it whole kept 500 lines, and the rest was gone. Read in full (in windows,
    in any order), it writes."""
    target = tmp_path / "long.py"
    body = "".join(f"x{i} = {i}\n" for i in range(1, 1201))
    target.write_text(body)
    b = make_boundary(tmp_path)
    assert (await b.run(call("read", 1, path="long.py"))).kind == "ok"
    r = await b.run(call("write", 2, path="long.py", content="x1 = 0\n"))
    assert r.kind == "error" and "you have not read lines 501–1200 of long.py" in r.output
    assert "offset=501" in r.output and target.read_text() == body
    assert (await b.run(call("read", 3, path="long.py", offset=1001))).kind == "ok"
    r = await b.run(call("write", 4, path="long.py", content="x1 = 0\n"))
    assert "lines 501–1000" in r.output, r.output
    assert (await b.run(call("read", 5, path="long.py", offset=450, limit=600))).kind == "ok"
    r = await b.run(call("write", 6, path="long.py", content="x1 = 0\n"))
    assert r.kind == "ok", r.output


async def test_text_whose_line_breaks_were_escaped_twice_is_refused(tmp_path: Path) -> None:
    """grok-4-1-fast (OpenClaw's tracker) sent line breaks as a literal backslash-n: the
    file became one line of code with backslashes. Refused, saying so; code holding
    ``\\n`` in a string, a one-line JSON file and a one-line replacement are written."""
    b = make_boundary(tmp_path)
    flat = "def f():\\n    return 1\\n\\nprint(f())\\n"
    r = await b.run(call("write", 1, path="a.py", content=flat))
    assert r.kind == "arg" and "has no line break but 4 literal \\n" in r.output, r.output
    assert not (tmp_path / "a.py").exists()
    code = 'print("a\\nb\\nc\\nd")\n'  # real line break at the end: written as sent
    assert (await b.run(call("write", 2, path="b.py", content=code))).kind == "ok"
    data = '{"text": "a\\nb\\nc\\nd"}'
    assert (await b.run(call("write", 3, path="c.json", content=data))).kind == "ok"
    (tmp_path / "d.py").write_text("x = 1\ny = 2\n")
    r = await b.run(call("replace", 4, path="d.py", old="x = 1\ny = 2", new="x\\ny\\nz\\nw"))
    assert r.kind == "arg" and "`new` has no line break" in r.output
    r = await b.run(call("replace", 5, path="d.py", old="x = 1", new='x = "1\\n2\\n3\\n"'))
    assert r.kind == "ok", r.output  # one line for one line: a string's escapes


async def test_an_absolute_path_from_a_container_is_refused_with_the_workspaces_own(
    tmp_path: Path,
) -> None:
    """Models trained in containers write /testbed/src/app.py or /workspace/… for the
    project's src/app.py: refused as before, now saying which path they likely meant."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x\n")
    b = make_boundary(tmp_path)
    r = await b.run(call("read", 1, path="/testbed/src/app.py"))
    assert r.kind == "error" and "did you mean 'src/app.py'?" in r.output, r.output
    r = await b.run(call("write", 2, path="/workspace/proj/src/new.py", content="y\n"))
    assert r.kind == "error" and "did you mean 'src/new.py'?" in r.output, r.output
    assert not (tmp_path / "src" / "new.py").exists()
    r = await b.run(call("read", 3, path="/etc/hostname"))
    assert r.kind == "error" and "did you mean" not in r.output


async def test_grep_lists_only_the_files_or_counts_as_claude_codes_grep_does(
    tmp_path: Path,
) -> None:
    """Models taught by Claude Code's Grep ask for output_mode (files_with_matches is its
    default), -n and head_limit; each was an unknown argument and a repair round. A broad
    search then lists the files, not every line."""
    (tmp_path / "a.py").write_text("todo = 1\ntodo = 2\n")
    (tmp_path / "b.py").write_text("todo = 3\n")
    (tmp_path / "c.py").write_text("nothing\n")
    b = make_boundary(tmp_path)
    r = await b.run(
        call("grep", 1, pattern="todo", output_mode="files_with_matches", head_limit=20)
    )
    assert r.kind == "ok", r.output
    assert r.output.splitlines() == ["a.py", "b.py", "[2 files, 3 matching lines]"]
    r = await b.run(call("grep", 2, pattern="todo", output_mode="count", **{"-n": True}))
    assert r.output.splitlines() == ["a.py:2", "b.py:1", "[2 files, 3 matching lines]"]
    r = await b.run(call("grep", 3, pattern="todo", output_mode="lines"))
    assert r.kind == "arg" and "must be one of content, files_with_matches, count" in r.output


@pytest.mark.parametrize("ripgrep", [True, False], ids=["ripgrep", "python"])
async def test_grep_type_keeps_a_languages_files_as_ripgrep_names_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ripgrep: bool
) -> None:
    """Claude Code's Grep takes ``type`` ("py", "rust"); its models sent one and got an
    unknown argument, a repair round. Both searchers keep the same files; a name that is
    no language but could be an extension is one; the glob must hold as well."""
    from frontier.tools import search

    monkeypatch.setattr(search.GrepTool, "use_ripgrep", ripgrep)
    for name in ("a.py", "stubs.pyi", "b.js", "lib/c.rs", "Makefile", "d.vue", "e.txt"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("needle\n")
    b = make_boundary(tmp_path)

    def files(output: str) -> list[str]:
        return [line.split(":")[0] for line in output.splitlines() if not line.startswith("[")]

    r = await b.run(call("grep", 1, pattern="needle", type="py"))
    assert r.kind == "ok" and files(r.output) == ["a.py", "stubs.pyi"], r.output
    r = await b.run(call("grep", 2, pattern="needle", type="Rust"))
    assert files(r.output) == ["lib/c.rs"], r.output
    r = await b.run(call("grep", 3, pattern="needle", type="make"))
    assert files(r.output) == ["Makefile"], r.output
    r = await b.run(call("grep", 4, pattern="needle", type="vue"))  # an extension
    assert files(r.output) == ["d.vue"], r.output
    r = await b.run(call("grep", 5, pattern="needle", type="js", glob="d.*"))  # both hold
    assert files(r.output) == ["d.vue"], r.output
    r = await b.run(call("grep", 6, pattern="needle", file_type="python", path="lib"))
    assert r.kind == "ok" and r.output == "no matches for /needle/ in lib", r.output
    r = await b.run(call("grep", 7, pattern="needle", type="*.py"))
    assert r.kind == "arg" and "unknown file type '*.py'" in r.output, r.output


async def test_old_with_straight_quotes_finds_the_files_curly_ones_and_keeps_them(
    tmp_path: Path,
) -> None:
    """Models write ASCII quotes where a file has typographic ones (Copilot CLI #3254: "No
    match found", every prose edit); the edit is found and what `new` keeps of the line
    keeps the file's quotes, while the code the model wrote keeps its own (Claude Code's
    normalisation made them curly: #31863). A change of the quotes alone is refused."""
    doc = tmp_path / "notes.md"
    doc.write_text("Please do not re-examine \u201cwhat repo to change\u201d each time.\n")
    b = make_boundary(tmp_path)
    r = await b.run(
        call(
            "replace", 1, path="notes.md",
            old='re-examine "what repo to change" each time.',
            new='re-examine "what repo to change" each session. Run `grep -E "^a"` first.',
        )
    )  # fmt: skip
    assert r.kind == "ok" and "(its quotes, dashes and spaces read as the file's)" in r.output
    assert doc.read_text() == (
        "Please do not re-examine \u201cwhat repo to change\u201d each session. "
        'Run `grep -E "^a"` first.\n'
    )
    r = await b.run(call("replace", 2, path="notes.md", old="\u201cwhat", new='"what'))
    assert r.kind == "ok", r.output  # copied as the file has it: exact, written as sent
    assert 'Please do not re-examine "what repo' in doc.read_text()
    r = await b.run(
        call("replace", 3, path="notes.md", old='change" each', new="change\u201d each")
    )
    assert r.kind == "error" and "nothing would change" in r.output, r.output
    many = "".join(f"\u201cline {n}\u201d\n" for n in range(1500))
    doc.write_text(many)  # the alignment is quadratic at worst: refused past 2,000 lines
    plain = many.replace("\u201c", '"').replace("\u201d", '"')
    r = await b.run(call("replace", 4, path="notes.md", old=plain, new=plain + "x\n"))
    assert r.kind == "error" and "too long (1501 + 1502 lines)" in r.output, r.output
    assert doc.read_text() == many


async def test_read_of_a_place_reads_the_file_from_there_and_a_glob_names_its_files(
    tmp_path: Path,
) -> None:
    """Models copy `src/a.py:42` from grep's output or a traceback, and write `src/*.py`
    for the files they want: each was "no such file" and a round. A place is read from its
    line (a range to its end); a glob that names no file lists the files it matches."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    (tmp_path / "src" / "b.py").write_text("b\n")
    b = make_boundary(tmp_path)
    r = await b.run(call("read", 1, path="src/a.py:7"))
    assert r.kind == "ok" and r.output.splitlines()[0].endswith("line 7"), r.output
    assert "line 6" not in r.output and "line 10" in r.output
    r = await b.run(call("read", 2, path="src/a.py:3-4"))
    assert "line 3" in r.output and "line 4" in r.output and "line 5" not in r.output
    r = await b.run(call("read", 3, path="src/a.py:8:12"))  # line and column
    assert r.output.splitlines()[0].endswith("line 8"), r.output
    r = await b.run(call("read", 4, path="src/z.py:3"))
    assert r.kind == "error" and "src/z.py:3: no such file" in r.output
    r = await b.run(call("read", 5, path="src/*.py"))
    assert r.kind == "error", r.output
    assert "reads as a glob, matching 2: src/a.py, src/b.py; read each by its path" in r.output
    (tmp_path / "odd.py:2").write_text("a file with that very name\n")
    r = await b.run(call("read", 6, path="odd.py:2"))
    assert "a file with that very name" in r.output


async def test_cursors_and_the_text_editors_line_ranges_and_explanations_are_taken(
    tmp_path: Path,
) -> None:
    """Cursor's tools take an `explanation` with every call and its read_file a range
    (`start_line_one_indexed`, `end_line_one_indexed_inclusive`, `should_read_entire_file`);
    Anthropic's text editor a `view_range`: each an unknown argument and a repair round."""
    (tmp_path / "a.py").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    b = make_boundary(tmp_path)
    why = {"explanation": "to see the function"}
    r = await b.run(
        call(
            "read", 1, target_file="a.py", start_line_one_indexed=3,
            end_line_one_indexed_inclusive=4, should_read_entire_file=False, **why,
        )
    )  # fmt: skip
    shown = [line for line in r.output.splitlines() if "line " in line]
    assert r.kind == "ok" and [line.split()[-1] for line in shown] == ["3", "4"], r.output
    r = await b.run(call("read", 2, path="a.py", view_range=[9, -1]))
    assert [line.split()[-1] for line in r.output.splitlines() if "line " in line] == ["9", "10"]
    r = await b.run(call("read", 3, path="a.py", start_line=5, end_line=5))
    assert [line.split()[-1] for line in r.output.splitlines() if "line " in line] == ["5"]
    r = await b.run(call("read", 4, path="a.py", start_line=5, end_line=2))
    assert r.kind == "arg" and "unknown argument" in r.output  # no such range: said
    for n, (name, args) in enumerate(
        [
            ("grep", {"pattern": "line 1", **why}),
            ("glob", {"pattern": "*.py", **why}),
            ("shell", {"command": "true", **why}),
            ("write", {"path": "b.py", "content": "x\n", **why}),
            ("replace", {"path": "b.py", "old": "x", "new": "y", **why}),
        ],
        10,
    ):
        r = await b.run(call(name, n, **args))
        assert r.kind == "ok", (name, r.output)


async def test_a_commands_timeout_in_milliseconds_is_read_as_seconds(tmp_path: Path) -> None:
    """Claude Code's Bash takes milliseconds; its models sent 120000 to shell: "at most
    3600", a repair round each call. Over the maximum and whole thousands: milliseconds."""
    from frontier.tools.schema import coerce_args

    spec = default_registry().get("shell").spec  # type: ignore[union-attr]
    taken = coerce_args("shell", spec.parameters, {"command": "x", "timeout": 120000})
    assert taken["timeout"] == 120
    b = make_boundary(tmp_path)
    r = await b.run(call("shell", 1, command="echo ok", timeout=120000))
    assert r.kind == "ok" and r.output.startswith("ok"), r.output
    r = await b.run(call("shell", 2, command="echo ok", timeout=3601))
    assert r.kind == "arg" and "3600" in r.output, r.output  # not thousands: an error still


async def test_multiedits_replace_all_is_taken_and_never_widens_an_edit(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 1\nz = 1\n")
    b = make_boundary(tmp_path)
    edits = [{"old_string": "x = 1", "new_string": "x = 2", "replace_all": False}]
    r = await b.run(call("multi", 1, file_path="a.py", edits=edits))
    assert r.kind == "ok", r.output
    edits = [{"old_string": "= 1", "new_string": "= 3", "replace_all": True}]
    r = await b.run(call("multi", 2, file_path="a.py", edits=edits))
    assert r.kind == "error" and "ambiguous" in r.output  # never every one silently
    assert (tmp_path / "a.py").read_text() == "x = 2\ny = 1\nz = 1\n"


async def test_a_file_read_in_part_then_edited_in_part_is_still_not_read_whole(
    tmp_path: Path,
) -> None:
    """A replace in a file read only in part is not a reading of the rest: a write after
    it would still drop the lines never seen."""
    target = tmp_path / "long.py"
    target.write_text("".join(f"x{i} = {i}\n" for i in range(1, 801)))
    b = make_boundary(tmp_path)
    assert (await b.run(call("read", 1, path="long.py"))).kind == "ok"
    assert (
        await b.run(call("replace", 2, path="long.py", old="x1 = 1", new="x1 = 0"))
    ).kind == "ok"
    r = await b.run(call("write", 3, path="long.py", content="x1 = 0\n"))
    assert r.kind == "error" and "you have not read lines 1–800" in r.output, r.output
    (tmp_path / "short.py").write_text("a = 1\nb = 2\n")
    assert (await b.run(call("read", 4, path="short.py"))).kind == "ok"
    assert (await b.run(call("replace", 5, path="short.py", old="a = 1", new="a = 0"))).kind == "ok"
    r = await b.run(call("write", 6, path="short.py", content="a = 0\nb = 3\n"))
    assert r.kind == "ok", r.output  # read whole, edited: known whole


async def test_an_ls_with_claude_codes_ignore_lists_the_folder(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x\n")
    b = make_boundary(tmp_path)
    r = await b.run(call("read", 1, path="src", ignore=["*.pyc"], respect_git_ignore=True))
    assert r.kind == "ok" and r.output.startswith("src/ is a folder"), r.output


async def test_gemini_clis_expected_replacements_is_taken_and_never_widens(
    tmp_path: Path,
) -> None:
    """Gemini CLI's replace says how many it expects: one is what replace does; more is
    an ambiguity error here, never every one silently."""
    (tmp_path / "a.py").write_text("x = 1\ny = 1\nz = 1\n")
    b = make_boundary(tmp_path)
    args = {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}
    r = await b.run(call("replace", 1, **args, expected_replacements=1))
    assert r.kind == "ok", r.output
    args = {"file_path": "a.py", "old_string": "= 1", "new_string": "= 3"}
    r = await b.run(call("replace", 2, **args, expected_replacements=2))
    assert r.kind == "error" and "ambiguous: 2 matches" in r.output, r.output
    assert (tmp_path / "a.py").read_text() == "x = 2\ny = 1\nz = 1\n"


async def test_a_read_from_line_zero_reads_from_the_first(tmp_path: Path) -> None:
    """Gemini CLI's read_file counts lines from 0: offset 0 was an argument error."""
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    r = await make_boundary(tmp_path).run(call("read", 1, absolute_path="a.py", offset=0))
    assert r.kind == "ok" and r.output.startswith("     1\tx = 1"), r.output


async def test_codexs_shell_call_with_workdir_and_timeout_ms_runs(tmp_path: Path) -> None:
    """Codex's models send workdir (often the workspace's own absolute path) and
    timeout_ms with every shell call, and ask to escalate with a justification: each was
    an unknown argument. workdir is a cd the review shows; escalation stays the review's."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.txt").write_text("in src\n")
    b = make_boundary(tmp_path)
    codex = {"timeout_ms": 10_000, "with_escalated_permissions": True, "justification": "ls"}
    r = await b.run(call("shell", 1, command=["bash", "-lc", "cat m.txt"], workdir="src", **codex))
    assert r.kind == "ok" and r.output.startswith("in src"), r.output
    r = await b.run(call("shell", 2, command="pwd", workdir=str(tmp_path)))
    assert r.kind == "ok" and r.output.strip().endswith(tmp_path.name), r.output
    r = await b.run(call("shell", 3, command="pwd", workdir="/etc"))
    assert r.kind == "arg" and "workdir" in r.output and "outside the workspace" in r.output
    r = await b.run(call("shell", 4, command="pwd", workdir="src/m.txt"))
    assert r.kind == "arg" and "is not a folder" in r.output
    from frontier.tools.schema import coerce_args

    spec = default_registry().get("shell").spec  # type: ignore[union-attr]
    taken = coerce_args(
        "shell", spec.parameters, {"command": "x", "timeout_ms": 1500}, aliases=spec.aliases
    )
    assert taken["timeout"] == 2


async def test_codexs_read_file_list_dir_and_grep_files_arguments_are_taken(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    b = make_boundary(tmp_path)
    r = await b.run(
        call("read", 1, file_path="src/a.py", offset=1, limit=10, mode="indentation",
             indentation={"anchor_line": 1})
    )  # fmt: skip
    assert r.kind == "ok" and "x = 1" in r.output, r.output
    r = await b.run(call("read", 2, dir_path="src", depth=2))
    assert r.kind == "ok" and r.output.startswith("src/ is a folder"), r.output
    r = await b.run(call("grep", 3, pattern="x", include="*.py", path="src", limit=5))
    assert r.kind == "ok" and "src/a.py:1:x = 1" in r.output, r.output


async def test_old_indented_with_spaces_is_found_in_a_file_indented_with_tabs(
    tmp_path: Path,
) -> None:
    """Go's tabs, copied by the model as the spaces it saw: every edit of an indented line
    failed (Claude Code #26996). Found with the tabs read as spaces; new written in tabs."""
    go = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
    (tmp_path / "f.go").write_text(go)
    b = make_boundary(tmp_path)
    old = "    if x {\n        return 1\n    }"
    new = "    if x && y {\n        return 2\n    }"
    r = await b.run(call("replace", 1, path="f.go", old=old, new=new))
    assert r.kind == "ok" and "(its indenting spaces read as the file's tabs)" in r.output
    assert (tmp_path / "f.go").read_text() == (
        "func f() {\n\tif x && y {\n\t\treturn 2\n\t}\n\treturn 0\n}\n"
    )
    edits = [{"old": "        return 2", "new": "        return 3"}]
    r = await b.run(call("multi", 2, path="f.go", edits=edits))
    assert r.kind == "ok" and "1 its indenting spaces" in r.output, r.output
    assert "\t\treturn 3\n" in (tmp_path / "f.go").read_text()
    (tmp_path / "s.py").write_text("if x:\n    y = 1\n")  # spaces: never read as tabs
    r = await b.run(call("replace", 3, path="s.py", old="if x:\n  y = 1", new="-"))
    assert r.kind == "error" and "not found" in r.output


async def test_old_not_found_says_which_of_its_lines_differs_and_how(tmp_path: Path) -> None:
    """A model that misremembered one line read the whole file again to find which; the
    error names the line and quotes both (and nothing when its first line is nowhere)."""
    (tmp_path / "a.py").write_text("def g():\n    x = 1\n    y = 2\n    return x + y\n")
    b = make_boundary(tmp_path)
    old = "def g():\n    x = 1\n    y = 3\n    return x + y"
    r = await b.run(call("replace", 1, path="a.py", old=old, new="-"))
    assert r.kind == "error", r.output
    assert (
        "(`old`'s line 1 is line 1 of the file, and its line 3 differs: the file's line 3 "
        "is '    y = 2', `old` has '    y = 3')"
    ) in r.output
    r = await b.run(call("replace", 2, path="a.py", old="zzz\n    x = 1", new="-"))
    assert r.kind == "error" and "differs" not in r.output


def test_the_place_most_of_old_follows_is_the_one_named() -> None:
    """``x = 1`` opens two blocks: the one where more of ``old`` follows is named, an
    indentation that differs is said, and the file's end is not a line."""
    from frontier.tools.replace_match import first_difference

    text = "def g():\n    x = 1\n    y = 2\n\ndef h():\n    x = 1\n    y = 5\n    z = 0\n"
    said = first_difference(text, "    x = 1\n    y = 5\n    z = 1")
    assert said == (
        "`old`'s line 1 is line 6 of the file, and its line 3 differs: the file's line 8 is "
        "'    z = 0', `old` has '    z = 1'"
    )
    said = first_difference(text, "def g():\n  x = 1")
    assert said is not None and "its line 2 is indented otherwise" in said
    said = first_difference(text, "    z = 0\n    w = 1")
    assert said is not None and said.endswith("the file ends before its line 2")


def test_old_that_differs_only_in_its_quotes_is_told_so() -> None:
    """A docs file's typographic quotes, retyped as ASCII by the model: not found, and the
    error says the letters are there and the punctuation is not."""
    from frontier.tools.replace_match import first_difference

    text = "def g():\n    msg = \u201cdon\u2019t\u201d\n    return msg\n"
    said = first_difference(text, '    msg = "don\'t"\n    return msg')
    assert said is not None and said.startswith(
        "`old`'s line 1 is line 2 of the file but for its punctuation"
    )
    assert "copy them as the file has them" in said
    said = first_difference(text, 'def g():\n    msg = "don\'t"')
    assert said is not None and "its line 2 differs" in said and "only in punctuation" in said


async def test_a_file_shown_whole_by_cat_counts_as_read(tmp_path: Path) -> None:
    """Shell-trained models read with `cat FILE` and write with `cat > FILE <<'EOF'`
    (write's call now): the whole-file write of a file never read was refused although
    the model had just seen all of it. A `cat` whose output was exactly the file counts
    as a read; part of it (`| head`), or a file changed since, does not."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.md").write_text("# A\n\nold words\n")
    (tmp_path / "b.md").write_text("one\ntwo\nthree\n")
    b = make_boundary(tmp_path)
    assert (await b.run(call("shell", 1, command="cd pkg && cat a.md"))).kind == "ok"
    r = await b.run(call("write", 2, path="pkg/a.md", content="# A\n\nnew words\n"))
    assert r.kind == "ok", r.output
    assert (await b.run(call("shell", 3, command="cat b.md | head -n 1"))).kind == "ok"
    r = await b.run(call("write", 4, path="b.md", content="1\n"))
    assert r.kind == "error" and "you have not read it" in r.output, r.output
    assert (await b.run(call("shell", 5, command="cat b.md"))).kind == "ok"
    (tmp_path / "b.md").write_text("one\ntwo\nthree\nfour (the person's)\n")
    r = await b.run(call("write", 6, path="b.md", content="1\n"))
    assert r.kind == "error" and "changed since you last read it" in r.output, r.output
    (tmp_path / "pkg" / "c.md").write_text("c\n")  # ``workdir`` (Codex's models send it)
    assert (await b.run(call("shell", 7, command="cat c.md", workdir="pkg"))).kind == "ok"
    r = await b.run(call("write", 8, path="pkg/c.md", content="C\n"))
    assert r.kind == "ok", r.output


async def test_a_file_read_shows_only_as_binary_may_then_be_written_whole(tmp_path: Path) -> None:
    """A whole-file write over a file never read is refused; for a file read cannot show
    as text (Latin-1, binary, an image) the model has seen all it can once it tried, so
    the write goes through then, where it was refused for good, whatever it read."""
    (tmp_path / "old.txt").write_bytes(b"caf\xe9\n")
    (tmp_path / "blob.dat").write_bytes(b"\x00\x01")
    b = make_boundary(tmp_path)
    for n, path in enumerate(("old.txt", "blob.dat"), 1):
        r = await b.run(call("write", n, path=path, content="café\n"))
        assert r.kind == "error" and "you have not read it" in r.output, r.output
        assert (await b.run(call("read", 10 + n, path=path))).kind == "error"
        r = await b.run(call("write", 20 + n, path=path, content="café\n"))
        assert r.kind == "ok", r.output
    assert (tmp_path / "old.txt").read_text() == "café\n"


async def test_a_file_too_large_to_read_is_not_refused_as_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """read refuses a file over its limit, so "read it first" could never be met: such a
    file's whole-file write is left to the review, as before the rule."""
    from frontier.tools import edit

    monkeypatch.setattr(edit, "READ_MAX_FILE", 16)
    (tmp_path / "data.json").write_text('{"rows": [1, 2, 3, 4, 5, 6, 7]}\n')
    b = make_boundary(tmp_path)
    assert (await b.run(call("read", 1, path="data.json"))).kind == "error"
    r = await b.run(call("write", 2, path="data.json", content="{}\n"))
    assert r.kind == "ok", r.output


# ----------------------------------------------------------------------------- append


async def test_append_adds_the_bytes_as_bash_does(tmp_path: Path) -> None:
    """`append` (not offered: made of Kimi's `WriteFile {mode: append}` and of `>>`) adds
    its content byte for byte, as `>>` does: after a CRLF file's last line, after a last
    line without its end, into a new file (its folder made); the person reviews the diff,
    and a denial writes nothing."""
    from test_tools_fakes import Approver

    from frontier.tools.registry import default_registry

    assert "append" not in [s.name for s in default_registry().offered()]
    (tmp_path / "w.txt").write_bytes(b"a\r\nb\r\n")
    (tmp_path / "n.txt").write_bytes(b"no end")
    b = make_boundary(tmp_path)
    assert (await b.run(call("append", 1, path="w.txt", content="c\n"))).kind == "ok"
    assert (tmp_path / "w.txt").read_bytes() == b"a\r\nb\r\nc\n"
    r = await b.run(call("append", 2, path="n.txt", content=" more\n"))
    assert r.kind == "ok" and r.output == "appended to n.txt (6 bytes)", r.output
    assert (tmp_path / "n.txt").read_bytes() == b"no end more\n"
    r = await b.run(call("append", 3, path="logs/today.log", content="one\n"))
    assert r.kind == "ok" and (tmp_path / "logs/today.log").read_text() == "one\n", r.output

    approver = Approver(approve_all=False, reason="no")
    asked = make_boundary(tmp_path, approver=approver)
    r = await asked.run(call("append", 4, path="n.txt", content="never\n"))
    assert r.kind == "denied" and (tmp_path / "n.txt").read_bytes() == b"no end more\n"
    ((_, preview),) = approver.seen
    assert preview.kind == "diff" and preview.files[0].added == 1


async def test_append_is_refused_outside_the_workspace_and_on_utf16(tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("keep\n")
    (tmp_path / "link.txt").symlink_to(outside)
    (tmp_path / "wide.txt").write_bytes("hi\n".encode("utf-16"))
    b = make_boundary(tmp_path)
    for n, path in enumerate(["../" + outside.name, "link.txt", "wide.txt"]):
        r = await b.run(call("append", n, path=path, content="x\n"))
        assert r.kind in ("error", "arg"), (path, r)
    assert outside.read_text() == "keep\n"
    assert (tmp_path / "wide.txt").read_bytes() == "hi\n".encode("utf-16")
