"""What a resumed session tells the model about the background jobs it had started.

A job lives as long as the process that started it (``tools/jobs.py``): a session resumed
later has none running. Its history still shows ``shell`` calls with ``background: true``
and their "started … still running" results, so a model went on to ``curl`` its dev
server, met "connection refused", and set about debugging code that was fine. The first
message after the resume opens with a note saying which jobs no longer run (as an undo
made meanwhile is said: ``notices.with_notices``; its opening lives with the others
there, so ``notices.split_notices`` shows it apart without importing this module).
"""

from __future__ import annotations

from collections.abc import Sequence

from frontier.app.listing import listing
from frontier.app.model.conversation import AssistantTurn, Item
from frontier.app.notices import JOBS_OPENING as OPENING
from frontier.tools.arg_aliases import named

NAMED = 5
"""Jobs the note names (the rest are counted)."""


def ended_jobs_notice(history: Sequence[Item]) -> str | None:
    """The note for the jobs ``history`` started (``shell`` with ``background``), or
    ``None`` when it started none."""
    started: list[str] = []
    for item in history:
        if not isinstance(item, AssistantTurn):
            continue
        for call in item.calls:
            args = named(call.arguments)
            if call.name == "shell" and args.get("background") in (True, "true"):
                command = " ".join(str(args.get("command", "")).split())
                started.append(f"{call.id} ({command[:60]}{'…' if len(command) > 60 else ''})")
    if not started:
        return None
    shown = listing(started, NAMED)
    return (
        f"{OPENING}are no longer running: {shown}. Start one again (shell with "
        "background: true) if it is still needed.)"
    )
