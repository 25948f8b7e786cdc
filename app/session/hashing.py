"""Content hashes of workspace files, the evidence recovery decides by (DESIGN §7).

A mutation's call row records each target file's sha256 before (pre-image) and
the sha256 the approved change will produce (post-image); after a crash the
current hash says, exactly, whether the write happened. ``None`` stands for
"the file does not exist" so creations and deletions compare the same way.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_CHUNK = 1 << 20


def bytes_hash(data: bytes) -> str:
    """sha256 hex of ``data`` (the same form as ``FilePreview.old_hash``/``new_hash``)."""
    return hashlib.sha256(data).hexdigest()


def file_hash(path: str | Path) -> str | None:
    """sha256 hex of the file's bytes, or ``None`` when it does not exist.

    A directory (or anything else that is not a regular file) at the path is
    reported as a distinct value so it never matches a recorded file hash.
    """
    p = Path(path)
    try:
        if not p.is_file():
            return None if not p.exists() and not p.is_symlink() else "<not a regular file>"
        digest = hashlib.sha256()
        with p.open("rb") as fh:
            while chunk := fh.read(_CHUNK):
                digest.update(chunk)
        return digest.hexdigest()
    except FileNotFoundError:
        return None


def short(h: str | None) -> str:
    """A hash for messages: the first 12 hex digits, or ``absent``."""
    if h is None:
        return "absent"
    return h[:12]
