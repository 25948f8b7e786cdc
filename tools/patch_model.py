"""The one patch model: files → hunks → lines, shared by both dialects and every consumer.

A unified diff and OpenAI Codex's ``*** Begin Patch`` envelope both parse into
these values (``patch_parse.parse_patch`` detects which), and the planner, the
writer, the preview and the review all work from them, so no consumer ever
reads patch text again.

Values are ``NamedTuple``s (``app/record.py``'s, which import no ``typing``):
``frontier apply-patch`` must start fast.
"""

from __future__ import annotations

from frontier.app.vocab import PATCH_FORMATS

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import NamedTuple

    from frontier.app.vocab import Dialect
else:
    from frontier.app.record import NamedTuple

__all__ = ["PATCH_FORMATS", "Dialect"]  # re-exported: the tools' own name for them


def __getattr__(name: str) -> object:
    """``Dialect`` (a ``Literal``) from ``vocab``, which builds it on first use."""
    if name == "Dialect":
        from frontier.app import vocab

        return vocab.Dialect
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


NO_NEWLINE_MARKER = "\\ No newline at end of file"
"""The line a unified diff puts after a last line that has no newline: read by the parser,
written by the preview and drawn by the review widget (one spelling for all three)."""


class PatchParseError(ValueError):
    """The text is not a patch we can read; the message says where (patch line) and why."""


def split_patch_lines(text: str) -> list[str]:
    """The patch's lines without line endings (a CRLF patch's ``\\r`` dropped too)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    return lines


class Hunk(NamedTuple):
    """One hunk (a Codex chunk) as parallel columns, one entry per body line, so the
    engine compares and splices whole runs of lines with slices."""

    index: int  # type: ignore[assignment]  # a field, shadowing tuple.index (unused here)
    """1-based position in its file entry."""
    tags: str
    """One character per body line: ``" "`` context, ``"-"`` removed, ``"+"`` added."""
    texts: tuple[str, ...]
    """Each line's content without its line ending."""
    eols: tuple[str, ...]
    """``"\\n"``, or ``""`` for a line marked ``\\ No newline at end of file``."""
    header: str
    """The header as the patch wrote it (``@@ -3,4 +3,5 @@``, ``@@ def f():``, ``@@``)."""
    old_start: int | None = None
    """The header's 1-based old line number: only a hint. ``None``: the header has none."""
    old_count: int | None = None
    new_start: int | None = None
    new_count: int | None = None
    anchors: tuple[str, ...] = ()
    """Lines to find, in order, before the hunk's own lines (Codex ``@@ def f():``, or a
    unified ``@@ text`` header without numbers)."""
    at_eof: bool = False
    """Codex ``*** End of File``: the old lines end the file."""
    line_no: int = 0
    """1-based line of the patch text where the hunk starts, for messages."""

    @property
    def old(self) -> list[str]:
        """The lines the hunk expects in the file (context and removed), in order."""
        return [t for g, t in zip(self.tags, self.texts, strict=True) if g != "+"]

    @property
    def new(self) -> list[str]:
        """The lines the hunk leaves in the file (context and added), in order."""
        return [t for g, t in zip(self.tags, self.texts, strict=True) if g != "-"]

    @property
    def added(self) -> int:
        return self.tags.count("+")

    @property
    def removed(self) -> int:
        return self.tags.count("-")

    @property
    def first_line(self) -> str:
        """The line that names the hunk in messages: its first context or removed line."""
        for tag, text in zip(self.tags, self.texts, strict=True):
            if tag != "+":
                return text
        return self.texts[0] if self.texts else ""


class FilePatch(NamedTuple):
    old_path: str | None
    """Workspace-relative source path; ``None`` when the entry creates the file."""
    new_path: str | None
    """Workspace-relative target path; ``None`` when the entry deletes the file."""
    hunks: tuple[Hunk, ...]
    dialect: Dialect = "unified"
    old_mode: int | None = None
    new_mode: int | None = None
    source_epoch: bool = False
    """The ``---`` side carries ``diff -N``'s epoch timestamp (a possible creation)."""
    target_epoch: bool = False
    rename: bool = False
    copy: bool = False
    binary: bool = False
    special_mode: str | None = None
    """A git mode we refuse to apply (symlink ``120000``, submodule ``160000``)."""
    line_no: int = 0
    """1-based line of the patch text where the entry starts."""

    @property
    def name(self) -> str:
        return self.new_path or self.old_path or "?"


class Patch(NamedTuple):
    dialect: Dialect
    files: tuple[FilePatch, ...]
    unwrapped: tuple[str, ...] = ()
    """What was peeled off the text before parsing (a ```` ```diff ```` fence, a heredoc)."""
