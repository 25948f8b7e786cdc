"""The framing-error inspector in the TUI: opened with ``e`` twice in replay and with
Enter in the Errors pane (replay and live), for every contract-error kind, at 80×24;
``g`` jumps to the byte, ``e`` moves on to the next error, ``esc`` closes; and one
snapshot of how it looks.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from inspector_cases import recordings
from pilot_wait import focus_of, opened, replay_step, until, workers_done
from pytest_textual_snapshot import SVGImageExtension
from textual.pilot import Pilot
from textual.widgets import Input, Static, TextArea
from wire_scripts import Call, Text, script

from frontier.app.agent.explain import length_line
from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.config import Config
from frontier.app.events import CONTRACT_ERROR_KINDS
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.inspector import InspectorScreen
from frontier.app.frontends.tui.screens.main import MainScreen
from frontier.app.replay_player import PlaylistPlayer, ReplayPlayer, source_from_recording
from frontier.app.session.capture import capture_sources
from frontier.app.session.record import read_recording, synthesize
from frontier.widgets.errors_pane import ErrorsPane
from frontier.widgets.raw_stream import RawStreamView

SIZE = (80, 24)
FIRST = "call c1 read\narg path a.py\narg path b.py\nend\n"
SECOND = "Notes.\ncall c2 write\narg path n.md\narg content 3\nhello\nend\n"


@pytest.fixture
def cases(tmp_path: Path) -> dict[str, Path]:
    return recordings(tmp_path)


def replay_app(path: Path, theme: str | None = None) -> FrontierApp:
    source = source_from_recording(read_recording(path), name=path.name)
    config = Config(theme=theme) if theme else Config()
    return FrontierApp(
        config, player=ReplayPlayer(source), paused=True, token_rate=0.0, remember_theme=False
    )


def shown(screen: InspectorScreen) -> str:
    """Everything the inspector shows, as plain text."""
    parts = [str(screen.query_one("#inspector").border_title)]
    parts += [str(static.content) for static in screen.query(Static)]
    return "\n".join(parts)


async def inspect_with_e(pilot: Pilot[Any]) -> InspectorScreen:
    """``e`` jumps to the error; ``e`` again (nothing stepped between) inspects it."""
    app = pilot.app
    await replay_step(pilot, "e")
    await until(pilot, lambda: bool(app.state.errors), "the error")
    await pilot.press("e")
    return await opened(pilot, InspectorScreen, "the inspector")


@pytest.mark.parametrize("kind", CONTRACT_ERROR_KINDS)
async def test_e_twice_inspects_each_kind_and_g_jumps_to_its_byte(
    cases: dict[str, Path], kind: str
) -> None:
    app = replay_app(cases[kind])
    async with app.run_test(size=SIZE) as pilot:
        screen = await inspect_with_e(pilot)
        exp = screen.explanation
        site = exp.site
        assert site.kind == kind
        text = shown(screen)
        assert f"{kind} at byte {site.offset:,}" in text
        assert f"offset {site.offset:,} of {site.size:,}" in text
        assert site.message in text and site.frame.state in text
        assert exp.feedback in text  # the exact text the model got
        # the hex row holding the error offset, with its bytes
        hex_text = str(screen.query_one("#inspector-hex", Static).content)
        row = site.offset // 16 * 16
        assert f"\n{max(row, site.window_start):>5}" in hex_text
        byte = site.window[site.offset - site.window_start : site.offset - site.window_start + 1]
        if byte:
            assert f"{byte[0]:02x}" in hex_text.split(f"\n{max(row, site.window_start):>5}")[1]
        # what was declared and what arrived, the TAG, the element, the JSON state
        for part in (length_line(exp), site.frame.tag, site.frame.element, site.frame.json):
            if part:
                assert part in text
        # it fits: the modal fills 80×24 and its body scrolls
        box = screen.query_one("#inspector")
        assert box.size.width <= SIZE[0] and box.size.height <= SIZE[1]
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), "the inspector closed")
        raw = app.screen.query_one(RawStreamView)
        await until(pilot, lambda: raw.highlight == site.offset, "the byte highlighted")
        assert app.main.active_tab == "raw"
        assert raw.highlight == site.offset


async def test_enter_in_the_errors_pane_inspects_and_esc_closes(cases: dict[str, Path]) -> None:
    app = replay_app(cases["unexpected_line"])
    async with app.run_test(size=SIZE) as pilot:
        await replay_step(pilot, "e")
        await pilot.press("4")  # the Errors tab at 80 columns
        errors = app.main.query_one(ErrorsPane).option_list
        errors.focus()
        await focus_of(pilot, errors, "the error list")
        await pilot.press("enter")
        screen = await opened(pilot, InspectorScreen, "the inspector")
        assert screen.explanation.site.kind == "unexpected_line"
        assert "declared 5 bytes, 5 arrived" in shown(screen)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), "the inspector closed")


async def test_e_in_the_inspector_moves_on_to_the_next_error() -> None:
    sources = [
        source_from_recording(synthesize(text, "ctl", sizes=(5,)), name=f"r{i}.jsonl")
        for i, text in enumerate((FIRST, SECOND))
    ]
    app = FrontierApp(
        Config(), player=PlaylistPlayer(sources), paused=True, token_rate=0.0, remember_theme=False
    )
    async with app.run_test(size=SIZE) as pilot:
        first = await inspect_with_e(pilot)
        assert first.explanation.site.kind == "bad_arg"
        assert first.explanation.source == "r0.jsonl"
        assert "e next error" in str(first.query_one("#inspector-keys", Static).content)
        await pilot.press("e")
        await until(
            pilot,
            lambda: isinstance(app.screen, InspectorScreen) and app.screen is not first,
            "the next error's inspector",
        )
        second = app.screen
        assert isinstance(second, InspectorScreen)
        assert second.explanation.site.kind == "unexpected_line"
        assert second.explanation.source == "r1.jsonl"
        # no error after it: the inspector closes and says so
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), "back on the main screen")


# --------------------------------------------------------------------------- live


@pytest.fixture
def project(tmp_path: Path) -> Path:
    source = resources.files("frontier.app") / "demo_project"
    with resources.as_file(source) as src:
        shutil.copytree(src, tmp_path / "ws", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "ws"


async def test_live_errors_pane_inspects_with_the_next_attempt(project: Path) -> None:
    """The demo (ctl-heredoc, approvals auto) runs its story; Enter on its miscounted
    write in the Errors pane shows the stored feedback and the resend that worked."""

    def factory() -> AgentSession:
        config = Config(protocol="ctl-heredoc", approval="auto")
        return create_runtime(config, interactive=True, demo=True, demo_rate=0, workspace=project)

    app = FrontierApp(Config(), session_factory=factory, remember_theme=False)
    async with app.run_test(size=SIZE) as pilot:
        await workers_done(app)
        await until(pilot, lambda: len(app.state.errors) == 2, "the story's two errors")
        assert [row.kind for row in app.state.errors] == ["body_eof", "truncated"]
        await pilot.press("f5")
        errors = app.main.query_one(ErrorsPane).option_list
        errors.focus()
        await focus_of(pilot, errors, "the error list")
        errors.highlighted = 0
        await pilot.press("enter")
        screen = await opened(pilot, InspectorScreen, "the inspector")
        exp = screen.explanation
        assert exp.site.kind == "body_eof" and exp.site.call == ("c4", "write")
        assert exp.attempt is not None and exp.attempt.succeeded
        text = shown(screen)
        assert "✓ " in text and "repaired: c4 write confirmed at byte" in text
        assert "the store's next user message carries this feedback" in text
        assert "e next error" not in str(screen.query_one("#inspector-keys", Static).content)
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), "the inspector closed")
        raw = app.screen.query_one(RawStreamView)
        await until(pilot, lambda: raw.highlight == exp.site.offset, "the byte highlighted")


# --------------------------------------------------------------------------- the look


@pytest.fixture(autouse=True)
def _snapshots_in_tests_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the SVGs in tests/snapshots/ (syrupy's default is __snapshots__)."""
    root = Path(__file__).parent / "snapshots"

    def dirname(cls: Any, *, test_location: Any) -> str:
        return str(root / test_location.basename)

    monkeypatch.setattr(SVGImageExtension, "dirname", classmethod(dirname))


def test_inspector_snapshot_80x24(snap_compare: Any, cases: dict[str, Path]) -> None:
    app = replay_app(cases["unexpected_line"], theme="frontier-dark")

    async def run_before(pilot: Pilot[Any]) -> None:
        await inspect_with_e(pilot)
        for box in [*app.query(Input), *app.query(TextArea)]:
            box.cursor_blink = False
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic-messages"])
async def test_a_capture_of_any_wire_cut_mid_call_is_inspected_in_its_own_language(
    tmp_path: Path, wire: str
) -> None:
    # A raw SSE body as `curl -N` saves it: prose, then a call the token limit cut.
    body = script(
        wire, [Text("Reading."), Call("c1", "read", '{"path": "a', cut=True)], end="length"
    )
    path = tmp_path / "cut.sse"
    path.write_bytes(b"".join(c for c in body if isinstance(c, bytes)))
    (captured,) = capture_sources(str(path))
    assert captured.recording.wire == wire and captured.recording.mode == "native-inc"
    source = source_from_recording(captured.recording, name=captured.name)
    app = FrontierApp(
        Config(), player=ReplayPlayer(source), paused=True, token_rate=0.0, remember_theme=False
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await inspect_with_e(pilot)
        assert screen.explanation.site.kind == "truncated"
        text = shown(screen)
        assert f"wire    {wire}" in text  # the capture's own events tell what was cut
        said = {
            "openai-chat": "Chat tool_calls[0] (c1 read) was still open",
            "openai-responses": "Responses function_call item fc_1 at output_index 1 (c1 read)",
            "anthropic-messages": "tool_use block at index 1 (c1 read) never got its "
            "content_block_stop",
        }
        assert said[wire] in text
