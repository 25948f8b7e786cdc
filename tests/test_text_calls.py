"""A native-mode reply whose tool call came back as text (the server's parser did not read
it): recognised by the families' own call syntax at the start of a line, outside fences."""

from __future__ import annotations

import pytest

from frontier.app.agent.text_calls import QUOTED, text_call

OFFERED = ("read", "shell", "srv__search")


@pytest.mark.parametrize(
    "envelope",
    [
        '<tool_call>\n{"name": "read", "arguments": {"path": "a.py"}}\n</tool_call>',
        "<function=read>\n<parameter=path>\na.py\n</parameter>\n</function>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read\n```json",
        "<tool_call>read\n<arg_key>path</arg_key>",
        '[TOOL_CALLS][{"name": "read", "arguments": {"path": "a.py"}}]',
        '<|python_tag|>{"name": "read", "parameters": {"path": "a.py"}}',
        '<minimax:tool_call>\n<invoke name="read">',
        "[TOOL_CALLS]srv__search[ARGS]{}",
        '<|tool_call>call:read{path: "a.py"}<tool_call|>',  # Gemma 4 (llama.cpp #22786)
        '<|python_start|>{"name": "read", "parameters": {"path": "a.py"}}<|python_end|>',
        # Devstral's calls left in content by llama.cpp (#14697), Llama 3.1's JSON
        '{\n  "tool_calls": [\n    {\n      "name": "read",\n      "arguments": {}',
        '{"type": "function", "name": "shell", "parameters": {"command": "ls"}}',
        '{"name": "read", "arguments": {"path": "a.py"}}',
    ],
)
def test_each_familys_call_syntax_is_recognised(envelope: str) -> None:
    said = text_call(f"Let me look at the file.\n  {envelope}\n", OFFERED)
    assert said is not None and said.startswith(envelope[:12])


@pytest.mark.parametrize(
    "text",
    [
        "Wrap calls like this: <tool_call>{...}</tool_call> in your reply.",  # mid-sentence
        "The format is:\n```\n<tool_call>\n{}\n</tool_call>\n```\nThat is all.",  # fenced
        "Done: the file reads hi.",
        # the syntax for a tool this session does not offer: an example, not a call
        'Hermes writes:\n<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>',
        'The config is:\n{"name": "my-app", "version": "1.0"}\nand it builds.',  # no tool
        'It returned {"name": "read"} mid-line, as data.',
    ],
)
def test_prose_about_the_syntax_is_not_a_call(text: str) -> None:
    assert text_call(text, OFFERED) is None


def test_after_a_closed_fence_it_counts_again_and_the_quote_is_bounded() -> None:
    text = '```\n<tool_call>\n```\n<tool_call>\n{"name": "read", "x": "' + "x" * 5_000
    said = text_call(text, OFFERED)
    assert said is not None and said.endswith("…") and len(said) == QUOTED + 1


def test_hostile_text_costs_one_pass() -> None:
    """Many fences and envelopes: each envelope is placed among the fences by bisection."""
    call = '<tool_call>{"name": "read"}\n'
    assert text_call("```\n" + call * 50_000, OFFERED) is None  # all inside one fence
    assert text_call("```\n" * 100_001 + call, OFFERED) is None  # an odd count: inside
    assert text_call("```\n" * 100_000 + call, OFFERED) == call
    assert text_call("<tool_call>\n" * 50_000, OFFERED) is None  # none names a tool


def test_gpt_oss_harmony_markup_after_its_thought_on_the_same_line_is_a_call() -> None:
    """A server with no Harmony parser leaks gpt-oss's call into the text, after the
    thought on one line: 0 of 10 calls ran on one such server, and the turn looked done."""
    harmony = (
        "<|channel|>analysis<|message|>We need to read a.py.<|end|><|start|>assistant"
        '<|channel|>commentary to=functions.read <|constrain|>json<|message|>{"path":"a.py"}'
    )
    said = text_call(harmony, OFFERED)
    assert said is not None and said.startswith("<|channel|>commentary to=functions.read")
    assert text_call(harmony.replace("functions.read", "functions.get_weather"), OFFERED) is None
    assert text_call(f"```\n{harmony}\n```", OFFERED) is None  # shown, not sent
