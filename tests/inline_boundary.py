"""Test support: a tool boundary whose calls return at once (each test gives ``run``).

What ``AgentLoop`` needs of a boundary beyond ``run``: the calls of a batch one after
another (each result appended as it comes, as ``ToolBoundary.run_batch`` does), and
nothing running to cancel or halt."""

from __future__ import annotations

from frontier.app.events import ToolCall, ToolResult


class InlineBoundary:
    async def run(self, call: ToolCall) -> ToolResult:
        raise NotImplementedError

    async def run_batch(
        self, calls: list[ToolCall], results: list[ToolResult] | None = None
    ) -> list[ToolResult]:
        done = results if results is not None else []
        for call in calls:
            done.append(await self.run(call))
        return done

    def cancel_running(self) -> bool:
        return False

    def halt(self) -> None:
        """Nothing to halt: each call here returns at once."""

    @property
    def running(self) -> list[str]:
        return []
