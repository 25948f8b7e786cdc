"""The review modal at 80×24 and 140×45: long lines, narrow layout, hunk-level accept.

A tiny App pushes one ``ReviewScreen`` over real previews (``file_preview`` of the
exact bytes, as the core computes them) and records the ``Decision`` it
dismisses with. Tests press keys and read the screen as the terminal shows it;
they wait on state, never on the clock. The snapshots (both themes, both sizes)
show a wrapped 300-character line and a hunk declined with its dependent; update
with ``pytest tests/test_tui_review.py --snapshot-update`` (never under xdist).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pilot_wait import eventually, screen_lines, until
from pilot_wait import opened as opened_screen
from pytest_textual_snapshot import SVGImageExtension
from rich.cells import cell_len
from rich.text import Text
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static
from tui_fakes import NEW, OLD, PATCH_SPEC, SHELL_SPEC, ask, asking_factory, make_preview

from frontier.app.config import Config
from frontier.app.events import ToolCall
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.themes.palette import THEMES, theme_variable
from frontier.tools.contract import Decision, FilePreview, Preview, ToolSpec
from frontier.tools.diffing import file_preview
from frontier.widgets.diff_view import DiffView, Highlighter, Look, fold, side_rows, window

SIZES = {"80x24": (80, 24), "140x45": (140, 45)}
THEME_NAMES = ("frontier-dark", "frontier-light")

LONG = ("tokens=" + ",".join(f"t{i:03d}" for i in range(60)))[:300]
BASE = "".join(f"line_{n:02d} = {n}\n" for n in range(1, 41))
CHANGED = (
    BASE.replace("line_03 = 3\n", "line_03 = 'three'\n")
    .replace("line_18 = 18\n", LONG + "\n")
    .replace("line_33 = 33\n", "line_33 = 'thirty-three'\n")
)
PATH = "pkg/settings.py"
HINT_KEYS = ("space", "j/k", "tab", "split", "wrap", "hunk")


def three_hunks(depends: bool = True) -> FilePreview:
    """``PATH`` with hunks at lines 3, 18 (a 300-character line) and 33; hunk 3 shares
    context with hunk 2 when ``depends``."""
    file = file_preview(PATH, BASE.encode(), CHANGED.encode())
    assert [h.index for h in file.hunks] == [1, 2, 3]
    if not depends:
        return file
    first, second, third = file.hunks
    return replace(file, hunks=(first, second, replace(third, depends_on=(2,))))


def diff_preview(*files: FilePreview) -> Preview:
    return Preview(kind="diff", files=files, summary="tune the settings")


PATCH_CALL = ToolCall("c2", "apply_patch", {"patch": "…"}, 412)


class ReviewApp(App[None]):
    """One review over an empty screen; ``decisions`` gets what it dismissed with."""

    def __init__(
        self,
        preview: Preview,
        *,
        call: ToolCall = PATCH_CALL,
        spec: ToolSpec = PATCH_SPEC,
        theme: str = "frontier-dark",
    ) -> None:
        super().__init__()
        for t in THEMES:
            self.register_theme(t)
        self.preview = preview
        self.call = call
        self.spec = spec
        self.theme_name = theme
        self.decisions: list[Decision] = []

    def on_load(self) -> None:
        self.theme = self.theme_name

    def on_mount(self) -> None:
        theme = self.current_theme
        self.push_screen(
            ReviewScreen(
                self.call,
                self.spec,
                self.preview,
                syntax_style=theme_variable(theme, "syntax-style", "monokai"),
                added_bg=theme_variable(theme, "diff-added-bg", "#12361f"),
                removed_bg=theme_variable(theme, "diff-removed-bg", "#42171b"),
            ),
            self.decisions.append,
        )


async def opened(pilot: Pilot) -> ReviewScreen:
    """The review, mounted (its titles, hints and layout class are set in ``on_mount``)."""
    screen = await opened_screen(pilot, ReviewScreen, "the review")
    await pilot.pause()
    return screen


async def decided(pilot: Pilot) -> Decision:
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await until(pilot, lambda: bool(app.decisions), "the decision")
    return app.decisions[0]


def shown_rows(lines: list[str], start: str) -> list[str]:
    """The rows of the line starting with ``start`` as shown (it and its ``↪`` rows)."""
    token = re.compile(r"[\w=,]+")
    row = next(i for i, line in enumerate(lines) if start in line)
    match = token.match(lines[row], lines[row].index(start))
    assert match
    pieces = [match.group()]
    for line in lines[row + 1 :]:
        if "↪" not in line:
            break
        more = token.match(line, line.index("↪") + 2)
        assert more, line
        pieces.append(more.group())
    return pieces


def static_text(screen: ReviewScreen, selector: str) -> str:
    content = screen.query_one(selector, Static).content
    assert isinstance(content, Text)
    return content.plain


def hint_text(screen: ReviewScreen) -> str:
    return static_text(screen, "#review-keys")


def header_text(screen: ReviewScreen, n: int) -> str:
    return static_text(screen, f"#hunk-header-{n}")


def head_text(screen: ReviewScreen) -> str:
    return static_text(screen, "#review-head")


sizes = pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))


# ---------------------------------------------------------------------- long lines
@sizes
async def test_a_long_line_wraps_and_every_character_is_shown(size: tuple[int, int]) -> None:
    app = ReviewApp(diff_preview(three_hunks()))
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        await pilot.press("j")  # hunk 2, the long line, scrolled to the top
        await until(pilot, lambda: screen.query_one(DiffView).current == 1, "hunk 2")

        def check() -> None:
            lines = screen_lines(app)
            pieces = shown_rows(lines, "tokens=t000")
            assert "".join(pieces) == LONG  # every character, once, in order
            assert len(pieces) == -(-len(LONG) // len(pieces[0])) > 1  # full rows, then the rest
            first = next(line for line in lines if "tokens=t000" in line)
            assert re.search(r"\b18 \+ tokens", first)  # number and sign on the first row only

        await eventually(pilot, check, "the long line shown whole")


@sizes
async def test_without_wrapping_the_line_pans_and_numbers_stay_put(size: tuple[int, int]) -> None:
    app = ReviewApp(diff_preview(three_hunks()))
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        await pilot.press("j", "w")
        diff = screen.query_one(DiffView)
        await until(pilot, lambda: diff.current == 1 and not diff.wrap, "hunk 2, unwrapped")
        assert not diff.wrap
        assert "←/→" in hint_text(screen) or "←→" in hint_text(screen)

        def long_row() -> str:
            return next(line for line in screen_lines(app) if re.search(r"\s18 \+", line))

        def first_row() -> None:
            row = long_row()
            assert "tokens=t000" in row and row.rstrip(" █▁▂▃▄▅▆▇").endswith("›")

        await eventually(pilot, first_row, "the long line, not wrapped")
        row = long_row()
        column = row.index("18 +")
        assert "tokens=t000" in row and row.rstrip(" █▁▂▃▄▅▆▇").endswith("›")
        seen = [row]
        for _ in range(40):
            if "›" not in seen[-1]:
                break
            await pilot.press("right")
            await until(pilot, lambda: long_row() != seen[-1], "the pan")
            seen.append(long_row())
            assert seen[-1].index("18 +") == column  # the gutter does not move
            assert "‹" in seen[-1]
        assert "›" not in seen[-1], "panned to the end of the line"
        assert seen[-1].rstrip(" █▁▂▃▄▅▆▇").endswith(LONG[-12:])
        assert len(seen) > 2
        await pilot.press(*["left"] * 40)
        await until(pilot, lambda: diff.x == 0, "panned back")
        assert diff.x == 0

        def at_start() -> None:
            assert "tokens=t000" in long_row()

        await eventually(pilot, at_start, "the line's start")


def test_folding_and_windows_count_cells_and_keep_every_character() -> None:
    wide = Text("日本語のテキスト" * 3)
    rows = fold(wide, 7)
    assert "".join(r.plain for r in rows) == wide.plain
    assert all(cell_len(r.plain) <= 7 for r in rows)
    piece, left, right = window(Text("abcdefghij"), 3, 4)
    assert (piece.plain, left, right) == ("defg", True, True)
    piece, left, right = window(wide, 2, 5)
    assert cell_len(piece.plain) <= 5 and left and right


def test_control_characters_show_as_pictures_not_raw() -> None:
    file = file_preview("notes.txt", b"a\x0cb\nok\n", b"a\x1bb\nok\n")
    hl = Highlighter(file, "monokai")
    removed, added = file.hunks[0].lines[:2]
    assert (removed.sign, added.sign) == ("-", "+")
    assert hl.line(removed).plain == "a␌b" and hl.line(added).plain == "a␛b"
    rows = side_rows(added, hl.line(added), Text(" 1 "), 40, Look())
    assert not any(c in row.plain for row in rows for c in "\x0c\x1b")


# ---------------------------------------------------------------------- layout
@sizes
async def test_narrow_shows_a_header_line_instead_of_the_file_list(size: tuple[int, int]) -> None:
    greet = file_preview("greet.py", OLD.encode(), NEW.encode())
    app = ReviewApp(diff_preview(three_hunks(), greet))
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        files = screen.query_one("#files", OptionList)
        header = screen.query_one("#file-header", Static)
        narrow = size[0] < 100
        assert files.display is not narrow
        assert header.display is narrow

        def first_file() -> None:
            lines = screen_lines(app)
            assert any("file 1/2: pkg/settings.py" in line for line in lines) is narrow
            assert any("pkg/settings.py" in line for line in lines)

        await eventually(pilot, first_file, "the first file shown")
        await pilot.press("tab")
        await until(pilot, lambda: screen.query_one(DiffView).current_file == 1, "file 2")

        def second_file() -> None:
            assert any("file 2/2: greet.py" in line for line in screen_lines(app)) is narrow
            if not narrow:
                assert files.highlighted == 1

        await eventually(pilot, second_file, "the second file shown")


@sizes
@pytest.mark.parametrize("files", [1, 2], ids=["one-file", "two-files"])
async def test_the_hint_line_fits_and_names_only_keys_that_work(
    size: tuple[int, int], files: int
) -> None:
    greet = file_preview("greet.py", OLD.encode(), NEW.encode())
    app = ReviewApp(diff_preview(*[three_hunks(), greet][:files]))
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        keys = screen.query_one("#review-keys", Static)
        diff = screen.query_one(DiffView)

        def check() -> None:
            hints = hint_text(screen)
            assert cell_len(hints) <= keys.content_size.width, hints
            assert any(hints in line for line in screen_lines(app))  # shown whole
            assert ("tab" in hints) is (files > 1)  # one file: no file key
            assert "space" in hints and "j/k" in hints
            assert ("split" in hints) is (size[0] >= 105)  # split needs a wide modal

        for press in ("", "w"):
            if press:
                await pilot.press(press)
                await until(pilot, lambda: not diff.wrap, "no wrapping")
            await eventually(pilot, check, f"the hint line after {press or 'opening'!r}")
        assert "←" in hint_text(screen)  # panning only when not wrapping
        assert screen.check_action("file", ()) is (files > 1)


@sizes
async def test_the_command_review_lists_only_its_own_keys(size: tuple[int, int]) -> None:
    preview = Preview(kind="command", command="pytest -q")
    call = ToolCall("c3", "shell", {"command": "pytest -q"})
    app = ReviewApp(preview, call=call, spec=SHELL_SPEC)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        assert screen.query_one("#review").border_title == "Review command"
        hints = hint_text(screen)
        assert hints == "a approve · d deny (+ reason) · esc deny"
        assert not any(key in hints for key in HINT_KEYS)
        shown = {key for key, active in screen.active_bindings.items() if active.binding.show}
        assert shown == {"a", "d", "escape"}
        actions = {active.binding.action for active in screen.active_bindings.values()}
        assert not actions & {"toggle_hunk", "hunk(1)", "hunk(-1)", "split", "wrap", "file(1)"}
        await pilot.press("space", "j", "s", "w", "tab")  # nothing happens
        await pilot.press("a")
        assert await decided(pilot) == Decision(True)


async def test_a_protected_file_is_named_first_in_the_head() -> None:
    """The head is one row cut at the edge: the summary's ``— protected: x reaches
    .git/hooks/pre-commit`` came after the counts and the call's own words, past 80
    columns (an undo through a link into ``.git``)."""
    named = replace(diff_preview(three_hunks()), protected=("x (reaches .git/hooks/pre-commit)",))
    app = ReviewApp(named)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        assert head_text(screen).startswith(
            "c2 apply_patch · protected (git runs it): x (reaches .git/hooks/pre-commit) · "
        )


# ---------------------------------------------------------------------- hunks
@sizes
async def test_space_declines_a_hunk_and_approve_sends_the_declined_pairs(
    size: tuple[int, int],
) -> None:
    app = ReviewApp(diff_preview(three_hunks(depends=False)))
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        assert "hunks accepted" not in head_text(screen)
        await pilot.press("j", "space")

        def check() -> None:
            assert "declined" in header_text(screen, 1)
            assert "✗" in header_text(screen, 1) and "✓" in header_text(screen, 0)
            assert screen.query_one("#hunk-1").has_class("-declined")
            assert "2 of 3 hunks accepted" in head_text(screen)

        await eventually(pilot, check, "hunk 2 declined")
        await pilot.press("a")
        reason = screen.query_one("#reason", Input)
        await until(pilot, lambda: reason.has_focus, "the reason box")
        assert "enter approve the rest" in hint_text(screen)
        await pilot.press(*"keep the old value", "enter")
        decision = await decided(pilot)
    assert decision == Decision(True, "keep the old value", declined=((PATH, 2),))


async def test_a_hunk_toggled_back_on_approves_everything() -> None:
    app = ReviewApp(diff_preview(three_hunks()))
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("space", "space", "a")
        assert await decided(pilot) == Decision(True)


async def test_approving_with_declined_hunks_and_no_reason_says_so() -> None:
    app = ReviewApp(diff_preview(three_hunks()))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        await pilot.press("space", "a")
        await until(pilot, lambda: screen.query_one("#reason").has_focus, "the reason box")
        await pilot.press("escape")  # back to the review: nothing decided
        await until(pilot, lambda: screen.query_one(DiffView).has_focus, "the diff again")
        assert not app.decisions and screen.query_one(DiffView).has_focus
        await pilot.press("a")
        await until(pilot, lambda: screen.query_one("#reason").has_focus, "the reason box")
        await pilot.press("enter")
        decision = await decided(pilot)
    assert decision == Decision(True, "declined in review", declined=((PATH, 1),))


@sizes
async def test_dependents_are_declined_with_their_base_and_marked(size: tuple[int, int]) -> None:
    app = ReviewApp(diff_preview(three_hunks()))
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        assert "shares context with hunk 2" in header_text(screen, 2)
        await pilot.press("j", "space")

        def base_declined() -> None:
            assert "declined with hunk 2 (shares context)" in header_text(screen, 2)
            assert screen.query_one("#hunk-2").has_class("-declined")
            assert "1 of 3 hunks accepted" in head_text(screen)

        await eventually(pilot, base_declined, "hunk 2 declined with its dependent")
        # the dependent cannot be accepted while its base stays declined
        await pilot.press("j", "space")
        await until(pilot, lambda: bool(app._notifications), "the refusal")
        (note,) = app._notifications
        assert "accept hunk 2 first" in note.message
        assert "declined with hunk 2" in header_text(screen, 2)
        # accepting the base re-accepts it
        await pilot.press("k", "space")

        def base_accepted() -> None:
            assert "declined" not in header_text(screen, 2)
            assert not screen.query_one("#hunk-2").has_class("-declined")
            assert "hunks accepted" not in head_text(screen)

        await eventually(pilot, base_accepted, "hunk 2 accepted again")
        await pilot.press("space", "a")
        await until(pilot, lambda: screen.query_one("#reason").has_focus, "the reason box")
        await pilot.press("enter")
        decision = await decided(pilot)
    assert decision.approved
    assert decision.declined == ((PATH, 2), (PATH, 3))


@sizes
async def test_declining_every_hunk_is_a_deny(size: tuple[int, int]) -> None:
    app = ReviewApp(diff_preview(three_hunks(depends=False)))
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        await pilot.press("space", "j", "space", "j", "space")
        await until(pilot, lambda: "0 of 3 hunks accepted" in head_text(screen), "all declined")
        assert "0 of 3 hunks accepted" in head_text(screen)
        await pilot.press("a")
        reason = screen.query_one("#reason", Input)
        await until(pilot, lambda: reason.has_focus, "the reason box")
        assert "denies" in reason.placeholder
        await pilot.press("enter")
        decision = await decided(pilot)
    assert decision == Decision(False, "every hunk declined in the review")


async def test_a_mode_change_is_still_written_when_every_hunk_is_declined() -> None:
    file = replace(three_hunks(depends=False), old_mode=0o644, new_mode=0o755)
    app = ReviewApp(diff_preview(file))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await opened(pilot)
        await pilot.press("space", "j", "space", "j", "space", "a")
        await until(pilot, lambda: screen.query_one("#reason").has_focus, "the reason box")
        await pilot.press("enter")
        decision = await decided(pilot)
    assert decision.approved
    assert decision.declined == ((PATH, 1), (PATH, 2), (PATH, 3))


async def test_deny_and_escape_still_deny() -> None:
    app = ReviewApp(diff_preview(three_hunks()))
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("escape")
        assert await decided(pilot) == Decision(False, "no reason given (denied in the review)")


# ---------------------------------------------------------------------- every mutation
@sizes
async def test_creates_deletes_moves_and_mode_changes_say_so(size: tuple[int, int]) -> None:
    created = replace(file_preview("bin/run", None, b"#!/bin/sh\necho hi\n"), new_mode=0o755)
    deleted = file_preview("old.txt", b"gone\n", None)
    moved = replace(
        file_preview("src/new_name.py", b"x = 1\n", b"x = 2\n"), moved_from="src/old_name.py"
    )
    chmod = replace(file_preview("tool.sh", b"echo\n", b"echo\n"), old_mode=0o644, new_mode=0o755)
    app = ReviewApp(diff_preview(created, deleted, moved, chmod))
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        titles = [static_text(screen, f"#file-{n}") for n in range(4)]
        assert "bin/run  new file · mode 755" in titles[0]
        assert "old.txt  deleted" in titles[1]
        assert "R src/old_name.py → src/new_name.py" in titles[2]
        assert "tool.sh  mode 644 → 755" in titles[3]
        diff = screen.query_one(DiffView)
        assert diff.choices.total == 3  # the mode change has no hunk to decline
        diff.goto_file(3)
        await until(pilot, lambda: any("mode only" in line for line in screen_lines(app)), "file 4")
        assert any("mode only" in line for line in screen_lines(app))


async def test_the_tui_review_uses_the_same_preview_as_make_preview() -> None:
    preview = make_preview("greet.py", OLD, NEW)
    (file,) = preview.files
    assert file.hunks and file.hunks[0].lines  # structured hunks, nothing to parse
    app = ReviewApp(preview)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)

        def check() -> None:
            lines = screen_lines(app)
            assert any("+ def greet(name, shout=False):" in line for line in lines)

        await eventually(pilot, check, "the added line shown")
        assert screen.query_one(DiffView).files == preview.files


async def test_the_app_records_and_notes_an_approval_with_declined_hunks() -> None:
    factory, _ = asking_factory(Path.cwd())
    app = FrontierApp(Config(model="smollm2"), session_factory=factory, remember_theme=False)
    preview = diff_preview(three_hunks(depends=False))
    async with app.run_test(size=(80, 24)) as pilot:
        # the question as a session's gate puts it: an ApprovalRequested event
        worker = app.run_worker(ask(app, PATCH_CALL, PATCH_SPEC, preview), exit_on_error=False)
        screen = await opened(pilot)
        await pilot.press("j", "j", "space", "a")
        await until(pilot, lambda: screen.query_one("#reason").has_focus, "the reason box")
        await pilot.press(*"not yet", "enter")
        await worker.wait()
    decision = Decision(True, "not yet", declined=((PATH, 3),))
    assert worker.result == decision
    assert app.reviews[0].decision == decision
    assert app.state.tools["c2"].state == "approved"
    assert any(
        e.role == "note" and "approved c2 without pkg/settings.py #3: not yet" in e.text
        for e in app.state.transcript
    )


# ---------------------------------------------------------------------- snapshots
@pytest.fixture
def _snapshots_in_tests_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the SVGs in tests/snapshots/ (syrupy's default is __snapshots__)."""
    root = Path(__file__).parent / "snapshots"

    def dirname(cls: Any, *, test_location: Any) -> str:
        return str(root / test_location.basename)

    monkeypatch.setattr(SVGImageExtension, "dirname", classmethod(dirname))


@pytest.mark.usefixtures("_snapshots_in_tests_snapshots")
@pytest.mark.parametrize("theme", THEME_NAMES)
@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
def test_review_with_a_long_line_and_a_declined_hunk(
    snap_compare: Any, size: str, theme: str
) -> None:
    greet = file_preview("greet.py", OLD.encode(), NEW.encode())
    app = ReviewApp(diff_preview(three_hunks(), greet), theme=theme)

    async def run_before(pilot: Pilot) -> None:
        screen = await opened(pilot)
        for box in screen.query(Input):
            box.cursor_blink = False
        await pilot.press("j", "space")
        await until(pilot, lambda: "declined" in header_text(screen, 1), "hunk 2 declined")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


async def test_the_models_command_in_the_title_is_shown_not_read_as_markup() -> None:
    """A ``sed -i`` reviewed as the patch it makes names the model's command in the title:
    ``s/[/]//`` was read as markup there (a markup error: the TUI stopped at the review)."""
    call = ToolCall("c4", "apply_patch", {"patch": "x"}, origin="sed -i 's/[/]//' f.txt")
    app = ReviewApp(diff_preview(three_hunks(depends=False)), call=call)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        title = screen.query_one("#review").border_title
        assert title is not None and "sed -i 's/\\[/]//' f.txt" in title
        await pilot.press("a")
        assert (await decided(pilot)).approved
