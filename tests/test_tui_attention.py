"""A person in another window is called back when a review waits or a turn ends
(``app/frontends/tui/attention.py``): once per absence, never while the window has the
focus, with the model's text scrubbed and pictured so it cannot escape the sequence."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_wait import opened, until
from textual import events
from tui_fakes import SHELL_SPEC, ask, asking_factory

from frontier.app.config import Config, ConfigError, load_config
from frontier.app.events import ToolCall, TurnEnded
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.attention import Attention, resolved, sequence
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.tools.contract import Preview

KEY = "sk-proj-a1B2c3D4e5F6g7H8i9J0kLmN"


@pytest.mark.parametrize(
    ("env", "how"),
    [
        ({"TERM_PROGRAM": "iTerm.app"}, "osc9"),
        ({"TERM_PROGRAM": "WezTerm"}, "osc9"),
        ({"TERM_PROGRAM": "ghostty"}, "osc9"),
        ({"TERM": "xterm-kitty"}, "osc9"),
        ({"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/tmux-0/default,1,0"}, "tmux"),
        ({"TERM": "screen", "STY": "123.pts-0.host"}, "bell"),
        ({"TERM": "xterm-256color"}, "bell"),
        ({}, "bell"),
    ],
)
def test_auto_sends_a_notification_only_where_the_terminal_shows_one(
    env: dict[str, str], how: str
) -> None:
    assert resolved("auto", env) == how
    assert resolved("off", env) == "off" and resolved("bell", env) == "bell"


def test_the_models_text_cannot_escape_the_sequence() -> None:
    hostile = "review shell printf '\x1b]52;c;cHduZWQ=\x07' \x9c" + "x" * 500
    sent = sequence("osc9", hostile)
    assert sent.startswith("\x1b]9;Frontier: review shell printf ")
    body = sent[len("\x1b]9;") : -1]
    assert sent.endswith("\a") and not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in body)
    assert len(body) <= 120 and body.endswith("…")
    assert sequence("bell", hostile) == "\a" and sequence("off", hostile) == ""
    tmux = sequence("tmux", hostile)  # the bell, then OSC 9 wrapped for tmux's passthrough
    assert tmux.startswith("\a\x1bPtmux;\x1b\x1b]9;Frontier: review shell printf ")
    assert tmux.endswith("\a\x1b\\") and tmux.count("\x1b") == 4


def test_once_per_absence() -> None:
    attention = Attention("bell")
    assert attention.call("review", away=False) == ""  # looking already
    assert attention.call("review", away=True) == "\a"
    assert attention.call("done", away=True) == ""  # still away: called already
    attention.focused()
    assert attention.call("done", away=True) == "\a"
    assert attention.call("review", away=False) == ""  # back (a key, no focus report)…
    assert attention.call("done", away=True) == "\a"  # …so away again is a new absence
    assert Attention("off").call("done", away=True) == ""


def test_the_setting_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTIER_NOTIFY", "osc9")
    assert load_config().notify == "osc9"
    monkeypatch.setenv("FRONTIER_NOTIFY", "desktop")
    with pytest.raises(ConfigError, match="notify"):
        load_config()


async def test_a_review_waiting_and_a_turn_ending_call_back_a_person_elsewhere() -> None:
    factory, _ = asking_factory(Path.cwd())
    app = FrontierApp(
        Config(model="smollm2", api_key=KEY, notify="osc9"),
        session_factory=factory,
        remember_theme=False,
    )
    written: list[str] = []
    app.write_terminal = written.append
    call = ToolCall("c7", "shell", {"command": f"curl -H 'Authorization: Bearer {KEY}' x"})
    preview = Preview(kind="command", command=str(call.args["command"]))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session")
        app.post_message(events.AppBlur())
        await until(pilot, lambda: not app.app_focus, "the window away")
        worker = app.run_worker(ask(app, call, SHELL_SPEC, preview), exit_on_error=False)
        await opened(pilot, ReviewScreen, "the review")
        await until(pilot, lambda: bool(written), "the call-back")
        assert written[0].startswith("\x1b]9;Frontier: ") and "review shell curl" in written[0]
        assert KEY not in written[0]  # scrubbed, as every sink

        app.observe(TurnEnded("done"))  # still away: called already
        assert len(written) == 1
        app.post_message(events.AppFocus())
        await until(pilot, lambda: app.app_focus, "the window back")
        await pilot.press("a")
        await worker.wait()
        app.observe(TurnEnded("max_turns"))  # looking: nothing
        assert len(written) == 1

        app.post_message(events.AppBlur())
        await until(pilot, lambda: not app.app_focus, "the window away again")
        app.observe(TurnEnded("max_turns"))
        assert len(written) == 2 and "stopped (max_turns)" in written[1]


async def test_the_end_of_the_persons_own_command_calls_them_back(tmp_path: Path) -> None:
    from tui_input_fakes import echo_app

    app, _ = echo_app(tmp_path, notify="bell")
    written: list[str] = []
    app.write_terminal = written.append
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session")
        assert app.live is not None
        app.post_message(events.AppBlur())
        await until(pilot, lambda: not app.app_focus, "the window away")
        app.run_worker(app.live.run_command("exit 4"))
        await until(pilot, lambda: bool(written), "the call-back")
        assert written == ["\a"]
        assert app.state.tools["!1"].state == "error"
