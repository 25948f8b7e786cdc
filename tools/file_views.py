"""What the model last saw of each file in this session, to tell a write that would undo
someone else's change, or drop lines the model never read.

A person edits a file in their editor while the agent works (or a formatter the model ran
rewrites it); the model then ``write``s the file whole from what it read before, and the
person's change is gone, silently under ``--approval auto-edit`` and easy to miss in a long
diff. So the session keeps, per file, the digest of what the model last read or wrote
there; a ``write`` over a file whose content differs from it is refused (nothing
written), and the model reads it again.

``read`` shows a long file a window at a time (500 lines): a model that read the first
window of a 3,000-line file and wrote the file whole wrote the 500 lines it knew, and the
rest was gone. So the lines read of the content seen are kept too, and a ``write`` over a
file the model has read only part of is refused, naming the lines it has not seen.

A file that exists and that the model never read or wrote in this session is not
``write``n whole either (stop 59): what it held was never seen, so a whole-file write
could only replace it by a guess (a model asked to "add a section to README.md" wrote a
README of its own). ``replace``, ``multi`` and ``apply_patch`` are not judged: they
change only text they find as the model gave it.

A resumed session knows what the model saw before: each call records what it changed
here (:class:`CallViews`: ``meta["views"]`` of its result, stored with it), and the
session replays them in order (:meth:`FileViews.replay`). A person who stopped the agent,
edited a file and resumed the session the next day otherwise lost that edit to the first
whole-file ``write`` the model made from its history.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

MAX_FILES = 4096
"""Files remembered; past it the oldest is forgotten (and so no longer judged)."""
MAX_SPANS = 256
"""Separate runs of lines read in one file; past it the file is forgotten (not judged)."""


class _View:
    __slots__ = ("digest", "lines", "spans")

    def __init__(self, digest: str, lines: int | None) -> None:
        self.digest = digest
        self.lines = lines
        """The file's line count when only part of it was read; ``None``: all of it seen."""
        self.spans: list[tuple[int, int]] = []
        """The lines read (1-based, inclusive, merged), while not all of it was."""


class FileViews:
    """``path →`` the sha256 of the content the model last saw there (read, or wrote),
    and which of its lines it has read when that was not all of them."""

    def __init__(self) -> None:
        self._seen: dict[str, _View] = {}

    def saw(
        self, path: str, digest: str | None, window: tuple[int, int, int] | None = None
    ) -> None:
        """The model saw ``digest`` at ``path`` (``None``: the file is gone): all of it, or
        only ``window``, ``(first line, last line, lines in the file)``, which adds to the
        lines it has read of the same content before."""
        old = self._seen.pop(path, None)
        if digest is None:
            return
        if window is not None and window[0] <= 1 and window[1] >= window[2] > 0:
            window = None  # the whole file, in one window
        view = _View(digest, None if window is None else window[2])
        if window is not None:
            spans = old.spans if old is not None and old.digest == digest else []
            if old is not None and old.digest == digest and old.lines is None:
                view.lines = None  # seen whole already
            elif window[1] >= window[0]:
                view.spans = _merged([*spans, (window[0], window[1])])
                if view.spans == [(1, window[2])]:
                    view.lines, view.spans = None, []
                elif len(view.spans) > MAX_SPANS:
                    return
        self._seen[path] = view
        if len(self._seen) > MAX_FILES:
            del self._seen[next(iter(self._seen))]

    def edited(self, path: str, digest: str | None, lines: int) -> None:
        """The model changed part of ``path`` (``replace``, ``multi``, a patch), which now
        holds ``digest`` in ``lines`` lines: what it had seen of it stays what it knows, so
        a file it had read only in part counts as not read at all (its lines moved)."""
        old = self._seen.get(path)
        if old is None or old.lines is None or digest is None:
            self.saw(path, digest)
            return
        self.saw(path, digest, (1, 0, lines))

    def knows(self, path: str) -> bool:
        """The model has read or written ``path`` in this session (and it was not
        forgotten: :data:`MAX_FILES`, :data:`MAX_SPANS`)."""
        return path in self._seen

    def changed(self, path: str, digest: str | None) -> bool:
        """``path`` now holds ``digest`` and the model last saw something else there."""
        view = self._seen.get(path)
        return view is not None and view.digest != digest

    def unread(self, path: str, digest: str | None) -> tuple[int, int, int] | None:
        """``(first, last, lines in the file)`` of the first lines of ``path`` the model
        has not read, when it read only part of this very content; else ``None``."""
        view = self._seen.get(path)
        if view is None or view.digest != digest or view.lines is None:
            return None
        at = 1
        for first, last in view.spans:
            if first > at:
                return at, first - 1, view.lines
            at = last + 1
        return (at, view.lines, view.lines) if at <= view.lines else None

    def replay(self, ops: Iterable[object]) -> int:
        """Apply what calls recorded (:attr:`CallViews.ops`, as stored: JSON), in order;
        a malformed entry (a store from elsewhere) is passed over. Returns how many were
        applied."""
        applied = 0
        for op in ops:
            if not isinstance(op, list) or len(op) != 4 or not isinstance(op[1], str):
                continue
            kind, path, digest, extra = op
            if digest is not None and not isinstance(digest, str):
                continue
            if kind == "saw" and extra is None:
                self.saw(path, digest)
            elif kind == "saw" and _window(extra):
                self.saw(path, digest, (extra[0], extra[1], extra[2]))
            elif kind == "edited" and isinstance(extra, int) and not isinstance(extra, bool):
                self.edited(path, digest, extra)
            else:
                continue
            applied += 1
        return applied


def _window(value: object) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 3
        and all(isinstance(n, int) and not isinstance(n, bool) for n in value)
    )


class CallViews:
    """One call's door to the session's :class:`FileViews`: the same answers, and what the
    call changed there kept in :attr:`ops`, which its result stores (``meta["views"]``)
    so a resumed session knows it too."""

    def __init__(self, views: FileViews) -> None:
        self.views = views
        self.ops: list[list[object]] = []

    def saw(
        self, path: str, digest: str | None, window: tuple[int, int, int] | None = None
    ) -> None:
        self.ops.append(["saw", path, digest, None if window is None else list(window)])
        self.views.saw(path, digest, window)

    def edited(self, path: str, digest: str | None, lines: int) -> None:
        self.ops.append(["edited", path, digest, lines])
        self.views.edited(path, digest, lines)

    def knows(self, path: str) -> bool:
        return self.views.knows(path)

    def changed(self, path: str, digest: str | None) -> bool:
        return self.views.changed(path, digest)

    def unread(self, path: str, digest: str | None) -> tuple[int, int, int] | None:
        return self.views.unread(path, digest)


Views = FileViews | CallViews
"""What a tool is given (``ToolContext.views``)."""


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for first, last in sorted(spans):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out
