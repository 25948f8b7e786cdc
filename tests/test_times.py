"""``app/session/times.iso_time`` writes what ``datetime`` wrote before it, in any zone."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontier.app.session.times import iso_time

ZONES = ["UTC", "Europe/Amsterdam", "America/St_Johns", "Asia/Kathmandu", "Pacific/Chatham"]
"""Whole hours, and offsets in minutes (-3:30, +5:45, +12:45); Amsterdam before 1937 was
+00:19:32, an offset with seconds."""


@pytest.fixture(params=ZONES)
def zone(request: pytest.FixtureRequest) -> Iterator[str]:
    if not os.path.exists(f"/usr/share/zoneinfo/{request.param}"):
        pytest.skip(f"no zoneinfo for {request.param} on this machine")
    before = os.environ.get("TZ")
    os.environ["TZ"] = request.param
    time.tzset()
    yield request.param
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
# the zone is set once per zone; each example only reads it
@given(
    st.integers(min_value=-2_000_000_000, max_value=4_000_000_000),
    st.integers(min_value=0, max_value=999),
)
def test_iso_time_is_datetimes_isoformat(zone: str, seconds: int, millis: int) -> None:
    t = seconds + millis / 1000
    want = datetime.fromtimestamp(t).astimezone().isoformat(timespec="seconds")
    assert iso_time(t) == want, (zone, t)
