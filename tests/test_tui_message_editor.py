"""ctrl+g: the message box's text in the person's editor; what is saved comes back into
the box, not sent (``FrontierApp.action_edit_message``)."""

from __future__ import annotations

from pathlib import Path

from pilot_wait import type_into, until
from tui_input_fakes import echo_app

from frontier.widgets.prompt_input import PromptInput


async def test_the_message_comes_back_from_the_editor_and_is_not_sent(tmp_path: Path) -> None:
    app, holder = echo_app(tmp_path)
    opened: list[str] = []

    async def editor(path: Path) -> str | None:
        opened.append(path.read_text())
        path.write_text("first line\n\nsecond paragraph, written at length\n")  # vi's newline
        return None

    app.open_editor = editor
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session")
        prompt = app.screen.query_one("#prompt", PromptInput)
        await type_into(pilot, prompt, "draft", "ctrl+g")
        await until(pilot, lambda: prompt.text.startswith("first"), "the editor's text")
        assert opened == ["draft"]
        assert prompt.text == "first line\n\nsecond paragraph, written at length"
        assert holder[0].loop.sent == []  # not sent: Enter sends it
        await pilot.press("enter")
        await until(pilot, lambda: bool(holder[0].loop.sent), "sent")
        assert holder[0].loop.sent[0].startswith("first line\n\nsecond paragraph")


async def test_an_editor_that_fails_leaves_the_box_as_it_was(tmp_path: Path) -> None:
    app, _ = echo_app(tmp_path)

    async def failing(path: Path) -> str | None:
        path.write_text("half-written")
        return "the editor exited with status 1"

    app.open_editor = failing
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session")
        prompt = app.screen.query_one("#prompt", PromptInput)
        await type_into(pilot, prompt, "keep me", "ctrl+g")
        await until(
            pilot, lambda: any("status 1" in n.message for n in app._notifications), "the failure"
        )
        assert prompt.text == "keep me"
