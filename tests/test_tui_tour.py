"""``frontier demo --tour`` in the TUI: space reaches each moment in order, b goes back
and every pane shows the earlier state, the card never covers the panes it talks
about at 80×24, and the highlight is readable in every theme.

The story is recorded once for the module (the real loop and tools, headless); the
tour plays it at rate 0 (each space jumps), so nothing here waits for time — only
for the state a test asserts (``pilot_wait``). Snapshots: ``pytest
tests/test_tui_tour.py --snapshot-update`` (never under xdist), then review the SVGs.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import eventually, until
from pytest_textual_snapshot import SVGImageExtension
from test_themes_contrast import BORDER_MIN, contrast
from textual.pilot import Pilot

from frontier.app.agent.tour import PANES, TourRecording, find_moments, record_story_sync
from frontier.app.config import Config
from frontier.app.events import Event, ToolFinished, ToolOutput
from frontier.app.frontends.tui.tour import FOCUS, TourApp
from frontier.app.vocab import THEME_NAMES
from frontier.widgets.confirmed import ConfirmedView
from frontier.widgets.errors_pane import ErrorsPane
from frontier.widgets.raw_stream import RawStreamView
from frontier.widgets.tour_card import TourCard
from frontier.widgets.transcript import Transcript

STORY = ["first_call", "heredoc_tag", "miscount", "eager_call", "made_up_result", "truncation"]
SMALL = (80, 24)


def _steady(event: Event) -> Event:
    """A recorded event without what the clock decided (snapshots compare pixels)."""
    if isinstance(event, ToolFinished):
        result = event.result
        output = re.sub(r"in \d+\.\d+s", "in 0.001s", result.output)
        return ToolFinished(replace(result, elapsed=0.01, output=output))
    if isinstance(event, ToolOutput):
        return ToolOutput(event.call_id, re.sub(r"in \d+\.\d+s", "in 0.001s", event.data))
    return event


@pytest.fixture(scope="module")
def recording() -> TourRecording:
    story = record_story_sync()
    return replace(story, events=tuple(_steady(e) for e in story.events))


@pytest.fixture(autouse=True)
def _snapshots_in_tests_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).parent / "snapshots"

    def dirname(cls: Any, *, test_location: Any) -> str:
        return str(root / test_location.basename)

    monkeypatch.setattr(SVGImageExtension, "dirname", classmethod(dirname))


def tour_app(recording: TourRecording, theme: str = "frontier-dark", rate: float = 0.0) -> TourApp:
    return TourApp(Config(theme=theme), recording, rate=rate, remember_theme=False)


def where(app: TourApp) -> tuple[int, bool, bool, int]:
    tour = app.tour
    return tour.at, tour.playing, tour.finished, tour.position


async def ready(pilot: Pilot) -> TourApp:
    app = pilot.app
    assert isinstance(app, TourApp)
    await until(pilot, lambda: app.tour.ready and app.main.is_mounted, "the tour to start")
    return app


async def press(pilot: Pilot, key: str, what: str) -> None:
    """Press ``key`` and wait until the tour moved (a second key pressed before the first
    ran would overshoot)."""
    app = pilot.app
    assert isinstance(app, TourApp)
    before = where(app)
    await pilot.press(key)
    await until(pilot, lambda: where(app) != before, what)


def focused(app: TourApp) -> set[str]:
    return {ident for ident in PANES if app.main.query_one(f"#{ident}").has_class(FOCUS)}


def card(app: TourApp) -> TourCard:
    return app.main.query_one(TourCard)


def transcript_text(app: TourApp) -> str:
    return "\n".join(entry.text for entry in app.state.transcript)


def check_moment(app: TourApp, key: str) -> None:
    """What the panes' state must show at moment ``key``."""
    state = app.state
    if key == "first_call":
        assert [r.label for r in state.confirmed if r.kind == "call"] == ["call c1 read"]
        assert state.frontier == 80 and not state.tools
    elif key == "heredoc_tag":
        assert state.pending() == b"EOF" and state.pending_bound == 4
        assert not state.errors
    elif key == "miscount":
        assert [e.kind for e in state.errors] == ["body_eof"]
        assert "c4" not in state.tools and "c5" not in state.tools  # never ran
        assert "repair 1" in transcript_text(app)
    elif key == "eager_call":
        assert state.tools["c5"].state == "running"
        assert state.current is not None and state.current.finish_reason is None
    elif key == "made_up_result":
        assert "stream stopped at byte 92" in transcript_text(app)
        assert state.pending() == b"result"
        assert state.tools["c5"].state == "ok"
    elif key == "truncation":
        assert state.tools["c6"].state == "truncated"
        assert state.current is not None and state.current.finish_reason == "length"


async def test_space_reaches_each_moment_in_order_and_the_last_ends_the_tour(
    recording: TourRecording,
) -> None:
    app = tour_app(recording)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        assert card(app).heading == "guided tour · 6 moments"
        assert not focused(app)
        moments = app.tour.moments
        assert [m.key for m in moments] == STORY
        for k, key in enumerate(STORY):
            await press(pilot, "space", f"moment {k + 1}")
            moment = app.tour.moment
            assert moment is not None and moment.key == key
            assert card(app).heading.startswith(f"moment {k + 1}/6 · ")
            assert card(app).text == moment.text
            assert focused(app) == set(moment.panes)
            assert app.main.active_tab == moment.tab
            assert app.tour.position == moment.stop + 1
            check_moment(app, key)
        await press(pilot, "space", "the end of the tour")
        assert app.tour.finished and app.tour.moment is None
        assert card(app).has_class("-hidden") and not focused(app)
        assert app.tour.position == len(recording.events)
        assert "Done. `greet --shout NAME`" in transcript_text(app)
        await pilot.press("space")  # nothing more to play: it says so
        await pilot.pause()
        assert app.tour.finished and app.tour.position == len(recording.events)


async def test_b_goes_back_and_every_pane_shows_the_earlier_state(
    recording: TourRecording,
) -> None:
    app = tour_app(recording)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        for k in range(4):
            await press(pilot, "space", f"moment {k + 1}")
        check_moment(app, "eager_call")
        await press(pilot, "b", "back to moment 3")
        assert app.tour.at == 2 and card(app).heading.startswith("moment 3/6 · ")
        check_moment(app, "miscount")
        assert focused(app) == set(app.tour.moments[2].panes)
        app.flush(force=True)
        raw = app.main.query_one(RawStreamView)

        def panes_rebuilt() -> None:
            assert raw.buffer is app.state.current and raw.buffer is not None
            assert raw.buffer.index == 4  # the miscounted response
            assert app.main.query_one(ConfirmedView).rows is app.state.confirmed
            assert len(app.main.query_one(ErrorsPane).rows) == 1
            lines = "\n".join(app.main.query_one(Transcript).plain_lines)
            assert "c5" not in lines and "repair 1" in lines

        await eventually(pilot, panes_rebuilt, "the panes at moment 3")
        await press(pilot, "b", "back to moment 2")
        check_moment(app, "heredoc_tag")

        def no_errors() -> None:
            assert app.main.query_one(ErrorsPane).rows == []

        app.flush(force=True)
        await eventually(pilot, no_errors, "the Errors pane emptied")
        await press(pilot, "space", "moment 3 again")
        check_moment(app, "miscount")
        for _ in range(3):
            await press(pilot, "b", "back")
        assert app.tour.at == -1 and app.tour.position == 0  # the introduction
        assert card(app).heading == "guided tour · 6 moments"
        await pilot.press("b")  # nothing before the start
        await pilot.pause()
        assert app.tour.at == -1 and app.tour.position == 0
        for k in range(7):
            await press(pilot, "space", f"step {k + 1}")
        assert app.tour.finished
        await press(pilot, "b", "back from the end")
        assert app.tour.at == 5 and not app.tour.finished
        check_moment(app, "truncation")
        assert not card(app).has_class("-hidden")


async def test_space_while_playing_skips_ahead_and_b_returns_to_the_moment_left(
    recording: TourRecording,
) -> None:
    # a rate so slow the story never gets anywhere by itself
    app = tour_app(recording, rate=1e-9)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        await press(pilot, "space", "playing")
        assert app.tour.playing and app.tour.target == 0
        assert card(app).heading.startswith("▶ playing to moment 1/6")
        await press(pilot, "space", "skipped to moment 1")
        assert app.tour.moment is not None and app.tour.moment.key == "first_call"
        check_moment(app, "first_call")
        await press(pilot, "space", "playing to moment 2")
        assert app.tour.playing
        await press(pilot, "b", "back to moment 1")
        assert not app.tour.playing and app.tour.at == 0
        check_moment(app, "first_call")


async def test_the_card_never_covers_the_panes_it_talks_about(recording: TourRecording) -> None:
    app = tour_app(recording)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        for k in range(len(STORY)):
            await press(pilot, "space", f"moment {k + 1}")
            moment = app.tour.moment
            assert moment is not None

            def laid_out(moment: Any = moment) -> None:
                box = card(app).region
                assert 3 <= box.height <= 6, box
                assert box.bottom <= app.screen.region.height - 2  # above status and footer
                shown = [app.main.query_one(f"#{p}") for p in moment.panes]
                shown = [w for w in shown if w.display and w.region.height]
                assert app.main.query_one(f"#{moment.tab}") in shown
                for pane in shown:
                    assert not pane.region.overlaps(box), (pane.id, pane.region, box)
                    assert pane.region.height >= 5, (pane.id, pane.region)

            await eventually(pilot, laid_out, f"the layout at moment {k + 1}")


@pytest.mark.parametrize("theme", THEME_NAMES)
async def test_a_highlighted_pane_is_readable_in_every_theme(
    recording: TourRecording, theme: str
) -> None:
    app = tour_app(recording, theme=theme)
    async with app.run_test(size=(140, 45)) as pilot:
        await ready(pilot)
        for _ in range(3):  # the miscount: three panes highlighted, all on screen
            await press(pilot, "space", "a moment")
        panes = [app.main.query_one(f"#{p}") for p in app.tour.moments[2].panes]
        screen_bg = app.screen.styles.background
        for pane in panes:
            edge, colour = pane.styles.border_top
            assert edge == "heavy", pane.id  # a shape, not only a colour
            _, inner = pane.background_colors
            for under in (screen_bg, inner):
                ratio = contrast(under.blend(colour.with_alpha(1.0), colour.a), under)
                assert ratio >= BORDER_MIN, f"{theme} #{pane.id}: {ratio:.2f}:1"


def test_the_moments_the_app_plays_are_the_recordings(recording: TourRecording) -> None:
    app = tour_app(recording)
    assert app.tour.moments == find_moments(recording)


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_tour_snapshot_at_80x24(snap_compare: Any, recording: TourRecording, theme: str) -> None:
    """Moment 2 (a heredoc line that might be the TAG): Pending tab, its meter at 3 / 4."""
    app = tour_app(recording, theme=theme)

    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        for k in range(2):
            await press(pilot, "space", f"moment {k + 1}")
        app.flush(force=True)
        await pilot.pause()
        app.flush(force=True)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)
