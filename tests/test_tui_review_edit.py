"""``e`` in the review: the person rewrites the file in their editor, the review shows
their version, and approving sends it (``screens/review.py``, ``editor.py``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from pilot_wait import until
from test_tui_review import BASE, CHANGED, PATH, ReviewApp, decided, diff_preview, opened
from textual.pilot import Pilot

from frontier.app.frontends.editor_command import editor_argv
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.tools.diffing import file_preview
from frontier.tools.review_edit import editor_name, not_editable

THEIRS = CHANGED.replace("line_03 = 'three'\n", "line_03 = 3\n")  # the person keeps line 3
GREET = "greet.py"


def editing(text: str, seen: list[str]) -> Callable[[Path], Awaitable[str | None]]:
    """A fake editor: records what it opened on, saves `text`."""

    async def edit(path: Path) -> str | None:
        seen.append(path.read_text())
        path.write_text(text)
        return None

    return edit


def notes(pilot: Pilot) -> list[str]:
    return [n.message for n in pilot.app._notifications]


async def test_the_edited_version_is_shown_and_approving_sends_it() -> None:
    app = ReviewApp(diff_preview(file_preview(PATH, BASE.encode(), CHANGED.encode())))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await opened(pilot)
        assert "e edit" in str(screen.query_one("#review-keys").render())
        seen: list[str] = []
        screen.open_editor = editing(THEIRS, seen)
        await pilot.press("e")
        await until(pilot, lambda: bool(screen.edited), "the edit taken")
        assert seen == [CHANGED]  # the editor opened on the model's version
        file = screen.diff.files[0]
        assert file.new_text == THEIRS and len(file.hunks) == 2  # hunk 1 is gone: kept as is
        assert "your version is what approving writes" in " ".join(notes(pilot))
        await pilot.press("a")
        decision = await decided(pilot)
    assert decision.approved and decision.edited == ((PATH, THEIRS.encode()),)


async def test_other_files_keep_their_declined_hunks() -> None:
    greet = file_preview(GREET, b"a\n", b"b\n")
    app = ReviewApp(diff_preview(file_preview(PATH, BASE.encode(), CHANGED.encode()), greet))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await opened(pilot)
        await pilot.press("tab", "space")  # decline greet.py's hunk
        await until(pilot, lambda: screen.diff.choices.pairs() == ((GREET, 1),), "declined")
        await pilot.press("shift+tab")
        await until(pilot, lambda: screen.diff.current_file == 0, "back on the first file")
        screen.open_editor = editing(THEIRS, [])
        await pilot.press("e")
        await until(pilot, lambda: bool(screen.edited), "the edit taken")
        assert screen.diff.choices.pairs() == ((GREET, 1),)
        await pilot.press("a")
        await until(pilot, lambda: screen.query_one("#reason").has_focus, "the reason box")
        await pilot.press(*"b stays", "enter")
        decision = await decided(pilot)
    assert decision.declined == ((GREET, 1),) and decision.edited == ((PATH, THEIRS.encode()),)


async def test_an_editor_that_fails_or_changes_nothing_leaves_the_models_version() -> None:
    app = ReviewApp(diff_preview(file_preview(PATH, BASE.encode(), CHANGED.encode())))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await opened(pilot)

        async def failing(path: Path) -> str | None:
            return "the editor exited with status 1"

        screen.open_editor = failing
        await pilot.press("e")
        await until(pilot, lambda: any("status 1" in n for n in notes(pilot)), "the failure")
        screen.open_editor = editing(CHANGED, [])
        await pilot.press("e")
        await until(pilot, lambda: any("unchanged" in n for n in notes(pilot)), "unchanged")
        await pilot.press("a")
        decision = await decided(pilot)
    assert decision.approved and decision.edited == ()


async def test_a_deletion_is_not_opened_in_an_editor() -> None:
    app = ReviewApp(diff_preview(file_preview(PATH, BASE.encode(), None)))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await opened(pilot)
        seen: list[str] = []
        screen.open_editor = editing("x", seen)
        await pilot.press("e")
        await until(pilot, lambda: any("nothing to edit" in n for n in notes(pilot)), "refused")
        assert seen == [] and isinstance(app.screen, ReviewScreen)


def test_what_cannot_be_edited() -> None:
    assert not_editable(file_preview("a.txt", b"x\n", b"y\n")) is None
    assert not_editable(file_preview("new.txt", None, b"y\n")) is None
    assert "deletes it" in (not_editable(file_preview("a.txt", b"x\n", None)) or "")
    assert "not UTF-8" in (not_editable(file_preview("b.bin", b"x\n", b"\xff\xfe\n")) or "")


def test_the_editor_is_visual_then_editor_then_one_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert editor_argv({"VISUAL": "code --wait", "EDITOR": "vi"}) == ["code", "--wait"]
    assert editor_argv({"EDITOR": "emacs -nw"}) == ["emacs", "-nw"]
    vi = tmp_path / "vi"
    vi.write_text("#!/bin/sh\n")
    vi.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert editor_argv({"EDITOR": "  "}) == [str(vi)]
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert editor_argv({}) is None


async def test_a_full_disk_for_the_editors_file_leaves_the_review_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from frontier.app.frontends import editor_command

    def full(*args: object, **kwargs: object) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(editor_command, "write_atomic", full)
    app = ReviewApp(diff_preview(file_preview(PATH, BASE.encode(), CHANGED.encode())))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await opened(pilot)
        await pilot.press("e")
        await until(pilot, lambda: any("No space left" in n for n in notes(pilot)), "the failure")
        assert isinstance(app.screen, ReviewScreen) and not screen.edited
        await pilot.press("a")
        decision = await decided(pilot)
    assert decision.approved and decision.edited == ()


def test_the_editors_copy_has_a_safe_name() -> None:
    assert editor_name("src/app.py") == "app.py"
    assert editor_name("a/..") == "edit.txt"
    assert editor_name("bad\x1b]52;c;x\x07.py") == "edit.txt"
    assert editor_name("x" * 300) == "edit.txt"
