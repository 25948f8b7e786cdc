"""``frontier resume ID``: continue a stored session after reconciling in-flight calls."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from frontier.app.commands._agent_args import config_from_args


def main(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if config is None:
        return 2
    rate = 60.0 if args.rate is None else args.rate
    workspace = Path(args.workspace) if getattr(args, "workspace", None) else None
    if not args.headless:
        from frontier.app.session.store import StoreError, find_session

        try:  # a wrong id is a usage error here, not a TUI that cannot start
            session_id = find_session(args.session_id).id
        except StoreError as exc:
            print(f"frontier: {exc}", file=sys.stderr)
            return 2
        from frontier.app.frontends.tui.app import run_tui

        return run_tui(config, session_id=session_id, demo_rate=rate, workspace=workspace)
    if not args.prompt:
        print("frontier resume --headless needs --prompt TEXT (the next message)", file=sys.stderr)
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
