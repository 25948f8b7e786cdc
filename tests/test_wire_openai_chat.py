"""Chat Completions: the reasoning a reply's calls came from is kept to be sent back with
them (DeepSeek's and Kimi's thinking modes refuse the next request without it), in the
field the server streamed it in, and only for a reply with calls."""

from __future__ import annotations

import json
from typing import Any

import pytest

from frontier.app.model.conversation import AssistantTurn, CallEntry, Reasoning, UserText
from frontier.app.model.stream import (
    CallStart,
    Delta,
    End,
    Finish,
    ReasoningBlock,
    ReasoningDelta,
    ServerError,
)
from frontier.app.model.wires.openai_chat import ChatDecoder, Codec, encode_messages

WIRE = "openai-chat"


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def call(index: int, ident: str = "", args: str = "") -> dict[str, Any]:
    piece: dict[str, Any] = {"index": index, "function": {"arguments": args}}
    if ident:
        piece.update(id=ident, type="function")
        piece["function"]["name"] = "read"
    return {"tool_calls": [piece]}


def feed(*chunks: str) -> list[Delta]:
    decoder = ChatDecoder()
    return [d for data in chunks for d in decoder.feed("", data)]


def blocks(deltas: list[Delta]) -> list[dict[str, Any]]:
    return [dict(d.data) for d in deltas if isinstance(d, ReasoningBlock)]


def test_a_reply_cut_after_its_first_call_keeps_the_reasoning_before_it() -> None:
    """Native-inc runs a call before the reply ends: the reasoning is kept at the call,
    ahead of it, so a reply the connection cut there still sends it back."""
    deltas = feed(
        chunk({"role": "assistant", "content": None, "reasoning_content": ""}),
        chunk({"reasoning_content": "Read the "}),
        chunk({"reasoning_content": "notes."}),
        chunk(call(0, "call_1", '{"path":')),
    )
    assert blocks(deltas) == [{"reasoning_content": "Read the notes."}]
    kept = next(i for i, d in enumerate(deltas) if isinstance(d, ReasoningBlock))
    started = next(i for i, d in enumerate(deltas) if isinstance(d, CallStart))
    assert kept < started
    assert [d.text for d in deltas if isinstance(d, ReasoningDelta)] == ["Read the ", "notes."]


def test_reasoning_after_a_call_is_kept_when_the_reply_ends() -> None:
    deltas = feed(
        chunk({"reasoning": "first"}),
        chunk(call(0, "call_1", "{}")),
        chunk({"reasoning": " then more"}),
        chunk({}, "tool_calls"),
        "[DONE]",
    )
    assert blocks(deltas) == [{"reasoning": "first"}, {"reasoning": " then more"}]
    assert isinstance(deltas[-1], End)


def test_an_empty_reasoning_field_is_kept_empty() -> None:
    """DeepSeek opens a reply without reasoning with ``"reasoning_content": ""`` and
    still refuses the next request if the field is not sent back."""
    deltas = feed(chunk({"reasoning_content": ""}), chunk(call(0, "call_1", "{}")), "[DONE]")
    assert blocks(deltas) == [{"reasoning_content": ""}]


@pytest.mark.parametrize(
    "first", [chunk({"reasoning_content": "musing"}), chunk({"content": "no field at all"})]
)
def test_a_reply_without_calls_or_without_reasoning_keeps_none(first: str) -> None:
    assert blocks(feed(first, chunk({"content": "Hi"}, "stop"), "[DONE]")) == []
    assert blocks(feed(chunk({"content": "x"}), chunk(call(0, "c", "{}")), "[DONE]")) == []


def test_a_whole_answer_keeps_the_reasoning_of_its_calls() -> None:
    """A server that ignored ``stream: true`` answers one ``chat.completion`` object."""
    message = {
        "role": "assistant",
        "content": None,
        "reasoning_content": "Check the notes.",
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read"}}],
    }
    answer = {"choices": [{"message": message, "finish_reason": "tool_calls"}]}
    deltas = Codec().json_answer(answer)
    assert deltas is not None
    assert blocks(deltas) == [{"reasoning_content": "Check the notes."}]


def turn(call_id: str, *thought: dict[str, Any], text: str = "") -> AssistantTurn:
    calls = (CallEntry(call_id, "read", {"path": "a"}),)
    return AssistantTurn(text, calls, tuple(Reasoning(WIRE, t) for t in thought))


def sent(items: list[Any], **options: Any) -> list[dict[str, Any]]:
    messages = encode_messages(items, native=True, wire=WIRE, **options)
    return [m for m in messages if m["role"] == "assistant"]


def test_the_history_sends_each_calls_reasoning_in_its_field() -> None:
    other = Reasoning("anthropic-messages", {"type": "thinking", "thinking": "x"})
    items = [
        UserText("go"),
        turn("c1", {"reasoning_content": "a"}, {"reasoning_content": "b"}, text="Reading."),
        AssistantTurn("", (CallEntry("c2", "read", {}),), (other,)),
        turn("c3"),
    ]
    first, second, third = sent(items)  # each answered "not executed" between them
    assert first["reasoning_content"] == "a\n\nb" and first["content"] == "Reading."
    assert "thinking" not in json.dumps(first)
    assert "reasoning_content" not in second and second["content"] is None
    assert "reasoning_content" not in third
    padded = sent(items, pad="reasoning_content")
    assert [(m["reasoning_content"], m["content"]) for m in padded[1:]] == [("", "")] * 2
    assert padded[0] == first
    assert all("reasoning_content" not in m for m in sent(items, reasoning=False))


def test_only_a_refusal_of_reasoning_sent_turns_it_off() -> None:
    """A refusal asking for the reasoning pads the history, once; a refusal of the field
    turns it off only when this body carried some (not a ``reasoning_effort`` error)."""
    codec = Codec()
    assert codec.rejected(400, "Unrecognized request argument: 'reasoning_effort'") is None
    assert codec.rejected(400, "'reasoning_content' was unexpected") is None  # none sent
    missing = "Missing `reasoning_content` field in the assistant message at message index 2"
    assert codec.rejected(400, missing) is not None and codec.pad_reasoning == "reasoning_content"
    assert codec.rejected(400, missing) is None  # padded already: the refusal is final


def test_what_a_server_sends_on_a_call_goes_back_on_that_call() -> None:
    """Gemini's thought signature arrives on a call's first piece; a later piece names only
    the index. Kept by the call's id, sent back on it alone, as received."""
    signed = {"google": {"thought_signature": "sig-A"}}
    first = {"index": 0, "id": "c1", "type": "function", "extra_content": signed}
    first["function"] = {"name": "read", "arguments": ""}
    deltas = feed(
        chunk({"tool_calls": [first]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}),
        chunk(call(1, "c2", "{}")),
        "[DONE]",
    )
    assert blocks(deltas) == [{"tool_call": "c1", "extra_content": signed}]
    kept = tuple(Reasoning(WIRE, b) for b in blocks(deltas))
    calls = (CallEntry("c1", "read", {}), CallEntry("c2", "read", {}))
    (message,) = sent([UserText("go"), AssistantTurn("", calls, kept)])
    assert [c.get("extra_content") for c in message["tool_calls"]] == [signed, None]
    assert "tool_call" not in message and "reasoning_content" not in message
    (padded,) = sent([UserText("go"), AssistantTurn("", calls, kept)], sign="extra")
    stand_in = {"google": {"thought_signature": "skip_thought_signature_validator"}}
    assert [c["extra_content"] for c in padded["tool_calls"]] == [signed, stand_in]


def test_a_refusal_naming_thought_signature_signs_the_calls_once() -> None:
    codec = Codec()
    said = '[{"error": {"code": 400, "message": "Function call is missing a thought_signature"}}]'
    assert codec.rejected(400, said) is not None and codec.sign_calls == "extra"
    assert codec.rejected(400, said) is None


def test_openrouters_refusal_signs_the_calls_in_reasoning_details() -> None:
    """OpenRouter wraps Gemini's refusal in its own words: the stand-in then goes where
    OpenRouter reads signatures, a ``reasoning.encrypted`` item naming the call, beside
    the details a call already has."""
    codec = Codec()
    said = (
        '{"error": {"message": "Provider returned error", "code": 400, "metadata": {"raw": '
        '"Gemini models require OpenRouter reasoning details to be preserved in each '
        'request. Upstream error: Function call is missing a thought_signature"}}}'
    )
    assert codec.rejected(400, said) is not None and codec.sign_calls == "details"
    kept = {"type": "reasoning.encrypted", "data": "sig-1", "id": "c1", "index": 0}
    calls = (CallEntry("c1", "read", {}), CallEntry("c2", "read", {}))
    turn_ = AssistantTurn("", calls, (Reasoning(WIRE, {"reasoning_details": [kept]}),))
    (message,) = sent([UserText("go"), turn_], sign="details")
    assert message["reasoning_details"] == [
        kept,
        {
            "type": "reasoning.encrypted",
            "data": "skip_thought_signature_validator",
            "id": "c2",
            "format": "google-gemini-v1",
            "index": 1,
        },
    ]
    assert all("extra_content" not in c for c in message["tool_calls"])


def test_reasoning_details_that_arrive_after_the_call_are_kept_at_the_end() -> None:
    text = {"type": "reasoning.text", "index": 0}
    deltas = feed(
        chunk({"reasoning_details": [{**text, "text": "a"}]}),
        chunk({"reasoning_details": [{**text, "text": "b"}]}),
        chunk(call(0, "c1", "{}")),
        chunk({"reasoning_details": [{"type": "reasoning.encrypted", "data": "s", "index": 1}]}),
        chunk({}, "tool_calls"),
        "[DONE]",
    )
    snapshots = [b["reasoning_details"] for b in blocks(deltas)]
    assert snapshots == [
        [{**text, "text": "ab"}],
        [{**text, "text": "ab"}, {"type": "reasoning.encrypted", "data": "s", "index": 1}],
    ]


def test_only_a_tool_use_failed_error_carries_the_models_refused_words() -> None:
    from frontier.app.model.errors import MAX_REFUSED_CALL, refused_call

    words = '<function=read>{"path": "a"}</function>'
    error = {
        "code": "tool_use_failed",
        "message": "Failed to call a function.",
        "failed_generation": words,
    }
    assert refused_call({"error": error}) == words
    assert refused_call(json.dumps({"error": error})) == words
    assert refused_call({**error, "failed_generation": None}) == ""
    assert refused_call({**error, "code": "context_length_exceeded"}) is None
    assert refused_call("Bad Gateway") is None
    long = refused_call({**error, "failed_generation": "x" * 10_000})
    assert long is not None and len(long) == MAX_REFUSED_CALL + 1 and long.endswith("…")
    (ended,) = feed(json.dumps({"error": error}))
    assert ended == ServerError("Failed to call a function. (tool_use_failed)", words)


def test_a_server_that_never_made_them_refusing_signatures_stops_getting_any() -> None:
    """After ``/model`` from Gemini to a strict server on the same wire, the history's
    ``extra_content`` and ``reasoning_details`` go to a server that knows neither: its
    refusal naming one turns all of them off, once; a refusal of a body that carried
    none is not about them."""
    from frontier.app.model.request import ModelRequest, ToolSchema

    signed = {"google": {"thought_signature": "sig"}}
    kept = (
        Reasoning(WIRE, {"tool_call": "c1", "extra_content": signed}),
        Reasoning(WIRE, {"reasoning_details": [{"type": "reasoning.text", "text": "t"}]}),
    )
    turn_ = AssistantTurn("", (CallEntry("c1", "read", {}),), kept)
    tool = ToolSchema("read", "read a file", {"type": "object"})
    request = ModelRequest("sys", (UserText("go"), turn_, UserText("next")), (tool,))
    codec = Codec()
    first = json.dumps(codec.body(request, "gpt-4.1"))
    assert "extra_content" in first and "reasoning_details" in first
    said = "Unrecognized request argument supplied: extra_content"
    assert codec.rejected(400, said) == (
        "the server refused reasoning in the history; retrying without it"
    )
    again = json.dumps(codec.body(request, "gpt-4.1"))
    assert "extra_content" not in again and "reasoning_details" not in again
    assert codec.rejected(400, said) is None


@pytest.mark.parametrize(
    ("ident", "kept"),
    [("a1B2c3D4e", True), ("call_r1", False), ("call_0fypS1hVX", False), ("ée1234567", False)],
)
def test_a_call_id_in_mistrals_shape_is_kept_any_other_made_so(ident: str, kept: bool) -> None:
    from frontier.app.model.wires.openai_chat import nine_character_id

    made = nine_character_id(ident)
    assert len(made) == 9 and made.isascii() and made.isalnum()
    assert (made == ident) is kept and nine_character_id(ident) == made


@pytest.mark.parametrize(
    ("said", "normal"),
    [
        ("end_turn", "stop"),  # LiteLLM in front of Anthropic, Ollama or Gemini
        ("eos_token", "stop"),  # Hugging Face TGI
        ("stop_sequence", "stop"),
        ("STOP", "stop"),  # Gemini's own words, upper case
        ("tool_use", "tool_calls"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("who_knows", "other"),  # an unknown word still proves nothing
    ],
)
def test_other_apis_finish_words_a_proxy_passes_through_are_understood(
    said: str, normal: str
) -> None:
    """A proxy that said ``end_turn`` had every response taken for cut: its calls never
    ran, three repairs, and the turn ended ``repair_limit``."""
    (finish,) = [d for d in feed(chunk({}, said)) if isinstance(d, Finish)]
    assert (finish.reason, finish.raw) == (normal, said)
    whole = Codec().json_answer(
        {"choices": [{"message": {"role": "assistant", "content": "x"}, "finish_reason": said}]}
    )
    assert whole is not None and [d.reason for d in whole if isinstance(d, Finish)] == [normal]
