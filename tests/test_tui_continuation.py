"""Where a continued response was joined, as the panes show it (live state and replay)."""

from __future__ import annotations

import json

from pilot_wait import until

from frontier.app.config import Config
from frontier.app.events import Confirmed, ResponseContinued, ResponseStarted, StreamBytes
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.replay_player import ReplayPlayer, source_from_recording
from frontier.app.session.record import Recording
from frontier.app.wire.continuation import Join, join_data
from frontier.widgets.raw_stream import JOIN, RawStreamView
from frontier.widgets.state import UiState
from frontier.widgets.transcript import Transcript

FIRST = "call c1 write\narg path a.txt\narg content <<EOF\nline one\nli"
REST = "ne two\nEOF\nend\n"


def _chunk(text: str, finish: str | None = None) -> str:
    return json.dumps({"choices": [{"delta": {"content": text}, "finish_reason": finish}]})


def joined_recording() -> Recording:
    """The first stream cut by ``length``, the marker, then llama.cpp's echo + the rest."""
    size = len(FIRST.encode())
    events = [(0.01 * i, _chunk(FIRST[i * 8 : i * 8 + 8])) for i in range(len(FIRST) // 8 + 1)]
    events += [(0.5, _chunk("", "length")), (0.6, join_data(Join(size, size, 1)))]
    events += [(0.7, _chunk(FIRST + REST[:3])), (0.8, _chunk(REST[3:])), (0.9, _chunk("", "stop"))]
    return Recording("ctl-heredoc", "m", "2026-01-01", tuple(events), finish_reason="stop")


def test_the_state_keeps_the_join_for_the_raw_pane_and_says_it_in_the_transcript() -> None:
    state = UiState(clock=lambda: 0.0)
    state.apply(ResponseStarted("ctl-heredoc", 0))
    state.apply(StreamBytes(0, b"call c1 write\n"))
    state.apply(Confirmed(0, "frame", b"call c1 write\n"))
    state.apply(ResponseContinued(14, 14, 1))
    assert state.current is not None and state.current.joins == [(14, 14)]
    assert state.confirmed[-1].label == "⟂ continued at byte 14"
    note = state.transcript[-1].text
    assert note.startswith("⟂ continued at byte 14 (continuation 1)") and "echo of 14 bytes" in note


def test_a_continued_reply_stays_one_block_with_the_join_said_below_it() -> None:
    """The rig: ``• **Almond`` cut, continued, ``** (not …)``: the reply was cut in two
    around the ⟂ line, and its Markdown broke at the join (the export joined it)."""
    from frontier.app.events import AssistantText

    state = UiState(clock=lambda: 0.0)
    state.apply(ResponseStarted("ctl-heredoc", 0))
    state.apply(AssistantText("3 Fruits:\n• **Almond"))
    state.apply(ResponseContinued(20, 20, 1))
    state.apply(AssistantText("** (not in the list)\n"))
    replies = [e for e in state.transcript if e.role == "ai"]
    assert len(replies) == 1
    assert replies[0].prose is not None
    assert "**Almond** (not in the list)" in "".join(replies[0].prose.text)
    assert state.transcript[-1].text.startswith("⟂ continued at byte 20")
    state.apply(ResponseStarted("ctl-heredoc", 1))  # the next response: a reply of its own
    state.apply(AssistantText("Next."))
    assert len([e for e in state.transcript if e.role == "ai"]) == 2


async def test_replay_marks_the_join_in_the_raw_stream_pane() -> None:
    player = ReplayPlayer(source_from_recording(joined_recording()))
    app = FrontierApp(Config(), player=player, remember_theme=False, token_rate=0.0, paused=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(
            pilot,
            lambda: app.screen.is_mounted and app.screen.query_one(Transcript).size.height > 0,
            "the first layout",
        )
        app.observe_all(player.run_all())
        app.flush(force=True)
        raw = app.screen.query_one(RawStreamView)
        await until(pilot, lambda: raw.line_count >= 6, "the stream indexed")
        lines = [raw.render_line(y).text for y in range(raw.size.height)]
        assert any(f"li{JOIN}ne two" in line for line in lines), lines
        assert sum(line.count(JOIN) for line in lines) == 1  # the echo never shows
        transcript = app.screen.query_one(Transcript)
        await until(
            pilot,
            lambda: any("continued at byte 58" in line for line in transcript.plain_lines),
            "the join in the Transcript",
        )
