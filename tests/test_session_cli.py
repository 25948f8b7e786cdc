"""``frontier sessions`` and ``frontier export`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from frontier.app.cli import main
from frontier.app.events import ToolCall, ToolResult
from frontier.app.model.conversation import ResultEntry, ToolResults, UserText
from frontier.app.session.store import SessionStore
from frontier.tools.contract import Preview, ToolSpec
from frontier.tools.workspace_files import BeneathFiles

SHELL = ToolSpec("shell", "", {}, kind="exec")


def make_session(workspace: str = "/proj", model: str = "qwen", mode: str = "ctl-heredoc") -> str:
    with SessionStore.open() as store:
        sid = store.create_session(workspace, model, None, mode)
        store.append_items(sid, [UserText("run the tests")])
        store.add_assistant_text(sid, "I'll run ")
        store.add_assistant_text(sid, "them.")
        p = store.persistence(sid)
        p.persist_call(
            ToolCall("c1", "shell", {"command": "pytest -q"}),
            SHELL,
            Preview("command", command="pytest -q"),
        )
        p.mark_started("c1")
        p.commit_result(
            ToolResult("c1", "shell", "ok", "3 passed\n```\n", exit_code=0, elapsed=1.5)
        )
        store.append_items(
            sid, [ToolResults((ResultEntry("c1", "shell", "ok", 0, "3 passed\n"),), framed=True)]
        )
        store.add_contract_error(
            sid, "body_eof", 'arg "content": declared 495 bytes but only 438 arrived', 812
        )
        p.persist_call(
            ToolCall("c2", "shell", {"command": "make"}), SHELL, Preview("command", command="make")
        )
        p.mark_started("c2")
        store.recover(sid, files=BeneathFiles)
        store.set_state(sid, "interrupted")
    return sid


def test_sessions_on_an_empty_store_is_friendly(capsys) -> None:
    assert main(["sessions"]) == 0
    out = capsys.readouterr().out
    assert "No sessions yet" in out and "frontier demo" in out
    assert main(["sessions", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_sessions_lists_newest_first(capsys) -> None:
    first = make_session(model="first-model")
    second = make_session(workspace="/other", model="second-model", mode="native-inc")
    assert main(["sessions"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "ID", "STARTED", "WORKSPACE", "MODEL", "MODE", "TURNS", "STATE", "PROMPT"
    ]  # fmt: skip
    assert lines[1].startswith(second) and "second-model" in lines[1] and "native-inc" in lines[1]
    assert lines[2].startswith(first)
    assert lines[2].split()[-5:] == ["1", "interrupted", "run", "the", "tests"]

    assert main(["sessions", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [second, first]
    assert {"id", "started", "workspace", "model", "mode", "turns", "state"} <= set(rows[0])
    assert rows[1]["turns"] == 1 and rows[1]["workspace"] == "/proj"


def test_export_jsonl_pairs_results_with_calls(capsys) -> None:
    sid = make_session()
    assert main(["export", sid[:4], "--format", "jsonl"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["type"] for r in records] == [
        "user",
        "assistant",
        "call",
        "result",
        "error",
        "call",
        "result",
    ]
    assert records[0]["text"] == "run the tests"
    assert records[1]["text"] == "I'll run them."  # confirmed pieces joined
    calls = {r["id"]: r for r in records if r["type"] == "call"}
    results = [r for r in records if r["type"] == "result"]
    assert all(r["id"] in calls for r in results)
    assert [(r["id"], r["kind"]) for r in results] == [("c1", "ok"), ("c2", "interrupted")]
    assert results[0]["exit"] == 0 and results[1]["recovered"] is True
    assert calls["c1"]["args"] == {"command": "pytest -q"}
    assert records[4]["kind"] == "body_eof" and records[4]["offset"] == 812


def test_export_markdown_to_file(tmp_path: Path, capsys) -> None:
    sid = make_session()
    out = tmp_path / "out" / "session.md"
    assert main(["export", sid, "--format", "markdown", "-o", str(out)]) == 0
    assert f"to {out}" in capsys.readouterr().err
    text = out.read_text()
    assert text.startswith(f"# Frontier session {sid}")
    assert "## You\n\nrun the tests" in text
    assert "## Assistant\n\nI'll run them." in text
    assert "### ▸ shell `c1`" in text
    assert "**result** `ok` · exit 0 · 1.50 s" in text
    assert "````text\n3 passed\n```\n````" in text  # fence longer than the output's own
    assert "> **contract error** `body_eof` at byte 812" in text
    assert "(reconciled after a crash)" in text


def test_export_markdown_quotes_a_messages_notes_apart(tmp_path: Path, capsys) -> None:
    """A message that opened with a note (an undo's, a `!` command's) reads in the
    Markdown as the note quoted, then what the person typed (the JSON lines keep the
    message as the model received it)."""
    from frontier.app.notices import PERSON_RAN_OPENING, with_notices

    note = f"{PERSON_RAN_OPENING} in the workspace (exit 1 after 0.4 s); …)\n  $ pytest\n  F"
    with SessionStore.open() as store:
        sid = store.create_session("/proj", "m", None, "ctl-heredoc")
        store.append_items(sid, [UserText(with_notices([note], "fix it"))])
    out = tmp_path / "s.md"
    assert main(["export", sid, "--format", "markdown", "-o", str(out)]) == 0
    text = out.read_text()
    assert f"## You\n\n> _note_\n>\n> {PERSON_RAN_OPENING}" in text
    assert ">   $ pytest\n>   F\n\nfix it\n" in text
    assert main(["export", sid, "--format", "jsonl"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["text"] == with_notices([note], "fix it")


@pytest.mark.parametrize("fmt", ["jsonl", "markdown"])
def test_export_unknown_session_is_a_usage_error(capsys, fmt: str) -> None:
    assert main(["export", "nope", "--format", fmt]) == 2
    assert "no sessions yet" in capsys.readouterr().err
    make_session()
    assert main(["export", "zzzz", "--format", fmt]) == 2
    err = capsys.readouterr().err
    assert "no session matches 'zzzz'" in err and "frontier sessions" in err


def test_sessions_command_never_tracebacks_on_a_broken_database(
    tmp_path: Path, monkeypatch
) -> None:
    data = tmp_path / "broken"
    data.mkdir()
    (data / "sessions.db").write_bytes(b"garbage" * 200)
    monkeypatch.setenv("FRONTIER_DATA_DIR", str(data))
    proc = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "sessions"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "move it aside" in proc.stderr


def test_session_modules_stay_headless_and_light() -> None:
    """The store, recovery and these commands never load Textual or httpx (fast start)."""
    code = (
        "import sys\n"
        "import frontier.app.session.store, frontier.app.session.recover\n"
        "import frontier.app.commands.sessions, frontier.app.commands.export\n"
        "print('textual' in sys.modules, 'httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False False", out.stderr
