"""``frontier undo SESSION|--last [CALL]``: put back the files of a stored session's last
change (``--last``: this workspace's session used last, ``session_pick``).

Opens the session as ``frontier resume`` does — its lock (so no running Frontier writes
it meanwhile), crash recovery first (a call left without a result is reconciled) — but
without a model (no endpoint contacted, no key resolved), and calls the same
:meth:`AgentSession.undo` the TUI's ``/undo`` calls: the newest file change still in
effect, or ``CALL`` (``c4``; ``u1`` undoes an undo). It restores the files only if each
still has the content that call left; otherwise it names the file that changed since
and writes nothing. The undo is shown as a diff and asked about on the terminal
(``--yes`` approves it without asking), then recorded in the session, so the model is
told with the next message of ``frontier resume``.

``--list`` prints the session's file changes, each in effect, undone (by which undo) or
changed since (a file no longer has what it left, so its undo would be refused), and
which one a plain ``frontier undo`` takes; it writes nothing.

Exit status: 0 the files were restored; 1 nothing was written (refused: a file changed
since, an earlier version not kept, nothing to undo; denied at the review; or the write
failed, the message saying what is on disk); 2 usage (no such session or call, the
session is open in another Frontier, its workspace is gone).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from frontier.app.frontends.terminal_text import safe_print, terminal_safe

EXIT_UNDONE = 0
EXIT_NOTHING_WRITTEN = 1
EXIT_USAGE = 2


def main(args: argparse.Namespace) -> int:
    from frontier.app.commands._person import stored_session

    if args.last and args.session_id and args.call is None:
        args.session_id, args.call = None, args.session_id  # `undo --last c4`
    store_path = stored_session("undo", args)
    if store_path is None:
        return EXIT_USAGE
    if args.list:  # read-only: no configuration, no event loop
        return _list(store_path, args.session_id)
    import asyncio

    from frontier.app.commands._agent_args import config_from_args

    config = config_from_args(args)
    if config is None:
        return EXIT_USAGE
    return asyncio.run(_undo(config, args))


async def _undo(config: object, args: argparse.Namespace) -> int:
    from frontier.app.commands._person import open_offline
    from frontier.app.session.store import StoreError

    session = open_offline("undo", config, args)
    if session is None:
        return EXIT_USAGE
    try:
        outcome = await session.undo(args.call)
    finally:
        try:
            await session.close()
        except StoreError as exc:
            safe_print(f"frontier undo: closing the session store failed: {exc}", file=sys.stderr)
    sid = session.session_id
    if outcome.undone:
        safe_print(outcome.message)
        safe_print(
            f"recorded as call {outcome.undo_id} of session {sid}: the model is told with the "
            f"next message (`frontier resume {sid}`); `frontier undo {sid} {outcome.undo_id}` "
            "puts the changes back"
        )
        return EXIT_UNDONE
    safe_print(f"frontier undo: {_failure(outcome.kind, outcome.message)}", file=sys.stderr)
    return EXIT_USAGE if outcome.kind == "not_found" else EXIT_NOTHING_WRITTEN


def _failure(kind: str, message: str) -> str:
    if kind == "denied":
        return f"not undone, {message.split('. Do not retry')[0]}; nothing written"
    if kind == "not_found":
        return f"{message} (`frontier undo SESSION --list` lists them)"
    return message


def _list(store_path: Path, session: str) -> int:
    """The session's file changes, oldest first, each in effect or undone (read-only).
    File names, call ids and the workspace come from the store: untrusted, printed safe."""
    from frontier.app.agent.undo import UNDO_TOOL, UndoOutcome, choose, undone_by, wrote_files
    from frontier.app.session.calls import CallLedger
    from frontier.app.session.catalogue import Catalogue
    from frontier.app.session.db import Database, StoreError
    from frontier.app.session.responses import Responses
    from frontier.tools.workspace_files import BeneathFiles

    try:  # the parts a reader needs, not the store's façade and its writers (start-up)
        db = Database.open_readonly(store_path)
        try:
            info = Catalogue(db).get_session(session)
            ledger = CallLedger(db, Responses(db))
            calls = ledger.calls(info.id)
            running = [c for c in ledger.unresolved_calls(info.id) if c.started is not None]
            held = bool(running) and Catalogue(db).is_held(info.id)
        finally:
            db.close()
    except StoreError as exc:
        safe_print(f"frontier undo: {exc}", file=sys.stderr)
        return EXIT_USAGE
    undone = undone_by(calls)
    chosen = choose(calls, None)
    nxt = None if isinstance(chosen, UndoOutcome) else chosen
    rows = [c for c in calls if wrote_files(c)]
    for c in running:  # what it changed is recorded when the session is reconciled
        call_id, name = terminal_safe(c.call_id), terminal_safe(c.name)
        if held:
            safe_print(f"{call_id} {name} is running in the Frontier that has this session open")
        else:
            safe_print(
                f"{call_id} {name} was running when its Frontier stopped: what it changed is "
                f"recorded once the session is reconciled (`frontier undo {info.id}` or "
                f"`frontier resume {info.id}` does it first)"
            )
    if not rows:
        safe_print(f"session {info.id} changed no file" + (" recorded yet" if running else ""))
        return 0
    safe_print(f"file changes of session {info.id} ({info.workspace}), oldest first:")
    files_now = BeneathFiles(info.workspace)
    for c in rows:
        files = ", ".join(t.path for t in c.targets)
        if c.seq in undone:
            state = f"undone by {undone[c.seq].call_id}"
        elif any(files_now.digest(t.path) != t.post for t in c.targets):
            state = "changed since"
        else:
            state = "in effect"
        mark = "→" if c is nxt else " "
        what = f"undoes {c.args.get('call')}" if c.name == UNDO_TOOL else c.name
        rewind = c.args.get("rewind")
        if isinstance(rewind, dict):  # /rewind: every change since a message
            what = f"rewind (msg {rewind.get('to')})"
        ran = c.args.get("command") if c.name == "shell" else c.args.get("code")
        if c.name in ("shell", "python") and isinstance(ran, str):  # which command it was
            lines = ran.strip().splitlines() or [""]
            more = "…" if len(lines[0]) > 40 or len(lines) > 1 else ""
            files += f"  ← {lines[0][:40]}{more}"
        call_id, what, state = (terminal_safe(x) for x in (c.call_id, what, state))  # then padded
        safe_print(f" {mark} {call_id:<8} {what:<14} {state:<16} {terminal_safe(files)}")
    if nxt is not None:
        safe_print(f"`frontier undo {info.id}` undoes {nxt.call_id} (marked →)")
    return 0
