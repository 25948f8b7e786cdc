"""A front end's display that raises on an event never reaches the session
(``EventHub.emit``): the observer is called from inside a tool streaming its output and
from the boundary committing a result. Before, the exception became the call's result
("internal error while running shell") for a command that ran, and the tool's output
reader died with it, so a command printing more than a pipe holds stalled until its
time limit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from wire_scripts import Call, Text, WireServer, args, loopback_config, script, serve_wire
from wire_scripts import stream as reply

from frontier.app.agent.runtime import create_runtime
from frontier.app.events import Event, ToolFinished, ToolOutput
from frontier.app.record import replace

CHATTY = f"{sys.executable} -c \"[print('line', i) for i in range(40000)]\""
"""~450 KB of output: far more than a pipe holds while nobody reads it."""


async def test_a_display_that_raises_misses_the_event_and_the_command_runs_on(
    tmp_path: Path,
) -> None:
    wire = "openai-chat"
    server = WireServer(wire)
    call = Call("c1", "shell", args(command=CHATTY, timeout=60))
    server.answer(
        reply(script(wire, [Text("Running it."), call])),
        reply(script(wire, [Text("Done.")])),
    )

    def broken(event: Event) -> None:
        if isinstance(event, ToolOutput):
            raise ValueError("a display bug")

    seen: list[Event] = []
    async with serve_wire(server) as url:
        config = replace(loopback_config(url, wire), protocol="native-inc", sandbox="off")
        session = create_runtime(config, workspace=tmp_path)
        session.subscribe(broken)
        session.subscribe(seen.append)  # subscribed after the broken one: still told
        try:
            ended = await session.send("go")
            failures = session.observer_failures
        finally:
            await session.close()
    result = next(e.result for e in seen if isinstance(e, ToolFinished))
    assert (result.kind, result.exit_code) == ("ok", 0), result.output[:300]
    assert "line 39999" in result.output  # read to the end, not stalled on a full pipe
    assert ended.reason == "done"
    assert any(isinstance(e, ToolOutput) for e in seen)
    missed, words = failures
    assert missed >= 1 and words[0] == "ValueError: a display bug (showing ToolOutput)"
    told = server.requests[-1].text
    assert "internal error" not in told and "line 39999" in told


async def test_frontier_run_says_what_its_output_missed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The text form's own bug: the run goes on, stderr says what was missed and where the
    whole record is, and the exit status is 1."""
    from frontier.app.frontends.headless import EventPrinter, run_headless

    wire = "openai-chat"
    server = WireServer(wire)
    call = Call("c1", "shell", args(command="echo hi > made.txt"))
    server.answer(
        reply(script(wire, [Text("Running it."), call])),
        reply(script(wire, [Text("Done.")])),
    )
    take = EventPrinter._take

    def broken(self: EventPrinter, event: Event) -> None:
        if isinstance(event, ToolFinished):
            raise ValueError("a printer bug")
        take(self, event)

    monkeypatch.setattr(EventPrinter, "_take", broken)
    async with serve_wire(server) as url:
        config = replace(
            loopback_config(url, wire), protocol="native-inc", sandbox="off", approval="auto"
        )
        status = await run_headless(config, prompts=["go"], workspace=tmp_path)
    err = capsys.readouterr().err.splitlines()
    assert status == 1
    assert (tmp_path / "made.txt").read_text() == "hi\n"
    assert err[-1].startswith(
        "frontier: the output missed 1 event(s) (ValueError: a printer bug (showing "
        "ToolFinished)); the session's record is whole: frontier export "
    )


async def test_the_tui_says_once_that_its_screen_missed_an_event() -> None:
    """The TUI's own observer raising: told once in a toast, with where the record is."""
    from pilot_wait import until
    from test_tui_tool_output import live_app

    from frontier.app.events import Notice

    app = live_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        session = app.session
        assert session is not None

        def broken(event: Event) -> None:
            raise RuntimeError("a row that would not draw")

        session.subscribe(broken)
        session._events.emit(Notice("one"))
        session._events.emit(Notice("two"))

        def told() -> list[str]:
            return [n.message for n in app._notifications if "screen missed" in n.message]

        await until(pilot, lambda: bool(told()), "the toast")
        session._events.emit(Notice("three"))
        app._tick()  # a later failure is counted, not told again
        await pilot.pause()
        assert session.observer_failures[0] == 3
        assert told() == [
            "The screen missed an event (RuntimeError: a row that would not draw (showing "
            "Notice)); the session goes on and its record is whole (frontier export). "
            "Please report this."
        ]
