"""`frontier demo --headless --json` end to end: the whole story, the files it leaves.

The script is promised to show each behaviour with the real loop, transducers
and tools; this runs the actual command (no network) and checks the events a
viewer sees and the scratch workspace afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def run_demo(tmp_path: Path, protocol: str) -> tuple[list[dict[str, Any]], Path]:
    env = {**os.environ, "FRONTIER_DATA_DIR": str(tmp_path / "data")}  # the scratch copy too
    argv = ["demo", "--headless", "--json", "--rate", "0", "--protocol", protocol]
    proc = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *argv, "--approval", "auto"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    workspaces = list((tmp_path / "data" / "demo-workspaces").iterdir())
    assert len(workspaces) == 1, workspaces
    return events, workspaces[0]


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["ctl", "ctl-heredoc"])
def test_ctl_demo_tells_the_whole_story(tmp_path: Path, protocol: str) -> None:
    events, ws = run_demo(tmp_path, protocol)
    calls = [(e["id"], e["name"]) for e in of(events, "call")]
    assert calls == [
        ("c1", "read"),
        ("c2", "apply_patch"),
        ("c3", "shell"),
        ("c4", "write"),
        ("c5", "shell"),
        ("c6", "replace"),
    ]
    errors = [e["kind"] for e in of(events, "error")]
    assert errors == ["unexpected_line" if protocol == "ctl" else "body_eof", "truncated"]
    assert "declared" in of(events, "error")[0]["message"]
    assert [e["reason"] for e in of(events, "stop")] == ["text_after_call"]
    assert [e["kind"] for e in of(events, "repair")] == [errors[0], "truncated"]
    finished = {e["id"]: e for e in of(events, "tool_finished") if e["kind"] == "ok"}
    assert "Ran 2 tests" in finished["c3"]["output"] and finished["c3"]["exit"] == 0
    assert finished["c5"]["output"] == "HELLO, ADA!\n"
    assert of(events, "turn_ended")[-1]["reason"] == "done"
    # The scratch copy, not the bundled project, was changed as the script says.
    assert "--shout" in (ws / "greet" / "cli.py").read_text()
    assert (ws / "NOTES.md").read_text().startswith("# Notes")
    assert "--shout Ada" in (ws / "README.md").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["native-inc", "native-eos", "xml"])
def test_short_demo_in_the_other_modes(tmp_path: Path, protocol: str) -> None:
    events, ws = run_demo(tmp_path, protocol)
    names = [e["name"] for e in of(events, "call")]
    assert names == ["read", "read", "apply_patch", "shell"]
    assert of(events, "error") == []
    assert of(events, "turn_ended")[-1]["reason"] == "done"
    assert "--shout" in (ws / "greet" / "cli.py").read_text()
