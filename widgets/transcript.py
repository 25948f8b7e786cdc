"""The Transcript pane: user messages, confirmed assistant prose, calls and notes.

One ``Static`` per entry (at most ``MAX_TRANSCRIPT``; the oldest are removed),
updated only when its entry's version or its call's state changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from frontier.widgets.state import ToolRow, TranscriptEntry
from frontier.widgets.tools_pane import elapsed_of, state_label

_ROLE = {"you": ("you ", "bold reverse"), "ai": ("ai  ", "bold"), "note": ("·   ", "dim")}


def render_entry(entry: TranscriptEntry, tool: ToolRow | None, now: float) -> Text:
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
        return text
    if entry.role == "error":
        return Text.assemble(("err ", "bold reverse"), " ", (entry.text, "bold"))
    label, style = _ROLE.get(entry.role, ("    ", ""))
    body = Text(entry.text, style="dim italic" if entry.role == "note" else "")
    return Text.assemble((label, style), " ", body)


SHOWN = 120
"""Entries rendered (the newest); older ones stay in ``UiState`` until its cap drops them."""


class Transcript(VerticalScroll):
    """One ``Static`` holding the newest entries: a single widget to lay out per flush,
    so hundreds of calls in a fast replay never trigger a mount/remove storm."""

    DEFAULT_CSS = """
    Transcript { background: $surface; }
    Transcript > #transcript-body { width: 1fr; }
    """

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock
        self._cache: dict[int, tuple[object, Text]] = {}
        self._body = Static(
            Text(
                "Type a message below and press Enter. Calls appear here as soon as the "
                "model's bytes prove them complete.",
                style="dim",
            ),
            id="transcript-body",
        )
        self._shown: tuple[object, ...] = ()

    def compose(self):  # type: ignore[no-untyped-def]
        yield self._body

    def show(self, entries: Sequence[TranscriptEntry], tools: Mapping[str, ToolRow]) -> None:
        now = self._clock()
        recent = list(entries)[-SHOWN:]
        cache: dict[int, tuple[object, Text]] = {}
        parts: list[Text] = []
        stamps: list[object] = []
        for entry in recent:
            tool = tools.get(entry.call_id) if entry.call_id else None
            stamp: object = (
                entry.version,
                None if tool is None else (tool.state, tool.exit_code, tool.elapsed),
            )
            known = self._cache.get(entry.id)
            text = known[1] if known is not None and known[0] == stamp else None
            if text is None:
                text = render_entry(entry, tool, now)
            cache[entry.id] = (stamp, text)
            if entry.role == "you" and parts:
                parts.append(Text(""))
            parts.append(text)
            stamps.append((entry.id, stamp))
        self._cache = cache
        shown = tuple(stamps)
        if not recent or shown == self._shown:
            return
        self._shown = shown
        self._body.update(Text("\n").join(parts))
        self.scroll_end(animate=False)
