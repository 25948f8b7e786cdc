"""How the TUI looks: four scenes at 80×24 and 140×45, in every theme.

Each app gets a fixed theme before mount, a frozen clock and token rate, no
cursor blink and no live runtime: scenes are built from real core events
(the CTL transducer over a scripted reply), so a snapshot changes only when
the rendering does. Update with ``pytest tests/test_tui_snapshots.py
--snapshot-update`` (never under xdist) and review the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pilot_wait import opened, replay_step, until
from pytest_textual_snapshot import SVGImageExtension
from textual.pilot import Pilot
from textual.widgets import Input, TextArea
from tui_fakes import NEW, OLD, PATCH_SPEC, FakeLoop, fake_session, make_preview

from frontier.app.config import Config
from frontier.app.events import (
    AssistantText,
    CallReady,
    ResponseStarted,
    StreamBytes,
    ToolCall,
    ToolOutput,
    ToolStarted,
)
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.app.replay_player import ReplayPlayer, source_from_recording
from frontier.app.session.record import synthesize
from frontier.app.vocab import THEME_NAMES
from frontier.tools.contract import ApprovalRequested
from frontier.widgets.raw_stream import RawStreamView

SIZES = {"80x24": (80, 24), "140x45": (140, 45)}
THEMES = THEME_NAMES  # every theme: dark, light and contrast
NOW = 1000.0

REPLY = (
    "I'll add the flag and run the tests.\n"
    "call c1 read\narg path greet/cli.py\nend\n"
    "call c2 apply_patch\narg patch <<EOF\n"
    "--- a/greet.py\n+++ b/greet.py\n@@ -1,2 +1,3 @@\n-def greet(name):\n"
    '+def greet(name, shout=False):\n     return f"hello {name}"\nEO'
)
BAD = "Let me write the notes.\ncall c4 write\narg path NOTES.md\narg content 12\nshort\nend\n"


@pytest.fixture(autouse=True)
def _snapshots_in_tests_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the SVGs in tests/snapshots/ (syrupy's default is __snapshots__)."""
    root = Path(__file__).parent / "snapshots"

    def dirname(cls: Any, *, test_location: Any) -> str:
        return str(root / test_location.basename)

    monkeypatch.setattr(SVGImageExtension, "dirname", classmethod(dirname))


def live_app(theme: str) -> tuple[FrontierApp, FakeLoop]:
    app = FrontierApp(
        Config(model="smollm2", theme=theme),
        welcome=False,
        autostart=False,
        clock=lambda: NOW,
        token_rate=68.0,
        remember_theme=False,
        layout="lab",  # these scenes are about the CST panes (the lab layout)
    )
    # a session nobody sends to: the scenes are applied to the App's state directly
    fake = fake_session(Path("."), session_id="7f3a2b9c")
    assert app.live is not None
    app.live.session = fake.session
    return app, fake.loop


def replay_app(theme: str, text: str) -> FrontierApp:
    player = ReplayPlayer(source_from_recording(synthesize(text, "ctl-heredoc"), name="demo.jsonl"))
    return FrontierApp(
        Config(theme=theme), player=player, paused=True, token_rate=0.0, remember_theme=False
    )


async def settle(pilot: Pilot) -> None:
    app = pilot.app
    assert isinstance(app, FrontierApp)
    await until(pilot, lambda: app.main.is_mounted, "the main screen")
    for box in [*app.query(Input), *app.query(TextArea)]:  # the message box is a TextArea
        box.cursor_blink = False
    app.flush(force=True)
    await pilot.pause()
    app.flush(force=True)
    await pilot.pause()


def mid_stream(app: FrontierApp, loop: FakeLoop) -> None:
    """A reply streamed up to the middle of a heredoc, c1 done, a shell still running;
    through ``loop``'s transducer, whose frontier the status bar probes."""
    state = app.state
    state.add_user("add a --shout flag and run the tests")
    state.apply(ResponseStarted("ctl-heredoc", 0))
    transducer = loop.transducer
    data = REPLY.encode()
    for start in range(0, len(data), 9):
        piece = data[start : start + 9]
        state.apply(StreamBytes(start, piece))
        for event in transducer.feed(piece):
            state.apply(event)
            if getattr(event, "kind", "") == "text" and event.type == "confirmed":  # type: ignore[attr-defined]
                state.apply(AssistantText(event.data.decode()))  # type: ignore[attr-defined]
    state.set_probe(transducer.frontier, transducer.pending_bound())
    read = state.tools["c1"]
    read.state, read.elapsed, read.exit_code = "ok", 0.01, None
    shell = ToolCall("c0", "shell", {"command": "pytest -q"})
    state.apply(CallReady(shell))
    state.apply(ToolStarted(shell))
    state.tools["c0"].started = NOW - 3.2
    state.apply(ToolOutput("c0", "collecting...\n....F.\n41 passed, 1 failed"))


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
def test_main_screen_mid_stream(snap_compare: Any, size: str, theme: str) -> None:
    app, loop = live_app(theme)

    async def run_before(pilot: Pilot) -> None:
        mid_stream(app, loop)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
def test_review_modal(snap_compare: Any, size: str, theme: str) -> None:
    app, loop = live_app(theme)
    preview = make_preview("greet.py", OLD, NEW)
    call = ToolCall("c2", "apply_patch", {"patch": preview.files[0].diff}, 412)

    async def run_before(pilot: Pilot) -> None:
        mid_stream(app, loop)
        # the question as the session puts it (an ApprovalRequested event)
        app.review(ApprovalRequested("q1", call, PATCH_SPEC, preview, ("approve", "deny", "hunks")))
        await opened(pilot, ReviewScreen, "the review modal")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
def test_errors_view(snap_compare: Any, size: str, theme: str) -> None:
    app = replay_app(theme, BAD)

    async def run_before(pilot: Pilot) -> None:
        await replay_step(pilot, "e")
        await pilot.press("4")
        raw = app.screen.query_one(RawStreamView)
        await until(
            pilot,
            lambda: (
                app.main.active_tab == "errors"
                and bool(app.state.errors)
                and raw.highlight == app.state.errors[0].offset
            ),
            "the error chosen in the Errors tab",
        )
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
def test_replay_paused(snap_compare: Any, size: str, theme: str) -> None:
    app = replay_app(theme, REPLY + "F\nend\n")

    async def run_before(pilot: Pilot) -> None:
        for key in [*["comma"] * 9, "full_stop", "full_stop"]:
            await replay_step(pilot, key)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
