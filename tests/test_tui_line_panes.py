"""The fast-stream panes: what they show after a flood of bytes, and that they get there
without laying out the screen on every flush (docs/benchmarks/tui.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pilot_wait import focus_of, until
from test_tui_layouts import live_app
from test_tui_snapshots import settle
from textual.screen import Screen
from textual.widgets import TextArea

from frontier.app.config import Config
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.replay_player import (
    MAX_CHUNK_ADAPTIVE,
    MIN_CHUNK,
    SLICE_BUDGET,
    ReplayPlayer,
    next_chunk,
    source_from_recording,
)
from frontier.app.session.record import synthesize
from frontier.widgets.confirmed import ConfirmedView
from frontier.widgets.raw_stream import RawStreamView
from frontier.widgets.state import RAW_WINDOW, ResponseBuffer
from frontier.widgets.tools_pane import ToolsPane
from frontier.widgets.transcript import Transcript

CALL = "call c{n} write\narg path f{n}.txt\narg content <<EOF\nline é {n}\nEOF\nend\n"


def many_calls(n: int) -> str:
    return "Writing files.\n" + "".join(CALL.replace("{n}", str(i)) for i in range(n))


def replay_app(text: str, **kw: Any) -> FrontierApp:
    source = source_from_recording(synthesize(text, "ctl-heredoc", sizes=(16,)), name="t")
    return FrontierApp(
        Config(), player=ReplayPlayer(source), remember_theme=False, token_rate=0.0, **kw
    )


def laid_out(app: FrontierApp) -> bool:
    """The main screen is mounted and the layout gave the panes their sizes."""
    screen = app.screen
    return screen.is_mounted and screen.query_one(Transcript).size.height > 0


# ---------------------------------------------------------------- raw stream index
def indexed(data: bytes, cuts: list[int], wrap: int) -> RawStreamView:
    """Index ``data`` as it would arrive in pieces ending at ``cuts``."""
    view = RawStreamView()
    view._wrap = wrap
    buf = ResponseBuffer(1, "ctl")
    view.buffer = buf
    view._reset_index(0)
    done = 0
    for cut in [*sorted(cuts), len(data)]:
        buf.data += data[done:cut]
        done = max(done, cut)
        view._index(buf)
    return view


@given(
    data=st.lists(st.sampled_from([b"a", b"\n", b" ", "é".encode(), "€".encode()]), max_size=80),
    cuts=st.lists(st.integers(0, 200), max_size=4),
    wrap=st.integers(4, 12),  # the pane never wraps narrower than 8 bytes
)
def test_raw_lines_cover_every_byte_once_wrapped_and_never_split_a_character(
    data: list[bytes], cuts: list[int], wrap: int
) -> None:
    raw = b"".join(data)
    view = indexed(raw, [c for c in cuts if c <= len(raw)], wrap)
    rebuilt = b""
    spans = view.spans()
    for start, end, newline in spans:
        line = raw[start:end]
        assert b"\n" not in line
        assert len(line) <= wrap
        assert not line or (line[0] & 0xC0) != 0x80, "a line starts inside a character"
        rebuilt += line + (b"\n" if newline else b"")
    assert rebuilt == raw
    # the frontier marker has a line to sit on after a final newline
    assert not raw or spans[-1][2] is False


def test_a_sliding_window_keeps_the_index_of_what_remains() -> None:
    buf = ResponseBuffer(1, "ctl")
    view = RawStreamView()
    view.buffer = buf
    view._wrap = 40
    view._generation = 0
    view._reset_index(0)
    line = b"x" * 30 + b"\n"
    while buf.generation == 0:
        buf.append(buf.end, line * 512)
        if buf.generation == 0:
            view._index(buf)
    assert buf.base > 0 and len(buf.data) <= RAW_WINDOW
    view._slide(buf)
    view._index(buf)
    fresh = RawStreamView()
    fresh.buffer = buf
    fresh._wrap = 40
    fresh._reset_index(buf.base)
    fresh._index(buf)
    assert view.spans() == fresh.spans()


# ---------------------------------------------------------------- replay driver
def test_max_speed_chunks_adapt_to_the_slice_budget() -> None:
    assert next_chunk(16 << 10, SLICE_BUDGET * 2) == 8 << 10  # too slow: halve
    assert next_chunk(16 << 10, SLICE_BUDGET / 10) == 32 << 10  # cheap: double
    assert next_chunk(16 << 10, SLICE_BUDGET * 0.6) == 16 << 10  # about right
    assert next_chunk(MIN_CHUNK, 1.0) == MIN_CHUNK
    assert next_chunk(MAX_CHUNK_ADAPTIVE, 0.0) == MAX_CHUNK_ADAPTIVE


# ---------------------------------------------------------------- panes, end to end
@pytest.mark.parametrize("size", [(80, 24), (140, 45)], ids=["80x24", "140x45"])
async def test_a_flood_of_calls_paints_the_newest_without_a_layout_per_flush(
    monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    layouts: list[bool] = []
    original = Screen._refresh_layout

    def counting(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        layouts.append(True)
        original(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counting)
    text = many_calls(150)
    app = replay_app(text, paused=True)
    async with app.run_test(size=size) as pilot:
        player = app.replay.player
        assert player is not None
        await until(pilot, lambda: laid_out(app), "the first layout")
        await pilot.pause()
        layouts.clear()
        flushes = 0
        app.observe_all(player.start())
        while not player.finished:
            app.observe_all(player.advance(0.0, None, 256))
            app.flush(force=True)
            await pilot.pause()
            flushes += 1
        app.flush(force=True)
        await pilot.pause()
        assert flushes > 40
        # scrollbars appearing lay out once per pane; growing content never does
        assert len(layouts) <= 8, f"{len(layouts)} layouts in {flushes} flushes"

        transcript = app.screen.query_one(Transcript)
        assert "c149" in transcript.plain_lines[-1]
        assert transcript.follow and transcript.scroll_offset.y == transcript.max_scroll_y
        tools = app.screen.query_one(ToolsPane)
        assert tools.plain_lines[-1].startswith("• c149 write f149.txt")
        raw = app.screen.query_one(RawStreamView)
        last = raw.line_count - 1 - raw.scroll_offset.y
        assert 0 <= last < raw.size.height, "the newest bytes are in view"
        assert raw.render_line(last).text.startswith("▌"), "with the frontier marker"
        await pilot.press("2")  # Confirmed (a hidden tab at 80×24 paints when chosen)
        confirmed = app.screen.query_one(ConfirmedView)
        await until(
            pilot,
            lambda: (
                bool(confirmed.rows)
                and confirmed.rows[-1].label == "response ended: stop"
                and confirmed.size.height > 0
                and confirmed.scroll_offset.y == confirmed.max_scroll_y > 0
            ),
            "the Confirmed tab painted at its end",
        )
        assert confirmed.rows[-1].label == "response ended: stop"
        assert confirmed.size.height > 0
        assert confirmed.scroll_offset.y == confirmed.max_scroll_y > 0


async def test_a_reader_scrolled_up_in_the_transcript_stays_where_they_are() -> None:
    app = replay_app(many_calls(100), paused=True)  # fewer entries than the pane keeps
    async with app.run_test(size=(140, 45)) as pilot:
        player = app.replay.player
        assert player is not None
        await until(pilot, lambda: laid_out(app), "the first layout")
        app.observe_all(player.feed_to(player.size // 2))
        app.flush(force=True)
        await pilot.pause()
        transcript = app.screen.query_one(Transcript)
        assert transcript.max_scroll_y > 0
        transcript.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        first = transcript.render_line(0).text
        app.observe_all(player.run_all())
        app.flush(force=True)
        await pilot.pause()
        assert not transcript.follow
        assert transcript.scroll_offset.y == 0
        assert transcript.render_line(0).text == first
        assert "c99" in transcript.plain_lines[-1]
        assert "↓ new below" in transcript.border_subtitle  # and it says so
        transcript.scroll_end(animate=False, immediate=True)  # the reader goes to the end
        await until(pilot, lambda: not transcript.border_subtitle, "the marker gone")
        assert transcript.follow


async def test_no_marker_while_following_nor_for_a_repaint() -> None:
    app = replay_app(many_calls(100), paused=True)
    async with app.run_test(size=(140, 45)) as pilot:
        player = app.replay.player
        assert player is not None
        await until(pilot, lambda: laid_out(app), "the first layout")
        app.observe_all(player.feed_to(player.size // 2))
        app.flush(force=True)
        await pilot.pause()
        transcript = app.screen.query_one(Transcript)
        assert transcript.follow and transcript.max_scroll_y > 0
        app.observe_all(player.run_all())
        app.flush(force=True)
        await pilot.pause()
        assert transcript.follow and not transcript.border_subtitle  # seen as it came
        transcript.scroll_to(y=0, animate=False, immediate=True)
        await until(pilot, lambda: not transcript.follow, "scrolled up")
        transcript.focus()  # focus paints the rows again: a repaint, not new output
        await until(pilot, lambda: transcript.has_focus, "the Transcript focused")
        app.flush(force=True)
        await pilot.pause()
        assert not transcript.border_subtitle


def visible(transcript: Transcript) -> list[str]:
    return [transcript.render_line(y).text for y in range(transcript.size.height)]


async def test_sending_a_message_scrolls_the_transcript_to_the_end(tmp_path: Path) -> None:
    """The reader scrolled up, then sent: their own action shows their message and the
    reply (new output they did not ask for keeps their place instead)."""
    app, loop = live_app(tmp_path, layout="conversation")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for n in range(80):
            app.state.note(f"earlier line {n}")
        app.flush(force=True)
        transcript = app.main.query_one(Transcript)
        await until(pilot, lambda: transcript.max_scroll_y > 0, "a transcript that scrolls")
        transcript.scroll_to(y=0, animate=False, immediate=True)
        await until(pilot, lambda: not transcript.follow, "scrolled up")
        app.state.note("a note nobody asked for")
        app.flush(force=True)
        await until(pilot, lambda: bool(transcript.border_subtitle), "the marker")
        assert transcript.scroll_offset.y == 0  # the reader keeps their place
        prompt = app.main.query_one("#prompt", TextArea)
        await focus_of(pilot, prompt, "the prompt")
        await pilot.press(*"look here", "enter")
        await until(pilot, lambda: loop.sent == ["look here"], "the message sent")

        def at_end() -> bool:
            app.flush(force=True)
            shown = visible(transcript)
            return (
                transcript.follow
                and transcript.scroll_offset.y == transcript.max_scroll_y
                and any(line.startswith("you  look here") for line in shown)
            )

        await until(pilot, at_end, "the sent message on screen")
        assert not transcript.border_subtitle


def test_pending_hint_names_the_rule_of_a_framing_without_a_bound() -> None:
    """Teaching point: native calls wait for their index to complete; CTL waits bytes."""
    from frontier.widgets.pending import render_pending

    native = render_pending(b'{"path": "a', 11, "native-inc").plain
    assert "index is complete" in native
    heredoc = render_pending(b"EO", 4, "ctl-heredoc").plain
    assert "may still become the TAG line" in heredoc
