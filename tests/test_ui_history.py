"""A resumed session's timeline becomes the events it emitted live, and the Transcript
shows them as it showed the live turn (UiState, no Textual needed)."""

from __future__ import annotations

from typing import Any

from frontier.app.agent.history_events import history_events
from frontier.app.events import (
    AssistantText,
    CallReady,
    ContractError,
    ToolFinished,
    ToolStarted,
    TurnEnded,
    UserMessage,
)
from frontier.app.session.store import LogRecord
from frontier.widgets.state import UiState
from frontier.widgets.transcript import render_entry


def rec(
    seq: int, type_: str, data: dict[str, Any], call_id: str | None = None, ref: int | None = None
) -> LogRecord:
    return LogRecord(seq, type_, 0.0, call_id, ref, None, data)


RECORDS = [
    rec(1, "user", {"text": "add a flag"}),
    rec(2, "assistant", {"text": "Reading "}),
    rec(3, "assistant", {"text": "the CLI."}),
    rec(4, "call", {"name": "read", "args": {"path": "cli.py"}}, "c1"),
    rec(5, "started", {}, "c1", 4),
    rec(6, "result", {"name": "read", "kind": "ok", "output": "1\tdef main():\n2\t..."}, "c1", 4),
    rec(7, "error", {"kind": "body_eof", "message": "declared 9, got 3", "offset": 40}),
    rec(8, "call", {"name": "shell", "args": {"command": "make test"}}, "c1"),  # id reused
    rec(9, "result", {"name": "shell", "kind": "interrupted", "output": ""}, "c1", 8),
    rec(10, "assistant", {"text": "Half a", "interrupted": True}),
]


def test_the_timeline_becomes_the_events_the_live_session_emitted() -> None:
    kinds = [type(e) for e in history_events(RECORDS)]
    assert kinds == [
        UserMessage,
        AssistantText,
        AssistantText,
        CallReady,
        ToolStarted,
        ToolFinished,
        ContractError,
        CallReady,
        ToolFinished,
        AssistantText,
        TurnEnded,
    ]


def test_history_reads_like_the_transcript_did() -> None:
    state = UiState()
    state.show_history(history_events(RECORDS))
    lines = [(e.role, e.text) for e in state.transcript]
    assert lines == [
        ("you", "add a flag"),
        ("ai", "Reading the CLI."),
        ("call", ""),
        ("error", "body_eof at byte 40: declared 9, got 3"),
        ("call", ""),
        ("ai", "Half a"),
    ]
    read, shell = (e for e in state.transcript if e.role == "call")
    assert read.tool is not None and shell.tool is not None  # each keeps its own row
    assert render_entry(read, read.tool, 0.0).plain.split("\n") == [
        "▸ c1 read cli.py",
        "  1→def main():",
        "  2→...",
        "  ok · 0.00 s",
    ]
    assert render_entry(shell, shell.tool, 0.0).plain.split("\n") == [
        "• c1 shell make test",
        "  interrupted · 0.00 s",
    ]
    assert state.transcript[-1].interrupted  # the stored mark, no key known
    assert not any(e.text.startswith("⏹") for e in state.transcript)  # said once
    # the panes about the stream are about what happens from now on
    assert state.tools == {} and not state.errors and not state.confirmed
    assert state.response_count == 0 and state.last_turn == ""
