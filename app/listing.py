"""How a list too long to show whole is said: ``a.py, b.py and 3 more``.

One home for the words (a note, a result, a review's header, a line of ``frontier``'s
output all say a cut list the same way) and for the count, which was worked out again at
each place: the items shown, the rest counted, never a negative "and -2 more".
"""

from __future__ import annotations

from collections.abc import Sequence


def listing(items: Sequence[str], shown: int, *, sep: str = ", ", total: int | None = None) -> str:
    """The first ``shown`` of ``items`` joined with ``sep``, then `` and N more`` for the
    rest: ``total`` when the caller holds only some of them (a count kept beside a
    bounded list), else ``len(items)``."""
    head = list(items[: max(shown, 0)])
    rest = (len(items) if total is None else total) - len(head)
    return sep.join(head) + (f" and {rest:,} more" if rest > 0 else "")


__all__ = ["listing"]
