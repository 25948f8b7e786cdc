"""Bracketed pastes taken out of the terminal's input before Textual's parser reads it.

Why: Textual's ``XTermParser`` reads its input a character at a time through a
generator (``Parser.feed`` sends each one), a paste included: a 1.4 MB log took 1.3 s
of the input thread before the message box had it (``bench/prompt_paste.py``, "paste
s"). A bracketed paste needs no parsing: everything between ``ESC [200~`` and
``ESC [201~`` is the pasted text, by the terminal's contract. :class:`PasteSplitter`
finds those markers with ``str.find`` (split across reads too) and gives the text
between them whole; everything else goes to Textual's parser as before, unchanged.

The paste becomes the ``events.Paste`` Textual's parser would post (NUL characters
removed, as it removes them). One difference, deliberate: inside a paste an escape
sequence is text, where Textual's parser also reacted to some (two ESCs posted an
Escape key, a focus report posted a focus event while pasting).

Bytes at the end of a read that may begin a paste marker (``ESC [`` … ``ESC [200``) are
held until the next read says what they are; a read that never comes releases them to
the parser at the input thread's next idle poll (``flush``), so an incomplete escape
sequence reaches it at most one poll (0.1 s) later. A lone ESC is never held: the
Escape key keeps Textual's own timing.
"""

from __future__ import annotations

START = "\x1b[200~"
"""What a terminal sends before a bracketed paste."""
END = "\x1b[201~"
"""What it sends after one."""


def _partial(data: str, marker: str, least: int) -> int:
    """The length of the longest end of ``data`` that begins ``marker`` without being
    all of it (0 when shorter than ``least``)."""
    for size in range(min(len(marker) - 1, len(data)), least - 1, -1):
        if data.endswith(marker[:size]):
            return size
    return 0


class PasteSplitter:
    """The terminal's input, read by read: ``(False, text)`` for the parser, ``(True,
    text)`` for a whole bracketed paste (see the module docstring)."""

    def __init__(self) -> None:
        self._held = ""
        """The end of the last read that may begin a marker."""
        self._paste: list[str] | None = None
        """The pieces of the paste being read (``None``: not in a paste)."""

    @property
    def pasting(self) -> bool:
        """A paste has begun and its end has not come yet."""
        return self._paste is not None

    def feed(self, text: str) -> list[tuple[bool, str]]:
        """One read of the terminal, split (in order) into the parser's input and pastes."""
        out: list[tuple[bool, str]] = []
        data, self._held = self._held + text, ""
        while data:
            paste = self._paste
            if paste is None:
                at = data.find(START)
                if at < 0:
                    keep = _partial(data, START, 2)  # a lone ESC is the Escape key's
                    if len(data) > keep:
                        out.append((False, data[: len(data) - keep]))
                    self._held = data[len(data) - keep :]
                    break
                if at:
                    out.append((False, data[:at]))
                self._paste = []
                data = data[at + len(START) :]
            else:
                at = data.find(END)
                if at < 0:
                    keep = _partial(data, END, 1)
                    paste.append(data[: len(data) - keep])
                    self._held = data[len(data) - keep :]
                    break
                paste.append(data[:at])
                out.append((True, "".join(paste).replace("\x00", "")))
                self._paste = None
                data = data[at + len(END) :]
        return out

    def flush(self) -> str:
        """The held bytes, for the parser, when no read came to finish them (not inside
        a paste, whose end always comes: held there, they may be its marker)."""
        if self._paste is not None:
            return ""
        held, self._held = self._held, ""
        return held
