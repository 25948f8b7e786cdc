"""``frontier serve`` opens the lab layout (issue 23): a page in a browser is projected to
watch the CST boundary, so what serve launches — the demo, or a live session served with
``frontier serve -- --base-url …`` — shows the lab panes even when the person's remembered
layout is the conversation one; the same command in a terminal keeps the remembered one.

The served command is run as textual-serve runs it (``TEXTUAL_DRIVER`` naming Textual's
web driver) up to the App it builds; the App then runs under Pilot with a driver that
says it is the web one (``App.is_web``), which is all the web driver adds here."""

from __future__ import annotations

import shlex
from typing import Any

import pytest
from pilot_wait import until
from textual.drivers.headless_driver import HeadlessDriver

from frontier.app.cli import main as cli
from frontier.app.commands import serve
from frontier.app.config import save_setting
from frontier.app.frontends.tui.app import FrontierApp

LIVE = ["--base-url", "http://127.0.0.1:9/v1", "--model", "smollm2"]
SERVED = {"live session": LIVE, "demo": ["demo", "--rate", "0"]}


def launched(served: list[str], monkeypatch: pytest.MonkeyPatch) -> FrontierApp:
    """The App that ``frontier serve -- SERVED`` starts for a page, built as the served
    command builds it (its ``run`` caught before it takes a terminal)."""
    argv = shlex.split(serve.served_command(served))
    assert argv[1:3] == ["-m", "frontier.app.cli"]
    built: list[FrontierApp] = []

    def caught(self: FrontierApp, *args: Any, **kwargs: Any) -> int:
        built.append(self)
        return 0

    with monkeypatch.context() as patch:  # the App then runs under Pilot, not caught
        patch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
        patch.setattr(FrontierApp, "run", caught)
        assert cli(argv[3:]) == 0
    assert len(built) == 1
    return built[0]


async def first_layout(app: FrontierApp, *, web: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(HeadlessDriver, "is_web", property(lambda self: web))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        return app.main.layout_name


@pytest.mark.parametrize("name", list(SERVED))
async def test_what_serve_launches_opens_in_the_lab_layout(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_setting("layout", "conversation")  # the person's remembered choice
    app = launched(SERVED[name], monkeypatch)
    assert await first_layout(app, web=True, monkeypatch=monkeypatch) == "lab"


async def test_the_same_live_session_in_a_terminal_keeps_the_remembered_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    save_setting("layout", "conversation")
    app = launched(LIVE, monkeypatch)
    assert await first_layout(app, web=False, monkeypatch=monkeypatch) == "conversation"
