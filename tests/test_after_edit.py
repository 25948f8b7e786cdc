"""After-edit checks (``tools/after_edit.py``, ``app/checks_config.py``): the person's
lint runs on the files a call changed and the model reads its verdict with the edit."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest

from frontier.app.checks_config import load_checks, parse_checks
from frontier.app.config import ConfigError, load_config
from frontier.app.events import Event, ToolOutput
from frontier.tools.after_edit import AfterEditChecks, CheckSettings, command_line, for_files
from frontier.tools.sandbox import SandboxSettings, make_sandbox
from tests.loopback_http import serving
from tests.test_tools_fakes import FakeStore, call, make_boundary, model_has_read

PY = sys.executable
FAILS_ON_BAD = CheckSettings(
    "lint", f"{PY} -c \"import sys; t=open(sys.argv[1]).read(); print('BAD at', sys.argv[1]) "
    "if 'BAD' in t else None; sys.exit('BAD' in t)\" {files}", ("*.py",),
)  # fmt: skip
"""A check that fails, naming the file, when a changed ``.py`` file holds ``BAD``."""


def boundary_with(tmp_path: Path, *checks: CheckSettings, sandbox: Any = None, **kw: Any) -> Any:
    events: list[Event] = kw.pop("events", [])
    b = make_boundary(tmp_path, events=events, **kw)
    b.after_hook = AfterEditChecks(checks, b.root, sandbox, b.emit)
    return b


# ------------------------------------------------------------------------- settings


def test_config_toml_checks_are_read_and_a_bad_one_is_named(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[checks.ruff]\nrun = "ruff check {files}"\nfiles = ["*.py"]\ntimeout = 30\n'
        '[checks.tsc]\nrun = "npx tsc --noEmit"\nenabled = false\n'
    )
    assert load_checks(path) == [CheckSettings("ruff", "ruff check {files}", ("*.py",), 30.0)]
    for table, said in [
        ('[checks.x]\nrunn = "a"\n', "unknown key 'runn'"),
        ("[checks.x]\nfiles = []\n", "run must be a command"),
        ('[checks.x]\nrun = "a"\ntimeout = 0\n', "timeout must be seconds > 0"),
        ('[checks.x]\nrun = "a"\ntimeout = 601\n', "at most 600"),
        ('[checks.x]\nrun = "a"\nfiles = "*.py"\n', "files must be a list of globs"),
        ('[checks."Bad Name"]\nrun = "a"\n', "the name must be"),
        ('checks = "ruff"\n', "checks must be tables"),
        ('[checks.x]\nrun = "a"\nreformat = true\n', "reformat is a formatter's key"),
    ]:
        import tomllib

        with pytest.raises(ConfigError, match=said):
            parse_checks(tomllib.loads(table), path)
    import tomllib

    fmt = '[formatters.f]\nrun = "a"\nreformat = true\n'
    assert parse_checks(tomllib.loads(fmt), path, "formatters")[0].reformat is True
    with pytest.raises(ConfigError, match="reformat must be true or false"):
        parse_checks(tomllib.loads(fmt.replace("true", '"yes"')), path, "formatters")


def test_a_check_named_for_some_workspaces_is_for_those_and_folders_inside_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tomllib

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "api" / "src").mkdir(parents=True)
    (tmp_path / "apiary").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "api")
    doc = tomllib.loads('[checks.lint]\nrun = "ruff check {files}"\nworkspaces = ["~/api/"]\n')
    (check,) = parse_checks(doc, tmp_path / "config.toml")
    assert check.workspaces == (str(tmp_path / "api"),)
    assert check.applies_to(str(tmp_path / "api")) and check.applies_to(str(tmp_path / "api/src"))
    assert check.applies_to(str(tmp_path / "link"))  # the same folder by another name
    assert not check.applies_to(str(tmp_path / "apiary"))  # a name that only starts alike
    assert not check.applies_to(str(tmp_path))
    assert CheckSettings("any", "x").applies_to(str(tmp_path))
    for value, said in [('["src/api"]', "is not an absolute path"), ('"~/api"', "list of folders")]:
        bad = tomllib.loads(f'[checks.x]\nrun = "a"\nworkspaces = {value}\n')
        with pytest.raises(ConfigError, match=said):
            parse_checks(bad, tmp_path / "config.toml")


def test_a_config_with_checks_still_loads_its_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRONTIER_CONFIG_DIR", str(tmp_path))
    (tmp_path / "config.toml").write_text('model = "m"\n[checks.lint]\nrun = "true"\n')
    assert load_config().model == "m"  # `checks` is a known table, not an unknown setting


def test_globs_pick_the_files_a_check_is_for_and_names_are_quoted_for_the_shell() -> None:
    check = CheckSettings("c", "lint {files} --strict", ("*.py", "docs/*.md"))
    paths = ["src/a.py", "README.md", "docs/x.md", "src/docs/y.md", "b.pyi"]
    assert for_files(check, paths) == ["src/a.py", "docs/x.md"]
    assert for_files(CheckSettings("c", "x"), paths) == paths  # no globs: every file
    hostile = ["$(touch pwned).py", "-rf.py", "a b.py"]
    assert command_line(check, hostile) == (
        "lint '$(touch pwned).py' ./-rf.py 'a b.py' --strict"
    )  # fmt: skip


# ------------------------------------------------------------------------- the hook


async def test_a_failing_check_is_told_with_the_edit_and_kept_with_its_result(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    store = FakeStore()
    events: list[Event] = []
    b = boundary_with(tmp_path, FAILS_ON_BAD, store=store, events=events)
    result = await b.run(call("replace", path="a.py", old="x = 1", new="x = BAD"))
    assert result.kind == "ok"  # the edit happened: the check's verdict does not undo it
    assert "[check lint (the person's after-edit check) on a.py: exit 1" in result.output
    assert "BAD at a.py" in result.output
    assert result.meta["checks"][0] | {"seconds": 0} == {
        "name": "lint", "files": ["a.py"], "exit": 1, "seconds": 0, "outcome": "failed",
        "first": "BAD at a.py",
    }  # fmt: skip
    committed = [v for k, v in store.log if k == "commit_result"]
    assert committed[-1].output == result.output  # what the model sees is what is stored
    shown = "".join(e.data for e in events if isinstance(e, ToolOutput))
    assert "── check lint:" in shown and "BAD at a.py" in shown and "── failed" in shown

    fixed = await b.run(call("replace", 2, path="a.py", old="BAD", new="2"))
    assert fixed.output.endswith("on a.py: passed in " + fixed.output.rsplit(" in ", 1)[1])
    assert fixed.meta["checks"][0]["outcome"] == "passed"


async def test_no_check_for_other_files_a_failed_edit_a_read_or_a_deletion(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "notes.md").write_text("BAD\n")
    marker = tmp_path.parent / f"{tmp_path.name}-ran"
    ran = CheckSettings("any", f"echo ran >> {marker}")
    b = boundary_with(tmp_path, FAILS_ON_BAD, CheckSettings("md", "false", ("*.txt",)))
    edited = await b.run(call("replace", path="notes.md", old="BAD", new="BAD too"))
    assert edited.kind == "ok" and "check" not in edited.output and "checks" not in edited.meta
    b = boundary_with(tmp_path, ran)
    failed = await b.run(call("replace", 2, path="a.py", old="not there", new="y"))
    assert failed.kind != "ok" and not marker.exists()
    read = await b.run(call("read", 3, path="a.py"))
    assert read.kind == "ok" and not marker.exists()
    patch = "*** Begin Patch\n*** Delete File: a.py\n*** End Patch"
    deleted = await b.run(call("apply_patch", 4, patch=patch))
    assert deleted.kind == "ok" and not marker.exists()  # nothing left to check


async def test_paused_checks_run_on_no_edit_until_they_are_on_again(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    b = boundary_with(tmp_path, FAILS_ON_BAD)
    assert isinstance(b.after_hook, AfterEditChecks)
    b.after_hook.paused = True  # /checks off
    quiet = await b.run(call("replace", path="a.py", old="x = 1", new="x = BAD"))
    assert quiet.kind == "ok" and "check" not in quiet.output and "checks" not in quiet.meta
    b.after_hook.paused = False  # /checks on
    loud = await b.run(call("replace", 2, path="a.py", old="BAD", new="BAD + 1"))
    assert "BAD at a.py" in loud.output


async def test_a_timeout_and_a_missing_program_are_said_as_such(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    slow = CheckSettings("slow", "sleep 60", timeout=0.5)
    gone = CheckSettings("gone", "no-such-linter-xyz {files}")
    b = boundary_with(tmp_path, slow, gone)
    result = await b.run(call("replace", path="a.py", old="1", new="2"))
    assert "[check slow (the person's after-edit check) on a.py: timed out after 0.5 s" in (
        result.output
    )
    assert "its command was not found (exit 127); the setting is the person's" in result.output
    outcomes = [c["outcome"] for c in result.meta["checks"]]
    assert outcomes == ["timeout", "not_found"]


async def test_esc_stops_a_running_check_and_the_call_ends_at_once(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    started = asyncio.Event()
    events: list[Event] = []

    class Watch(list[Event]):
        def append(self, event: Event) -> None:
            super().append(event)
            if isinstance(event, ToolOutput) and event.data.startswith("── check"):
                started.set()

    events = Watch()
    b = boundary_with(tmp_path, CheckSettings("long", "sleep 120", timeout=300), events=events)
    task = asyncio.ensure_future(b.run(call("replace", path="a.py", old="1", new="2")))
    await asyncio.wait_for(started.wait(), 60)
    assert b.cancel_running()  # the call is still running while its check runs
    result = await asyncio.wait_for(task, 60)
    assert result.kind == "ok" and "stopped by the person" in result.output
    assert result.meta["checks"][0]["outcome"] == "cancelled"


_BOX = make_sandbox(SandboxSettings())


@pytest.mark.skipif(not _BOX.active, reason=f"no OS sandbox here ({_BOX.label})")
async def test_a_check_cannot_rewrite_what_the_review_showed(tmp_path: Path) -> None:
    """In the sandbox the workspace is read-only for a check, whatever the session's mode:
    a formatter's rewrite is refused and the file holds what the edit wrote."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("x = 1\n")
    box = make_sandbox(SandboxSettings(mode="workspace-write"), ws)
    try:
        fmt = CheckSettings("fmt", "printf 'y = 0\\n' > {files} && touch made.txt")
        b = boundary_with(ws, fmt, sandbox=box)
        result = await b.run(call("replace", path="a.py", old="1", new="2"))
    finally:
        box.close()
    assert (ws / "a.py").read_text() == "x = 2\n" and not (ws / "made.txt").exists()
    assert "Read-only file system" in result.output
    assert "checks run with the workspace read-only" in result.output


async def test_a_check_that_cannot_start_says_so_and_the_edit_stands(tmp_path: Path) -> None:
    from frontier.app.check_text import check_lines

    class Full:
        """A sandbox whose private folder cannot be made (a full disk)."""

        active = True

        def wrap(self, *args: object, **kw: object) -> Any:
            raise OSError(28, "No space left on device")

    (tmp_path / "a.py").write_text("x = 1\n")
    b = boundary_with(tmp_path, FAILS_ON_BAD, sandbox=Full())
    result = await b.run(call("replace", path="a.py", old="1", new="2"))
    assert result.kind == "ok" and (tmp_path / "a.py").read_text() == "x = 2\n"
    assert "on a.py: could not be started ([Errno 28] No space left on device)]" in result.output
    assert check_lines(result.meta) == [
        ("✗ check lint: could not be started · 0.0 s · [Errno 28] No space left on device", True)
    ]


async def test_without_a_sandbox_a_check_that_rewrote_the_file_is_said(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    b = boundary_with(tmp_path, CheckSettings("fmt", "printf '# fmt\\n' >> {files}"))
    result = await b.run(call("replace", path="a.py", old="1", new="2"))
    assert "[the check changed a.py after the edit" in result.output
    assert "the edit's undo will refuse" in result.output


async def test_a_whole_file_write_is_checked_too(tmp_path: Path) -> None:
    (tmp_path / "new.py").write_text("")
    b = boundary_with(tmp_path, FAILS_ON_BAD)
    model_has_read(b, "new.py")
    result = await b.run(call("write", path="new.py", content="BAD = 1\n"))
    assert result.kind == "ok" and "BAD at new.py" in result.output


# ------------------------------------------------------------------------- a session


class _Rounds(BaseHTTPRequestHandler):
    """A Chat Completions endpoint: an edit that breaks the file, then an answer; it keeps
    the tool messages each request carried."""

    seen: ClassVar[list[Any]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        tools = [m["content"] for m in body["messages"] if m.get("role") == "tool"]
        type(self).seen.append(tools)
        if not tools:
            args = {"path": "a.py", "old": "x = 1", "new": "x = BAD"}
            delta = {"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                     "function": {"name": "replace", "arguments": json.dumps(args)}}]}  # fmt: skip
            finish = "tool_calls"
        else:
            delta, finish = {"content": "done"}, "stop"
        chunks = [{"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}]  # fmt: skip
        data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.encode())

    def do_GET(self) -> None:
        self.send_response(404)
        self.end_headers()


@pytest.fixture
def rounds_server() -> Iterator[str]:
    _Rounds.seen = []
    with serving(_Rounds) as url:
        yield url


def _frontier(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "frontier.app.cli", *args],
        capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _project(tmp_path: Path, settings: str) -> tuple[Path, Path, dict[str, str]]:
    """A workspace holding ``a.py``, a config folder whose config.toml is ``settings``, and
    the environment a ``frontier`` process uses them with."""
    ws, config = tmp_path / "ws", tmp_path / "config"
    ws.mkdir()
    config.mkdir()
    (ws / "a.py").write_text("x = 1\n")
    (config / "config.toml").write_text(settings)
    env = {**os.environ, "FRONTIER_DATA_DIR": str(tmp_path / "data"),
           "FRONTIER_CONFIG_DIR": str(config), "TMPDIR": str(tmp_path)}  # fmt: skip
    return ws, config, env


def test_frontier_run_hands_the_model_its_checks_verdict(
    tmp_path: Path, rounds_server: str
) -> None:
    run = FAILS_ON_BAD.run.replace('"', '\\"')
    ws, config, env = _project(tmp_path, f'[checks.lint]\nrun = "{run}"\nfiles = ["*.py"]\n')
    session = ["run", "--base-url", rounds_server, "--model", "m", "--protocol", "native-eos",
               "--approval", "auto-edit", "--sandbox", "off", "--workspace", str(ws), "--json",
               "--prompt", "make x BAD"]  # fmt: skip
    done = _frontier(env, *session)
    assert done.returncode == 0, done.stdout + done.stderr
    (told,) = _Rounds.seen[1]
    assert "[check lint (the person's after-edit check) on a.py: exit 1" in told
    assert "BAD at a.py" in told
    events = [json.loads(line) for line in done.stdout.splitlines()]
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert [c["outcome"] for c in finished["checks"]] == ["failed"]
    exported = _frontier(env, "export", events[0]["id"]).stdout
    assert re.search(
        r"- `M a.py \(\+1 −1\)`\n- `✗ check lint: exit 1 · [\d.]+ s · BAD at a.py`\n", exported
    )
    assert "```text\n[check lint (the person's after-edit check) on a.py: exit 1" in exported
    # for another project only: this workspace's edits are not checked
    other = f'workspaces = ["{tmp_path / "elsewhere"}"]\n'
    (config / "config.toml").write_text(f'[checks.lint]\nrun = "{run}"\n{other}')
    (ws / "a.py").write_text("x = 1\n")
    _Rounds.seen = []
    again = _frontier(env, *session)
    assert again.returncode == 0, again.stdout + again.stderr
    (told,) = _Rounds.seen[1]
    assert "check" not in told and (ws / "a.py").read_text() == "x = BAD\n"


def test_the_person_sees_each_check_in_a_line_a_failure_with_its_headline() -> None:
    from frontier.app.check_text import check_lines

    meta = {"checks": [
        {"name": "ruff", "outcome": "failed", "exit": 1, "seconds": 0.213,
         "first": "F821 Undefined name `os`"},
        {"name": "mypy", "outcome": "passed", "exit": 0, "seconds": 3,
         "first": "Success: no issues"},
        {"name": "slow", "outcome": "timeout", "exit": None, "first": ""},
        "junk",
    ]}  # fmt: skip
    assert check_lines(meta) == [
        ("✗ check ruff: exit 1 · 0.2 s · F821 Undefined name `os`", True),
        ("✓ check mypy: passed · 3.0 s", False),
        ("✗ check slow: timed out", True),
    ]
    assert check_lines({}) == [] and check_lines({"checks": "x"}) == []


async def test_a_checkers_colours_reach_neither_the_model_nor_the_persons_line(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    coloured = CheckSettings(
        "lint", "printf '\\033[1;31mE1\\033[0m bad\\n\\033]0;title\\007'; exit 1"
    )
    b = boundary_with(tmp_path, coloured)
    result = await b.run(call("replace", path="a.py", old="1", new="2"))
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert result.output.endswith("exit 1 in " + result.output.rsplit(" in ", 1)[1])
    assert "E1 bad" in result.output
    assert result.meta["checks"][0]["first"] == "E1 bad"


def test_frontier_run_formats_before_the_write_and_tells_the_model(
    tmp_path: Path, rounds_server: str
) -> None:
    ws, _config, env = _project(
        tmp_path,
        # a.py was not upper-case before: `reformat` has it formatted whole all the same
        '[formatters.upper]\nrun = "tr a-z A-Z"\nfiles = ["*.py"]\nreformat = true\n'
        '[formatters.other]\nrun = "false"\nworkspaces = ["/elsewhere-xyz"]\n',
    )
    done = _frontier(
        env, "run", "--base-url", rounds_server, "--model", "m", "--protocol", "native-eos",
        "--approval", "auto-edit", "--workspace", str(ws), "--json", "--prompt", "make x BAD",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (ws / "a.py").read_text() == "X = BAD\n"  # formatted, and only by this project's
    (told,) = _Rounds.seen[1]
    assert "The person's formatter (upper) rewrote a.py before it was written" in told
    events = [json.loads(line) for line in done.stdout.splitlines()]
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert finished["formatted"] == ["a.py"] and "format_failed" not in finished
    assert finished["formatted_by"] == ["upper"]
    exported = _frontier(env, "export", events[0]["id"]).stdout
    assert "- `✎ formatted by upper: a.py`" in exported


def test_a_projects_own_check_runs_in_a_session_only_once_trusted(
    tmp_path: Path, rounds_server: str
) -> None:
    """``.frontier/checks.toml`` (docs/checks.md "Project checks"): a repository's check is
    a command run without asking, so it waits for ``frontier checks trust``."""
    ws, _, env = _project(tmp_path, "")
    run = FAILS_ON_BAD.run.replace('"', '\\"')
    (ws / ".frontier").mkdir()
    (ws / ".frontier" / "checks.toml").write_text(f'[checks.lint]\nrun = "{run}"\n')
    session = ["run", "--base-url", rounds_server, "--model", "m", "--protocol", "native-eos",
               "--approval", "auto-edit", "--sandbox", "off", "--workspace", str(ws), "--json",
               "--prompt", "make x BAD"]  # fmt: skip
    waiting = _frontier(env, *session)
    assert waiting.returncode == 0, waiting.stdout + waiting.stderr
    assert "declares commands that run after edits only once you trust them" in waiting.stderr
    (told,) = _Rounds.seen[1]
    assert "check" not in told and (ws / "a.py").read_text() == "x = BAD\n"

    trusted = _frontier(env, "checks", "trust", "--yes", "--workspace", str(ws))
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    (ws / "a.py").write_text("x = 1\n")
    _Rounds.seen = []
    again = _frontier(env, *session)
    assert again.returncode == 0, again.stdout + again.stderr
    (told,) = _Rounds.seen[1]
    assert "[check lint (the project's after-edit check) on a.py: exit 1" in told
    assert "trust" not in again.stderr
