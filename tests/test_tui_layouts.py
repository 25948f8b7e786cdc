"""Layouts and the keyboard (issue 23): conversation-first, one key to the lab panes.

A live session opens on the conversation (the Transcript at full width, the CST strip,
the prompt); f6 cycles conversation → split → lab and the choice is remembered in the
config dir; the demo and a replay open in lab. In a live session the keyboard belongs to
the prompt: a printable key pressed on any pane is typed there, and no bare letter quits.
Snapshots: the three layouts at 80×24 and 140×45, in the dark and the light theme.
"""

from __future__ import annotations

import asyncio
import tomllib
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pilot_wait import eventually, until
from test_tui_snapshots import BAD, NOW, SIZES, mid_stream, replay_app, settle
from textual.keys import _character_to_key, _get_unicode_name_from_key
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import TextArea
from tui_fakes import FakeLoop, fake_session

from frontier.app.config import Config, config_path, load_config, save_setting
from frontier.app.cst.ctl import CtlTransducer
from frontier.app.events import ResponseStarted, StreamBytes
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.help import HelpScreen
from frontier.app.frontends.tui.screens.welcome import setup_text
from frontier.app.vocab import LAYOUTS
from frontier.widgets.cst_strip import CstStrip, StripInfo, running_label, strip_text
from frontier.widgets.errors_pane import ErrorsPane
from frontier.widgets.raw_stream import RawStreamView
from frontier.widgets.transcript import Transcript

THEMES = ("frontier-dark", "frontier-light")
LAB = ("#raw", "#confirmed", "#pending", "#errors", "#tools")


@pytest.fixture(autouse=True)
def _snapshots_in_tests_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the SVGs in tests/snapshots/<this file>/ (syrupy's default is __snapshots__)."""
    from pytest_textual_snapshot import SVGImageExtension

    root = Path(__file__).parent / "snapshots"

    def dirname(cls: Any, *, test_location: Any) -> str:
        return str(root / test_location.basename)

    monkeypatch.setattr(SVGImageExtension, "dirname", classmethod(dirname))


def live_app(
    root: Path,
    *,
    layout: str | None = None,
    config: Config | None = None,
    theme: str = "frontier-dark",
    remember: bool = False,
) -> tuple[FrontierApp, FakeLoop]:
    """A live session's TUI around a session nobody sends to (scenes go to the state)."""
    app = FrontierApp(
        config or Config(model="smollm2", theme=theme),
        welcome=False,
        autostart=False,
        clock=lambda: NOW,
        token_rate=68.0,
        remember_theme=remember,
        layout=layout,
    )
    fake = fake_session(root, session_id="7f3a2b9c")
    assert app.live is not None
    app.live.session = fake.session
    return app, fake.loop


def shown(widget: Widget) -> bool:
    """On screen now (a widget the layout hides has no region)."""
    return widget.region.area > 0


def prompt_of(app: FrontierApp) -> TextArea:
    return app.main.query_one("#prompt", TextArea)


def stream_error(app: FrontierApp) -> None:
    """A response whose length prefix is wrong: one contract error in the state."""
    state = app.state
    state.apply(ResponseStarted("ctl-heredoc", 0))
    transducer = CtlTransducer()
    data = BAD.encode()
    state.apply(StreamBytes(0, data))
    for event in [*transducer.feed(data), *transducer.finish(True)]:
        state.apply(event)


# ---------------------------------------------------------------------- the layouts
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
async def test_a_live_session_opens_on_the_conversation_at_full_width(
    tmp_path: Path, size: str
) -> None:
    app, _ = live_app(tmp_path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        main = app.main
        assert main.layout_name == "conversation"
        transcript = main.query_one(Transcript)
        assert transcript.outer_size.width == SIZES[size][0]
        assert shown(main.query_one("#prompt-box")) and shown(main.query_one(CstStrip))
        assert not any(shown(main.query_one(ident)) for ident in LAB)
        assert prompt_of(app).has_focus
        strip = main.query_one(CstStrip).plain
        assert "f6" in strip and "lab" in strip


@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
async def test_f6_cycles_conversation_split_lab_and_back(tmp_path: Path, size: str) -> None:
    app, _ = live_app(tmp_path)
    width = SIZES[size][0]
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        main = app.main
        transcript = main.query_one(Transcript)
        await pilot.press("f6")
        await until(pilot, lambda: main.layout_name == "split", "the split layout")
        await eventually(
            pilot,
            lambda: (
                assert_shown(main, "#raw", "#tools", "#prompt-box"),
                not_shown(main, "#cst-strip"),
                wider(transcript, width // 2 - 1),
            ),
            "the lab panes beside the Transcript",
        )
        await pilot.press("f6")
        await until(pilot, lambda: main.layout_name == "lab", "the lab layout")
        await eventually(  # the width is the layout's after the panes show: waited for too
            pilot,
            lambda: (
                assert_shown(main, "#raw", "#tools", "#prompt-box"),
                narrower(transcript, width // 2),  # today's lab: 40 %
            ),
            "every lab pane",
        )
        await pilot.press("f6")
        await until(pilot, lambda: main.layout_name == "conversation", "back to conversation")
        await eventually(pilot, lambda: not_shown(main, *LAB), "the lab panes hidden")


def wider(widget: Any, than: int) -> None:
    assert widget.outer_size.width > than, widget.outer_size


def narrower(widget: Any, than: int) -> None:
    assert widget.outer_size.width < than, widget.outer_size


def assert_shown(main: Any, *idents: str) -> None:
    for ident in idents:
        assert shown(main.query_one(ident)), f"{ident} is not on screen"


def not_shown(main: Any, *idents: str) -> None:
    for ident in idents:
        assert not shown(main.query_one(ident)), f"{ident} is on screen"


async def test_hidden_panes_are_not_painted_until_a_layout_shows_them(tmp_path: Path) -> None:
    app, loop = live_app(tmp_path)
    async with app.run_test(size=SIZES["140x45"]) as pilot:
        await settle(pilot)
        mid_stream(app, loop)
        app.flush()  # the 30 Hz flush: a layout's hidden panes wait
        raw = app.main.query_one(RawStreamView)
        assert raw.buffer is None
        await pilot.press("f6")
        await until(pilot, lambda: raw.buffer is app.state.current, "the Raw stream painted")


async def test_the_strip_names_the_frontier_the_running_call_and_the_last_error(
    tmp_path: Path,
) -> None:
    app, loop = live_app(tmp_path)
    async with app.run_test(size=SIZES["140x45"]) as pilot:
        await settle(pilot)
        mid_stream(app, loop)
        app.flush(force=True)
        strip = app.main.query_one(CstStrip)
        await eventually(
            pilot,
            lambda: assert_in(strip.plain, f"frontier {app.state.frontier:,}", "c0 shell"),
            "the strip",
        )
        stream_error(app)
        app.flush(force=True)
        kind = app.state.errors[-1].kind
        await eventually(pilot, lambda: assert_in(strip.plain, f"✗ {kind}"), "the error")


def assert_in(text: str, *parts: str) -> None:
    for part in parts:
        assert part in text, f"{part!r} not in {text!r}"


def test_the_strip_keeps_its_key_at_80_columns_and_shows_model_text_as_pictures() -> None:
    full, short = running_label("c3", "shell", "echo \x1b[2J done", 3.2)
    assert "\x1b" not in full and "␛" in full and short == "c3 shell 3s"
    info = StripInfo(1284, 2, 33, full, short, 0, "length-mismatch @212", 2)
    line = strip_text(info, 76)
    assert line.cell_len <= 76 and line.plain.rstrip().endswith("f6  lab")
    assert "length-mismatch @212" in line.plain and "fr 1,284" in line.plain


async def test_the_layout_is_remembered_in_the_config_dir(tmp_path: Path) -> None:
    app, _ = live_app(tmp_path, config=load_config(), remember=True)
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await until(pilot, lambda: app.config.layout == "split", "the layout saved")
    assert tomllib.loads(config_path().read_text())["layout"] == "split"
    again, _ = live_app(tmp_path, config=load_config())
    async with again.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        assert again.main.layout_name == "split"


async def test_frontier_layout_env_and_an_unknown_layout_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_setting("layout", "split")
    monkeypatch.setenv("FRONTIER_LAYOUT", "lab")
    assert load_config().layout == "lab"
    monkeypatch.setenv("FRONTIER_LAYOUT", "wide")
    with pytest.raises(ValueError, match="unknown layout 'wide'; choose one of conversation"):
        load_config()


async def test_the_demo_and_a_replay_open_in_lab_whatever_is_remembered(tmp_path: Path) -> None:
    save_setting("layout", "conversation")
    demo = FrontierApp(load_config(), demo=True, autostart=False, remember_theme=False)
    async with demo.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        assert demo.main.layout_name == "lab"
        await pilot.press("f6")  # cycling in the demo is not remembered
        await until(pilot, lambda: demo.main.layout_name == "conversation", "conversation")
    assert load_config().layout == "conversation"
    replay = replay_app("frontier-dark", "hello\n")
    async with replay.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        assert replay.main.layout_name == "lab"
        assert_shown(replay.main, "#raw", "#tools")


async def test_maximize_fills_the_screen_and_keeps_the_prompt(tmp_path: Path) -> None:
    app, _ = live_app(tmp_path, layout="lab")
    async with app.run_test(size=SIZES["140x45"]) as pilot:
        await settle(pilot)
        main = app.main
        main.action_maximize()  # the palette's Maximize, from the prompt: the Transcript
        transcript = main.query_one(Transcript)
        await until(pilot, lambda: main.maximized is transcript, "the Transcript maximised")
        await eventually(
            pilot,
            lambda: (
                assert_shown(main, "#prompt-box", "#status"),
                not_shown(main, "#raw"),
                _wide(transcript, 140),
            ),
            "a full-width Transcript above the prompt",
        )
        main.query_one(RawStreamView).focus()
        await until(pilot, lambda: main.query_one(RawStreamView).has_focus, "Raw stream focus")
        main.minimize()
        main.action_maximize()
        await until(pilot, lambda: main.maximized is main.query_one("#raw"), "Raw maximised")
        await eventually(pilot, lambda: assert_shown(main, "#prompt-box"), "the prompt")


def _wide(widget: Widget, width: int) -> None:
    assert widget.outer_size.width == width, widget.outer_size


# ---------------------------------------------------------------------- the keyboard
@pytest.mark.parametrize("layout", ["conversation", "lab"])
async def test_letters_typed_on_a_pane_go_to_the_prompt_and_q_never_quits(
    tmp_path: Path, layout: str
) -> None:
    app, _ = live_app(tmp_path, layout=layout)
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        await pilot.press("tab")  # the path: one Tab, then q
        await until(pilot, lambda: not prompt_of(app).has_focus, "a pane focused")
        await pilot.press("q", "u", "i", "t", "space", "n", "e", "1", "+", "full_stop")
        await until(pilot, lambda: prompt_of(app).text == "quit ne1+.", "the text typed")
        assert app.is_running and prompt_of(app).has_focus
        assert app.main.active_tab == "raw"  # 1 typed a digit, chose no tab


async def test_ctrl_d_quits_only_on_an_empty_prompt(tmp_path: Path) -> None:
    app, _ = live_app(tmp_path)
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        prompt = prompt_of(app)
        await pilot.press("a", "b", "home", "ctrl+d")  # the box's own ctrl+d: delete right
        await until(pilot, lambda: prompt.text == "b", "a deleted")
        assert app.is_running
        await pilot.press("ctrl+d")
        await until(pilot, lambda: prompt.text == "", "b deleted")
        await pilot.press("ctrl+d")
        await until(pilot, lambda: not app.is_running, "the app quit")


async def test_q_still_quits_a_replay(tmp_path: Path) -> None:
    app = replay_app("frontier-dark", "hello\n")
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, "the replay quit")


async def test_the_errors_list_has_a_selection_the_moment_it_has_rows(tmp_path: Path) -> None:
    app, _ = live_app(tmp_path, layout="lab")
    inspected: list[int] = []
    app.open_inspector = lambda row: inspected.append(row.offset)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        stream_error(app)
        app.flush(force=True)
        errors = app.main.query_one(ErrorsPane)
        await until(pilot, lambda: errors.option_list.highlighted == 0, "a selection")
        assert app.main.highlight is None  # quiet: the Raw stream did not move
        await pilot.press("tab")
        await until(pilot, lambda: not prompt_of(app).has_focus, "a pane focused")
        await pilot.press("ctrl+e")
        await until(pilot, lambda: errors.option_list.has_focus, "the Errors list focused")
        await eventually(pilot, lambda: _rows_shown(errors), "its rows on screen")
        await pilot.press("enter")
        await until(pilot, lambda: inspected == [app.state.errors[0].offset], "inspect")


def _rows_shown(errors: ErrorsPane) -> None:
    assert errors.option_list.region.height >= 1, errors.option_list.region


async def test_ctrl_e_from_the_conversation_opens_the_errors_pane(tmp_path: Path) -> None:
    app, _ = live_app(tmp_path)
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        stream_error(app)
        app.flush(force=True)
        app.main.query_one(Transcript).focus()
        await until(pilot, lambda: app.main.query_one(Transcript).has_focus, "Transcript")
        await pilot.press("ctrl+e")
        errors = app.main.query_one(ErrorsPane)
        await until(pilot, lambda: errors.option_list.has_focus, "the Errors list focused")
        assert app.main.layout_name == "split"
        assert app.config.layout == "conversation"  # a moment's switch, not remembered


def pilot_sends(character: str) -> bool:
    """Pilot's ``press`` turns a character into a key event that carries it (as a
    terminal does) for most characters, not all: ``¿`` arrives without its character.
    The property is about Frontier, so it types what Pilot can (Textual's own logic)."""
    key = character
    if not key.isalnum():
        key = _character_to_key(key)
    try:
        return unicodedata.lookup(_get_unicode_name_from_key(key)) == character
    except KeyError:
        return key == character


PRINTABLE = st.text(
    alphabet=(
        st.characters(
            min_codepoint=0x20, max_codepoint=0x2FF, exclude_categories=("Cc", "Cs", "Zl", "Zp")
        )
        | st.sampled_from("é中?/@ ")
    ).filter(pilot_sends),
    min_size=1,
    max_size=10,
)


# 8 examples: each runs a whole app (~1-2 s); layouts and panes are sampled, not all
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=PRINTABLE, layout=st.sampled_from(LAYOUTS), pick=st.integers(0, 20))
def test_no_printable_key_on_any_pane_quits_or_is_lost(text: str, layout: str, pick: int) -> None:
    """Whatever pane has the focus, every character typed lands in the prompt, in order,
    and the app is still running."""
    root = Path(__file__).parent / "examples"  # a workspace: `@` lists its files
    asyncio.run(_type_on_a_pane(root, text, layout, pick))


async def _type_on_a_pane(root: Path, text: str, layout: str, pick: int) -> None:
    app, _ = live_app(root, layout=layout)
    async with app.run_test(size=SIZES["140x45"]) as pilot:
        await settle(pilot)
        box = app.main.query_one("#prompt-box")
        panes = [w for w in app.main.focus_chain if box not in w.ancestors_with_self]
        assert panes, "no pane to focus"
        pane = panes[pick % len(panes)]
        pane.focus()
        await until(pilot, lambda: pane.has_focus, f"{pane} focused", timeout=10)
        await pilot.press(*text)
        prompt = prompt_of(app)
        await until(pilot, lambda: prompt.text == text, f"{text!r} in the prompt", timeout=10)
        assert app.is_running and not isinstance(app.screen, HelpScreen)


# ---------------------------------------------------------------------- welcome
def test_the_welcome_screen_says_what_the_readme_says() -> None:
    text = setup_text().plain
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    assert "never stored" not in text  # api_key_command / api_key_file exist
    for command in (
        "frontier --provider openai --model gpt-4.1",
        "frontier --provider anthropic --model claude-sonnet-4-5",
        "frontier --provider ollama --model qwen2.5-coder:7b",
        "frontier --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder",
    ):
        assert command in text and command in readme
    assert "api_key_command" in text and "api_key_command" in readme
    assert 'protocol = "ctl-heredoc"' not in text  # README: protocol auto is the default
    assert "frontier doctor with the same flags" in text  # a setup is checked in one run
    assert "frontier doctor" in readme


# ---------------------------------------------------------------------- snapshots
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_layout_snapshot(snap_compare: Any, layout: str, size: str, theme: str) -> None:
    app, loop = live_app(Path("."), layout=layout, theme=theme)

    async def run_before(pilot: Pilot) -> None:
        mid_stream(app, loop)
        stream_error_after(app)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


def stream_error_after(app: FrontierApp) -> None:
    """One contract error in the snapshot's state (its row, the strip's last error)."""
    from frontier.widgets.state import ErrorRow

    app.state.errors.append(
        ErrorRow(1, "length-mismatch", "arg content declared 12 bytes, 6 arrived", 212)
    )
    app.state.mark("errors")
