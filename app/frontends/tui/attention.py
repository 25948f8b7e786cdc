"""Calling a person back from another window: a review waits, or the turn ended.

A person who set the agent working and went to read mail found out it was waiting for
their approval only by looking: a turn that needed one review an hour in sat an hour.
Codex (``tui.notifications``) and Claude Code (``preferredNotifChannel``) send a desktop
notification or ring the bell then. Here, when the terminal says its window lost the
focus (focus reporting, which Textual turns on; a terminal that never says so is taken as
focused and nothing is sent):

- ``osc9`` — ``ESC ] 9 ; text BEL``, a desktop notification in iTerm2, WezTerm, Ghostty
  and kitty; other terminals ignore it (inside tmux it is not passed on);
- ``bell`` — BEL: a sound, or the tab, taskbar or tmux window marked;
- ``auto`` (the default) — ``osc9`` where ``TERM_PROGRAM``/``TERM`` name one of those
  terminals; under tmux the bell and OSC 9 wrapped for tmux's passthrough (the terminal
  outside shows it where ``allow-passthrough`` is on; tmux drops it otherwise); under
  screen, and elsewhere, ``bell``; ``off`` — nothing. tmux reports focus to the program
  only with ``focus-events on``.

Once per absence: after one call-back nothing more is sent until the window has had the
focus again (five parallel reviews are one notification). The text is the model's
(a command, a call's name) and goes into an escape sequence: it is scrubbed of secrets by
the caller and pictured here (``display_preview``), so no control character of it reaches
the terminal, and kept short.
"""

from __future__ import annotations

from collections.abc import Mapping

from frontier.widgets.display import display_preview

NOTIFYING_TERMINALS = frozenset({"iTerm.app", "WezTerm", "ghostty"})
"""``TERM_PROGRAM`` values of terminals that show an OSC 9 notification."""
NOTIFYING_TERMS = ("xterm-kitty", "xterm-ghostty")
"""``TERM`` values of such terminals that set no ``TERM_PROGRAM`` (kitty)."""
TEXT_LIMIT = 120
"""Characters of a notification's text at most."""


def resolved(setting: str, env: Mapping[str, str]) -> str:
    """``auto`` made ``osc9`` or ``bell`` for the terminal ``env`` describes; any other
    setting as it is."""
    if setting != "auto":
        return setting
    if env.get("TMUX"):
        return "tmux"  # the bell marks tmux's window; OSC 9 reaches the terminal outside
    if env.get("STY"):
        return "bell"  # screen drops OSC 9 but marks the window on a bell
    if env.get("TERM_PROGRAM") in NOTIFYING_TERMINALS:
        return "osc9"
    if env.get("TERM", "").startswith(NOTIFYING_TERMS):
        return "osc9"
    return "bell"


def sequence(how: str, text: str) -> str:
    """What to write to the terminal to call the person back with ``text`` (``""``:
    nothing), ``how`` being a resolved setting."""
    if how == "bell":
        return "\a"
    shown = display_preview(f"Frontier: {text}", one_line=True, limit=TEXT_LIMIT)
    if how == "osc9":
        return f"\x1b]9;{shown}\a"
    if how == "tmux":  # passed through (an ESC inside doubled) where allow-passthrough is on
        return f"\a\x1bPtmux;\x1b\x1b]9;{shown}\a\x1b\\"
    return ""


class Attention:
    """When to call the person back: at most once while the window is away."""

    def __init__(self, how: str) -> None:
        self.how = how
        self.called = False
        """A call-back went out since the window last had the focus."""

    def focused(self) -> None:
        self.called = False

    def call(self, text: str, *, away: bool) -> str:
        """The sequence to write for ``text`` now (``""``: none), given whether the
        window is ``away`` (unfocused)."""
        if not away:  # looking now (a key or a click says so too, without a focus report)
            self.called = False
            return ""
        if self.called or self.how == "off":
            return ""
        self.called = True
        return sequence(self.how, text)
