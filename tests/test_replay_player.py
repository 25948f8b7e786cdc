"""The one replay engine (``app/replay_player.py``) on real recorded streams.

These carry over what ``tests/test_provider_replay.py`` asserted of the second engine it
replaced (``app/providers/replay.py``, removed in issue 13; docs/decisions-providers.md
says why): a stream recorded from a live provider replays to the same calls the live
transducer confirmed, a recording without an end replays as a disconnect (no EOF
rule), and the recorded pace is scaled by the speed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_explain_wire import _rec as recording

from frontier.app.events import CallReady, ContractError, ResponseEnded, StreamBytes
from frontier.app.model.conversation import UserText
from frontier.app.model.demo_script import DEMO_TASK
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd, WireEvent
from frontier.app.model.transport import ModelClient
from frontier.app.model.wires.demo import DemoTransport
from frontier.app.replay_player import ReplayPlayer, load_source, source_from_recording
from frontier.app.session.record import Recording, RecordingWriter, read_recording
from frontier.app.transducers import transducer_factory
from frontier.app.vocab import AGENT_MODES, NATIVE_MODES


async def record_demo(mode: str, path: Path) -> Recording:
    """Record the demo model's first response through the real client path, as the loop's
    recorder does: every SSE ``data`` string with its arrival time, then the end."""
    client = ModelClient(
        codec("openai-chat"), "http://demo.invalid/v1", "demo", transport=DemoTransport(mode, 0)
    )
    request = ModelRequest(system="", items=(UserText(DEMO_TASK),))
    with RecordingWriter(path, mode, "demo", wire=client.wire) as writer:
        async for item in client.stream(request):
            if isinstance(item, WireEvent):
                writer.event(item.raw, t=item.t)
            elif isinstance(item, StreamEnd):
                writer.end(item.finish_reason, item.usage.to_json() or None)
    await client.aclose()
    return read_recording(path)


def calls(events: list[Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (e.call.id, e.call.name, e.call.json_args()) for e in events if isinstance(e, CallReady)
    ]


@pytest.mark.parametrize("mode", AGENT_MODES)
async def test_a_recorded_live_stream_replays_to_the_same_calls(mode: str, tmp_path: Path) -> None:
    rec = await record_demo(mode, tmp_path / "r.jsonl")
    assert rec.finish_reason in ("stop", "tool_calls") and rec.events
    assert rec.wire == "openai-chat"
    live = transducer_factory(rec.wire)(mode)
    expected = calls(live.feed(rec.transducer_input()) + live.finish(rec.clean))
    assert expected, "the demo's first response makes calls"

    player = ReplayPlayer(load_source(tmp_path / "r.jsonl"))
    events = player.run_all()
    assert calls(events) == expected
    # what the transducer reads, as live shows it: a native SSE body's text and arguments
    read = b"".join(e.data for e in events if isinstance(e, StreamBytes))
    if mode in NATIVE_MODES:
        assert len(read) == live.consumed and b"data:" not in read
    else:
        assert read == player.source.data
    assert events[-1] == ResponseEnded(rec.finish_reason)


def test_a_recording_without_an_end_replays_as_a_disconnect(tmp_path: Path) -> None:
    """The recorder died mid-response: the end line is missing, so replay ends it as
    ``disconnect`` — a truncation, where EOF sufficiency never applies (DESIGN §3)."""
    text = "call c1 read\narg path a.py\nend"  # complete only under the EOF rule
    chunk = {"choices": [{"index": 0, "delta": {"content": text}}]}
    path = tmp_path / "cut.jsonl"
    writer = RecordingWriter(path, "ctl", "m")
    writer.event(json.dumps(chunk), t=0.1)
    writer.close()

    cut = ReplayPlayer(load_source(path)).run_all()
    assert cut[-1] == ResponseEnded("disconnect")
    assert not calls(cut)
    assert any(isinstance(e, ContractError) for e in cut)

    clean = Recording("ctl", "m", "", ((0.1, json.dumps(chunk)),), finish_reason="stop")
    assert calls(ReplayPlayer(source_from_recording(clean)).run_all()) == [
        ("c1", "read", {"path": "a.py"})
    ]


def test_recorded_pace_is_scaled_by_speed() -> None:
    """At 2× a byte recorded at 0.3 s arrives after 0.15 s of play; ``None`` is max speed."""
    events = tuple(
        (t, json.dumps({"choices": [{"index": 0, "delta": {"content": c}}]}))
        for t, c in ((0.1, "a"), (0.3, "b"), (0.9, "c"))
    )
    rec = Recording("ctl", "m", "", events, finish_reason="stop")
    player = ReplayPlayer(source_from_recording(rec))
    assert not [e for e in player.advance(0.04, 2.0) if isinstance(e, StreamBytes)]
    assert player.position == 0
    player.advance(0.02, 2.0)  # 0.12 s of recording played
    assert player.position == 1
    player.advance(0.03, 2.0)  # 0.18 s
    assert player.position == 1
    player.advance(0.02, 2.0)  # 0.22 s
    assert player.position == 1
    player.advance(0.04, 2.0)  # 0.30 s: "b" is due
    assert player.position == 2
    player.advance(0.0, None)  # max: the rest at once
    assert player.position == 3 and player.finished


# --------------------------------------------------------------------------- beside the text


def _text(piece: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}


def test_replay_plays_an_error_the_live_run_raised_beside_the_text() -> None:
    """An event that is not JSON inside a ctl-heredoc frame failed the live call
    (``bad_json``), but the text alone reads as a whole frame, so replay showed a
    ``write`` that the live run never ran. Now ``e`` stops there, and no call is ready."""
    head = "call c1 write\narg path a.txt\narg content <<EOF\nl"
    rec = recording(
        "openai-chat",
        [_text(head), "{not json", _text("ine2\nEOF\nend\n"), "[DONE]"],
        mode="ctl-heredoc",
    )
    player = ReplayPlayer(source_from_recording(rec, name="holed"))
    assert player.error_offsets == [len(head)]
    events = player.next_error()
    (error,) = [e for e in events if isinstance(e, ContractError)]
    assert (error.kind, error.offset) == ("bad_json", len(head))
    assert player.position == len(head) + 1  # one byte on, as after an error a byte raises
    rest = player.run_all()
    assert not any(isinstance(e, CallReady) for e in events + rest)
    assert not any(isinstance(e, ContractError) for e in rest)
    assert isinstance(rest[-1], ResponseEnded)
    assert sum(len(e.data) for e in rest if isinstance(e, StreamBytes)) == (
        player.size - len(head) - 1  # the rest of the bytes still shown, as they arrived
    )


def test_replay_under_another_protocol_plays_only_what_the_text_raises() -> None:
    """The errors beside the text are the recorded protocol's adapter's: replayed as
    ctl (a re-framing experiment), the same stream plays as its text reads."""
    head = "call c1 write\narg path a.txt\narg content <<EOF\nl"
    rec = recording(
        "openai-chat",
        [_text(head), "{not json", _text("ine2\nEOF\nend\n"), "[DONE]"],
        mode="ctl-heredoc",
    )
    assert ReplayPlayer(source_from_recording(rec, "ctl")).error_offsets == []
    assert ReplayPlayer(source_from_recording(rec)).error_offsets == [len(head)]
