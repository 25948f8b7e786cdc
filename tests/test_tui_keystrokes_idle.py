"""Issue 23's second speed pass, as behaviour (figures in ``bench/tui_keystroke.py`` and
``bench/tui_idle.py``, never timed here): a burst of buffered stream events lets the
event loop run; the status bar and the CST strip thin a stream of moving numbers but
draw every other change at once and never keep a stale number; the prompt's cursor
stops blinking after a rest and blinks again on input."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from pilot_wait import until
from test_agent_loop import make_loop, text_chunks
from test_tui_layouts import live_app
from textual.app import App, ComposeResult

import frontier.app.agent.loop as loop_module
import frontier.widgets.prompt_input as prompt_module
from frontier.app.events import AssistantText, ResponseStarted, StreamBytes
from frontier.app.frontends.tui.app import TYPING_HOLD
from frontier.widgets.cst_strip import CstStrip, StripInfo
from frontier.widgets.pacing import Pacer, moved_only
from frontier.widgets.prompt_input import PromptInput
from frontier.widgets.status_bar import StatusBar, StatusInfo


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def info(
    frontier: int,
    activity: str = "streaming",
    *,
    rate: float | None = None,
    working: float | None = 1.0,
) -> StatusInfo:
    return StatusInfo("qwen", "ctl", rate, frontier, 0, "7f3a2b9c", activity, working=working)


# --------------------------------------------------------------------------- the core


async def test_a_burst_of_buffered_events_lets_the_event_loop_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A scripted stream never suspends (like a socket buffer full after a stall): with a
    slice of 0 s the turn yields between events, so another task (a key) runs mid-reply,
    and the reply is the same."""
    monkeypatch.setattr(loop_module, "RESUMED_SECONDS", float("inf"))
    text = "The parser keeps its flags. " * 8
    loop, _, _, events, log = make_loop([(text_chunks(text), "stop")])
    loop.slice_seconds = 0.0
    stop = asyncio.Event()

    async def other_task() -> None:
        while not stop.is_set():
            log.append("other")
            await asyncio.sleep(0)

    other = asyncio.create_task(other_task())
    await loop.send("go")
    stop.set()
    await other
    chunks = [i for i, entry in enumerate(log) if entry.startswith("chunk")]
    between = log[chunks[0] : chunks[-1]]
    assert between.count("other") >= len(chunks) - 1  # a turn of the loop between events
    said = "".join(e.text for e in events if isinstance(e, AssistantText))
    assert said == text


# --------------------------------------------------------------------------- pacing


def test_only_moving_numbers_are_paced() -> None:
    clock = Clock()
    pacer = Pacer(("frontier",), interval=0.1, clock=clock)
    assert moved_only(info(10), info(11), ("frontier",))
    assert not moved_only(info(10), info(11, "idle"), ("frontier",))
    pacer.painted(info(10), info(11))  # a move was drawn now
    assert pacer.wait(info(11), info(12)) == pytest.approx(0.1)
    assert pacer.wait(info(11), info(12, "review")) == 0.0  # the activity: news, now
    clock.now += 0.1
    assert pacer.wait(info(11), info(12)) == 0.0
    pacer.painted(info(12), info(12, "idle"))  # any other change resets the pace
    assert pacer.wait(info(12, "idle"), info(13, "idle")) == 0.0


class _Readouts(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield CstStrip(id="strip")


async def test_a_stream_of_status_numbers_is_thinned_and_ends_on_the_latest() -> None:
    app = _Readouts()
    async with app.run_test(size=(100, 3)) as pilot:
        bar = app.query_one(StatusBar)
        clock = Clock()
        bar._pacer.clock = clock

        def shown() -> str:
            return str(bar.render())

        bar.show(info(10))
        bar.show(info(11))  # the first move after a full paint: at once
        assert "fr 11" in shown() or "frontier 11" in shown()
        for frontier in range(12, 40):
            bar.show(info(frontier))  # 30 Hz flushes within the pace: held back
        assert "11" in shown()
        bar.show(info(40, "idle", working=None))  # not only numbers: drawn at once, the latest ones
        assert "idle" in shown() and "40" in shown()
        bar.show(info(41, "idle", working=None))  # after a full paint, a move shows at once again
        assert "41" in shown()
        bar.show(info(42, "idle", working=None))
        assert "42" not in shown()
        clock.now += 0.1
        await until(pilot, lambda: "42" in shown(), "the held number, after its pace")


async def test_a_status_that_differs_below_what_is_shown_is_not_drawn_again() -> None:
    app = _Readouts()
    async with app.run_test(size=(120, 3)) as pilot:
        bar = app.query_one(StatusBar)
        drawn: list[int] = []
        update = bar.update
        bar.update = lambda *a, **k: (drawn.append(1), update(*a, **k))[1]  # type: ignore[method-assign]
        bar.show(info(10, working=3.01, rate=812.2))
        bar.show(info(10, working=3.52, rate=811.9))  # still "3s", "812 tok/s"
        assert drawn == [1]
        bar.show(info(10, working=4.0, rate=811.9))
        assert drawn == [1, 1]
        await pilot.pause()


async def test_the_strip_thins_moving_numbers_and_a_forced_paint_shows_them() -> None:
    app = _Readouts()
    async with app.run_test(size=(100, 3)) as pilot:
        strip = app.query_one(CstStrip)
        strip._pacer.clock = Clock()
        strip.show(StripInfo(frontier=10, pending=0, bound=33))
        strip.show(StripInfo(frontier=20, pending=1, bound=33))
        strip.show(StripInfo(frontier=30, pending=2, bound=33))  # held: within the pace
        assert "30" not in strip.plain
        strip.paint_now()
        assert "30" in strip.plain
        strip.show(StripInfo(frontier=31, pending=2, bound=33, error="length-mismatch @4"))
        assert "length-mismatch" in strip.plain  # an error is news: at once
        await pilot.pause()


async def test_a_forced_flush_shows_the_latest_numbers(tmp_path: Path) -> None:
    """Tests and user actions flush with ``force``: no number waits for its pace."""
    app, _ = live_app(tmp_path, layout="conversation")
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        bar = app.main.query_one(StatusBar)
        bar._pacer.clock = Clock()  # frozen: a held number would wait forever
        app.observe(ResponseStarted("ctl-heredoc", 0))
        app.flush(force=True)
        for n in range(3):
            app.observe(StreamBytes(n * 100, b"x" * 100))
            app.flush(force=n == 2)
        assert "300" in str(bar.render())


# --------------------------------------------------------------------------- blink


class _Prompt(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptInput(id="prompt")


async def test_the_cursor_rests_after_a_quiet_spell_and_blinks_again_on_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An idle screen must not repaint twice a second: after ``BLINK_REST`` the cursor
    stays shown; a key brings the blink back."""
    app = _Prompt()
    async with app.run_test(size=(60, 5)) as pilot:
        box = app.query_one(PromptInput)
        box.focus()
        await until(pilot, lambda: box.has_focus, "the prompt focused")
        box._toggle_cursor_blink_visible()
        assert box._cursor_visible is False  # blinking
        monkeypatch.setattr(prompt_module, "BLINK_REST", 0.0)
        for _ in range(3):
            box._toggle_cursor_blink_visible()
            assert box._cursor_visible is True  # resting: shown, steady
        monkeypatch.setattr(prompt_module, "BLINK_REST", 10.0)
        await pilot.press("a")
        assert box.text == "a"
        box._toggle_cursor_blink_visible()
        assert box._cursor_visible is False  # blinking again


async def test_the_transcript_waits_while_keys_arrive_but_never_long(tmp_path: Path) -> None:
    """Keys typed under a fast stream come before the Transcript's paint; it still paints
    once ``TYPING_HOLD`` has passed since its last paint."""
    app, _ = live_app(tmp_path, layout="conversation")
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        await pilot.press("a")
        # no await below: the flush timer cannot run in between
        assert app._key_at > float("-inf")  # the App saw the key
        now = app._key_at = time.perf_counter()  # as if just typed, however slow the box
        app._slow_at, app._slow_until = now, 0.0
        app._painted_at.clear()  # the Transcript is due (``SLOW_PERIOD`` since its paint)
        app.state.mark("transcript")
        app.flush()
        assert "transcript" in app.state.take_dirty()  # held while keys arrive
        app._slow_at = now - TYPING_HOLD
        app._painted_at.clear()
        app.state.mark("transcript")
        app.flush()
        assert "transcript" not in app.state.take_dirty()  # painted: waited long enough
