"""The session picker shows each session's first prompt and filters as you type."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pilot_wait import eventually, opened, until
from textual.widgets import OptionList, Static

from frontier.app.agent.session import stored_sessions
from frontier.app.config import Config
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.sessions import LISTED, NO_PROMPT, SessionPicker, matches
from frontier.app.model.conversation import UserText
from frontier.app.model.demo_script import DEMO_MODEL
from frontier.app.model.wires.demo import DEMO_BASE_URL
from frontier.app.session.catalogue import SessionInfo
from frontier.app.session.store import SessionStore


def stored(monkeypatch: pytest.MonkeyPatch, workspace: Path, when: float, prompt: str) -> str:
    workspace.mkdir()
    with monkeypatch.context() as m:
        m.setattr(time, "time", lambda: when)
        with SessionStore.open() as store:
            sid = store.create_session(str(workspace), DEMO_MODEL, DEMO_BASE_URL, "ctl-heredoc")
            if prompt:
                store.append_items(sid, [UserText(prompt)])
            store.set_state(sid, "done")
    return sid


@pytest.fixture
def three(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Newest first: a session with no message, one about shouting, one about docs."""
    docs = stored(monkeypatch, tmp_path / "docs-site", 1_700_000_000.0, "Fix the broken docs links")
    shout = stored(monkeypatch, tmp_path / "greet", 1_700_000_100.0, "Add a --shout flag\nto greet")
    blank = stored(monkeypatch, tmp_path / "scratch", 1_700_000_200.0, "")
    return [blank, shout, docs]


def ids(options: OptionList) -> list[str | None]:
    return [options.get_option_at_index(i).id for i in range(options.option_count)]


async def open_picker(app: FrontierApp, pilot) -> SessionPicker:  # type: ignore[no-untyped-def]
    app.action_open_session()
    screen = await opened(pilot, SessionPicker, "the session picker")
    await until(pilot, lambda: screen.filter_box.has_focus, "the filter box focused")
    return screen


async def test_rows_lead_with_the_first_prompt_and_typing_filters(three: list[str]) -> None:
    blank, shout, docs = three
    app = FrontierApp(Config(), welcome=False, autostart=False, remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_picker(app, pilot)
        options = screen.query_one(OptionList)
        assert ids(options) == [blank, shout, docs]
        rows = [str(options.get_option_at_index(i).prompt) for i in range(3)]
        assert rows[0].startswith(f"  {blank}  {NO_PROMPT}\n")
        assert rows[1].startswith(f"  {shout}  Add a --shout flag to greet\n")  # one line

        await pilot.press(*"SHOUT")  # case does not matter
        await until(pilot, lambda: ids(options) == [shout], "the list filtered to one")
        assert screen.query_one("#sessions").border_subtitle == "1 of 3 match · newest first"

        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace")
        await pilot.press(*"docs fix")  # every word must match, in any order
        await until(pilot, lambda: ids(options) == [docs], "the docs session")

        await pilot.press(*" zzz")
        await until(pilot, lambda: ids(options) == [], "no match")
        note = screen.query_one("#sessions-none", Static)

        def says_none() -> None:
            assert note.display and "No session matches “docs fix zzz”" in str(note.render())

        await eventually(pilot, says_none, "the no-match line")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SessionPicker), "the picker closed")


async def test_enter_opens_the_highlighted_match(three: list[str]) -> None:
    _, shout, docs = three
    chosen: list[str | None] = []
    app = FrontierApp(Config(), welcome=False, autostart=False, remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = SessionPicker(stored_sessions())
        app.push_screen(screen, callback=chosen.append)
        await until(pilot, lambda: screen.is_mounted and screen.filter_box.has_focus, "focus")
        options = screen.query_one(OptionList)
        await pilot.press(*"greet")
        await until(pilot, lambda: ids(options) == [shout], "the filtered list")
        await pilot.press("down", "up", "enter")  # ↑↓ stay within the matches
        await until(pilot, lambda: chosen == [shout], "the shout session chosen")
    assert docs not in chosen


def test_the_filter_searches_prompt_id_folder_and_model() -> None:
    info = SessionInfo(
        "ab12cd34", 1_700_000_000.0, "/home/me/greet", "qwen", None, "native-inc", "done", 2,
        first_prompt="Add a --shout flag",
    )  # fmt: skip
    for query in ("", "shout", "AB12", "greet", "qwen native", "done --shout", "2023-11"):
        assert matches(info, query), query
    for query in ("docs", "shout docs", "ctl-heredoc"):
        assert not matches(info, query), query


async def test_a_store_of_thousands_lists_the_newest_hundred_and_filters_them_all() -> None:
    # every match a row made 5,000 sessions take 2.45 s to open and 1.2 s a key to filter
    many = [
        SessionInfo(
            f"{n:08x}", 1_700_000_000.0 - n, f"/home/me/project{n % 50}", "qwen", None,
            "native-inc", "done", 1, first_prompt=f"task number {n}",
        )
        for n in range(2_000)
    ]  # fmt: skip
    chosen: list[str | None] = []
    app = FrontierApp(Config(), welcome=False, autostart=False, remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = SessionPicker(many)
        app.push_screen(screen, callback=chosen.append)
        await until(pilot, lambda: screen.is_mounted and screen.filter_box.has_focus, "focus")
        options = screen.query_one(OptionList)
        box = screen.query_one("#sessions")
        assert ids(options) == [info.id for info in many[:LISTED]]
        assert box.border_subtitle == (
            f"2000 stored · newest first · newest {LISTED} listed, type to narrow"
        )
        await pilot.press(*"project7 ")  # 40 of the 2,000: every one listed
        want = [info.id for info in many if info.workspace == "/home/me/project7"]
        await until(pilot, lambda: ids(options) == want, "the filtered list")
        assert len(want) == 40 and box.border_subtitle == "40 of 2000 match · newest first"
        await pilot.press(*["backspace"] * 9, *"project1")  # project1 and project10-19
        await until(pilot, lambda: str(box.border_subtitle).startswith("440 of"), "narrowed")
        assert box.border_subtitle == (
            f"440 of 2000 match · newest first · newest {LISTED} listed, type to narrow"
        )
        assert ids(options) == [info.id for info in screen.shown[:LISTED]]
        await pilot.press("pagedown", *["pagedown"] * 30, "enter")  # never past the last row
        await until(pilot, lambda: len(chosen) == 1, "a session chosen")
    assert chosen == [screen.shown[LISTED - 1].id]
