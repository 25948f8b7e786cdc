"""Reasoning streams (``delta.reasoning_content`` / ``delta.reasoning``): shown and recorded,
never fed to a transducer, never sent back to the model."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

from scripted import chat_event
from sse_server import sse
from test_agent_http import Server, body_handler, content, finish, make_rig, server  # noqa: F401

from frontier.app.agent.modes import get_mode
from frontier.app.events import AssistantText, ReasoningText, ResponseStarted, StreamBytes
from frontier.app.frontends.headless import EventPrinter
from frontier.widgets.state import UiState
from frontier.widgets.transcript import render_entry


def thinking(text: str, field: str = "reasoning_content") -> bytes:
    return sse({"choices": [{"index": 0, "delta": {field: text}, "finish_reason": None}]})


def chunk(delta: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}


def test_reasoning_is_an_event_and_never_transducer_input() -> None:
    for mode in ("ctl-heredoc", "ctl", "xml", "native-inc", "native-eos"):
        adapter = get_mode(mode).adapter()
        for field in ("reasoning_content", "reasoning"):
            event = chat_event(chunk({field: "call c1 read\narg path x\nend\n"}))
            data, events = adapter.feed(event.deltas)
            assert data == b"", mode
            assert events == [ReasoningText("call c1 read\narg path x\nend\n")], mode
        assert adapter.frontier == 0 and adapter.pending() == b""


async def test_a_reasoning_model_turn_runs_its_call_and_keeps_reasoning_out_of_history(
    server: Server,  # noqa: F811
    make_rig: Callable[..., Any],  # noqa: F811
) -> None:
    reply = (
        thinking("The user wants a file. ")
        + thinking("I will write it: call c9 write\n", "reasoning")
        + content("call c1 write\narg path a.txt\narg content done\nend\n")
        + finish()
    )
    server.handlers = [body_handler(reply), body_handler(content("Done.") + finish())]
    rig = make_rig(server.url)
    ended = await rig.loop.send("make a.txt")
    assert ended.reason == "done"
    assert (rig.root / "a.txt").read_text() == "done"
    assert not (rig.root / "c9").exists()
    said = [e.text for e in rig.events if isinstance(e, ReasoningText)]
    assert "".join(said) == "The user wants a file. I will write it: call c9 write\n"
    second = json.dumps(server.requests[1]["messages"])
    assert "The user wants a file" not in second and "reasoning" not in second
    (response, _) = rig.store.recordings(rig.session_id)
    assert any("The user wants a file" in data for _, data in response.events)


def test_the_transcript_shows_a_folded_thinking_block_and_the_raw_pane_its_tail() -> None:
    state = UiState(clock=lambda: 0.0)
    state.apply(ResponseStarted("ctl", 0))
    lines = "".join(f"step {i}\n" for i in range(10))
    for piece in (lines[:20], lines[20:]):
        state.apply(ReasoningText(piece))
    state.apply(StreamBytes(0, b"Hello"))
    state.apply(AssistantText("Hello"))
    roles = [e.role for e in state.transcript]
    assert roles == ["thinking", "ai"]
    folded = render_entry(state.transcript[0], None, 0.0).plain
    assert "step 9" in folded and "step 0" not in folded and "ctrl+t shows all" in folded
    whole = render_entry(state.transcript[0], None, 0.0, expanded=True).plain
    assert "step 0" in whole and "step 9" in whole
    assert state.current is not None and state.current.reasoning == lines
    assert bytes(state.current.data) == b"Hello"  # the stream itself has no reasoning in it
    state.toggle_thinking()
    assert state.thinking_expanded


def test_headless_text_streams_reasoning_to_stderr_as_one_block() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = EventPrinter(out, err=err)
    for piece in ("Let me ", "think.\nYes."):
        printer(ReasoningText(piece))
    assert err.getvalue() == "think Let me think.\n      Yes."  # live, before the answer
    printer(AssistantText("Answer"))
    assert err.getvalue().splitlines() == ["think Let me think.", "      Yes."]
    assert out.getvalue().splitlines() == ["ai  Answer"]
