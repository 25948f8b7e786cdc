"""A reply that opens with ``<think>…</think>`` in its text: that part is reasoning.

Properties over random texts and random chunkings (every split of the text into
``TextDelta`` pieces gives the same reasoning and the same text), the cases a server
sends, and the wires' decoders (every consumer reads the same deltas).
"""

from __future__ import annotations

import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from frontier.app.events import TokenUsage
from frontier.app.model.registry import codec
from frontier.app.model.stream import (
    CallStart,
    Delta,
    End,
    Finish,
    ReasoningBlock,
    ReasoningDelta,
    TextDelta,
    UsageDelta,
)
from frontier.app.model.think_tags import MAX_LEAD, OPENED, ThinkTags, split_think

TEXT = st.text(alphabet=st.sampled_from(list("ab <>/thinkc\n")), max_size=40)


def chunks(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    edges = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges) if b > a]


def run(pieces: list[str], end: Delta | None = None) -> tuple[str, str, list[Delta]]:
    tags = ThinkTags()
    out: list[Delta] = []
    for piece in pieces:
        out += tags.split([TextDelta(piece)])
    out += tags.split([end]) if end is not None else tags.end()
    thought = "".join(d.text for d in out if isinstance(d, ReasoningDelta))
    said = "".join(d.text for d in out if isinstance(d, TextDelta))
    return thought, said, out


@given(
    lead=st.sampled_from(["", "\n", "  \n\n"]),
    thought=TEXT,
    rest=TEXT,
    cuts=st.lists(st.integers(0, 200), max_size=12),
)
def test_a_leading_think_block_is_reasoning_however_it_is_cut(
    lead: str, thought: str, rest: str, cuts: list[int]
) -> None:
    thought = thought.replace("</think>", "")  # its first closing tag ends it
    text = f"{lead}<think>{thought}</think>{rest}"
    got_thought, got_text, _ = run(chunks(text, cuts), Finish("stop", "stop"))
    assert (got_thought, got_text) == (thought, rest)


@given(text=TEXT, cuts=st.lists(st.integers(0, 200), max_size=12))
def test_a_reply_that_does_not_open_with_the_tag_is_text_byte_for_byte(
    text: str, cuts: list[int]
) -> None:
    if text.lstrip().startswith("<think>"):
        return
    thought, said, _ = run(chunks(text, cuts))
    assert (thought, said) == ("", text)


@given(thought=TEXT, cuts=st.lists(st.integers(0, 200), max_size=12))
def test_a_thought_the_stream_cut_is_all_reasoning(thought: str, cuts: list[int]) -> None:
    thought = thought.replace("</think>", "")
    text = f"<think>{thought}"
    got_thought, got_text, _ = run(chunks(text, cuts), End())
    assert (got_thought, got_text) == (thought, "")


def test_a_drafted_call_inside_the_thought_never_reaches_the_text() -> None:
    reply = (
        "<think>\nI could run:\ncall c1 shell\narg command rm -rf build\nend\nBetter not.\n"
        "</think>\n\nI will read it.\ncall c2 read\narg path a.py\nend\n"
    )
    thought, said, _ = run(list(reply))  # one character a chunk
    assert "rm -rf" in thought and "rm -rf" not in said
    assert said == "\n\nI will read it.\ncall c2 read\narg path a.py\nend\n"


def test_only_a_tag_that_opens_the_reply_counts() -> None:
    for text in (
        "Use <think> tags like this: <think>x</think>",
        "<thinking>not ours</thinking> answer",
        " " * (MAX_LEAD + 1) + "<think>x</think>",
    ):
        assert run([text])[:2] == ("", text)


def test_what_is_held_while_undecided_is_never_lost() -> None:
    # a reply that is only the start of a tag, or only whitespace, ends as text
    for text in ("<", "<thi", "  \n", "<think"):
        assert run([text], Finish("stop", "stop"))[:2] == ("", text)


def test_a_call_or_usage_while_undecided() -> None:
    # a native call decides: the held text was the reply's text, in its place
    tags = ThinkTags()
    first = tags.split([TextDelta("<th")])
    assert first == []
    got = tags.split([CallStart(0, "c", "read")])
    assert got == [TextDelta("<th"), CallStart(0, "c", "read")]
    # usage (or the server's own reasoning field) does not decide
    tags = ThinkTags()
    usage = UsageDelta(TokenUsage())
    assert tags.split([TextDelta("<th"), usage]) == [usage]
    assert tags.split([TextDelta("ink>hm</think>ok")]) == [ReasoningDelta("hm"), TextDelta("ok")]


def test_a_whole_answer_is_split_as_a_stream_is() -> None:
    assert split_think([TextDelta("<think>plan</think>answer"), Finish("stop", "stop")]) == [
        ReasoningDelta("plan"),
        TextDelta("answer"),
        Finish("stop", "stop"),
    ]
    assert split_think([TextDelta("<thi")]) == [TextDelta("<thi")]
    # a server that ignored stream: true answers whole: its thought is kept as a stream's
    whole = {
        "choices": [{"message": {"content": "<think>plan</think>ok"}, "finish_reason": "stop"}]
    }
    assert codec("openai-chat").json_answer(whole) == [
        ReasoningDelta("plan"),
        ReasoningBlock({"think_tags": "plan"}),
        TextDelta("ok"),
        Finish("stop", "stop"),
        End(),
    ]


def test_the_chat_wire_gives_the_thought_back_as_the_model_wrote_it() -> None:
    """MiniMax wants its thinking in later turns, and Qwen3's template drops old turns'
    itself: the history's text is what the model wrote, tags and all."""
    from frontier.app.model.conversation import AssistantTurn, Reasoning, UserText
    from frontier.app.model.think_tags import KEPT
    from frontier.app.model.wires.openai_chat import encode_messages

    chat = codec("openai-chat").decoder()
    data = json.dumps({"choices": [{"index": 0, "delta": {"content": "<think>plan</think>ok"}}]})
    blocks = [d for d in chat.feed("message", data) if isinstance(d, ReasoningBlock)]
    assert blocks == [ReasoningBlock({KEPT: "plan"})]
    turn = AssistantTurn(text="ok", reasoning=(Reasoning("openai-chat", blocks[0].data),))
    sent = encode_messages([UserText("hi"), turn], native=False, wire="openai-chat")
    assert sent[-1] == {"role": "assistant", "content": "<think>plan</think>ok"}
    # a thought the stream cut is shown, not kept: it never closed
    cut = ThinkTags(keep=True)
    assert not any(isinstance(d, ReasoningBlock) for d in cut.split([TextDelta("<think>a")]))


def test_every_wires_decoder_splits_the_tags() -> None:
    """The live loop, replay, ``check`` and captures all read a wire's ``decoder()``."""
    chat = codec("openai-chat").decoder()
    pieces = ["<thi", "nk>I plan", "</thi", "nk>Done."]
    out: list[Delta] = []
    for piece in pieces:
        data = json.dumps({"choices": [{"index": 0, "delta": {"content": piece}}]})
        out += chat.feed("message", data)
    out += chat.feed("message", "[DONE]")
    assert [d for d in out if not isinstance(d, End)] == [
        ReasoningDelta("I plan"),
        ReasoningBlock({"think_tags": "I plan"}),  # kept for the history (Chat only)
        TextDelta("Done."),
    ]

    anthropic = codec("anthropic-messages").decoder()
    events = [
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "<think>x</think>y"},
            },
        ),
    ]
    got = [d for name, obj in events for d in anthropic.feed(name, json.dumps(obj))]
    assert [d for d in got if isinstance(d, TextDelta | ReasoningDelta)] == [
        ReasoningDelta("x"),
        TextDelta("y"),
    ]

    responses = codec("openai-responses").decoder()
    delta = {"type": "response.output_text.delta", "output_index": 0, "delta": "<think>p</think>q"}
    got = responses.feed("response.output_text.delta", json.dumps(delta))
    assert [d for d in got if isinstance(d, TextDelta | ReasoningDelta)] == [
        ReasoningDelta("p"),
        TextDelta("q"),
    ]


# --------------------------------------------------------------------------- opened in the prompt


def opened_run(pieces: list[str], end: Delta | None = None) -> tuple[str, str, ThinkTags]:
    chat = codec("openai-chat").decoder()
    assert isinstance(chat, ThinkTags)
    out = chat.feed("message", OPENED)  # the recording's first line says it
    for piece in pieces:
        out += chat.feed("message", json.dumps({"choices": [{"delta": {"content": piece}}]}))
    finish = end if end is not None else Finish("stop", "stop")
    out += chat.split([finish])
    thought = "".join(d.text for d in out if isinstance(d, ReasoningDelta))
    said = "".join(d.text for d in out if isinstance(d, TextDelta))
    return thought, said, chat


@given(thought=TEXT, rest=TEXT, cuts=st.lists(st.integers(0, 200), max_size=12))
def test_a_reply_read_opened_is_thought_up_to_its_close_however_it_is_cut(
    thought: str, rest: str, cuts: list[int]
) -> None:
    """A template that opens ``<think>`` in the prompt (QwQ, DeepSeek-R1 distills, Qwen3's
    Thinking-2507): once learned, the text before ``</think>`` is the thought."""
    thought = thought.replace("</think>", "")
    got_thought, got_text, tags = opened_run(chunks(f"{thought}</think>{rest}", cuts))
    assert (got_thought, got_text) == (thought, rest)
    assert tags.opened and not tags.never_closed


def test_a_drafted_call_in_an_opened_thought_never_reaches_the_text() -> None:
    reply = "I could run:\ncall c1 shell\narg command rm -rf build\nend\n</think>\n\nDone.\n"
    thought, said, _ = opened_run(list(reply))
    assert "rm -rf" in thought and said == "\n\nDone.\n"


def test_the_evidence_is_a_close_at_a_line_start_in_a_reply_that_never_opened() -> None:
    for text, seen in (
        ("The user wants a.\n</think>\n\nHello.", True),
        ("</think>\n\nHello.", True),  # an empty thought
        ("  \n</think>Hi", True),
        ("Write </think> to close it.", False),  # mid-line: talk about the tag
        ("<think>ours</think>\n</think>", False),  # it opened the tag itself
    ):
        tags = ThinkTags()
        for ch in text:  # cut anywhere, the tag too
            tags.split([TextDelta(ch)])
        assert tags.opened_in_prompt is seen, text
    served = ThinkTags()  # the server splits thinking off: its text is the answer
    served.split([ReasoningDelta("plan"), TextDelta("x\n</think>\n")])
    assert not served.opened_in_prompt


def test_an_opened_reply_that_was_not_one_is_said_so() -> None:
    # the server streams its own reasoning first: it splits thinking off, the text is text
    chat = codec("openai-chat").decoder()
    assert isinstance(chat, ThinkTags)
    chat.feed("message", OPENED)
    got = chat.split([ReasoningDelta("plan"), TextDelta("answer")])
    assert got == [ReasoningDelta("plan"), TextDelta("answer")] and not chat.opened
    # a clean end with no </think>: the evidence was wrong; a cut one proves nothing
    assert opened_run(["all of it"])[2].never_closed
    assert not opened_run(["all of it"], Finish("length", "length"))[2].never_closed
    # a marker anywhere but first means nothing
    late = ThinkTags()
    late.split([TextDelta("hi")])
    late.open()
    assert not late.opened


@given(
    before=TEXT,
    after=TEXT,
    line_start=st.booleans(),
    cuts=st.lists(st.integers(0, 200), max_size=12),
)
def test_the_evidence_is_the_same_however_the_reply_is_cut(
    before: str, after: str, line_start: bool, cuts: list[int]
) -> None:
    text = f"{before}{chr(10) if line_start else ''}</think>{after}"
    whole, cut = ThinkTags(), ThinkTags()
    whole.split([TextDelta(text)])
    for piece in chunks(text, cuts):
        cut.split([TextDelta(piece)])
    assert cut.opened_in_prompt == whole.opened_in_prompt
    if line_start and not text.lstrip().startswith("<think>"):
        assert whole.opened_in_prompt


def test_a_call_the_server_read_out_of_an_unclosed_thought_never_runs() -> None:
    """vLLM's tool parser without a reasoning parser reads ``<tool_call>`` anywhere in the
    text, a drafted one inside ``<think>`` too: it came as a native call and ran. It is
    left out (noted); the call after ``</think>`` runs."""
    from frontier.app.cst.base import calls_of, errors_of, run_chunks
    from frontier.app.cst.factory import make_transducer
    from frontier.app.wire.sse import encode_sse

    def chunk(delta: dict[str, object]) -> str:
        return json.dumps({"choices": [{"index": 0, "delta": delta}]})

    def call(index: int, ident: str, args: str) -> str:
        fn = {"name": "read", "arguments": args}
        return chunk({"tool_calls": [{"index": index, "id": ident, "function": fn}]})

    body = encode_sse(
        [
            chunk({"content": "<think>I could read "}),
            call(0, "draft", '{"path": "secret.txt"}'),
            chunk({"content": "but no.</think>\n\nReading."}),
            call(1, "real", '{"path": "a.py"}'),
            json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            "[DONE]",
        ]
    )
    for mode in ("native-inc", "native-eos"):
        t = make_transducer(mode, wire=codec("openai-chat"))
        events = run_chunks(t, [body])
        assert [(c.id, c.args) for c in calls_of(events)] == [("real", {"path": "a.py"})]
        assert errors_of(events) == []
        assert any("unclosed thinking" in note for note in t.notes)
