"""Replay in the TUI: a recording (or a whole stored session) through the live panes.

The App holds one :class:`ReplayController` instead of a live session when it was
given a player. It drives the player — by recorded arrival times × speed, or at
"max" in slices the player sizes to the cost per byte — and applies what it
yields to the same ``UiState`` a live session feeds; the keys pause, change speed
and step by byte / line / event / error. ``app/replay_player.py`` does the
stepping and knows no Textual; this module only schedules it and reports it.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from frontier.app.agent.explain import Explanation, explain_stored, explain_stream, pick
from frontier.app.events import Event, ResponseStarted
from frontier.app.frontends.tui.host import Inspect, Repaint, ShowErrors
from frontier.app.replay_player import (
    MAX_CHUNK,
    PlaylistPlayer,
    ReplayPlayer,
    faster,
    next_chunk,
    protocol_warning,
    slower,
)
from frontier.widgets.state import ErrorRow
from frontier.widgets.status_bar import StatusInfo

if TYPE_CHECKING:
    from frontier.app.frontends.tui.host import Host

Step = Literal["byte", "line", "event", "error"]


class ReplayController:
    """The replay mode's half of the App: the player, its speed, pause and steps."""

    def __init__(
        self,
        app: Host,
        player: ReplayPlayer | PlaylistPlayer,
        *,
        speed: float | None = 1.0,
        paused: bool = False,
        detected: Sequence[str] = (),
    ) -> None:
        self.app = app
        self.detected = tuple(detected)
        """What was detected in a capture (kind, wire, protocol), said first (issue 25)."""
        self.player = player
        self.speed = speed
        """Times real time; ``None`` is "max" (as fast as the event loop allows)."""
        self.paused = paused
        self.slices: deque[float] = deque(maxlen=4096)
        """Seconds each replay step held the event loop (the newest 4,096; for the bench)."""
        self._resume = asyncio.Event()
        self._playing = False
        """``play`` is running (not finished)."""
        self._responses_replayed = 0
        self._at_error: tuple[int, int, int] | None = None
        """Where ``e`` last stopped at an error (response, byte, errors seen)."""

    @property
    def racing(self) -> bool:
        """Playing at "max" (the App then paints one pane a flush)."""
        return self.speed is None and not self.paused and self._playing

    @property
    def responses(self) -> int:
        """How many responses the player plays (a stored session's, else 1)."""
        return self.player.count

    def start(self, autostart: bool) -> None:
        """Say what is replayed (and, loudly, what a re-framed replay cannot show); with
        ``autostart``, start playing it."""
        player = self.player
        for line in self.detected:  # a capture: what was read, before what plays
            self.app.state.note(line)
        self.app.state.note(player.summary())
        sources = player.sources if isinstance(player, PlaylistPlayer) else (player.source,)
        warning = protocol_warning(sources)
        if warning is not None:
            self.app.state.note(f"⚠ {warning}", "stop")
            self.app.notify(
                warning, title="replayed under another protocol", severity="warning", timeout=12
            )
        if autostart:
            self.app.run_worker(self.play(), name="replay", group="replay", exit_on_error=False)

    async def play(self) -> None:
        """Feed the recording by its arrival times × speed, or at "max" as fast as the
        loop allows in slices of about ``SLICE_BUDGET`` (the chunk adapts to the cost
        per byte), yielding between slices so input and painting never wait long."""
        player = self.player
        last = time.monotonic()
        chunk = MAX_CHUNK
        self.observe(player.start())
        self._playing = True
        try:
            await self._play(player, last, chunk)
        finally:
            self._playing = False
            self.app.state.mark("status")  # the next flush paints what is left (``racing``)

    async def _play(self, player: ReplayPlayer | PlaylistPlayer, last: float, chunk: int) -> None:
        last_took = 0.0
        while not player.finished:
            if self.paused:
                self._resume.clear()
                await self._resume.wait()
                last = time.monotonic()
                continue
            now = time.monotonic()
            started = time.perf_counter()
            self.observe(player.advance(now - last, self.speed, chunk))
            took = time.perf_counter() - started
            self.slices.append(took)
            if self.speed is None:
                # the shorter of the last two: a collection or a preempted slice once is
                # no reason to halve the chunk (and double the steps) for the rest
                chunk = next_chunk(chunk, min(took, last_took))
            last_took = took
            last = now
            await asyncio.sleep(0 if self.speed is None else 1 / 120)

    def observe(self, events: list[Event]) -> None:
        """Apply replayed events; a session's responses each open with a transcript note."""
        player = self.player
        state = self.app.state
        if not isinstance(player, PlaylistPlayer):
            self.app.observe_all(events)
            return
        for event in events:
            if isinstance(event, ResponseStarted):
                self._responses_replayed += 1
                name = player.sources[min(self._responses_replayed, player.count) - 1].name
                state.note(f"response {self._responses_replayed} of {player.count} · {name}")
            state.apply(event)

    # ------------------------------------------------------------------ keys
    def toggle_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused:
            self._resume.set()
        self.app.state.mark("status")

    def change_speed(self, direction: int) -> None:
        self.speed = faster(self.speed) if direction > 0 else slower(self.speed)
        self.app.state.mark("status")
        label = "max" if self.speed is None else f"{self.speed:g}×"
        self.app.notify(f"speed {label}", timeout=1.5)

    def step(self, unit: Step) -> None:
        """Pause and step one byte / line / event, or jump to the next contract error.

        ``e`` at the error it just jumped to (nothing stepped since) opens the inspector
        on it instead: press ``e`` to go to an error, ``e`` again to look at it."""
        app, player = self.app, self.player
        if unit == "error" and app.state.errors and self._at_error == self._where():
            app.post_message(Inspect(app.state.errors[-1]))
            return
        self.paused = True
        step = {
            "byte": player.step_bytes,
            "line": player.step_line,
            "event": player.step_event,
            "error": player.next_error,
        }[unit]
        before = len(app.state.errors)
        self.observe(step())
        found = len(app.state.errors) > before
        self._at_error = self._where() if unit == "error" and found else None
        if unit == "error" and not found and app.state.errors:
            app.notify(
                "no contract error ahead · the Errors pane (4), enter: inspect one", timeout=4
            )
        if unit == "error" and app.state.errors:
            app.state.mark("errors")
            app.post_message(ShowErrors())  # painted, with the newest row selected
        app.state.mark("status")
        app.post_message(Repaint())

    def inspect_next(self) -> None:
        """``e`` in the inspector: on to the next contract error, and inspect it."""
        before = len(self.app.state.errors)
        self._at_error = None
        self.step("error")
        if len(self.app.state.errors) > before:  # else ``step`` said none is ahead
            self.app.post_message(Inspect(self.app.state.errors[-1]))

    def _where(self) -> tuple[int, int, int]:
        return self.player.index, self.player.position, len(self.app.state.errors)

    # ------------------------------------------------------------------ the inspector
    async def explain(self, row: ErrorRow) -> Explanation | None:
        """The inspector's explanation of ``row``, off the event loop."""
        return await asyncio.to_thread(self._explain, row)

    def _explain(self, row: ErrorRow) -> Explanation | None:
        """From the recorded response the row belongs to; a stored session's response
        (``SESSION#N``) also gets the feedback and the next attempt from the store."""
        player = self.player
        sources = player.sources if isinstance(player, PlaylistPlayer) else (player.source,)
        if not 0 < row.response <= len(sources):
            return None
        source = sources[row.response - 1]
        found: list[Explanation] = []
        session, _, index = source.name.partition("#")
        if index.isdigit():
            try:
                found = explain_stored(session, int(index))
            except (LookupError, RuntimeError, OSError):
                found = []  # not a stored session after all (a file named like one)
        if pick(found, row.kind, row.offset, row.message) is None:
            found = explain_stream(
                source.name,
                source.protocol,
                source.pieces(),
                source.finish_reason,
                wire=source.wire,  # a Responses or Anthropic capture reads as its own wire
            )
        return pick(found, row.kind, row.offset, row.message)

    # ------------------------------------------------------------------ the status bar
    def status(self, token_rate: float | None) -> StatusInfo:
        player, state = self.player, self.app.state
        source = player.source
        speed = "max" if self.speed is None else f"{self.speed:g}×"
        where = "ended" if player.finished else "paused" if self.paused else "playing"
        which = ""
        if player.count > 1:
            which = f"response {player.index + 1} of {player.count} · "
        return StatusInfo(
            model=source.model or "recording",
            mode=source.protocol,
            token_rate=token_rate,
            frontier=state.frontier,
            pending=state.pending_size,
            session="",
            activity=f"{which}replay {source.name} {where} {speed} · "
            f"byte {player.position:,}/{player.size:,}",
        )

    def probe(self) -> tuple[int, int]:
        """The player's transducer: its frontier and pending bound."""
        return int(self.player.frontier), int(self.player.pending_bound())
