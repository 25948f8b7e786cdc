"""Text a model escaped twice: its line breaks sent as the two characters ``\\n``.

Some models (grok-4-1-fast in OpenClaw's tracker, small local ones) write a tool
argument's line breaks as an escaped ``\\\\n`` inside the JSON string, so the text arrives
as one line holding ``\\n`` again and again; written, the file is one long line of code
with backslashes in it. Unescaping it blindly would corrupt every file whose code holds
``\\n`` in a string, so it is only recognised where nothing else is likely: text with no
line break at all and at least :data:`AT_LEAST` literal ``\\n``, in a file that is not
data kept on one line (JSON, a source map, minified code). The edit is refused, saying
what happened, and the model sends it again.
"""

from __future__ import annotations

AT_LEAST = 3
"""Literal ``\\n`` in a text with no line break that make it escaped twice."""
ONE_LINE_DATA = (".json", ".jsonl", ".ndjson", ".map", ".min.js", ".min.css", ".csv", ".tsv")
"""Files whose content is legitimately one line holding ``\\n`` escapes."""


def escaped_twice(path: str, text: str, what: str) -> str | None:
    """Why ``text`` (``what``: ``content``, ``new``) for ``path`` looks escaped twice, or
    ``None``."""
    if "\n" in text or path.lower().endswith(ONE_LINE_DATA):
        return None
    count = text.count("\\n")
    if count < AT_LEAST:
        return None
    return (
        f"{path}: `{what}` has no line break but {count} literal \\n (a backslash and an n): "
        "its line breaks were escaped twice, and written it would be one line; send the "
        "text with real line breaks. Nothing was written"
    )
