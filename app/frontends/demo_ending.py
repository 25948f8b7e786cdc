"""The note that closes ``frontier demo``'s story in the TUI, true to how it went.

The demo's ending used to suggest ctrl+n "as planned" even when the person had denied
the patch and the story stopped half-way. The front end gathers what happened from
the session's events (a denied or cancelled call, a turn that ended early) and says
that instead: what did not happen, how to get that step offered again, and that
ctrl+n still tells the task with native calls. No Textual here: the TUI only shows it.
"""

from __future__ import annotations

from frontier.app.events import Event, ToolFinished, ToolResult, TurnEnded
from frontier.app.record import field, record

UNDONE: dict[str, str] = {
    "denied": "was denied",
    "cancelled": "was cancelled",
    "interrupted": "was interrupted",
    "not_executed": "did not run",
    "not_applied": "was not applied",
}
"""Result kinds whose work did not happen (the demo model then offers that step again
on the next message), with how the note says it."""

NATIVE_NEXT = (
    "Next: press ctrl+n to watch the same task with native tool calls "
    "(native-inc: delta.tool_calls, each call runs when its index is complete), "
    "in a fresh scratch copy."
)


@record(frozen=False)
class DemoOutcome:
    """What happened to the demo's calls and turns, collected as a session observer."""

    undone: list[ToolResult] = field(default_factory=list)
    """Calls whose work did not happen, in order."""
    early: list[TurnEnded] = field(default_factory=list)
    """Turns that ended otherwise than ``done`` (cancelled, a provider error, …)."""

    def observe(self, event: Event) -> None:
        if isinstance(event, ToolFinished) and event.result.kind in UNDONE:
            self.undone.append(event.result)
        elif isinstance(event, TurnEnded) and event.reason != "done":
            self.early.append(event)

    @property
    def completed(self) -> bool:
        return not self.undone and not self.early


def demo_ending(outcome: DemoOutcome, *, offer_native: bool) -> str | None:
    """The closing note, or ``None`` when there is nothing to say (a completed
    native-inc story: ctrl+n has nothing left to show)."""
    if outcome.completed:
        return NATIVE_NEXT if offer_native else None
    said = [f"{r.call_id} {r.name} {UNDONE[r.kind]}" for r in outcome.undone]
    said += [f"the turn ended early ({t.reason})" for t in outcome.early]
    native = (
        "; ctrl+n still shows the same task with native tool calls, in a fresh scratch copy"
        if offer_native
        else ""
    )
    return (
        f"The demo stopped before the end of its story: {', '.join(said)}, so nothing "
        f"after it was done. Send a message (say, go on) to be offered that step again"
        f"{native}."
    )
