"""Content hashes of workspace files, the evidence recovery decides by (DESIGN §7).

A mutation's call row records each target file's sha256 before (pre-image) and
the sha256 the approved change will produce (post-image); after a crash the
current hash says, exactly, whether the write happened. ``None`` stands for
"the file does not exist" so creations and deletions compare the same way.
"""

from __future__ import annotations


def short(h: str | None) -> str:
    """A hash for messages: the first 12 hex digits, or ``absent``."""
    if h is None:
        return "absent"
    return h[:12]
