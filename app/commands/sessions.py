"""``frontier sessions [--json]`` — list stored sessions, newest first, with the first prompt
(``frontier sessions delete``: ``sessions_delete.py``).

The PROMPT column is what the person typed first, on one line and cut to fit (a
session is recognised by its task, not its id); ``--json`` has it whole
(``first_prompt``). ``frontier -c`` continues the session of this workspace used last.

The store is opened read-only: listing never creates, migrates or locks anything,
so it works on a read-only data dir. Only the catalogue is loaded (not the whole
``SessionStore``, whose history and call modules are most of a start-up's imports).
A session whose process died shows ``interrupted``, and the calls it was running are
named below the table (``interrupted_calls`` in ``--json``), without a resume.
"""

from __future__ import annotations

import argparse
import sys

from frontier.app.frontends.terminal_text import dumps, safe_print, terminal_safe
from frontier.app.session.catalogue import Catalogue, SessionInfo, one_line, short_path
from frontier.app.session.db import Database, StoreError, default_path, existing_store

COLUMNS = ("ID", "STARTED", "WORKSPACE", "MODEL", "MODE", "TURNS", "STATE", "PROMPT")
PROMPT_WIDTH = 50
"""Characters of the first prompt shown in the table (``--json`` has all of it)."""


def main(args: argparse.Namespace) -> int:
    action = getattr(args, "action", None)
    if action == "delete":
        from frontier.app.commands.sessions_delete import delete

        return delete(args)
    if action is not None:  # `frontier sessions 6943`: a session named, no verb
        shown = terminal_safe(action)
        safe_print(
            f"frontier sessions: {shown!r} is not an action; to read a session: `frontier "
            f"export {shown}`, to continue it: `frontier resume {shown}`, to delete it: "
            f"`frontier sessions delete {shown}`",
            file=sys.stderr,
        )
        return 2
    if getattr(args, "ids", None) or getattr(args, "older_than", None) is not None:
        safe_print(
            "frontier sessions: session ids and --older-than go with delete "
            "(`frontier sessions delete ID`)",
            file=sys.stderr,
        )
        return 2
    as_json = bool(getattr(args, "json", False))
    try:
        path = existing_store()
        if path is None:
            return _empty(as_json, default_path())
        db = Database.open_readonly(path)
        try:
            sessions = Catalogue(db).list_sessions()
        finally:
            db.close()
    except StoreError as exc:
        safe_print(f"frontier sessions: {exc}", file=sys.stderr)
        return 1
    if not sessions:
        return _empty(as_json, path)
    if as_json:
        safe_print(dumps([s.to_json() for s in sessions], indent=2))
    else:
        width = None
        if sys.stdout.isatty():
            import shutil

            width = shutil.get_terminal_size().columns
        safe_print(format_table(sessions, width))
        for s in sessions:
            if s.interrupted_calls:
                safe_print(interrupted_note(s))
    return 0


def interrupted_note(info: SessionInfo) -> str:
    """What a session whose process died mid-call left behind (outcome unknown)."""
    n = info.interrupted_calls
    calls = "a call was" if n == 1 else f"{n} calls were"
    return (
        f"{info.id}: {calls} running when its Frontier stopped: outcome unknown "
        f"(interrupted); `frontier resume {info.id}` reconciles it"
    )


def _empty(as_json: bool, path: object) -> int:
    if as_json:
        safe_print("[]")
    else:
        safe_print(
            f"No sessions yet (looked in {path}). Start one with `frontier`, "
            "or watch the scripted model with `frontier demo`."
        )
    return 0


def format_table(sessions: list[SessionInfo], width: int | None = None) -> str:
    """Aligned columns; workspaces shortened with ``~`` and from the left when long; the
    prompt cut to ``PROMPT_WIDTH``, or to what is left of a terminal ``width`` (at least
    20), so a row stays on one line.

    Every cell that came from the store is made :func:`terminal_safe` before the widths
    are measured: a stored session is untrusted (its prompt, model, workspace and mode
    can hold escapes), and escaping after measuring would misalign the columns."""
    import time  # not datetime: ~2 ms of start-up for the same local time

    rows = [
        (
            terminal_safe(s.id),
            time.strftime("%Y-%m-%d %H:%M", time.localtime(s.started)),
            short_path(terminal_safe(s.workspace)),
            terminal_safe(s.model),
            terminal_safe(s.mode),
            str(s.turns),
            terminal_safe(s.state),
        )
        for s in sessions
    ]
    head = COLUMNS[:-1]
    fixed = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    room = PROMPT_WIDTH
    if width is not None:
        room = max(20, min(PROMPT_WIDTH, width - sum(fixed) - 2 * len(fixed)))
    prompts = [
        one_line(terminal_safe(s.first_prompt), room) if s.first_prompt else "—" for s in sessions
    ]
    table: list[tuple[str, ...]] = [COLUMNS]
    table += [(*r, p) for r, p in zip(rows, prompts, strict=True)]
    widths = [max(len(r[i]) for r in table) for i in range(len(COLUMNS))]
    right = {COLUMNS.index("TURNS")}
    lines = []
    for r in table:
        cells = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
