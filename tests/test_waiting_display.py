"""A silent server is shown live: the status bar's ``waiting for the first byte · 23 s`` /
``stalled · 12 s`` and the headless log's every-10-s lines, driven by events and an
injected clock (no real waits anywhere)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from pilot_wait import until
from tui_fakes import FakeRuntime, fake_factory

from frontier.app import events as core_events
from frontier.app.agent.wait import ResponseWait
from frontier.app.config import Config
from frontier.app.events import (
    AssistantText,
    ResponseEnded,
    ResponseStarted,
    Retry,
    StreamBytes,
    ToolOutput,
    TurnEnded,
)
from frontier.app.frontends.headless import EventPrinter
from frontier.widgets.state import UiState
from frontier.widgets.status_bar import StatusInfo, render_status


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


# --------------------------------------------------------------------------- UiState


def test_first_byte_wait_counts_seconds_and_ends_on_the_first_byte(clock: Clock) -> None:
    state = UiState(clock)
    assert state.waiting_label() == ""
    state.apply(ResponseStarted("ctl", 0))
    assert state.waiting_label() == "waiting for the first byte · 0 s"
    clock.now += 23.7
    assert state.waiting_label() == "waiting for the first byte · 23 s"
    state.apply(StreamBytes(0, b"Hel"))
    assert state.waiting_label() == ""


def test_take_dirty_ticks_the_status_bar_once_a_second(clock: Clock) -> None:
    """The flush timer calls take_dirty at ~30 Hz; the status bar repaints only when
    the shown seconds change."""
    state = UiState(clock)
    state.take_dirty()
    state.apply(ResponseStarted("ctl", 0))
    assert "status" in state.take_dirty()
    clock.now += 0.4
    assert state.take_dirty() == set()
    clock.now += 0.7
    assert state.take_dirty() == {"status"}
    assert state.take_dirty() == set()


def test_retry_shows_the_delay_then_the_next_attempt_waits_from_zero(clock: Clock) -> None:
    state = UiState(clock)
    state.apply(ResponseStarted("ctl", 0))
    clock.now += 45
    state.apply(Retry(1, 2.0, "no first byte within 45 s"))
    assert state.waiting_label() == "retrying in 2 s (attempt 2)"
    clock.now += 2.0
    assert state.waiting_label() == "waiting for the first byte · 0 s (attempt 2)"
    clock.now += 5.2
    assert state.waiting_label() == "waiting for the first byte · 5 s (attempt 2)"


def test_a_stream_that_stalls_shows_stalled_until_bytes_come_again(clock: Clock) -> None:
    state = UiState(clock)
    state.apply(ResponseStarted("ctl", 0))
    state.apply(StreamBytes(0, b"a"))
    clock.now += 4.9
    assert state.waiting_label() == ""  # a short gap is just streaming
    clock.now += 7.1
    assert state.waiting_label() == "stalled · 12 s"
    state.apply(StreamBytes(1, b"b"))
    assert state.waiting_label() == ""
    clock.now += 30
    state.apply(ResponseEnded("disconnect"))
    assert state.waiting_label() == ""


def test_tool_output_is_not_stream_activity_but_reasoning_is(clock: Clock) -> None:
    state = UiState(clock)
    state.apply(ResponseStarted("ctl", 0))
    clock.now += 3
    state.apply(ToolOutput("c1", "line\n"))
    assert state.waiting_label() == "waiting for the first byte · 3 s"
    reasoning = getattr(core_events, "ReasoningText", None)
    if reasoning is not None:
        state.apply(reasoning("thinking"))
        assert state.waiting_label() == ""


def test_turn_end_clears_the_wait(clock: Clock) -> None:
    state = UiState(clock)
    state.apply(ResponseStarted("ctl", 0))
    clock.now += 9
    state.apply(TurnEnded("provider_error", "no first byte"))
    assert state.waiting_label() == ""


def test_status_bar_puts_the_wait_in_place_of_streaming() -> None:
    info = StatusInfo("qwen", "ctl", 0.0, 0, 0, "7f3a2b9c", "streaming", "stalled · 12 s")
    shown = render_status(info).plain
    assert "stalled · 12 s" in shown and "streaming" not in shown
    running = StatusInfo("qwen", "ctl", 0.0, 0, 0, "", "running c3", "stalled · 7 s")
    assert "running c3 · stalled · 7 s" in render_status(running).plain


async def test_pilot_status_bar_ticks_with_the_clock(tmp_path: Path, clock: Clock) -> None:
    """The live TUI: events go through the app's observer, the clock moves, a flush
    paints the status bar (the flush timer's job; called directly here)."""
    from frontier.app.frontends.tui.app import FrontierApp
    from frontier.widgets.status_bar import StatusBar

    holder: list[FakeRuntime] = []
    app = FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="smollm2"),
        session_factory=fake_factory(tmp_path, holder),  # type: ignore[arg-type]
        remember_theme=False,
        clock=clock,
    )

    def shown() -> str:
        return str(app.screen.query_one(StatusBar).render())

    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")  # else no flush
        app.observe(ResponseStarted("ctl-heredoc", 0))
        clock.now += 23
        app.flush(force=True)
        assert "waiting for the first byte · 23 s" in shown()
        clock.now += 1
        app.flush()
        assert "waiting for the first byte · 24 s" in shown()
        app.observe(StreamBytes(0, b"I'll add"))
        app.flush(force=True)
        assert "waiting" not in shown()
        clock.now += 12
        app.flush()
        assert "stalled · 12 s" in shown()
        app.observe(ResponseEnded("stop"))
        app.flush(force=True)
        assert "stalled" not in shown()
        await pilot.pause()


# --------------------------------------------------------------------------- headless


def test_headless_prints_a_waiting_line_every_10_s(clock: Clock) -> None:
    out = io.StringIO()
    printer = EventPrinter(out, clock=clock)
    printer(ResponseStarted("ctl", 0))
    for _ in range(25):  # 25 ticks, one a second
        clock.now += 1
        printer.tick()
    lines = out.getvalue().splitlines()
    assert lines == [
        "── response 1 (ctl)",
        "… waiting for the first byte (10 s)",
        "… waiting for the first byte (20 s)",
    ]


def test_headless_stall_lines_and_none_once_bytes_flow(clock: Clock) -> None:
    out = io.StringIO()
    printer = EventPrinter(out, clock=clock)
    printer(ResponseStarted("ctl", 0))
    printer(StreamBytes(0, b"x"))
    clock.now += 9
    printer.tick()
    printer(AssistantText("x"))  # bytes flowed again: the silence restarts
    clock.now += 10
    printer.tick()
    printer.tick()  # the same 10 s step is printed once
    printer(ResponseEnded("stop"))
    clock.now += 60
    printer.tick()
    assert out.getvalue().splitlines()[1:] == ["ai  x", "… stalled: no bytes for 10 s"]


def test_headless_json_gets_no_waiting_lines(clock: Clock) -> None:
    out = io.StringIO()
    printer = EventPrinter(out, as_json=True, clock=clock)
    printer(ResponseStarted("ctl", 0))
    clock.now += 30
    printer.tick()
    assert out.getvalue().count("\n") == 1 and "waiting" not in out.getvalue()


async def test_watch_ticks_on_its_own_timer(clock: Clock) -> None:
    """``watch`` is what run_headless starts beside the turns; its sleep is injected."""
    out = io.StringIO()
    printer = EventPrinter(out, clock=clock)
    printer(ResponseStarted("ctl", 0))
    ticks = 0

    async def sleep(period: float) -> None:
        nonlocal ticks
        ticks += 1
        if ticks > 12:
            raise asyncio.CancelledError
        clock.now += period

    with pytest.raises(asyncio.CancelledError):
        await printer.watch(sleep=sleep)
    assert out.getvalue().splitlines()[-1] == "… waiting for the first byte (10 s)"


def test_response_wait_ignores_stream_events_outside_a_response(clock: Clock) -> None:
    wait = ResponseWait()
    wait.apply(StreamBytes(0, b"x"), clock)
    clock.now += 60
    assert wait.label(clock()) == ""
