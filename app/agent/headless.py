"""Headless presentation: an event printer and terminal approvers.

``--json`` writes one ``event_to_json`` object per line, flushed as each event
happens, so another program can follow a run live. The human form is a compact
progress log. Approvals without the TUI ask on the terminal, or deny with a
reason naming ``--approval`` when there is no terminal to ask on.

Both forms are a sink for untrusted text (the model's words, tool output), so
every event is scrubbed before it is printed (``app/secrets.py``): a tool's live
output through a :class:`~frontier.app.secrets.StreamScrubber` per call, so a key
printed across output chunks is replaced whole, everything else as a whole
string — before any shortening, so no partial key is shown either.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, TextIO

from frontier.app.agent.repair import MAX_REPAIRS
from frontier.app.events import (
    AssistantText,
    CallReady,
    ContractError,
    Event,
    RepairRequested,
    ResponseStarted,
    Retry,
    StreamStopped,
    ToolCall,
    ToolFinished,
    ToolOutput,
    ToolStarted,
    TurnEnded,
    event_to_json,
)
from frontier.app.secrets import Scrubber, StreamScrubber
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.patch_summary import change_lines, result_changes

QUIET_JSON = frozenset({"bytes", "confirmed", "call_started", "arg_started", "arg_bytes"})
"""Per-byte events left out of ``--json`` output (``transduce --events all`` shows them)."""
PRINTED_CHANGES = 50
"""Files of one mutation listed in the text log before ``+N more``."""


class EventPrinter:
    """Observer that prints events as text or JSON lines, scrubbed of secrets."""

    def __init__(
        self,
        out: TextIO | None = None,
        *,
        as_json: bool = False,
        scrubber: Scrubber | None = None,
    ) -> None:
        self.out = out or sys.stdout
        self.as_json = as_json
        self.scrubber = scrubber if scrubber is not None else Scrubber.from_env()
        self._outputs: dict[str, StreamScrubber] = {}
        """Per running call: its live output, scrubbed across chunks."""

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolOutput):
            stream = self._outputs.setdefault(event.call_id, StreamScrubber(self.scrubber))
            data = stream.feed(event.data)
            if data:
                self._print(ToolOutput(event.call_id, data))
            return
        if isinstance(event, ToolFinished):
            stream = self._outputs.pop(event.result.call_id, None)
            tail = stream.flush() if stream is not None else ""
            if tail:
                self._print(ToolOutput(event.result.call_id, tail))
        self._print(event)

    def text(self, text: str) -> str:
        """A message for the terminal (an error, a note), scrubbed like the events."""
        return self.scrubber.scrub(text)

    def _print(self, event: Event) -> None:
        if self.as_json:
            if event.type in QUIET_JSON:
                return
            data = self.scrubber.scrub_obj(event_json(event))
            self.out.write(json.dumps(data, ensure_ascii=False) + "\n")
            self.out.flush()
            return
        line = describe(self.scrubber.scrub_obj(event))
        if line is not None:
            self.out.write(line + "\n")
            self.out.flush()


def event_json(event: Event) -> dict[str, Any]:
    """``event_to_json``, plus a mutation result's ``changes`` (``meta["changes"]`` as is)
    and ``already_applied`` on ``tool_finished``, so a script needs no patch parsing."""
    out = event_to_json(event)
    if isinstance(event, ToolFinished):
        meta = event.result.meta
        if "changes" in meta:
            out["changes"] = [dict(c) for c in result_changes(meta)]
        if "already_applied" in meta:
            out["already_applied"] = bool(meta["already_applied"])
    return out


def _short(value: object, width: int = 60) -> str:
    text = str(value).replace("\n", "⏎")
    return text if len(text) <= width else text[: width - 1] + "…"


def describe(event: Event) -> str | None:
    """One human line per interesting event; ``None`` for per-byte noise."""
    match event:
        case AssistantText(text=text):
            return "ai  " + text.strip().replace("\n", "\n    ")
        case CallReady(call=call):
            args = " ".join(f"{k}={_short(v, 40)}" for k, v in call.json_args().items())
            return f"▸ {call.id} {call.name} {args}  (confirmed at byte {call.offset})"
        case ToolStarted(call=call):
            return f"  ⋯ {call.id} {call.name} running"
        case ToolOutput(data=data):
            return "\n".join("  │ " + line for line in data.rstrip("\n").split("\n"))
        case ToolFinished(result=r):
            exit_part = f" exit={r.exit_code}" if r.exit_code is not None else ""
            first = r.output.strip().split("\n")[0] if r.output.strip() else ""
            mark = "✓" if r.ok else "✗"
            head = f"  {mark} {r.call_id} {r.name} {r.kind}{exit_part} {r.elapsed:.2f}s"
            changes = change_lines(r.meta, PRINTED_CHANGES)
            if changes == ["already applied"]:
                return f"{head}  already applied"
            if changes:  # a mutation: its files, not the first line of "applied:\n..."
                return "\n".join([head, *(f"      {line}" for line in changes)])
            return f"{head}  {_short(first, 70)}"
        case ContractError(kind=kind, message=message, offset=offset):
            return f"! contract error {kind} at byte {offset}: {message}"
        case StreamStopped(reason=reason, offset=offset):
            return f"■ stream stopped at byte {offset}: {reason}"
        case Retry(attempt=attempt, delay=delay, reason=reason):
            return f"↻ retry {attempt} in {delay:.1f}s: {reason}"
        case RepairRequested(kind=kind, attempt=attempt):
            return f"↺ repair {attempt}/{MAX_REPAIRS}: asked the model to resend ({kind})"
        case ResponseStarted(mode=mode, request_index=index):
            return f"── response {index + 1} ({mode})"
        case TurnEnded(reason=reason, message=message):
            return f"turn ended: {reason}" + (f" — {message}" if message else "")
    return None


def render_preview(preview: Preview) -> str:
    if preview.kind == "command":
        return f"$ {preview.command}"
    return "\n".join(f.diff for f in preview.files) or preview.summary


class TerminalApprover:
    """Ask y/n on the controlling terminal, showing the diff or the command."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        self.out.write(f"\n── approve {call.id} {call.name}? ──\n{render_preview(preview)}\n")
        self.out.write("[y] approve  [n] deny  (or type a reason to deny): ")
        self.out.flush()
        answer = (await asyncio.to_thread(sys.stdin.readline)).strip()
        if answer.lower() in ("y", "yes"):
            return Decision(True)
        reason = "" if answer.lower() in ("", "n", "no") else answer
        return Decision(False, reason or "denied by the user")


class NoTerminalApprover:
    """No terminal to ask on: deny, and say how to allow it."""

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        return Decision(
            False,
            f"{call.name} needs approval but there is no terminal to ask on; rerun with "
            "--approval auto-edit (edits allowed) or --approval auto (edits and commands)",
            by="frontier (no terminal)",
        )


def default_approver() -> TerminalApprover | NoTerminalApprover:
    return TerminalApprover() if sys.stdin.isatty() else NoTerminalApprover()
