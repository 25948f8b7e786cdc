"""``frontier resume ID|--last``: continue a stored session after reconciling in-flight calls.

``--last`` (and ``frontier -c``) picks the session of this workspace used last
(``session_pick``); neither, in a terminal, opens the TUI on the session picker (as
``codex resume`` and ``claude --resume`` do): a person rarely knows an id by heart.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from frontier.app.commands._agent_args import config_from_args, terminal_problem
from frontier.app.commands.session_pick import chosen
from frontier.app.frontends.terminal_text import safe_print


def main(args: argparse.Namespace) -> int:
    last = bool(getattr(args, "last", False))
    config = config_from_args(args)
    if config is None:
        return 2
    workspace = Path(args.workspace) if getattr(args, "workspace", None) else None
    if not args.session_id and not last and not args.headless and terminal_problem() is None:
        from frontier.app.frontends.tui.app import run_tui

        return run_tui(config, demo_rate=rate_of(args), workspace=workspace, pick_session=True)
    found = chosen("resume", args.session_id, last, workspace or Path(config.workspace or "."))
    if found is None:
        return 2
    args.session_id = found
    if last:
        workspace = None  # --workspace said where to look; the session's own root stands
    rate = rate_of(args)
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


def rate_of(args: argparse.Namespace) -> float:
    """The demo model's tokens a second when the session resumed is a demo's."""
    return 60.0 if args.rate is None else float(args.rate)


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
