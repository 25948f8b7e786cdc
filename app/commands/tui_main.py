"""Plain ``frontier``: the TUI (the welcome screen when no endpoint is configured).

``run_tui`` is also what ``frontier demo`` and ``frontier resume`` call; Textual
is imported only inside it, so importing this module stays cheap.
"""

from __future__ import annotations

import argparse

from frontier.app.commands._agent_args import config_from_args
from frontier.app.config import Config


def main(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if config is None:
        return 2
    return run_tui(config)


def run_tui(
    config: Config,
    *,
    demo: bool = False,
    demo_rate: float = 60.0,
    session_id: str | None = None,
) -> int:
    from frontier.app.tui import run_tui as run

    return run(config, demo=demo, demo_rate=demo_rate, session_id=session_id)
