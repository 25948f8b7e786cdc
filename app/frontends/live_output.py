"""A running command's output as ``frontier run``'s text form prints it.

Whole lines: a piece of output ends anywhere (every 64 KiB of a long output), and printed
as it came, one line of the command's became two; the unfinished last line is held until
its end comes, the call ends, or it passes ``OPEN_LINE_HELD`` characters.

On a terminal, only what the model's copy keeps (``tools/output_cap.py``: the first 60 %
and the last 40 % of ``TOOL_OUT_CAP``): the first lines as they come, then, when the
command ends, a line saying how much was not printed and the last lines. ``seq 1
3000000`` printed whole to a terminal took 2.5 s where the command takes 0.03 s (tmux: the
terminal's drawing held the pipe), and pushed the conversation out of the scrollback for
3,000,000 lines nobody reads. A file or a pipe gets every line; ``--json`` every piece.
"""

from __future__ import annotations

from frontier.app.record import record
from frontier.tools.output_cap import HEAD_SHARE, TOOL_OUT_CAP

OPEN_LINE_HELD = 65_536
"""Characters of a command's unfinished output line held for its end; past it, what is
held is printed as a line of its own."""
TERMINAL_HEAD = int(TOOL_OUT_CAP * HEAD_SHARE)
"""Characters of a call's first lines printed to a terminal as they come."""
TERMINAL_TAIL = TOOL_OUT_CAP - TERMINAL_HEAD
"""Characters of a call's last lines printed to a terminal when it ends."""


@record(frozen=False)
class LiveOutput:
    """One running call's output: ``feed`` and ``end`` give the texts to print, each one or
    more whole lines (without the last line end)."""

    bounded: bool
    """A terminal: the first ``TERMINAL_HEAD`` and the last ``TERMINAL_TAIL`` characters."""
    held: str = ""
    """The unfinished last line."""
    head_left: int = TERMINAL_HEAD
    tail: str = ""
    """Past the head (bounded): the newest lines, at least ``TERMINAL_TAIL`` characters."""
    after_head: int = 0
    """Characters of lines past the head (bounded), newlines included."""

    def feed(self, data: str) -> list[str]:
        text = self.held + data
        end = text.rfind("\n")
        if end < 0 and len(text) <= OPEN_LINE_HELD:
            self.held = text
            return []
        if end < 0:
            end = len(text)
        self.held = text[end + 1 :]
        return self._take(text[:end])

    def end(self) -> list[str]:
        """The call is over: its held line, then (bounded) what was not printed and the
        last lines."""
        out = self._take(self.held) if self.held else []
        self.held = ""
        if not self.after_head:
            return out
        tail = self.tail
        if len(tail) > TERMINAL_TAIL:
            cut = tail.find("\n", len(tail) - TERMINAL_TAIL - 1)
            tail = tail[cut + 1 :] if cut >= 0 else tail
        omitted = self.after_head - len(tail) - 1
        if omitted > 0:
            out.append(f"… {omitted:,} characters not printed here, as in the model's copy")
        out.append(tail)
        return out

    def _take(self, lines: str) -> list[str]:
        """What of ``lines`` (whole lines, without the last line end) to print now."""
        if not self.bounded:
            return [lines]
        if self.head_left > 0:
            if len(lines) < self.head_left:
                self.head_left -= len(lines) + 1
                return [lines]
            cut = lines.rfind("\n", 0, self.head_left)
            shown, lines = (lines[:cut], lines[cut + 1 :]) if cut >= 0 else ("", lines)
            self.head_left = 0
            self._keep(lines)
            return [shown] if shown else []
        self._keep(lines)
        return []

    def _keep(self, lines: str) -> None:
        self.after_head += len(lines) + 1
        tail = f"{self.tail}\n{lines}" if self.tail else lines
        self.tail = tail[-4 * TERMINAL_TAIL :] if len(tail) > 8 * TERMINAL_TAIL else tail
