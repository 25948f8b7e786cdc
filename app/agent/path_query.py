"""How a typed ``@`` query matches a workspace path: its characters in order, ignoring case.

One home for the test the completion list ranks with (``widgets/prompt_input.PathRanker``)
and the whole-tree search past a cut listing uses (``attachments.search_files``), so a
path the search brings is one the ranking keeps.
"""

from __future__ import annotations

import re
from collections.abc import Callable


def in_order(query: str) -> Callable[[str], re.Match[str] | None]:
    """A test of a casefolded path: ``query``'s characters (casefolded) appear in it in
    order. Each character follows a possessive run of others, so the regular expression
    runs in linear time and never backtracks (a ``.*?``-joined one took exponential time
    on a near-miss of a pasted query of repeats)."""
    q = query.casefold()
    return re.compile("".join(f"[^{re.escape(c)}]*+{re.escape(c)}" for c in q)).match
