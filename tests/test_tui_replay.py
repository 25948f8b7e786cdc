"""Replay: the player's stepping, the TUI keys that drive it, and --headless output."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

from pilot_wait import focus_of, until

from frontier.app.commands import replay as replay_cmd
from frontier.app.config import Config
from frontier.app.events import ContractError, StreamBytes
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.replay_player import (
    ReplayPlayer,
    faster,
    parse_speed,
    slower,
    source_from_recording,
)
from frontier.app.session.record import synthesize, write_recording
from frontier.widgets.errors_pane import ErrorsPane
from frontier.widgets.raw_stream import RawStreamView

GOOD = "Hello there.\ncall c1 read\narg path app/cli.py\nend\n"
BAD = "Let me look.\ncall c1 read\nnot an arg line\nend\n"


def player_for(text: str, mode: str = "ctl") -> ReplayPlayer:
    return ReplayPlayer(source_from_recording(synthesize(text, mode, sizes=(5,)), name="t"))


def test_player_steps_by_byte_line_and_event() -> None:
    player = player_for(GOOD)
    player.step_bytes()
    assert player.position == 1
    player.step_line()
    assert player.position == GOOD.index("\n") + 1
    assert player.frontier == GOOD.index("\n") + 1  # a prose line confirms at its newline
    before = player.position
    events = player.step_event()
    assert any(not isinstance(e, StreamBytes) for e in events)
    assert player.position > before
    player.run_all()
    assert player.finished and player.position == len(GOOD)


def test_player_jumps_to_the_next_error() -> None:
    player = player_for(BAD)
    assert player.error_offsets
    events = player.next_error()
    errors = [e for e in events if isinstance(e, ContractError)]
    assert errors and errors[0].offset == player.error_offsets[0]


def test_speed_ladder_reaches_max_and_back() -> None:
    assert faster(1.0) == 2.0
    assert faster(100.0) is None  # max
    assert slower(None) == 100.0
    assert slower(0.1) == 0.1
    assert parse_speed("max") is None
    assert parse_speed("250") == 100.0


def make_replay_app(text: str) -> FrontierApp:
    return FrontierApp(
        Config(), player=player_for(text), paused=True, remember_theme=False, token_rate=0.0
    )


async def test_replay_keys_step_the_frontier() -> None:
    app = make_replay_app(GOOD)
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.replay is not None
        player = app.replay.player
        assert player is not None
        await pilot.press("full_stop")
        await until(pilot, lambda: player.position == 1, "the byte step")
        assert player.position == 1
        assert app.state.consumed == 1
        await pilot.press("comma")
        await until(pilot, lambda: player.position == GOOD.index("\n") + 1, "the line step")
        assert player.position == GOOD.index("\n") + 1
        assert app.state.frontier == player.frontier == GOOD.index("\n") + 1
        position = player.position
        await pilot.press("n")
        await until(pilot, lambda: player.position > position, "the event step")
        assert player.position > position
        assert app.state.confirmed[-1].label.startswith(("call", "text"))
        await pilot.press("space")
        await until(pilot, lambda: not app.replay.paused, "play")
        assert not app.replay.paused


async def test_selecting_an_error_highlights_its_offset() -> None:
    app = make_replay_app(BAD)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("e")
        await until(pilot, lambda: len(app.state.errors) == 1, "the error")
        assert len(app.state.errors) == 1
        offset = app.state.errors[0].offset
        raw = app.screen.query_one(RawStreamView)
        await until(pilot, lambda: raw.highlight == offset, "the highlighted byte")
        assert raw.highlight == offset
        # choosing it again from the list (e.g. after scrolling) highlights it again
        raw.highlight = None
        errors = app.screen.query_one(ErrorsPane).option_list
        errors.focus()
        await focus_of(pilot, errors, "the error list")
        await pilot.press("enter")
        await until(pilot, lambda: raw.highlight == offset, "the highlight again")
        assert raw.highlight == offset
        line = raw.line_of(offset)
        await until(
            pilot,
            lambda: raw.scroll_offset.y <= line < raw.scroll_offset.y + raw.size.height,
            "the error line in view",
        )
        assert raw.scroll_offset.y <= line < raw.scroll_offset.y + raw.size.height


def test_headless_json_prints_every_event_and_exits_1_on_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    write_recording(path, synthesize(BAD, "ctl"))
    out = io.StringIO()
    code = replay_cmd.print_events(
        replay_cmd.ReplayPlayer(replay_cmd.load_replay(str(path))[0]), as_json=True, out=out
    )
    assert code == 1
    types = [json.loads(line)["type"] for line in out.getvalue().splitlines()]
    assert types[0] == "response_started" and "error" in types and types[-1] == "response_ended"


def test_replay_of_a_missing_file_is_a_usage_error(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    args = argparse.Namespace(
        source=str(tmp_path / "nope.jsonl"), headless=True, json=False, speed="1", protocol=None
    )
    assert replay_cmd.main(args) == 2
    assert "no such recording file" in capsys.readouterr().err


def test_a_resent_call_keeps_the_earlier_attempt_in_the_transcript() -> None:
    from frontier.app.events import CallReady, ToolCall, ToolFinished, ToolResult
    from frontier.widgets.state import UiState

    state = UiState(clock=lambda: 0.0)
    call = ToolCall("c6", "replace", {"path": "README.md"})
    state.apply(ToolFinished(ToolResult("c6", "replace", "truncated", "cut off")))
    state.apply(CallReady(call))
    state.apply(ToolFinished(ToolResult("c6", "replace", "ok", "done")))
    earlier, later = state.transcript
    # the earlier attempt keeps its own row as it ended; only the new one answers to c6
    assert earlier.role == "call" and earlier.call_id is None
    assert earlier.tool is not None and earlier.tool.state == "truncated"
    assert (later.role, later.call_id) == ("call", "c6") and later.tool is state.tools["c6"]
    assert state.tools["c6"].state == "ok"
