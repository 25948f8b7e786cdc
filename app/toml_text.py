"""TOML read with one more way to fail cleanly: nesting deeper than the stack.

``tomllib`` parses arrays and inline tables by recursion, a few Python frames a level, and
sets no depth of its own: ``x = [[[[…]]]]`` 400 levels deep (800 bytes) raises
``RecursionError`` from inside it. A workspace's ``.frontier/mcp.toml`` is untrusted input
(a cloned repository's), and a traceback instead of a refusal stopped ``frontier run``
there. Here that is the ``TOMLDecodeError`` every reader already reports ("invalid TOML
(…)") and recovers from. Each reader caps the bytes it reads (``MAX_PROJECT_BYTES``), so
the parse before the limit stays cheap.

And a byte order mark is skipped: Windows editors and PowerShell's ``Out-File`` start a
UTF-8 file with one, and ``tomllib`` refused such a ``config.toml`` as "Invalid statement
(at line 1, column 1)", which named nothing a person could see.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time
if TYPE_CHECKING:
    from typing import Any


def loads(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, a leading byte order mark skipped; arrays or inline tables
    nested deeper than the interpreter can follow raise ``tomllib.TOMLDecodeError``, as any
    other malformed document does."""
    import tomllib

    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except RecursionError:
        raise tomllib.TOMLDecodeError("arrays or inline tables nested too deeply to read") from None


__all__ = ["loads"]
