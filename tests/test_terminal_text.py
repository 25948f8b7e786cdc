"""What the model or the workspace sends is printed, never obeyed, by a terminal."""

from __future__ import annotations

import asyncio
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.events import AssistantText, ToolCall
from frontier.app.frontends.headless import EventPrinter, TerminalApprover
from frontier.app.frontends.terminal_text import terminal_safe
from frontier.tools.contract import Preview, ToolSpec

HIDING = "rm -rf ~ #\r\x1b[2Kls"
"""A command whose raw print shows only ``ls``: the carriage return and erase-line hide it."""


def test_control_sequences_are_shown_not_obeyed() -> None:
    assert terminal_safe(HIDING) == "rm -rf ~ #\\r\\x1b[2Kls"
    assert terminal_safe("title\x1b]0;pwned\x07 clip\x1b]52;c;aGk=\x07") == (
        "title\\x1b]0;pwned\\x07 clip\\x1b]52;c;aGk=\\x07"
    )
    assert terminal_safe("abc\u202edef\u2066") == "abc\\u202edef\\u2066"  # Trojan Source
    assert terminal_safe("\x9b31m") == "\\x9b31m"  # C1 CSI
    assert terminal_safe("lines\n\tindented é ✓") == "lines\n\tindented é ✓"


@given(st.text())
def test_nothing_a_terminal_acts_on_survives(text: str) -> None:
    shown = terminal_safe(text)
    assert not any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in shown)
    assert terminal_safe(shown) == shown  # the escapes themselves are plain text


def test_the_headless_printer_escapes_the_models_text() -> None:
    out = io.StringIO()
    printer = EventPrinter(out=out)
    printer(AssistantText("done\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07"))
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
    assert "done\\x1b[2J" in out.getvalue()


def test_the_person_approving_sees_the_whole_command(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    approver = TerminalApprover(out=out)
    call = ToolCall("c1", "shell", {"command": HIDING})
    spec = ToolSpec("shell", "run a command", {"type": "object"}, kind="exec")
    decision = asyncio.run(approver.approve(call, spec, Preview("command", command=HIDING)))
    assert not decision.approved
    assert "rm -rf ~ #\\r\\x1b[2Kls" in out.getvalue() and "\r" not in out.getvalue()


def test_the_tui_transcript_shows_control_pictures_not_escapes() -> None:
    """Seen in tmux before the fix: a reply with ``\\x1b[2J`` and ``\\r`` tore the layout."""
    from frontier.app.events import Confirmed, ResponseStarted, StreamBytes
    from frontier.widgets.state import UiState

    reply = "All clean.\x1b[2J\r\x1b[2KNothing to see.\n"
    state = UiState()
    state.apply(ResponseStarted("ctl-heredoc", 0))
    state.apply(StreamBytes(0, reply.encode()))
    state.apply(Confirmed(0, "text", reply.encode()))
    state.apply(AssistantText(reply))
    texts = [entry.text for entry in state.transcript] + [row.label for row in state.confirmed]
    assert texts and all("\x1b" not in t and "\r" not in t for t in texts)
    assert any("␛[2J␍␛[2K" in t for t in texts)
