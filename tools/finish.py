"""``finish``: the model says the task is done, and the turn ends there.

OpenHands' agents end a task by calling ``finish {message}`` and Cline's by
``attempt_completion {result}``; models trained in them (Devstral, Cline's and Roo's
fine-tunes) call it whatever they are offered. It was ``unknown tool``: the model called
it again, and again, until the loop stopped it as ``repeating`` after four requests, and
``frontier run`` exited 1 on a task that was done. The tool is not offered
(``ToolSpec.offered``); called under any of those names, its message is the call's
output (what the person reads) and the turn ends ``done`` (``ToolSpec.terminates``: no
call after it in the batch starts). Cline's ``command`` (one to show the result) is not
run: running it is the person's to choose.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from frontier.app.events import ToolCall
from frontier.tools.arg_aliases import FINISH
from frontier.tools.base import CancelToken, Outcome, Prepared
from frontier.tools.contract import Preview, ToolContext, ToolSpec

MAX_CHARS = 20_000


class FinishTool:
    bytes_args: frozenset[str] = frozenset()
    spec = ToolSpec(
        name="finish",
        description="Say the task is done, with a message for the person; the turn ends.",
        parameters={
            "type": "object",
            "properties": {"message": {"type": "string", "default": ""}},
        },
        kind="read",
        timeout=5.0,
        aliases=FINISH,
        offered=False,
        terminates=True,
    )

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        return Prepared(args=args, preview=Preview(kind="none", summary="finish"))

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        message = str(prepared.args.get("message") or "").strip()[:MAX_CHARS]
        return Outcome(kind="ok", output=message or "the task is done", meta={"terminates": True})
