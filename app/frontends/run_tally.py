"""What a headless run did, summed from its events: its closing line and ``result`` event.

A script running ``frontier run --json`` in CI wants one line to read at the end — did it
finish, what did the model answer, which files changed, what did it cost — without
folding every event itself (Claude Code's ``-p --output-format json`` result, Codex's
``exec`` usage line). The tally observes the session's events as the printer does; the
run prints it after the session closed, when the exit status is final: a ``result``
object as the last JSON line, or one ``──`` line in the text form.
"""

from __future__ import annotations

from typing import Any

from frontier.app.events import (
    AssistantText,
    Event,
    ResponseContinued,
    ResponseEnded,
    ResponseStarted,
    TokenUsage,
    ToolFinished,
    TurnEnded,
)
from frontier.app.frontends.terminal_text import terminal_safe
from frontier.app.listing import listing

RESULT_VERSION = 1
SHOWN_FILES = 5
"""Files named in the text form's closing line (the rest counted)."""


class RunTally:
    """Counts a run's requests, calls, changed files and tokens; keeps its last answer."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.turns = 0
        self.requests = 0
        self.calls = 0
        self.failed_calls = 0
        self.files: dict[str, None] = {}
        """Files the run's edits changed, in the order first changed."""
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cached_tokens = 0
        self.usage_seen = False
        self.reason = ""
        """How the last turn ended (``done``, ``provider_error``…), empty before any."""
        self.message = ""
        self.answer = ""
        """The prose of the latest response that had any: the model's last word."""
        self._said: list[str] = []

    def __call__(self, event: Event) -> None:
        if isinstance(event, ResponseStarted):
            self.requests += 1
            self._said = []
        elif isinstance(event, AssistantText):  # (reported after its response ended)
            self._said.append(event.text)
            said = "".join(self._said).strip()
            if said:
                self.answer = said
        elif isinstance(event, ResponseEnded):
            self._count(event.usage)
        elif isinstance(event, ResponseContinued):  # the cut stream was a request of its own
            self.requests += 1
            self._count(event.usage)
        elif isinstance(event, ToolFinished):
            result = event.result
            self.calls += 1
            if result.kind != "ok":
                self.failed_calls += 1
            files = result.meta.get("files") if result.kind == "ok" else None
            if isinstance(files, list):
                self.files.update((str(f), None) for f in files)
        elif isinstance(event, TurnEnded):
            self.turns += 1
            self.reason, self.message = event.reason, event.message

    def _count(self, usage: TokenUsage) -> None:
        if usage.known:
            self.usage_seen = True
            self.prompt_tokens += usage.prompt or 0
            self.completion_tokens += usage.completion or 0
            self.cached_tokens += usage.cached or 0

    def result(self, session_id: str, exit_status: int, now: float) -> dict[str, Any]:
        """The ``result`` event: the last JSON line of ``frontier run --json``."""
        usage: dict[str, int] | None = None
        if self.usage_seen:
            usage = {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cached_tokens": self.cached_tokens,
            }
        return {
            "type": "result",
            "v": RESULT_VERSION,
            "session": session_id,
            "exit": exit_status,
            "reason": self.reason,
            "message": self.message,
            "answer": self.answer,
            "turns": self.turns,
            "requests": self.requests,
            "tool_calls": self.calls,
            "failed_calls": self.failed_calls,
            "files": list(self.files),
            "usage": usage,
            "seconds": round(now - self.started, 3),
        }

    def line(self, now: float, head: str | None = None) -> str:
        """The text form's closing line (``head``: its first word instead of how the last
        turn ended, as the TUI says it at exit)."""
        parts = [head or self.reason or "no turn ran"]
        parts.append(f"{self.requests} request{'s' * (self.requests != 1)}")
        calls = f"{self.calls} tool call{'s' * (self.calls != 1)}"
        if self.failed_calls:
            calls += f" ({self.failed_calls} failed)"
        parts.append(calls)
        if self.files:
            named = [terminal_safe(f) for f in list(self.files)[:SHOWN_FILES]]
            parts.append(
                f"{len(self.files)} file{'s' * (len(self.files) != 1)} changed: "
                + listing(named, SHOWN_FILES, total=len(self.files))
            )
        if self.usage_seen:
            cached = f" ({self.cached_tokens:,} cached)" if self.cached_tokens else ""
            parts.append(
                f"{self.prompt_tokens:,} tokens in{cached}, {self.completion_tokens:,} out"
            )
        parts.append(duration(now - self.started))
        return "── " + " · ".join(parts)


def duration(seconds: float) -> str:
    """``4.2 s``, ``3 min 07 s``, ``1 h 04 min``: a run's length as a person reads it."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


__all__ = ["RESULT_VERSION", "RunTally", "duration"]
