"""The TUI demo tells the story twice: CTL first, then ctrl+n runs it with native calls."""

from __future__ import annotations

from pilot_wait import until

from frontier.app.config import Config
from frontier.app.events import ResponseStarted, ToolFinished
from frontier.app.frontends.tui.app import FrontierApp


async def test_ctrl_n_replays_the_demo_task_with_native_tool_calls() -> None:
    app = FrontierApp(
        Config(protocol="ctl-heredoc", approval="auto"),
        demo=True,
        demo_rate=0,
        remember_theme=False,
    )
    seen: list[object] = []
    original = app.observe

    def observe(event: object) -> None:
        seen.append(event)
        original(event)  # type: ignore[arg-type]

    app.observe = observe  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await until(
            pilot,
            lambda: (
                app.session is not None
                and not app.state.turn_running
                and any(isinstance(e, ToolFinished) for e in seen)
            ),
            "the CTL demo",
        )
        await until(pilot, lambda: not app.state.turn_running and len(seen) > 50, "its end")
        first = app.session
        await pilot.press("ctrl+n")
        await until(
            pilot,
            lambda: app.session is not first and app.session is not None,
            "a native-inc runtime",
        )
        await until(
            pilot,
            lambda: any(isinstance(e, ResponseStarted) and e.mode == "native-inc" for e in seen),
            "a native-inc response",
        )
        await until(
            pilot,
            lambda: (
                not app.state.turn_running
                and "--shout" in (app.session.workspace / "greet" / "cli.py").read_text()
            ),
            "the native-inc patch",
        )
        assert app.session.mode == "native-inc"
        assert app.session.workspace != first.workspace
