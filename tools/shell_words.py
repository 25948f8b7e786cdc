"""The words bash makes of a plain command line, and which of them it would glob.

A shell call read as a file tool's (``tools/sed_via_shell.py``) must be read as bash reads
it, or the tool would edit other files than the command names. This reads only lines
where that is certain: quotes, backslashes and blanks as bash treats them, and a word
holding an unquoted ``*`` or ``?`` given with its glob pattern (the quoted parts escaped),
for the caller to expand as bash would (``glob``: no hidden names, none matched is none).
Anything else bash would expand or act on — ``$``, a backquote, ``[``, a brace, ``~``,
``;``, ``&``, ``|``, a redirection, a parenthesis, a comment, a line end — makes the line
not plain (``None``), whatever its quoting in double quotes for ``$`` and backquotes.
"""

from __future__ import annotations

from glob import escape

from frontier.app.record import record

_STOPS = frozenset(";&|<>()$`[{~\n")


@record
class Word:
    text: str
    """The word as the command receives it (quotes removed)."""
    pattern: str | None = None
    """Its glob pattern when bash would expand it (an unquoted ``*`` or ``?``): the quoted
    and escaped characters escaped (``glob.escape``); ``None``: a literal word."""


def bash_words(line: str) -> list[Word] | None:
    """``line``'s words as bash splits them, or ``None`` when it would expand or act on
    anything but a glob (module doc). Linear in the line."""
    words: list[Word] = []
    text: list[str] = []
    pattern: list[str] = []
    globbed = in_word = False
    quote = ""
    index, size = 0, len(line)
    while index < size:
        char = line[index]
        index += 1
        if quote == "'":
            if char == "'":
                quote = ""
            else:
                text.append(char)
                pattern.append(escape(char))
            continue
        if quote == '"':
            if char == '"':
                quote = ""
                continue
            if char in "$`":
                return None
            if char == "\\" and index < size and line[index] in '"\\$`\n':
                char = line[index]
                index += 1
                if char == "\n":
                    return None
            text.append(char)
            pattern.append(escape(char))
            continue
        if char in " \t":
            if in_word:
                words.append(Word("".join(text), "".join(pattern) if globbed else None))
                text, pattern, globbed, in_word = [], [], False, False
            continue
        if char in _STOPS or (char == "#" and not in_word):
            return None
        in_word = True
        if char == "\\":
            if index >= size or line[index] == "\n":
                return None
            char = line[index]
            index += 1
            text.append(char)
            pattern.append(escape(char))
        elif char in "'\"":
            quote = char
        else:
            globbed = globbed or char in "*?"
            text.append(char)
            pattern.append(char)
    if quote:
        return None
    if in_word:
        words.append(Word("".join(text), "".join(pattern) if globbed else None))
    return words
