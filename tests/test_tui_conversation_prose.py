"""Streaming prose without Textual: ``ProseBlocks`` and the live prose of ``UiState``.

``ProseBlocks`` must cut a reply the same way however it arrives (one byte at a
time or all at once), never change a finished block, keep its source, and bound
what it keeps. ``UiState`` must show confirmed text as it is confirmed and never
show it twice, whichever way the prose is later reported: the live loop reports
each stretch once (when a call starts, at the end), replay and the test loop
report every piece as it comes.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst.ctl import CtlTransducer
from frontier.app.events import (
    AssistantText,
    CallStarted,
    Confirmed,
    Event,
    ResponseEnded,
    ResponseStarted,
    StreamStopped,
    TurnEnded,
)
from frontier.widgets.prose import ProseBlock, ProseBlocks
from frontier.widgets.state import UiState

REPLY = (
    "# Plan\n\n"
    "Some *emphasis* and **bold**\ncontinued.\n\n"
    "- one\n- two\n\n  more of two\n\n"
    "1. a\n2. b\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    "```python\ndef f():\n\n    return 1\n```\n"
    "after the code\n"
    "## Next\n"
    "~~~\n``` not a close\n~~~\n"
    "tail without a newline"
)


def feed(text: str, cuts: list[int], **kw: int) -> ProseBlocks:
    prose = ProseBlocks(**kw)
    last = 0
    for cut in sorted(set(cuts)):
        prose.append(text[last:cut])
        last = cut
    prose.append(text[last:])
    return prose


def shape(prose: ProseBlocks) -> list[tuple[str, str, str]]:
    return [(b.kind, b.lang, b.text) for b in prose.blocks()]


def test_a_reply_is_cut_at_its_top_level_blocks() -> None:
    blocks = list(feed(REPLY, []).blocks())
    kinds = [(b.kind, b.text.strip().split("\n")[0]) for b in blocks]
    assert kinds == [
        ("md", "# Plan"),
        ("md", "Some *emphasis* and **bold**"),
        ("md", "- one"),  # a list item's indented paragraph stays with its list
        ("md", "1. a"),
        ("md", "| a | b |"),
        ("code", "def f():"),  # the blank line inside the fence does not cut it
        ("md", "after the code"),
        ("md", "## Next"),
        ("code", "``` not a close"),
        ("md", "tail without a newline"),
    ]
    code = blocks[5]
    assert code.lang == "python" and code.opens and code.closes


@given(st.lists(st.integers(0, len(REPLY)), max_size=40))
def test_any_chunking_gives_the_same_blocks_and_keeps_the_source(cuts: list[int]) -> None:
    prose = feed(REPLY, cuts)
    assert shape(prose) == shape(feed(REPLY, []))
    assert prose.text == REPLY


def test_finished_blocks_never_change_while_the_reply_grows() -> None:
    prose = ProseBlocks()
    seen: dict[int, ProseBlock] = {}
    for ch in REPLY:
        prose.append(ch)
        for block in prose.finished:
            assert seen.setdefault(block.index, block) == block


def test_a_long_fence_and_a_long_table_are_cut_into_pieces_that_render_alone() -> None:
    code = "```py\n" + "x = 1\n" * 40 + "```\n"
    table = "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 40 + "\nafter\n"
    prose = feed(code + "\n" + table, [], block_limit=64)
    pieces = list(prose.blocks())
    codes = [b for b in pieces if b.kind == "code"]
    assert len(codes) > 2 and codes[0].opens and not codes[0].closes
    assert all(not b.opens for b in codes[1:]) and codes[-1].closes
    assert all(len(b.text) <= 64 + 6 for b in codes)
    tables = [b for b in pieces if b.kind == "md" and "|" in b.text]
    assert len(tables) > 2
    assert all(b.text.lstrip("\n").startswith("| a | b |\n|---|---|\n") for b in tables)
    assert not any(b.text.strip() == "| a | b |\n|---|---|" for b in tables)  # never alone
    assert prose.text == code + "\n" + table  # the repeated headers are not source


def test_what_is_kept_is_bounded_by_whole_blocks() -> None:
    paragraph = "word " * 30 + "\n\n"
    prose = ProseBlocks(kept=1000)
    for _ in range(200):
        prose.append(paragraph)
    kept = sum(len(b.text) for b in prose.blocks())
    assert kept <= 1000 + len(paragraph)
    assert prose.dropped + kept == 200 * len(paragraph)
    assert prose.text.startswith("…word")
    assert [b.index for b in prose.finished] == list(
        range(prose.finished[0].index, prose.finished[0].index + len(prose.finished))
    )


# ---------------------------------------------------------------------- UiState


def ctl_events(reply: bytes, chunk: int) -> list[Event]:
    """What the transducer confirms of ``reply`` fed ``chunk`` bytes at a time."""
    transducer = CtlTransducer()
    events: list[Event] = []
    for start in range(0, len(reply), chunk):
        events += transducer.feed(reply[start : start + chunk])
    return events + transducer.finish(True)


def as_live_loop(events: list[Event]) -> list[Event]:
    """The loop's reports: each stretch of prose once, after a call's header and at the
    end (whitespace-only stretches are not reported)."""
    out: list[Event] = [ResponseStarted("ctl-heredoc", 0)]
    stretch = b""
    for event in events:
        out.append(event)
        if isinstance(event, Confirmed) and event.kind == "text":
            stretch += event.data
        elif isinstance(event, CallStarted):
            if stretch.decode().strip():
                out.append(AssistantText(stretch.decode()))
            stretch = b""
    out.append(ResponseEnded("stop"))
    if stretch.decode("utf-8", "replace").strip():
        out.append(AssistantText(stretch.decode("utf-8", "replace")))
    return out


def as_replay(events: list[Event]) -> list[Event]:
    """Replay's and the test loop's reports: every confirmed piece, as it comes."""
    out: list[Event] = [ResponseStarted("ctl-heredoc", 0)]
    for event in events:
        out.append(event)
        if isinstance(event, Confirmed) and event.kind == "text":
            out.append(AssistantText(event.data.decode("utf-8", "replace")))
    return [*out, ResponseEnded("stop")]


SAID = (
    "I'll look first, then **patch** it:\n\n- one\n- two\n"
    "call c1 read\narg path a.py\nend\ncall c2 read\narg path b.py\nend\n"
)


def prose_of(state: UiState) -> list[tuple[str, str]]:
    return [(e.role, e.text) for e in state.transcript if e.role in ("ai", "call")]


def test_confirmed_prose_shows_before_the_loop_reports_it() -> None:
    state = UiState()
    state.apply(ResponseStarted("ctl-heredoc", 0))
    for event in ctl_events(b"I'll look first.\nAnd the", 5):
        state.apply(event)  # no AssistantText yet: the live loop reports at a call/the end
    assert prose_of(state) == [("ai", "I'll look first.\nAnd the")]


def test_no_prose_is_shown_twice_whichever_way_it_is_reported() -> None:
    shown = []
    for chunk in (1, 3, 64):
        for report in (as_live_loop, as_replay):
            state = UiState()
            state.apply_all(report(ctl_events(SAID.encode(), chunk)))
            shown.append(prose_of(state))
    assert all(s == shown[0] for s in shown)
    assert shown[0] == [
        ("ai", "I'll look first, then **patch** it:\n\n- one\n- two\n"),
        ("call", ""),
        ("call", ""),
    ]


def test_a_whitespace_stretch_the_loop_does_not_report_is_not_shown_either() -> None:
    """Native modes can confirm whitespace between calls; the loop reports none of it,
    and the prose after the next call is reported (and shown) once."""
    state = UiState()
    state.apply_all(
        [
            ResponseStarted("native-inc", 0),
            Confirmed(0, "text", b"Reading.\n"),
            CallStarted("c1", "read", 9),
            AssistantText("Reading.\n"),
            Confirmed(20, "text", b"\n  \n"),
            CallStarted("c2", "read", 24),  # whitespace only: no report
            Confirmed(40, "text", b"Both read."),
            ResponseEnded("stop"),
            AssistantText("Both read."),
        ]
    )
    assert [(e.role, e.text) for e in state.transcript] == [
        ("ai", "Reading.\n"),
        ("ai", "Both read."),
    ]


def test_a_character_cut_by_the_end_is_shown_as_the_loop_decodes_it() -> None:
    state = UiState()
    state.apply(ResponseStarted("ctl-heredoc", 0))
    state.apply(Confirmed(0, "text", "café ".encode() + "é".encode()[:1]))
    state.apply(ResponseEnded("stop"))
    state.apply(AssistantText("café \ufffd"))  # the loop's decoder flushed the cut byte
    assert prose_of(state) == [("ai", "café \ufffd")]


def test_an_interrupted_reply_is_marked_and_a_finished_one_is_not() -> None:
    state = UiState()
    state.apply(ResponseStarted("ctl-heredoc", 0))
    state.apply(Confirmed(0, "text", b"Half a "))
    state.apply(AssistantText("Half a "))  # the loop keeps it when the turn is cancelled
    state.apply(TurnEnded("cancelled", "turn cancelled by the user"))
    reply = next(e for e in state.transcript if e.role == "ai")
    assert reply.interrupted and reply.text == "Half a "

    state.apply(ResponseStarted("ctl-heredoc", 1))
    state.apply(Confirmed(0, "text", b"All of it.\n"))
    state.apply(ResponseEnded("stop"))
    state.apply(AssistantText("All of it.\n"))
    state.apply(TurnEnded("cancelled", "turn cancelled by the user"))  # Esc during a tool
    second = [e for e in state.transcript if e.role == "ai"][-1]
    assert second.text == "All of it.\n" and not second.interrupted


def test_a_stopped_stream_and_a_cut_off_response_are_one_line_each() -> None:
    state = UiState()
    state.apply(ResponseStarted("ctl-heredoc", 0))
    state.apply(StreamStopped("text_after_call", 92))
    state.apply(ResponseStarted("ctl-heredoc", 1))
    state.apply(CallStarted("c6", "replace", 0))
    state.apply(ResponseEnded("length"))
    lines = [e.text for e in state.transcript if e.role == "stop"]
    assert lines == [
        "■ stream stopped at byte 92: text after its call dropped (a made-up result?)",
        "✂ response cut off at byte 0 (finish_reason length): c6 replace never ran",
    ]
