"""``think``: a thought the model writes down as a call, answered and nothing else done.

Anthropic's "think" tool (a place to reason between calls) and OpenHands' ``think`` are
in the tool lists models were trained with (Claude, Devstral), and they call it whatever
they are offered: ``unknown tool`` and a repair round each time, the thought's place in
the turn lost. The tool is not offered (``ToolSpec.offered``); called, its thought stays
in the call's arguments, which the person sees and the history keeps, and the answer is
one line. Policy class ``read``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from frontier.app.events import ToolCall
from frontier.tools.base import CancelToken, Outcome, Prepared
from frontier.tools.contract import Preview, ToolContext, ToolSpec

NOTED = "Your thought has been noted; go on."


class ThinkTool:
    bytes_args: frozenset[str] = frozenset()
    spec = ToolSpec(
        name="think",
        description="Write down a thought (nothing is run or changed).",
        parameters={
            "type": "object",
            "properties": {"thought": {"type": "string", "default": ""}},
        },
        kind="read",
        timeout=5.0,
        aliases={"content": "thought", "text": "thought", "reasoning": "thought"},
        offered=False,
    )

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        return Prepared(args=args, preview=Preview(kind="none", summary="think"))

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        return Outcome(kind="ok", output=NOTED)
