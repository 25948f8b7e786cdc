"""The message box as a person uses it: Enter, ctrl+j, a bracketed paste, ↑/↓ across a
restart, ctrl+r, ``@path`` completion and attachment (Pilot, real ``AgentSession``)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from pilot_wait import eventually, focus_of, opened, until, workers_done
from textual import events
from textual.pilot import Pilot
from tui_input_fakes import EchoRuntime, echo_factory

from frontier.app.agent import attachments
from frontier.app.config import Config
from frontier.app.frontends.tui.app import FrontierApp
from frontier.widgets import prompt_input
from frontier.widgets.prompt_input import CompletionList, HistorySearch, PromptInput


def make_app(root: Path, holder: list[EchoRuntime], **kw: object) -> FrontierApp:
    return FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="echo"),
        session_factory=echo_factory(root, holder, **kw),  # type: ignore[arg-type]
        remember_theme=False,
    )


def prompt_of(app: FrontierApp) -> PromptInput:
    return app.main.query_one("#prompt", PromptInput)


async def ready(pilot: Pilot) -> PromptInput:
    app = pilot.app
    assert isinstance(app, FrontierApp)
    await until(pilot, lambda: app.session is not None, "the session")
    await focus_of(pilot, lambda: prompt_of(app), "the message box")
    return prompt_of(app)


async def pasted_log(pilot: Pilot, lines: int = 20_000) -> tuple[PromptInput, str]:
    """The message box once a log of ``lines`` lines is pasted into it (a bracketed
    paste, as the driver posts it), and the log."""
    prompt = await ready(pilot)
    log = "\n".join(f"{n:05d} ERROR in module_{n % 97}.py" for n in range(lines))
    pilot.app.post_message(events.Paste(log))
    await until(pilot, lambda: prompt.document.line_count == lines, "the paste")
    return prompt, log


@asynccontextmanager
async def completing(
    root: Path, holder: list[EchoRuntime]
) -> AsyncIterator[tuple[FrontierApp, Pilot, PromptInput, CompletionList]]:
    """The app on ``root``, its session ready and the message box focused, with the box and
    its ``@`` completion list (the completion tests' common start)."""
    app = make_app(root, holder)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        yield app, pilot, prompt, app.main.query_one(CompletionList)


async def type_text(pilot: Pilot, text: str) -> None:
    """Type ``text`` key by key (a newline in it is typed as ctrl+j)."""
    for line_no, line in enumerate(text.split("\n")):
        if line_no:
            await pilot.press("ctrl+j")
        await pilot.press(*line)


def you_entries(app: FrontierApp) -> list[str]:
    return [e.text for e in app.state.transcript if e.role == "you"]


async def test_enter_sends_ctrl_j_and_shift_enter_insert_newlines(tmp_path: Path) -> None:
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        await pilot.press("o", "n", "e", "ctrl+j", "t", "w", "o", "shift+enter", "3")
        await until(pilot, lambda: prompt.text == "one\ntwo\n3", "three lines in the box")
        await pilot.press("enter")
        await until(pilot, lambda: holder[0].loop.sent == ["one\ntwo\n3"], "the whole message")
        assert prompt.text == ""
        await workers_done(app)
        assert you_entries(app) == ["one\ntwo\n3"]


async def test_a_bracketed_paste_keeps_every_line_and_the_box_grows_then_scrolls(
    tmp_path: Path,
) -> None:
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        one_line = prompt.outer_size.height
        # what the driver posts for a bracketed paste (ESC [200~ … ESC [201~)
        app.post_message(events.Paste("line1\nline2\nline3"))
        await until(pilot, lambda: prompt.text == "line1\nline2\nline3", "the pasted lines")
        await eventually(
            pilot, lambda: _equal(prompt.outer_size.height, one_line + 2), "the box grown"
        )
        app.post_message(events.Paste("\n" + "\n".join(f"more {n}" for n in range(30))))
        await until(pilot, lambda: prompt.text.count("\n") == 32, "the long paste")
        await eventually(pilot, lambda: _equal(prompt.outer_size.height, 8), "the box capped")
        assert prompt.max_scroll_y > 0  # the rest scrolls inside the box
        await pilot.press("enter")
        await until(pilot, lambda: bool(holder[0].loop.sent), "the send")
        assert holder[0].loop.sent[0].splitlines()[:3] == ["line1", "line2", "line3"]
        assert len(holder[0].loop.sent[0].splitlines()) == 33


def _equal(actual: int, expected: int) -> None:
    assert actual == expected, f"{actual} != {expected}"


async def test_up_and_down_recall_prompts_after_a_restart(tmp_path: Path) -> None:
    holder: list[EchoRuntime] = []
    key = str(tmp_path)
    first = make_app(tmp_path, holder, history_key=key)
    async with first.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        for text in ["add a --shout flag", "now run\nthe tests"]:
            await type_text(pilot, text)
            await pilot.press("enter")
            await until(pilot, lambda t=text: t in holder[-1].loop.sent, f"sent {text!r}")
            await workers_done(first)
    second = make_app(tmp_path, holder, history_key=key)
    async with second.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        await pilot.press("d", "r", "a", "f", "t")
        await pilot.press("up")  # the cursor is on the (only) first line: the newest prompt
        await until(pilot, lambda: prompt.text == "now run\nthe tests", "the newest prompt")
        assert prompt.cursor_location == (0, len("now run"))  # the next ↑ goes on back
        await pilot.press("up")
        await until(pilot, lambda: prompt.text == "add a --shout flag", "the older prompt")
        await pilot.press("up")  # the oldest: it stays
        assert prompt.text == "add a --shout flag"
        await pilot.press("down")
        await until(pilot, lambda: prompt.text == "now run\nthe tests", "forward again")
        assert prompt.cursor_location == (1, len("the tests"))  # last line: ↓ goes on
        await pilot.press("down")
        await until(pilot, lambda: prompt.text == "draft", "the draft back")


async def test_a_message_typed_and_not_sent_is_kept_at_quit(tmp_path: Path) -> None:
    """ctrl+q with a message in the box: it goes into the prompt history (quitting lost
    it), the terminal is told so, and ↑ brings it back in the next run."""
    holder: list[EchoRuntime] = []
    key = str(tmp_path)
    first = make_app(tmp_path, holder, history_key=key)
    async with first.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_text(pilot, "a careful\nlong message")
        await pilot.press("ctrl+q")
    assert first.quit_note == "Your unsent message is kept: ↑ in the message box brings it back."
    second = make_app(tmp_path, holder, history_key=key)
    async with second.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        await pilot.press("up")
        await until(pilot, lambda: prompt.text == "a careful\nlong message", "the kept draft")
        prompt.clear()
        await until(pilot, lambda: prompt.text == "", "the box emptied")
        await pilot.press("ctrl+q")  # nothing typed: nothing to say
    assert second.quit_note == ""


async def test_up_inside_a_multi_line_prompt_moves_the_cursor_not_the_history(
    tmp_path: Path,
) -> None:
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        assert holder[0].session.prompt_history.add("an earlier prompt")
        app.live._wire_prompt()  # type: ignore[union-attr]  # the box takes the history
        await type_text(pilot, "first\nsecond")
        await pilot.press("up")
        await until(pilot, lambda: prompt.cursor_location[0] == 0, "the cursor up a line")
        assert prompt.text == "first\nsecond"
        await pilot.press("up")
        await until(pilot, lambda: prompt.text == "an earlier prompt", "then the history")


async def test_ctrl_r_finds_an_earlier_prompt(tmp_path: Path) -> None:
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder, history_key=str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        history = holder[0].session.prompt_history
        for text in ["run the tests", "fix the parser\nin cli.py", "lint everything"]:
            history.add(text)
        app.live._wire_prompt()  # type: ignore[union-attr]
        await pilot.press("ctrl+r")
        search = await opened(pilot, HistorySearch, "the history search")
        await pilot.press(*"PARS")
        await until(pilot, lambda: search.matches == ["fix the parser\nin cli.py"], "the match")
        await pilot.press("enter")
        await until(pilot, lambda: prompt.text == "fix the parser\nin cli.py", "it recalled")
        await focus_of(pilot, prompt, "the box again")
        # Esc closes the search and leaves the box as it was
        await pilot.press("ctrl+r")
        await opened(pilot, HistorySearch)
        await pilot.press("down", "escape")
        await until(pilot, lambda: app.screen is app.main, "the search closed")
        assert prompt.text == "fix the parser\nin cli.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "greet").mkdir(parents=True)
    (root / "greet" / "cli.py").write_text("def main():\n    print('hi')\n")
    (root / "greet" / "core.py").write_text("X = 1\n")
    (root / "README.md").write_text("# greet\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "cli.py").write_text("generated\n")
    return root


async def test_at_completes_workspace_files_and_attaches_the_chosen_one(project: Path) -> None:
    holder: list[EchoRuntime] = []
    async with completing(project, holder) as (app, pilot, prompt, listing):
        await pilot.press(*"see", "space", "@", *"cli")
        await until(pilot, lambda: listing.has_class("-open"), "the completion list")
        await eventually(
            pilot,
            lambda: _same([o.id for o in listing.options], ["greet/cli.py"]),
            "only the tracked cli.py (build/ is ignored)",
        )
        await pilot.press("tab")
        await until(pilot, lambda: prompt.text == "see @greet/cli.py ", "the accepted path")
        assert not listing.has_class("-open")
        await pilot.press(*"and", "space", "@", *"co", "down", "up", "enter")  # enter accepts
        await until(pilot, lambda: prompt.text.endswith("@greet/core.py "), "the second path")
        await pilot.press("@", *"READ", "escape")  # Esc closes the list, keeps the text
        await until(pilot, lambda: not listing.has_class("-open"), "the list closed")
        assert prompt.text.endswith("@READ")
        await pilot.press("enter")
        await until(pilot, lambda: bool(holder[0].loop.sent), "the send")
        await workers_done(app)
    sent = holder[0].loop.sent[0]
    assert sent.startswith("see @greet/cli.py and @greet/core.py @READ\n\n")
    assert "Attached file greet/cli.py (28 bytes):\n```\ndef main():\n    print('hi')\n```" in sent
    assert "Attached file greet/core.py (6 bytes):" in sent
    notes = [e.text for e in app.state.transcript if e.role == "note"]
    assert "attached greet/cli.py (28 bytes)" in notes
    assert "attached greet/core.py (6 bytes)" in notes
    assert "@READ: no such file in the workspace; sent as typed" in notes
    assert you_entries(app) == ["see @greet/cli.py and @greet/core.py @READ"]


async def test_a_long_listing_is_ranked_off_the_loop_and_tab_takes_what_was_typed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``RANK_INLINE`` paths (here: past one) a key's ranking runs on a worker thread;
    the list shows the answer to the query still typed, and Tab pressed before that answer
    came accepts the typed query's best path, never the previous list's."""
    monkeypatch.setattr(prompt_input, "RANK_INLINE", 1)
    holder: list[EchoRuntime] = []
    async with completing(project, holder) as (app, pilot, prompt, listing):
        await pilot.press("@", *"cli")
        await eventually(
            pilot, lambda: _same([o.id for o in listing.options], ["greet/cli.py"]), "cli.py"
        )
        await pilot.press("space", "@", "c")
        await eventually(
            pilot,
            lambda: _same([o.id for o in listing.options][:1], ["greet/cli.py"]),
            "the list for 'c', cli.py first",
        )
        # the next key's worker has not answered yet (a long listing's ranking may lag)
        monkeypatch.setattr(prompt, "_rank_off_loop", lambda ranker, query, generation, note: None)
        await pilot.press("o", "tab")  # the list still shows 'c''s: cli.py first
        await until(pilot, lambda: prompt.text == "@cli @greet/core.py ", "the typed query's")
        await workers_done(app)


async def test_after_a_cut_listing_the_folder_typed_is_listed_on_its_own(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workspace past ``COMPLETION_MAX`` paths (here: past two) is listed cut, in name
    order; a path typed under a folder the cut left out is still found, from that folder's
    own listing; an ignored folder typed gives nothing."""
    monkeypatch.setattr(attachments, "COMPLETION_MAX", 2)  # .gitignore, README.md
    holder: list[EchoRuntime] = []
    async with completing(project, holder) as (app, pilot, prompt, listing):
        await pilot.press("@", *"greet/co")
        await eventually(
            pilot, lambda: _same([o.id for o in listing.options], ["greet/core.py"]), "core.py"
        )
        await pilot.press("tab")
        await until(pilot, lambda: prompt.text == "@greet/core.py ", "the accepted path")
        await pilot.press("@", *"build/c")
        await workers_done(app)
        await pilot.pause()
        assert [o.id for o in listing.options] == []  # build/ is ignored: never offered
        await workers_done(app)


async def test_past_a_cut_listing_a_name_is_searched_for_in_the_whole_tree(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``COMPLETION_MAX`` paths a query without a folder is answered from the listing,
    which says so, until ``SEARCH_FROM`` letters are typed; then the whole tree is searched
    (off the loop, saying so meanwhile) and a path past the cut is offered, an ignored one
    never. With nothing found the list closes and Enter sends the message."""
    monkeypatch.setattr(attachments, "COMPLETION_MAX", 2)  # .gitignore, README.md
    holder: list[EchoRuntime] = []
    async with completing(project, holder) as (app, pilot, prompt, listing):
        search = prompt.file_search
        assert search is not None
        release, asked = threading.Event(), threading.Event()

        def held(query: str, stop: threading.Event) -> tuple[list[str], bool]:
            asked.set()
            assert release.wait(60), "never released"
            return search(query, stop)

        prompt.file_search = held

        def rows() -> list[tuple[str | None, str]]:
            return [(o.id, str(o.prompt)) for o in listing.options]

        short = (
            "only the first 2 paths are searched: type 3 letters of the name, or its folder (src/…)"
        )
        await pilot.press("@", *"re")
        expected = [("README.md", "README.md"), (".gitignore", ".gitignore"), (None, short)]
        await eventually(pilot, lambda: _same(rows(), expected), "the listing's matches, said so")
        assert prompt.completing and listing.chosen() == "README.md"
        await pilot.press("backspace", "backspace", *"cli")
        await until(pilot, asked.is_set, "the search to begin")
        searching = [(None, "searching past the first 2 paths…")]
        await eventually(pilot, lambda: _same(rows(), searching), "the search said")
        release.set()
        found = [("greet/cli.py", "greet/cli.py")]  # build/cli.py is ignored
        await eventually(pilot, lambda: _same(rows(), found), "the path past the cut")
        await pilot.press("tab")
        await until(pilot, lambda: prompt.text == "@greet/cli.py ", "the accepted path")
        await pilot.press("@", *"zzz")
        await workers_done(app)
        await eventually(pilot, lambda: _same(rows(), []), "nothing found")
        assert not prompt.completing
        await pilot.press("enter")
        sent = "@greet/cli.py @zzz\n\nAttached file greet/cli.py"  # attached though past the cut
        await until(pilot, lambda: [m[: len(sent)] for m in holder[0].loop.sent] == [sent], "sent")
        await workers_done(app)


def _same(actual: object, expected: object) -> None:
    assert actual == expected, f"{actual!r} != {expected!r}"


async def test_question_mark_on_an_empty_box_is_not_typed(tmp_path: Path) -> None:
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        assert prompt.is_empty
        await pilot.press("question_mark")
        await pilot.pause()
        assert prompt.text == ""  # it went to the app's bindings (help), not the text
        await until(pilot, lambda: app.screen is not app.main, "the help")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main, "back")
        await focus_of(pilot, prompt, "the box")
        await pilot.press("w", "h", "y", "question_mark")
        await until(pilot, lambda: prompt.text == "why?", "a typed ?")
        assert not prompt.is_empty


async def test_the_screen_answers_while_the_session_is_built(tmp_path: Path) -> None:
    """Building the session starts the MCP servers and waits for them (up to each one's
    ``startup_timeout``). It used to run on the event loop: the screen froze, keys and
    ctrl+c included, for as long as the slowest server took. Here the build is held
    until the test lets it go: a message sent meanwhile keeps its text, says so, and goes
    the moment the session exists — never "press Enter again", and never lost (the screen
    is up before the session, which is built once the first frame is out)."""
    from frontier.widgets.status_bar import StatusBar

    holder: list[EchoRuntime] = []
    build = echo_factory(tmp_path, holder)
    entered, release = threading.Event(), threading.Event()

    def slow_factory() -> object:
        entered.set()
        assert release.wait(60), "never released"
        return build()

    app = FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="echo"),
        session_factory=slow_factory,  # type: ignore[arg-type]
        remember_theme=False,
    )
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, entered.is_set, "the build to begin")
            status = app.main.query_one(StatusBar)
            await until(pilot, lambda: "starting the agent" in str(status.render()), "the status")
            await focus_of(pilot, lambda: prompt_of(app), "the message box")
            await type_text(pilot, "hello")  # typed and shown while the build waits
            prompt = prompt_of(app)
            await until(pilot, lambda: prompt.text == "hello", "the typed text")
            await pilot.press("enter")
            await until(
                pilot,
                lambda: any("the agent is starting" in n.message for n in app._notifications),
                "the note that it waits",
            )
            assert app.session is None and prompt.text == "hello"
            release.set()
            await until(pilot, lambda: holder and holder[0].loop.sent == ["hello"], "sent")
            await until(pilot, lambda: "starting" not in str(status.render()), "idle again")
            await workers_done(app)
            assert you_entries(app) == ["hello"]
    finally:
        release.set()


async def test_the_reply_renderers_are_warmed_on_a_thread_not_the_screens_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading the Markdown renderer and pygments (~50 ms, once) held the screen's loop
    half a second after the start: a key typed then waited. It runs on a thread, once."""
    from frontier.widgets import transcript

    warmed: list[tuple[int, str]] = []
    done = threading.Event()

    def recorded(code_theme: str) -> None:
        warmed.append((threading.get_ident(), code_theme))
        done.set()

    monkeypatch.setattr(transcript, "warm_renderers", recorded)
    app = make_app(tmp_path, [])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, done.is_set, "the renderers warmed")
        await workers_done(app)
        assert len(warmed) == 1 and warmed[0][0] != threading.get_ident()
        assert warmed[0][1] == app.main.query_one(transcript.Transcript).code_theme


async def test_a_lagging_ranking_never_replaces_a_newer_answer_for_the_same_query(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``RANK_INLINE`` paths a key's ranking runs on a worker; when a newer answer for
    the same query comes first (the folder typed, listed on its own; a search past the
    cut), the worker's late result is dropped. It used to replace that answer: in a
    160,000-file repository, `@d39/f249` showed the listing's fuzzy matches over the
    folder's (empty) answer."""
    monkeypatch.setattr(attachments, "COMPLETION_MAX", 2)  # .gitignore, README.md
    monkeypatch.setattr(prompt_input, "RANK_INLINE", 0)  # the listing ranks off the loop
    holder: list[EchoRuntime] = []
    async with completing(project, holder) as (app, pilot, prompt, listing):
        source = prompt.file_source
        assert source is not None
        release = threading.Event()

        def slow_folder(folder: str) -> tuple[list[str], bool]:
            if folder != ".":
                assert release.wait(60), "never released"
            return source(folder)

        prompt.file_source = slow_folder
        held: list[tuple[int, str, str]] = []

        def hold(ranker: object, query: str, asked: int, note: str) -> None:
            held.append((asked, query, note))

        monkeypatch.setattr(prompt, "_rank_off_loop", hold)
        await pilot.press("@", *"zz/re")  # no zz/ anywhere: its own listing is empty
        await until(pilot, lambda: held and held[-1][1] == "zz/re", "the last key's ranking")
        release.set()
        await until(pilot, lambda: prompt._folders.get("zz") is not None, "the folder listed")
        await workers_done(app)
        assert [o.id for o in listing.options] == []  # the folder's answer: nothing there
        asked, query, note = held[-1]  # the listing's ranking of that key, finishing late
        prompt._show_ranked(asked, query, ["README.md"], note)
        await pilot.pause()
        assert [o.id for o in listing.options] == []


@pytest.mark.parametrize(
    ("keys", "text"),
    [
        ("a b c left left X", "aXbc"),  # Textual issue 6605: the X came before the arrows
        ("b a backspace c", "bc"),
        ("x y z home Q", "Qxyz"),
        ("o n e ctrl+j t w o up X", "oneX\ntwo"),
    ],
)
async def test_a_burst_of_keys_edits_the_box_in_the_order_they_came(
    tmp_path: Path, keys: str, text: str
) -> None:
    """Keys that arrive together (one terminal read; the screen's loop busy while a reply
    streams) are applied in order: a bound key (an arrow, backspace, home) used to run
    only once it had bubbled up to the App, after the letters typed behind it."""
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        for key in keys.split():
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await until(pilot, lambda: prompt.text == text, f"the box to read {text!r}")


async def test_a_screenshot_dropped_on_the_terminal_goes_in_as_its_mention(
    tmp_path: Path,
) -> None:
    """Dropping a file on a terminal pastes its path (quoted when it has spaces): a
    screenshot's path went to the model as text it cannot see; now it is attached."""
    shots = tmp_path / "shots"
    shots.mkdir()
    from test_images import PNG as png  # a signature and zeros is refused as no image

    (shots / "Screen Shot 1.png").write_bytes(png)
    (shots / "notes.txt").write_text("not an image\n")
    root = tmp_path / "ws"
    root.mkdir()
    holder: list[EchoRuntime] = []
    app = make_app(root, holder)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = await ready(pilot)
        prompt.insert("what is wrong here? ")
        app.post_message(events.Paste(f"'{shots}/Screen Shot 1.png'"))
        want = f'what is wrong here? @"{shots}/Screen Shot 1.png" '
        await until(pilot, lambda: prompt.text == want, "the mention")
        await pilot.press("enter")
        await until(pilot, lambda: bool(holder[0].loop.sent), "the send")
        (images,) = holder[0].loop.images
        assert [i.name for i in images] == [f"{shots}/Screen Shot 1.png"]
        app.post_message(events.Paste(f"{shots}/notes.txt"))  # not an image: pasted as is
        await until(pilot, lambda: prompt.text == f"{shots}/notes.txt", "the plain paste")
