"""Replay shows what the live session showed (issue 23's smaller findings).

A native-inc response replays with the text and argument bytes its transducer read in
the Raw stream (never the SSE JSON), and ends at pending 0 with the final bound; a
replay under another protocol than the one the responses were streamed in says so; and
a demo whose patch was denied ends with a note that says so, not "press ctrl+n".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import opened, until

from frontier.app.commands import replay as replay_cmd
from frontier.app.config import Config
from frontier.app.events import CallReady, StreamBytes, ToolFinished, ToolResult, TurnEnded
from frontier.app.frontends.demo_ending import NATIVE_NEXT, DemoOutcome, demo_ending
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.app.replay_player import PlaylistPlayer, ReplayPlayer, source_from_recording
from frontier.app.session.record import Recording, content_chunk, write_recording

PROSE = "I'll read the CLI first."
ARGS = '{"path": "greet/cli.py"}'


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps(
        {
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


def _call(args: str, *, first: bool) -> str:
    function = {"name": "read", "arguments": args} if first else {"arguments": args}
    call: dict[str, Any] = {"index": 0, "function": function}
    if first:
        call |= {"id": "call_1", "type": "function"}
    return _chunk({"tool_calls": [call]})


def native_recording(mode: str = "native-inc") -> Recording:
    """A Chat Completions response: prose in two pieces, then one ``read`` call whose
    arguments arrive in three pieces (as a demo session stores it)."""
    data = [
        content_chunk(PROSE[:10]),
        content_chunk(PROSE[10:]),
        _call(ARGS[:5], first=True),
        _call(ARGS[5:15], first=False),
        _call(ARGS[15:], first=False),
        _chunk({}, "tool_calls"),
        "[DONE]",
    ]
    return Recording(
        mode=mode,
        model="m",
        created="2026-01-01T00:00:00+00:00",
        events=tuple((0.01 * i, d) for i, d in enumerate(data)),
        finish_reason="tool_calls",
        end_t=0.1,
        wire="openai-chat",
    )


def test_native_replay_streams_what_the_transducer_reads() -> None:
    player = ReplayPlayer(source_from_recording(native_recording(), name="n"))
    events = player.run_all()
    streamed = [e for e in events if isinstance(e, StreamBytes)]
    data = b"".join(e.data for e in streamed)
    assert data == (PROSE + ARGS).encode()  # the live Raw stream's bytes, no `data: {`
    offsets = [e.offset for e in streamed]
    assert offsets == [sum(len(e.data) for e in streamed[:i]) for i in range(len(streamed))]
    assert [e.call.name for e in events if isinstance(e, CallReady)] == ["read"]
    assert player.frontier == player.pending_bound() == len(data)


@pytest.mark.parametrize("chunk", [1, 7, 1 << 14])
def test_native_replay_ends_with_nothing_pending_in_the_panes(chunk: int) -> None:
    """The panes' state, fed byte by byte or in big slices, agrees with the transducer."""
    app = FrontierApp(Config(), player=ReplayPlayer(source_from_recording(native_recording())))
    state = app.state
    player = app.replay.player if app.replay is not None else None
    assert player is not None
    while not player.finished:
        state.apply_all(player.feed_to(player.position + chunk))
    state.set_probe(player.frontier, player.pending_bound())
    assert state.pending_size == 0
    assert state.pending_bound == len(PROSE + ARGS)
    assert state.consumed == len(PROSE + ARGS)


async def test_tui_replay_of_a_native_session_ends_like_the_live_view(tmp_path: Path) -> None:
    rec = native_recording()
    sources = [source_from_recording(rec, name=f"s#{i}") for i in range(2)]
    app = FrontierApp(
        Config(), player=PlaylistPlayer(sources), speed=None, remember_theme=False, token_rate=0
    )
    async with app.run_test(size=(140, 45)) as pilot:
        assert app.replay is not None
        player = app.replay.player
        await until(pilot, lambda: player.finished, "the replay's end")
        app.flush(force=True)
        await until(pilot, lambda: app.state.pending_size == 0, "nothing pending")
        status = app.replay.status(0.0)
        assert status.pending == 0
        assert app.replay.probe() == (len(PROSE + ARGS), len(PROSE + ARGS))
        current = app.state.current
        assert current is not None
        raw = current.slice(0, current.end)
        assert raw.endswith((PROSE + ARGS).encode()) and b"data:" not in raw


def test_replay_under_another_protocol_warns_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "native.jsonl"
    write_recording(path, native_recording())
    args = argparse.Namespace(source=str(path), headless=True, json=True, protocol="ctl")
    assert replay_cmd.main(args) == 0
    out, err = capsys.readouterr()
    assert "streamed in native-inc; under ctl no call can be confirmed" in err
    assert "--protocol native-inc" in err
    assert all(json.loads(line) for line in out.splitlines())  # stdout stays JSON lines
    assert '"type": "call"' not in out


@pytest.mark.parametrize("protocol", [None, "auto", "native-inc"])
def test_replay_in_the_recorded_protocol_is_quiet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], protocol: str | None
) -> None:
    path = tmp_path / "native.jsonl"
    write_recording(path, native_recording())
    args = argparse.Namespace(source=str(path), headless=True, json=False, protocol=protocol)
    assert replay_cmd.main(args) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "call call_1 read" in out


async def test_tui_replay_under_another_protocol_says_so_in_the_transcript(
    tmp_path: Path,
) -> None:
    path = tmp_path / "native.jsonl"
    write_recording(path, native_recording())
    sources = replay_cmd.load_replay(str(path), "ctl")
    app = FrontierApp(
        Config(), player=ReplayPlayer(sources[0]), paused=True, remember_theme=False, token_rate=0
    )
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: len(app.state.transcript) >= 2, "the opening notes")
        texts = [entry.text for entry in app.state.transcript]
        assert any("under ctl no call can be confirmed" in t for t in texts), texts


# ---------------------------------------------------------------------- the demo's ending
def test_a_completed_demo_suggests_ctrl_n_and_a_denied_one_says_what_was_denied() -> None:
    done = DemoOutcome()
    done.observe(ToolFinished(ToolResult("c2", "apply_patch", "ok", "applied")))
    done.observe(TurnEnded("done"))
    assert demo_ending(done, offer_native=True) == NATIVE_NEXT
    assert demo_ending(done, offer_native=False) is None

    denied = DemoOutcome()
    denied.observe(ToolFinished(ToolResult("c2", "apply_patch", "denied", "[denied]")))
    denied.observe(TurnEnded("done"))
    note = demo_ending(denied, offer_native=True)
    assert note is not None and "press ctrl+n" not in note
    assert "c2 apply_patch was denied" in note and "go on" in note
    assert "ctrl+n still shows the same task with native tool calls" in note
    assert "ctrl+n" not in (demo_ending(denied, offer_native=False) or "")


async def test_denying_the_demo_patch_ends_with_a_true_note() -> None:
    app = FrontierApp(
        Config(protocol="ctl-heredoc", approval="ask"),
        demo=True,
        demo_rate=0,
        remember_theme=False,
    )
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, ReviewScreen, "the demo patch's review")
        await pilot.press("escape")  # deny
        await until(
            pilot,
            lambda: any("stopped before the end" in e.text for e in app.state.transcript),
            "the demo's ending note",
        )
        notes = [e.text for e in app.state.transcript if e.role == "note"]
        assert not any(n.startswith("Next: press ctrl+n") for n in notes), notes
        ending = next(n for n in notes if "stopped before the end" in n)
        assert "apply_patch was denied" in ending and "ctrl+n still shows" in ending
