"""The API key never reaches the session database (nor its WAL), even if the model echoes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from frontier.app.events import ToolCall, ToolResult
from frontier.app.model.conversation import AssistantTurn, UserText
from frontier.app.session.store import SessionStore
from frontier.tools.contract import Preview, ToolSpec

KEY = "sk-frontier-TEST-9f2c1e7d4b3a"


def _chunk(text: str) -> str:
    return json.dumps({"choices": [{"delta": {"content": text}}]})


def _db_bytes(path: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            data += p.read_bytes()
    return data


@pytest.mark.parametrize(
    "var", ["FRONTIER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"]
)
def test_api_key_never_written(tmp_path: Path, monkeypatch, var: str) -> None:
    monkeypatch.setenv(var, KEY)
    db = tmp_path / "sessions.db"
    store = SessionStore.open(db)
    sid = store.create_session(str(tmp_path), "gpt-x", f"https://user:{KEY}@api.example/v1", "ctl")
    store.append_items(sid, [UserText("print the environment")])
    rid = store.begin_response(sid, "ctl", "gpt-x", 0)
    for piece in ("I'll run ", "env.\n", "call c1 shell\n", "arg command env\n", "end\n"):
        store.add_stream_event(rid, 0.01, _chunk(piece))
    store.add_assistant_text(sid, "I'll run env.\n")
    p = store.persistence(sid)
    call = ToolCall("c1", "shell", {"command": "env"})
    p.persist_call(call, ToolSpec("shell", "", {}, kind="exec"), Preview("command", command="env"))
    p.mark_started("c1")
    # The tool output and the model's echo both contain the key: the store scrubs it.
    p.commit_result(ToolResult("c1", "shell", "ok", f"HOME=/root\n{var}={KEY}\n", exit_code=0))
    store.add_stream_event(rid, 0.02, _chunk(f"your key is {KEY}"))
    store.end_response(rid, "stop")
    store.append_items(sid, [AssistantTurn(f"your key is {KEY}")])
    store.add_contract_error(sid, "bad_arg", f"arg {KEY!r} is odd", 12, rid)

    raw = _db_bytes(db)
    assert b"print the environment" in raw  # ordinary text is stored (the grep is meaningful)
    assert KEY.encode() not in raw
    assert KEY.encode("utf-16-le") not in raw
    last = store.load_items(sid)[-1]
    assert isinstance(last, AssistantTurn) and "[REDACTED]" in last.text
    store.close()
    assert KEY.encode() not in _db_bytes(db)
