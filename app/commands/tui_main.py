"""Plain ``frontier``: the TUI (the welcome screen when no endpoint is configured).

Textual is imported only when the command runs, so ``frontier --help`` stays fast.
"""

from __future__ import annotations

import argparse

from frontier.app.commands._agent_args import config_from_args


def main(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if config is None:
        return 2
    from frontier.app.frontends.tui.app import run_tui

    return run_tui(config)
