"""Issue 23's speed work, as behaviour (the figures are in ``bench/``, never timed here):
an idle TUI paints nothing and its flush timer slows until the next event; an
unchanged status bar is not drawn again; a block quote is muted, not in a colour."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from pilot_wait import until
from rich.console import Console
from test_tui_layouts import live_app
from test_tui_snapshots import mid_stream, settle
from textual.app import App, ComposeResult

from frontier.app.events import ResponseStarted
from frontier.app.frontends.tui.app import IDLE_HZ, IDLE_TICKS
from frontier.widgets.prose import ProseBlocks
from frontier.widgets.prose_render import ProseMarkdown
from frontier.widgets.status_bar import StatusBar, StatusInfo


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
