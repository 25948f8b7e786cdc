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


def repair_text(failure: Failure, *, mode: str) -> str:
    """The user-message text that asks the model to resend, naming the error."""
    where = f" at byte {failure.offset}" if failure.offset is not None else ""
    if failure.kind == "truncated":
        calls = ", ".join(failure.call_ids) or "the last call"
        return (
            f"error truncated: your response was cut off{where} before {calls} was complete, "
            "so it did not run. Resend that call complete (and anything after it); "
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
