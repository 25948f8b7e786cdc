"""A plain `sed -i` is the patch tool's call (``tools/sed_via_shell.py``): reviewed as a
diff, written atomically, undoable; the file written is the file `sed -i` writes, checked
against GNU sed itself, case by case and on random files and scripts. Anything else stays a
command.
"""

from __future__ import annotations

import glob
import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tools_fakes import make_boundary

from frontier.app.events import ToolCall
from frontier.tools import sed_via_shell
from frontier.tools.registry import default_registry
from frontier.tools.sed_via_shell import sed_patch
from frontier.tools.shell_words import bash_words

GNU_SED = shutil.which("sed") is not None and (
    subprocess.run(["sed", "--sandbox", "-e", "p"], input=b"", capture_output=True).returncode == 0
)
needs_gnu_sed = pytest.mark.skipif(not GNU_SED, reason="GNU sed (with --sandbox) is not here")

APP = 'import os\nDEBUG = True\nname = "foo"\n\ndef foo():\n    return foo\n'
FILES = {
    "app.py": APP,
    "src/util.py": "def foo(x):\n    return x  # foo\n",
    "my notes.txt": "first\nsecond\n",
    "open.txt": "no line break at the end",
    "crlf.txt": "one\r\ntwo\r\n",
    "crlf_open.txt": "one\r\ntwo",
    "unicode.md": "# Überschrift\ncafé → thé\n",
}

EDITS = [
    "sed -i 's/DEBUG = True/DEBUG = False/' app.py",
    "sed -i -E 's/foo(\\(\\))?/bar\\1/g' app.py src/util.py",
    "sed -Ei 's/(def) (\\w+)/\\1 new_\\2/' app.py",
    "sed --in-place --expression='s/o/0/2' src/util.py",
    "sed -i -e '/^$/d' -e 's/os/sys/' app.py",
    "sed -i '1i # header' app.py",
    "sed -i '$a # footer' app.py",
    "sed -i '3,4d' app.py",
    "sed -n -i '2p' app.py",
    "sed -i 's/$/;/' open.txt",
    "sed -i 's/é/e/g' unicode.md",
    "sed -i \"s/second/2nd/\" 'my notes.txt'",
    "sed -i ':a;N;$!ba;s/\\n/ /g' app.py",
    "sed -i 'y/abc/xyz/' app.py",
    "cd src && sed -i 's/x/y/g' util.py",
    "sed -i 's/foo/bar/' -- app.py",
    "sed 's/foo/bar/' -i app.py",
    "sed -i 's/foo/bar/g' *.py src/*.py",  # globs, expanded as bash does
    "sed -i 's/x/X/' src/util.p?",
    "sed -i 's/é/e/' 'unicode'*",
    "sed -i 's/one/1/' crlf.txt",  # CRLF line ends kept
    "sed -i 's/two/2/' crlf_open.txt",  # and a last line without its end
]


def workspace(root: Path) -> None:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@needs_gnu_sed
@pytest.mark.parametrize("command", EDITS)
async def test_the_file_written_is_the_file_sed_writes(tmp_path: Path, command: str) -> None:
    """Each edit, run by bash in one copy and as the patch tool's call in another: the
    workspaces end byte for byte the same (a file sed leaves alone too)."""
    by_sed, by_tool = tmp_path / "sed", tmp_path / "tool"
    for root in (by_sed, by_tool):
        root.mkdir()
        workspace(root)
    subprocess.run(["bash", "-c", command], cwd=by_sed, check=True, timeout=30)
    name, args = default_registry().meant("shell", {"command": command}, str(by_tool))
    assert name == "apply_patch", command
    result = await make_boundary(by_tool).run(ToolCall("c1", name, dict(args)))
    assert result.ok, result.output
    assert tree(by_tool) == tree(by_sed)


STAYS = [
    "sed -i 's/a/b/' *.rs",  # a glob that matches nothing: sed's error
    "sed -i 's/a/b/' src/*",  # a folder among what it matches
    "sed -i 's/a/b/' [a]pp.py",  # a bracket: bash's to expand
    "sed -i s/a*/b/ app.py",  # bash would glob the script
    "sed -i 's/a/b/' /etc/host*",
    "sed -i 's/x/y/' */util.py",  # a walk of folders, left to bash
    "sed -ie 's/a/b/' app.py",  # -i with suffix e: a backup file appe.py
    "sed -i.bak 's/a/b/' app.py",
    "sed --in-place=.orig 's/a/b/' app.py",
    "sed -i 's/zzz/b/' app.py",  # changes nothing
    "sed -i 's/a/b/w out.txt' app.py",  # writes a file: sed --sandbox refuses it
    "sed -i '1e id' app.py",  # runs a command
    "sed -i 's/a/b/' app.py; cat app.py",
    "sed -i 's/a/b/' app.py > log.txt",
    'sed -i "s/a/$HOME/" app.py',
    "sed -i 's/a/b/' ~/app.py",
    "sed -i 's/a/b/' app.py app.py",  # edits it twice
    "sed -i 's/a/b/' missing.py",
    "sed -i 's/a/b/' link.py",
    "sed -i 's/a/b/' blob.bin",
    "sed -i 's/$/\\r/' src/util.py",  # CR added to an LF file: the engine would write LF
    "sed -i 's/a/b/' /etc/hostname",
    "sed -i -f edits.sed app.py",
    "sed -i -z 's/a/b/' app.py",
    "sed 's/foo/bar/' app.py",  # no -i: a read
    "sed -i 's/foo/bar' app.py",  # sed refuses the script
    "sed -i app.py",  # only a script, no file
    "sed -i 's/a/b/' src",  # a folder
    "sed -i 's/a/b/'\napp.py",
    "sudo sed -i 's/a/b/' app.py",
]


@needs_gnu_sed
@pytest.mark.parametrize("command", STAYS)
def test_anything_else_stays_a_command(tmp_path: Path, command: str) -> None:
    workspace(tmp_path)
    (tmp_path / "link.py").symlink_to("app.py")
    (tmp_path / "crlf.txt").write_bytes(b"a\r\n")
    (tmp_path / "blob.bin").write_bytes(b"a\xff\xfe\n")
    (tmp_path / "edits.sed").write_text("s/a/b/\n")
    before = tree(tmp_path)
    assert default_registry().meant("shell", {"command": command}, str(tmp_path))[0] == "shell"
    assert tree(tmp_path) == before  # reading it wrote nothing


@needs_gnu_sed
def test_a_script_that_never_ends_stays_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`:a;ba` loops for ever: sed is stopped and the call is left to the shell tool,
    whose own timeout bounds it as before."""
    workspace(tmp_path)
    monkeypatch.setattr(sed_via_shell, "SECONDS", 0.3)
    assert sed_patch("sed -i ':a;ba' app.py", {}, str(tmp_path)) is None


@needs_gnu_sed
def test_an_edit_that_grows_without_bound_stays_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Output past what a kept file may hold: sed is stopped, nothing is kept in memory
    beyond it."""
    workspace(tmp_path)
    monkeypatch.setattr(sed_via_shell, "KEPT_MAX", 4096)
    assert (
        sed_patch(
            "sed -i 's/.*/&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&/;h;G;G;G;G' app.py", {}, str(tmp_path)
        )
        is None
    )


@needs_gnu_sed
def test_its_files_are_read_from_the_folder_it_ran_in(tmp_path: Path) -> None:
    workspace(tmp_path)
    patch = sed_patch("sed -i 's/x/y/' util.py", {"workdir": str(tmp_path / "src")}, str(tmp_path))
    assert patch is not None and patch.startswith("--- a/src/util.py\n+++ b/src/util.py\n")
    assert sed_patch("sed -i 's/x/y/' util.py", {"workdir": "/etc"}, str(tmp_path)) is None


WORDS = ["sed", "-i", " ", "'s/a/b/'", '"x y"', "a\\ b", "$HOME", "`id`", "*", "~", ";", "|",
         ">", "#", "'$'", '"$"', "{a,b}", "'", '"', "\\", "(", "x=1", "-e", "\t", "a?",
         "'*'", '"\\$"', '"\\x"', "[ab]", "#x", "src/", ".*"]  # fmt: skip


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=8).map("".join))
def test_a_line_read_as_plain_is_split_and_globbed_by_bash_as_read(
    tmp_path_factory: pytest.TempPathFactory, line: str
) -> None:
    """Whenever a line is read as plain words, bash (printing its words, in a folder of
    files a glob may match) makes exactly those words, each glob expanded as read: sorted
    matches, or the word itself when nothing matches."""
    words = bash_words(line)
    if words is None:
        return
    root = tmp_path_factory.mktemp("glob")
    for name in ("a1", "ab", "sed", "x y", ".hidden", "src/a.py"):
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text("")
    shown = subprocess.run(
        ["bash", "-c", f"printf '%s\\0' {line}"],
        cwd=root, capture_output=True, timeout=30, check=True, env={"LC_ALL": "C"},
    ).stdout  # fmt: skip
    expected: list[str] = []
    for word in words:
        matched = sorted(glob.glob(word.pattern, root_dir=root)) if word.pattern else []
        expected += matched or [word.text]
    assert shown.split(b"\0")[:-1] == [w.encode() for w in expected] or (
        not words and shown == b"\0"
    )


LINES = st.lists(st.sampled_from(["foo", "bar baz", "", "  indent foo", "x=1", "é"]), max_size=8)
SCRIPTS = st.sampled_from(
    [
        "s/foo/qux/",
        "s/o/0/g",
        "/^$/d",
        "s/^/> /",
        "2d",
        "$d",
        "1i top",
        "s/a\\|b/X/g",
        "/bar/,/x/d",
        "s/$/ ;/",
        "n;d",
        "G",
        "N;P;D",
        "$!N;s/\\n/+/",
    ]
)


def uniform(text: str) -> bool:
    """Every line ended the same way (LF, or CRLF), and no CR but in a CRLF."""
    ended = text.split("\n")[:-1]
    crlf = bool(ended) and ended[0].endswith("\r")
    bare = [line[:-1] if crlf else line for line in ended] + [text.split("\n")[-1]]
    return all(line.endswith("\r") == crlf for line in ended) and "\r" not in "".join(bare)


@needs_gnu_sed
@settings(max_examples=60, deadline=None)
@given(
    lines=LINES,
    last=st.sampled_from(["", "\n", "\r\n"]),
    scripts=st.lists(SCRIPTS, min_size=1, max_size=3),
    end=st.sampled_from(["\n", "\r\n"]),
)
def test_on_random_files_and_scripts_the_patch_writes_what_sed_writes(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    last: str,
    scripts: list[str],
    end: str,
) -> None:
    """Random files (LF, CRLF or mixed line ends, a last line with or without its end) and
    scripts: when the call is read as a patch, applying it gives sed's file exactly; when
    the engine would not write sed's bytes (mixed line ends it reads as the other kind),
    it stays a command. A uniform file always becomes the patch."""
    text = end.join(lines) + (last if lines else "")
    by_sed, by_tool = tmp_path_factory.mktemp("sed"), tmp_path_factory.mktemp("tool")
    for root in (by_sed, by_tool):
        (root / "f.txt").write_text(text)
    command = "sed -i " + " ".join(f"-e {shlex.quote(s)}" for s in scripts) + " f.txt"
    subprocess.run(["bash", "-c", command], cwd=by_sed, check=True, timeout=30)
    name, args = default_registry().meant("shell", {"command": command}, str(by_tool))
    if (by_sed / "f.txt").read_bytes() == text.encode():
        assert name == "shell"  # nothing changed: left to run as it was
        return
    if name == "shell" and not (uniform(text) and uniform((by_sed / "f.txt").read_text())):
        return  # checked and left a command: it runs as it did
    assert name == "apply_patch", (command, text)
    from frontier.tools.patch_engine import apply_patch

    apply_patch(str(by_tool), args["patch"])
    assert (by_tool / "f.txt").read_bytes() == (by_sed / "f.txt").read_bytes()


@needs_gnu_sed
def test_an_edit_of_many_lines_stays_a_command(tmp_path: Path) -> None:
    """The patch is the model's call in every later request: `s/ = / := /` over 1,000
    lines would be ~40 KB of context where the command was a line. Past 400 changed
    lines it stays a command; a few lines of the same file are a patch."""
    (tmp_path / "big.py").write_text("".join(f"v_{i} = {i}\n" for i in range(1000)))
    assert sed_patch("sed -i 's/ = / := /' big.py", {}, str(tmp_path)) is None
    assert sed_patch("sed -i '1,150s/ = / := /' big.py", {}, str(tmp_path)) is not None
    assert sed_patch("sed -i '1,250s/ = / := /' big.py", {}, str(tmp_path)) is None
    assert sed_patch("sed -i '1,300d' big.py", {}, str(tmp_path)) is not None


@needs_gnu_sed
@pytest.mark.parametrize(
    "script", ["1e touch {m}", "s/a/b/e touch {m}", "1w {m}", "s/a/b/w {m}", "1r {m}", "1W {m}"]
)
def test_sed_run_to_read_the_edit_runs_nothing_and_writes_nothing(
    tmp_path: Path, script: str
) -> None:
    """The script is the model's: sed's `e` runs a command, `w` writes a file. Reading
    the edit runs sed with --sandbox, which refuses them: nothing ran, nothing was
    written, and the call stays a command (run in the sandbox, as any)."""
    workspace(tmp_path)
    marker = tmp_path / "marker"
    command = f"sed -i '{script.format(m=marker)}' app.py"
    assert default_registry().meant("shell", {"command": command}, str(tmp_path))[0] == "shell"
    assert not marker.exists()


_FUZZ_ROOT: list[Path] = []


def fuzz_root(factory: pytest.TempPathFactory) -> Path:
    """One workspace for every example: a git repository with a committed file changed,
    a deleted one, CRLF and binary files."""
    if not _FUZZ_ROOT:
        root = factory.mktemp("fuzz")
        workspace(root)
        (root / "blob.bin").write_bytes(b"\x00\xff")
        if shutil.which("git"):
            env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "t",
                   "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                   "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
            for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "c"]):
                subprocess.run(["git", *argv], cwd=root, env=env, check=True, timeout=60)
            (root / "app.py").write_text("changed\n")
            (root / "open.txt").unlink()
        _FUZZ_ROOT.append(root)
    return _FUZZ_ROOT[0]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["sed ", "-i ", "-E ", "-n ", "-e ", "'s/a/b/' ", "'s/$/x/g' ", "':a;ba' ",
             "app.py ", "*.py ", "src/*.py ", "crlf.txt ", "blob.bin ", "-- ", "git ",
             "checkout ", "restore ", "--staged ", ". ", "printf ", "'%s\\n' ", "> ", ">> ",
             "out.txt", "\"$x\" ", "&& ", "; ", "cd src && ", "'", '"', "\\", "\n", "-ie "]
        ),
        max_size=12,
    ).map("".join)
)  # fmt: skip
def test_reading_any_sed_git_or_printf_call_never_raises(
    tmp_path_factory: pytest.TempPathFactory, command: str
) -> None:
    """The model's command is untrusted: whatever the words, reading it (sed run with
    --sandbox, git, printf) gives a call or leaves a command, never an exception, and
    writes nothing."""
    root = fuzz_root(tmp_path_factory)
    before = tree(root)
    name, args = default_registry().meant("shell", {"command": command}, str(root))
    assert name in ("shell", "write", "apply_patch") and isinstance(args, Mapping)
    assert tree(root) == before
