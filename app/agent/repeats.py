"""A call the model repeats unchanged after it returned the same result twice.

A model that loses its way calls the same tool with the same arguments round after
round — the same ``read``, the same ``git status``, an edit that no longer applies —
and each round costs a request until ``max_turns`` (100 in the TUI) ends the turn. The
third identical call in a row, after two that returned the same result, is not run: its
result says so and points to the result above (the agent loops of opencode, Kilo Code
and Hermes stop the same way). A repeat whose result changed (a poll that is still
waiting, a test run after an edit) is not one: only two equal results make the third
pointless. The count starts again with each message of the person.
"""

from __future__ import annotations

from frontier.app import fastjson
from frontier.app.events import ToolCall, ToolResult

ALLOWED = 2
"""Identical calls in a row that run, their results equal, before the next is refused."""


class Repeats:
    """The latest calls run in this turn, in the order they ran, as far as telling a
    repeat needs: the call's name and arguments, and its result's kind and output."""

    def __init__(self) -> None:
        self._last: list[tuple[str, str]] = []
        """``(call key, result key)`` of the latest run of identical calls."""

    def clear(self) -> None:
        self._last = []

    def refused(self, call: ToolCall) -> ToolResult | None:
        """The result of ``call`` when it repeats :data:`ALLOWED` identical calls whose
        results were equal, else ``None`` (it runs)."""
        key = _call_key(call)
        last = self._last
        if len(last) < ALLOWED or any(k != key for k, _ in last[-ALLOWED:]):
            return None
        if len({r for _, r in last[-ALLOWED:]}) != 1:
            return None
        shown = key if len(key) <= 200 else key[:200] + "…"
        return ToolResult(
            call.id,
            call.name,
            "not_executed",
            f"not run: the same call ({shown}) ran {ALLOWED} times in a row and returned "
            "the same result each time; a third run would return it again. Use the result "
            "above, or change what you call.",
        )

    def ran(self, call: ToolCall, result: ToolResult) -> None:
        """``call`` ran with ``result``: the run of identical calls grows or starts again.
        (A refused repeat is not recorded: the next identical call is refused too.)"""
        key = _call_key(call)
        if self._last and self._last[-1][0] != key:
            self._last = []
        self._last.append((key, f"{result.kind}\0{result.output}"))
        del self._last[:-ALLOWED]


def _call_key(call: ToolCall) -> str:
    """The call as a text: its name and its arguments in one canonical order."""
    values = call.json_args()
    args = {k: values[k] for k in sorted(values)}
    return f"{call.name} {fastjson.dumps(args, ensure_ascii=False)}"
