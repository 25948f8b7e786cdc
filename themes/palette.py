"""Frontier's Textual themes: dark, light and high-contrast.

Confirmed, pending and error bytes differ by *style* as well as hue (pending is
italic + underlined, the frontier marker and errors are reversed/bold), so the
boundary reads the same on a monochrome terminal or for colour-blind users.
Each theme also names the pygments style used for syntax colours in diffs.

Every colour here is chosen to be read: text (the foreground, the accents, the
Frontier variables) has a WCAG contrast of at least 4.5:1 against each background it
is drawn on (``background``, ``surface``, ``panel``), and pane borders
(``border-blurred``; ``border`` when focused, Textual's own names, so Textual's
widgets use them too) at least 3:1 — ``tests/test_themes_contrast.py`` computes it.
Textual derived the blurred border from the surface, which left it almost invisible
(frontier-light drew its pane borders in the background colour).
"""

from __future__ import annotations

from textual.theme import Theme

from frontier.app.vocab import DEFAULT_THEME, THEME_NAMES

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
        "border-blurred": "#6b7280",
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
    accent="#9a4d00",
    warning="#7a5600",
    error="#c4161c",
    success="#15702f",
    foreground="#1f2328",
    background="#fbfbfc",
    surface="#f1f3f5",
    panel="#e4e7eb",
    dark=False,
    variables={
        "border-blurred": "#7c8591",
        "confirmed": "#1f2328",
        "pending": "#7a5600",
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
        "border-blurred": "#9a9a9a",
        "confirmed": "#ffffff",
        "pending": "#ffff00",
        "frontier-marker": "#00ffff",
        "diff-added-bg": "#003a00",
        "diff-removed-bg": "#4a0000",
        "syntax-style": "github-dark",
    },
)

THEMES: tuple[Theme, ...] = (FRONTIER_DARK, FRONTIER_LIGHT, FRONTIER_CONTRAST)
"""In the order of ``frontier.app.vocab.THEME_NAMES`` (where the CLI reads the names)."""
TEXT_COLOURS = (
    "foreground",
    "text",
    "text-muted",
    "primary",
    "secondary",
    "accent",
    "warning",
    "error",
    "success",
    "confirmed",
    "pending",
    "frontier-marker",
)
"""Colours drawn as text somewhere in the panes (checked at 4.5:1)."""
BACKGROUNDS = ("background", "surface", "panel")
"""What text and borders are drawn on."""
BORDER_COLOURS = ("border", "border-blurred")
"""Pane borders, focused and not (checked at 3:1)."""

__all__ = [
    "BACKGROUNDS",
    "BORDER_COLOURS",
    "DEFAULT_THEME",
    "TEXT_COLOURS",
    "THEMES",
    "THEME_NAMES",
    "theme_variable",
]


def theme_variable(theme: Theme | None, name: str, default: str) -> str:
    """A Frontier variable of ``theme`` (other Textual themes fall back to ``default``)."""
    if theme is None:
        return default
    return theme.variables.get(name, default)
