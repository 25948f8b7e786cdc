"""shell / python: live output, timeout, cancel (process group), env, output cap."""

from __future__ import annotations

import asyncio
import base64
import os
import shlex
from pathlib import Path

import pytest
from async_wait import gone, until
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tools_fakes import call, make_boundary

from frontier.app.events import ToolOutput
from frontier.tools.output_cap import TOOL_OUT_CAP, CappedBuffer, cap_output


async def test_shell_streams_output_and_reports_exit(tmp_path: Path) -> None:
    events: list = []
    b = make_boundary(tmp_path, events=events)
    r = await b.run(call("shell", command="echo one; echo two >&2; exit 3"))
    assert r.kind == "error" and r.exit_code == 3
    assert r.output.splitlines() == ["one", "two", "[exit 3]"]
    live = "".join(e.data for e in events if isinstance(e, ToolOutput))
    assert live == "one\ntwo\n"


async def test_api_keys_are_not_in_the_child_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("FRONTIER_API_KEY", "fk-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-secret")
    monkeypatch.setenv("HARMLESS", "visible")
    r = await make_boundary(tmp_path).run(call("shell", command="env"))
    assert "secret" not in r.output
    assert "HARMLESS=visible" in r.output


async def test_a_cd_goes_where_frontier_read_it_whatever_the_persons_cdpath(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cd sub`` searched the person's ``CDPATH`` first, where Frontier reads a command's
    ``cd sub`` as the workspace's ``sub`` (its reviewed patches, its watch)."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "sub").mkdir(parents=True)
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    monkeypatch.setenv("CDPATH", str(elsewhere))
    r = await make_boundary(ws).run(call("shell", command="cd sub && pwd"))
    assert r.output.splitlines()[0].endswith("/ws/sub"), r.output


async def test_tokens_passwords_and_cloud_secrets_are_not_in_the_child_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command the model writes cannot print the user's other credentials either."""
    for name in ("GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "DB_PASSWORD"):
        monkeypatch.setenv(name, f"hidden-{name.lower()}")
    monkeypatch.setenv("AWS_PROFILE", "visible-profile")
    monkeypatch.delenv("FRONTIER_TOOL_ENV_ALLOW", raising=False)
    r = await make_boundary(tmp_path).run(call("shell", command="env"))
    assert "hidden-" not in r.output
    assert "AWS_PROFILE=visible-profile" in r.output


async def test_the_user_can_let_a_named_variable_through_but_never_frontiers_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "passed-on-purpose")
    monkeypatch.setenv("NPM_TOKEN", "hidden-npm")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-hidden-always")
    monkeypatch.setenv("FRONTIER_TOOL_ENV_ALLOW", "github_token, OPENAI_API_KEY")
    r = await make_boundary(tmp_path).run(call("shell", command="env"))
    assert "GITHUB_TOKEN=passed-on-purpose" in r.output
    assert "hidden" not in r.output


async def test_the_providers_key_variable_is_kept_from_commands_whatever_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A provider's ``key_env`` may have any name; ``LLM_AUTH`` does not read as a
    secret's, and a command the model wrote had it: the scrubber masked ``env``'s line, but
    ``env | base64`` went to the model whole (an audit)."""
    from test_protocol_auto import session_on
    from wire_scripts import Text, WireServer, script, stream

    from frontier.app.config import config_path
    from frontier.tools import process

    monkeypatch.setattr(process, "_WITHHELD", set(), raising=False)  # a fresh one
    key = "sk-live-llmauth-0123456789abcdef"
    monkeypatch.setenv("LLM_AUTH", key)
    # the review's: another provider's key_env, a variable a provider's header names
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(
        '[providers.other]\nbase_url = "http://127.0.0.1:9/v1"\nkey_env = "OTHER_AUTH"\n'
        '[providers.gw]\nbase_url = "http://127.0.0.1:9/v1"\n'
        'headers = { "X-Gateway" = "Bearer ${GW_HDR}" }\n'
    )
    others = {"OTHER_AUTH": "other-provider-secret-0123", "GW_HDR": "gateway-header-secret-0123"}
    for name, value in others.items():
        monkeypatch.setenv(name, value)
    server = WireServer("openai-chat")
    command = Text("call c1 shell\narg command env | base64 -w0\nend\n")  # CTL: "auto", unknown
    replies = [
        stream(script("openai-chat", [command])),
        stream(script("openai-chat", [Text("ok")])),
    ]
    async with session_on(tmp_path, server, "m", key_env="LLM_AUTH") as (session, _):
        server.replies[:] = replies
        assert (await session.send("show the environment")).reason == "done"
    result = server.requests[-1].body["messages"][-1]["content"]  # result c1 exit=0 N\n…
    encoded = result.split("\n")[1]
    seen = base64.b64decode(encoded).decode()
    assert "PATH=" in seen  # the command ran and said it
    assert key not in seen and not [v for v in others.values() if v in seen]


async def test_python_tool_runs_code_in_workspace(tmp_path: Path) -> None:
    code = "import os\nprint(os.getcwd())\nprint(sum(range(10)))\n"
    r = await make_boundary(tmp_path).run(call("python", code=code))
    assert r.kind == "ok", r.output
    assert r.output.splitlines() == [os.path.realpath(tmp_path), "45"]


async def test_python_given_a_script_name_says_how_to_run_the_file(tmp_path: Path) -> None:
    """A small model passed the file to run as the python tool's code and read only
    `NameError: name 'c' is not defined`; the error now says what to do instead."""
    (tmp_path / "c.py").write_text("print('ran')\n")
    r = await make_boundary(tmp_path).run(call("python", code="c.py"))
    assert r.kind == "error" and "NameError" in r.output
    assert "[c.py is a file name, run as Python code" in r.output
    assert "call shell with python3 c.py]" in r.output
    r = await make_boundary(tmp_path).run(call("python", code="raise SystemExit(3)"))
    assert "file name" not in r.output


async def test_cancel_kills_the_whole_process_group(tmp_path: Path) -> None:
    ready = asyncio.Event()

    def emit(event: object) -> None:
        if isinstance(event, ToolOutput) and "ready" in event.data:
            ready.set()

    b = make_boundary(tmp_path)
    b.emit = emit
    pidfile = tmp_path / "child.pid"
    cmd = f"sleep 60 & echo $! > {pidfile}; echo ready; wait"
    task = asyncio.create_task(b.run(call("shell", command=cmd)))
    await asyncio.wait_for(ready.wait(), 10)
    assert b.cancel_running() is True
    r = await asyncio.wait_for(task, 10)
    assert r.kind == "cancelled" and r.exit_code == 130
    assert "cancelled by the user" in r.output
    child = int(pidfile.read_text())
    for _ in range(500):
        if gone(child):
            break
        await asyncio.sleep(0.01)
    assert gone(child), "the background child of the cancelled shell survived"
    assert b.cancel_running() is False


async def test_huge_output_is_capped_60_40(tmp_path: Path) -> None:
    cmd = "python3 -c \"print('HEAD'); print('x' * 200000); print('TAIL')\""
    r = await make_boundary(tmp_path).run(call("shell", command=cmd))
    assert r.kind == "ok"
    assert len(r.output.encode()) <= TOOL_OUT_CAP
    assert r.output.startswith("HEAD\n") and r.output.rstrip().endswith("TAIL")
    assert "bytes of output omitted (kept first 60% and last 40%)" in r.output


def test_capped_buffer_equals_cap_output_for_any_chunking() -> None:
    text = "".join(f"{i} é😀\n" for i in range(20000))
    data = text.encode()
    for step in (1, 7, 4096):
        buf = CappedBuffer()
        for i in range(0, len(data), step):
            buf.append(data[i : i + step])
        assert buf.text() == cap_output(text)
    assert cap_output("short") == "short"


async def test_a_command_that_opens_an_editor_does_not_wait_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``git commit`` without ``-m`` opened the user's editor, which has no terminal here:
    it waited, unseen, for the call's whole time limit. An editor that never returns
    stands in for vim."""
    for name in ("EDITOR", "VISUAL", "GIT_EDITOR"):
        monkeypatch.setenv(name, "sleep 600; :")
    b = make_boundary(tmp_path)
    setup = "git init -q && git config user.name t && git config user.email t@t && "
    setup += "echo x > f && git add f"
    assert (await b.run(call("shell", command=setup))).kind == "ok"
    r = await b.run(call("shell", 2, command="git commit", timeout=30))
    assert r.kind == "error" and "Aborting commit due to empty commit message" in r.output
    r = await b.run(call("shell", 3, command="git commit -q -m first && git commit --amend -q"))
    assert r.kind == "ok", r.output  # --amend keeps the message it has
    r = await b.run(call("shell", 4, command="git log --format=%s"))
    assert r.output.splitlines()[0] == "first"


async def test_a_background_job_holding_the_output_does_not_make_the_call_time_out(
    tmp_path: Path,
) -> None:
    """``python -m http.server &``: the shell exits at once, the job keeps its output pipe,
    and Python 3.11's ``Process.wait`` waits for that pipe too, so the call ran to its time
    limit and said "timed out". It ends once the command has, says why the job stopped and
    how to leave one running."""
    r = await make_boundary(tmp_path).run(
        call("shell", command="sleep 600 & echo job $!; exit 3", timeout=60)
    )
    assert r.kind == "error" and r.exit_code == 3, r.output
    assert "a job it started in the background kept its output open" in r.output
    assert "`cmd > cmd.log 2>&1 &`" in r.output and r.output.rstrip().endswith("[exit 3]")
    job = int(r.output.split("job ", 1)[1].split()[0])
    await until(lambda: gone(job), "the job left holding the output is stopped")


async def test_a_command_sent_as_an_argv_array_runs_as_that_argv(tmp_path: Path) -> None:
    """Codex's shell takes an argv and local models (qwen2.5 on Ollama) send one where
    the schema says a string: it runs, quoted as the argv says (it was an argument error
    that cost a repair round)."""
    b = make_boundary(tmp_path)
    argv = ["bash", "-lc", "printf '%s|' \"$0\" one 'two words'", "zero; rm -rf x"]
    r = await b.run(call("shell", command=argv))
    assert r.kind == "ok", r.output
    assert r.output.splitlines()[0] == "zero; rm -rf x|one|two words|"  # nothing re-split
    one = await b.run(call("shell", 2, command=["echo a  b"]))  # one word: the line itself
    assert one.output.splitlines()[0] == "a b"
    bad = await b.run(call("shell", 3, command=["echo", 1]))
    assert bad.kind == "arg" and "must be a string" in bad.output


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_characters="\x00"), max_size=12), min_size=2))
def test_an_argv_is_joined_into_the_line_that_splits_back_into_it(argv: list[str]) -> None:
    from frontier.tools.process import ShellTool
    from frontier.tools.schema import coerce_args

    line = coerce_args("shell", ShellTool.spec.parameters, {"command": argv})["command"]
    assert shlex.split(line) == argv


async def test_a_command_that_only_changes_folder_says_it_lasts_for_itself(
    tmp_path: Path,
) -> None:
    """Claude Code's Bash keeps the folder between calls; its models ran `cd frontend`,
    then `npm test`, which ran at the root here. A lone `cd` says so."""
    from frontier.tools.process import CD_NOTE

    (tmp_path / "frontend").mkdir()
    b = make_boundary(tmp_path)
    r = await b.run(call("shell", 1, command="cd frontend"))
    assert r.kind == "ok" and r.output.endswith(CD_NOTE.strip()), r.output
    r = await b.run(call("shell", 2, command="cd frontend && pwd"))
    assert "lasted for itself only" not in r.output
