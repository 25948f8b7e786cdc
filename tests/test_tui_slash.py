"""Slash commands in the TUI (issue 23): the ``/`` menu, Tab and Enter, what each command
does, and that none of them reaches the model unless it is a prompt template."""

from __future__ import annotations

import os
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import focus_of, opened, until, workers_done
from pytest_textual_snapshot import SVGImageExtension
from textual.pilot import Pilot
from textual.widgets import TextArea
from tui_fakes import OLD, FakeRuntime, fake_session

from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.agent.session_ops import ModelSwitched
from frontier.app.config import Config
from frontier.app.events import Event, ToolFinished
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.help import HelpScreen
from frontier.app.frontends.tui.screens.pager import PagerScreen, PagerView
from frontier.app.frontends.tui.screens.session_diff import SessionDiffScreen
from frontier.tools.after_edit import AfterEditChecks, CheckSettings
from frontier.tools.base import CancelToken
from frontier.tools.formatting import Formatters
from frontier.tools.jobs import Jobs
from frontier.widgets.prompt_input import PromptInput
from frontier.widgets.slash_menu import SlashMenu
from frontier.widgets.status_bar import render_status

SIZES = {"80x24": (80, 24), "140x45": (140, 45)}
THEMES = ("frontier-dark", "frontier-light")  # a dark one and the light one (issue 23)


@pytest.fixture(autouse=True)
def _snapshots_in_tests_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).parent / "snapshots"

    def dirname(cls: Any, *, test_location: Any) -> str:
        return str(root / test_location.basename)

    monkeypatch.setattr(SVGImageExtension, "dirname", classmethod(dirname))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "greet.py").write_text(OLD)
    return ws


def make_app(
    workspace: Path,
    holder: list[FakeRuntime],
    jobs: Jobs | None = None,
    after_edit: AfterEditChecks | None = None,
    formatters: Formatters | None = None,
    **config: Any,
) -> FrontierApp:
    def factory() -> AgentSession:
        runtime = fake_session(
            workspace, block_shell=False, jobs=jobs, after_edit=after_edit, formatters=formatters
        )
        runtime.loop.script_tools = False  # these tests are about commands, not reviews
        holder.append(runtime)
        return runtime.session

    return FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="smollm2", **config),
        session_factory=factory,
        remember_theme=False,
    )


def prompt_of(app: FrontierApp) -> PromptInput:
    return app.main.query_one("#prompt", PromptInput)


def menu_of(app: FrontierApp) -> SlashMenu:
    return app.main.query_one(SlashMenu)


def menu_names(app: FrontierApp) -> list[str]:
    menu = menu_of(app)
    return [c.name for c in menu.commands] if menu.is_open else []


def notes(app: FrontierApp) -> list[str]:
    return [e.text for e in app.state.transcript if e.role == "note"]


def toasts(app: FrontierApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def ready(pilot: Pilot[Any]) -> PromptInput:
    app = pilot.app
    assert isinstance(app, FrontierApp)
    await until(pilot, lambda: app.session is not None, "the session")
    await focus_of(pilot, lambda: prompt_of(app), "the message box")
    return prompt_of(app)


async def test_slash_opens_the_menu_typing_filters_tab_completes(workspace: Path) -> None:
    app = make_app(workspace, [])
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await ready(pilot)
        await pilot.press("/")
        await until(pilot, lambda: len(menu_names(app)) >= 13, "the menu with every command")
        assert menu_names(app)[:3] == ["help", "model", "mode"]
        await pilot.press("e")
        await until(
            pilot, lambda: menu_names(app)[:3] == ["effort", "export", "exit"], "prefix first"
        )
        assert "help" in menu_names(app)  # then the names containing "e"
        await pilot.press("x", "i")
        await until(pilot, lambda: menu_names(app) == ["exit"], "only /exit")
        await pilot.press("backspace", "backspace", "backspace", "m", "o")
        await until(pilot, lambda: menu_names(app) == ["model", "mode", "memory"], "/mo")
        await pilot.press("down", "tab")
        await until(pilot, lambda: prompt.text == "/mode ", "/mode completed")
        assert not menu_of(app).is_open  # arguments follow: the menu is closed
        prompt.clear_prompt()
        await pilot.press("/", "h")
        # the name starting with what is typed first, then those containing it
        await until(pilot, lambda: menu_names(app) == ["help", "checks"], "the menu again")
        await pilot.press("escape")
        await until(pilot, lambda: not menu_of(app).is_open, "Esc closed the menu")
        assert prompt.text == "/h"  # only the menu closed; the text and the session stay
        assert not app.state.turn_running


async def test_a_slash_in_the_middle_or_a_recalled_prompt_opens_no_menu(workspace: Path) -> None:
    app = make_app(workspace, [])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("a", "/", "b")
        await pilot.pause()
        assert not menu_of(app).is_open


async def test_enter_runs_help_which_lists_the_commands(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await ready(pilot)
        await pilot.press("/", "h", "e")
        await until(pilot, lambda: menu_names(app) == ["help", "checks"], "/help in the menu")
        await pilot.press("enter")
        screen = await opened(pilot, HelpScreen, "the help screen")
        assert [c.name for c in screen.commands][:2] == ["help", "model"]
        assert prompt.text == ""
        assert holder[0].loop.sent == []  # never sent to the model


async def test_enter_runs_what_is_typed_even_before_the_menu_has_narrowed(
    workspace: Path,
) -> None:
    """Keys typed fast (tmux, a paste) can reach Enter while the menu still shows its
    first entry (/help): Enter runs the name typed, not the stale highlight."""
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = await ready(pilot)
        await pilot.press("/")
        await until(pilot, lambda: menu_of(app).is_open, "the menu")
        assert menu_names(app)[0] == "help"
        prompt.load_text("/approval")  # the menu has not seen this yet
        prompt.move_cursor(prompt.document.end)
        prompt._slash_key("enter")
        await until(pilot, lambda: any(n.startswith("approval ask: ") for n in notes(app)), "ran")
        assert not isinstance(app.screen, HelpScreen)
        # a command with its argument typed as fast: no name to narrow to, so the stale
        # menu's /help was run and the line lost (seen in tmux with `/checks trust`)
        await pilot.press("/")
        await until(pilot, lambda: menu_of(app).is_open, "the menu again")
        assert menu_names(app)[0] == "help"
        prompt.load_text("/effort high")
        prompt.move_cursor(prompt.document.end)
        prompt._slash_key("enter")
        said = "reasoning effort high from the next request"
        await until(pilot, lambda: said in notes(app), "/effort high run")
        assert not isinstance(app.screen, HelpScreen) and not menu_of(app).is_open
        await pilot.press("/")
        await until(pilot, lambda: menu_of(app).is_open, "and again")
        prompt.load_text("/approval ")
        prompt.move_cursor(prompt.document.end)
        prompt._slash_key("tab")  # nothing to complete: the line stays as typed
        assert prompt.text == "/approval " and not menu_of(app).is_open


async def test_an_unknown_command_is_refused_and_stays_in_the_box(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await ready(pilot)
        await pilot.press(*"/hepl me", "enter")
        await until(
            pilot,
            lambda: "unknown command /hepl — /help lists them" in toasts(app),
            "the refusal",
        )
        await workers_done(app)
        assert prompt.text == "/hepl me"
        assert holder[0].loop.sent == []


async def test_a_path_and_a_double_slash_are_sent_as_messages(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, approval="auto")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"/usr/bin is odd", "enter")
        await until(pilot, lambda: holder[0].loop.sent == ["/usr/bin is odd"], "the path sent")
        await until(pilot, lambda: not app.state.turn_running, "the turn to end")
        await workers_done(app)
        await pilot.press(*"//help me", "enter")
        await until(pilot, lambda: holder[0].loop.sent[-1:] == ["/help me"], "/help me sent")


async def test_a_custom_template_is_expanded_and_sent(workspace: Path) -> None:
    commands = workspace / ".frontier" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("# review a file\nReview $ARGUMENTS for bugs.\n")
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, approval="auto")
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await ready(pilot)
        await pilot.press("/", "r", "e", "v")
        await until(pilot, lambda: menu_names(app) == ["review"], "the project command")
        row = str(menu_of(app).get_option_at_index(0).prompt)
        assert "review a file" in row and "(project)" in row
        await pilot.press("enter")  # it takes arguments: Enter completes
        await until(pilot, lambda: prompt.text == "/review ", "completed, not run")
        await pilot.press(*"greet.py", "enter")
        expanded = "# review a file\nReview greet.py for bugs."
        await until(pilot, lambda: holder[0].loop.sent == [expanded], "the expansion sent")
        you = [e.text for e in app.state.transcript if e.role == "you"]
        assert you == [expanded]  # the Transcript shows what was sent
        assert prompt.prompts[-1] == "/review greet.py"  # ↑ recalls what was typed


async def test_clear_empties_the_models_context_and_says_so(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, approval="auto")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: holder[0].loop.sent == ["hello"], "a first turn")
        await until(pilot, lambda: not app.state.turn_running, "the turn to end")
        await workers_done(app)
        loop = holder[0].loop
        assert loop.history == ["hello"]
        await pilot.press(*"/clear", "enter")
        await until(
            pilot, lambda: any(n.startswith("context cleared") for n in notes(app)), "the note"
        )
        assert loop.history == []
        assert loop.sent == ["hello"]  # /clear never went to the model
        assert app.session is holder[0].session  # the same session
        # what came before is dimmed (the model no longer gets it); the note is not
        entries = list(app.state.transcript)
        hello = next(i for i, e in enumerate(entries) if e.role == "you")
        assert all(e.forgotten for e in entries[hello:-1]) and not entries[-1].forgotten


async def test_compact_compacts_now(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, approval="auto")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"/compact", "enter")
        await until(pilot, lambda: any("nothing to compact" in n for n in notes(app)), "nothing")
        holder[0].loop.history[:] = ["a", "b", "c"]
        await pilot.press(*"/compact", "enter")
        await until(pilot, lambda: holder[0].loop.compactions == 1, "a compaction")


async def test_model_switches_and_is_refused_during_a_turn(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    asked: list[tuple[str, str | None]] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        session = holder[0].session

        async def switch(model: str, provider: str | None) -> ModelSwitched:
            asked.append((model, provider))
            return ModelSwitched(model, "anthropic-messages", provider)

        session.model_switcher = switch
        await pilot.press(*"/model other --provider anthropic", "enter")
        await until(pilot, lambda: session.model == "other", "the switch")
        assert asked == [("other", "anthropic")]
        assert session.wire == "anthropic-messages" and session.provider == "anthropic"
        assert any(
            n.startswith("model other via anthropic (anthropic-messages)") for n in notes(app)
        )
        assert app.live is not None
        assert app.live.status(None).model == "other"
        await pilot.press(*"/model", "enter")
        await until(
            pilot,
            lambda: any(n.startswith("model other · provider anthropic") for n in notes(app)),
            "shown",
        )
        assert any(n.startswith("the catalogue knows: ") for n in notes(app))
        assert holder[0].loop.sent == []


async def test_mode_and_approval_show_and_switch(workspace: Path) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        session = holder[0].session
        await pilot.press(*"/approval", "enter")
        await until(pilot, lambda: any(n.startswith("approval ask: ") for n in notes(app)), "shown")
        assert any(n.startswith("  /approval auto: ") for n in notes(app))
        await pilot.press(*"/approval never", "enter")
        await until(pilot, lambda: any("unknown approval policy" in t for t in toasts(app)), "no")
        prompt_of(app).clear_prompt()
        await pilot.press(*"/mode xml", "enter")
        await until(pilot, lambda: session.mode == "xml", "mode xml")
        await pilot.press(*"/mode bogus", "enter")
        await until(pilot, lambda: any("unknown mode 'bogus'" in t for t in toasts(app)), "refused")
        assert prompt_of(app).text == "/mode bogus"
        prompt_of(app).clear_prompt()
        await pilot.press(*"/effort", "enter")
        await until(
            pilot, lambda: any(n.startswith("reasoning effort auto · ") for n in notes(app)), "e"
        )
        await pilot.press(*"/effort high", "enter")
        await until(pilot, lambda: session.effort == "high", "effort high")
        assert holder[0].loop.effort == "high"
        await pilot.press(*"/effort extreme", "enter")
        await until(pilot, lambda: any("unknown effort 'extreme'" in t for t in toasts(app)), "no")
        prompt_of(app).clear_prompt()
        await pilot.press(*"/sandbox read-only", "enter")
        await until(
            pilot, lambda: any("frontier -c --sandbox read-only" in n for n in notes(app)), "how"
        )
        assert holder[0].loop.sent == []


async def test_doctor_checks_the_setup_from_inside_and_says_it_in_the_transcript(
    workspace: Path,
) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await pilot.press(*"/doctor now", "enter")
        await until(pilot, lambda: "/doctor takes nothing, or --no-request" in toasts(app), "no")
        prompt_of(app).clear_prompt()
        await pilot.press(*"/doctor --no-request", "enter")
        await until(
            pilot,
            lambda: any(
                n.startswith("frontier doctor · ") and not n.endswith("…") for n in notes(app)
            ),
            "the whole report",
        )
        # one note, grown check by check and then whole: the "checking…" line replaced
        (whole,) = [n for n in notes(app) if "doctor" in n.splitlines()[0]]
        report = whole.splitlines()
        assert report[-1] != "…"
        assert report[0] == f"frontier doctor · {workspace}"
        assert "http://127.0.0.1:9/v1" in next(line for line in report if "endpoint" in line)
        assert any("reply" in line and "no request sent" in line for line in report)
        assert {"settings", "model", "sandbox", "storage", "workspace"} <= set(report)
        assert report[-1].endswith(("problem", "problems", "skipped"))
        assert holder[0].loop.sent == []  # nothing went to the model as a message


# --------------------------------------------------------------------------- /diff, real session


@pytest.fixture
def project(tmp_path: Path) -> Path:
    source = resources.files("frontier.app") / "demo_project"
    with resources.as_file(source) as src:
        shutil.copytree(src, tmp_path / "demo", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "demo"


def listed(lines: list[str]) -> bool:
    """``/jobs`` listed call_7 (its age, in seconds, between)."""
    return any(t.startswith("  call_7 · ") and t.endswith("s · sleep 300") for t in lines)


async def test_checks_lists_the_after_edit_checks_and_pauses_them_for_the_session(
    workspace: Path,
) -> None:
    app = make_app(workspace, [])
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = await ready(pilot)
        prompt.insert("/checks")
        await pilot.press("enter")
        await until(pilot, lambda: any("no after-edit checks or" in t for t in toasts(app)), "?")
    hook = AfterEditChecks([CheckSettings("ruff", "ruff check {files}", ("*.py",))], ".", None)
    black = Formatters([CheckSettings("black", "black -q -", ("*.py",))], ".", None)
    app = make_app(workspace, [], after_edit=hook, formatters=black)
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = await ready(pilot)
        prompt.insert("/checks")
        await pilot.press("enter")
        listed = "  check ruff · on *.py · 60 s · ruff check {files}"
        await until(pilot, lambda: listed in notes(app), "the checks listed")
        assert "  formatter black · on *.py · 60 s · black -q -" in notes(app)
        assert (
            "after-edit checks and formatters, on (/checks off); each runs with the workspace "
            "read-only:" in notes(app)
        )
        prompt.insert("/checks off")
        await pilot.press("enter")
        await until(pilot, lambda: hook.paused and black.paused, "paused, both")
        assert "after-edit checks and formatters paused: calls run none until /checks on" in (
            notes(app)
        )
        prompt.insert("/status")
        await pilot.press("enter")
        await until(pilot, lambda: any(n.startswith("/status") for n in notes(app)), "/status")
        status = next(n for n in notes(app) if n.startswith("/status"))
        assert "after-edit checks: ruff (*.py) · paused (/checks on)" in status
        assert "formatters: black (*.py) · paused (/checks on)" in status
        prompt.insert("/checks on")
        await pilot.press("enter")
        await until(pilot, lambda: not hook.paused and not black.paused, "on again")
        prompt.insert("/checks sometimes")
        await pilot.press("enter")
        await until(pilot, lambda: any("/checks takes nothing" in t for t in toasts(app)), "?")


async def test_checks_trust_trusts_the_projects_checks_and_the_next_call_runs_them(
    workspace: Path,
) -> None:
    """A project's ``.frontier/checks.toml`` waits for trust; ``/checks trust`` gives it and
    the open session takes it at once (the loader ``create_runtime`` gives the session)."""
    import functools
    import types

    from frontier.app.agent.runtime import _edit_hooks

    (workspace / ".frontier").mkdir()
    (workspace / ".frontier" / "checks.toml").write_text('[checks.lint]\nrun = "make lint"\n')
    app = make_app(workspace, [])
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = await ready(pilot)
        session = app.session
        assert session is not None and session.checks == ()
        boundary = types.SimpleNamespace(root=str(workspace), after_hook=None, formatters=None)
        session.edit_hooks_loader = functools.partial(_edit_hooks, boundary, None, lambda e: None)
        prompt.insert("/checks")
        await pilot.press("enter")
        waiting = (
            "  check lint · waits for your trust (/checks trust) · .frontier/checks.toml · "
            "make lint"
        )
        await until(pilot, lambda: waiting in notes(app), "the waiting check listed")
        assert "no after-edit check or formatter runs here yet:" in notes(app)
        prompt.insert("/checks trust")
        await pilot.press("enter")  # the question first: every command line, then y or n
        from frontier.app.frontends.tui.screens.trust import TrustScreen

        await until(pilot, lambda: isinstance(app.screen, TrustScreen), "the question")
        question = app.screen
        assert isinstance(question, TrustScreen)
        assert any("make lint" in line for line in question.lines)
        await pilot.press("n")
        said = "/checks trust: not trusted; they keep waiting (/checks lists them)"
        await until(pilot, lambda: said in notes(app), "declined")
        assert session.checks == () and boundary.after_hook is None
        app.typed_through = 3600.0  # keys typed on as the question opens are the message's
        prompt.insert("/checks trust")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TrustScreen), "the question again")
        await pilot.press("y")  # "yes, and…" typed on: not an answer
        await until(pilot, lambda: prompt.text == "y", "the key in the message")
        assert session.checks == () and isinstance(app.screen, TrustScreen)
        app.typed_through = 0.0  # a pause: the next key answers
        prompt.load_text("")
        await pilot.press("y")
        await until(pilot, lambda: session.checks != (), "the check taken")
        assert "/checks trust: check lint: make lint" in notes(app)
        assert any(n.endswith("; they run from the next call on") for n in notes(app))
        assert boundary.after_hook is not None and boundary.after_hook.checks[0].project
        prompt.insert("/checks")
        await pilot.press("enter")
        mine = "  check lint · on every file · 60 s · .frontier/checks.toml · make lint"
        await until(pilot, lambda: mine in notes(app), "listed as running")
        prompt.insert("/status")
        await pilot.press("enter")
        await until(pilot, lambda: any(n.startswith("/status") for n in notes(app)), "/status")
        status = next(n for n in notes(app) if n.startswith("/status"))
        assert "after-edit checks: lint (every file, the project) · run read-only" in status
        prompt.insert("/checks trust")
        await pilot.press("enter")
        nothing = "/checks trust: no project check or formatter is waiting for trust"
        await until(pilot, lambda: nothing in notes(app), "nothing left to trust")
        # trusted elsewhere (`frontier checks trust` in another terminal): taken too
        from frontier.app.checks_project import project_checks, trust

        with (workspace / ".frontier" / "checks.toml").open("a") as f:
            f.write('[formatters.fmt]\nrun = "cat"\n')
        trust(workspace, project_checks(workspace)[0])
        prompt.insert("/checks trust")
        await pilot.press("enter")
        await until(pilot, lambda: session.formatters != (), "the formatter taken")
        assert "/checks trust: the project's trusted since run from the next call: lint, fmt" in (
            notes(app)
        )


async def test_jobs_lists_the_background_jobs_and_stops_one_for_the_person(
    workspace: Path,
) -> None:
    """A dev server the model left running is in the status bar and in `/jobs`; `/jobs
    stop ID` stops it, and the model's next read of it says who did."""
    jobs = Jobs()
    app = make_app(workspace, [], jobs=jobs)
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = await ready(pilot)
        prompt.insert("/jobs")
        await pilot.press("enter")
        await until(pilot, lambda: "background jobs: none running" in notes(app), "none")
        job = await jobs.start(
            "call_7", "sleep 300", ["sleep", "300"], cwd=str(workspace), env={},
            contained=False, made=[],
        )  # fmt: skip
        try:
            live = app.live
            assert live is not None
            assert "1 background job (/jobs)" in render_status(live.status(None)).plain
            prompt.insert("/jobs")
            await pilot.press("enter")
            await until(pilot, lambda: listed(notes(app)), "the job listed")
            prompt.insert("/jobs stop nope")
            await pilot.press("enter")
            await until(
                pilot, lambda: any("no background job 'nope'" in t for t in toasts(app)), "?"
            )
            prompt.clear_prompt()
            prompt.insert("/jobs stop call_7")
            await pilot.press("enter")
            await until(pilot, lambda: "stopped background job call_7" in notes(app), "stopped")
            assert not job.running
            assert "job" not in render_status(live.status(None)).plain
        finally:
            await jobs.close()
    told = await job.read(0, None, CancelToken())  # the model's next read: who stopped it
    assert "stopped by the person after" in told.render()


async def test_jobs_show_prints_a_jobs_last_lines_and_leaves_the_models_reads_alone(
    workspace: Path,
) -> None:
    """The person could not see what the dev server the model started was printing (its
    errors, its port) unless the model read it: ``/jobs show ID`` shows its last lines,
    colours resolved, running or ended; the model's next read still gets all of it."""
    jobs = Jobs()
    app = make_app(workspace, [], jobs=jobs)
    script = (
        "printf '\\033[32mready\\033[0m on port 5173\\n'; for i in 1 2 3; do echo line $i; done; "
        "echo 'Authorization: Bearer sk-live-0123456789abcdef0123'"
    )
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = await ready(pilot)
        job = await jobs.start(
            "call_8", "vite", ["bash", "-c", script], cwd=str(workspace), env={},
            contained=False, made=[],
        )  # fmt: skip
        try:
            await job.over
            prompt.insert("/jobs show call_8")
            await pilot.press("enter")
            await until(pilot, lambda: "  │ line 3" in notes(app), "its last lines")
            assert any("Bearer [REDACTED]" in n for n in notes(app)), notes(app)
            shown = notes(app)
            assert "  │ ready on port 5173" in shown
            assert not any("sk-live" in n for n in shown)  # a server printing its env
            assert any(n.startswith("job call_8 · exited 0 after ") for n in shown), shown
            # and the pager has it too, not followed: the job has ended
            pager = await opened(pilot, PagerScreen, "the job's pager")
            assert pager.query_one(PagerView).lines[-2:] == [
                "line 3",
                "Authorization: Bearer [REDACTED]",
            ]
            assert pager.follow is None
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, PagerScreen), "closed")
            prompt.insert("/jobs show call_9")
            await pilot.press("enter")
            await until(
                pilot, lambda: any("no background job 'call_9'" in t for t in toasts(app)), "?"
            )
        finally:
            await jobs.close()
    read = await job.read(0, None, CancelToken())
    assert "ready on port 5173" in read.render() and "line 3" in read.output


async def test_jobs_show_follows_a_running_jobs_output(workspace: Path) -> None:
    """A dev server's log was seen as it was when asked; the pager now follows it while it
    runs (the job waits for a file the test makes: state, not time)."""
    jobs = Jobs()
    app = make_app(workspace, [], jobs=jobs)
    script = "echo listening on 8000; while [ ! -e go ]; do sleep 0.05; done; echo GET / 200"
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = await ready(pilot)
        job = await jobs.start(
            "call_5", "server", ["bash", "-c", script], cwd=str(workspace), env={},
            contained=False, made=[],
        )  # fmt: skip
        try:
            await until(pilot, lambda: "listening" in "".join(job.tail(5).lines), "its start")
            prompt.insert("/jobs show call_5")
            await pilot.press("enter")
            pager = await opened(pilot, PagerScreen, "the job's pager")
            view = pager.query_one(PagerView)
            assert view.lines == ["listening on 8000"] and pager.follow is not None
            (workspace / "go").touch()
            await until(pilot, lambda: view.lines[-1:] == ["GET / 200"], "the new line")
            await job.over
            await until(pilot, lambda: pager.follow is None, "the job's end")
            assert str(pager.query_one("#pager").border_subtitle).startswith("exited 0 after")
        finally:
            await jobs.close()


def demo_app(project: Path) -> tuple[FrontierApp, list[Event]]:
    """The TUI on the demo's real session in ``project`` (every call approved)."""
    events: list[Event] = []

    def factory() -> AgentSession:
        session = create_runtime(
            Config(protocol="ctl-heredoc", approval="auto"),
            interactive=True,
            demo=True,
            demo_rate=0,
            workspace=project,
        )
        session.subscribe(events.append)
        return session

    return FrontierApp(Config(), session_factory=factory, remember_theme=False), events


async def demo_done(pilot: Pilot[Any], app: FrontierApp, events: list[Event]) -> None:
    """Wait for the demo's turn to end and the message box to take keys."""
    done = lambda: any(  # noqa: E731
        isinstance(e, ToolFinished) and e.result.call_id == "c6" for e in events
    )
    await until(pilot, done, "the demo's last edit")
    await until(pilot, lambda: not app.state.turn_running, "the demo turn to end")
    await workers_done(app)
    await focus_of(pilot, lambda: prompt_of(app), "the message box")


async def test_diff_shows_what_the_session_changed(project: Path) -> None:
    before = {p.relative_to(project): p.read_bytes() for p in project.rglob("*") if p.is_file()}
    app, events = demo_app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await demo_done(pilot, app, events)
        await pilot.press(*"/diff", "enter")
        screen = await opened(pilot, SessionDiffScreen, "the session's diff")
        changed = {
            str(p.relative_to(project))
            for p in project.rglob("*")
            if p.is_file() and before.get(p.relative_to(project)) != p.read_bytes()
        }
        assert {f.path for f in screen.diff.files} == changed
        assert "README.md" in changed
        assert screen.diff.text.count("--- ") >= len(changed)
        await pilot.press("y")
        await until(
            pilot, lambda: "the session's diff is on the clipboard" in toasts(app), "copied"
        )
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SessionDiffScreen), "closed")


async def test_context_and_status_say_what_fills_the_window_and_what_runs(project: Path) -> None:
    app, events = demo_app(project)
    async with app.run_test(size=(140, 40)) as pilot:
        await demo_done(pilot, app, events)
        session = app.session
        assert session is not None
        await pilot.press(*"/context", "enter")
        await until(pilot, lambda: any(n.startswith("/context") for n in notes(app)), "/context")
        lines = next(n for n in notes(app) if n.startswith("/context")).splitlines()
        report = session.context_report()
        window = report.window
        assert window is not None
        assert lines[0].startswith("/context · ≈ ") and f"of a {window:,}-token window" in lines[0]
        rows = {line.split("  ")[1].strip(): line for line in lines[1:] if line.startswith("  ")}
        # ctl-heredoc: the tools are taught in the system prompt, counted apart
        assert "described in the system prompt" in rows["tools, built in"]
        assert "AGENTS.md" in rows["instructions"]
        assert {
            "system prompt",
            "your messages",
            "the model's replies",
            "tool results",
            "free",
        } <= (set(rows))
        assert sum(p.tokens for p in report.parts) == report.used
        assert report.largest  # the demo's reads are small: none worth naming
        assert not any(line.startswith("largest tool results: ") for line in lines)
        from frontier.tools.approval_rules import CommandRule

        session.allow_always(CommandRule("shell", "pytest -q"))
        await pilot.press(*"/status", "enter")
        await until(pilot, lambda: any(n.startswith("/status") for n in notes(app)), "/status")
        status = next(n for n in notes(app) if n.startswith("/status"))
        assert f"session {session.session_id} · workspace {project}" in status
        assert "protocol ctl-heredoc" in status and "approval auto: " in status
        assert f"stored in {Path(os.environ['FRONTIER_DATA_DIR'])}" in status
        assert "/context shows what fills it" in status
        assert "instructions: AGENTS.md (whole)" in status
        assert "after-edit checks: none ([checks.NAME] in config.toml" in status
        assert "always allowed (1): the command `pytest -q` — revoked from the palette" in status
        await pilot.press(*"/context now", "enter")
        await until(pilot, lambda: "/context takes nothing" in toasts(app), "refused")


# --------------------------------------------------------------------------- snapshots


def snapshot_app(theme: str) -> FrontierApp:
    app = FrontierApp(
        Config(model="smollm2", theme=theme),
        welcome=False,
        autostart=False,
        clock=lambda: 1000.0,
        token_rate=68.0,
        remember_theme=False,
    )
    fake = fake_session(Path("."), session_id="7f3a2b9c")
    assert app.live is not None
    app.live.session = fake.session
    return app


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
def test_slash_menu_snapshot(snap_compare: Any, size: str, theme: str) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, FrontierApp)
        await until(pilot, lambda: app.main.is_mounted, "the main screen")
        for box in app.query(TextArea):
            box.cursor_blink = False
        prompt = prompt_of(app)
        prompt.focus()
        await pilot.press("/", "m")
        await until(
            pilot,
            lambda: menu_names(app) == ["model", "mode", "mcp", "memory", "compact", "resume"],
            "/m",
        )
        app.flush(force=True)
        await pilot.pause()

    app = snapshot_app(theme)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
