"""Replaying a whole session: every response in order, through the same panes and keys."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pilot_wait import replay_step, until, workers_done

from frontier.app.commands import replay as replay_cmd
from frontier.app.config import Config
from frontier.app.events import CallReady, ContractError, ResponseStarted, StreamBytes
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.replay_player import (
    PlaylistPlayer,
    ReplayPlayer,
    ReplaySource,
    source_from_recording,
)
from frontier.app.session.record import synthesize
from frontier.widgets.raw_stream import RawStreamView

FIRST = "Let me read it.\ncall c1 read\narg path app/cli.py\nend\n"
SECOND = "Now the tests.\ncall c2 read\narg path tests/test_cli.py\nend\n"
BAD = "Patching.\ncall c3 read\nnot an arg line\nend\n"


def source(text: str, name: str) -> ReplaySource:
    return source_from_recording(synthesize(text, "ctl", sizes=(5,)), name=name)


def playlist(*texts: str) -> PlaylistPlayer:
    return PlaylistPlayer([source(t, f"s#{i}") for i, t in enumerate(texts)], name="s")


def replay_app(player: PlaylistPlayer, **kw: object) -> FrontierApp:
    options: dict[str, object] = {"paused": True, "remember_theme": False, "token_rate": 0.0}
    options.update(kw)
    return FrontierApp(Config(), player=player, **options)  # type: ignore[arg-type]


def ready_calls(app: FrontierApp) -> list[str]:
    return [row.label for row in app.state.confirmed if row.kind == "ready"]


def status_text(app: FrontierApp) -> str:
    return app.status().activity


# ---------------------------------------------------------------- the player alone


def test_a_byte_step_at_the_end_of_a_response_starts_the_next_at_offset_0() -> None:
    player = playlist(FIRST, SECOND)
    player.feed_to(len(FIRST))
    assert player.index == 0 and player.current.finished and not player.finished
    events = player.step_bytes()
    assert isinstance(events[0], ResponseStarted)
    assert events[1] == StreamBytes(0, SECOND[:1].encode())
    assert (player.index, player.position, player.size) == (1, 1, len(SECOND))


def test_next_error_skips_clean_responses_and_stops_at_the_error() -> None:
    player = playlist(FIRST, SECOND, BAD)
    events = player.next_error()
    errors = [e for e in events if isinstance(e, ContractError)]
    assert player.index == 2 and len(errors) == 1
    assert errors[0].offset == player.error_offsets[0]
    assert [e.call.id for e in events if isinstance(e, CallReady)] == ["c1", "c2"]
    # no error ahead: the next jump plays to the end of the session
    player.next_error()
    assert player.finished


def test_run_all_plays_every_response_in_order() -> None:
    player = playlist(FIRST, SECOND, FIRST)
    events = player.run_all()
    assert sum(isinstance(e, ResponseStarted) for e in events) == 3
    assert [e.call.id for e in events if isinstance(e, CallReady)] == ["c1", "c2", "c1"]
    assert player.finished and player.index == 2


# ---------------------------------------------------------------- the TUI


async def test_event_steps_cross_the_response_boundary() -> None:
    app = replay_app(playlist(FIRST, SECOND))
    async with app.run_test(size=(120, 40)) as pilot:
        player = app.replay.player
        assert isinstance(player, PlaylistPlayer)
        for _ in range(50):
            if player.index == 1:
                break
            await replay_step(pilot, "n")
        # the step that crossed started response 2 and stopped at its first event
        assert player.index == 1 and 0 < player.position < len(SECOND)
        assert app.state.response_count == 2 and app.state.current is not None
        assert app.state.current.index == 2
        assert app.state.consumed == player.position  # offsets restarted at 0
        assert "response 2 of 2" in status_text(app)
        assert ready_calls(app) == ["ready c1 read"]  # response 1's call stays shown
        notes = [e.text for e in app.state.transcript if e.role == "note"]
        assert any(n.startswith("response 2 of 2") for n in notes)
        raw = app.screen.query_one(RawStreamView)
        assert raw.border_title == "Raw stream · response 2 of 2"


async def test_byte_and_line_steps_move_exactly_one_unit_past_the_boundary() -> None:
    app = replay_app(playlist(FIRST, SECOND))
    async with app.run_test(size=(120, 40)) as pilot:
        player = app.replay.player
        assert isinstance(player, PlaylistPlayer)
        for _ in range(FIRST.count("\n")):
            await replay_step(pilot, "comma")
        assert player.index == 0 and player.current.finished
        await replay_step(pilot, "full_stop")
        assert (player.index, player.position, app.state.consumed) == (1, 1, 1)
        await replay_step(pilot, "comma")
        assert player.position == SECOND.index("\n") + 1


async def test_e_finds_an_error_in_a_later_response_and_highlights_it() -> None:
    app = replay_app(playlist(FIRST, SECOND, BAD))
    async with app.run_test(size=(120, 40)) as pilot:
        await replay_step(pilot, "e")
        player = app.replay.player
        assert isinstance(player, PlaylistPlayer) and player.index == 2
        assert [row.response for row in app.state.errors] == [3]
        assert "response 3 of 3" in status_text(app)
        raw = app.screen.query_one(RawStreamView)
        offset = app.state.errors[0].offset
        await until(pilot, lambda: raw.highlight == offset, "the highlighted byte")
        assert raw.highlight == app.state.errors[0].offset
        assert raw.buffer is app.state.current and raw.buffer.index == 3
        assert ready_calls(app) == ["ready c1 read", "ready c2 read"]


async def test_max_speed_plays_the_whole_playlist() -> None:
    texts = (FIRST, SECOND, BAD, FIRST)
    app = replay_app(playlist(*texts), paused=False, speed=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await workers_done(app)
        await pilot.pause()
        player = app.replay.player
        assert player is not None and player.finished
        assert ready_calls(app) == ["ready c1 read", "ready c2 read", "ready c1 read"]
        assert app.state.response_count == 4 and len(app.state.errors) == 1
        assert status_text(app).startswith("response 4 of 4 · ") and " ended " in status_text(app)


async def test_a_single_recording_keeps_the_one_response_status() -> None:
    app = FrontierApp(
        Config(),
        player=ReplayPlayer(source(FIRST, "one.jsonl")),
        paused=True,
        remember_theme=False,
        token_rate=0.0,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        assert status_text(app).startswith("replay one.jsonl paused")
        raw = app.screen.query_one(RawStreamView)
        await until(pilot, lambda: raw.border_title == "Raw stream", "the pane titles")
        assert raw.border_title == "Raw stream"


# ---------------------------------------------------------------- a real stored session


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session stored by ``frontier demo --headless`` (9 responses, 2 contract errors)."""
    tmp = tmp_path_factory.mktemp("playlist")
    env = {**os.environ, "TMPDIR": str(tmp), "FRONTIER_DATA_DIR": str(tmp / "data")}
    demo = ["demo", "--headless", "--rate", "0", "--protocol", "ctl-heredoc"]
    run = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *demo],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr
    return tmp / "data"


def session_id(store: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    from frontier.app.session.store import SessionStore

    monkeypatch.setenv("FRONTIER_DATA_DIR", str(store))
    with SessionStore.open() as session_store:
        (info,) = session_store.list_sessions()
    return info.id


async def test_replaying_a_stored_demo_session_plays_every_response(
    demo_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = session_id(demo_store, monkeypatch)
    sources = replay_cmd.load_replay(sid[:6])
    player = replay_cmd.make_player(sources, "demo")
    assert isinstance(player, PlaylistPlayer) and player.count == len(sources) >= 9
    app = FrontierApp(Config(), player=player, speed=None, remember_theme=False, token_rate=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await workers_done(app)
        await pilot.pause()
        assert player.finished and app.state.response_count == player.count
        assert sorted(app.state.tools) == ["c1", "c2", "c3", "c4", "c5", "c6"]
        assert [row.kind for row in app.state.errors] == ["body_eof", "truncated"]
        assert f"response {player.count} of {player.count}" in status_text(app)


async def test_replay_command_opens_the_session_as_a_playlist(
    demo_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = session_id(demo_store, monkeypatch)
    opened: list[object] = []

    def fake_run(self: FrontierApp) -> int:
        opened.append(self.replay.player if self.replay else None)
        return 0

    monkeypatch.setattr(FrontierApp, "run", fake_run)
    monkeypatch.setattr("frontier.app.commands._agent_args.terminal_problem", lambda: None)
    args = argparse.Namespace(source=sid, headless=False, speed="max", protocol=None)
    assert replay_cmd.main(args) == 0
    args = argparse.Namespace(source=f"{sid}#3", headless=False, speed="1", protocol=None)
    assert replay_cmd.main(args) == 0
    whole, one = opened
    assert isinstance(whole, PlaylistPlayer) and whole.count >= 9
    assert isinstance(one, ReplayPlayer) and one.source.name.endswith("#3")
