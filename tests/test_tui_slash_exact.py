"""The slash menu takes the name typed (issue 23): ``/mode`` + Enter runs ``/mode``, not
``/model`` (listed first, as every name beginning ``mode``); ``/init`` runs on the first
Enter (its notes are optional); a custom template using ``$ARGUMENTS`` still completes."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_wait import until
from test_tui_slash import make_app, menu_names, menu_of, notes, ready
from tui_fakes import OLD, FakeRuntime

from frontier.app.agent.slash import BUILTINS, INIT_TEMPLATE, SlashCommand


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "greet.py").write_text(OLD)
    return ws


async def test_mode_typed_out_and_enter_runs_mode_not_model(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = await ready(pilot)
        await pilot.press(*"/mode")
        await until(pilot, lambda: menu_names(app) == ["model", "mode"], "both listed")
        await until(pilot, lambda: menu_of(app).chosen() is not None, "a highlight")
        chosen = menu_of(app).chosen()
        assert chosen is not None and chosen.name == "mode"  # the exact name, not the first
        await pilot.press("enter")
        await until(pilot, lambda: any(n.startswith("mode ") for n in notes(app)), "/mode ran")
        assert not any(n.startswith("model ") for n in notes(app))
        assert prompt.text == ""
        await pilot.press(*"/mode", "tab")  # Tab completes the exact name too
        await until(pilot, lambda: prompt.text == "/mode ", "/mode completed")
        prompt.clear_prompt()
        await pilot.press(*"/mode", "up")  # the arrows still choose: ↑ to /model
        await until(pilot, lambda: getattr(menu_of(app).chosen(), "name", "") == "model", "↑")
        await pilot.press("enter")
        await until(pilot, lambda: any(n.startswith("model ") for n in notes(app)), "/model")
        assert holder[0].loop.sent == []


async def test_mode_enter_before_the_menu_caught_up_runs_mode(workspace: Path) -> None:
    """A burst (tmux, a paste) reaching Enter while the menu still lists ``/m``'s rows."""
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = await ready(pilot)
        await pilot.press("/", "m")
        await until(pilot, lambda: menu_names(app)[:2] == ["model", "mode"], "/m")
        prompt.load_text("/mode")  # the menu has not seen this yet
        prompt.move_cursor(prompt.document.end)
        prompt._slash_key("enter")
        await until(pilot, lambda: any(n.startswith("mode ") for n in notes(app)), "/mode ran")
        assert not any(n.startswith("model ") for n in notes(app))


async def test_init_runs_on_the_first_enter(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, approval="auto")
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = await ready(pilot)
        await pilot.press(*"/init")
        await until(pilot, lambda: menu_names(app)[:1] == ["init"], "/init in the menu")
        await pilot.press("enter")
        await until(pilot, lambda: len(holder[0].loop.sent) == 1, "the template sent")
        sent = holder[0].loop.sent[0]
        assert sent.startswith("Draft an AGENTS.md for this workspace")
        assert "$ARGUMENTS" not in sent
        assert prompt.text == ""
        assert prompt.prompts[-1] == "/init"  # ↑ recalls what was typed


def test_only_a_custom_template_with_arguments_completes_on_enter() -> None:
    assert not any(c.needs_argument for c in BUILTINS)
    custom = SlashCommand("review", "review", "[ARGUMENTS]", "project", "Review $ARGUMENTS.")
    assert custom.needs_argument
    plain = SlashCommand("standup", "standup", "", "user", "List what I did.")
    assert not plain.needs_argument
    init = next(c for c in BUILTINS if c.name == "init")
    assert init.template == INIT_TEMPLATE and not init.needs_argument  # runs on one Enter
