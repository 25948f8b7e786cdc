"""A command's review says how long the call lets it run (``Preview.runs_for``).

The review of ``shell`` showed the command and where it runs, and said "the approval is
bound to exactly this content"; a call with ``background: true`` started a job that
runs until the session ends, and one with ``timeout: 3600`` could run an hour, and the
terminal's review showed neither (the TUI's only as the model's words in its head).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_wait import opened
from test_sandbox_policy import Person, active
from test_tui_sandbox import INSIDE, ReviewApp
from textual.widgets import Static

from frontier.app.events import ToolCall
from frontier.app.frontends.headless import render_preview
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Preview
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry


async def shown_for(root: Path, name: str, args: dict[str, Any]) -> Preview:
    """The preview a person is asked about for the model's call, through the boundary
    (the arguments coerced as a model's are: ``"3600"``, ``"true"``)."""
    person = Person(False)
    approver = PolicyApprover("ask", person, sandbox=active())
    boundary = ToolBoundary(default_registry(), root, approver, None)
    result = await boundary.run(ToolCall("c1", name, args))
    assert result.kind == "denied", result.output  # nothing ran
    assert len(person.seen) == 1
    return person.seen[0][1]


async def test_the_terminal_review_says_a_job_has_no_time_limit(tmp_path: Path) -> None:
    preview = await shown_for(
        tmp_path, "shell", {"command": "python3 -m http.server 8000", "background": "true"}
    )
    assert render_preview(preview).splitlines() == [
        "$ python3 -m http.server 8000",
        "runs as a background job, no time limit",
        "(outside any sandbox)",  # this boundary has none
    ]


async def test_the_terminal_review_says_a_longer_timeout(tmp_path: Path) -> None:
    preview = await shown_for(tmp_path, "shell", {"command": "make test", "timeout": "3600"})
    assert "runs for up to 3600 s (usually 120 s)" in render_preview(preview).splitlines()
    preview = await shown_for(tmp_path, "python", {"code": "print(1)", "timeout": 5})
    assert "runs for up to 5 s (usually 120 s)" in render_preview(preview).splitlines()


async def test_the_usual_limit_is_not_said(tmp_path: Path) -> None:
    for args in ({"command": "make"}, {"command": "make", "timeout": 120},
                 {"command": "make", "background": False}):  # fmt: skip
        preview = await shown_for(tmp_path, "shell", args)
        assert preview.runs_for == ""
        assert render_preview(preview).splitlines()[1:] == ["(outside any sandbox)"]


async def test_the_tui_review_says_it_before_the_sandbox_label() -> None:
    """One row, cut at the screen's edge: how long comes before the sandbox's label."""
    preview = Preview(
        kind="command",
        command="npm run dev",
        sandbox=INSIDE,
        runs_for="as a background job, no time limit",
    )
    app = ReviewApp(preview)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot, ReviewScreen, "the review")
        where = str(screen.query_one("#review-where", Static).render())
        assert where.startswith("runs as a background job, no time limit · inside the sandbox")
