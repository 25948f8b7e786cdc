"""How a patch call and a mutation's result are summarised, for every front end.

One home for the ``M path (+3 −1)`` vocabulary: the engine's own summary, the
tool result the model reads, the Tools pane, the headless printer and the
export all use ``change_line``. A call's files come from the real parser
(``patch_parse``), so no front end reads patch text itself. Kept free of heavy
imports: ``frontier apply-patch`` prints through it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from frontier.app.listing import listing

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

MINUS = "\u2212"
"""The minus of ``M path (+3 −1)``."""
SHOWN_CHANGES = 3
"""Change lines a one-line view shows before ``+N more``."""
MAX_PATCH_PATHS = 1000
"""``patch_paths`` names at most this many files (a label, not an index)."""


def patch_paths(text: str | bytes, limit: int = MAX_PATCH_PATHS) -> list[str]:
    """The files a patch touches, in order (a rename's destination), from the parser;
    ``[]`` when the text is not a patch we can read."""
    from frontier.tools.patch_parse import PatchParseError, parse_patch

    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        files = parse_patch(text).files
    except PatchParseError:
        return []
    paths = dict.fromkeys(fp.name for fp in files)
    return list(paths)[:limit]


def patch_label(text: str | bytes) -> str:
    """What a pane shows for an apply_patch call: its one path, or ``(N files)``."""
    paths = patch_paths(text)
    if len(paths) == 1:
        return paths[0]
    if not paths:
        return "(unreadable patch)"
    more = "+" if len(paths) >= MAX_PATCH_PATHS else ""
    return f"({len(paths)}{more} files)"


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def change_line(change: Mapping[str, Any]) -> str:
    """``M app/cli.py (+3 −1)`` for one entry of a result's ``meta["changes"]``.

    ``R old → new (+0 −0)`` for a move; ``(lines not counted)`` for a command's file
    whose content before or after was not held (``counted: false``); a mode is named
    (``mode 644 → 755``, a new executable ``mode 755``); declined hunks too: ``M a.py (+3
    −1; hunk 2 of 3 declined)``.
    """
    status = str(change.get("status") or "M")
    path = str(change.get("path") or "?")
    source = change.get("from")
    if status == "R" and source:
        path = f"{source} → {path}"
    counts = f"+{_count(change.get('added'))} {MINUS}{_count(change.get('removed'))}"
    if change.get("counted") is False:  # a command's file whose earlier or later content
        counts = "lines not counted"  # was not held (not kept, or too large)
    mode = change.get("mode")
    if isinstance(mode, str) and mode:
        counts += f", mode {mode}"
    declined = [n for n in change.get("declined") or () if isinstance(n, int)]
    if declined:
        hunks = _count(change.get("hunks"))
        of = f" of {hunks}" if hunks else ""
        word = "hunk" if len(declined) == 1 else "hunks"
        counts += f"; {word} {', '.join(map(str, declined))}{of} declined"
    return f"{status} {path} ({counts})"


def output_first(result: Mapping[str, Any]) -> bool:
    """Whether a changed-files result keeps its own output, before its files: a command's
    (its meta, or its export record, names where it ran: ``sandbox``), whose output is its
    test results or ``3 files reformatted``, or one a crash interrupted (``recovered``:
    its output says so); an edit's ``applied: …`` says nothing its files do not. Every
    front end asks this (the Transcript, ``frontier run``, the export)."""
    return bool(result.get("sandbox") or result.get("recovered"))


def interrupted_changes(meta: Mapping[str, Any]) -> str:
    """`` · it had changed a.py, b.py: an undo puts them back`` for a command a crash
    interrupted whose changes recovery recorded (``app/session/recover.py``), else ``""``:
    what the resume's "reconciled …" line adds (the TUI's note, ``frontier undo``'s)."""
    files = meta.get("files")
    if not meta.get("recovered") or not meta.get("targets") or not isinstance(files, list):
        return ""
    shown = listing([str(f) for f in files], 5)
    return f" · it had changed {shown}: an undo puts {'it' if len(files) == 1 else 'them'} back"


def result_changes(meta: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """``meta["changes"]`` of a mutation's result, each entry a mapping (else ``[]``)."""
    changes = (meta or {}).get("changes")
    if not isinstance(changes, Sequence) or isinstance(changes, str | bytes):
        return []
    return [c for c in changes if isinstance(c, Mapping)]


def change_lines(meta: Mapping[str, Any] | None, limit: int | None = None) -> list[str]:
    """A mutation result's summary: ``["already applied"]``, or one ``change_line`` per
    file (the first ``limit`` and ``+N more``); ``[]`` when the result has neither."""
    if meta and meta.get("already_applied"):
        return ["already applied"]
    changes = result_changes(meta)
    shown = changes if limit is None else changes[:limit]
    lines = [change_line(c) for c in shown]
    if len(changes) > len(shown):
        lines.append(f"+{len(changes) - len(shown)} more")
    return lines
