"""How a stored time (seconds since the epoch) is written for people.

From ``time`` rather than ``datetime``: ``check``, ``export`` and ``sessions --json`` show
stored times, and ``datetime`` costs ~2 ms of their start-up (issue 24).
"""

from __future__ import annotations

import time


def iso_time(t: float) -> str:
    """Local time with its UTC offset, to the second (``2026-12-03T07:05:09+01:00``): what
    ``datetime.fromtimestamp(t).astimezone().isoformat(timespec="seconds")`` writes."""
    local = time.localtime(t)
    offset = local.tm_gmtoff
    sign = "-" if offset < 0 else "+"
    hours, rest = divmod(abs(offset), 3600)
    minutes, seconds = divmod(rest, 60)
    zone = f"{sign}{hours:02d}:{minutes:02d}" + (f":{seconds:02d}" if seconds else "")
    return time.strftime("%Y-%m-%dT%H:%M:%S", local) + zone
