"""The sandbox in the TUI (issue 22): the status bar, the command review, where a call ran.

The status bar says where commands run (``sandbox: workspace-write · net off``,
``sbx ws-write·net off`` at 80 columns, ``sandbox: unavailable`` as a warning); the
review of a command says whether it runs inside or outside, and a command the sandbox
stopped is offered once outside it, plainly, with no "always allow"; a finished
command's line in the Transcript (and the inspector) names the sandbox it ran under.

Sessions are the real ``AgentSession`` around the scripted ``FakeLoop``
(``tui_fakes``); the session's ``sandbox_label`` is set on its class for the test.
Everything is read as the terminal shows it, at 80×24 and 120×40.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import eventually, opened, screen_lines, until, workers_done
from rich.style import Style
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static
from tui_fakes import OLD, SHELL_SPEC, FakeLoop, FakeRuntime, fake_factory

from frontier.app.agent.explain import Explanation, NextAttempt, explain_recording
from frontier.app.agent.session import AgentSession
from frontier.app.config import Config
from frontier.app.events import ToolCall, ToolResult
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.sandbox_text import ran_under
from frontier.app.frontends.tui.screens.inspector import InspectorScreen
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.app.session.record import read_recording
from frontier.themes.palette import THEMES
from frontier.tools.approval_rules import offer
from frontier.tools.contract import Decision, Preview
from frontier.widgets.state import ErrorRow
from frontier.widgets.status_bar import StatusBar, StatusInfo, render_status

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
sizes = pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))

INSIDE = "workspace-write · net off"
SHELL_CALL = ToolCall("c3", "shell", {"command": "pytest -q"})


def static_text(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


# ---------------------------------------------------------------------- the status bar
IDLE = StatusInfo(
    model="qwen2.5-coder-7b-instruct",
    mode="ctl-heredoc",
    token_rate=None,
    frontier=1234,
    pending=0,
    session="7f3a2b9c-0000",
    activity="idle",
    approval="auto-edit",
    tokens_in=12_000,
    tokens_out=800,
    context=0.12,
)


@pytest.mark.parametrize(
    ("label", "at_80", "at_120"),
    [
        (INSIDE, "sbx ws-write·net off", "sandbox: workspace-write · net off"),
        ("read-only · net on", "read-only", "sandbox: read-only · net on"),
        ("off", "sbx off", "sandbox: off"),
        ("unavailable: no bwrap", "sandbox: unavailable", "sandbox: unavailable"),
    ],
    ids=["workspace-write", "read-only", "off", "unavailable"],
)
def test_the_bar_names_the_sandbox_in_the_form_that_fits(
    label: str, at_80: str, at_120: str
) -> None:
    info = replace(IDLE, sandbox=label)
    for width, want in ((78, at_80), (118, at_120)):  # the bar's 1-cell padding each side
        line = render_status(info, width)
        assert want in line.plain, (width, line.plain)
        assert line.cell_len <= width
        assert line.plain.startswith("idle · auto-edit · ")  # beside the approval policy


def test_an_unavailable_sandbox_is_a_warning_kept_while_a_turn_runs() -> None:
    busy = replace(IDLE, working=65.0, activity="running c3", spinner="⠋", token_rate=40.0)
    warning = Style(bold=True, color="yellow", reverse=True)
    line = render_status(replace(busy, sandbox="unavailable: no user namespaces"), 78, warning)
    assert "sandbox: unavailable" in line.plain
    start = line.plain.index("sandbox: unavailable")
    styles = {span.style for span in line.spans if span.start <= start < span.end}
    assert warning in styles
    # wide enough, it says why
    wide = render_status(replace(IDLE, sandbox="unavailable: no user namespaces"), 300)
    assert "sandbox: unavailable (no user namespaces)" in wide.plain
    # an ordinary sandbox gives way to the stream's fields at 80 columns, as the model does
    assert "sbx" not in render_status(replace(busy, sandbox=INSIDE), 78).plain
    assert "sbx ws-write·net off" in render_status(replace(busy, sandbox=INSIDE), 118).plain


def test_no_label_shows_nothing() -> None:
    assert "sbx" not in render_status(IDLE, 300).plain
    assert "sandbox" not in render_status(IDLE, 300).plain


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "greet.py").write_text(OLD)
    return tmp_path


def make_app(
    workspace: Path,
    holder: list[FakeRuntime],
    label: str = "off",
    active: bool = False,
    **kw: Any,
) -> FrontierApp:
    """The TUI over a scripted session whose sandbox is ``label`` (as the runtime sets
    ``AgentSession.sandbox_label`` / ``sandbox_active``)."""
    make = fake_factory(workspace, holder, **kw)

    def factory() -> AgentSession:
        session = make()
        session.sandbox_label, session.sandbox_active = label, active
        return session

    return FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="smollm2"),
        session_factory=factory,
        remember_theme=False,
    )


def bar_line(app: App[Any]) -> str:
    lines = screen_lines(app)
    bar = app.screen.query_one(StatusBar)
    return lines[bar.region.y]


@sizes
@pytest.mark.parametrize(
    ("label", "wide", "narrow", "active"),
    [
        (INSIDE, "sandbox: workspace-write · net off", "sbx ws-write·net off", True),
        ("off", "sandbox: off", "sbx off", False),
        ("unavailable: no bwrap", "sandbox: unavailable", "sandbox: unavailable", False),
    ],
    ids=["on", "off", "unavailable"],
)
async def test_the_live_status_bar_shows_the_sessions_sandbox(
    workspace: Path,
    size: tuple[int, int],
    label: str,
    wide: str,
    narrow: str,
    active: bool,
) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, label, active)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: bool(holder) and app.session is not None, "the session")
        # at 80 columns the short form, unless the full one still fits (a short model name)
        wants = (wide,) if size[0] >= 120 else (narrow, wide)

        def check() -> None:
            line = bar_line(app)
            assert any(want in line for want in wants), line
            assert len(line.rstrip()) <= size[0]

        await eventually(pilot, check, "the sandbox in the status bar")


# ---------------------------------------------------------------------- the review
class ReviewApp(App[None]):
    """One command review over an empty screen; ``decisions`` gets its answer."""

    def __init__(self, preview: Preview, *, always_allow: bool = True) -> None:
        super().__init__()
        for theme in THEMES:
            self.register_theme(theme)
        self.preview = preview
        self.always_allow = always_allow
        self.decisions: list[Decision] = []
        self.screen_made: ReviewScreen | None = None

    def on_load(self) -> None:
        self.theme = "frontier-dark"

    def on_mount(self) -> None:
        screen = ReviewScreen(SHELL_CALL, SHELL_SPEC, self.preview, always_allow=self.always_allow)
        self.push_screen(screen, self.decisions.append)


async def decided(pilot: Pilot[Any]) -> Decision:
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await until(pilot, lambda: bool(app.decisions), "the decision")
    return app.decisions[0]


@sizes
async def test_a_sandboxed_command_says_it_runs_inside(size: tuple[int, int]) -> None:
    app = ReviewApp(Preview(kind="command", command="pytest -q", sandbox=INSIDE))
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot, ReviewScreen, "the review")
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert f"runs inside the sandbox ({INSIDE})" in text
        assert "OUTSIDE" not in text
        assert not screen.query_one("#review-where").has_class("-outside")
        assert not screen.query("#review-escalation")
        assert "pytest -q" in text
        assert "always allow" in static_text(screen, "#review-more")
        await pilot.press("a")
        assert await decided(pilot) == Decision(True)


@sizes
async def test_an_unsandboxed_command_says_outside_as_a_warning(size: tuple[int, int]) -> None:
    app = ReviewApp(Preview(kind="command", command="pytest -q", sandbox=None))
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot, ReviewScreen, "the review")
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert "runs OUTSIDE the sandbox" in text
        assert "runs inside" not in text
        where = screen.query_one("#review-where", Static)
        assert where.has_class("-outside")
        assert where.styles.text_style.bold
        await pilot.press("d")  # a reason box opens; esc there goes back, esc denies
        await pilot.press("escape", "escape")
        assert not (await decided(pilot)).approved


LONG_COMMAND = "\n".join(f"echo step {n}" for n in range(1, 31)) + "\ngit commit -am wip"
STOPPED = "write to .git/index.lock (the workspace's .git is read-only)"


@sizes
async def test_an_escalation_asks_plainly_and_offers_no_always_allow(
    size: tuple[int, int],
) -> None:
    preview = Preview(kind="command", command=LONG_COMMAND, sandbox=None, escalation=STOPPED)
    assert offer(SHELL_CALL, SHELL_SPEC, preview) is not None  # a rule would fit: not offered
    app = ReviewApp(preview, always_allow=True)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot, ReviewScreen, "the review")
        await pilot.pause()
        text = " ".join(line.strip(" █") for line in screen_lines(app))
        assert "seems to have stopped this command (read from its output): write to" in text
        assert "Run it once outside the sandbox?" in text
        assert "runs OUTSIDE the sandbox" in text
        assert "outside the sandbox" in str(screen.query_one("#review").border_title)
        assert screen.offer is None
        assert not screen.check_action("always", ())
        assert "always" not in static_text(screen, "#review-more")
        # the command as usual: every line counted, approving only once the end was seen
        assert "31 lines" in static_text(screen, "#review-head")
        assert "scroll to the end" in static_text(screen, "#review-keys")
        # the head, the question, the where line and the keys all stay on screen
        lines = screen_lines(app)
        assert any("echo step 1" in line for line in lines)
        assert any("d deny" in line for line in lines)
        await pilot.press("A")  # nothing: no rule for an escalation
        await pilot.press("end")

        def at_end() -> None:
            assert any("git commit -am wip" in line for line in screen_lines(app))
            assert static_text(screen, "#review-keys").startswith("a run once outside the sandbox")

        await eventually(pilot, at_end, "the end of the command and the run-once key")
        await pilot.press("a")
        decision = await decided(pilot)
    assert decision == Decision(True)
    assert screen.always is None


@sizes
async def test_an_escalation_can_be_denied(size: tuple[int, int]) -> None:
    preview = Preview(kind="command", command="git commit -am wip", escalation=STOPPED)
    app = ReviewApp(preview)
    async with app.run_test(size=size) as pilot:
        await opened(pilot, ReviewScreen, "the review")
        await pilot.press("escape")
        assert not (await decided(pilot)).approved


# ---------------------------------------------------------------------- where it ran
def test_ran_under_reads_the_results_meta() -> None:
    on = {"sandbox": {"mode": "workspace-write", "network": False}}
    assert ran_under(on) == ["sandbox: workspace-write · net off"]
    assert ran_under({"sandbox": {"mode": "escalated", "network": True}}) == [
        "outside the sandbox (approved)"
    ]
    assert ran_under({"sandbox": {"mode": "off"}}) == ["sandbox: off"]
    assert ran_under({"sandbox": {"mode": "read-only", "network": True}}) == [
        "sandbox: read-only · net on"
    ]
    stopped = {**on, "sandbox_stopped": "connect to 127.0.0.1:8000"}
    assert ran_under(stopped) == [
        "sandbox: workspace-write · net off",
        "stopped by the sandbox: connect to 127.0.0.1:8000",
    ]
    assert ran_under({}) == [] == ran_under(None) == ran_under({"bytes": 3})


def with_meta(monkeypatch: pytest.MonkeyPatch, meta: dict[str, Any]) -> None:
    """The scripted shell's result carries ``meta`` (as ``tools/process.py`` writes it)."""
    run = FakeLoop._run

    async def _run(self: FakeLoop, call: ToolCall) -> ToolResult:
        result = await run(self, call)
        return replace(result, meta=meta) if call.name == "shell" else result

    monkeypatch.setattr(FakeLoop, "_run", _run)


@sizes
@pytest.mark.parametrize(
    ("meta", "shown"),
    [
        ({"mode": "workspace-write", "network": False}, "sandbox: workspace-write · net off"),
        ({"mode": "escalated", "network": False}, "outside the sandbox (approved)"),
        ({"mode": "off", "network": False}, "sandbox: off"),
    ],
    ids=["inside", "escalated", "off"],
)
async def test_the_transcript_says_where_a_command_ran(
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
    meta: dict[str, Any],
    shown: str,
) -> None:
    with_meta(monkeypatch, {"bytes": 20, "sandbox": meta})
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder, INSIDE, True, block_shell=False)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.live is not None, "the live controller")
        assert app.live is not None
        await until(pilot, lambda: app.session is not None, "the session")
        app.live.submit("add a shout flag")
        for _ in range(2):  # the patch, then the command
            screen = await opened(pilot, ReviewScreen, "a review")
            await pilot.press("a")
            await until(pilot, lambda s=screen: not s.is_attached, "the review closed")
        await workers_done(app)
        await until(pilot, lambda: app.state.tools["c2"].state == "ok", "the command ran")
        assert app.state.tools["c2"].ran == (shown,)
        assert app.sandboxes["c2"] == (shown,)

        # the Transcript is ~30 columns at 80: the line wraps, its start is on one row
        start = shown if size[0] >= 120 else shown[:20].strip()

        def check() -> None:
            assert any(start in line for line in screen_lines(app))

        await eventually(pilot, check, "the sandbox under the call's line")


# ---------------------------------------------------------------------- the inspector
EXAMPLES = Path(__file__).parent / "examples"


def explanation() -> Explanation:
    """A real explanation (a recorded heredoc cut off), with a next attempt that
    resent the call and ran it, as a stored session gives."""
    exp = explain_recording("err.jsonl", read_recording(EXAMPLES / "err-heredoc_eof.jsonl"))[0]
    attempt = NextAttempt("S#2", "repaired", "the same call, confirmed", ("c2", "shell"), 40, "ok")
    return replace(exp, attempt=attempt)


@sizes
async def test_the_inspector_names_where_the_repaired_call_ran(size: tuple[int, int]) -> None:
    class InspectApp(App[None]):
        def on_mount(self) -> None:
            where = ("sandbox: workspace-write · net off",)
            self.push_screen(InspectorScreen(explanation(), replay=False, sandbox=where))

    app = InspectApp()
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot, InspectorScreen, "the inspector")
        await pilot.pause()
        text = str(screen.query_one("#inspector-next", Static).render())
        assert "ran sandbox: workspace-write · net off" in text
        assert "S#2: the same call, confirmed" in text


async def test_the_app_hands_the_inspector_where_the_call_ran(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    holder: list[FakeRuntime] = []
    app = make_app(workspace, holder)
    app.sandboxes["c2"] = ("outside the sandbox (approved)",)

    async def explain(row: Any) -> Explanation:
        return explanation()

    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.live is not None, "the live controller")
        assert app.live is not None
        monkeypatch.setattr(app.live, "explain", explain)
        app.open_inspector(ErrorRow(0, "heredoc_eof", "cut off", 12))
        screen = await opened(pilot, InspectorScreen, "the inspector")
        assert screen.sandbox == ("outside the sandbox (approved)",)
