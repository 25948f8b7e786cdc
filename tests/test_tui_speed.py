"""Issue 23's speed work, as behaviour (the figures are in ``bench/``, never timed here):
an idle TUI paints nothing and its flush timer slows until the next event; an
unchanged status bar is not drawn again; a block quote is muted, not in a colour."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import until
from rich.console import Console
from test_tui_layouts import live_app
from test_tui_snapshots import mid_stream, settle
from textual.app import App, ComposeResult

from frontier.app.config import Config
from frontier.app.events import ResponseStarted
from frontier.app.frontends.tui import replay as replay_controller
from frontier.app.frontends.tui.app import IDLE_HZ, IDLE_TICKS, SLOW_PANES, FrontierApp
from frontier.app.replay_player import ReplayPlayer, source_from_recording
from frontier.app.session.record import synthesize
from frontier.widgets.prose import ProseBlocks
from frontier.widgets.prose_render import ProseMarkdown
from frontier.widgets.raw_stream import RawStreamView
from frontier.widgets.status_bar import StatusBar, StatusInfo
from frontier.widgets.tools_pane import ToolsPane


def count_calls(obj: Any, name: str) -> list[int]:
    """Count the calls of ``obj.name`` (still calling it)."""
    calls: list[int] = []
    original = getattr(obj, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    setattr(obj, name, counted)
    return calls


async def test_hidden_panes_that_changed_do_not_repaint_an_idle_screen(tmp_path: Path) -> None:
    """The conversation layout hides the lab panes: their changes wait for a layout that
    shows them, and are no reason to paint the screen again and again."""
    app, loop = live_app(tmp_path, layout="conversation")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        mid_stream(app, loop)
        app.flush(force=True)
        app.state.mark("raw", "pending", "confirmed")  # hidden here
        painted = count_calls(app.main, "flush")
        for _ in range(6):
            app.flush()
        assert painted == []
        app.flush(force=True)  # a user action paints them all
        assert painted == [1]


async def test_the_flush_timer_slows_when_idle_and_an_event_wakes_it(tmp_path: Path) -> None:
    app, _ = live_app(tmp_path, layout="conversation")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.flush_rate == app.flush_hz
        for _ in range(IDLE_TICKS + 1):
            app._tick()
        assert app.flush_rate == IDLE_HZ
        app.observe(ResponseStarted("ctl-heredoc", 0))
        assert app.flush_rate == app.flush_hz
        app.state.turn_running = True  # a turn with nothing to paint keeps the full rate
        for _ in range(IDLE_TICKS + 1):
            app._tick()
        assert app.flush_rate == app.flush_hz
        app.state.turn_running = False
        for _ in range(2):
            app._tick()
        assert app.flush_rate == IDLE_HZ
        app.state.note("a note no event brought")  # seen by the next (slow) tick
        app._tick()
        await until(pilot, lambda: app.flush_rate == app.flush_hz, "the full rate again")


class _Bar(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")


async def test_an_unchanged_status_bar_is_not_drawn_again() -> None:
    app = _Bar()
    async with app.run_test(size=(100, 3)) as pilot:
        bar = app.query_one(StatusBar)
        drawn = count_calls(bar, "update")
        info = StatusInfo("qwen", "ctl", None, 10, 0, "7f3a2b9c", "idle")
        for _ in range(5):
            bar.show(info)
        assert drawn == [1]
        bar.show(StatusInfo("qwen", "ctl", None, 11, 0, "7f3a2b9c", "idle"))
        assert drawn == [1, 1]
        await pilot.pause()
        assert "fr 11" in str(bar.render()) or "frontier 11" in str(bar.render())


def test_a_block_quote_is_muted_not_drawn_in_a_colour() -> None:
    """rich draws quotes magenta, which the themes render near the error colour."""
    blocks = ProseBlocks()
    blocks.append("> the quoted words\n\nafter\n")
    quote = next(iter(blocks.blocks()))
    console = Console(file=io.StringIO(), width=60, color_system="truecolor")
    lines = console.render_lines(ProseMarkdown(quote.text), console.options)
    segments = [s for line in lines for s in line if s.text.strip()]
    words = [s for s in segments if "quoted" in s.text]
    assert words and all(s.style is not None and s.style.italic for s in words)
    assert all(s.style is None or s.style.color is None for s in segments), segments
    assert any(s.text.startswith("▌") for s in segments)


def _replay_app(text: str) -> FrontierApp:
    source = source_from_recording(synthesize(text, "ctl-heredoc", sizes=(7,)), name="r.jsonl")
    return FrontierApp(
        Config(), player=ReplayPlayer(source), speed=None, autostart=False, remember_theme=False
    )


async def test_a_replay_at_max_paints_one_pane_a_flush_and_every_pane_by_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At "max" nobody reads a frame: each flush paints the pane waiting longest, so no
    callback holds the keys for every pane's paint, and the end shows everything."""
    monkeypatch.setattr(replay_controller, "MAX_CHUNK", 1024)
    monkeypatch.setattr(replay_controller, "next_chunk", lambda chunk, took: chunk)
    prose = "".join(f"Line {i} of the reply, long enough to wrap somewhere.\n" for i in range(4000))
    text = prose + "".join(f"call c{i} read\narg path f{i}.py\nend\n" for i in range(40))
    app = _replay_app(text)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        painted: list[set[str]] = []
        original = app.main.flush

        def spy(state: Any, dirty: set[str], *args: Any, **kwargs: Any) -> set[str]:
            if app.replay is not None and app.replay.racing:
                painted.append(set(dirty))
            return original(state, dirty, *args, **kwargs)

        app.main.flush = spy  # type: ignore[method-assign]
        assert app.replay is not None
        worker = app.run_worker(app.replay.play(), name="replay")
        while not worker.is_finished:
            app.flush()  # a flush between every two slices of 1 KiB
            await asyncio.sleep(0)
        assert painted and all(len(dirty - {"status"}) <= 1 for dirty in painted)
        assert not app.replay.racing
        await until(pilot, lambda: app.flush_rate == app.flush_hz, "the full rate after")
        app.flush(force=True)
        tools = "\n".join(app.main.query_one(ToolsPane).plain_lines)
        assert len(app.state.tools) == 40 and "c39" in tools
        raw = app.main.query_one(RawStreamView)
        assert raw.spans()[-1][1] == app.state.consumed == app.replay.player.size


async def test_the_slow_panes_paint_one_a_flush(tmp_path: Path) -> None:
    """Transcript, Tools and Errors each paint at most ten times a second and never in
    the same flush: a live stream's paints do not add up in one callback."""
    app, loop = live_app(tmp_path, layout="lab")
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        mid_stream(app, loop)
        seen: list[set[str]] = []
        original = app.main.flush

        def spy(state: Any, dirty: set[str], *args: Any, **kwargs: Any) -> set[str]:
            seen.append(dirty & SLOW_PANES)
            return original(state, dirty, *args, **kwargs)

        app.main.flush = spy  # type: ignore[method-assign]
        app._painted_at.clear()
        app._slow_until = 0.0
        app.state.mark("transcript", "tools", "errors")
        for _ in range(3):
            app._slow_until = 0.0  # no paint was costly (``SLOW_SHARE``)
            app.flush()
        assert [len(s) for s in seen if s] == [1, 1, 1]
        assert set().union(*seen) == {"transcript", "tools", "errors"}
