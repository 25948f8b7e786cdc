"""A review that opens while the person is typing takes none of the typed keys as answers.

"add a test", typed into the message box as a review pops up, would approve with its
first letter (``a``) and deny with its second (``d``). A key that belongs to a run of
typing begun before the review opened goes on into the message; the first key after a
pause (``TYPED_THROUGH``) answers the review. What counts as one run is a wall-clock gap,
which Pilot does not control: each test sets the app's ``typed_through`` so that every key
is one run (a huge gap) or each key its own (no gap) — never a race.
"""

from __future__ import annotations

from pathlib import Path

from pilot_wait import focus_of, until
from test_tui_hostile_review import app_for_review, review_of, run_call

from frontier.app.events import ToolCall
from frontier.tools.contract import Decision


async def test_keys_typed_on_as_a_review_opens_go_to_the_message(tmp_path: Path) -> None:
    app = app_for_review()
    app.typed_through = 3600.0  # every key below is one run, begun before the review
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.main.query_one("#prompt")
        await focus_of(pilot, prompt, "the message box")
        await pilot.press("w")  # the person starts typing
        worker = run_call(app, tmp_path, ToolCall("c1", "shell", {"command": "touch PWNED"}))
        await review_of(pilot)
        await pilot.press(*"ith add a test")  # a, d, space, A… all of them typing
        await until(pilot, lambda: prompt.text == "with add a test", "the message whole")
        assert not app.reviews and not (tmp_path / "PWNED").exists()  # nothing answered
        assert any("while you were typing" in n.message for n in app._notifications)
        app.typed_through = 0.0  # a pause: the next keys are answers
        await pilot.press("d", "enter")  # deny (the reason box opens), no reason
        await until(pilot, lambda: bool(app.reviews), "the answer")
        await worker.wait()
    assert app.reviews[0].decision.approved is False
    assert not (tmp_path / "PWNED").exists()
    assert prompt.text == "with add a test"  # the message kept every letter


async def test_a_key_after_the_review_opened_answers_it(tmp_path: Path) -> None:
    app = app_for_review()
    app.typed_through = 0.0  # each key its own run: the person paused before answering
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.main.query_one("#prompt")
        await focus_of(pilot, prompt, "the message box")
        await pilot.press("w")
        worker = run_call(app, tmp_path, ToolCall("c2", "shell", {"command": "touch OK"}))
        await review_of(pilot)
        await pilot.press("a")
        await worker.wait()
    assert app.reviews[0].decision == Decision(True)
    assert (tmp_path / "OK").exists() and prompt.text == "w"
