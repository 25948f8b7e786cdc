"""Where a resumed session's history can start and still fill the Transcript the same.

The Transcript keeps its newest ``MAX_TRANSCRIPT`` entries; a resume used to apply every
stored event and let the rest fall off the head: 160 ms of the screen's loop at 4,000
calls, for entries no one would see. :func:`tail_start` finds the latest event from which
the kept entries come out the same. It is a turn's or a call's start (``UserMessage``,
``CallReady``: each makes at least one entry, and the reply before it is over); the
events from it make at least as many entries as are kept, so every entry made before it
falls off the head either way; and no event from it on refers to a call made before it
(a ``ToolStarted`` or ``ToolFinished`` of an earlier call would find no row, and make
one). Events before it change only those earlier rows and entries. A history with no such
event is applied whole, as before. Scanned from the end: the cost is the tail's.
"""

from __future__ import annotations

from collections.abc import Sequence

from frontier.app.events import CallReady, Event, ToolFinished, ToolStarted, UserMessage


def tail_start(events: Sequence[Event], keep: int) -> int:
    """The index to apply ``events`` from so the newest ``keep`` Transcript entries are
    those applying all of them gives; 0 when no later start is safe."""
    made = 0
    waiting: set[str] = set()
    """Calls an event from here on refers to, whose ``CallReady`` is not yet seen."""
    for i in range(len(events) - 1, 0, -1):
        event = events[i]
        if isinstance(event, ToolStarted):
            waiting.add(event.call.id)
        elif isinstance(event, ToolFinished):
            waiting.add(event.result.call_id)
        elif isinstance(event, CallReady | UserMessage):
            if isinstance(event, CallReady):
                waiting.discard(event.call.id)
            made += 1
            if made >= keep and not waiting:
                return i
    return 0
