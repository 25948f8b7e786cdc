"""What the model last saw of each file in this session, to tell a write that would undo
someone else's change.

A person edits a file in their editor while the agent works (or a formatter the model ran
rewrites it); the model then ``write``s the file whole from what it read before, and the
person's change is gone, silently under ``--approval auto-edit`` and easy to miss in a long
diff. So the session keeps, per file, the digest of what the model last read or wrote
there; a ``write`` over a file whose content differs from it is refused (nothing
written), and the model reads it again. A file the model never read or wrote in this
session is not judged (nothing is known), nor are ``replace``, ``multi`` and
``apply_patch``, which change only text they find as the model gave it.
"""

from __future__ import annotations

MAX_FILES = 4096
"""Files remembered; past it the oldest is forgotten (and so no longer judged)."""


class FileViews:
    """``path → sha256`` of the content the model last saw there (read, or wrote)."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def saw(self, path: str, digest: str | None) -> None:
        """The model saw ``digest`` at ``path`` (``None``: the file is gone)."""
        self._seen.pop(path, None)
        if digest is not None:
            self._seen[path] = digest
            if len(self._seen) > MAX_FILES:
                del self._seen[next(iter(self._seen))]

    def changed(self, path: str, digest: str | None) -> bool:
        """``path`` now holds ``digest`` and the model last saw something else there."""
        seen = self._seen.get(path)
        return seen is not None and seen != digest
