"""The Transcript pane: user messages, confirmed assistant prose, calls and notes.

A ``BlockView`` (line API): one block per entry, keyed by entry id, version and
its call's state, so a flush measures only new entries and the pane wraps only
the lines that are visible. Growing never lays out the screen, so a replay with
thousands of calls costs a few look-ups per flush instead of re-wrapping the
whole transcript.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rich.text import Text

from frontier.widgets.block_view import Block, BlockView
from frontier.widgets.state import ToolRow, TranscriptEntry
from frontier.widgets.tools_pane import elapsed_of, state_label

_ROLE = {"you": ("you ", "bold reverse"), "ai": ("ai  ", "bold"), "note": ("·   ", "dim")}
_JOIN = Text("\n")
"""Entries render as if joined by this (its wrap/overflow settings apply to every entry)."""
PLACEHOLDER = Text(
    "Type a message below and press Enter. Calls appear here as soon as the "
    "model's bytes prove them complete.",
    style="dim",
)


THINKING_FOLDED = 3
"""Lines of a reasoning block shown while it is folded (ctrl+t shows it whole)."""


def render_thinking(entry: TranscriptEntry, expanded: bool) -> Text:
    """The model's reasoning: dimmed, and folded to its last lines unless expanded."""
    lines = entry.text.strip("\n").split("\n")
    shown = lines if expanded else lines[-THINKING_FOLDED:]
    head = Text.assemble(("think", "dim reverse"), " ")
    hidden = len(lines) - len(shown)
    lines_word = "line" if hidden == 1 else "lines"
    fold = "ctrl+t folds" if expanded else f"{hidden} more {lines_word} · ctrl+t shows all"
    if hidden or expanded:
        head.append(f"({len(entry.text):,} chars · {fold})\n", style="dim")
    head.append("\n".join(shown), style="dim italic")
    return head


def render_entry(
    entry: TranscriptEntry, tool: ToolRow | None, now: float, *, expanded: bool = False
) -> Text:
    if entry.role == "thinking":
        return render_thinking(entry, expanded)
    if entry.role == "call":
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("▸ ", style="bold")
        if tool is None:
            text.append(entry.call_id or "?")
            return text
        text.append(f"{tool.call.id} ", style="dim")
        text.append(f"{tool.call.name} ", style="bold")
        text.append(f"{tool.summary}  ")
        failed = tool.state not in ("ok", "applied", "running", "ready", "review")
        text.append(state_label(tool), style="bold underline" if failed else "italic")
        elapsed = elapsed_of(tool, now)
        if elapsed is not None and not tool.running:
            text.append(f"  {elapsed:.2f}s", style="dim")
        for line in tool.changes:  # a finished mutation's files, one per line
            text.append(f"\n    {line}", style="dim")
        return text
    if entry.role == "error":
        return Text.assemble(("err ", "bold reverse"), " ", (entry.text, "bold"))
    label, style = _ROLE.get(entry.role, ("    ", ""))
    body = Text(entry.text, style="dim italic" if entry.role == "note" else "")
    return Text.assemble((label, style), " ", body)


SHOWN = 120
"""Entries rendered (the newest); older ones stay in ``UiState`` until its cap drops them."""


class Transcript(BlockView):
    """The newest ``SHOWN`` entries, one block each; re-rendered only when an entry's
    version or its call's state changes."""

    DEFAULT_CSS = """
    Transcript { background: $surface; }
    """

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock
        self.set_blocks([(("placeholder",), PLACEHOLDER)])

    def show(
        self,
        entries: Sequence[TranscriptEntry],
        tools: Mapping[str, ToolRow],
        *,
        thinking_expanded: bool = False,
    ) -> None:
        now = self._clock()
        known = dict(self._blocks)
        blocks: list[Block] = []
        for entry in list(entries)[-SHOWN:]:
            tool = tools.get(entry.call_id) if entry.call_id else None
            key = (
                entry.id,
                entry.version,
                None if tool is None else (tool.state, tool.exit_code, tool.elapsed),
            )
            if entry.role == "you" and blocks:
                blocks.append((("gap", entry.id), Text("")))
            text = known.get(key)
            if text is None:
                # rendered as one ``Static`` joining entries by newlines would show it
                text = _JOIN.join([render_entry(entry, tool, now, expanded=thinking_expanded)])
            blocks.append((key, text))
        if blocks:
            self.set_blocks(blocks)
