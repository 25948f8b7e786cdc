"""Plain ``frontier``: the TUI (the welcome screen when no endpoint is configured).

``frontier -c`` continues the session of this workspace used last (``resume --last``).
Textual is imported only when the command runs, so ``frontier --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys

from frontier.app import working_dir
from frontier.app.commands._agent_args import config_from_args, terminal_problem, with_model
from frontier.app.frontends.terminal_text import safe_print


def main(args: argparse.Namespace) -> int:
    if getattr(args, "continue_last", False):
        from frontier.app.commands import resume

        return resume.continue_last(args)
    config = config_from_args(args)
    if config is None:
        return 2
    config = with_model(config, "")
    if config is None:
        return 2
    if not config.workspace and working_dir.gone():  # before the screen, not in it
        safe_print(f"frontier: {working_dir.GONE}{working_dir.ELSEWHERE}", file=sys.stderr)
        return 2
    problem = terminal_problem()
    if problem is not None:
        safe_print(
            f"frontier: the TUI needs a terminal ({problem}); for one task without it use "
            '`frontier run --prompt "..."`, or `frontier demo --headless`',
            file=sys.stderr,
        )
        return 2
    from frontier.app.frontends.tui.app import run_tui

    return run_tui(config)
