"""Sessions a person can find and continue: the first prompt in the list, ``resume --last``
and ``frontier -c`` for this directory, nothing left behind by a session the model never
answered, and the resume command printed when the TUI quits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from pilot_wait import until
from tui_fakes import fake_session

from frontier.app.cli import main
from frontier.app.commands import session_pick
from frontier.app.config import Config
from frontier.app.frontends.tui import app as tui_app
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.model.conversation import UserText
from frontier.app.model.demo_script import DEMO_MODEL
from frontier.app.model.wires.demo import DEMO_BASE_URL
from frontier.app.session.store import SessionStore
from tests.loopback_http import serving


def stored(
    monkeypatch: pytest.MonkeyPatch,
    workspace: Path,
    when: float,
    prompt: str | None = "fix the flaky test",
    *,
    demo: bool = True,
    answered: bool = True,
) -> str:
    """A session as a run leaves it: created at ``when``, one typed message and, when
    ``answered``, a response with bytes from the model."""
    workspace.mkdir(parents=True, exist_ok=True)
    with monkeypatch.context() as m:
        m.setattr(time, "time", lambda: when)
        with SessionStore.open() as store:
            sid = store.create_session(
                str(workspace),
                DEMO_MODEL if demo else "qwen",
                DEMO_BASE_URL if demo else "http://127.0.0.1:9/v1",
                "ctl-heredoc",
            )
            if prompt is not None:
                store.append_items(sid, [UserText(prompt)])
            if answered:
                rid = store.begin_response(sid, "ctl-heredoc", DEMO_MODEL, 0)
                store.add_stream_event(rid, 0.1, '{"choices": []}')
                store.end_response(rid, "stop")
                store.add_assistant_text(sid, "On it.")
            store.set_state(sid, "done")
    return sid


def frontier(*args: str, cwd: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # FRONTIER_DATA_DIR: the test's (conftest)
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


# --------------------------------------------------------------------------- the first prompt


def test_the_list_shows_each_sessions_first_prompt(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "rename the   config loader\nand update every caller " + "x" * 80
    first = stored(monkeypatch, tmp_path / "a", 1_700_000_000.0, long)
    second = stored(monkeypatch, tmp_path / "b", 1_700_000_100.0, None, answered=False)
    assert main(["sessions", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[first]["first_prompt"] == long  # whole, as typed
    assert rows[second]["first_prompt"] == ""
    assert main(["sessions"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[-1] == "PROMPT"
    line = next(row for row in table if row.startswith(first))
    assert line.endswith("rename the config loader and update every caller …")  # 50 chars
    assert next(row for row in table if row.startswith(second)).endswith("—")


def test_a_first_message_opened_by_a_note_is_listed_by_what_was_typed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stop 63: a session begun with `!pytest` was listed by the command's note
    ("(The user ran a command themselves…"), not by what the person asked."""
    from frontier.app.notices import PERSON_RAN_OPENING, with_notices

    note = f"{PERSON_RAN_OPENING} in the workspace (exit 1 after 0.4 s); …)\n  $ pytest\n  F"
    sid = stored(monkeypatch, tmp_path / "a", 1_700_000_000.0, with_notices([note], "fix it"))
    assert main(["sessions", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[sid]["first_prompt"] == "fix it"


# --------------------------------------------------------------------------- --last and -c


def test_resume_last_continues_this_workspaces_session_used_last(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    here = tmp_path / "project"
    older = stored(monkeypatch, here, 1_700_000_000.0, "older task")
    stored(monkeypatch, tmp_path / "elsewhere", 1_700_000_500.0, "not this one")
    newer = stored(monkeypatch, here, 1_700_000_100.0, "newer task")
    result = frontier(
        "resume", "--last", "--headless", "--json", "--prompt", "go on", "--rate", "0",
        "--approval", "read-only", cwd=here, tmp_path=tmp_path,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    first = json.loads(result.stdout.splitlines()[0])
    assert first["type"] == "session" and first["id"] == newer and first["resumed"] is True
    assert first["workspace"] == str(here)
    # the one just used is now the one used last, even though it was created first
    frontier(
        "resume", older, "--headless", "--prompt", "hi", "--rate", "0", "--approval",
        "read-only", cwd=here, tmp_path=tmp_path,
    )  # fmt: skip
    again = frontier(  # --workspace names the directory, from anywhere
        "resume", "--last", "--workspace", str(here), "--headless", "--json", "--prompt",
        "x", "--rate", "0", "--approval", "read-only", cwd=tmp_path, tmp_path=tmp_path,
    )  # fmt: skip
    assert json.loads(again.stdout.splitlines()[0])["id"] == older


def test_no_session_here_says_so_and_names_the_one_used_last(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    other = stored(monkeypatch, tmp_path / "other", 1_700_000_000.0, demo=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    result = frontier("-c", cwd=empty, tmp_path=tmp_path)
    assert result.returncode == 2
    assert f"no session in {empty}" in result.stderr
    assert f"`frontier resume {other}` continues it" in result.stderr
    last = frontier("resume", "--last", cwd=empty, tmp_path=tmp_path)
    assert last.returncode == 2 and f"frontier resume {other}" in last.stderr


def test_with_nothing_of_its_own_a_directory_continues_the_demo_used_last(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo works in a scratch copy nobody cds into: `frontier demo`, quit, then
    `frontier -c` in the same directory continues it."""
    demo = stored(monkeypatch, tmp_path / "data" / "demo-workspaces" / "x", 1_700_000_000.0)
    assert session_pick.last_session_id(tmp_path / "somewhere") == demo
    assert f"continuing the demo session {demo}" in capsys.readouterr().err
    mine = stored(monkeypatch, tmp_path / "somewhere", 1_600_000_000.0, demo=False)
    assert session_pick.last_session_id(tmp_path / "somewhere") == mine  # its own comes first


def test_resume_needs_an_id_or_last_not_both(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resume"]) == 2  # no terminal here: nothing to pick with
    err = capsys.readouterr().err
    assert "--last" in err and "in a terminal, `frontier resume` alone shows a picker" in err
    assert main(["resume", "abc", "--last"]) == 2
    assert "not both" in capsys.readouterr().err


def test_resume_alone_in_a_terminal_opens_the_tui_on_the_picker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from frontier.app.commands import resume

    opened: list[dict[str, object]] = []
    monkeypatch.setattr(resume, "terminal_problem", lambda: None)
    monkeypatch.setattr(tui_app, "run_tui", lambda config, **kw: opened.append(kw) or 0)
    assert main(["resume"]) == 0
    assert opened and opened[0]["pick_session"] is True
    assert main(["resume", "--headless"]) == 2  # headless has nobody to pick


# --------------------------------------------------------------------------- empty sessions


def test_only_a_session_the_model_never_answered_is_discarded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    answered = stored(monkeypatch, tmp_path / "a", 1.0)
    asked = stored(monkeypatch, tmp_path / "b", 2.0, answered=False)
    with SessionStore.open() as store:
        rid = store.begin_response(asked, "ctl-heredoc", "m", 0)  # connected, no byte
        store.end_response(rid, "error")
        assert store.catalogue.discard_if_empty(answered) is False
        assert store.catalogue.discard_if_empty(asked) is True
        assert [s.id for s in store.list_sessions()] == [answered]
        assert store.records(asked) == [] and store.load_items(asked) == []


async def test_closing_a_new_session_nobody_used_discards_it(tmp_path: Path) -> None:
    from frontier.app.agent.runtime import create_runtime
    from frontier.app.session.store import StoreError, find_session
    from frontier.tools.contract import Decision

    class Deny:
        async def approve(self, *args: object) -> Decision:
            return Decision(False, "test")

    workspace = tmp_path / "w"
    workspace.mkdir()
    config = Config(base_url="http://127.0.0.1:9/v1", model="m", workspace=str(workspace))
    unused = create_runtime(config, approver=Deny())
    await unused.close()
    with pytest.raises(StoreError):
        find_session(unused.session_id)
    demo = create_runtime(Config(), approver=Deny(), demo=True, demo_rate=0)
    ended = await demo.send("hello")
    await demo.close()
    assert ended.reason == "done"
    assert find_session(demo.session_id).first_prompt == "hello"  # answered: kept


# --------------------------------------------------------------------------- quitting the TUI


async def test_quitting_remembers_the_open_session() -> None:
    app = FrontierApp(Config(model="m"), welcome=False, autostart=False, remember_theme=False)
    assert app.live is not None
    app.live.session = fake_session(Path("."), session_id="7f3a2b9c").session
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        await pilot.press("ctrl+q")
    assert app.last_session_id == "7f3a2b9c"


def test_after_the_tui_the_resume_command_is_printed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sid = stored(monkeypatch, tmp_path / "w", 1.0)
    tui_app._say_how_to_resume(sid)
    assert capsys.readouterr().out == (
        f"Session {sid} saved. Continue it with: frontier resume {sid}\n"
    )
    tui_app._say_how_to_resume("deadbeef")  # discarded (or never stored): nothing to say
    tui_app._say_how_to_resume(None)
    assert capsys.readouterr().out == ""


# --------------------------------------------------------------------------- --last everywhere


class _Refused(BaseHTTPRequestHandler):
    """A model server that refuses every request (400: not retried)."""

    def do_POST(self) -> None:
        self.send_response(400)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self.do_POST()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads the client's words, not the server's log."""


def test_frontier_c_with_a_prompt_continues_this_workspaces_session_headless(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`frontier -c "now add a test"`: the next task of the session just left, headless
    (it was an error, "unrecognized arguments: -c"); `run -c` is the same."""
    here = tmp_path / "project"
    stored(monkeypatch, here, 1_700_000_000.0, "older task", demo=False)
    newer = stored(monkeypatch, here, 1_700_000_100.0, "newer task", demo=False)
    stored(monkeypatch, tmp_path / "elsewhere", 1_700_000_500.0, "not this one", demo=False)
    with serving(_Refused) as url:  # the turn fails at once (port 9's refusal is retried)
        for argv in (("-c", "go on", "--json"), ("run", "-c", "--json", "go on")):
            result = frontier(*argv, "--base-url", url, cwd=here, tmp_path=tmp_path)
            first = json.loads(result.stdout.splitlines()[0])
            assert first["type"] == "session" and first["id"] == newer, result.stderr
            assert first["resumed"] is True
            assert "400" in result.stdout  # the turn failed on the refusal, said
    both = frontier("run", "-c", "--session", newer, "x", cwd=here, tmp_path=tmp_path)
    assert both.returncode == 2 and "give a session id or -c, not both" in both.stderr
    before = frontier("-c", "run", "x", cwd=here, tmp_path=tmp_path)
    assert before.returncode == 2 and "`frontier run -c PROMPT`" in before.stderr


def test_export_undo_check_and_replay_take_this_directorys_session_used_last(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    here = tmp_path / "project"
    mine = stored(monkeypatch, here, 1_700_000_000.0, "the task here", demo=False)
    other = stored(monkeypatch, tmp_path / "b", 1_700_000_100.0, "elsewhere", demo=False)
    monkeypatch.chdir(here)
    assert main(["export", "--last", "--format", "jsonl"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"type": "user", "text": "the task here"}.items() <= records[0].items()
    assert main(["undo", "--last", "--list"]) == 0
    assert capsys.readouterr().out == f"session {mine} changed no file\n"
    assert main(["undo", "--last", "c9", "--yes"]) == 2  # CALL, not the session
    assert "c9" in capsys.readouterr().err
    assert main(["check", "--last"]) == 0
    assert f"{mine}#0" in capsys.readouterr().out
    assert main(["replay", "--last", "--headless"]) == 0
    assert "response_started" in capsys.readouterr().out
    for command in ("export", "undo", "check", "replay"):  # neither: what to give
        assert main([command]) == 2
        assert "--last" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)  # none here: names the one used last, as resume does
    assert main(["export", "--last"]) == 2
    assert f"`frontier export {other}` takes it" in capsys.readouterr().err
