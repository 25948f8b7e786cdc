"""The Pending pane: bytes that may still change meaning, and how close to the bound."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from frontier.widgets.display import display_preview

SHOW_BYTES = 240

_VISIBLE = {0x20: "·", 0x0A: "⏎", 0x09: "→", 0x0D: "␍"}
_VISIBLE.update({c: chr(0x2400 + c) for c in range(0x20) if c not in _VISIBLE})
_VISIBLE[0x7F] = "␡"


def visible(data: bytes) -> str:
    """Pending bytes with whitespace and non-printables made visible (C1 controls and
    bidi overrides as escapes: ``display.display_preview``)."""
    return display_preview(data.decode("utf-8", "replace").translate(_VISIBLE))


def meter(n: int, bound: int, width: int = 16) -> str:
    if bound <= 0:
        return "▕" + "░" * width + "▏"
    filled = min(width, round(width * n / bound)) if n else 0
    return "▕" + "█" * filled + "░" * (width - filled) + "▏"


UNBOUNDED = {
    "native-inc": "native tool calls have no structural bound: a call stays pending until "
    "its index is complete (the next index or the finish) and its JSON parses",
    "native-eos": "native-eos has no bound: every call stays pending until the stream ends",
    "xml": "xml has no bound: every call stays pending until the stream ends",
    "json-whole": "json-whole has no bound: everything stays pending until the stream ends",
    "json-object": "json-object: an object stays pending until its closing brace parses",
}
"""Non-CTL framings: the bound the transducer reports is everything received so far."""


def hint(n: int, bound: int, protocol: str | None = None) -> str:
    """What the pending bytes are waiting for, from the protocol and the bound."""
    if protocol in UNBOUNDED:
        return UNBOUNDED[protocol] if n else f"nothing pending · {UNBOUNDED[protocol]}"
    if n == 0:
        return "nothing pending: every byte so far is confirmed"
    if bound <= 0:
        return "length-prefixed body: each byte confirms on arrival"
    if bound <= 33:
        return "heredoc body: may still become the TAG line"
    return "may still change meaning: waits for its line's proof"


def render_pending(
    data: bytes, bound: int, protocol: str | None = None, size: int | None = None
) -> Text:
    """``data``: the pending bytes, or just their tail when ``size`` gives the total."""
    n = len(data) if size is None else size
    text = Text()
    shown = data[-SHOW_BYTES:]
    if n > SHOW_BYTES:
        text.append("…", style="dim")
    text.append(visible(shown), style="italic underline")
    text.append("\n")
    text.append(meter(n, bound), style="bold")
    text.append(f" pending {n:,} / bound {bound:,}\n", style="bold")
    text.append(hint(n, bound, protocol), style="dim italic")
    return text


class PendingView(Static):
    DEFAULT_CSS = """
    PendingView { color: $warning; background: $surface; height: 1fr; }
    """

    def show(
        self, data: bytes, bound: int, protocol: str | None = None, size: int | None = None
    ) -> None:
        self.update(render_pending(data, bound, protocol, size), layout=False)
