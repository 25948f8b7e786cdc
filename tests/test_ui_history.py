"""A resumed session's timeline becomes transcript lines (UiState, no Textual needed)."""

from __future__ import annotations

from frontier.app.session.store import LogRecord
from frontier.widgets.state import UiState


def rec(seq: int, type_: str, data: dict, call_id: str | None = None, ref: int | None = None):  # type: ignore[no-untyped-def]
    return LogRecord(seq, type_, 0.0, call_id, ref, None, data)


def test_history_reads_like_the_transcript_did() -> None:
    state = UiState()
    state.add_history(
        [
            rec(1, "user", {"text": "add a flag"}),
            rec(2, "assistant", {"text": "Reading "}),
            rec(3, "assistant", {"text": "the CLI."}),
            rec(4, "call", {"name": "read", "args": {"path": "cli.py"}}, "c1"),
            rec(5, "started", {}, "c1", 4),
            rec(
                6,
                "result",
                {"name": "read", "kind": "ok", "output": "1\tdef main():\n2\t..."},
                "c1",
                4,
            ),
            rec(7, "error", {"kind": "body_eof", "message": "declared 9, got 3", "offset": 40}),
            rec(8, "call", {"name": "shell", "args": {"command": "make test"}}, "c1"),  # id reused
            rec(9, "result", {"name": "shell", "kind": "interrupted", "output": ""}, "c1", 8),
        ]
    )
    lines = [(e.role, e.text) for e in state.transcript]
    assert lines == [
        ("you", "add a flag"),
        ("ai", "Reading the CLI."),
        ("note", "▸ c1 read cli.py  ok: 1 def main():"),
        ("error", "body_eof at byte 40: declared 9, got 3"),
        ("note", "▸ c1 shell make test  interrupted"),
    ]
    assert state.tools == {}  # the Tools pane is about what runs from now on
