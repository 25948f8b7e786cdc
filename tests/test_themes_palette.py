"""The command palette offers only the checked themes (and remembers the choice), and its
Screenshot works on a machine without ``~/Downloads``, saying where the file went."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_wait import until

from frontier.app.config import Config, data_dir, load_config
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.vocab import THEME_NAMES


def app_for(**kw: object) -> FrontierApp:
    return FrontierApp(Config(), welcome=False, autostart=False, **kw)  # type: ignore[arg-type]


async def test_textuals_theme_picker_is_not_offered_ours_are() -> None:
    app = app_for(remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        titles = [c.title for c in app.get_system_commands(app.screen)]
    assert "Theme" not in titles  # Textual's picker: unchecked themes, never remembered
    assert [t for t in titles if t.startswith("Theme: ")] == [f"Theme: {n}" for n in THEME_NAMES]
    assert titles.count("Screenshot") == 1


async def test_a_theme_chosen_in_the_palette_is_remembered() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        command = next(
            c for c in app.get_system_commands(app.screen) if c.title == "Theme: frontier-contrast"
        )
        command.callback()
        await until(pilot, lambda: app.config.theme == "frontier-contrast", "the theme saved")
    assert load_config().theme == "frontier-contrast"


async def test_screenshot_without_downloads_goes_to_the_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home-without-downloads"))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    app = app_for(remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        command = next(c for c in app.get_system_commands(app.screen) if c.title == "Screenshot")
        assert str(data_dir() / "screenshots") in command.help
        command.callback()
        await until(
            pilot,
            lambda: any("saved to" in n.message for n in app._notifications),
            "the notice naming the file",
        )
        message = next(n.message for n in app._notifications if "saved to" in n.message)
    saved = Path(message.removeprefix("saved to "))
    assert saved.parent == data_dir() / "screenshots" and saved.suffix == ".svg"
    assert saved.read_text("utf-8").startswith("<svg")
    assert not (tmp_path / "home-without-downloads" / "Downloads").exists()


async def test_a_screenshot_that_cannot_be_written_says_why(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    app = app_for(remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        assert app.deliver_screenshot(path=str(blocked / "sub")) is None
        await until(pilot, lambda: bool(app._notifications), "the error notice")
        notice = next(iter(app._notifications))
    assert notice.severity == "error" and str(blocked / "sub") in notice.message
