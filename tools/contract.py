"""The contract between the agent loop and the tools (DESIGN §5).

Declarations, previews, approvals and the persistence interface are plain
values and Protocols here so the loop, the session store and the TUI can meet
without importing each other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from frontier.app.events import ToolCall, ToolResult


@dataclass(frozen=True)
class ToolSpec:
    """One tool's declaration; the registry generates prompts and schemas from it."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    """JSON schema (``{"type": "object", "properties": ..., "required": [...]}``)."""
    sequential: bool = False
    """Must run alone (not concurrently with other calls of a batch)."""
    mutates: bool = False
    """Changes files or the world: needs the gate (approval) and pre/post hashes."""
    timeout: float = 60.0
    terminates: bool = False
    """A successful call ends the batch."""
    kind: Literal["read", "edit", "exec"] = "read"
    """Policy class: ``edit`` = file mutation (diff review), ``exec`` = shell/python."""


@dataclass(frozen=True)
class FilePreview:
    """One file as a mutation would change it; what the review widget shows."""

    path: str
    """Workspace-relative path (POSIX separators)."""
    old_text: str | None
    """``None`` when the file does not exist yet."""
    new_text: str | None
    """``None`` when the mutation deletes the file."""
    diff: str
    """Unified diff (``--- a/path`` / ``+++ b/path``)."""
    old_hash: str | None
    """sha256 hex of the file bytes as previewed (``None`` = absent)."""
    new_hash: str | None
    """sha256 hex of the bytes that will be written (``None`` = deleted)."""
    added: int = 0
    removed: int = 0
    hunks: tuple[str, ...] = ()
    """Each hunk's text (``@@`` line included), for per-hunk navigation."""


@dataclass(frozen=True)
class Preview:
    """What the approver is shown: file diffs for mutations, the command for exec."""

    kind: Literal["diff", "command", "none"]
    files: tuple[FilePreview, ...] = ()
    command: str | None = None
    summary: str = ""


@dataclass(frozen=True)
class Decision:
    approved: bool
    reason: str = ""
    by: str = "the user"
    """Who decided, for the message the model reads (``the user``, ``policy read-only``)."""


class Approver(Protocol):
    """Asked before every mutation and exec call (the TUI, a tty prompt, a policy)."""

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision: ...


class Persistence(Protocol):
    """The session store as the tool boundary sees it (DESIGN §7).

    Each method raises on failure; the boundary turns that into a
    ``session_persistence_failed`` result and ends the turn.
    """

    def persist_call(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        """Commit the call row (with pre/post hashes of target files) before any side effect."""
        ...

    def mark_started(self, call_id: str) -> None:
        """Commit that execution is about to begin (distinguishes interrupted from not_executed)."""
        ...

    def commit_result(self, result: ToolResult) -> None:
        """Commit the result row before the model can see it."""
        ...

    # Optional: ``persist_and_start(call, spec, preview)`` commits the call row and its
    # start in one transaction; the boundary uses it when execution follows at once.


OutputSink = Callable[[str, str], None]
"""``sink(call_id, text)``: live output of a running tool, for observers."""

BeforeHook = Callable[[ToolCall, ToolSpec], Awaitable[Decision | None]]
AfterHook = Callable[[ToolCall, ToolResult], Awaitable[ToolResult | None]]


@dataclass(frozen=True)
class ToolContext:
    """Everything a tool may use: the workspace root and live-output sink."""

    root: str
    output: OutputSink | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    """Extra environment for child processes (API keys are never passed)."""
