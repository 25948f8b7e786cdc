"""What a command printed, as the terminal it thinks it has would have shown it.

A command's output reaches the model as text, and some of it was written for a screen:
colours (``git`` with ``color.ui = always``, ``FORCE_COLOR``, ``pytest --color=yes``), a
window title, and progress lines redrawn in place with a carriage return (``curl``'s meter
and ``wget``'s on stderr, which the shell tool merges). The model was sent every escape
sequence and every redraw: tokens that say nothing, between the lines that matter. Here
escape sequences are dropped and a line redrawn with ``\\r`` keeps what was drawn last (its
last non-empty piece); a ``\\r\\n`` line end is a line end. Applied to the result the model
reads (after the cap); the TUI's live view shows every byte, escaped. Linear in the text:
one pass of one pattern, then one over the lines.

Kept as written: everything else a command prints, so a file with old Mac line ends
(``\\r`` alone) printed by ``cat`` shows its last line only; ``cat -v`` or ``od -c`` show
its bytes.
"""

from __future__ import annotations

import re

_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erasing
    r"|\x1b[\]P^_X][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC, DCS, PM, APC, SOS: to BEL or ST
    r"|\x1b[()*+#%][ -~]"  # character sets and line attributes
    r"|\x1b[ -~]"  # two-character escapes (keypad modes, save and restore)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # CSI in its one-character (C1) form
    r"|\x1b$"
)


def terminal_text(text: str) -> str:
    """``text`` without escape sequences, each line redrawn with ``\\r`` as drawn last."""
    if "\x1b" in text:
        text = _ESCAPES.sub("", text)
    if "\r" not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if "\r" in line:
            line = line[:-1] if line.endswith("\r") else line
            pieces = [p for p in line.split("\r") if p]
            lines[i] = pieces[-1] if pieces else ""
    return "\n".join(lines)


__all__ = ["terminal_text"]
