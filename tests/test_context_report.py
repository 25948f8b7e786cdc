"""``/context``: what fills the next request, part by part (app/agent/context_report.py)."""

from __future__ import annotations

import pytest

from frontier.app.agent.budget import ContextBudget, estimate_tokens
from frontier.app.agent.context_report import ContextReport, context_report
from frontier.app.agent.prompts import system_prompt
from frontier.app.events import TokenUsage
from frontier.app.image import Image
from frontier.app.model.conversation import (
    AssistantTurn,
    CallEntry,
    ResultEntry,
    ToolResults,
    UserText,
)
from frontier.app.model.request import ModelRequest, ToolSchema
from frontier.tools.contract import ToolSpec

PARAMS = {"type": "object", "properties": {"path": {"type": "string", "description": "a file"}}}
SPECS = (
    ToolSpec("read", "Read a file.", PARAMS),
    ToolSpec("shell", "Run a command." * 20, PARAMS),
    ToolSpec("gh__issues", "List the repository's issues. " * 40, PARAMS, source="mcp"),
    ToolSpec("gh__pulls", "List pull requests.", PARAMS, source="mcp"),
    ToolSpec("db__query", "Run SQL.", PARAMS, source="mcp"),
)
INSTRUCTIONS = "# Project instructions\n## AGENTS.md\n" + "Use tabs. " * 300


def result(call_id: str, name: str, size: int) -> ResultEntry:
    return ResultEntry(call_id, name, "ok", 0, "x" * size)


HISTORY = (
    UserText("[Frontier compacted the conversation: earlier we read the CLI]", origin="summary"),
    UserText("look at the logs", images=(Image("image/png", "AAAA", "shot.png"),)),
    AssistantTurn(
        "Reading them.", (CallEntry("c1", "read", {"path": "a.log"}), CallEntry("c2", "read"))
    ),
    ToolResults((result("c1", "read", 40_000), result("c2", "read", 400))),
    AssistantTurn("", (CallEntry("c3", "shell", {"cmd": "make"}),)),
    ToolResults((result("c3", "shell", 9_000),)),
    UserText("the repair request", origin="feedback"),
    AssistantTurn("Done."),
    UserText("thanks"),
)


def native_request() -> ModelRequest:
    tools = tuple(ToolSchema(s.name, s.description, s.parameters) for s in SPECS)
    return ModelRequest(system_prompt("native-inc", SPECS, INSTRUCTIONS), HISTORY, tools)


def part(report: ContextReport, label: str) -> tuple[int, str]:
    found = [(p.tokens, p.detail) for p in report.parts if p.label == label]
    assert len(found) == 1, (label, [p.label for p in report.parts])
    return found[0]


def test_the_parts_name_what_takes_the_room_and_add_up_to_the_budgets_count() -> None:
    request = native_request()
    report = context_report(request, SPECS, INSTRUCTIONS, files=("AGENTS.md",))
    labels = [p.label for p in report.parts]
    assert labels == [
        "system prompt",
        "instructions",
        "tools, built in",
        "tools, MCP db",
        "tools, MCP gh",
        "your messages",
        "summaries",
        "the model's replies",
        "tool results",
        "images",
        "Frontier's notes",
    ]
    assert sum(p.tokens for p in report.parts) == report.used == estimate_tokens(request)
    assert part(report, "tools, MCP gh")[1] == "2 tools"
    assert part(report, "tools, built in")[1] == "2 tools"
    # the MCP server with the long descriptions is seen as the big one
    assert part(report, "tools, MCP gh")[0] > 10 * part(report, "tools, MCP db")[0]
    tokens, held = part(report, "instructions")
    assert tokens == pytest.approx(len(INSTRUCTIONS) / 4, rel=0.01)
    assert held == "AGENTS.md, the environment's facts"
    assert part(report, "the model's replies")[1] == "3 replies, 3 calls"
    assert part(report, "your messages")[1] == "2 messages"
    assert part(report, "images")[1] == "1 image"
    assert part(report, "images")[0] == pytest.approx(1600, rel=0.01)  # the budget's figure
    results = part(report, "tool results")
    assert results[1] == "3 results" and results[0] > 12_000
    assert [(r.call_id, r.name) for r in report.largest] == [
        ("c1", "read"),
        ("c3", "shell"),
        ("c2", "read"),
    ]
    assert report.largest[0].tokens == pytest.approx(10_000, rel=0.01)
    assert report.window is None and report.free is None and report.counted is None


def test_a_text_protocols_tools_are_counted_apart_from_the_prompt_that_describes_them() -> None:
    request = ModelRequest(system_prompt("ctl-heredoc", SPECS, INSTRUCTIONS), HISTORY)
    report = context_report(request, SPECS, INSTRUCTIONS)
    system, _ = part(report, "system prompt")
    tools, detail = part(report, "tools, MCP gh")
    assert detail == "2 tools, described in the system prompt"
    assert tools > 300  # 40 repeated sentences of description
    bare = system_prompt("ctl-heredoc", (), "")  # the framing alone, no tool, no project
    assert abs(system - len(bare.encode()) // 4) < 60
    assert part(report, "instructions")[1] == "the environment's facts"
    assert sum(p.tokens for p in report.parts) == report.used


def test_the_parts_are_scaled_to_the_servers_count_and_the_window_is_the_budgets() -> None:
    request = native_request()
    budget = ContextBudget(window=64_000, source="config")
    estimate = estimate_tokens(request)
    budget.sending(request)
    budget.counted(TokenUsage(prompt=2 * estimate, completion=10))  # the server counts double
    report = context_report(request, SPECS, INSTRUCTIONS, budget)
    assert report.counted == 2 * estimate
    assert report.used == budget.used(request) == 2 * estimate
    assert sum(p.tokens for p in report.parts) == report.used
    assert part(report, "images")[0] == pytest.approx(3200, rel=0.01)
    assert report.largest[0].tokens == pytest.approx(20_000, rel=0.01)
    assert report.window == 64_000 and report.threshold == 0.8
    assert report.free == 64_000 - report.used


def test_an_empty_conversation_is_the_prompt_and_the_tools_only() -> None:
    schema = ToolSchema("read", "Read a file.", PARAMS)
    request = ModelRequest(system_prompt("native-inc", SPECS[:1], ""), (), (schema,))
    report = context_report(request, SPECS[:1], "")
    assert [p.label for p in report.parts] == ["system prompt", "tools, built in"]
    assert report.largest == ()


def test_the_words_name_only_the_results_worth_a_compaction() -> None:
    from frontier.app.frontends.tui.status_lines import context_lines

    budget = ContextBudget(window=64_000, source="assumed")
    report = context_report(native_request(), SPECS, INSTRUCTIONS, budget, files=("AGENTS.md",))
    lines = context_lines(report)
    assert lines[0].startswith("/context · ≈ ") and "of a 64,000-token window" in lines[0]
    rows = [line for line in lines if line.startswith("  ")]
    assert [row.split()[0] for row in rows][:2] == ["system", "instructions"]
    assert rows[-1].split()[0] == "free"
    named = next(line for line in lines if line.startswith("largest tool results: "))
    assert "c1 read (10k)" in named and "c3 shell (2.3k)" in named
    assert "c2" not in named  # 100 tokens: not worth naming
    assert "--context-window N sets it" in lines[-2]


def test_status_says_the_window_is_not_known_before_the_first_request() -> None:
    from frontier.app.frontends.tui.status_lines import context_lines, status_line_context

    early = context_report(native_request(), SPECS, INSTRUCTIONS, ContextBudget())
    assert early.window is None
    said = status_line_context(early)
    assert said.startswith("context ≈ ") and "the window not known yet" in said
    assert "window from" not in said
    assert "is not known yet" in context_lines(early)[-2]
    known = context_report(
        native_request(), SPECS, INSTRUCTIONS, ContextBudget(window=32_000, source="config")
    )
    assert "of 32,000 (" in status_line_context(known)
    assert "window from the settings (--context-window" in status_line_context(known)
