"""Text from the model or the workspace made safe to print on a terminal.

The model's output, tool output and file contents are untrusted. Printed raw, an escape
sequence could clear the screen, retitle the window, write the clipboard (OSC 52) or —
worst — hide what a command really does from the person approving it: ``rm -rf ~ #``
followed by ``\\r\\x1b[2K`` and ``ls`` shows only ``ls``. So every control character but
newline and tab, DEL, the C1 controls and the bidirectional overrides ("Trojan Source")
are printed as visible escapes (``\\x1b``, ``\\r``, ``\\u202e``) instead of being obeyed.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\r": "\\r", "\x1b": "\\x1b", "\x00": "\\0"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on shown instead (linear)."""
    return _UNSAFE.sub(_visible, text)


def _pictured(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␛ ␍ ␇: the control pictures the Raw pane uses too
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def pictured(text: str) -> str:
    """``text`` for a TUI pane: the same characters as :func:`terminal_safe`, shown as
    Unicode control pictures (one cell each) where there is one, else as escapes."""
    return _UNSAFE.sub(_pictured, text)
