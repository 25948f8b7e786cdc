"""Waiting in Pilot tests: for the state a test asserts, never for a fixed time.

Under load (a busy CI runner) a key press, a pushed screen's ``on_mount``, a
deferred ``focus()`` or a worker can land later than the test's next line: Pilot's
``press`` only waits until the process *looks* idle between keys. So a test waits
for exactly the state it is about to assert or act on — a screen mounted, a box
focused, a flag set — by letting the app run (``pilot.pause()``) until a condition
holds, bounded by a generous wall-clock limit that only a real hang reaches.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from textual.css.query import NoMatches
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

TIMEOUT = 60.0
"""Seconds before a wait fails: far beyond what any step takes even on a loaded box."""
QUICK_ROUNDS = 50
"""Rounds that only let pending messages run before the wait also lets timers fire."""

S = TypeVar("S", bound=Screen[Any])


async def until(
    pilot: Pilot[Any], cond: Callable[[], bool], what: str, timeout: float = TIMEOUT
) -> None:
    """Let the app run until ``cond()`` holds (a widget not there yet counts as "not
    yet"); fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    rounds = 0
    while True:
        try:
            if cond():
                return
        except NoMatches:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await pilot.pause(None if rounds < QUICK_ROUNDS else 0.01)
        rounds += 1


def showing(app: Any, kind: type[Screen[Any]]) -> bool:
    """``kind`` is the screen on top and its ``on_mount`` has run."""
    screen = app.screen
    return isinstance(screen, kind) and screen.is_mounted


async def opened(pilot: Pilot[Any], kind: type[S], what: str = "") -> S:
    """Wait until a ``kind`` screen is on top and mounted; return it."""
    await until(pilot, lambda: showing(pilot.app, kind), what or f"the {kind.__name__}")
    screen = pilot.app.screen
    assert isinstance(screen, kind)
    return screen


async def focus_of(pilot: Pilot[Any], widget: Widget | Callable[[], Widget], what: str) -> None:
    """Wait until ``widget`` (or the one the callable finds) has the focus."""

    def has_focus() -> bool:
        target = widget() if callable(widget) and not isinstance(widget, Widget) else widget
        return bool(target.has_focus)

    await until(pilot, has_focus, what)


async def type_into(
    pilot: Pilot[Any], widget: Widget | Callable[[], Widget], text: str, *keys: str
) -> None:
    """Type ``text`` (then ``keys``) once ``widget`` has the focus: typed any earlier,
    a letter could reach a binding instead (``a`` approves in a review)."""
    await focus_of(pilot, widget, f"the focus before typing {text!r}")
    await pilot.press(*text, *keys)


async def workers_done(app: Any, timeout: float = TIMEOUT) -> None:
    """Wait for every worker (a turn, the demo, a replay) to finish, bounded."""
    try:
        await asyncio.wait_for(app.workers.wait_for_complete(), timeout)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout:g} s waiting for the workers") from None


async def replay_step(pilot: Pilot[Any], key: str) -> None:
    """Press a replay step key (``.`` ``,`` ``n`` ``e``) and wait until the player moved:
    a second step pressed before the first ran would overshoot what a test asserts."""
    replay = pilot.app.replay
    assert replay is not None, "not a replay"
    player = replay.player

    def where() -> tuple[int, int, bool]:
        return player.index, player.position, player.finished

    before = where()
    await pilot.press(key)
    await until(pilot, lambda: where() != before, f"the replay step {key!r}")


async def eventually(
    pilot: Pilot[Any], check: Callable[[], object], what: str, timeout: float = TIMEOUT
) -> None:
    """Let the app run until ``check`` (a block of the test's own assertions) passes;
    after ``timeout`` seconds its last ``AssertionError`` is the failure.

    For what a test reads off the rendered screen or the widgets after a key: the
    repaint that shows it comes some messages after the key, later under load."""
    deadline = time.monotonic() + timeout
    rounds = 0
    while True:
        try:
            check()
            return
        except (AssertionError, NoMatches, StopIteration) as exc:
            if time.monotonic() > deadline:
                message = f"timed out after {timeout:g} s waiting for {what}: {exc}"
                raise AssertionError(message) from exc
        await pilot.pause(None if rounds < QUICK_ROUNDS else 0.01)
        rounds += 1


def screen_lines(app: Any) -> list[str]:
    """What the terminal shows now: the screen's composed lines, one string per row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def screen_text(app: Any) -> str:
    """What the terminal shows now, as one text."""
    return "\n".join(screen_lines(app))
