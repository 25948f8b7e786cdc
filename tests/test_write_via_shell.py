"""A file written with a here-document (`cat > PATH <<'EOF'`) or `echo WORDS > PATH` is
`write`'s call
(``tools/write_via_shell.py``): reviewed as a diff, undoable, refused over a file never
read; a command that does anything else stays a command.

The content read is checked against what bash itself writes, case by case.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.tools.registry import default_registry
from frontier.tools.write_via_shell import write_in_command

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
    "cat >> a.py <<'EOF'\nappended\nEOF",  # append, not a write
    "cat > a.py <<EOF\necho $HOME\nEOF",  # bash expands it
    "cat > a.py <<'EOF'\nx\nEOF\necho done",  # a command after it
    "cat > a.py <<'EOF'\nx\nEOF\nrm -rf src\nEOF",  # bash ends it early, then runs rm
    "mkdir -p other && cat > a.py <<'EOF'\nx\nEOF",  # a folder the file is not in
    "cat > ~/a.py <<'EOF'\nx\nEOF",
    "cat > $OUT <<'EOF'\nx\nEOF",
    "cat > src/*.py <<'EOF'\nx\nEOF",
    "tee a.py <<'EOF'\nx\nEOF",
    "cat > /etc/passwd <<'EOF'\nx\nEOF",  # outside the workspace
    "rm -rf src && cat > a.py <<'EOF'\nx\nEOF",
    "cat > a.py <<'EOF'\nnever ended",
    "echo -n x > a.py",
    "echo $HOME > a.py",
    "echo a >> a.py",
    "echo a 2> a.py",
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
