"""``!COMMAND`` in the message box: the person's own command runs in the workspace, its
output shows live and the model is told with the next message
(``app/agent/person_command.py``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pilot_wait import type_into, until
from tui_input_fakes import EchoRuntime, echo_app, echo_factory

from frontier.app.agent.person_command import command_of
from frontier.app.agent.session import AgentSession, SessionBusy
from frontier.app.events import Event, ToolFinished, ToolOutput, ToolStarted
from frontier.app.notices import split_notices, with_notices


def a_session(root: Path) -> tuple[AgentSession, EchoRuntime, list[Event]]:
    holder: list[EchoRuntime] = []
    session = echo_factory(root, holder)()
    seen: list[Event] = []
    session.subscribe(seen.append)
    return session, holder[0], seen


@pytest.mark.parametrize(
    ("typed", "command"),
    [
        ("!pytest -x", "pytest -x"),
        ("! git log -3 ", "git log -3"),
        ("!", None),
        ("hi !x", None),
        ("![the error](shot.png) why?", None),  # a pasted Markdown image: a message
    ],
)
def test_a_message_that_starts_with_a_bang_is_a_command(typed: str, command: str | None) -> None:
    assert command_of(typed) == command
    assert command_of(" " + typed) is None  # a blank first: sent as it reads


async def test_it_runs_in_the_workspace_and_the_model_is_told_with_the_next_message(
    tmp_path: Path,
) -> None:
    (tmp_path / "here.txt").write_text("x")
    session, runtime, seen = a_session(tmp_path)
    result = await session.run_command("ls; printf 'a\\n\\nb\\n'; exit 3")
    assert (result.kind, result.exit_code) == ("error", 3)
    assert result.output == "here.txt\na\n\nb\n[exit 3]"
    assert [type(e) for e in seen if not isinstance(e, ToolOutput)] == [ToolStarted, ToolFinished]
    assert {e.call.id for e in seen if isinstance(e, ToolStarted)} == {"!1"}
    assert "".join(e.data for e in seen if isinstance(e, ToolOutput)) == "here.txt\na\n\nb\n"
    assert runtime.loop.sent == []  # no turn started

    await session.send("why did it fail?")
    sent = runtime.loop.sent[0]
    notes, typed = split_notices(sent)  # what a resumed Transcript shows apart
    assert typed == "why did it fail?" and len(notes) == 1
    assert notes[0].startswith("(The user ran a command themselves in the workspace (exit 3")
    assert notes[0].endswith(
        "\n  $ ls; printf 'a\\n\\nb\\n'; exit 3\n  here.txt\n  a\n  \n  b\n  [exit 3]"
    )  # indented: the blank line of the output is not the end of the notes
    assert session.notices == ()  # told once
    await session.send("and now?")
    assert runtime.loop.sent[1] == "and now?"


async def test_a_second_command_is_told_too_in_order(tmp_path: Path) -> None:
    session, runtime, _ = a_session(tmp_path)
    await session.run_command("echo one")
    await session.run_command("echo two")
    await session.send("")
    notes, typed = split_notices(runtime.loop.sent[0])
    assert [n.split("\n")[1] for n in notes] == ["  $ echo one", "  $ echo two"]
    assert typed == "" and with_notices(notes, "") == runtime.loop.sent[0]


async def test_esc_stops_it_and_the_model_is_told_so(tmp_path: Path) -> None:
    session, _, seen = a_session(tmp_path)
    run = asyncio.ensure_future(session.run_command("echo started; sleep 30"))
    while not any(isinstance(e, ToolOutput) and "started" in e.data for e in seen):
        await asyncio.sleep(0.01)  # until the command has printed: the state, not a time
    assert session.cancel_tool()
    result = await run
    assert (result.kind, result.exit_code) == ("cancelled", 130)
    assert result.output == "started\n[cancelled by the user: process group killed, exit=130]"
    assert "(stopped by them after " in session.notices[0]
    assert not session.cancel_tool()  # nothing runs now


async def test_not_during_a_turn(tmp_path: Path) -> None:
    session, _, _ = a_session(tmp_path)
    session._busy = True  # a turn runs
    with pytest.raises(SessionBusy):
        await session.run_command("echo no")


async def test_in_the_tui_its_row_shows_and_a_message_typed_meanwhile_goes_after_it(
    tmp_path: Path,
) -> None:
    app, holder = echo_app(tmp_path)
    (tmp_path / "gate").mkdir()
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session")
        prompt = lambda: app.screen.query_one("#prompt")  # noqa: E731
        # the command waits until the test has queued a message (a file it makes)
        await type_into(
            pilot, prompt, "!echo hi; while [ ! -e gate/go ]; do sleep 0.05; done", "enter"
        )
        await until(pilot, lambda: "!1" in app.state.tools, "the command's row")
        assert app.state.turn_running  # Esc stops it; a message is queued meanwhile
        await type_into(pilot, prompt, "what now?", "enter")
        await until(pilot, lambda: bool(app.session and app.session.queued()), "queued")
        (tmp_path / "gate" / "go").touch()
        await until(pilot, lambda: bool(holder[0].loop.sent), "the queued message sent")
        notes, typed = split_notices(holder[0].loop.sent[0])
        assert typed == "what now?" and "\n  hi" in notes[0]
        row = app.state.tools["!1"]
        assert row.state == "ok" and row.output.startswith("hi")
        texts = [e.text for e in app.state.transcript]
        assert "!echo hi; while [ ! -e gate/go ]; do sleep 0.05; done" in texts


async def test_quitting_before_the_next_message_says_the_output_was_not_given(
    tmp_path: Path,
) -> None:
    app, _ = echo_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session")
        assert app.live is not None and app.live.commands_note() == ""
        await type_into(pilot, lambda: app.screen.query_one("#prompt"), "!echo hi", "enter")
        await until(pilot, lambda: bool(app.session and app.session.notices), "the note")
        await app.action_quit()
    assert app.quit_note == (
        "Your ! command's output was not given to the model (it goes with a message): "
        "↑ brings the command back."
    )
