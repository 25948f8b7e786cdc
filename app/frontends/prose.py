"""Live prose: which assistant text a front end shows as it arrives, and what is new in
the loop's later report of it — so nothing is shown late and nothing twice.

The agent loop reports prose (``AssistantText``) only when a call starts and when the
response ends, which is what a finished reply needs but far too late for a person
watching a 30-second answer. The prose itself is in the stream before that: every
protocol's transducer passes it through as ``Confirmed(kind="text")`` bytes (for the
native protocols, the model's content deltas; for the text protocols, what lies outside
a call frame). So a front end streams those bytes, decoded incrementally exactly as the
loop decodes them, and matches each report against what it has shown already: the
report's extra tail (a character the loop's decoder flushed at the end) is shown, the
rest is not. A report with nothing streamed before it (replay, a test loop that
reports pieces directly) is shown whole.

Only confirmed bytes ever become prose: the pending tail may still turn out to be a
frame. The TUI's Transcript (``widgets/pane_state/transcript.py``) and headless
(``app/frontends/headless.py``) both use this one. Pure: no I/O, no Textual.
"""

from __future__ import annotations

import codecs


class LiveProse:
    """Follow one session's events; each method returns the prose to show now."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._streamed: list[str] = []
        """Shown, not yet covered by an ``AssistantText``."""
        self._expected: str | None = None
        """The stretch the loop reports right after a ``CallStarted`` (already shown)."""

    def reset(self) -> None:
        """A response started or a turn ended: nothing shown is awaiting its report."""
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._streamed.clear()
        self._expected = None

    def confirmed(self, data: bytes) -> str:
        """``Confirmed(kind="text")`` bytes: their text, to show at once."""
        piece = self._decoder.decode(data)
        if piece:
            self._streamed.append(piece)
        return piece

    def call_started(self) -> None:
        """A call's header was confirmed: the loop reports the prose before it next
        (when it is more than whitespace), and that prose is shown already."""
        stretch = "".join(self._streamed)
        self._streamed.clear()
        self._expected = stretch if stretch.strip() else None

    def reported(self, text: str) -> str:
        """An ``AssistantText``: the part of it not shown yet (often ``""``)."""
        if self._expected is not None:
            shown, self._expected = self._expected, None
        elif self._streamed:
            shown = "".join(self._streamed)
            self._streamed.clear()
        else:
            return text  # nothing streamed (history, replay, another source)
        if text.startswith(shown):
            return text[len(shown) :]  # the loop's decoder flushed a cut-off character
        if shown.startswith(text):
            self._streamed.insert(0, shown[len(text) :])
            return ""
        return text
