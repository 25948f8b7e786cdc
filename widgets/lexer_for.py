"""Which lexer highlights a file, from its name alone.

``rich.syntax.Syntax.guess_lexer(path, code)`` asks pygments to guess from the name *and*
the text: that imports every one of pygments' ~230 lexer modules and runs each candidate's
``analyse_text``, and it happened when the first patch review of a session opened, the
moment a person is waiting for (~0.2 s of CPU, then again for each file). Here the
common extensions are a table; any other name goes to pygments' filename lookup, which
imports only the lexers whose patterns match (its ~1,000 patterns are compiled once, on
the first such name). A name pygments does not know is shown plain.
"""

from __future__ import annotations

import os
from functools import lru_cache

COMMON = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "jsx",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".rs": "rust",
    ".go": "go",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".java": "java",
    ".kt": "kotlin",
    ".rb": "ruby",
    ".php": "php",
    ".swift": "swift",
    ".cs": "csharp",
    ".scala": "scala",
    ".lua": "lua",
    ".sh": "bash",
    ".bash": "bash",
    ".sql": "sql",
    ".md": "markdown",
    ".rst": "restructuredtext",
    ".json": "json",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".ini": "ini",
    ".cfg": "ini",
    ".xml": "xml",
    ".html": "html",
    ".css": "css",
    ".tcss": "css",
}
"""Extension (lower case) → pygments alias; each is one of the lexer's own filename
patterns (``tests/test_lexer_for.py``), except ``.tcss``: Textual's CSS, read as CSS."""

PLAIN = frozenset({"text"})
"""Lexers that colour nothing: the file is shown without highlighting."""


def lexer_for(path: str) -> str | None:
    """The pygments alias that highlights ``path``, or None to show it plain."""
    name = os.path.basename(path)
    suffix = os.path.splitext(name)[1].lower()
    found = COMMON.get(suffix) if suffix else None
    return found if found is not None else _by_pygments(name)


@lru_cache(maxsize=256)
def _by_pygments(name: str) -> str | None:
    from pygments.lexers import find_lexer_class_for_filename  # type: ignore[import-untyped]
    from pygments.util import ClassNotFound  # type: ignore[import-untyped]

    try:
        found = find_lexer_class_for_filename(name)
    except ClassNotFound:
        return None
    if found is None or not found.aliases or found.aliases[0] in PLAIN:
        return None
    alias: str = found.aliases[0]
    return alias
