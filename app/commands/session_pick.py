"""Which stored session a command means: the ID given, or with ``--last`` the session of
this workspace used last.

One home for every command that takes a session: ``resume``, ``run -c`` (and ``frontier
-c PROMPT``), ``export``, ``undo``, ``check`` and ``replay``. A person who has just
finished a session wants to export it, undo its last change or explain its stream
without first looking its id up in ``frontier sessions``.

"Used last" is by when a turn last began or ended, for the workspace given with
``--workspace DIR`` or else the current directory. A demo session works in a scratch
copy that belongs to no directory, so where no session was ever started, the demo used
last is taken (and said so); otherwise it says there is none and names the session used
last elsewhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

from frontier.app.frontends.terminal_text import safe_print

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from frontier.app.session.catalogue import SessionInfo

TAKING = {
    "resume": "continuing",
    "run": "continuing",
    "export": "exporting",
    "undo": "undoing in",
    "check": "checking",
    "replay": "replaying",
}
"""What each command does to the session it picked, for the line that says it took the
demo session."""


def chosen(
    command: str, given: str | None, last: bool, workspace: Path, *, flag: str = "--last"
) -> str | None:
    """The session id ``command`` is to use: ``given``, or with ``last`` (the command's
    ``flag``) the session of ``workspace`` used last; ``None`` after saying what is wrong
    (neither, both, none)."""
    if last and given:
        safe_print(
            f"frontier {command}: give a session id or {flag}, not both ({given!r})",
            file=sys.stderr,
        )
        return None
    if last:
        return last_session_id(workspace, command)
    if not given:
        picker = "; in a terminal, `frontier resume` alone shows a picker" * (command == "resume")
        safe_print(
            f"frontier {command}: which session? give its ID (`frontier sessions` lists "
            f"them) or --last for the one of this workspace used last{picker}",
            file=sys.stderr,
        )
        return None
    return given


def _is_demo(info: SessionInfo) -> bool:
    from frontier.app.model.demo_script import DEMO_BASE_URL

    return info.base_url == DEMO_BASE_URL


def last_session_id(workspace: Path, command: str = "resume") -> str | None:
    """The id of the session of ``workspace`` used last; else print why not and None."""
    from frontier.app.session.catalogue import last_used_session, newest_session
    from frontier.app.session.store import StoreError

    where = workspace.expanduser().resolve()
    try:
        info = last_used_session(where)
        other = newest_session() if info is None else None
    except StoreError as exc:
        safe_print(f"frontier: {exc}", file=sys.stderr)
        return None
    if info is not None:
        return info.id
    if other is not None and _is_demo(other):
        # The demo works in a scratch copy nobody cds into: it belongs to no directory,
        # so where nothing else was started, "the session used last" is the demo.
        safe_print(
            f"frontier: no session in {where}; {TAKING.get(command, 'using')} the demo "
            f"session {other.id} you used last",
            file=sys.stderr,
        )
        return other.id
    message = f"frontier: no session in {where} yet"
    if other is not None:
        does = "continues it" if command in ("resume", "run") else "takes it"
        named = f"--session {other.id}" if command == "run" else other.id
        message += (
            f"; the one used last is {other.id} in {other.workspace}: "
            f"`frontier {command} {named}` {does} (`frontier sessions` lists all)"
        )
    else:
        message += "; start one with `frontier` (or watch `frontier demo`)"
    safe_print(message, file=sys.stderr)
    return None
