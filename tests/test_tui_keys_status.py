"""Progress and cost: the turn timer, tokens/s from the server's usage, token counts,
the context share, and a status bar that keeps what matters at 80 columns."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scripted import chat_event

from frontier.app.events import (
    ReasoningText,
    ResponseEnded,
    ResponseStarted,
    StreamBytes,
    TokenUsage,
    TurnEnded,
)
from frontier.app.model.stream import UsageDelta
from frontier.widgets.progress import clock_text, count_text
from frontier.widgets.state import UiState
from frontier.widgets.status_bar import StatusInfo, fit_status, render_status


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def stream(state: UiState, clock: Clock, chunks: int, every: float) -> None:
    """``chunks`` stream chunks ``every`` seconds apart, as a server sends them."""
    for i in range(chunks):
        state.apply(StreamBytes(i, b"x"))
        clock.now += every
    clock.now -= every  # the last chunk is the latest moment


# ---------------------------------------------------------------------- usage
def test_usage_is_read_from_every_dialect_servers_speak() -> None:
    openai = {
        "prompt_tokens": 1200,
        "completion_tokens": 80,
        "prompt_tokens_details": {"cached_tokens": 1024},
    }
    assert TokenUsage.from_usage(openai) == TokenUsage(1200, 80, 1024)
    assert TokenUsage.from_usage({"prompt_tokens": 5, "prompt_cache_hit_tokens": 3}).cached == 3
    assert TokenUsage.from_usage({"completion_tokens": True, "prompt_tokens": -1}) == TokenUsage()
    assert not TokenUsage.from_usage({}).known
    # the chat wire reads the server's usage into the counts the event carries (issue 20:
    # ``ResponseEnded`` holds a ``TokenUsage``, read by each wire adapter)
    (delta,) = chat_event({"choices": [], "usage": openai}).deltas
    assert delta == UsageDelta(TokenUsage(1200, 80, 1024))
    assert ResponseEnded("stop", delta.usage).tokens.prompt == 1200


def test_the_rate_is_the_servers_count_over_the_streamed_span() -> None:
    clock = Clock()
    state = UiState(clock)
    state.apply(ResponseStarted("ctl", 0))
    clock.now += 3.0  # time to the first byte is not generation
    stream(state, clock, chunks=21, every=0.05)  # 20 gaps over 1 s: ~20 chunks/s
    assert state.token_rate() == pytest.approx(20.0)
    assert not state.progress.rate_exact
    # the server made 42 tokens (two a chunk): its usage corrects the estimate
    state.apply(ResponseEnded("stop", TokenUsage(prompt=900, completion=42)))
    assert state.progress.rate_exact
    assert state.token_rate() == pytest.approx(40.0)


def test_the_rate_holds_still_while_nothing_streams() -> None:
    """A paused replay or a stalled server: the figure stays, it does not decay to 0."""
    clock = Clock()
    state = UiState(clock)
    state.apply(ResponseStarted("ctl", 0))
    stream(state, clock, chunks=11, every=0.1)
    before = state.token_rate()
    clock.now += 60
    assert state.token_rate() == before == pytest.approx(10.0)
    state.apply(ResponseEnded("stop"))  # no usage: the estimate stands
    assert state.token_rate() == before and not state.progress.rate_exact


def test_reasoning_chunks_count_as_generation() -> None:
    clock = Clock()
    state = UiState(clock)
    state.apply(ResponseStarted("native-inc", 0))
    for _ in range(6):
        state.apply(ReasoningText("hm"))
        clock.now += 0.1
    assert state.token_rate() == pytest.approx(10.0, rel=0.05)


def test_tokens_add_up_over_the_session_and_the_context_is_the_latest_response() -> None:
    clock = Clock()
    state = UiState(clock)
    for prompt, completion in ((1000, 100), (1300, 50)):
        state.apply(ResponseStarted("ctl", 0))
        state.apply(ResponseEnded("stop", TokenUsage(prompt=prompt, completion=completion)))
    progress = state.progress
    assert (progress.tokens_in, progress.tokens_out, progress.context_used) == (2300, 150, 1350)
    assert progress.usage_seen


def test_the_turn_timer_runs_from_start_to_end() -> None:
    clock = Clock()
    state = UiState(clock)
    progress = state.progress
    progress.start_turn(clock())
    clock.now += 65.4
    assert clock_text(progress.elapsed(clock()) or 0) == "1m05s"
    ticks = {progress.ticker(clock.now + step / 100) for step in range(100)}
    assert len(ticks) == 10  # the spinner moves ten times a second, so does the repaint
    state.apply(TurnEnded("done"))
    assert progress.elapsed(clock()) is None and progress.ticker(clock()) is None


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0s"), (9.9, "9s"), (65, "1m05s"), (3599, "59m59s"), (7380, "2h03m")]
)
def test_clock_text(seconds: float, text: str) -> None:
    assert clock_text(seconds) == text


@pytest.mark.parametrize(
    ("tokens", "text"),
    [(950, "950"), (1000, "1k"), (12_345, "12.3k"), (123_456, "123k"), (1_200_000, "1.2M")],
)
def test_count_text(tokens: int, text: str) -> None:
    assert count_text(tokens) == text


# ---------------------------------------------------------------------- the bar at 80 columns
WORKING = StatusInfo(
    model="qwen2.5-coder-32b-instruct-q4_k_m",
    mode="ctl-heredoc",
    token_rate=68.0,
    frontier=1284,
    pending=2,
    session="7f3a2b9c-1234",
    activity="running c3",
    approval="auto-edit",
    working=65.0,
    spinner="⠹",
    tokens_in=12_300,
    tokens_out=1_200,
    tokens_cached=8_000,
    context=0.34,
)
IDLE = StatusInfo(
    model="qwen2.5-coder-32b-instruct-q4_k_m",
    mode="ctl-heredoc",
    token_rate=68.0,
    frontier=1284,
    pending=0,
    session="7f3a2b9c-1234",
    activity="idle",
    approval="ask",
    tokens_in=12_300,
    tokens_out=1_200,
    context=0.34,
)


def test_at_80_columns_a_turn_shows_the_timer_the_interrupt_key_and_the_stream() -> None:
    shown = render_status(WORKING, 78).plain
    assert len(shown) <= 78
    assert shown.startswith("⠹ Working 1m05s · esc to interrupt · auto-edit")
    assert "68 tok/s" in shown and "fr 1,284" in shown and "pend 2" in shown
    # wider, what runs joins in, then the model and mode
    wider = render_status(WORKING, 110).plain
    assert "Working 1m05s · running c3 · esc to interrupt" in wider and "ctl-heredoc" in wider


def test_at_80_columns_between_turns_the_session_and_the_costs_show() -> None:
    shown = render_status(IDLE, 78).plain
    assert len(shown) <= 78
    for part in ("idle", "ask", "qwen2.5-coder…", "ctl-heredoc", "12.3k", "ctx 34%", "7f3a2b9c"):
        assert part in shown, (part, shown)


def test_wide_the_bar_spells_everything_out() -> None:
    shown = render_status(WORKING, 300).plain
    for part in (
        "qwen2.5-coder-32b-instruct-q4_k_m",
        "approval auto-edit",
        "frontier 1,284",
        "pending 2",
        "12.3k in · 1.2k out · 8k cached",
        "session 7f3a2b9c",
        "? help  ^p palette",
    ):
        assert part in shown, (part, shown)


def test_an_estimated_rate_says_so_and_an_unknown_one_is_not_shown() -> None:
    from dataclasses import replace

    assert "~68 tok/s" in render_status(replace(IDLE, rate_estimated=True)).plain
    assert "tok/s" not in render_status(replace(IDLE, token_rate=None)).plain
    assert "ctx" not in render_status(replace(IDLE, context=None)).plain
    assert "↑" not in render_status(replace(IDLE, tokens_in=None), 78).plain


@given(width=st.integers(min_value=20, max_value=200), working=st.booleans())
def test_the_bar_never_overflows_and_keeps_the_activity(width: int, working: bool) -> None:
    info = WORKING if working else IDLE
    chosen = fit_status(info, width)
    assert render_status(info, width).cell_len <= width
    if width >= 24:
        assert "activity" in chosen


def test_an_effort_asked_shows_beside_the_model_and_auto_shows_nothing() -> None:
    from dataclasses import replace

    wide = render_status(replace(IDLE, effort="high"), 300).plain
    assert "qwen2.5-coder-32b-instruct-q4_k_m · effort high · ctl-heredoc" in wide
    narrow = render_status(replace(IDLE, effort="high"), 78).plain
    assert len(narrow) <= 78
    assert "effort" not in render_status(replace(IDLE, effort="auto"), 300).plain
