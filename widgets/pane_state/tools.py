"""The Tools pane's state: one row per call, in the order the calls became ready.

A row (``ToolRow``) is shown in the Transcript too, so this model tells the Transcript
model when it makes one (a ``call`` entry) and when one changes (the entry re-renders):
both are calls on the ``transcript`` passed at construction. It holds each finished
call's whole result for the pager, within ``OUTPUT_BUDGET`` over all rows.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

from frontier.app.check_text import check_lines, own_output
from frontier.app.events import (
    CallReady,
    ToolCall,
    ToolFinished,
    ToolOutput,
    ToolStarted,
    TurnEnded,
)
from frontier.app.frontends.tui.sandbox_text import ran_under
from frontier.tools.arg_aliases import named
from frontier.tools.patch_summary import SHOWN_CHANGES, change_lines, output_first, patch_label
from frontier.widgets import display
from frontier.widgets.display import fold_blank_runs, line_count, more_lines
from frontier.widgets.pane_state.shared import PaneContext
from frontier.widgets.pane_state.tool_row import ToolRow
from frontier.widgets.pane_state.transcript import TranscriptModel

MAX_TOOLS = 100
OUTPUT_BUDGET = 16 << 20
"""Characters of finished calls' whole results kept for the pager, over all rows: past
it the oldest rows keep only their fold (``ToolRow.output_dropped`` says how much went;
the copy picker and the export still have the session's record)."""

SUMMARY_CHARS = 80
"""Characters of a call's key argument a Transcript or Tools row shows."""


def _first_line(text: str) -> str:
    """The first line of ``text`` with something on it (split at ``\n`` only)."""
    start = 0
    while True:
        end = text.find("\n", start)
        line = text[start:] if end == -1 else text[start:end]
        if line.strip(" \t"):
            return line.strip(" \t")
        if end == -1:
            return ""
        start = end + 1


def call_summary(call: ToolCall) -> tuple[str, int]:
    """The key argument of a call in a few words, and how many more lines it has; a call
    read from the model's shell command (``sed -i …`` run as the patch it makes) says
    that command after it (``settings.py ← sed -i 's/8000/9000/' settings.py``).

    The count is what a one-row summary cannot show: ``echo safe`` with 40 blank lines
    and ``touch PWNED`` after it is ``echo safe`` and 41 more lines, and a row says so
    (``(+41 lines)``, :func:`~frontier.widgets.display.more_lines`)."""
    summary, more = _key_argument(call)
    if call.origin:
        first, _ = fold_blank_runs(_first_line(call.origin))
        cut = first if len(first) <= SUMMARY_CHARS else first[: SUMMARY_CHARS - 1] + "…"
        return f"{summary} ← {cut}", more
    return summary, more


def _key_argument(call: ToolCall) -> tuple[str, int]:
    args = named(call.args)  # `cmd`, `file_path`: as the tool reads them
    if call.name == "plan":  # its checklist is its output: the row says how long
        steps = next((args[k] for k in ("steps", "todos", "plan") if k in args), None)
        count = len(steps) if isinstance(steps, list) else 0
        return f"{count} step{'s' * (count != 1)}", 0
    if call.name == "undo":  # the person's: the call it undoes, or a rewind's message
        rewind = args.get("rewind")
        if isinstance(rewind, dict) and isinstance(rewind.get("to"), int):
            return f"the changes since message {rewind['to']} (/rewind)", 0
        if isinstance(args.get("call"), str) and isinstance(args.get("name"), str):
            return f"{args['call']} {args['name']}", 0
    if call.name == "apply_patch":
        patch = args.get("patch", "")
        text = patch.decode("utf-8", "replace") if isinstance(patch, bytes) else str(patch)
        return patch_label(text), 0
    paths = args.get("paths")  # `remove`'s (an `rm -r`)
    if isinstance(paths, list) and paths and all(isinstance(p, str) for p in paths):
        shown = ", ".join(paths)
        return (shown if len(shown) <= SUMMARY_CHARS else shown[: SUMMARY_CHARS - 1] + "…"), 0
    for key in ("command", "path", "pattern", "code", "content"):
        if key in args:
            value = args[key]
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            # a run of blanks is one visible note, so what follows it is on the row
            first, _ = fold_blank_runs(_first_line(text))
            if len(first) > SUMMARY_CHARS:
                first = first[: SUMMARY_CHARS - 1] + "…"
            return first, max(0, line_count(text) - 1)
    return " ".join(f"{k}={str(v)[:20]}" for k, v in list(args.items())[:2]), 0


def summarize_call(call: ToolCall) -> str:
    """The key argument of a call in a few words (what the Tools pane shows), with
    ``(+N lines)`` when it has more lines than the one shown."""
    first, more = call_summary(call)
    return first + more_lines(more)


_SANDBOX_WORDS = {
    "workspace-write": "sandbox",
    "read-only": "read-only",
    "escalated": "outside",
    "off": "no sandbox",
    "unavailable": "no sandbox",
}


def sandbox_word(meta: Mapping[str, Any] | None) -> str:
    """Where a command ran, in the Tools pane's few cells: ``sandbox``, ``sandbox+net``,
    ``read-only``, ``outside`` (approved to run unconfined), ``no sandbox``; empty for a
    result that ran no command (``sandbox_text.ran_under`` has the full words)."""
    record = meta.get("sandbox") if meta else None
    if not isinstance(record, Mapping) or not isinstance(record.get("mode"), str):
        return ""
    word = _SANDBOX_WORDS.get(record["mode"], record["mode"][:10])
    if record.get("network") and record["mode"] in ("workspace-write", "read-only"):
        word += "+net"
    return word


class ToolsModel:
    """The calls of this session: the Tools pane's rows in order (``listed``), the row
    each id answers to now (``rows``), and the budget of their kept results."""

    def __init__(self, ctx: PaneContext, transcript: TranscriptModel) -> None:
        self._ctx = ctx
        self._dirty = ctx.dirty
        self._transcript = transcript
        self.rows: dict[str, ToolRow] = {}
        """The row each call id's events go to: the newest call with that id."""
        self.listed: list[ToolRow] = []
        """The pane's rows, oldest first, at most :data:`MAX_TOOLS`: a call whose id an
        earlier one had keeps that one's row above it (servers reuse ids across responses:
        LM Studio's ``call_0``; the second took the first's row away)."""
        self.calls_ready = 0
        self._outputs: deque[ToolRow] = deque()
        """Finished rows holding a whole result, oldest first (``_keep_output``)."""
        self._output_chars = 0

    def running(self) -> list[ToolRow]:
        return [row for row in self.rows.values() if row.running]

    def set_state(self, call: ToolCall, state: str) -> None:
        """The App's review says where a call stands (``review``, ``denied``...)."""
        row = self._row(call)
        row.state = state
        self._touch(call.id)

    def reset(self) -> None:
        """A new session (or history shown): no rows; the calls in the Transcript keep
        their rows (``TranscriptEntry.tool``) but no longer answer to their ids."""
        for row in list(self.rows.values()):
            self._transcript.freeze(row)
        self.rows.clear()
        self.listed.clear()
        self.calls_ready = 0

    # ------------------------------------------------------------------ helpers
    def _row(self, call: ToolCall, *, entry: bool = True) -> ToolRow:
        row = self.rows.get(call.id)
        if row is None:
            row = self._new_row(call)
            self._list(row)
            if entry:
                self._transcript.show_call(row)
        return row

    def _list(self, row: ToolRow) -> None:
        """``row`` is its id's now, and the pane's last; the oldest finished rows leave
        the pane past :data:`MAX_TOOLS` (a running one stays, and those after it)."""
        self.rows[row.call.id] = row
        self.listed.append(row)
        drop = 0
        while len(self.listed) - drop > MAX_TOOLS and not self.listed[drop].running:
            old = self.listed[drop]
            if self.rows.get(old.call.id) is old:
                del self.rows[old.call.id]
            drop += 1
        del self.listed[:drop]

    def _new_row(self, call: ToolCall) -> ToolRow:
        return ToolRow(call=call, summarize=self._summarize)

    def _summarize(self, call: ToolCall) -> tuple[str, int]:
        summary, more = call_summary(call)
        return self._ctx.scrub(summary), more

    def _touch(self, call_id: str) -> None:
        self._transcript.touch(call_id)
        self._dirty.add("tools")

    def _output(self, row: ToolRow, data: str) -> None:
        """A running tool's output: complete lines join the tail (scrubbed, then cut to
        their ends), the open line grows; a prefix of a key waits for the rest of it.
        The piece's complete lines are scrubbed as one text and cut in one pass: done a
        line at a time, 3,000,000 short lines cost 2.6 s of the screen's loop."""
        ctx = self._ctx
        scrub = ctx.scrub
        window = ctx.scrub_window()
        first = data.find("\n")
        if first < 0:
            row.grow(data, scrub, window)
            return
        last = data.rfind("\n")
        row.grow(data[:first], scrub, window)
        lines = [row.end_line()]
        if last > first:
            lines += display.cut_each(ctx.scrub(data[first + 1 : last]).split("\n"))
        row.add_lines(lines)
        row.grow(data[last + 1 :], scrub, window)

    def _keep_output(self, row: ToolRow) -> None:
        """Hold ``row``'s whole result for the pager within ``OUTPUT_BUDGET``: the
        oldest rows' results go first (their fold stays)."""
        self._outputs.append(row)
        self._output_chars += len(row.output)
        while self._output_chars > OUTPUT_BUDGET and len(self._outputs) > 1:
            old = self._outputs.popleft()
            self._output_chars -= len(old.output)
            old.output_dropped, old.output = len(old.output), ""
            old.version += 1

    # ------------------------------------------------------------------ handlers
    def on_call_ready(self, event: CallReady) -> None:
        call = event.call
        self.calls_ready += 1
        previous = self.rows.pop(call.id, None)
        if previous is not None:
            self._transcript.freeze(previous)
        row = self._new_row(call)
        self._list(row)
        self._transcript.show_call(row)
        self._dirty.add("tools")

    def on_tool_started(self, event: ToolStarted) -> None:
        row = self._row(event.call)
        row.state = "running"
        row.started = self._ctx.clock()
        self._touch(event.call.id)

    def on_tool_output(self, event: ToolOutput) -> None:
        row = self.rows.get(event.call_id)
        if row is not None:
            self._output(row, event.data)
            row.version += 1
            self._dirty.update(("tools", "transcript"))  # the Transcript shows its live tail

    def on_tool_finished(self, event: ToolFinished) -> None:
        result = event.result
        row = self.rows.get(result.call_id)
        if row is None:  # a call cut off before it was ready: the ✂ line may name it
            call = ToolCall(result.call_id, result.name, {})
            said = result.kind == "truncated" and self._transcript.cut_shown
            row = self._row(call, entry=not said)
        row.state = result.kind
        row.exit_code = result.exit_code
        row.elapsed = result.elapsed
        scrub = self._ctx.scrub
        output = scrub(result.output)
        lines = output.strip().splitlines()  # empty for a result of only whitespace
        row.message = lines[0][:200] if lines else ""
        if row.partial:
            row.add_lines([row.end_line()])
        row.finish(output, own_output(output))  # the notes for the model: lines of their own
        self._keep_output(row)
        row.changes = tuple(map(scrub, change_lines(result.meta, SHOWN_CHANGES)))
        row.ran = tuple(map(scrub, ran_under(result.meta)))
        row.checks = tuple((scrub(line), failed) for line, failed in check_lines(result.meta))
        row.where = sandbox_word(result.meta)
        row.output_first = output_first(result.meta)
        self._touch(result.call_id)

    def on_turn_ended(self, event: TurnEnded) -> None:
        """A turn that ended (ctrl+c, an error) ends its calls: a cancelled task reports
        no result, so a row still running, in review or waiting would say so forever."""
        for row in self.rows.values():
            if row.state in ("running", "review", "ready"):
                row.state = "cancelled" if row.state == "running" else "not run"
                if row.started is not None and row.elapsed is None:
                    row.elapsed = max(0.0, self._ctx.clock() - row.started)
                self._touch(row.call.id)
