"""``frontier resume ID|--last``: continue a stored session after reconciling in-flight calls.

``--last`` (and ``frontier -c``) picks the session of this workspace used last: the one
whose workspace is ``--workspace DIR`` or the current directory, by when a turn last
began or ended. A demo session works in a scratch copy that belongs to no directory,
so where no session was ever started, the demo used last is continued (and said so);
otherwise it says there is none and names the session used last elsewhere.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from frontier.app.commands._agent_args import config_from_args, terminal_problem
from frontier.app.frontends.terminal_text import safe_print

if TYPE_CHECKING:
    from frontier.app.session.catalogue import SessionInfo


def main(args: argparse.Namespace) -> int:
    last = bool(getattr(args, "last", False))
    if last and args.session_id:
        safe_print(
            f"frontier resume: give a session id or --last, not both ({args.session_id!r})",
            file=sys.stderr,
        )
        return 2
    if not last and not args.session_id:
        safe_print(
            "frontier resume: which session? give its ID (`frontier sessions` lists them) "
            "or --last for the one of this workspace used last",
            file=sys.stderr,
        )
        return 2
    config = config_from_args(args)
    if config is None:
        return 2
    workspace = Path(args.workspace) if getattr(args, "workspace", None) else None
    if last:
        found = _last_session_id(workspace or Path(config.workspace or "."))
        if found is None:
            return 2
        args.session_id = found
        workspace = None  # --workspace said where to look; the session's own root stands
    rate = 60.0 if args.rate is None else args.rate
    if not args.headless:
        from frontier.app.session.store import StoreError, find_session

        try:  # a wrong id is a usage error here, not a TUI that cannot start
            session_id = find_session(args.session_id).id
        except StoreError as exc:
            safe_print(f"frontier: {exc}", file=sys.stderr)
            return 2
        problem = terminal_problem()
        if problem is not None:
            safe_print(
                f"frontier resume: the TUI needs a terminal ({problem}); continue without it "
                f'with `frontier resume {session_id} --headless --prompt "..."`',
                file=sys.stderr,
            )
            return 2
        from frontier.app.frontends.tui.app import run_tui

        return run_tui(config, session_id=session_id, demo_rate=rate, workspace=workspace)
    if not args.prompt:
        safe_print(
            "frontier resume --headless needs --prompt TEXT (the next message)", file=sys.stderr
        )
        return 2
    from frontier.app.frontends.headless import run_headless

    return asyncio.run(
        run_headless(
            config,
            prompts=[args.prompt],
            as_json=args.json,
            max_turns=args.max_turns,
            session_id=args.session_id,
            workspace=workspace,
            demo_rate=rate,
            protocol=getattr(args, "protocol", None),
        )
    )


def continue_last(args: argparse.Namespace) -> int:
    """``frontier -c``: ``resume --last`` in the TUI, with the top-level flags."""
    for name, value in (
        ("session_id", None),
        ("last", True),
        ("headless", False),
        ("prompt", None),
        ("json", False),
        ("max_turns", None),
        ("rate", None),
    ):
        setattr(args, name, value)
    return main(args)


def _is_demo(info: SessionInfo) -> bool:
    from frontier.app.model.demo_script import DEMO_BASE_URL

    return info.base_url == DEMO_BASE_URL


def _last_session_id(workspace: Path) -> str | None:
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
            f"frontier: no session in {where}; continuing the demo "
            f"session {other.id} you used last",
            file=sys.stderr,
        )
        return other.id
    message = f"frontier: no session in {where} yet"
    if other is not None:
        message += (
            f"; the one used last is {other.id} in {other.workspace}: "
            f"`frontier resume {other.id}` continues it (`frontier sessions` lists all)"
        )
    else:
        message += "; start one with `frontier` (or watch `frontier demo`)"
    safe_print(message, file=sys.stderr)
    return None
