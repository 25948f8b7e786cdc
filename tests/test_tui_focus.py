"""A newcomer types straight away: the message box has focus when the app opens."""

from __future__ import annotations

from pathlib import Path

from pilot_wait import until
from tui_fakes import fake_session

from frontier.app.config import Config
from frontier.app.frontends.tui.app import FrontierApp
from frontier.widgets.prompt_input import PromptInput


async def test_first_keystrokes_go_to_the_message_box(tmp_path: Path) -> None:
    app = FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="m"),
        session_factory=lambda: fake_session(tmp_path, model="m").session,
        remember_theme=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        # the box takes the focus by itself (no click): wait for that, as a person
        # waits for the screen to appear, then type
        await until(pilot, lambda: isinstance(app.focused, PromptInput), "the first focus")
        await pilot.press("h", "i")
        prompt = app.screen.query_one("#prompt", PromptInput)
        await until(pilot, lambda: prompt.text == "hi", "the typed text")
        assert app.focused is prompt
        assert prompt.text == "hi"
