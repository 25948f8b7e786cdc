"""Commands that destroy work no undo brings back are asked under auto-edit even inside
the sandbox (``tools/destructive.py``, ``tools/policy.py``).

Inside the sandbox ``--approval auto-edit`` ran every command unasked, and the sandbox
lets a command delete anything in the workspace: a model "cleaning up" with ``rm -rf
src`` or ``git clean -fdx`` took the person's uncommitted work, and nothing kept it.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sandbox_policy import NOBODY, SHELL, Person, active

from frontier.app.events import ToolCall
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Decision, Preview, ToolContext, ToolSpec
from frontier.tools.destructive import destroys, simple_commands
from frontier.tools.policy import PolicyApprover
from frontier.tools.process import ShellTool
from frontier.tools.registry import default_registry

MADE = "runs a program made only when it runs, which may delete files"

DESTROYS = [
    ("rm -rf src", "`rm -rf src` deletes files"),
    ("cd web && rm -rf src/components", "`rm -rf src/components` deletes files"),
    ("rm -r -f ./lib", "`rm -r -f ./lib` deletes files"),
    ("/bin/rm --recursive docs", "`/bin/rm --recursive docs` deletes files"),
    ("sudo -u root rm -rf /", "`rm -rf /` deletes files"),
    ("FOO=1 env -i X=2 timeout 5 rm -rf src", "`rm -rf src` deletes files"),
    ("ls | xargs -n1 rm -rf", "`rm -rf` deletes files"),
    ("echo $(rm -rf x)", "`rm -rf x` deletes files"),
    ("echo `rm -rf y`", "`rm -rf y` deletes files"),
    ("bash -lc 'cd x && rm -rf ../src'", "`rm -rf ../src` deletes files"),
    ("rm -rf node_modules/../src", "`rm -rf node_modules/../src` deletes files"),
    ('rm -rf "$OUT"', "`rm -rf $OUT` deletes files"),
    ("rm -rf ~/project", "`rm -rf ~/project` deletes files"),
    ('rm -f "unclosed', "`rm -f unclosed` deletes files"),
    ("git clean -fdx", "`git clean -fdx` deletes untracked files"),
    ("git -C sub clean -f", "`git -C sub clean -f` deletes untracked files"),
    ("git reset --hard HEAD~1", "`git reset --hard HEAD~1` discards uncommitted changes"),
    ("git checkout -- .", "`git checkout -- .` discards uncommitted changes"),
    ("git checkout .", "`git checkout .` discards uncommitted changes"),
    ("git restore src/a.py", "`git restore src/a.py` discards uncommitted changes"),
    ("git stash drop", "`git stash drop` discards stashed changes"),
    ("git rm old.py", "`git rm old.py` deletes files"),
    ("find . -name '*.bak' -delete", "`find . -name *.bak -delete` deletes the files it finds"),
    ("find src -exec rm {} +", "`find src -exec rm {} +` deletes the files it finds"),
    ("shred secrets.txt", "`shred secrets.txt` destroys files"),
    ("bash <<'EOF'\ncd src\nrm -rf lib\nEOF", "`rm -rf lib` deletes files"),  # its script
    ("eval 'rm -rf src'", "`rm -rf src` deletes files"),
    # a name the shell joins from pieces (stop 62: not seen, so it ran unasked)
    ("r''m -rf src", "`rm -rf src` deletes files"),
    ('r""m -rf src', "`rm -rf src` deletes files"),
    ("r\\m -rf src", "`rm -rf src` deletes files"),
    ("g''it clean -fdx", "`git clean -fdx` deletes untracked files"),
    # a name the script keeps in a variable (stop 63: not seen, so it ran unasked)
    ("x=rm; $x -rf src", "`rm -rf src` deletes files"),
    ('RM="rm -rf"; $RM src', "`rm -rf src` deletes files"),
    ("export G=git\n${G} clean -fdx", "`git clean -fdx` deletes untracked files"),
    ("x=rm; sudo $x -rf src", "`rm -rf src` deletes files"),
    ("x=echo; x=rm; $x -rf src", "`rm -rf src` deletes files"),
    # a program made only when the command runs (stop 66: each ran unasked under auto-edit)
    ("$(printf rm) -rf src", "`$(printf rm) -rf src` " + MADE),
    ("`echo rm` -rf src", "``echo rm` -rf src` " + MADE),
    ("$'\\x72m' -rf src", "`$\\x72m -rf src` " + MADE),
    ("x=r; ${x}m -rf src", "`${x}m -rf src` " + MADE),
    ("$RM -rf src", "`$RM -rf src` " + MADE),
    ("sudo $(which rm) -rf src", "`$(which rm) -rf src` " + MADE),
    ("ls | $(printf rm) -rf src", "`$(printf rm) -rf src` " + MADE),
    ('echo "$($(printf rm) -rf src)"', "`$(printf rm) -rf src` " + MADE),
    ("x=$(printf rm); $x -rf src", "`$x -rf src` " + MADE),
    (
        'eval "$(echo cm0gLXJmIHNyYw== | base64 -d)"',
        "`eval '$(echo cm0gLXJmIHNyYw== | base64 -d)'` runs code made only when it runs, "
        "which may delete files",
    ),
    (
        "python3 - <<'EOF'\nimport shutil\nshutil.rmtree('src')\nEOF",
        "`shutil.rmtree('src')` deletes a folder and everything in it",
    ),
    (
        "python -c 'import shutil; shutil.rmtree(\"build2\")'",
        "`python -c 'import shutil; shutil.rmtree(\"build2\")'` deletes a folder and "
        "everything in it",
    ),
]

KEPT = [
    "rm scratch.txt",  # one named file: how models remove what they made
    "rm -rf node_modules && npm install",
    "rm -rf build/ dist/ *.egg-info __pycache__",
    "rm -rf /tmp/frontier-test",
    "find . -name '*.py' | xargs grep -n TODO",
    "git reset HEAD~1",
    "git restore --staged a.py",
    "git checkout -b feature",
    "git clean -n",
    "git rm --cached secrets.env",
    "git stash",
    "echo 'rm -rf /' > notes.txt",
    "cat > setup.sh <<'EOF'\nrm -rf build\nrm -rf /\nEOF\nchmod +x setup.sh",
    "grep -rn 'git reset --hard' docs  # rm -rf in a comment",
    "python -c 'import shutil'",
    "make clean",
    'RM="rm -rf"; $RM build dist',  # what a build makes again, read through the variable
    "PY=python3; $PY -m pytest -x",
    "x=rm; echo $x -rf src",
    # run-time words that are not the program
    "echo $HOME && ls $(pwd)",
    "cd $(git rev-parse --show-toplevel) && make test",
    "for f in *.py; do python $f; done",
    "x=$(date); echo $x `date`",
    "export PATH=$HOME/bin:$PATH && pytest -q",
    'git log --format="%H $x" | head',
]


@pytest.mark.parametrize(("command", "said"), DESTROYS)
def test_a_command_that_destroys_work_is_named(command: str, said: str) -> None:
    assert destroys(command) == said


@pytest.mark.parametrize("command", KEPT)
def test_a_command_that_keeps_the_persons_work_is_not(command: str) -> None:
    assert destroys(command) is None


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="rm -fgitclean;&|()$`'\"\\\n<EOF>*./~x={}", max_size=200))
def test_any_text_is_read_without_error(script: str) -> None:
    """A model's command is untrusted: any text is judged (or not), never an exception."""
    result = destroys(script)
    assert result is None or isinstance(result, str)
    for words in simple_commands(script):
        assert words


@settings(max_examples=300, deadline=None)
@given(
    value=st.sampled_from(["rm", "rm -rf", "rm -r -f", "git clean -fdx", "git", "echo", "ls -la"]),
    args=st.sampled_from(["src", "-rf src", "-rf build dist", "clean -f", "reset --hard", ""]),
    name=st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
    braces=st.booleans(),
)
def test_a_variable_the_script_set_is_judged_as_its_value(
    value: str, args: str, name: str, braces: bool
) -> None:
    """``NAME="VALUE"; $NAME ARGS`` is judged as ``VALUE ARGS`` would be (stop 63)."""
    used = f"${{{name}}}" if braces else f"${name}"
    assert destroys(f'{name}="{value}"; {used} {args}'.strip()) == destroys(
        f"{value} {args}".strip()
    )


def test_a_command_past_the_read_limit_is_still_judged() -> None:
    """64 KiB of `a;` then the rm: read word by word past the limit, still found."""
    script = "a;" * 40_000 + " rm -rf src"
    assert destroys(script) == "`rm -rf src` deletes files"


def ask(
    policy: str, command: str, person: Person | None, root: Path = Path("/nonexistent")
) -> tuple[Decision, list[Preview]]:
    """The policy's answer for a shell call of ``command`` as the shell tool prepares it
    (its preview saying what it destroys), and what the person was shown."""
    approver = PolicyApprover(policy, person or NOBODY, sandbox=active())
    preview = ShellTool().prepare({"command": command}, ToolContext(root=str(root))).preview
    decision = asyncio.run(approver.approve(ToolCall("c1", "shell", {}), SHELL, preview))
    return decision, [p for _, p in person.seen] if person else []


def test_auto_edit_asks_before_a_destroying_command_inside_the_sandbox() -> None:
    person = Person()
    decision, shown = ask("auto-edit", "git clean -fdx", person)
    assert decision.approved and len(shown) == 1
    assert shown[0].destroys == "`git clean -fdx` deletes untracked files"
    decision, shown = ask("auto-edit", "pytest -q && rm -rf node_modules", Person())
    assert decision.approved and shown == []  # as before: the sandbox is enough


def test_headless_auto_edit_refuses_it_saying_what_would_allow_it() -> None:
    decision, _ = ask("auto-edit", "rm -rf src", None)
    assert not decision.approved and decision.unanswered == "--approval auto"
    assert decision.reason.startswith(
        "`rm -rf src` deletes files, and no undo brings that back: under --approval "
        "auto-edit a person approves such a command"
    )
    assert "apply_patch" in decision.reason


def test_auto_runs_it_and_ask_shows_what_it_destroys() -> None:
    decision, _ = ask("auto", "rm -rf src", None)
    assert decision.approved
    person = Person(answer=False)
    decision, shown = ask("ask", "git reset --hard", person)
    assert not decision.approved
    assert shown[0].destroys == "`git reset --hard` discards uncommitted changes"


async def test_through_the_tool_boundary_the_workspace_keeps_its_files(tmp_path: Path) -> None:
    """The model's `rm -rf src` under headless auto-edit: refused before it starts, the
    model told why, every file still there; the build folder it may clean."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("work of a day\n")
    (tmp_path / "build").mkdir()
    approver = PolicyApprover("auto-edit", NOBODY, sandbox=active())
    boundary = ToolBoundary(default_registry(), tmp_path, approver, None)
    result = await boundary.run(ToolCall("c1", "shell", {"command": "rm -rf src build"}))
    assert result.kind == "denied" and "`rm -rf src build` deletes files" in result.output
    assert (tmp_path / "src" / "app.py").read_text() == "work of a day\n"


def test_a_copy_or_move_onto_a_file_that_exists_is_named(tmp_path: Path) -> None:
    """`cp .env.example .env` over the person's .env (their keys) ran unasked in the
    sandbox; onto a new name, with -n or -b, it loses nothing."""
    (tmp_path / ".env").write_text("KEY=mine\n")
    (tmp_path / ".env.example").write_text("KEY=\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("mine\n")
    (tmp_path / "app.py").write_text("other\n")
    decision, shown = ask("auto-edit", "cp .env.example .env", Person(), tmp_path)
    assert shown[0].destroys == "`cp .env.example .env` overwrites .env"
    decision, shown = ask("auto-edit", "mv app.py src/", Person(), tmp_path)
    assert shown[0].destroys == "`mv app.py src/` overwrites src/app.py"
    for kept in ("cp .env.example .env.local", "cp -n .env.example .env", "mv -b app.py src/",
                 "cd src && cp app.py ../.env", "cp $X .env",
                 "mv app.py app.py.bak && cp app.py.bak app.py"):  # fmt: skip
        decision, shown = ask("auto-edit", kept, Person(), tmp_path)
        assert decision.approved and shown == [], kept


def test_the_terminal_prompt_says_what_it_destroys() -> None:
    """`frontier run` asking on the terminal (approvals answered there) shows it too."""
    from frontier.app.frontends.headless import render_preview

    preview = ShellTool().prepare({"command": "git clean -fdx"}, ToolContext(root="/")).preview
    shown = render_preview(replace(preview, sandbox="workspace-write · net off"))
    assert shown.splitlines() == [
        "$ git clean -fdx",
        "`git clean -fdx` deletes untracked files: no undo brings that back",
        "(inside the sandbox: workspace-write · net off)",
    ]


@pytest.mark.parametrize(
    "command",
    ["sort data.txt > data.txt", "jq '.version = 2' package.json > package.json",
     "tr a-z A-Z < notes.txt > notes.txt", "cat notes.txt | sort -u > notes.txt",
     "cd . && sed 's/a/b/' ./data.txt > data.txt"],
)  # fmt: skip
async def test_a_command_that_empties_the_file_it_reads_is_refused(
    tmp_path: Path, command: str
) -> None:
    """`jq . package.json > package.json`: the shell truncates the target before jq reads
    it, and the file is gone (a model's classic). Refused before it runs, under every
    policy, saying how to do it; the file is untouched."""
    for name in ("data.txt", "package.json", "notes.txt"):
        (tmp_path / name).write_text('{"b": 1}\n')
    approver = PolicyApprover("auto", NOBODY, sandbox=active())
    boundary = ToolBoundary(default_registry(), tmp_path, approver, None)
    result = await boundary.run(ToolCall("c1", "shell", {"command": command}))
    assert result.kind == "error" and "before it is read" in result.output, result.output
    assert "nothing run" in result.output and ".tmp && mv" in result.output
    assert all((tmp_path / n).read_text() == '{"b": 1}\n' for n in ("data.txt", "package.json"))


@pytest.mark.parametrize(
    "command",
    ["sort data.txt > sorted.txt", "sort data.txt >> data.txt", "echo data.txt > data.txt",
     "python gen.py > gen.py", "cat a > b; sort b > a", "npm test > out.log 2>&1",
     "setsid sleep 9 > /dev/null 2>&1 < /dev/null &", "tr a b < in.txt > b",
     "grep -o out in.txt > out"],
)  # fmt: skip
def test_other_redirections_are_left_alone(command: str) -> None:
    from frontier.tools.destructive import empties_itself

    assert empties_itself(command) is None


def test_python_code_that_deletes_a_folder_is_asked_under_auto_edit() -> None:
    """The python tool runs in the sandbox too: `shutil.rmtree("src")` was unasked."""
    from frontier.tools.process import PythonTool

    python = ToolSpec("python", "", {}, sequential=True, mutates=True, kind="exec")
    code = "import shutil\nshutil.rmtree('src')  # start over\n"
    preview = PythonTool().prepare({"code": code}, ToolContext(root="/")).preview
    assert (
        preview.destroys
        == "`shutil.rmtree('src')  # start over` deletes a folder and everything in it"
    )
    approver = PolicyApprover("auto-edit", NOBODY, sandbox=active())
    decision = asyncio.run(approver.approve(ToolCall("c1", "python", {}), python, preview))
    assert not decision.approved and decision.unanswered == "--approval auto"
    tidy = PythonTool().prepare({"code": "import os\nos.remove('out.tmp')"}, ToolContext(root="/"))
    assert tidy.preview.destroys is None


def test_substitutions_are_read_to_a_depth_and_each_character_once() -> None:
    """Every ``$(…)`` is looked in for a program made at run time: `$(dirname $(dirname
    …))` eight deep is read (nothing destroyed), deeper is asked; a 4 KiB nest is read in
    one pass a level (it was one scan per ``$(``, and a 4.8 KB command held the loop for
    minutes: ``bench/destructive.py``)."""
    eight = "echo " + "$(dirname " * 8 + "x" + ")" * 8
    assert destroys(eight) is None
    nine = "echo " + "$(dirname " * 9 + "x" + ")" * 9
    assert destroys(nine) == "`dirname $(dirname x)` nests commands too deep to read"
    hidden = "echo " + "$(echo " * 6 + "$($(printf rm) -rf src)" + ")" * 6
    assert destroys(hidden) == "`$(printf rm) -rf src` " + MADE
    deep = "echo " + "$(echo " * 600 + ")" * 600
    assert destroys(deep) is not None and "too deep" in str(destroys(deep))
