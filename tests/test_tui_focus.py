"""A newcomer types straight away: the message box has focus when the app opens."""

from __future__ import annotations

from types import SimpleNamespace

from textual.widgets import Input

from frontier.app.config import Config
from frontier.app.tui import FrontierApp


async def test_first_keystrokes_go_to_the_message_box() -> None:
    runtime = SimpleNamespace(
        model="m", mode="ctl-heredoc", session_id="s1", loop=None, demo_prompts=[], base_url="x"
    )
    app = FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="m"),
        runtime_factory=lambda approver, observer: runtime,
        remember_theme=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("h", "i")
        prompt = app.screen.query_one("#prompt", Input)
        assert app.focused is prompt
        assert prompt.value == "hi"
