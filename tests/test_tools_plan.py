"""``plan``: Codex's update_plan and Claude Code's TodoWrite, taken and shown, not offered."""

from __future__ import annotations

from pathlib import Path

from test_tools_fakes import call, make_boundary

from frontier.tools.registry import default_registry


async def test_codex_and_claude_code_plans_come_back_as_the_checklist(tmp_path: Path) -> None:
    """Each was "unknown tool" and a repair round, and the plan the model meant to show
    was lost."""
    b = make_boundary(tmp_path)
    codex = [
        {"step": "Read the CLI", "status": "completed"},
        {"step": "Add  --shout", "status": "in_progress"},
        {"step": "Run the tests", "status": "pending"},
    ]
    r = await b.run(call("plan", 1, plan=codex, explanation="Parser first."))
    assert r.kind == "ok", r.output
    assert r.output.splitlines() == [
        "plan: 1 of 3 steps done",
        "[x] Read the CLI",
        "[>] Add --shout",
        "[ ] Run the tests",
        "Parser first.",
    ]
    todos = [{"content": "Ship", "status": "cancelled", "activeForm": "Shipping", "id": "1"}]
    r = await b.run(call("plan", 2, todos=todos))
    assert r.output.splitlines() == ["plan: 0 of 1 steps done", "[-] Ship"]
    r = await b.run(call("plan", 3, steps=[{"step": "x", "status": "blocked"}]))
    assert r.kind == "arg" and "give pending, in_progress, completed or cancelled" in r.output


async def test_a_plans_status_in_any_agents_words_and_kimis_titles(tmp_path: Path) -> None:
    """Kimi CLI's SetTodoList sends `title` and `Pending`/`In Progress`/`Done`; others
    `done`, `todo`: each was an argument error ("must be one of …") and a repair round."""
    b = make_boundary(tmp_path)
    todos = [
        {"title": "Read", "status": "Done"},
        {"title": "Write", "status": "In Progress"},
        {"title": "Test", "status": "Pending"},
        {"title": "Ship", "status": "todo"},
    ]
    name = default_registry().named("SetTodoList")
    r = await b.run(call(name, 1, todos=todos))
    assert r.kind == "ok", r.output
    assert r.output.splitlines() == [
        "plan: 1 of 4 steps done",
        "[x] Read",
        "[>] Write",
        "[ ] Test",
        "[ ] Ship",
    ]


def test_the_plan_is_called_by_its_trained_names_and_costs_no_request_a_token() -> None:
    reg = default_registry()
    assert [reg.named(n) for n in ("update_plan", "TodoWrite", "todowrite")] == ["plan"] * 3
    assert "plan" not in [name for name, _, _ in reg.native_tools()]
    assert "plan:" not in reg.prompt_tool_list()


def test_a_plans_row_says_how_many_steps_not_its_arguments() -> None:
    """The checklist is the call's output; its row showed `explanation=… plan=[{'step'…`."""
    from frontier.app.events import ToolCall
    from frontier.widgets.pane_state.tools import summarize_call

    steps = [{"step": "a", "status": "pending"}, {"step": "b", "status": "pending"}]
    assert summarize_call(ToolCall("c1", "plan", {"steps": steps, "explanation": "x"})) == (
        "2 steps"
    )
    assert summarize_call(ToolCall("c2", "plan", {"todos": steps[:1]})) == "1 step"
