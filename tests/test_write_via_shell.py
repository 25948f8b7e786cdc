"""A file written with a here-document (`cat > PATH <<'EOF'`) or `echo WORDS > PATH` is
`write`'s call
(``tools/write_via_shell.py``): reviewed as a diff, undoable, refused over a file never
read; a command that does anything else stays a command.

The content read is checked against what bash itself writes, case by case.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app.events import ToolCall
from frontier.tools.registry import default_registry
from frontier.tools.write_via_shell import write_in_command

PATCH_ADD = "*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch"

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")

WRITES = [
    "cat > a.py <<'EOF'\nprint('hi')\nx = $HOME `id` \\n\nEOF",  # quoted: as written
    'cat > a.py <<"EOF"\n$not expanded\nEOF\n',
    "cat > a.py <<EOF\nplain text, nothing to expand\nEOF",
    "cat <<'EOF' > src/b.py\ndef f():\n    return 1\nEOF",
    "cat >src/b.py <<'PY'\nEOF inside is text\nPY",
    "cat > a.py <<-'EOF'\n\tindented\n\t\tdeeper\n\tEOF",
    "mkdir -p src/pkg && cat > src/pkg/__init__.py <<'EOF'\nEOF",
    "cat > 'my notes.txt' <<'EOF'\n\n\ntrailing blank lines\n\n\nEOF",
    "  cat > a.py <<'EOF'\nleading spaces on the command\nEOF\n\n",
    'echo "print(1)" > hello.py',
    "echo 'two  spaces'   kept apart > src/out.txt",
    "echo > empty.txt",
    "echo done>a.txt",
    "printf 'line one\\nline two\\n' > lines.txt",  # printf's escapes, as the program writes
    "printf '%s = %d\\n' width 80 height 24 > src/dims.txt",  # the format reused
    'printf "no newline at the end" > open.txt',
    "cd src && printf '\\tTab\\u00e9\\n' > t.txt",
    "printf -- '--flag\\n' > flags.txt",
    "tee a.py <<'EOF'\nprint('tee')\nEOF",  # tee writes the file (and says it on stdout)
    "tee src/b.py > /dev/null <<'EOF'\nquiet\nEOF",
    "tee a.py <<'EOF' >/dev/null\nafter\nEOF",
    "cat <<'EOF' | tee a.py\npiped\nEOF",
    "cat <<EOF | tee src/b.py > /dev/null\npiped quietly\nEOF",
]


@needs_bash
@pytest.mark.parametrize("command", WRITES)
def test_the_content_is_what_bash_writes(tmp_path: Path, command: str) -> None:
    (tmp_path / "src").mkdir()
    found = write_in_command(command, {}, str(tmp_path))
    assert found is not None, command
    path, content = found
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True, timeout=30)
    assert (tmp_path / path).read_text() == content


STAYS = [
    "cat > a.py <<EOF\necho $HOME\nEOF",  # bash expands it
    "cat > a.py <<'EOF'\nx\nEOF\necho done",  # a command after it
    "cat > a.py <<'EOF'\nx\nEOF\nrm -rf src\nEOF",  # bash ends it early, then runs rm
    "mkdir -p other && cat > a.py <<'EOF'\nx\nEOF",  # a folder the file is not in
    "cat > ~/a.py <<'EOF'\nx\nEOF",
    "cat > $OUT <<'EOF'\nx\nEOF",
    "cat > src/*.py <<'EOF'\nx\nEOF",
    "tee a.py b.py <<'EOF'\nx\nEOF",  # two files
    "tee -i a.py <<'EOF'\nx\nEOF",  # another option
    "tee <<'EOF'\nx\nEOF",  # no file: stdout only
    "tee -a <<'EOF'\nx\nEOF",
    "cat <<'EOF' | sudo tee a.py\nx\nEOF",
    "cat <<'EOF' | tee a.py | grep x\nx\nEOF",
    "cat > /etc/passwd <<'EOF'\nx\nEOF",  # outside the workspace
    "rm -rf src && cat > a.py <<'EOF'\nx\nEOF",
    "cat > a.py <<'EOF'\nnever ended",
    "echo -n x > a.py",
    "echo $HOME > a.py",
    "echo a 2> a.py",
    "printf '%s\\n' $HOME > a.py",  # bash expands it
    "printf -v x 'y' > a.py",  # bash's own printf: sets a variable
    "printf '%q\\n' 'a b' > a.py",  # bash's %q quotes otherwise than the program's
    "printf '%-8q|\\n' 'a b' > a.py",
    "printf '%(%Y)T\\n' > a.py",  # bash's only
    "printf '%d\\n' abc > a.py",  # fails: left to bash, which says so
    "printf '%s' * > a.py",  # a glob
    "printf 'a' 2> a.py",
    "echo a > a.py; ls",
    "echo a | tee a.py",
    "echo 'a # b' > a.py",
]


@pytest.mark.parametrize("command", STAYS)
def test_anything_else_stays_a_command(tmp_path: Path, command: str) -> None:
    name, _ = default_registry().meant("shell", {"command": command}, str(tmp_path))
    assert name == "shell"


def test_its_path_is_read_from_the_folder_it_ran_in(tmp_path: Path) -> None:
    (tmp_path / "web" / "src").mkdir(parents=True)
    registry = default_registry()
    write = "cat > app.ts <<'EOF'\nexport {}\nEOF"
    assert registry.meant("shell", {"command": f"cd web && {write}"}, str(tmp_path)) == (
        "write", {"path": "web/app.ts", "content": "export {}\n"}
    )  # fmt: skip
    meant = registry.meant(
        "shell",
        {"command": ["bash", "-lc", write], "workdir": str(tmp_path / "web")},
        str(tmp_path),
    )
    assert meant == ("write", {"path": "web/app.ts", "content": "export {}\n"})
    by_path = f"cat > {tmp_path}/web/app.ts <<'EOF'\nexport {{}}\nEOF"
    assert registry.meant("shell", {"command": by_path}, str(tmp_path))[1] == {
        "path": "web/app.ts", "content": "export {}\n"
    }  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="cat >EOF<'\"-\t\n$`\\x/.&|;mkdir p", max_size=120))
def test_any_command_is_read_without_error(command: str) -> None:
    """The model's command is untrusted: any text is a write or not, never an exception."""
    found = write_in_command(command, {}, "/nonexistent-root")
    assert found is None or isinstance(found[1], str)


LINE = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n\r\x00"), max_size=30)


@needs_bash
@settings(max_examples=40, deadline=None)
@given(
    body=st.lists(LINE, max_size=6),
    quote=st.sampled_from(["'", '"', ""]),
    strip=st.booleans(),
)
def test_whatever_the_body_bash_writes_what_was_read(
    tmp_path_factory: pytest.TempPathFactory, body: list[str], quote: str, strip: bool
) -> None:
    """Random bodies (any characters: `$`, backquotes, tabs, quotes, the delimiter's
    letters), each quoting style, `<<-` or not: when the command is read as a write, the
    file bash writes holds exactly the content read; when it is not, it stays a command."""
    ws = tmp_path_factory.mktemp("ws")
    command = (
        f"cat > out.txt <<{'-' if strip else ''}{quote}EOF{quote}\n"
        + "".join(line + "\n" for line in body)
        + ("\tEOF" if strip else "EOF")
    )
    found = write_in_command(command, {}, str(ws))
    if found is None:
        return
    subprocess.run(["bash", "-c", command], cwd=ws, check=True, timeout=30)
    assert (ws / found[0]).read_text(encoding="utf-8", errors="surrogateescape") == found[1]


APPENDS = [
    "cat >> .gitignore <<'EOF'\n.env\n.venv/\nEOF",
    "printf '%s\\n' .env .venv/ >> .gitignore",
    "echo .env.local >> .gitignore",
    "cat >> notes.md <<'EOF'\nnew file made by >>\nEOF",  # missing: made, as >> does
    "echo first >> empty.txt",
    "cat >> twice.txt <<'EOF'\nd\nEOF",  # its tail also earlier in the file
    "tee -a .gitignore <<'EOF'\n.cache/\nEOF",
    "cat <<'EOF' | tee --append .gitignore > /dev/null\nbuild/\nEOF",
]


@needs_bash
@pytest.mark.parametrize("command", APPENDS)
async def test_an_append_is_the_patch_bash_would_write(tmp_path: Path, command: str) -> None:
    """`cat >> F <<'EOF'` / `echo … >> F` had no review and no undo: the call is the patch
    appending the lines (or, F missing, the write that makes it). The file the tool
    writes is the file bash writes."""
    from test_tools_fakes import make_boundary

    def fresh(root: Path) -> None:
        (root / ".gitignore").write_text("node_modules/\n*.pyc\ndist/\n")
        (root / "empty.txt").write_text("")
        (root / "twice.txt").write_text("a\nb\nc\na\nb\nc\n")

    by_bash, by_tool = tmp_path / "bash", tmp_path / "tool"
    for root in (by_bash, by_tool):
        root.mkdir()
        fresh(root)
    subprocess.run(["bash", "-c", command], cwd=by_bash, check=True, timeout=30)
    name, args = default_registry().meant("shell", {"command": command}, str(by_tool))
    assert name in ("apply_patch", "write"), (name, args)
    result = await make_boundary(by_tool).run(ToolCall("c1", name, dict(args)))
    assert result.ok, result.output
    for path in by_bash.iterdir():
        assert (by_tool / path.name).read_bytes() == path.read_bytes(), path.name


def test_an_append_it_cannot_make_a_patch_of_stays_a_command(tmp_path: Path) -> None:
    (tmp_path / "open.txt").write_text("no line break at the end")
    (tmp_path / "big.log").write_bytes(b"x\n" * (2 * 1024 * 1024 + 1))  # over 4 MiB
    for command in ("echo $HOME >> open.txt", "cat >> a.txt <<'EOF'\nx\nEOF\nls",
                    "echo x >> big.log"):  # fmt: skip
        assert default_registry().meant("shell", {"command": command}, str(tmp_path))[0] == (
            "shell"
        ), command


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
async def test_an_append_no_patch_can_say_is_append_s_call_with_bash_s_bytes(
    tmp_path: Path,
) -> None:
    """A CRLF file, one whose last line has no end, one not UTF-8: `>>` on them was a
    command (no review, no undo); it is `append`'s call now, writing what bash writes."""
    from test_tools_fakes import make_boundary

    files = {"crlf.txt": b"a\r\n", "open.txt": b"no line break at the end", "blob.bin": b"\x00\xff"}
    by_bash = tmp_path / "bash"
    by_us = tmp_path / "us"
    for root in (by_bash, by_us):
        root.mkdir()
        for name, data in files.items():
            (root / name).write_bytes(data)
    boundary = make_boundary(by_us)
    for n, name in enumerate(files):
        command = f"echo x >> {name}"
        subprocess.run(["bash", "-c", command], cwd=by_bash, check=True)
        meant, args = default_registry().meant("shell", {"command": command}, str(by_us))
        assert meant == "append", command
        result = await boundary.run(ToolCall(f"c{n}", meant, args))
        assert result.kind == "ok", result
        assert (by_us / name).read_bytes() == (by_bash / name).read_bytes(), name


@pytest.mark.parametrize(
    "command",
    ["echo x >> notes.txt", "rm notes.txt", "mv a.txt b.txt", "cat > f.txt <<'EOF'\nx\nEOF",
     f"cd pkg && apply_patch <<'EOF'\n{PATCH_ADD}\nEOF", "cat /etc/hostname > /x/y"],
)  # fmt: skip
def test_with_the_workspace_gone_a_shell_call_stays_a_command(tmp_path: Path, command: str) -> None:
    """The workspace moved away mid-session: reading a shell call as a file tool's must
    not raise (the loop would fail the turn); it stays a command, which the tool boundary
    then refuses as it refuses every call in a replaced workspace."""
    gone = tmp_path / "moved-away"
    name, _ = default_registry().meant("shell", {"command": command}, str(gone))
    assert name in ("shell", "write"), name  # a new file by its relative name needs no look


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *"rmvcatecho >-<'\"\n\t&;|$.*/",
                "EOF",
                "a.txt",
                "d/",
                "cd ",
                "mkdir -p ",
                "git apply ",
                "rm -r ",
                "cp ",
                "tee ",
                "-a ",
                "sed -i ",
                "s/a/b/ ",
                ".",
            ]
        ),
        max_size=40,
    ).map("".join)
)
def test_reading_any_shell_call_never_raises(command: str) -> None:
    """Every reading of a shell call as a file tool's (patch, write, append, rm, rm -r,
    mv, cp, sed, git apply, tee) on any text, against a real workspace: a call or a
    command, never an exception."""
    root = Path(__file__).parent / "examples"
    name, args = default_registry().meant("shell", {"command": command}, str(root))
    assert name in ("shell", "write", "apply_patch", "append", "remove")
    assert isinstance(args, Mapping)


PIECES = ["%s", "%d", "\\n", "\\t", "x", " ", "%5s", "%-3s|", "%%", "\\\\", "%c", "%x",
          "%05.1f", "\\u00e9", "%b", "'"]  # fmt: skip
ARGS = ["a", "12", "-3", "b c", "0x1f", "1.5", "", "\\n", "é"]


@needs_bash
@settings(max_examples=60, deadline=None)
@given(
    fmt=st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join),
    given_args=st.lists(st.sampled_from(ARGS), max_size=4),
)
def test_whatever_printf_is_given_the_file_holds_what_bash_writes(
    tmp_path_factory: pytest.TempPathFactory, fmt: str, given_args: list[str]
) -> None:
    """Random formats and arguments: when `printf … > out.txt` is read as a write, the
    content is what bash's own printf writes there (the program run to say it is not
    bash's builtin); when it is not read so, it stays a command."""
    ws = tmp_path_factory.mktemp("printf")
    command = " ".join(["printf", shlex.quote(fmt), *map(shlex.quote, given_args), "> out.txt"])
    found = write_in_command(command, {}, str(ws))
    if found is None:
        return
    subprocess.run(["bash", "-c", command], cwd=ws, timeout=30, check=False)
    assert found[0] == "out.txt"
    assert (ws / "out.txt").read_bytes() == found[1].encode(), command


EMPTIES = ["> app.log", ": > app.log", "true >app.log", "cat /dev/null > app.log",
           "truncate -s 0 app.log", "truncate --size=0 app.log", "printf '' > app.log",
           "> new.log", "truncate -s 0 new.log", "cd logs && > today.log"]  # fmt: skip


@needs_bash
@pytest.mark.parametrize("command", EMPTIES)
async def test_a_file_emptied_is_the_patch_taking_its_lines_out(
    tmp_path: Path, command: str
) -> None:
    """`> app.log` (and its kin) emptied a file for good, unasked under auto-edit (`>` is
    not judged as destroying work): it is the patch taking every line out — reviewed,
    undoable, and not refused as a whole-file write over a file the model never read,
    which emptying a log is for. A file not there is made, empty (as bash makes it)."""
    from test_tools_fakes import make_boundary

    by_bash, by_tool = tmp_path / "bash", tmp_path / "tool"
    for root in (by_bash, by_tool):
        (root / "logs").mkdir(parents=True)
        (root / "app.log").write_text("started\nserving on :8000\n")
        (root / "logs" / "today.log").write_text("one\n")
    subprocess.run(["bash", "-c", command], cwd=by_bash, check=True, timeout=30)
    name, args = default_registry().meant("shell", {"command": command}, str(by_tool))
    assert name in ("apply_patch", "write"), command
    result = await make_boundary(by_tool).run(ToolCall("c1", name, dict(args)))
    assert result.ok, result.output
    for path in sorted(by_bash.rglob("*")):
        if path.is_file():
            mine = by_tool / path.relative_to(by_bash)
            assert mine.read_bytes() == path.read_bytes(), path


@pytest.mark.parametrize(
    "command", ["> app.log; ls", "truncate -s 10 app.log", "> $F", "truncate -c -s 0 app.log",
                "> a.log > b.log", "> /etc/motd"],
)  # fmt: skip
def test_anything_else_emptying_stays_a_command(tmp_path: Path, command: str) -> None:
    (tmp_path / "app.log").write_text("x\n")
    assert default_registry().meant("shell", {"command": command}, str(tmp_path))[0] == "shell"
