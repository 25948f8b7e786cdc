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
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TextIO

from frontier.app.agent.approvals import Answerer
from frontier.app.agent.budget import ASSUMED
from frontier.app.agent.repair import MAX_REPAIRS
from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.agent.wait import ResponseWait
from frontier.app.check_text import FORMAT_KEYS, check_lines
from frontier.app.config import Config
from frontier.app.events import (
    FORGETTING,
    AssistantText,
    CallReady,
    CallStarted,
    Compacted,
    Confirmed,
    ContextUsage,
    ContractError,
    Event,
    Notice,
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
    ToolResult,
    ToolStarted,
    TurnEnded,
    event_to_json,
)
from frontier.app.frontends.live_output import LiveOutput
from frontier.app.frontends.prose import LiveProse
from frontier.app.frontends.run_tally import RunTally
from frontier.app.frontends.stop_signals import StopSignals
from frontier.app.frontends.terminal_answer import read_answer
from frontier.app.frontends.terminal_text import dumps, safe_print, terminal_safe
from frontier.app.model.catalogue import assumed_window_text
from frontier.app.model.errors import ModelError
from frontier.app.record import record
from frontier.app.secrets import Scrubber, StreamScrubber, url_secrets
from frontier.app.session.db import StoreError
from frontier.app.std_streams import silence
from frontier.tools.contract import MCP_SEPARATOR, Decision, FilePreview, Preview, ToolSpec
from frontier.tools.patch_summary import change_lines, output_first, result_changes

QUIET_JSON = frozenset({"bytes", "confirmed", "call_started", "arg_started", "arg_bytes"})
"""Per-byte events left out of ``--json`` output (``transduce --events all`` shows them)."""
THINKING_PRINTED = 4000
"""Characters of one stretch of reasoning the text log prints."""
PRINTED_CHANGES = 50
"""Files of one mutation listed in the text log before ``+N more``."""
ECHO_WHOLE = 4_000
"""Characters of the person's message echoed whole on a terminal (with fewer than 40
lines); a longer one is shown by its ends (:meth:`EventPrinter.said`)."""
WAIT_LINE_EVERY = 10.0
"""Seconds between the text log's waiting / stalled lines."""


class EventPrinter:
    """Observer that prints events as text, JSON lines or (print mode) the final answer,
    scrubbed of secrets; prose and reasoning as they arrive (``app/frontends/prose.py``)."""

    def __init__(
        self,
        out: TextIO | None = None,
        *,
        as_json: bool = False,
        print_mode: bool = False,
        scrubber: Scrubber | None = None,
        clock: Callable[[], float] = time.monotonic,
        err: TextIO | None = None,
    ) -> None:
        self.out = out or sys.stdout
        self.err = err
        """Where failures and (text form) reasoning go (``sys.stderr`` when None)."""
        self.as_json = as_json
        self.print_mode = print_mode and not as_json
        """``-p``: only the final answer on ``out`` (:meth:`finish`); failures on ``err``."""
        self.scrubber = scrubber if scrubber is not None else Scrubber.from_env()
        self._outputs: dict[str, StreamScrubber] = {}
        """Per running call: its live output, scrubbed across chunks."""
        self._live: dict[str, LiveOutput] = {}
        """Per running call (text form): what of its output is printed (whole lines; on a
        terminal, the model's copy's first and last part)."""
        self._bounded = not as_json and _is_terminal(self.out)
        self.clock = clock
        self.wait = ResponseWait()
        self._wait_line: tuple[str, float, int] | None = None
        """The last waiting line printed: (what, since, multiple of 10 s)."""
        self.prose = LiveProse()
        self._stretch: _Stretch | None = None
        """The prose or reasoning being written live (text form) or scrubbed (JSON)."""
        self._answer: list[str] = []
        """Print mode: the prose of the latest response that had any."""
        self._answer_open = False
        self.context: tuple[int, int] | None = None
        """(tokens used, window) as last known: the text form says it when a turn ends."""
        self._assumed = False
        """The text form said the window is only assumed (once)."""
        self.unanswered: list[Unanswered] = []
        """Calls denied because nobody could be asked (no terminal): said once at the end."""
        self.reader_gone = False
        """Whoever read the output went away (``frontier run | head``): nothing more is
        printed, and ``on_reader_gone`` was called once."""
        self.on_reader_gone: Callable[[], None] | None = None
        self._after_reply: list[str] = []
        """Lines said once the reply's line ends (where it was continued): printed in it,
        a word was cut in two (``ai  Han`` / ``⟂ continued…`` / ``na Clark``)."""

    @property
    def errors(self) -> TextIO:
        return self.err or sys.stderr

    def __call__(self, event: Event) -> None:
        """Print ``event``. A reader that went away never reaches the session: the
        printer is called from inside a tool (its output) and the loop, and its
        ``BrokenPipeError`` was stored as the tool's result ("internal error while running
        shell") for a command that had run to its end."""
        self._guarded(self._take, event)

    def _guarded(self, write: Callable[..., None], *args: Any) -> None:
        if self.reader_gone:
            return
        try:
            write(*args)
        except BrokenPipeError:
            self.reader_gone = True
            _quiet(self.out)
            if self.on_reader_gone is not None:
                self.on_reader_gone()

    def _take(self, event: Event) -> None:
        self.wait.apply(event, self.clock)
        self._count_context(event)
        if isinstance(event, ResponseStarted):
            self._end_stretch()
            self.prose.reset()
            self._answer_open = False
        if isinstance(event, Confirmed):
            if event.kind == "text":
                self._prose("ai", self.prose.confirmed(event.data))
            return
        if isinstance(event, CallStarted):
            self.prose.call_started()
            self._end_stretch()
            return
        if isinstance(event, AssistantText):
            self._prose("ai", self.prose.reported(event.text))
            if self.as_json:
                self._end_stretch()  # its deltas first, then the whole stretch
                self._print(event)
            return
        if isinstance(event, ReasoningText):
            self._prose("think", event.text)
            return
        if isinstance(event, Notice):  # as the session's notes are printed
            if not self.print_mode:
                self._line(f"note {self.text(event.text)}", self.errors if self.as_json else None)
            return
        if isinstance(event, ToolOutput):
            stream = self._outputs.setdefault(event.call_id, StreamScrubber(self.scrubber))
            data = stream.feed(event.data)
            if data:
                self._output(event.call_id, data)
            return
        if isinstance(event, ToolFinished):
            ending = self._outputs.pop(event.result.call_id, None)
            tail = ending.flush() if ending is not None else ""
            if tail:
                self._output(event.result.call_id, tail)
            live = self._live.pop(event.result.call_id, None)
            for lines in live.end() if live is not None else ():
                self._line(output_lines(lines))
            if (found := unanswered(event.result)) is not None:
                self.unanswered.append(found)
        if isinstance(event, TurnEnded):
            self.prose.reset()
        stretch = self._stretch
        continued = isinstance(event, ResponseContinued) and not self.as_json
        if continued and stretch is not None and stretch.kind == "ai":
            said = describe(event)
            if said is not None:
                self._after_reply.append(self.text(said))
                return
        self._print(event)

    # ------------------------------------------------------------------ live prose
    def _prose(self, kind: StretchKind, text: str) -> None:
        """Show ``text`` of a ``kind`` stretch now (text: on its line; JSON: a delta)."""
        if not text:
            return
        if self.print_mode:
            if kind == "ai":
                if not self._answer_open:
                    self._answer, self._answer_open = [], True
                self._answer.append(text)
            return
        stretch = self._stretch
        if stretch is None or stretch.kind != kind:
            self._end_stretch()
            stretch = self._stretch = _Stretch(kind, StreamScrubber(self.scrubber))
        self._emit_piece(stretch, stretch.scrub.feed(text))

    def _emit_piece(self, stretch: _Stretch, text: str) -> None:
        if not text:
            return
        if self.as_json:
            kind = "text_delta" if stretch.kind == "ai" else "reasoning_delta"
            safe_print(dumps({"type": kind, "text": text}), file=self.out, flush=True)
            return
        stream = self.out if stretch.kind == "ai" else self.errors
        shown = stretch.take(text)
        if shown:
            stream.write(terminal_safe(shown))
            stream.flush()

    def _end_stretch(self) -> None:
        """Close the live stretch: its held-back tail, then (text form) the line end."""
        stretch, self._stretch = self._stretch, None
        if stretch is None:
            return
        self._emit_piece(stretch, stretch.scrub.flush())
        if not self.as_json and stretch.started:
            stream = self.out if stretch.kind == "ai" else self.errors
            safe_print(stretch.closing(), file=stream, flush=True)
        held, self._after_reply = self._after_reply, []
        for line in held:
            safe_print(line, file=self.out, flush=True)

    def finish(self) -> None:
        """The run is over: close what is open; print mode prints the answer now."""
        self._guarded(self._finish)

    def _finish(self) -> None:
        self._end_stretch()
        if self.print_mode and self._answer:
            text = self.scrubber.scrub("".join(self._answer)).strip()
            if text:
                safe_print(text, file=self.out, flush=True)

    def closing(self, tally: RunTally, session_id: str, exit_status: int) -> None:
        """The run's summary after the session closed: the ``result`` event (JSON), the
        ``──`` line (text); nothing in print mode, whose stdout is the answer alone."""
        if self.print_mode:
            return
        now = self.clock()
        if self.as_json:
            event = self.scrubber.scrub_obj(tally.result(session_id, exit_status, now))
            self._guarded(lambda: safe_print(dumps(event), file=self.out, flush=True))
        else:
            self.line(self.text(tally.line(now)))

    # ------------------------------------------------------------------ lines
    def line(self, text: str) -> None:
        """A line of the run's own (``you …``), printed as the events' lines are."""
        self._guarded(self._line, text)

    def said(self, message: str) -> str:
        """The person's message as it is echoed (``you …``): on a terminal a long one by
        its ends, as the TUI's Transcript draws it (``frontier run - < app.log`` printed
        the whole log, 20 MB, before the model was asked). The model gets it whole, and
        a file or a pipe too."""
        if not self._bounded or (len(message) <= ECHO_WHOLE and message.count("\n") < 40):
            return message
        from frontier.widgets.display import message_ends

        return message_ends(message)

    def _line(self, text: str, stream: TextIO | None = None) -> None:
        """A whole line of the text form, after closing any live stretch."""
        self._end_stretch()
        safe_print(text, file=stream or self.out, flush=True)

    def _count_context(self, event: Event) -> None:
        """Follow how full the context is; the text form prints it before a turn's end."""
        text_form = not self.as_json and not self.print_mode
        if isinstance(event, ContextUsage) and event.source == ASSUMED and not self._assumed:
            self._assumed = True
            if text_form:
                self._line(assumed_window_text(event.window))
        if isinstance(event, ContextUsage | Compacted):
            used = event.used if isinstance(event, ContextUsage) else event.after
            self.context = (used, event.window)
        elif isinstance(event, ResponseEnded) and self.context is not None:
            tokens = event.tokens
            if tokens.prompt is not None:
                self.context = (tokens.prompt + (tokens.completion or 0), self.context[1])
        elif isinstance(event, TurnEnded) and text_form and self.context is not None:
            used, window = self.context
            if window:
                self._line(f"context {used:,} of {window:,} tokens ({used / window:.0%})")

    def text(self, text: str) -> str:
        """A message for the terminal (an error, a note), scrubbed like the events."""
        return terminal_safe(self.scrubber.scrub(text))

    def tick(self) -> None:
        """Print a waiting / stalled line on each new 10 s of silence (text form only)."""
        self._guarded(self._tick)

    def _tick(self) -> None:
        if self.as_json or self.print_mode:
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
            f"… {self.wait.waiting_for()} ({shown} s)"
            if what == "first_byte"
            else f"… stalled: no bytes for {shown} s"
        )
        self._line(line)

    async def watch(
        self, period: float = 1.0, sleep: Callable[[float], Any] = asyncio.sleep
    ) -> None:
        """``tick`` every ``period`` seconds until cancelled (run beside the turns)."""
        while True:
            await sleep(period)
            self.tick()

    def _output(self, call_id: str, data: str) -> None:
        """A piece of a call's live output, scrubbed already (across pieces, by its
        ``StreamScrubber``): printed without a second scrub or a second ``describe``, in
        whole lines (``live_output.py``)."""
        if self.as_json:
            self._print(ToolOutput(call_id, data))
            return
        if self.print_mode:
            return
        live = self._live.get(call_id)
        if live is None:
            live = self._live[call_id] = LiveOutput(self._bounded)
        for lines in live.feed(data):
            self._line(output_lines(lines))  # safe_print makes it safe for a terminal

    def _print(self, event: Event) -> None:
        if self.as_json:
            if event.type in QUIET_JSON:
                return
            if isinstance(event, ResponseEnded | TurnEnded):
                self._end_stretch()  # every delta of a response before its end
            safe_print(dumps(self.scrubber.scrub_obj(event_json(event))), file=self.out, flush=True)
            return
        if describe(event) is None:
            return  # per-byte noise, or an event the log does not show
        # scrubbed before describe shortens anything, so no part of a key is shown
        line = describe(self.scrubber.scrub_obj(event))
        line = terminal_safe(line) if line is not None else None
        if isinstance(event, TurnEnded) and event.reason != "done" and line is not None:
            # A failure is said once, where a person looks for errors (stdout may be a
            # log file); run_headless then only sets the exit status.
            self._line(f"frontier: {line}", self.errors)
            return
        if line is not None and not self.print_mode:
            self._line(line)


StretchKind = Literal["ai", "think"]


@record(frozen=False)
class _Stretch:
    """One run of prose or reasoning written as it arrives: ``ai  `` / ``think `` on its
    first line, later lines indented under it; whitespace before the first word and at
    the end is not printed (as the whole-text form did); reasoning is cut at
    :data:`THINKING_PRINTED` characters, the rest counted."""

    kind: StretchKind
    scrub: StreamScrubber
    started: bool = False
    held: str = ""
    """Trailing whitespace, printed only if more text follows."""
    shown: int = 0
    hidden: int = 0

    def take(self, text: str) -> str:
        """What to write of ``text`` now (prefix and indentation included)."""
        if not self.started:
            text = text.lstrip()
            if not text:
                return ""
        text = self.held + text
        body = text.rstrip()
        self.held = text[len(body) :]
        if not body:
            return ""
        if self.kind == "think":
            room = max(THINKING_PRINTED - self.shown, 0)
            if len(body) > room:
                self.hidden += len(body) - room
                body, self.held = body[:room], ""
            self.shown += len(body)
            if not body:
                return ""
        indent = "\n" + " " * (4 if self.kind == "ai" else 6)
        prefix = ""
        if not self.started:
            self.started = True
            prefix = "ai  " if self.kind == "ai" else "think "
        return prefix + body.replace("\n", indent)

    def closing(self) -> str:
        """The end of the stretch's last line (and what reasoning was not printed)."""
        if self.hidden:
            return f"\n      … ({self.hidden:,} more characters of reasoning)"
        return ""


@record
class Unanswered:
    """A call refused because it needed a person and nobody could be asked."""

    name: str
    flag: str
    """The setting that would allow it (``--approval auto-edit``), or ``""``."""


def _quiet(stream: TextIO) -> None:
    """Point ``stream``'s descriptor at ``/dev/null``: what it still holds, flushed at
    exit, goes nowhere instead of failing again (Python's own advice for a closed pipe)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a descriptor (a test's StringIO)
        return
    silence(fd)


def unanswered(result: ToolResult) -> Unanswered | None:
    """The ``denied`` result of a call nobody could be asked about (``ask`` or a missing
    sandbox, headless without a terminal): the boundary keeps the setting that would
    allow it in ``meta["unanswered"]`` (``tools/contract.py`` ``Decision.unanswered``);
    ``None`` for any other result."""
    if result.kind != "denied":
        return None
    flag = result.meta.get("unanswered")
    return Unanswered(result.name, flag) if isinstance(flag, str) else None


def unanswered_line(found: list[Unanswered]) -> str:
    """The one stderr line naming the tools and the flag that would have allowed them."""
    names = list(dict.fromkeys(u.name for u in found))
    flags = list(dict.fromkeys(u.flag for u in found if u.flag))
    if "--approval auto" in flags:  # allows what auto-edit does, and commands
        flags = [f for f in flags if f != "--approval auto-edit"]
    verb = "needs" if len(names) == 1 else "need"
    fix = f"rerun with {' and '.join(flags)}" if flags else "run it in a terminal to be asked"
    served = [n for n in names if MCP_SEPARATOR in n]
    if served:  # an MCP tool asks under every policy but auto: a rule allows just it
        fix += f", or allow it for good: frontier mcp allow {served[0]}"
    return (
        f"frontier: {', '.join(names)} {verb} approval and nobody can be asked (no terminal); {fix}"
    )


def event_json(event: Event) -> dict[str, Any]:
    """``event_to_json``, plus a mutation result's ``changes`` (``meta["changes"]`` as is),
    ``already_applied`` and the after-edit ``checks`` on ``tool_finished``, so a script
    needs no patch parsing."""
    out = event_to_json(event)
    if isinstance(event, ToolFinished):
        meta = event.result.meta
        if "changes" in meta:
            out["changes"] = [dict(c) for c in result_changes(meta)]
        if "already_applied" in meta:
            out["already_applied"] = bool(meta["already_applied"])
        if isinstance(meta.get("checks"), list):  # the person's after-edit checks
            out["checks"] = [dict(c) for c in meta["checks"] if isinstance(c, dict)]
        for key in FORMAT_KEYS:  # tools/formatting.py
            if isinstance(meta.get(key), list):
                out[key] = [str(v) for v in meta[key]]
    return out


def _short(value: object, width: int = 60) -> str:
    text = str(value).replace("\n", "⏎")
    return text if len(text) <= width else text[: width - 1] + "…"


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no such method; a closed stream
        return False


def output_lines(data: str) -> str:
    """A tool's complete output lines (without the last line end) as the text form prints
    them, each under ``│``: in C-speed passes, since a command can print millions."""
    return "  │ " + data.replace("\n", "\n  │ ")


def describe(event: Event) -> str | None:
    """One human line per interesting event; ``None`` for per-byte noise."""
    match event:
        case AssistantText(text=text):
            return "ai  " + text.strip().replace("\n", "\n    ")
        case CallReady(call=call):
            args = " ".join(f"{k}={_short(v, 40)}" for k, v in call.json_args().items())
            line = f"▸ {call.id} {call.name} {args}  (confirmed at byte {call.offset})"
            if call.origin:  # the model's command, run as this file tool's call
                line += f"\n    from the model's command: {_short(call.origin, 70)}"
            return line
        case ToolStarted(call=call):
            return f"  ⋯ {call.id} {call.name} running"
        case ToolFinished(result=r):
            exit_part = f" exit={r.exit_code}" if r.exit_code is not None else ""
            first = r.output.strip().split("\n")[0] if r.output.strip() else ""
            mark = "✓" if r.ok else "✗"
            head = f"  {mark} {r.call_id} {r.name} {r.kind}{exit_part} {r.elapsed:.2f}s"
            changes = change_lines(r.meta, PRINTED_CHANGES)
            if changes == ["already applied"]:
                return f"{head}  already applied"
            if changes:  # a mutation: its files, not the first line of "applied:\n..."
                checked = [line for line, _ in check_lines(r.meta)]  # formatters, checks
                if output_first(r.meta):  # a command's: its output matters too
                    head = f"{head}  {_short(first, 70)}"
                return "\n".join([head, *(f"      {line}" for line in changes + checked)])
            return f"{head}  {_short(first, 70)}"
        case ContractError(kind=kind, message=message, offset=offset):
            return f"! contract error {kind} at byte {offset}: {message}"
        case StreamStopped(reason=reason, offset=offset):
            return f"■ stream stopped at byte {offset}: {reason}"
        case Retry(attempt=attempt, delay=delay, reason=reason):
            return f"↻ retry {attempt} in {delay:.1f}s: {reason}"
        case ServerTool(name=name):
            return f"⚙ the provider ran its own tool {name} (never run by Frontier)"
        case RepairRequested(kind=kind, attempt=attempt, resend=resend):
            asked = "resend" if resend else "go on"
            return f"↺ repair {attempt}/{MAX_REPAIRS}: asked the model to {asked} ({kind})"
        case Summarising(rounds=rounds, before=before, window=window):
            return (
                f"⇣ summarising {_rounds(rounds)} to fit the context "
                f"({before:,} of {window:,} tokens)…"
            )
        case Compacted(reason=reason, detail=detail) if reason in FORGETTING:
            return f"⇤ {detail}"
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
        if preview.runs_for:
            shown += f"\nruns {preview.runs_for}"
        if preview.escalation is not None:
            return (
                f"{shown}\nthe sandbox seems to have stopped it (read from its output): "
                f"{preview.escalation}\n"
                "run it again OUTSIDE the sandbox (unconfined, network on)?"
            )
        if preview.destroys is not None:
            shown += f"\n{preview.destroys}: no undo brings that back"
        if preview.sandbox is not None:
            return f"{shown}\n(inside the sandbox: {preview.sandbox})"
        return f"{shown}\n(outside any sandbox)"
    shown = "\n".join(f.diff for f in preview.files) or preview.summary
    if preview.protected:  # the links' targets are in the summary, which a diff hides
        shown = (
            f"{shown.rstrip()}\nprotected (git runs what it says): {', '.join(preview.protected)}"
        )
    return shown


class TerminalApprover:
    """Ask y/n on the controlling terminal, showing the diff or the command: it answers
    the session's ``ApprovalRequested`` events (``approvals.answer_with``). A change to one
    file can be edited first (``e``: the person's editor, as the TUI review's ``e``); the
    diff to their version is shown and asked about in turn."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        edited: tuple[tuple[str, bytes], ...] = ()
        shown_preview = preview
        while True:
            editable = _editable_file(shown_preview)
            shown = terminal_safe(render_preview(shown_preview))  # nothing in it may hide the rest
            whose = "your version of " if edited else ""
            safe_print(f"\n── approve {whose}{call.id} {call.name}? ──\n{shown}", file=self.out)
            keys = "[y] approve  [n] deny  " + ("[e] edit  " if editable is not None else "")
            safe_print(f"{keys}(or type a reason to deny): ", end="", file=self.out)
            self.out.flush()
            answer = (await read_answer()).strip()
            if answer.lower() in ("y", "yes"):
                return Decision(True, edited=edited)
            if answer.lower() == "e" and editable is not None:
                data = await self._edit(editable)
                if data is not None:
                    edited = ((editable.path, data),)
                    shown_preview = _with_file(shown_preview, editable, data)
                continue
            reason = "" if answer.lower() in ("", "n", "no") else answer
            return Decision(False, reason or "denied by the user")

    async def _edit(self, file: FilePreview) -> bytes | None:
        """The file as the person saved it in their editor; ``None`` (said) when it
        failed or nothing changed."""
        import functools

        from frontier.app.frontends.editor_command import edited_file, run_editor

        data, why = await edited_file(file, functools.partial(run_editor, env=os.environ))
        if data is None:
            safe_print(f"{why}: the version shown stands", file=self.out)
        return data


def _editable_file(preview: Preview) -> FilePreview | None:
    """The one file a diff changes, when the person may edit it (``review_edit``)."""
    from frontier.tools.review_edit import not_editable

    if preview.kind != "diff" or len(preview.files) != 1:
        return None
    file = preview.files[0]
    return file if not_editable(file) is None else None


def _with_file(preview: Preview, file: FilePreview, data: bytes) -> Preview:
    """``preview`` showing ``data`` as the file's new content (the person's version)."""
    from frontier.app.record import replace
    from frontier.tools.review_edit import as_edited

    return replace(preview, files=(as_edited(file, data),))


def session_json(session: AgentSession) -> dict[str, Any]:
    """The first line of ``--json`` output: which session the events belong to, so a
    program can ``frontier resume`` or ``export`` it without parsing the text form."""
    return {
        "type": "session",
        "v": JSON_VERSION,
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


def default_approver() -> TerminalApprover | None:
    """Who answers the session's questions: the terminal, or nobody (no terminal: what
    needs a person is refused and says which ``--approval`` allows it)."""
    return TerminalApprover() if sys.stdin.isatty() else None


JSON_VERSION = 1
"""The ``--json`` format's version, on its first line (docs/headless.md): raised only
when a type or field is removed or changes meaning, or an order guarantee is dropped."""
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NEEDS_APPROVAL = 3
"""A call needed approval and nobody could be asked (no terminal): rerun with the
``--approval`` named on stderr. Wins over a turn's failure (the denial is usually why)."""
EXIT_INTERRUPTED = 130
"""ctrl+c stopped the turn (128 + SIGINT, as a shell reports it); SIGTERM and SIGHUP give
143 and 129 (``stop_signals.py``)."""
EXIT_READER_GONE = 141
"""Standard output's reader went away (``| head``): 128 + SIGPIPE, as a shell reports a
program its pipe ended; the turn was stopped as ctrl+c stops it."""


async def run_headless(
    config: Config,
    *,
    prompts: list[str],
    as_json: bool = False,
    max_turns: int | None = None,
    session_id: str | None = None,
    demo: bool = False,
    demo_rate: float = 60.0,
    approver: Answerer | None = None,
    workspace: Path | None = None,
    protocol: str | None = None,
    print_mode: bool = False,
) -> int:
    """Exit 0 when every turn ended with the model finishing the task, 1 when one did
    not, 3 (:data:`EXIT_NEEDS_APPROVAL`) when a call was refused for want of someone
    to ask, with one line on stderr saying which ``--approval`` allows it.

    ``print_mode`` (``-p``): stdout gets only the final answer; notes, progress and
    reasoning are not printed, failures still go to stderr.

    Whatever is printed goes through one scrubber shared with the session (the key,
    even from ``api_key_command``, and URL credentials); a store that fails while
    closing (a full disk) is reported as a message and exit 1, never a traceback.
    """
    scrubber = Scrubber.from_env(config.api_key, *url_secrets(config.base_url))
    printer = EventPrinter(as_json=as_json, print_mode=print_mode, scrubber=scrubber)
    try:
        session = create_runtime(
            config,
            # issue 23: answered through the session's ApprovalRequested events
            approver=approver or default_approver(),
            demo=demo,
            demo_rate=demo_rate,
            session_id=session_id,
            max_turns=max_turns,
            workspace=workspace,
            protocol=protocol,
            scrubber=scrubber,
            # said as the wait begins (stdout is the run's own: its lines, or JSON)
            on_wait=lambda text: safe_print(f"note {printer.text(text)}", file=sys.stderr),
        )
    except (ValueError, StoreError) as exc:
        safe_print(f"frontier: {printer.text(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    session.subscribe(printer)
    tally = RunTally(printer.clock())
    session.subscribe(tally)
    if as_json:
        safe_print(dumps(printer.scrubber.scrub_obj(session_json(session))), file=printer.out)
        printer.out.flush()
    elif not print_mode:
        safe_print(
            f"session {session.session_id} · {session.mode} · workspace {session.workspace}"
            f" · sandbox {session.sandbox_label}"
        )
    failed = [f"the last turn failed: {session.last_failure}"] if session.last_failure else []
    for note in () if print_mode else [*failed, *session.notes]:
        # stderr with --json: stdout stays one event per line
        safe_print(f"note {printer.text(note)}", file=sys.stderr if as_json else sys.stdout)
    for result in session.recovered:
        printer(ToolFinished(result))
    status = EXIT_OK
    watch = asyncio.create_task(printer.watch(), name="waiting-lines")
    turns = asyncio.current_task()
    stop = StopSignals()  # SIGTERM, SIGHUP: the turn stopped as ctrl+c stops it

    def stop_turns(why: str) -> None:
        """Stop the turn running now; between turns the loop below sees the stop and
        sends nothing more (a cancel there would land on whatever awaits next)."""
        if turns is not None and session.busy:
            turns.cancel(why)

    stop.install(lambda: stop_turns(stop.why))
    # `| head` has what it wanted: stop as SIGPIPE would
    printer.on_reader_gone = lambda: stop_turns("the output's reader went away")
    try:
        for prompt in prompts or session.demo_prompts:
            if not as_json and not print_mode:
                printer.line(f"you {printer.text(printer.said(prompt))}")
            if printer.reader_gone or stop.received is not None:
                break
            # @path mentions attach files and images, as in the TUI (docs/headless.md)
            prepared = session.attach(prompt)
            for note in () if print_mode else prepared.notes():
                safe_print(f"note {printer.text(note)}", file=sys.stderr if as_json else sys.stdout)
            ended = await session.send(prepared.text, prepared.images)
            if ended.reason != "done":  # the printer has said why (once)
                # headless, only a signal stops a turn: ctrl+c here (asyncio's SIGINT)
                status = EXIT_INTERRUPTED if ended.reason == "cancelled" else EXIT_FAILED
                break
    except ModelError as exc:
        safe_print(f"frontier: {printer.text(str(exc))}", file=sys.stderr)
        status = EXIT_FAILED
    finally:
        turns = None  # a signal while the session closes is not a reason to cut it short
        watch.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watch
        printer.finish()
        if printer.unanswered:
            safe_print(unanswered_line(printer.unanswered), file=sys.stderr, flush=True)
            status = EXIT_NEEDS_APPROVAL
        for job in session.running_jobs():  # stderr: --json and -p keep stdout clean
            safe_print(
                f"frontier: stopping background job {job.id} ({job.elapsed:.0f}s): "
                f"{printer.text(job.command)}",
                file=sys.stderr,
            )
        try:
            await session.close()
        except Exception as exc:  # e.g. the store's last flush on a full disk
            message = printer.text(str(exc))
            safe_print(f"frontier: closing the session failed: {message}", file=sys.stderr)
            status = EXIT_FAILED
        finally:
            stop.uninstall()
    missed, words = session.observer_failures
    if missed:  # the printer raised on an event (a bug of ours): the session went on
        safe_print(
            f"frontier: the output missed {missed} event(s) ({printer.text(words[0])}); the "
            f"session's record is whole: frontier export {session.session_id}",
            file=sys.stderr,
        )
        status = status or EXIT_FAILED
    if stop.exit_status is not None:
        safe_print(f"frontier: {stop.why}", file=sys.stderr)
        status = stop.exit_status
    printer.closing(tally, session.session_id, status)
    if printer.reader_gone:
        return EXIT_READER_GONE
    return status
