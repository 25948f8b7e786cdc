"""What a tool implementation is, as the boundary drives it.

A tool turns validated arguments into a ``Prepared`` value (for mutations:
the exact bytes it will write, shown to the approver as a ``Preview``), then
``execute`` carries that out. Splitting the two is what binds an approval to
content: the write uses the previewed plan and re-checks the file hashes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from frontier.app.events import ResultKind, ToolCall
from frontier.app.record import field, record
from frontier.tools.contract import Preview, ToolContext, ToolSpec

if TYPE_CHECKING:
    from frontier.app.image import Image


class ToolError(Exception):
    """A failure the model can act on; becomes a result of ``kind`` with this message."""

    def __init__(self, message: str, kind: ResultKind = "error") -> None:
        super().__init__(message)
        self.kind: ResultKind = kind


@record
class Prepared:
    args: Mapping[str, Any]
    """What ``execute`` gets: the coerced arguments ``prepare`` received, with any
    normalisation the tool applied (glob trims its pattern)."""
    preview: Preview = field(default_factory=lambda: Preview(kind="none"))
    needs_approval: bool = False
    plan: Any = None
    """Tool-private plan computed at prepare time (e.g. the file changes to write)."""
    declined: tuple[tuple[str, int], ...] = ()
    """``(path, hunk index)`` left out in the review (hunk-level accept): ``plan`` and
    ``preview`` are already narrowed to the rest."""
    declined_note: str = ""
    """What the model is told about the declined hunks (appended to the result)."""
    edited: tuple[str, ...] = ()
    """The files the person rewrote in the review: ``plan`` and ``preview`` hold their
    versions (``tools/review_edit.py``)."""
    edited_note: str = ""
    """What the model is told about those edits (appended to the result)."""
    formatted: tuple[str, ...] = ()
    """The files the person's formatters rewrote before the review (``tools/formatting.py``):
    ``plan`` and ``preview`` hold the formatted versions."""
    formatted_note: str = ""
    """What the model is told of that (appended to the result)."""
    formatted_by: tuple[str, ...] = ()
    """The formatters that changed them, by name (the Transcript's line names them)."""
    format_failed: tuple[str, ...] = ()
    """``NAME on PATH: why`` per formatter that could not format a file (it stays the
    model's)."""
    format_left: tuple[str, ...] = ()
    """``NAME on PATH: why`` per formatter that left a file as sent on purpose (it was not
    formatted before the edit: ``tools/formatting.py``)."""


@record
class Outcome:
    kind: ResultKind
    output: str
    exit_code: int | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    images: tuple[Image, ...] = field(default=(), repr=False)
    """Images for the model to see (``read`` of a picture): shown after the results."""
    kept: Mapping[str, bytes] = field(default_factory=dict, repr=False)
    """sha256 → bytes: earlier content of files the tool found it changed only as it ran (a
    command's: ``tools/command_changes.py``), for the store to keep for undo before the
    result commits (``ToolBoundary``; an edit's pre-images go with its call row instead)."""


class CancelToken:
    """Set by ``ToolBoundary.cancel_running`` (Esc); exec tools kill their process group."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    def cancel(self) -> None:
        self.event.set()

    @property
    def cancelled(self) -> bool:
        return self.event.is_set()


class Tool(Protocol):
    spec: ToolSpec
    bytes_args: frozenset[str]
    """String parameters that also accept raw ``bytes`` (non-UTF-8 CTL bodies)."""

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared: ...

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome: ...
