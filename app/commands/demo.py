"""``frontier demo``: the built-in scripted model in a scratch workspace.

The TUI by default; ``--headless`` prints the story as events, and so does a demo
whose stdout or stdin is not a terminal (``frontier demo | less``): a TUI there would
wait for keys that never come. Without an
explicit ``--protocol`` the headless demo tells the story twice: in
ctl-heredoc (eager CTL frames, a framing error and its repair, a hallucinated
result, a truncation) and then the same task with native-inc tool calls.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from frontier.app.commands._agent_args import config_from_args, terminal_problem
from frontier.app.config import Config
from frontier.app.frontends.terminal_text import safe_print

DEFAULT_RATE = 60.0


def main(args: argparse.Namespace) -> int:
    explicit_protocol = getattr(args, "protocol", None)
    explicit_approval = getattr(args, "approval", None)
    config = config_from_args(args)
    if config is None:
        return 2
    rate = DEFAULT_RATE if args.rate is None else args.rate
    headless = bool(args.headless)
    if not headless and (problem := terminal_problem()) is not None:
        safe_print(
            f"frontier demo: {problem}, so the demo runs headless (as `frontier demo "
            "--headless`); run it in a terminal for the TUI",
            file=sys.stderr,
        )
        headless = True
    if getattr(args, "tour", False):
        from frontier.app.commands.demo_tour import tour

        return tour(args, config, headless=headless, rate=rate)
    if not headless:
        from frontier.app.frontends.tui.app import run_tui

        return run_tui(config, demo=True, demo_rate=rate)
    return asyncio.run(_headless(config, explicit_protocol, explicit_approval, args.json, rate))


async def _headless(
    config: Config, protocol: str | None, approval: str | None, as_json: bool, rate: float
) -> int:
    from frontier.app.frontends.headless import run_headless
    from frontier.app.record import replace

    if approval is None and not sys.stdin.isatty():
        # Nobody to ask: approve what the script does, and say so.
        config = replace(config, approval="auto")
        if not as_json:
            safe_print(
                "(no terminal on stdin: the demo approves its own patch and command; "
                "run it in a terminal to be asked, or open the TUI with `frontier demo`)"
            )
    modes = [protocol] if protocol else ["ctl-heredoc", "native-inc"]
    for mode in modes:
        if not as_json:
            safe_print(f"\n═══ demo in {mode} mode ═══")
        code = await run_headless(
            replace(config, protocol=mode),
            prompts=[],
            as_json=as_json,
            demo=True,
            demo_rate=rate,
        )
        if code != 0:
            return code
    return 0
