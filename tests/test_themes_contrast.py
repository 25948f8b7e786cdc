"""Every theme can be read: WCAG contrast of text and borders, from the palette and on screen.

Text (the foreground, the accents, Frontier's own colour variables) must reach 4.5:1
against each background it is drawn on and pane borders 3:1 (WCAG 2.1, 1.4.3 and
1.4.11). frontier-light once drew its pane borders in the background colour: the
palette check catches a colour chosen badly, the Pilot check a stylesheet that draws
a border with some other, unchecked colour.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_wait import until
from textual.color import Color
from tui_fakes import fake_session

from frontier.app.config import Config, ConfigError, load_config
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.vocab import THEME_NAMES
from frontier.themes.palette import BACKGROUNDS, BORDER_COLOURS, TEXT_COLOURS, THEMES

TEXT_MIN = 4.5
BORDER_MIN = 3.0


def luminance(colour: Color) -> float:
    """WCAG relative luminance of an opaque sRGB colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


def contrast(a: Color, b: Color) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def resolve(value: str, over: Color) -> Color:
    """A theme colour as drawn over ``over``: Textual's ``auto N%`` is the contrasting
    colour of what is under it at N % opacity; a translucent colour is blended."""
    if value.startswith("auto"):
        alpha = float(value.split()[1].rstrip("%")) / 100 if " " in value else 1.0
        return over.blend(over.get_contrast_text(1.0), alpha)
    colour = Color.parse(value)
    return over.blend(colour.with_alpha(1.0), colour.a) if colour.a < 1 else colour


def colours(theme_name: str) -> dict[str, str]:
    theme = next(t for t in THEMES if t.name == theme_name)
    generated = theme.to_color_system().generate()
    return {**generated, **theme.variables}


def test_the_cli_names_exactly_the_palettes_themes() -> None:
    assert tuple(t.name for t in THEMES) == THEME_NAMES


@pytest.mark.parametrize("theme", THEME_NAMES)
@pytest.mark.parametrize("background", BACKGROUNDS)
def test_text_is_readable_on_every_background(theme: str, background: str) -> None:
    palette = colours(theme)
    under = Color.parse(palette[background])
    low = {
        name: round(contrast(resolve(palette[name], under), under), 2)
        for name in TEXT_COLOURS
        if contrast(resolve(palette[name], under), under) < TEXT_MIN
    }
    assert not low, f"{theme}: text on ${background} below {TEXT_MIN}:1: {low}"


@pytest.mark.parametrize("theme", THEME_NAMES)
@pytest.mark.parametrize("background", ("background", "surface"))
def test_borders_stand_out_from_the_background(theme: str, background: str) -> None:
    palette = colours(theme)
    under = Color.parse(palette[background])
    for name in BORDER_COLOURS:
        ratio = contrast(resolve(palette[name], under), under)
        assert ratio >= BORDER_MIN, f"{theme}: ${name} on ${background} is {ratio:.2f}:1"


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_diff_lines_are_readable_on_their_tint(theme: str) -> None:
    palette = colours(theme)
    text = Color.parse(palette["foreground"])
    for tint in ("diff-added-bg", "diff-removed-bg"):
        ratio = contrast(text, Color.parse(palette[tint]))
        assert ratio >= TEXT_MIN, f"{theme}: text on {tint} is {ratio:.2f}:1"


@pytest.mark.parametrize("theme", THEME_NAMES)
async def test_the_panes_borders_as_drawn_pass(theme: str) -> None:
    """The colour each pane's border is really drawn in (after the stylesheet), against
    what is around it and under it."""
    app = FrontierApp(Config(theme=theme), welcome=False, autostart=False, remember_theme=False)
    assert app.live is not None
    app.live.session = fake_session(Path("."), session_id="7f3a2b9c").session
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        panes = list(app.main.query(".pane"))
        assert len(panes) >= 5
        screen_bg = app.screen.styles.background
        failures = []
        for pane in panes:
            if not pane.display:
                continue
            edge, colour = pane.styles.border_top
            if not edge:
                continue
            _, inner = pane.background_colors
            for name, under in (("screen", screen_bg), ("pane", inner)):
                ratio = contrast(under.blend(colour.with_alpha(1.0), colour.a), under)
                if ratio < BORDER_MIN:
                    failures.append(f"#{pane.id} on the {name} background: {ratio:.2f}:1")
        assert not failures, f"{theme}: {failures}"


def test_an_unknown_theme_is_an_error_listing_the_themes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FRONTIER_THEME", "nope")
    with pytest.raises(ConfigError) as info:
        load_config()
    message = str(info.value)
    assert "unknown theme 'nope'" in message and "FRONTIER_THEME" in message
    assert all(name in message for name in THEME_NAMES)
