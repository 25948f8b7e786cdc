"""How the session picker looks, filtered as you type: 80×24 and 140×45, in every theme.

Built like ``test_tui_snapshots.py`` (fixed theme, frozen clock, no cursor blink); the
sessions are fixed ``SessionInfo`` values and the clock's zone is UTC, so only the
rendering can change a snapshot. Update with ``--snapshot-update`` (never under xdist)
and read the SVGs.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import until
from pytest_textual_snapshot import SVGImageExtension
from test_tui_snapshots import SIZES, live_app, settle
from textual.pilot import Pilot
from textual.widgets import OptionList

from frontier.app.frontends.tui.screens.sessions import SessionPicker
from frontier.app.session.catalogue import SessionInfo
from frontier.app.vocab import THEME_NAMES

SESSIONS = [
    SessionInfo(
        "7f3a2b9c", 1_700_000_300.0, "/home/ada/src/greet", "smollm2", None, "ctl-heredoc",
        "active", 3, first_prompt="Add a --shout flag to the greet CLI and run the tests.",
    ),
    SessionInfo(
        "c41d09e2", 1_700_000_200.0, "/home/ada/src/docs-site", "qwen2.5-coder", None,
        "native-inc", "done", 1, first_prompt="Fix the broken links in the docs\nand the index",
    ),
    SessionInfo(
        "0be5a771", 1_700_000_100.0, "/home/ada/src/greet", "smollm2", None, "ctl-heredoc",
        "interrupted", 2, first_prompt="Make the --shout flag also work as an env var",
    ),
]  # fmt: skip


@pytest.fixture(autouse=True)
def _snapshots_in_tests_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the SVGs in tests/snapshots/ (syrupy's default is __snapshots__)."""
    root = Path(__file__).parent / "snapshots"

    def dirname(cls: Any, *, test_location: Any) -> str:
        return str(root / test_location.basename)

    monkeypatch.setattr(SVGImageExtension, "dirname", classmethod(dirname))


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Start times are shown in local time: make local time UTC for the snapshot."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("theme", THEME_NAMES)
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
def test_session_picker_filtered(snap_compare: Any, size: str, theme: str) -> None:
    app, _ = live_app(theme)

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        picker = SessionPicker(SESSIONS, current="7f3a2b9c")
        app.push_screen(picker)
        await until(pilot, lambda: picker.is_mounted and picker.filter_box.has_focus, "the picker")
        picker.filter_box.cursor_blink = False
        await pilot.press(*"shout")
        options = picker.query_one(OptionList)
        await until(pilot, lambda: options.option_count == 2, "the two shout sessions")
        await pilot.press("down")
        await until(pilot, lambda: options.highlighted == 1, "the second match highlighted")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
