"""``frontier run --prompt TEXT``: one task headless, same loop as the TUI."""

from __future__ import annotations

import argparse
import asyncio
import sys

from frontier.app.commands._agent_args import config_from_args


def main(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if config is None:
        return 2
    if not config.has_endpoint:
        print(
            "frontier run: no endpoint configured. Pass --base-url URL --model M "
            "(e.g. http://127.0.0.1:8080/v1 for llama.cpp), set FRONTIER_BASE_URL, "
            "or try the built-in model: frontier demo --headless",
            file=sys.stderr,
        )
        return 2
    from frontier.app.agent.headless_run import run_headless

    return asyncio.run(
        run_headless(
            config,
            prompts=[args.prompt],
            as_json=args.json,
            max_turns=args.max_turns,
            session_id=getattr(args, "session", None),
        )
    )
