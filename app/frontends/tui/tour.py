"""``frontier demo --tour``: the demo story played through the panes, stopping where it teaches.

The story is recorded first (``frontier.app.agent.tour.record_story``: the real
loop and tools, headless, in a throwaway data dir) and its moments are found
from the recorded events. The App here is the TUI's own App with a
:class:`TourController` instead of a session: it applies the recorded events
to the same ``UiState`` the live demo feeds, paced at the demo's token rate,
and pauses after each moment's last event with a card saying what happened
(``space`` plays on). ``b`` goes back by rebuilding every pane from the events
up to the previous moment — tools are never run again: what they did is in the
recording. The panes a moment is about get the ``-tour-focus`` class (a heavy
accent border, ``TOUR_CSS``); in the tabbed 80×24 layout the moment's pane is
the one shown.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer

from frontier.app.agent.tour import (
    PANES,
    TOUR_MODE,
    Moment,
    Noted,
    Said,
    TourRecording,
    find_moments,
    record_story_sync,
)
from frontier.app.config import Config
from frontier.app.events import Event, StreamBytes
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.main import TABS, MainScreen
from frontier.widgets.errors_pane import ErrorsPane
from frontier.widgets.state import UiState
from frontier.widgets.status_bar import StatusInfo
from frontier.widgets.tour_card import TourCard

TICK = 1 / 30
"""Seconds between playback steps (the panes paint at this rate anyway)."""
FOCUS = "-tour-focus"
TOUR_CSS = """
MainScreen .pane.-tour-focus { border: heavy $accent; border-title-color: $accent; }
MainScreen .pane.-tour-focus:focus-within { border: heavy $accent; }
"""
"""A highlighted pane: heavy (a shape, not only a colour) in the theme's accent, which
every theme checks at 4.5:1 against its backgrounds (tests/test_themes_contrast.py)."""


class TourClock:
    """The tour's time: it moves only while the story plays (1/rate per token), so a
    paused moment shows the same elapsed times however long the teacher talks."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class TourScreen(MainScreen):
    """The main screen without a message box, with the tour card above the status bar."""

    def __init__(self, clock: TourClock) -> None:
        super().__init__(clock, interactive=False)

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if widget.id == "status":
                yield TourCard(id="tour-card")
            yield widget


class TourController:
    """Plays the recording to each moment and back; the App's keys call :meth:`next`
    and :meth:`back`."""

    def __init__(
        self,
        app: TourApp,
        recording: TourRecording,
        moments: Iterable[Moment],
        rate: float,
        clock: TourClock,
    ) -> None:
        self.app = app
        self.recording = recording
        self.moments = tuple(moments)
        self.rate = rate
        """Tokens (``StreamBytes`` events) per second between moments; 0 jumps."""
        self.clock = clock
        self.position = 0
        """Events applied so far (``events[:position]``)."""
        self.at = -1
        """The moment shown (-1: the introduction), or, while playing, the one left."""
        self.target: int | None = None
        """The moment being played to (``len(moments)``: the end of the story)."""
        self.finished = False
        self.ready = False
        self._timer: Timer | None = None
        self._last = 0.0
        self._credit = 0.0

    # ------------------------------------------------------------------ state
    @property
    def count(self) -> int:
        return len(self.moments)

    @property
    def playing(self) -> bool:
        return self.target is not None

    @property
    def moment(self) -> Moment | None:
        """The moment the tour is stopped at (None: introduction, playing, or ended)."""
        if self.playing or self.finished or self.at < 0:
            return None
        return self.moments[self.at]

    def _end_of(self, k: int) -> int:
        """How many events are applied at moment ``k`` (all of them past the last)."""
        return self.moments[k].stop + 1 if k < self.count else len(self.recording.events)

    # ------------------------------------------------------------------ keys
    def start(self) -> None:
        self.ready = True
        self._timer = self.app.set_interval(TICK, self._tick, name="tour")
        self._opening()
        self._show()

    def _opening(self) -> None:
        """What the Transcript says before the story starts (and again after a rebuild)."""
        self.app.state.note(
            f"── guided tour: the {self.recording.mode} demo story, recorded just now ──"
        )

    def next(self) -> None:
        """``space``: play on to the next moment; while playing, jump there."""
        if self.finished:
            self.app.notify("the tour is over: b goes back to the last moment, q quits")
            return
        if self.target is None:
            self.target = self.at + 1
            self._last = time.monotonic()
            self._credit = 0.0
            self._clear_focus()
            if self.rate <= 0:
                self._arrive()
            else:
                self._show()
            return
        self._arrive()  # already playing: skip ahead

    def back(self) -> None:
        """``b``: back to the moment before (while playing: the one just left)."""
        if self.finished:
            goal = self.count - 1
        elif self.playing:
            goal = self.at
        else:
            goal = self.at - 1
        if goal < -1 or (goal == -1 and self.position == 0):
            self.app.notify("this is the start of the tour", timeout=2)
            return
        self.rebuild(goal)

    # ------------------------------------------------------------------ playing
    def _tick(self) -> None:
        if self.target is None:
            return
        now = time.monotonic()
        self._credit += (now - self._last) * self.rate
        self._last = now
        end = self._end_of(self.target)
        while self.position < end and self._credit >= 0:
            event = self.recording.events[self.position]
            if isinstance(event, StreamBytes):
                if self._credit < 1:
                    break
                self._credit -= 1
                self.clock.now += 1 / self.rate
            self._apply(self.position)
        if self.position >= end:
            self._arrive()

    def _apply(self, index: int) -> None:
        event = self.recording.events[index]
        self.position = index + 1
        apply(self.app.state, event)
        self.app.state.set_probe(*self.recording.probes[index])

    def _apply_to(self, end: int) -> None:
        state = self.app.state
        for index in range(self.position, end):
            apply(state, self.recording.events[index])
        if end > self.position:
            self.position = end
            state.set_probe(*self.recording.probes[end - 1])

    def _arrive(self) -> None:
        """Reach the target: every event up to it applied, the card and panes shown."""
        assert self.target is not None
        goal, self.target = self.target, None
        self._apply_to(self._end_of(goal))
        self.at = min(goal, self.count)
        self.finished = goal >= self.count
        if self.finished:
            self.at = self.count - 1
        self._show()

    def rebuild(self, k: int) -> None:
        """Every pane as it was at moment ``k`` (-1: the start), from the events alone."""
        self.target = None
        self.finished = False
        fresh(self.app)
        self._opening()
        self.position = 0
        self.clock.now = 0.0
        end = self._end_of(k) if k >= 0 else 0
        if self.rate > 0:  # the time the story took to get here, as if it had played
            tokens = sum(isinstance(e, StreamBytes) for e in self.recording.events[:end])
            self.clock.now = tokens / self.rate
        self._apply_to(end)
        self.at = k
        self._show()

    # ------------------------------------------------------------------ showing
    def _show(self) -> None:
        app = self.app
        card = app.main.query_one(TourCard)
        moment = self.moment
        if self.finished:
            card.hide()
            self._clear_focus()
            app.state.note("── the tour is over: b goes back to the last moment, q quits ──")
        elif self.playing:
            assert self.target is not None
            where = (
                f"moment {self.target + 1}/{self.count}"
                if self.target < self.count
                else "the end of the story"
            )
            text = card.text if self.at >= 0 else self._intro()
            card.show_card(f"▶ playing to {where} · space skips ahead", text, playing=True)
        elif moment is None:
            card.show_card(f"guided tour · {self.count} moments", self._intro())
            self._clear_focus()
        else:
            heading = f"moment {self.at + 1}/{self.count} · {moment.title}"
            card.show_card(heading, moment.text)
            self._focus(moment)
        app.state.mark("status")
        app.flush(force=True)
        if moment is not None and "errors" in moment.panes and app.state.errors:
            # the error chosen, as replay's error step does: its byte marked in Raw stream
            app.main.query_one(ErrorsPane).select(len(app.state.errors) - 1)

    def _intro(self) -> str:
        return (
            f"The demo model's {self.recording.mode} story, recorded just now in a scratch copy "
            f"of a sample project (its tools really ran), stopping at {self.count} moments "
            "where the frontier does something worth seeing. The panes involved are "
            "highlighted; 1–4 switch the right-hand pane."
        )

    def _focus(self, moment: Moment) -> None:
        main = self.app.main
        for ident in PANES:
            main.query_one(f"#{ident}").set_class(ident in moment.panes, FOCUS)
        if moment.tab in dict(TABS):
            main.show_tab(moment.tab)

    def _clear_focus(self) -> None:
        for ident in PANES:
            self.app.main.query_one(f"#{ident}").remove_class(FOCUS)

    def status(self, token_rate: float | None) -> StatusInfo:
        state = self.app.state
        if self.finished:
            activity = "tour over"
        elif self.playing:
            activity = "tour ▶"
        elif self.at < 0:
            activity = "tour"
        else:
            activity = f"tour {self.at + 1}/{self.count}"
        return StatusInfo(
            model="frontier-demo",
            mode=self.recording.mode,
            token_rate=token_rate,
            frontier=state.frontier,
            pending=state.pending_size,
            session="",
            activity=activity,
        )


def apply(state: UiState, event: Event) -> None:
    """One recorded event onto the panes' state, as the live TUI applied it."""
    if isinstance(event, Said):
        state.add_user(event.text)
    elif isinstance(event, Noted):
        state.note(event.text)
    else:
        state.apply(event)


def fresh(app: FrontierApp) -> None:
    """Give ``app`` an empty ``UiState`` for a rebuild. Its row and entry ids go on from
    the old one's and its epoch is the next: the panes cache rows by id, so a rebuilt
    row must never look like one they already drew."""
    old = app.state
    new = UiState(old.clock, scrubber=old.scrubber)
    new.models.confirmed.ids = old.models.confirmed.ids  # the ids are the panes' cache keys
    new.models.transcript.ids = old.models.transcript.ids
    new.epoch = old.epoch + 1
    new.thinking_expanded = old.thinking_expanded
    app.state = new


class TourApp(FrontierApp):
    """The TUI with a tour instead of a session (see the module docstring)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "tour_next", "Next", priority=True),
        Binding("b", "tour_back", "Back", priority=True),
    ]
    CSS = TOUR_CSS

    def __init__(
        self,
        config: Config,
        recording: TourRecording,
        *,
        moments: Iterable[Moment] | None = None,
        rate: float = 60.0,
        token_rate: float | None = None,
        remember_theme: bool = True,
    ) -> None:
        self.tour_clock = TourClock()
        super().__init__(
            config,
            welcome=False,
            autostart=False,
            clock=self.tour_clock,
            token_rate=token_rate,
            remember_theme=remember_theme,
        )
        self.live = None  # no agent: the tour plays what the recording holds
        found = find_moments(recording) if moments is None else moments
        self.tour = TourController(self, recording, found, rate, self.tour_clock)

    def get_default_screen(self) -> Screen[Any]:
        self._main = TourScreen(self.tour_clock)
        return self._main

    def on_mount(self) -> None:
        self.call_after_refresh(self.tour.start)

    def status(self) -> StatusInfo:
        rate = self.token_rate_override
        return self.tour.status(rate if rate is not None else self.tour.rate or None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("tour_next", "tour_back"):
            return self.tour.ready and self.screen is self.main
        return super().check_action(action, parameters)

    def action_tour_next(self) -> None:
        self.tour.next()

    def action_tour_back(self) -> None:
        self.tour.back()


def run_tour(config: Config, *, rate: float = 60.0, mode: str = TOUR_MODE) -> int:
    """``frontier demo --tour``: record the story (about a second), then open the tour."""
    print(f"frontier demo --tour: recording the {mode} story…", file=sys.stderr, flush=True)
    recording = record_story_sync(mode)
    app = TourApp(config, recording, rate=rate)
    return int(app.run() or 0)


__all__ = ["TourApp", "TourClock", "TourController", "run_tour"]
