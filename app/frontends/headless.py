"""The headless front end: run turns without the TUI, print events, approve by policy.

``run_headless`` is what ``frontier run``, ``frontier demo --headless`` and
``frontier resume --headless`` run: it holds one ``AgentSession`` (as the TUI
does), subscribes an :class:`EventPrinter` to it and sends the prompts.

``--json`` writes one ``event_to_json`` object per line, flushed as each event
happens, so another program can follow a run live; the first line is
``{"type": "session", "id": …}`` (:func:`session_json`), naming the session to
resume or export. A turn that fails is said once: its ``turn_ended`` line (``--json``)
or ``frontier: turn ended: …`` on stderr (text). The human form is a compact
progress log. Approvals without the TUI ask on the terminal, or deny with a
reason naming ``--approval`` when there is no terminal to ask on.

Both forms are a sink for untrusted text (the model's words, tool output), so
every event is scrubbed before it is printed (``app/secrets.py``): a tool's live
output through a :class:`~frontier.app.secrets.StreamScrubber` per call, so a key
printed across output chunks is replaced whole, everything else as a whole
string — before any shortening, so no partial key is shown either. Then every line
leaves through ``safe_print`` (text) or ``dumps`` (JSON): the model's text, tool output,
file names and the workspace's name reach the terminal with ESC, C1 and the bidi
controls shown as escapes (``terminal_text``), never obeyed.

A silent server is shown, not just waited for: ``ResponseWait``
(``app/agent/wait.py``) follows a response from the events alone (the TUI's
status bar uses it too), and the text log prints ``… waiting for the first byte
(10 s)`` / ``… stalled: no bytes for 10 s`` every 10 s of silence
(:meth:`EventPrinter.watch` ticks it). ``--json`` gets no such lines: it is the
core's event log, one event per line as it happens, and a program reading it has
its own clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from frontier.app.agent.budget import ASSUMED
from frontier.app.agent.repair import MAX_REPAIRS
from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.agent.wait import ResponseWait
from frontier.app.config import Config
from frontier.app.events import (
    AssistantText,
    CallReady,
    Compacted,
    ContextUsage,
    ContractError,
    Event,
    ReasoningText,
    RepairRequested,
    ResponseContinued,
    ResponseEnded,
    ResponseStarted,
    Retry,
    ServerTool,
    StreamStopped,
    Summarising,
    ToolCall,
    ToolFinished,
    ToolOutput,
    ToolStarted,
    TurnEnded,
    event_to_json,
)
from frontier.app.frontends.terminal_text import dumps, safe_print, terminal_safe
from frontier.app.model.catalogue import assumed_window_text
from frontier.app.model.errors import ModelError
from frontier.app.secrets import Scrubber, StreamScrubber, url_secrets
from frontier.app.session.db import StoreError
from frontier.tools.contract import Approver, Decision, Preview, ToolSpec
from frontier.tools.patch_summary import change_lines, result_changes

QUIET_JSON = frozenset({"bytes", "confirmed", "call_started", "arg_started", "arg_bytes"})
"""Per-byte events left out of ``--json`` output (``transduce --events all`` shows them)."""
THINKING_PRINTED = 4000
"""Characters of one stretch of reasoning the text log prints."""
PRINTED_CHANGES = 50
"""Files of one mutation listed in the text log before ``+N more``."""
WAIT_LINE_EVERY = 10.0
"""Seconds between the text log's waiting / stalled lines."""


class EventPrinter:
    """Observer that prints events as text or JSON lines, scrubbed of secrets."""

    def __init__(
        self,
        out: TextIO | None = None,
        *,
        as_json: bool = False,
        scrubber: Scrubber | None = None,
        clock: Callable[[], float] = time.monotonic,
        err: TextIO | None = None,
    ) -> None:
        self.out = out or sys.stdout
        self.err = err
        """Where the text form's failure line goes (``sys.stderr`` when None)."""
        self.as_json = as_json
        self.scrubber = scrubber if scrubber is not None else Scrubber.from_env()
        self._outputs: dict[str, StreamScrubber] = {}
        """Per running call: its live output, scrubbed across chunks."""
        self.clock = clock
        self.wait = ResponseWait()
        self._wait_line: tuple[str, float, int] | None = None
        """The last waiting line printed: (what, since, multiple of 10 s)."""
        self._thinking: list[str] = []
        """Reasoning received since the last printed line (text mode prints it as a block)."""
        self.context: tuple[int, int] | None = None
        """(tokens used, window) as last known: the text form says it when a turn ends."""
        self._assumed = False
        """The text form said the window is only assumed (once)."""

    def __call__(self, event: Event) -> None:
        self.wait.apply(event, self.clock)
        self._count_context(event)
        if isinstance(event, ReasoningText) and not self.as_json:
            self._thinking.append(event.text)  # printed as one block before the next line
            return
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

    def _count_context(self, event: Event) -> None:
        """Follow how full the context is; the text form prints it before a turn's end."""
        if isinstance(event, ContextUsage) and event.source == ASSUMED and not self._assumed:
            self._assumed = True
            if not self.as_json:
                safe_print(assumed_window_text(event.window), file=self.out, flush=True)
        if isinstance(event, ContextUsage | Compacted):
            used = event.used if isinstance(event, ContextUsage) else event.after
            self.context = (used, event.window)
        elif isinstance(event, ResponseEnded) and self.context is not None:
            tokens = event.tokens
            if tokens.prompt is not None:
                self.context = (tokens.prompt + (tokens.completion or 0), self.context[1])
        elif isinstance(event, TurnEnded) and not self.as_json and self.context is not None:
            used, window = self.context
            if window:
                line = f"context {used:,} of {window:,} tokens ({used / window:.0%})"
                safe_print(line, file=self.out, flush=True)

    def text(self, text: str) -> str:
        """A message for the terminal (an error, a note), scrubbed like the events."""
        return terminal_safe(self.scrubber.scrub(text))

    def tick(self) -> None:
        """Print a waiting / stalled line on each new 10 s of silence (text form only)."""
        if self.as_json:
            return
        state = self.wait.state(self.clock())
        if state is None or state[0] == "retry":  # a retry has its own line
            return
        what, seconds = state
        steps = int(seconds // WAIT_LINE_EVERY)
        key = (what, self.wait.since, steps)
        if steps < 1 or key == self._wait_line:
            return
        self._wait_line = key
        shown = steps * int(WAIT_LINE_EVERY)
        line = (
            f"… waiting for the first byte ({shown} s)"
            if what == "first_byte"
            else f"… stalled: no bytes for {shown} s"
        )
        safe_print(line, file=self.out, flush=True)

    async def watch(
        self, period: float = 1.0, sleep: Callable[[float], Any] = asyncio.sleep
    ) -> None:
        """``tick`` every ``period`` seconds until cancelled (run beside the turns)."""
        while True:
            await sleep(period)
            self.tick()

    def _print(self, event: Event) -> None:
        if self.as_json:
            if event.type in QUIET_JSON:
                return
            safe_print(dumps(self.scrubber.scrub_obj(event_json(event))), file=self.out, flush=True)
            return
        line = describe(self.scrubber.scrub_obj(event))
        line = terminal_safe(line) if line is not None else None
        if isinstance(event, TurnEnded) and event.reason != "done" and line is not None:
            # A failure is said once, where a person looks for errors (stdout may be a
            # log file); run_headless then only sets the exit status.
            safe_print(f"frontier: {line}", file=self.err or sys.stderr, flush=True)
            return
        if line is not None:
            if self._thinking:
                safe_print(self._thinking_block(), file=self.out)
            safe_print(line, file=self.out, flush=True)

    def _thinking_block(self) -> str:
        """The reasoning gathered so far, as one ``think`` block (capped)."""
        text = self.scrubber.scrub("".join(self._thinking)).strip()
        self._thinking.clear()
        more = ""
        if len(text) > THINKING_PRINTED:
            more = f"\n    … ({len(text) - THINKING_PRINTED:,} more characters of reasoning)"
            text = text[:THINKING_PRINTED]
        return "think " + text.replace("\n", "\n      ") + more


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
        case ServerTool(name=name):
            return f"⚙ the provider ran its own tool {name} (never run by Frontier)"
        case RepairRequested(kind=kind, attempt=attempt):
            return f"↺ repair {attempt}/{MAX_REPAIRS}: asked the model to resend ({kind})"
        case Summarising(rounds=rounds, before=before, window=window):
            return (
                f"⇣ summarising {_rounds(rounds)} to fit the context "
                f"({before:,} of {window:,} tokens)…"
            )
        case Compacted(reason=reason, detail=detail, before=before, after=after, window=window):
            why = " after the server said the request was too long" if reason == "overflow" else ""
            return f"⇣ compacted{why}: {detail}; {before:,} → {after:,} of {window:,} tokens"
        case ResponseContinued(offset=offset, echo_skipped=echo, attempt=attempt):
            skipped = f", its echo of {echo:,} bytes skipped" if echo else ""
            return f"⟂ continued at byte {offset:,} (continuation {attempt}{skipped})"
        case ResponseStarted(mode=mode, request_index=index):
            return f"── response {index + 1} ({mode})"
        case TurnEnded(reason=reason, message=message):
            return f"turn ended: {reason}" + (f" — {message}" if message else "")
    return None


def _rounds(n: int) -> str:
    return "1 earlier round" if n == 1 else f"{n} earlier rounds"


def render_preview(preview: Preview) -> str:
    if preview.kind == "command":
        shown = f"$ {preview.command}"
        if preview.escalation is not None:
            return (
                f"{shown}\nthe sandbox stopped it: {preview.escalation}\n"
                "run it again OUTSIDE the sandbox (unconfined, network on)?"
            )
        if preview.sandbox is not None:
            return f"{shown}\n(inside the sandbox: {preview.sandbox})"
        return f"{shown}\n(outside any sandbox)"
    return "\n".join(f.diff for f in preview.files) or preview.summary


class TerminalApprover:
    """Ask y/n on the controlling terminal, showing the diff or the command."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        shown = terminal_safe(render_preview(preview))  # nothing in it may hide the rest
        safe_print(f"\n── approve {call.id} {call.name}? ──\n{shown}", file=self.out)
        safe_print("[y] approve  [n] deny  (or type a reason to deny): ", end="", file=self.out)
        self.out.flush()
        answer = (await asyncio.to_thread(sys.stdin.readline)).strip()
        if answer.lower() in ("y", "yes"):
            return Decision(True)
        reason = "" if answer.lower() in ("", "n", "no") else answer
        return Decision(False, reason or "denied by the user")


class NoTerminalApprover:
    """No terminal to ask on: deny, and say how to allow it."""

    interactive = False
    """Nobody is asked (``tools/policy.py``): what needs a person is refused, saying why."""

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        return Decision(
            False,
            f"{call.name} needs approval but there is no terminal to ask on; rerun with "
            "--approval auto-edit (edits allowed) or --approval auto (edits and commands)",
            by="frontier (no terminal)",
        )


def session_json(session: AgentSession) -> dict[str, Any]:
    """The first line of ``--json`` output: which session the events belong to, so a
    program can ``frontier resume`` or ``export`` it without parsing the text form."""
    return {
        "type": "session",
        "id": session.session_id,
        "resumed": session.resumed,
        "workspace": str(session.workspace),
        "model": session.model,
        "mode": session.mode,
        "approval": session.approval,
        "sandbox": session.sandbox_label,
        "instructions": [
            {"path": f.path, "status": f.status, "size": f.size, "sent": f.sent, "reason": f.reason}
            for f in session.instructions
        ],
    }


def default_approver() -> TerminalApprover | NoTerminalApprover:
    return TerminalApprover() if sys.stdin.isatty() else NoTerminalApprover()


EXIT_OK = 0
EXIT_FAILED = 1


async def run_headless(
    config: Config,
    *,
    prompts: list[str],
    as_json: bool = False,
    max_turns: int = 20,
    session_id: str | None = None,
    demo: bool = False,
    demo_rate: float = 60.0,
    approver: Approver | None = None,
    workspace: Path | None = None,
    protocol: str | None = None,
) -> int:
    """Exit 0 when every turn ended with the model finishing the task, else 1.

    Whatever is printed goes through one scrubber shared with the session (the key,
    even from ``api_key_command``, and URL credentials); a store that fails while
    closing (a full disk) is reported as a message and exit 1, never a traceback.
    """
    scrubber = Scrubber.from_env(config.api_key, *url_secrets(config.base_url))
    printer = EventPrinter(as_json=as_json, scrubber=scrubber)
    try:
        session = create_runtime(
            config,
            approver=approver or default_approver(),
            demo=demo,
            demo_rate=demo_rate,
            session_id=session_id,
            max_turns=max_turns,
            workspace=workspace,
            protocol=protocol,
            scrubber=scrubber,
        )
    except (ValueError, StoreError) as exc:
        safe_print(f"frontier: {printer.text(str(exc))}", file=sys.stderr)
        return 2
    session.subscribe(printer)
    if as_json:
        safe_print(dumps(printer.scrubber.scrub_obj(session_json(session))), file=printer.out)
        printer.out.flush()
    else:
        safe_print(
            f"session {session.session_id} · {session.mode} · workspace {session.workspace}"
            f" · sandbox {session.sandbox_label}"
        )
    for note in session.notes:  # stderr with --json: stdout stays one event per line
        safe_print(f"note {printer.text(note)}", file=sys.stderr if as_json else sys.stdout)
    for result in session.recovered:
        printer(ToolFinished(result))
    status = EXIT_OK
    watch = asyncio.create_task(printer.watch(), name="waiting-lines")
    try:
        for prompt in prompts or session.demo_prompts:
            if not as_json:
                safe_print(f"you {printer.text(prompt)}")
            ended = await session.send(prompt)
            if ended.reason != "done":  # the printer has said why (once)
                status = EXIT_FAILED
                break
    except ModelError as exc:
        safe_print(f"frontier: {printer.text(str(exc))}", file=sys.stderr)
        status = EXIT_FAILED
    finally:
        watch.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watch
        try:
            await session.close()
        except Exception as exc:  # e.g. the store's last flush on a full disk
            message = printer.text(str(exc))
            safe_print(f"frontier: closing the session failed: {message}", file=sys.stderr)
            status = EXIT_FAILED
    return status
