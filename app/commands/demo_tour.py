"""``frontier demo --tour``: the guided tour in the TUI, or its cards as text.

The tour plays a recording of the demo story (made on the spot: about a second,
in a throwaway data dir), so it takes only the options that change what is shown:
``--protocol`` (``ctl-heredoc``, the default, or ``ctl``), ``--rate`` (how fast the
story plays between moments) and ``--theme``. ``--approval`` and ``--prefill`` would
change a story the tour does not run live, so they are refused rather than ignored.
Headless (``--headless``, or no terminal), it prints each moment's card: the same
text, for a handout or a CI log; ``--json`` prints one object per moment.
"""

from __future__ import annotations

import argparse
import sys

from frontier.app.config import Config
from frontier.app.frontends.terminal_text import dumps, safe_print
from frontier.app.vocab import CTL_MODES

TOUR_PROTOCOLS = CTL_MODES
"""The stories with the moments the tour teaches (heredocs, a length prefix, truncation)."""


def tour(args: argparse.Namespace, config: Config, *, headless: bool, rate: float) -> int:
    from frontier.app.agent.tour import TOUR_MODE

    protocol = getattr(args, "protocol", None) or TOUR_MODE
    if protocol not in TOUR_PROTOCOLS:
        safe_print(
            f"frontier demo --tour: the tour tells a CTL story, so --protocol must be one of "
            f"{', '.join(TOUR_PROTOCOLS)} (got {protocol}); `frontier demo --protocol "
            f"{protocol}` plays that mode's story without the tour",
            file=sys.stderr,
        )
        return 2
    for option in ("approval", "prefill"):
        if getattr(args, option, None) is not None:
            safe_print(
                f"frontier demo --tour: --{option} does not apply: the tour plays a recording "
                "of the demo story, whose tools ran without asking and whose cut-off reply "
                f"is resent; `frontier demo --{option} …` runs the story live",
                file=sys.stderr,
            )
            return 2
    if headless:
        return _print_cards(protocol, as_json=bool(getattr(args, "json", False)))
    from frontier.app.frontends.tui.tour import run_tour

    return run_tour(config, rate=rate, mode=protocol)


def _print_cards(protocol: str, *, as_json: bool) -> int:
    from frontier.app.agent.tour import find_moments, record_story_sync

    moments = find_moments(record_story_sync(protocol))
    for k, moment in enumerate(moments, 1):
        if as_json:
            row = {
                "moment": k,
                "of": len(moments),
                "key": moment.key,
                "title": moment.title,
                "text": moment.text,
                "response": moment.response,
                "panes": list(moment.panes),
            }
            safe_print(dumps(row))
        else:
            safe_print(f"moment {k}/{len(moments)} · {moment.title} (response {moment.response})")
            safe_print(f"  {moment.text}\n")
    return 0
