"""A user's flow across commands: run the demo, list it, check it, export it.

Every subprocess gets its own ``FRONTIER_DATA_DIR`` and ``TMPDIR`` under the test's
temp dir, so the store and the demo's scratch workspace never touch the home dir.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def frontier(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp_path), "FRONTIER_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def demo_session(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    tmp = tmp_path_factory.mktemp("flow")
    run = frontier("demo", "--headless", "--rate", "0", "--protocol", "ctl-heredoc", tmp_path=tmp)
    assert run.returncode == 0, run.stderr
    listing = frontier("sessions", "--json", tmp_path=tmp)
    sessions = json.loads(listing.stdout)
    assert len(sessions) == 1
    return sessions[0]["id"], tmp


def test_check_session_passes_every_response(
    demo_session: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id, tmp = demo_session
    result = frontier("check", session_id, tmp_path=tmp)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) >= 9  # one line per recorded response of the demo story
    assert all("ok" in line.lower() for line in lines[:9]), result.stdout


def test_check_in_several_processes_says_exactly_what_one_process_says(
    demo_session: tuple[str, Path],
) -> None:
    """``-j``: responses checked in forked workers, printed in order as they come; the
    lines, the explanations between them and the exit status are the same as in one
    process (the demo's session has contract errors and a continued response)."""
    session_id, tmp = demo_session
    one = frontier("check", "-j", "1", "--explain", session_id, tmp_path=tmp)
    many = frontier("check", "-j", "3", "--explain", session_id, tmp_path=tmp)
    assert one.returncode == many.returncode == 0, many.stderr
    assert many.stdout == one.stdout and many.stderr == one.stderr
    assert "explain" in one.stdout.lower() or "contract error" in one.stdout.lower()
    refused = frontier("check", "-j", "0", session_id, tmp_path=tmp)
    assert refused.returncode == 2 and "-j/--jobs" in refused.stderr


def test_export_jsonl_pairs_every_result_with_its_call(
    demo_session: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id, tmp = demo_session
    result = frontier("export", session_id, "--format", "jsonl", tmp_path=tmp)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    calls = [r for r in records if r["type"] == "call"]
    results = [r for r in records if r["type"] == "result"]
    errors = [r for r in records if r["type"] == "error"]
    assert len(calls) == len(results) == 6
    assert {r["id"] for r in results} == {c["id"] for c in calls}
    assert [e["kind"] for e in errors] == ["body_eof", "truncated"]


def test_unknown_session_is_a_clear_usage_error(
    demo_session: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, tmp = demo_session
    result = frontier("check", "doesnotexist", tmp_path=tmp)
    assert result.returncode == 2
    assert "doesnotexist" in result.stderr and "Traceback" not in result.stderr


def test_resuming_an_unknown_session_fails_before_any_tui(
    demo_session: tuple[str, Path],
) -> None:
    _, tmp = demo_session
    result = frontier("resume", "doesnotexist", tmp_path=tmp)
    assert result.returncode == 2
    assert "no session matches 'doesnotexist'" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_replay_session_headless_prints_every_response(demo_session: tuple[str, Path]) -> None:
    session_id, tmp = demo_session
    result = frontier("replay", session_id, "--headless", "--json", tmp_path=tmp)
    assert result.returncode == 1  # the demo's responses include two contract errors
    events = [json.loads(line) for line in result.stdout.splitlines()]
    starts = [e for e in events if e["type"] == "response_started"]
    calls = [e["id"] for e in events if e["type"] == "call"]
    assert len(starts) >= 9
    assert calls[:3] == ["c1", "c2", "c3"]


def test_replay_one_response_of_a_session(demo_session: tuple[str, Path]) -> None:
    session_id, tmp = demo_session
    clean = frontier("replay", f"{session_id}#0", "--headless", tmp_path=tmp)
    assert clean.returncode == 0 and "c1" in clean.stdout
    missing = frontier("replay", f"{session_id}#99", "--headless", tmp_path=tmp)
    assert missing.returncode == 2 and "no response #99" in missing.stderr


def test_run_json_text_lines_have_the_transduce_shape(tmp_path: Path) -> None:
    """`run --json` and `transduce` share the text/call/error/stop line shapes."""
    result = frontier(
        "demo", "--headless", "--json", "--rate", "0", "--protocol", "ctl", tmp_path=tmp_path
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    text = next(e for e in events if e["type"] == "text")
    call = next(e for e in events if e["type"] == "call")
    error = next(e for e in events if e["type"] == "error")
    assert isinstance(text["data"], str) and text["data"]
    assert {"id", "name", "args", "offset"} <= call.keys()
    assert {"kind", "message", "offset"} <= error.keys()
    assert events[-2]["type"] == "turn_ended" and events[-2]["reason"] == "done"
    result = events[-1]  # the run's summary closes the output
    assert result["type"] == "result" and result["exit"] == 0 and result["reason"] == "done"
    assert result["session"] == events[0]["id"]
    assert "greet/cli.py" in result["files"] and result["tool_calls"] >= 5
    assert result["requests"] == sum(e["type"] == "response_started" for e in events)
    assert (
        result["answer"] == next(e for e in reversed(events) if e["type"] == "text")["data"].strip()
    )
