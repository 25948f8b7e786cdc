"""``plan``: the model's list of steps and where it is, shown to the person.

Codex's models call ``update_plan`` (its prompt asks for a plan on any task of several
steps) and the models Claude Code taught call ``TodoWrite``, whatever tools they are
offered: each call was ``unknown tool`` and a repair round, and the plan they meant to
show was lost. The tool is not offered (no tokens in every request, no planning asked of
models that do not plan; ``ToolSpec.offered``), but a model that calls it under any of
those names gets it: the steps are checked and come back as the checklist the person
sees in the call's output. Nothing is run or written; policy class ``read``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from frontier.app.events import ToolCall
from frontier.tools.arg_aliases import PLAN
from frontier.tools.base import CancelToken, Outcome, Prepared, ToolError
from frontier.tools.contract import Preview, ToolContext, ToolSpec

STATUSES = ("pending", "in_progress", "completed", "cancelled")
MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]", "cancelled": "[-]"}
MAX_STEPS = 100
MAX_STEP_CHARS = 500


class PlanTool:
    bytes_args: frozenset[str] = frozenset()
    spec = ToolSpec(
        name="plan",
        description=(
            "Show the person your plan: the steps of the task and each one's status "
            "(pending, in_progress, completed). Send the whole list each time."
        ),
        parameters={
            "type": "object",
            "properties": {
                "steps": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "string"},
                            "status": {
                                "type": "string",
                                "description": "pending, in_progress or completed",
                            },
                        },
                        "required": ["step", "status"],
                    },
                },
                "explanation": {"type": "string"},
            },
            "required": ["steps"],
        },
        kind="read",
        timeout=5.0,
        aliases=PLAN,
        offered=False,
    )

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        steps = args["steps"]
        if len(steps) > MAX_STEPS:
            raise ToolError(f"plan: {len(steps)} steps; at most {MAX_STEPS}", kind="arg")
        steps = [{**step, "status": _status(step["status"])} for step in steps]
        args = {**args, "steps": steps}
        return Prepared(
            args=args, preview=Preview(kind="none", summary=f"plan: {len(steps)} steps")
        )

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        steps = prepared.args["steps"]
        lines = [
            f"{MARKS[s['status']]} {' '.join(s['step'].split())[:MAX_STEP_CHARS]}" for s in steps
        ]
        done = sum(s["status"] == "completed" for s in steps)
        head = f"plan: {done} of {len(steps)} steps done"
        why = " ".join(str(prepared.args.get("explanation") or "").split())[:MAX_STEP_CHARS]
        return Outcome(kind="ok", output="\n".join([head, *lines, *([why] if why else [])]))


_SAID = {
    **{s: s for s in STATUSES},
    "todo": "pending",
    "not_started": "pending",
    "inprogress": "in_progress",
    "doing": "in_progress",
    "active": "in_progress",
    "done": "completed",
    "complete": "completed",
    "finished": "completed",
    "canceled": "cancelled",
    "skipped": "cancelled",
}
"""Each agent's words for a step's status (Kimi CLI's ``Pending``, ``In Progress``,
``Done``; opencode's ``cancelled``) → ours."""


def _status(said: str) -> str:
    """A step's status in any agent's words and case; an argument error for others."""
    key = "_".join(said.strip().lower().replace("-", " ").split())
    status = _SAID.get(key) or _SAID.get(key.replace("_", ""))
    if status is None:
        raise ToolError(
            f"plan: status {said[:40]!r}; give pending, in_progress, completed or cancelled",
            kind="arg",
        )
    return status
