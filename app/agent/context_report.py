"""What fills the model's context window: the next request, part by part (``/context``).

A person who sees "ctx 71 %" in the status bar, or whose session was just compacted,
wants to know what takes the room: a 40 KB log the model read three rounds ago, an MCP
server's 30 tool schemas, the project's instructions (Claude Code's ``/context``). The
figures are the context budget's own (``budget.py``): each part of the next request is
estimated from its bytes as the budget estimates a request, then all are scaled so they
add up to what the budget says the request uses (the server's last count plus the
estimate since), so the parts and the status bar's share agree. Pure: the request, the
tools as taught and the budget in, a :class:`ContextReport` out; it knows no wire and no
front end.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from frontier.app.agent.budget import (
    BYTES_PER_TOKEN,
    MESSAGE_OVERHEAD,
    estimate_tokens,
    tool_schema,
)
from frontier.app.model.conversation import AssistantTurn, ToolResults, UserText, item_bytes
from frontier.app.model.request import ModelRequest
from frontier.app.record import record
from frontier.tools.contract import MCP_SEPARATOR

if TYPE_CHECKING:
    from frontier.app.agent.budget import ContextBudget
    from frontier.tools.contract import ToolSpec

LARGEST_RESULTS = 3
"""Tool results named one by one (the largest): the ones worth a ``/compact``."""
HISTORY_PARTS = {
    "person": "your messages",
    "summary": "summaries",
    "replies": "the model's replies",
    "results": "tool results",
    "images": "images",
    "runtime": "Frontier's notes",
}
"""The history's parts, in the order they are listed: who wrote what, images apart.
``runtime``: a repair request, an undo's notice, late results, a tool's images' text."""


@record
class ContextPart:
    """One part of the next request and the tokens it takes."""

    label: str
    tokens: int
    detail: str = ""
    """What it holds (``9 tools``, ``3 replies, 5 calls``)."""


@record
class LargeResult:
    """One of the largest tool results the request carries (``/compact`` stubs them)."""

    call_id: str
    name: str
    tokens: int


@record
class ContextReport:
    """The next request's parts, the window and the compaction threshold."""

    parts: tuple[ContextPart, ...]
    used: int
    """Tokens the request takes, as the budget counts it (the parts add up to it)."""
    window: int | None = None
    source: str = ""
    """Where the window figure came from (``budget.ContextBudget.source``)."""
    threshold: float | None = None
    """The share past which the history is compacted before a request."""
    counted: int | None = None
    """The prompt tokens the server counted for the last request, when it said."""
    largest: tuple[LargeResult, ...] = ()
    """The largest tool results, largest first (at most :data:`LARGEST_RESULTS`)."""

    @property
    def free(self) -> int | None:
        """Tokens of the window the request leaves (for the answer, and what comes)."""
        return None if self.window is None else max(0, self.window - self.used)


def context_report(
    request: ModelRequest,
    specs: Sequence[ToolSpec],
    instructions: str,
    budget: ContextBudget | None = None,
    files: Sequence[str] = (),
) -> ContextReport:
    """The parts of ``request`` (the loop's next one): Frontier's system prompt, the
    ``instructions`` section (the project's ``files``, the environment's facts), the
    tools (``specs`` as offered; their schemas for a native mode, their text in the
    system prompt for a text protocol), then the history by who wrote it. Scaled to
    ``budget.used(request)`` when a budget counts it."""
    parts: list[ContextPart] = []
    tools = _tool_parts(request, specs)
    taught_in_prompt = sum(t for _, t, _ in tools) if not request.tools else 0
    instructions_tokens = _tokens(instructions) if instructions else 0
    system = max(
        0, _tokens(request.system) + MESSAGE_OVERHEAD - instructions_tokens - taught_in_prompt
    )
    parts.append(ContextPart("system prompt", system, "Frontier's: how to call tools"))
    if instructions_tokens:
        held = ", ".join([*files, "the environment's facts"])
        parts.append(ContextPart("instructions", instructions_tokens, held))
    for label, tokens, detail in tools:
        parts.append(ContextPart(label, tokens, detail))
    history, largest = _history_parts(request)
    parts.extend(history)
    if request.prefill:
        parts.append(
            ContextPart("reply being continued", _tokens(request.prefill) + MESSAGE_OVERHEAD)
        )
    estimated = sum(p.tokens for p in parts)
    used = budget.used(request) if budget is not None else estimate_tokens(request)
    scaled = tuple(_scaled(parts, used, estimated))
    factor = used / estimated if estimated > 0 else 1.0
    return ContextReport(
        parts=tuple(p for p in scaled if p.tokens > 0 or p.label == "system prompt"),
        used=used,
        window=budget.window if budget is not None else None,
        source=budget.source if budget is not None else "",
        threshold=budget.threshold if budget is not None else None,
        counted=budget.counted_prompt if budget is not None else None,
        largest=tuple(LargeResult(r.call_id, r.name, round(r.tokens * factor)) for r in largest),
    )


def _tokens(text: str) -> int:
    return int(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


def _tool_parts(request: ModelRequest, specs: Sequence[ToolSpec]) -> list[tuple[str, int, str]]:
    """``(label, tokens, detail)``: the built-in tools, then each MCP server's."""
    from frontier.app.agent.prompts import tool_list

    groups: dict[str, list[int]] = {}
    mcp = {spec.name for spec in specs if spec.source == "mcp"}
    if request.tools:  # a native mode: the schemas the request carries
        sized = [
            (t.name, len(json.dumps(tool_schema(t), ensure_ascii=False).encode("utf-8")))
            for t in request.tools
        ]
    else:  # a text protocol: each tool's text in the system prompt
        sized = [(spec.name, len(tool_list([spec]).encode("utf-8"))) for spec in specs]
    for name, size in sized:
        server = name.split(MCP_SEPARATOR, 1)[0] if name in mcp else ""
        groups.setdefault(server, []).append(int(size / BYTES_PER_TOKEN))
    where = "" if request.tools else ", described in the system prompt"
    out = []
    for server in sorted(groups, key=lambda s: (s != "", s)):
        sizes = groups[server]
        label = f"tools, MCP {server}" if server else "tools, built in"
        out.append((label, sum(sizes), f"{len(sizes)} tool{'s' * (len(sizes) != 1)}{where}"))
    return out


def _history_parts(request: ModelRequest) -> tuple[list[ContextPart], list[LargeResult]]:
    """The history by who wrote it, and its largest tool results."""
    tokens = dict.fromkeys(HISTORY_PARTS, 0)
    counts = dict.fromkeys((*HISTORY_PARTS, "calls"), 0)
    named: list[LargeResult] = []
    for item in request.items:
        size = int(item_bytes(item) / BYTES_PER_TOKEN) + MESSAGE_OVERHEAD
        if isinstance(item, UserText):
            pictures = int(item_bytes(UserText("", images=item.images)) / BYTES_PER_TOKEN)
            tokens["images"] += pictures
            counts["images"] += len(item.images)
            part = {"person": "person", "summary": "summary"}.get(item.origin, "runtime")
            tokens[part] += size - pictures
            counts[part] += 1
        elif isinstance(item, AssistantTurn):
            tokens["replies"] += size
            counts["replies"] += 1
            counts["calls"] += len(item.calls)
        elif isinstance(item, ToolResults):
            tokens["results"] += size
            counts["results"] += len(item.results)
            for entry in item.results:
                body = int(len(entry.body.encode("utf-8")) / BYTES_PER_TOKEN)
                named.append(LargeResult(entry.call_id, entry.name, body))
    calls = f", {_count(counts['calls'], 'call')}" if counts["calls"] else ""
    details = {
        "person": _count(counts["person"], "message"),
        "summary": _count(counts["summary"], "compaction"),
        "replies": _count(counts["replies"], "reply", "replies") + calls,
        "results": _count(counts["results"], "result"),
        "images": _count(counts["images"], "image"),
        "runtime": "repair requests, undo notices, late results",
    }
    parts = [
        ContextPart(label, tokens[part], details[part]) for part, label in HISTORY_PARTS.items()
    ]
    largest = sorted((r for r in named if r.tokens > 0), key=lambda r: -r.tokens)
    return parts, largest[:LARGEST_RESULTS]


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _scaled(parts: list[ContextPart], used: int, estimated: int) -> list[ContextPart]:
    """The parts scaled to add up to ``used`` (the rounding's rest given to the largest)."""
    if estimated <= 0:
        return parts
    scaled = [ContextPart(p.label, round(p.tokens * used / estimated), p.detail) for p in parts]
    rest = used - sum(p.tokens for p in scaled)
    if rest and scaled:
        i = max(range(len(scaled)), key=lambda k: scaled[k].tokens)
        p = scaled[i]
        scaled[i] = ContextPart(p.label, max(0, p.tokens + rest), p.detail)
    return scaled


__all__ = ["LARGEST_RESULTS", "ContextPart", "ContextReport", "LargeResult", "context_report"]
