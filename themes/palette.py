"""Frontier's Textual themes: dark, light and high-contrast.

Confirmed, pending and error bytes differ by *style* as well as hue (pending is
italic + underlined, the frontier marker and errors are reversed/bold), so the
boundary reads the same on a monochrome terminal or for colour-blind users.
Each theme also names the pygments style used for syntax colours in diffs.
"""

from __future__ import annotations

from textual.theme import Theme

FRONTIER_DARK = Theme(
    name="frontier-dark",
    primary="#5fafff",
    secondary="#af87ff",
    accent="#ffaf5f",
    warning="#ffd75f",
    error="#ff5f5f",
    success="#5fd787",
    foreground="#d0d4dc",
    background="#14161b",
    surface="#1b1e25",
    panel="#232731",
    dark=True,
    variables={
        "confirmed": "#d0d4dc",
        "pending": "#ffd75f",
        "frontier-marker": "#5fafff",
        "diff-added-bg": "#12361f",
        "diff-removed-bg": "#42171b",
        "syntax-style": "monokai",
    },
)

FRONTIER_LIGHT = Theme(
    name="frontier-light",
    primary="#0060c0",
    secondary="#6a3fc0",
    accent="#b35900",
    warning="#8a6100",
    error="#c4161c",
    success="#1a7f37",
    foreground="#1f2328",
    background="#fbfbfc",
    surface="#f1f3f5",
    panel="#e4e7eb",
    dark=False,
    variables={
        "confirmed": "#1f2328",
        "pending": "#8a6100",
        "frontier-marker": "#0060c0",
        "diff-added-bg": "#dafbe1",
        "diff-removed-bg": "#ffebe9",
        "syntax-style": "friendly",
    },
)

FRONTIER_CONTRAST = Theme(
    name="frontier-contrast",
    primary="#00ffff",
    secondary="#ff00ff",
    accent="#ffff00",
    warning="#ffff00",
    error="#ff3030",
    success="#00ff00",
    foreground="#ffffff",
    background="#000000",
    surface="#000000",
    panel="#1a1a1a",
    dark=True,
    luminosity_spread=0.25,
    text_alpha=1.0,
    variables={
        "confirmed": "#ffffff",
        "pending": "#ffff00",
        "frontier-marker": "#00ffff",
        "diff-added-bg": "#003a00",
        "diff-removed-bg": "#4a0000",
        "syntax-style": "github-dark",
    },
)

THEMES: tuple[Theme, ...] = (FRONTIER_DARK, FRONTIER_LIGHT, FRONTIER_CONTRAST)
THEME_NAMES: tuple[str, ...] = tuple(t.name for t in THEMES)
DEFAULT_THEME = "frontier-dark"


def theme_variable(theme: Theme | None, name: str, default: str) -> str:
    """A Frontier variable of ``theme`` (other Textual themes fall back to ``default``)."""
    if theme is None:
        return default
    return theme.variables.get(name, default)
