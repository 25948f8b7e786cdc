"""Keys typed fast on a pane (issue 23): a burst reaches the prompt whole, in order.

A terminal delivers what arrives in one read as one run of events (``tmux send-keys``
of a string, a fast typist, a paste without bracketed paste): the App has taken them
all before the pane handles the first. Each test feeds the terminal's bytes through
Textual's own parser (what the driver does with one read) and posts every event
before any await, then checks that the prompt holds exactly the text.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_wait import focus_of, until
from test_tui_layouts import live_app, prompt_of
from test_tui_snapshots import settle
from textual._xterm_parser import XTermParser
from textual.widget import Widget

from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.help import HelpScreen
from frontier.widgets.slash_menu import SlashMenu
from frontier.widgets.tools_pane import ToolsPane
from frontier.widgets.transcript import Transcript


def one_read(app: FrontierApp, data: str) -> None:
    """``data`` as the driver hands it over after one read of the terminal: every event
    posted to the App before it handles the first."""
    for event in XTermParser().feed(data):
        app.post_message(event)


async def on_pane(app: FrontierApp, pilot: object, pane: Widget) -> None:
    pane.focus()
    await until(pilot, lambda: pane.has_focus, f"{pane} focused")  # type: ignore[arg-type]


@pytest.mark.parametrize("layout", ["conversation", "lab"])
async def test_a_burst_of_keys_on_a_pane_reaches_the_prompt_whole(
    tmp_path: Path, layout: str
) -> None:
    app, _ = live_app(tmp_path, layout=layout)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        await on_pane(app, pilot, app.main.query_one(Transcript))
        one_read(app, "hello world")
        prompt = prompt_of(app)
        await until(pilot, lambda: prompt.text == "hello world", "the whole burst")
        await focus_of(pilot, prompt, "the prompt")
        if layout == "lab":  # another pane, and text already in the box: appended
            await on_pane(app, pilot, app.main.query_one(ToolsPane))
            one_read(app, " and more")
            await until(pilot, lambda: prompt.text == "hello world and more", "appended")
        await pilot.pause()
        assert prompt.text == ("hello world and more" if layout == "lab" else "hello world")


async def test_a_question_mark_first_in_a_burst_is_typed_not_help(tmp_path: Path) -> None:
    app, _ = live_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await on_pane(app, pilot, app.main.query_one(Transcript))
        one_read(app, "?ok")
        prompt = prompt_of(app)
        await until(pilot, lambda: prompt.text == "?ok", "the burst with its ?")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_a_slash_command_typed_fast_on_a_pane_opens_the_menu(tmp_path: Path) -> None:
    app, _ = live_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await on_pane(app, pilot, app.main.query_one(Transcript))
        one_read(app, "/model m2")
        prompt = prompt_of(app)
        await until(pilot, lambda: prompt.text == "/model m2", "the command typed")
        one_read(app, "\x7f\x7f\x7f")  # backspace to `/model`: typed text, the menu follows
        await until(pilot, lambda: app.main.query_one(SlashMenu).is_open, "the slash menu")


@pytest.mark.parametrize("layout", ["conversation", "lab"])
async def test_a_bracketed_paste_on_a_pane_goes_to_the_prompt(tmp_path: Path, layout: str) -> None:
    app, _ = live_app(tmp_path, layout=layout)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        pane = app.main.query_one(ToolsPane if layout == "lab" else Transcript)
        await on_pane(app, pilot, pane)
        one_read(app, "ab\x1b[200~pasted text\nline two\x1b[201~cd")
        prompt = prompt_of(app)
        await until(pilot, lambda: prompt.text == "abpasted text\nline twocd", "keys, paste, keys")
        await focus_of(pilot, prompt, "the prompt")
        await on_pane(app, pilot, pane)  # a paste alone, first thing on the pane
        one_read(app, "\x1b[200~ again\x1b[201~")
        await until(pilot, lambda: prompt.text.endswith("line twocd again"), "the paste")
