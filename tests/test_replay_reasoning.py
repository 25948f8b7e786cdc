"""``replay`` shows the model's reasoning where the live run did: a reasoning model's
capture or stored session replayed without a word of its thinking, so why it made (or
mangled) a call could not be seen where the call was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from frontier.app.cli import main
from frontier.app.events import CallReady, ReasoningText
from frontier.app.replay_player import ReplayPlayer, load_source


def chat(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
    return {"object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip


def sse(chunks: list[dict[str, object]]) -> str:
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


NATIVE = [
    chat({"reasoning_content": "Read the notes "}),
    chat({"reasoning_content": "first."}),
    chat(
        {
            "tool_calls": [
                {"index": 0, "id": "c1", "function": {"name": "read", "arguments": '{"path": "a"}'}}
            ]
        }
    ),
    chat({}, "tool_calls"),
]
TEXT = [
    chat({"reasoning_content": "Read the notes first."}),
    chat({"content": "Reading.\ncall c1 read\narg path a\n"}),
    chat({"reasoning_content": "Then close it."}),
    chat({"content": "end\n"}),
    chat({}, "stop"),
]


@pytest.mark.parametrize(
    ("chunks", "thoughts"),
    [(NATIVE, ["Read the notes ", "first."]), (TEXT, ["Read the notes first.", "Then close it."])],
    ids=["native-inc", "ctl-heredoc"],
)
def test_reasoning_plays_before_what_followed_it(
    tmp_path: Path, chunks: list[dict[str, object]], thoughts: list[str]
) -> None:
    path = tmp_path / "capture.sse"
    path.write_text(sse(chunks))
    events = ReplayPlayer(load_source(path)).run_all()
    said = [e.text for e in events if isinstance(e, ReasoningText)]
    assert said == thoughts
    last_thought = max(i for i, e in enumerate(events) if isinstance(e, ReasoningText))
    call = next(i for i, e in enumerate(events) if isinstance(e, CallReady))
    first_thought = next(i for i, e in enumerate(events) if isinstance(e, ReasoningText))
    assert first_thought < call
    if chunks is TEXT:  # the second thought came between the call's frames and its end
        assert last_thought < call
        started = [i for i, e in enumerate(events) if type(e).__name__ == "ArgStarted"]
        assert started and started[0] < last_thought


def test_replay_headless_prints_it_and_check_is_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "capture.sse"
    path.write_text(sse(TEXT))
    assert main(["replay", "--headless", str(path)]) == 0
    out = capsys.readouterr().out
    assert 'reasoning text="Read the notes first."' in out
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "calls=1" in out and "mode=ctl-heredoc" in out
