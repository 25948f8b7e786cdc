"""``frontier rewind SESSION|--last [MESSAGE]``: take a stored session back to before one of
the person's messages — the files the model's calls changed since, the conversation the
model gets, or both — as the TUI's ``/rewind`` does (``AgentSession.rewind``).

Without MESSAGE (or with ``--list``) it lists the person's messages the model still has,
each with what changed since, and writes nothing. With MESSAGE it opens the session as
``frontier undo`` does (its lock, crash recovery first, no model contacted): the files go
back as one undo call, shown as a diff and asked about on the terminal (``--yes``
approves without asking; with no terminal it is shown and declined), then the
conversation. It prints the message, to be sent again (``frontier run -c``).

Exit status: 0 rewound; 1 nothing done (a file changed since, an earlier version not
kept, declined at the review) or the files were put back but the conversation could not
be (the message says which); 2 usage (no such session or message, the session is open
in another Frontier, its workspace is gone).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from frontier.app.frontends.terminal_text import safe_print

EXIT_REWOUND = 0
EXIT_NOTHING_DONE = 1
EXIT_USAGE = 2


def main(args: argparse.Namespace) -> int:
    from frontier.app.commands._person import stored_session

    if args.last and args.session_id and args.message is None:
        args.session_id, args.message = None, args.session_id  # `rewind --last 2`
    message: int | None = None
    if args.message is not None:
        if not args.message.isdigit() or int(args.message) < 1:
            safe_print(
                f"frontier rewind: MESSAGE is a number from the list (`frontier rewind "
                f"SESSION`), not {args.message!r}",
                file=sys.stderr,
            )
            return EXIT_USAGE
        message = int(args.message)
    store_path = stored_session("rewind", args)
    if store_path is None:
        return EXIT_USAGE
    if args.list or message is None:  # read-only: no configuration, no event loop
        return _list(store_path, args.session_id)
    import asyncio

    from frontier.app.commands._agent_args import config_from_args

    config = config_from_args(args)
    if config is None:
        return EXIT_USAGE
    return asyncio.run(_rewind(config, args, message))


def _list(store_path: Path, session: str) -> int:
    """The person's messages the model still has, each with what a rewind to before it
    puts back and what it cannot (the store's text: printed safe)."""
    from frontier.app.agent.rewind import named, rewind_points
    from frontier.app.session.store import SessionStore, StoreError

    try:
        with SessionStore.open_readonly(store_path) as store:
            info = store.get_session(session)
            points = rewind_points(store, info.id)
    except StoreError as exc:
        safe_print(f"frontier rewind: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not points:
        safe_print(f"session {info.id}: none of your messages is in the model's conversation")
        return 0
    safe_print(f"your messages in session {info.id} ({info.workspace}), oldest first:")
    for p in points:
        since = []
        if p.file_count:
            since.append(f"files: {named(p.files, p.file_count, 4)}")
        if p.command_count:
            since.append(f"not put back: {named(p.commands, p.command_count, 3)}")
        said = f"  ({'; '.join(since)})" if since else ""
        safe_print(f" {p.number:>3}  {p.first_line}{said}")
    safe_print(
        f"`frontier rewind {info.id} N` goes back to before message N (its files and the "
        "conversation; --files-only, --conversation-only)"
    )
    return 0


async def _rewind(config: object, args: argparse.Namespace, message: int) -> int:
    from frontier.app.agent.session import SessionBusy
    from frontier.app.commands._person import open_offline
    from frontier.app.session.store import StoreError

    session = open_offline("rewind", config, args)
    if session is None:
        return EXIT_USAGE
    try:
        outcome = await session.rewind(
            message, files=not args.conversation_only, conversation=not args.files_only
        )
    except (SessionBusy, ValueError) as exc:
        safe_print(f"frontier rewind: {exc}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        try:
            await session.close()
        except StoreError as exc:
            safe_print(f"frontier rewind: closing the session store failed: {exc}", file=sys.stderr)
    sid = session.session_id
    if outcome.kind == "not_found":
        safe_print(f"frontier rewind: {outcome.message}", file=sys.stderr)
        return EXIT_USAGE
    if outcome.kind != "rewound":
        safe_print(f"frontier rewind: {outcome.message}", file=sys.stderr)
        return EXIT_NOTHING_DONE
    safe_print(outcome.message)
    if outcome.undo_id is not None:
        safe_print(
            f"the files' undo is call {outcome.undo_id} of session {sid}: "
            f"`frontier undo {sid} {outcome.undo_id}` brings the changes back"
        )
    safe_print(f"your message {message}, to send again (`frontier run -c …`):")
    safe_print(outcome.text)
    return EXIT_REWOUND
