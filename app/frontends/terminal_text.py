"""Text from the model, the workspace or a stored session made safe to show on a terminal.

The model's output, tool output, file contents, file and folder names and whatever a session
store holds are untrusted (people send each other sessions to debug). Printed raw, an escape
sequence could clear the screen, retitle the window, write the clipboard (OSC 52) or —
worst — hide what a command really does from the person approving it: ``rm -rf ~ #``
followed by ``\\r\\x1b[2K`` and ``ls`` shows only ``ls``. So one character class — every
control character but newline and tab, DEL, the C1 controls, the directional marks and the
bidirectional embeddings, overrides and isolates ("Trojan Source") — is never written raw.
Nor is a lone surrogate: Python reads undecodable bytes (a file name, stdin, ``os.listdir``)
as ``surrogateescape`` placeholders U+DC80–U+DCFF, and a stream whose errors handler is
``surrogateescape`` (stdout under the C locale) writes each back as the raw byte — ``\\x9b``
is a C1 CSI. Each is shown as the byte it stands for (``\\x9b``), any other lone surrogate
as ``\\ud800``:

- :func:`terminal_safe` shows each as a visible escape (``\\x1b``, ``\\r``, ``\\u202e``):
  every line the CLI prints, through :func:`safe_print`;
- :func:`json_safe` / :func:`dumps` write each as a JSON ``\\uXXXX`` escape, so a JSON line
  on a terminal is as harmless and still parses to exactly the same value;
- :func:`pictured` shows each as a one-cell control picture (``␛``, ``␍``) in a TUI pane.

The rule is applied where a string becomes display text, so a command calls
:func:`safe_print` (or :func:`dumps`) instead of ``print``/``json.dumps``; a test walks the
commands' sources and refuses a bare ``print`` (``tests/test_cli_hostile_sinks.py``).
"""

from __future__ import annotations

import re
import sys

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import TextIO

_CLASS = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
"""``UNSAFE``'s pattern: the one character class a terminal (or a bidi-aware viewer) acts
on: C0 but ``\\n`` and ``\\t``, DEL, C1, U+200E/F (LRM/RLM), U+202A–E (embeddings,
overrides), U+2066–9 (isolates), and lone surrogates (U+D800–U+DFFF: an undecodable byte,
or nothing a terminal can draw)."""
_unsafe: re.Pattern[str] | None = None

if TYPE_CHECKING:
    UNSAFE: re.Pattern[str]


def __getattr__(name: str) -> object:
    if name == "UNSAFE":
        return _pattern()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _pattern() -> re.Pattern[str]:
    """``UNSAFE``, compiled on first use: the class's ranges cost ~0.4 ms to compile, and
    most lines a command prints never need it (:func:`_plain`)."""
    global _unsafe
    if _unsafe is None:
        _unsafe = re.compile(_CLASS)
    return _unsafe


def _plain(text: str) -> bool:
    """True when ``text`` holds no character of the class, decided without the pattern:
    every character of the class is one ``str.isprintable`` refuses (Cc, Cf, Cs), so text
    that is printable once newlines and tabs are set aside has none. False says only
    "look": ``isprintable`` refuses more (U+00A0, U+2028), and the pattern decides."""
    return text.isprintable() or text.replace("\n", " ").replace("\t", " ").isprintable()


_NAMED = {"\r": "\\r", "\x1b": "\\x1b", "\x00": "\\0"}


def escaped(code: int) -> str:
    """The visible escape of one character of the class (past the pictures): ``\\x9b`` for
    a C1 control and for the surrogateescape placeholder of byte 0x9b (U+DC9B) alike."""
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    return escaped(ord(char))


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on shown instead (linear)."""
    return text if _plain(text) else _pattern().sub(_visible, text)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_safe(text: str) -> str:
    """JSON text with every character of the class written as a ``\\uXXXX`` escape.

    ``json.dumps(..., ensure_ascii=False)`` escapes C0 but writes DEL, C1 and the bidi
    controls raw, and JSON lines are read on terminals too. Outside strings JSON has only
    ASCII punctuation, so each such character is inside a string, where its escape means
    the same character: the result parses to exactly the value ``text`` does."""
    return text if _plain(text) else _pattern().sub(_json_escape, text)


def dumps(value: object, *, indent: int | None = None) -> str:
    """``json.dumps(value, ensure_ascii=False)`` (readable UTF-8), made :func:`json_safe`:
    what every JSON output of the CLI is written with. To a standard output that is not
    UTF-8 (``PYTHONIOENCODING=ascii``) every other character is escaped (``\\u00b7``):
    written as text there, it became ``?`` and the JSON lost it."""
    import json  # here: most commands print no JSON, and json is a start-up cost

    from frontier.app.std_streams import is_utf8

    encoding = sys.stdout.encoding if sys.stdout is not None else None
    wide = encoding is None or is_utf8(encoding)  # None: a StringIO, which holds any text
    return json_safe(json.dumps(value, ensure_ascii=not wide, indent=indent))


def safe_print(
    *values: object,
    sep: str = " ",
    end: str = "\n",
    file: TextIO | None = None,
    flush: bool = False,
) -> None:
    """``print`` for the CLI: the whole text made :func:`terminal_safe` as it is written.

    Applied to the line as it leaves, not to each value that went into it, so a message
    that quotes an exception, a file name or a server's words is covered without its
    author having to know which part came from where; Frontier's own text never holds a
    character of the class, and the escapes are plain text (``terminal_safe`` of its own
    output changes nothing), so a line made safe earlier is written unchanged."""
    stream = sys.stdout if file is None else file
    if stream is None:  # as print: no stdout (pythonw, a closed descriptor)
        return
    stream.write(terminal_safe(sep.join(str(v) for v in values) + end))
    if flush:
        stream.flush()


def _pictured(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␛ ␍ ␇: the control pictures the Raw pane uses too
    if code == 0x7F:
        return "\u2421"  # ␡
    return escaped(code)


def pictured(text: str) -> str:
    """``text`` for a TUI pane: the same characters as :func:`terminal_safe`, shown as
    Unicode control pictures (one cell each) where there is one, else as escapes."""
    return text if _plain(text) else _pattern().sub(_pictured, text)
