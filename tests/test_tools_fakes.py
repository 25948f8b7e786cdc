"""Shared fakes for tool tests (no tests here): an approver, a failing store, a probe."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frontier.app.events import Event, ToolCall, ToolResult
from frontier.tools.base import CancelToken, Outcome, Prepared
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Decision, Preview, ToolContext, ToolSpec
from frontier.tools.digest import sha256
from frontier.tools.registry import Registry, default_registry


@dataclass
class Approver:
    approve_all: bool = True
    reason: str = ""
    seen: list[tuple[ToolCall, Preview]] = field(default_factory=list)

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        self.seen.append((call, preview))
        return Decision(self.approve_all, self.reason)


@dataclass
class FakeStore:
    fail_on: str | None = None
    """``persist_call`` / ``mark_started`` / ``commit_result``: raise there."""
    log: list[tuple[str, Any]] = field(default_factory=list)

    def _step(self, name: str, value: Any) -> None:
        if self.fail_on == name:
            raise OSError(28, "database or disk is full")
        self.log.append((name, value))

    def persist_call(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        self._step("persist_call", (call.id, preview))

    def persist_and_start(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        self.persist_call(call, spec, preview)
        self.mark_started(call.id)

    def mark_started(self, call_id: str) -> None:
        self._step("mark_started", call_id)

    def commit_result(self, result: ToolResult) -> None:
        self._step("commit_result", result)

    def commit_rejected(self, call: ToolCall, result: ToolResult) -> None:
        self._step("commit_result", result)

    def journal(self, call_id: str) -> None:
        return None


class ProbeTool:
    """A read-class tool whose only effect is appending to ``fired``."""

    bytes_args: frozenset[str] = frozenset()

    def __init__(self, name: str = "probe", sequential: bool = False, **spec: Any) -> None:
        self.spec = ToolSpec(
            name=name,
            description="side-effect probe",
            parameters={"type": "object", "properties": {"n": {"type": "integer"}}},
            sequential=sequential,
            **spec,
        )
        self.fired: list[Mapping[str, Any]] = []

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        return Prepared(args=args)

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        self.fired.append(prepared.args)
        return Outcome(kind="ok", output=f"probe {prepared.args.get('n')}")


def make_boundary(
    root: Path,
    *,
    registry: Registry | None = None,
    approver: Any = None,
    store: FakeStore | None = None,
    events: list[Event] | None = None,
    **kwargs: Any,
) -> ToolBoundary:
    sink = events.append if events is not None else None
    return ToolBoundary(
        registry or default_registry(),
        root,
        approver or Approver(),
        store,
        emit=sink,
        **kwargs,
    )


def call(name: str, num: int = 1, /, **args: Any) -> ToolCall:
    return ToolCall(id=f"c{num}", name=name, args=args)


def model_has_read(boundary: ToolBoundary, *paths: str) -> None:
    """What a whole ``read`` of each file leaves behind: the model has seen it, so a
    whole-file ``write`` over it is judged as a model's that read it first (a file never
    read is not written whole: ``tools/file_views.py``). For tests whose subject is the
    write, not the reading before it."""
    for path in paths:
        boundary.views.saw(path, sha256((Path(boundary.root) / path).read_bytes()))
