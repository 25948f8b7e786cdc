"""The CLI's surface: every option explains itself, no command offers a flag it ignores,
bad values are refused before anything runs, and each failure is said once."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from loopback_http import serving

from frontier.app import cli
from frontier.app.agent.loop import DOCTOR_HINT
from frontier.app.vocab import THEME_NAMES

ROOT = Path(__file__).resolve().parent.parent


def frontier(
    *args: str, tmp_path: Path, cwd: Path | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a user does, without a terminal (stdout and stdin are pipes)."""
    env = {
        **os.environ,
        "TMPDIR": str(tmp_path),
        "FRONTIER_DATA_DIR": str(tmp_path / "data"),
        "FRONTIER_CONFIG_DIR": str(tmp_path / "config"),
    }
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *args],
        capture_output=True,
        timeout=120,
        env=env,
        cwd=cwd or tmp_path,
        input=stdin.decode() if stdin is not None else None,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        text=True,
    )


def parsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield parser.prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parsers(sub)


def test_every_option_and_argument_has_help_text() -> None:
    missing = [
        f"{prog} {'/'.join(action.option_strings) or action.dest}"
        for prog, parser in parsers(cli.build_parser())
        for action in parser._actions
        if not isinstance(action, argparse._SubParsersAction)
        and (not action.help or action.help == argparse.SUPPRESS)
    ]
    assert not missing, f"options without help: {missing}"


@pytest.mark.parametrize(
    ("argv", "flag", "command"),
    [
        (["replay", "x.jsonl", "--approval", "auto"], "--approval", "replay"),
        (["replay", "x.jsonl", "--base-url", "http://127.0.0.1:1/v1"], "--base-url", "replay"),
        (["run", "--prompt", "x", "--theme", "frontier-light"], "--theme", "run"),
        (["demo", "--workspace", "."], "--workspace", "demo"),
        (["demo", "--base-url", "http://127.0.0.1:1/v1"], "--base-url", "demo"),
        (["demo", "--model", "m"], "--model", "demo"),
        (["demo", "--idle-timeout", "5"], "--idle-timeout", "demo"),
        (["--theme", "frontier-light", "run", "--prompt", "x"], "--theme", "run"),
        (["--approval", "auto", "replay", "x.jsonl"], "--approval", "replay"),
        (["--model", "m", "sessions"], "--model", "sessions"),
        (["--workspace", ".", "export", "abc"], "--workspace", "export"),
    ],
)
def test_a_flag_the_command_ignores_is_refused(
    argv: list[str], flag: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        cli.parse_args(argv)
    assert info.value.code == 2
    assert f"{flag} does not apply to `frontier {command}`" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["demo", "--protocol", "ctl", "--approval", "auto", "--theme", "frontier-light"],
        ["replay", "x.jsonl", "--protocol", "ctl", "--theme", "frontier-contrast"],
        ["run", "--prompt", "x", "--base-url", "u", "--model", "m", "--workspace", "."],
        ["resume", "abc", "--theme", "frontier-light", "--workspace", ".", "--model", "m"],
        ["--theme", "frontier-light", "demo"],
        ["transduce", "--protocol", "json-whole"],
    ],
)
def test_the_flags_a_command_uses_are_offered(argv: list[str]) -> None:
    cli.parse_args(argv)


def test_an_unknown_theme_is_an_error_listing_the_themes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        cli.parse_args(["--theme", "nope"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'nope'" in err
    assert all(name in err for name in THEME_NAMES)


@pytest.mark.parametrize("command", [["run", "--prompt", "x"], ["resume", "abc"]])
@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_max_turns_must_be_a_positive_number(
    command: list[str], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        cli.parse_args([*command, "--max-turns", value])
    assert info.value.code == 2
    assert "--max-turns" in capsys.readouterr().err


def test_run_without_a_model_says_so(tmp_path: Path) -> None:
    result = frontier(
        "run", "--base-url", "http://127.0.0.1:9/v1", "--prompt", "hi", tmp_path=tmp_path
    )
    assert result.returncode == 2
    assert "no model: pass --model M" in result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "data" / "sessions.db").exists()  # refused before any session


def test_continue_is_for_the_tui_only(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.parse_args(["-c", "sessions"])
    assert "frontier resume --last" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a command that takes a session: its own flag
        cli.parse_args(["-c", "export"])
    assert "`frontier export` takes --last after the command" in capsys.readouterr().err


# --------------------------------------------------------------------------- failures, once


class _Refusing(BaseHTTPRequestHandler):
    """A chat-completions endpoint that refuses every request with 401 (no retry)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"error": {"message": "invalid api key (test)"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def refusing_server() -> Iterator[str]:
    with serving(_Refusing) as url:
        yield url


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_failed_request_is_reported_once_and_keeps_the_session_to_resume(
    tmp_path: Path, refusing_server: str, as_json: bool
) -> None:
    flags = ["--json"] if as_json else []
    result = frontier(
        "run", "--base-url", refusing_server, "--model", "m", "--prompt", "hi", *flags,
        tmp_path=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1
    said = result.stdout + result.stderr
    assert said.count("turn ended") <= 1 or as_json
    assert said.count("invalid api key (test)") >= 1
    if as_json:
        events = [json.loads(line) for line in result.stdout.splitlines()]
        assert [e["type"] for e in events if e["type"] == "turn_ended"] == ["turn_ended"]
        # stdout is the whole story, once; stderr has only the hint a failed setup gets
        assert result.stderr == f"note {DOCTOR_HINT}\n"
    else:
        assert re.findall(r"turn ended", said) == ["turn ended"]
        assert "frontier: turn ended: provider_error" in result.stderr
    listing = json.loads(frontier("sessions", "--json", tmp_path=tmp_path).stdout)
    # the person's message is kept: `frontier run --session ID` picks the task up again
    assert [s["state"] for s in listing] == ["failed"], listing
    if as_json:
        assert listing[0]["id"] == events[0]["id"]  # the id the first line named


def test_json_output_names_the_session_first(tmp_path: Path) -> None:
    result = frontier(
        "demo", "--headless", "--json", "--rate", "0", "--protocol", "ctl", tmp_path=tmp_path
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    first = events[0]
    assert first["type"] == "session" and first["resumed"] is False
    assert first["mode"] == "ctl" and first["model"] == "frontier-demo"
    listing = json.loads(frontier("sessions", "--json", tmp_path=tmp_path).stdout)
    assert [s["id"] for s in listing] == [first["id"]]


# --------------------------------------------------------------------------- no terminal


def test_demo_without_a_terminal_runs_headless_instead_of_hanging(tmp_path: Path) -> None:
    result = frontier("demo", "--rate", "0", "--protocol", "ctl", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "stdout is not a terminal, so the demo runs headless" in result.stderr
    assert "═══ demo in ctl mode ═══" in result.stdout
    assert "turn ended: done" in result.stdout


@pytest.mark.parametrize("argv", [[], ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]])
def test_the_tui_without_a_terminal_refuses(tmp_path: Path, argv: list[str]) -> None:
    result = frontier(*argv, tmp_path=tmp_path)
    assert result.returncode == 2
    assert "the TUI needs a terminal (stdout is not a terminal)" in result.stderr
    assert "frontier run" in result.stderr


# --------------------------------------------------------------------------- transduce, check


def test_transduce_summary_exits_1_on_contract_errors_and_0_when_clean(tmp_path: Path) -> None:
    bad_input = b"call c1 w\narg a 5\nhello world\nend\n"
    bad = frontier(
        "transduce", "--protocol", "ctl", "--summary", tmp_path=tmp_path, stdin=bad_input
    )
    assert bad.returncode == 1
    assert json.loads(bad.stdout.splitlines()[-1])["errors"] == 1
    # The event stream exits 0: its errors are records its reader consumes.
    events = frontier("transduce", "--protocol", "ctl", tmp_path=tmp_path, stdin=bad_input)
    assert events.returncode == 0 and '"kind": "unexpected_line"' in events.stdout
    good = frontier(
        "transduce", "--protocol", "ctl", tmp_path=tmp_path,
        stdin=b"call c1 read\narg path a\nend\n",
    )  # fmt: skip
    assert good.returncode == 0 and good.stderr == ""


def test_transduce_says_when_a_native_input_has_no_data_line(tmp_path: Path) -> None:
    text = frontier(
        "transduce", "--protocol", "native-inc", tmp_path=tmp_path, stdin=b"call c1 read\nend\n"
    )
    assert text.returncode == 2
    assert "no SSE `data:` line in the input" in text.stderr
    assert text.stderr.count("no SSE") == 1
    sse = (ROOT / "tests" / "examples" / "reply-native.sse").read_bytes()
    ok = frontier(
        "transduce", "--protocol", "native-inc", "--chunk", "3", tmp_path=tmp_path, stdin=sse
    )
    assert ok.returncode == 0 and "data:" not in ok.stderr


def test_check_help_and_the_readme_define_s1_to_s3(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.parse_args(["check", "--help"])
    text = capsys.readouterr().out
    readme = (ROOT / "README.md").read_text("utf-8")
    for where in (text, readme):
        assert re.search(r"S1\W+no incomplete call", where)
        assert re.search(r"S2\W+a call executable on a prefix is byte-identical", where)
        assert re.search(r"S3\W+the number of executable calls never decreases", where)


def test_replay_and_resume_without_a_terminal_name_the_headless_command(tmp_path: Path) -> None:
    recording = next((ROOT / "tests" / "examples").glob("*.jsonl"))
    replay = frontier("replay", str(recording), tmp_path=tmp_path)
    assert replay.returncode == 2 and f"{recording} --headless" in replay.stderr
    demo = frontier("demo", "--headless", "--rate", "0", "--protocol", "ctl", tmp_path=tmp_path)
    assert demo.returncode == 0
    [session] = json.loads(frontier("sessions", "--json", tmp_path=tmp_path).stdout)
    resume = frontier("resume", session["id"], tmp_path=tmp_path)
    assert resume.returncode == 2
    assert f"frontier resume {session['id']} --headless --prompt" in resume.stderr
