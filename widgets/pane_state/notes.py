"""The Transcript's one-line notes: a stopped stream, a cut-off or continued response,
a repair, a retry, a compaction — each said in one line, in the Transcript's words."""

from __future__ import annotations

from frontier.app.events import FORGETTING, Compacted, ResponseContinued, Retry, Summarising


def stop_line(reason: str, offset: int, call_id: str) -> str:
    """The Transcript's one line for a stream the transducer stopped reading."""
    if reason == "text_after_call":
        after = f"call {call_id}" if call_id else "its call"
        return (
            f"■ stream stopped at byte {offset:,}: text after {after} dropped (a made-up result?)"
        )
    return f"■ stream stopped at byte {offset:,}: {reason}"


def cut_line(reason: str, detail: str, offset: int, open_calls: dict[str, str]) -> str:
    """The Transcript's one line for a response that ended before it was complete."""
    why = f"{reason}: {detail}" if detail else reason
    unfinished = ", ".join(f"{cid} {name}" for cid, name in open_calls.items())
    outcome = f"{unfinished} never ran" if unfinished else "no call was cut"
    return f"✂ response cut off at byte {offset:,} (finish_reason {why}): {outcome}"


def continued_line(event: ResponseContinued) -> str:
    """The Transcript's line where a response cut by ``length`` was continued."""
    echo = f" (the server's echo of {event.echo_skipped:,} bytes skipped)"
    return (
        f"⟂ continued at byte {event.offset:,} (continuation {event.attempt}): the reply hit "
        f"the token limit and goes on from there; nothing resent"
        + (echo if event.echo_skipped else "")
    )


def repair_line(kind: str, attempt: int, resend: bool = True) -> str:
    """The Transcript's one line for a repair request sent back to the model."""
    asked = "resend" if resend else "go on from where it stopped"
    return f"↺ repair {attempt}: the model was sent the {kind} error and asked to {asked}"


def retry_line(event: Retry, reason: str) -> str:
    """``↻ retrying (3/5) in 4 s: HTTP 503 Service Unavailable — the server says: …``
    (the attempt of how many when the event says; the server's words cut to a row)."""
    of = f"/{event.limit}" if event.limit else ""
    when = (
        "now"
        if event.delay <= 0
        else f"in {event.delay:.0f} s"
        if event.delay >= 1
        else (f"in {event.delay:.1f} s")
    )
    shown = reason if len(reason) <= RETRY_CHARS else reason[: RETRY_CHARS - 1] + "…"
    return f"↻ retrying ({event.attempt}{of}) {when}: {shown}"


RETRY_CHARS = 160
"""Characters of a retry's reason the Transcript shows (a server's page can be long)."""


def interrupted_words(key: str) -> str:
    """``interrupted (ctrl+c)``, or ``interrupted`` when the key is not known."""
    return f"interrupted ({key})" if key else "interrupted"


def _rounds(n: int) -> str:
    return "1 earlier round" if n == 1 else f"{n} earlier rounds"


def summarising_line(event: Summarising) -> str:
    """The Transcript's one line while earlier rounds are summarised to fit the context."""
    return (
        f"⇣ summarising {_rounds(event.rounds)} to fit the context "
        f"({event.before:,} of {event.window:,} tokens)…"
    )


COMPACTION_WHY = {
    "overflow": "the server said it was too long",
    "manual": "/compact",
    "too_long": "the model could not take it",
}
"""Why a compaction happened, in the Transcript's words (else the budget's threshold)."""


def compaction_line(event: Compacted) -> str:
    """The Transcript's one line for a compaction of the history sent to the model."""
    if event.reason in FORGETTING:  # /clear, /rewind: nothing measured
        return f"⇤ {event.detail} (the originals stay in the session)"
    why = COMPACTION_WHY.get(event.reason, "context budget")
    return (
        f"⇣ compacted ({why}): {event.detail}; {event.before:,} → {event.after:,} of "
        f"{event.window:,} tokens (the originals stay in the session)"
    )
