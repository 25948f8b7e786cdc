"""Work handed from another thread to the event loop, in the context of whoever set it up.

Writers, MCP servers and the session's builder run on threads of their own, and what they
tell the person must reach the observers on the event loop. ``call_soon_threadsafe``
alone runs the callback in the loop's bare context, and a front end that keeps state in
context variables breaks there: Textual's ``active_app`` is missing, so a timer the TUI
made from such a callback died with ``LookupError`` and the screen stopped repainting.
So the context is copied where the hand-off is made (on the loop, inside the front end's
task) and the callback runs in it.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def to_loop(fn: Callable[[T], object]) -> Callable[[T], None]:
    """``fn``, callable from any thread: it runs on the event loop running here, in this
    context. Once that loop has closed (the session is over) a call does nothing: the
    thread that calls must not fail for having nobody left to tell."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()

    def call(arg: T) -> None:
        try:
            loop.call_soon_threadsafe(fn, arg, context=context)
        except RuntimeError:  # the loop is closed
            return

    return call
