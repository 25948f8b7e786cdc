"""A native-mode reply whose tool call came back as text (the server's parser did not read
it): recognised by the families' own call syntax at the start of a line, outside fences."""

from __future__ import annotations

import pytest

from frontier.app.agent.text_calls import QUOTED, text_call


@pytest.mark.parametrize(
    "envelope",
    [
        '<tool_call>\n{"name": "read", "arguments": {"path": "a.py"}}\n</tool_call>',
        "<function=read>\n<parameter=path>\na.py\n</parameter>\n</function>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read",
        '[TOOL_CALLS][{"name": "read", "arguments": {"path": "a.py"}}]',
        '<|python_tag|>{"name": "read", "parameters": {"path": "a.py"}}',
        '<minimax:tool_call>\n<invoke name="read">',
    ],
)
def test_each_familys_call_syntax_is_recognised(envelope: str) -> None:
    said = text_call(f"Let me look at the file.\n  {envelope}\n")
    assert said is not None and said.startswith(envelope[:12])


@pytest.mark.parametrize(
    "text",
    [
        "Wrap calls like this: <tool_call>{...}</tool_call> in your reply.",  # mid-sentence
        "The format is:\n```\n<tool_call>\n{}\n</tool_call>\n```\nThat is all.",  # fenced
        "Done: the file reads hi.",
    ],
)
def test_prose_about_the_syntax_is_not_a_call(text: str) -> None:
    assert text_call(text) is None


def test_after_a_closed_fence_it_counts_again_and_the_quote_is_bounded() -> None:
    text = "```\n<tool_call>\n```\n<tool_call>\n" + "x" * 5_000
    said = text_call(text)
    assert said is not None and said.endswith("…") and len(said) == QUOTED + 1


def test_hostile_text_costs_one_pass() -> None:
    """Many fences and envelopes: each envelope is placed among the fences by bisection."""
    assert text_call("```\n" + "<tool_call>\n" * 50_000) is None  # all inside one fence
    assert text_call("```\n" * 100_001 + "<tool_call>\n") is None  # an odd count: inside
    assert text_call("```\n" * 100_000 + "<tool_call>\n") == "<tool_call>\n"
