"""Bounded repair (DESIGN §6): framing and truncation failures go back to the
model with what broke and how to resend; at most ``MAX_REPAIRS`` in a row."""

from __future__ import annotations

from dataclasses import dataclass

MAX_REPAIRS = 3


@dataclass(frozen=True)
class Failure:
    """Why a response could not be used whole: ``contract`` or ``truncated``."""

    kind: str
    message: str
    offset: int | None = None
    call_ids: tuple[str, ...] = ()
    """The calls the failure cut (truncated: not complete when the response ended)."""
    complete_ids: tuple[str, ...] = ()
    """Calls that were complete but did not run because the response was cut off
    (native-eos runs no call of a cut-off response): they may be resent unchanged."""


def repair_text(failure: Failure, *, mode: str) -> str:
    """The user-message text that asks the model to resend, naming the error."""
    where = f" at byte {failure.offset}" if failure.offset is not None else ""
    if failure.kind == "truncated":
        held = ""
        if failure.complete_ids:
            whole = ", ".join(failure.complete_ids)
            one = len(failure.complete_ids) == 1
            held = (
                f" {whole} {'was' if one else 'were'} complete but did not run either: no call "
                "of a cut-off response runs. Resend "
                f"{'it' if one else 'them'} unchanged."
            )
        if not failure.call_ids and failure.complete_ids:
            return (
                f"error truncated: your response was cut off{where}, so none of its calls "
                f"ran.{held} Keep arguments short enough to fit."
            )
        if not failure.call_ids:
            return (
                f"error truncated: your response was cut off{where} before any call "
                "began (nothing ran). Go on from where you stopped, more briefly."
            )
        calls = ", ".join(failure.call_ids) or "the last call"
        return (
            f"error truncated: your response was cut off{where} before {calls} was complete, "
            f"so it did not run.{held} Resend that call complete (and anything after it); "
            "keep arguments short enough to fit."
        )
    hint = {
        "ctl": "Count length prefixes in bytes (UTF-8), or use a heredoc (arg key <<EOF).",
        "ctl-heredoc": "Use a heredoc (arg key <<EOF ... EOF) so no byte count is needed.",
        "xml": "Close every <parameter>, </invoke> and </minimax:tool_call> tag.",
    }.get(mode, "Send valid JSON arguments.")
    return (
        f"error contract ({failure.kind}){where}: {failure.message}. "
        f"Calls before the error ran; nothing after it was read. Resend the failed call. {hint}"
    )
