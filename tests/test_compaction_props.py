"""Compaction over random typed histories (``app/agent/compaction.py``): a call is never
split from its result, the last item the person typed is kept verbatim, nothing grows,
compacting again changes nothing more, and after every step each wire's messages still
alternate and pair every call with its own result."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from frontier.app.agent.budget import estimate_items, estimate_tokens
from frontier.app.agent.compaction import (
    SUMMARY_ACK,
    SUMMARY_MARK,
    apply_summary,
    is_stub,
    is_summary,
    last_user,
    mechanical_summary,
    pairing_problems,
    plan_summary,
    stub_results,
    stub_text,
    transcript,
    trim_unread,
    units,
    unread_start,
)
from frontier.app.model.conversation import (
    NOT_EXECUTED,
    AssistantMessage,
    AssistantTurn,
    CallEntry,
    Item,
    Reasoning,
    ResultEntry,
    ToolResults,
    UserMessage,
    UserText,
    item_bytes,
    user_text,
    wire_messages,
)
from frontier.app.model.request import ModelRequest

WIRES = ("openai-chat", "openai-responses", "anthropic-messages")
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=600,
)
BODY = TEXT | st.builds(  # long outputs too, or nothing would ever be worth a stub
    lambda piece, times: piece * times, TEXT.filter(bool), st.integers(10, 60)
)
KIND = st.sampled_from(["ok", "ok", "ok", "error", "denied", "timeout"])
REPAIR = "error truncated: your response was cut off."
CONTRACT = "error contract (bad_json): resend the call."


@st.composite
def results(draw: st.DrawFn, prefix: str) -> list[ResultEntry]:
    out: list[ResultEntry] = []
    for i in range(draw(st.integers(0, 3))):
        kind, body = draw(KIND), draw(BODY)
        out.append(
            ResultEntry(
                f"{prefix}{i}",
                draw(st.sampled_from(["read", "grep", "shell"])),
                kind,
                0 if kind == "ok" else draw(st.integers(1, 2)),
                body if kind == "ok" else f"[{kind}] {body}",
            )
        )
    return out


@st.composite
def reasoning(draw: st.DrawFn) -> tuple[Reasoning, ...]:
    wires = draw(st.lists(st.sampled_from(WIRES), max_size=2))
    return tuple(Reasoning(w, {"type": "thinking", "made_by": w}) for w in wires)


@st.composite
def text_round(draw: st.DrawFn, index: int) -> list[Item]:
    """A text protocol's round: calls written in the reply, results as frames."""
    done = draw(results(f"c{index}_"))
    calls = "".join(f"call {r.call_id} {r.name}\narg path a.py\nend\n" for r in done)
    prose = draw(st.sampled_from(["", "Let me look.\n", "Done: the flag is added.\n"]))
    cut = draw(st.sampled_from(["", "", "[Reply interrupted by the user]"]))
    repair = draw(st.sampled_from(["", "", REPAIR]))
    out: list[Item] = []
    if prose + calls or cut:
        out.append(AssistantTurn(prose + calls, (), draw(reasoning()), cut))
    if done or repair:
        out.append(ToolResults(tuple(done), repair, framed=True))
    return out


@st.composite
def native_round(draw: st.DrawFn, index: int) -> list[Item]:
    """A native round: the calls in the turn, their results right after it."""
    done = draw(results(f"call_{index}_"))
    prose = draw(st.sampled_from(["", "Reading it."]))
    calls = tuple(CallEntry(r.call_id, r.name, {"path": "a.py"}) for r in done)
    out: list[Item] = []
    if prose or done:
        out.append(AssistantTurn(prose, calls, draw(reasoning())))
    feedback = draw(st.sampled_from(["", "", "note", "item"]))
    if done or feedback == "note":
        out.append(ToolResults(tuple(done), CONTRACT if feedback == "note" else ""))
    if feedback == "item":
        out.append(UserText(CONTRACT, "feedback"))
    return out


@st.composite
def histories(draw: st.DrawFn) -> list[Item]:
    mode = draw(st.sampled_from(["native", "text", "mixed"]))
    out: list[Item] = []
    if draw(st.booleans()) and draw(st.booleans()):  # resumed after an earlier compaction
        out += [UserText(f"{SUMMARY_MARK} 2 earlier rounds ...]\n\nOld.", "summary")]
        out += [AssistantTurn(SUMMARY_ACK)]
    out.append(UserText(draw(st.sampled_from(["fix it", "add -v"]))))
    for index in range(draw(st.integers(0, 12))):
        step = draw(st.sampled_from(["round", "round", "round", "user", "notice"]))
        if step == "notice":
            out.append(UserText("[The user undid call c0_0: a.py restored.]", "notice"))
        if step in ("user", "notice"):
            out.append(UserText(f"also do thing {index}"))
            continue
        native = mode == "native" or (mode == "mixed" and draw(st.booleans()))
        out += draw(native_round(index) if native else text_round(index))
    return out


def tokens(items: Sequence[Item]) -> int:
    return estimate_tokens(ModelRequest("You are a coding agent.", tuple(items)))


def fake_locate(index: int, call_id: str) -> tuple[str, str]:
    return f"session 1a2b3c4d log #{index + 10}", ""


def person(items: Sequence[Item]) -> Item | None:
    """The last item the person typed."""
    i = last_user(items)
    return None if i is None else items[i]


_FRAME = re.compile(rb"result ([A-Za-z0-9_.:-]{1,64}) exit=(-?\d+) (\d+)\n")


def parse_frames(text: str) -> tuple[list[tuple[str, bytes]], bytes]:
    """The result frames a user-side text starts with (id, body), and what follows them:
    what a model reading the frames relies on (each byte count exact)."""
    data, pos, found = text.encode(), 0, []
    while (match := _FRAME.match(data, pos)) is not None:
        end = match.end() + int(match.group(3))
        assert data[end : end + 5] == b"\nend\n", "a frame's byte count is exact"
        found.append((match.group(1).decode(), data[match.end() : end]))
        pos = end + 5
    return found, data[pos:]


def assert_every_wire_pairs(items: Sequence[Item]) -> None:
    """No call split from its result, in the items and in each wire's messages: roles
    alternate, each native call is answered right after it by its own result (never one
    the wire had to make up), and a wire gets only its own reasoning blocks back."""
    assert pairing_problems(items) == []
    called = [c.id for item in items if isinstance(item, AssistantTurn) for c in item.calls]
    for wire in WIRES:
        messages = wire_messages(items, native=True, wire=wire)
        assert isinstance(messages[0], UserMessage)
        assert all(type(a) is not type(b) for a, b in pairwise(messages))
        answered: list[str] = []
        for k, message in enumerate(messages):
            if isinstance(message, AssistantMessage):
                assert message.text.strip() or message.calls
                assert all(block["made_by"] == wire for block in message.reasoning)
                if message.calls:
                    after = messages[k + 1]
                    assert isinstance(after, UserMessage)
                    assert [r.call_id for r in after.results] == [c.id for c in message.calls]
                    assert all(r.body != NOT_EXECUTED for r in after.results)
            else:
                assert message.results or message.texts
                answered += [r.call_id for r in message.results]
        assert answered == called


# --------------------------------------------------------------------------- properties


@given(histories(), st.integers(0, 4))
def test_stubbing_keeps_pairs_and_the_last_user_message(history: list[Item], keep: int) -> None:
    assert_every_wire_pairs(history)
    out, stubs = stub_results(history, keep_rounds=keep, locate=fake_locate)
    assert_every_wire_pairs(out)
    assert [type(i) for i in out] == [type(i) for i in history]
    assert last_user(out) == last_user(history) and person(out) == person(history)
    assert tokens(out) <= tokens(history)
    for before, after in zip(history, out, strict=True):  # only result bodies change
        assert item_bytes(after) <= item_bytes(before)
        if not isinstance(before, ToolResults):
            assert after is before
            continue
        assert isinstance(after, ToolResults)
        assert (after.note, after.framed) == (before.note, before.framed)
        same = [(r.call_id, r.name, r.kind, r.exit_code) for r in after.results]
        assert same == [(r.call_id, r.name, r.kind, r.exit_code) for r in before.results]
        if before.framed:  # still well-formed frames: same ids, each count the stub's
            new, rest = parse_frames(user_text(after))
            assert [(i, b.decode()) for i, b in new] == [(r.call_id, r.body) for r in after.results]
            assert rest == before.note.encode()
    assert all(
        s.nbytes > len(stub_text(s.call_id, s.name, s.kind, s.nbytes, s.where).encode())
        for s in stubs
    )
    again, more = stub_results(out, keep_rounds=keep, locate=fake_locate)
    assert again == out and more == ()


@given(histories(), st.integers(0, 4))
def test_the_last_rounds_are_never_stubbed(history: list[Item], keep: int) -> None:
    out, _ = stub_results(history, keep_rounds=keep, locate=fake_locate)
    rounds = [u for u in units(history) if u.kind == "round"]
    recent = rounds[len(rounds) - keep :] if keep else []
    for unit in recent:
        assert out[unit.start : unit.end] == history[unit.start : unit.end]


@given(histories(), st.sampled_from([200, 1024, 4096]))
def test_only_unread_results_are_trimmed_within_the_cap_and_both_ends_kept(
    history: list[Item], cap: int
) -> None:
    out, trims = trim_unread(history, cap)
    start = unread_start(history)
    assert out[:start] == history[:start]  # what the model has read is not touched
    assert_every_wire_pairs(out)
    assert person(out) == person(history)
    assert tokens(out) <= tokens(history)
    assert len(out) == len(history)
    cut = 0
    for before, after in zip(history[start:], out[start:], strict=True):
        if not isinstance(before, ToolResults):
            assert after == before
            continue
        assert isinstance(after, ToolResults)
        assert (after.note, after.framed) == (before.note, before.framed)
        for old, new in zip(before.results, after.results, strict=True):
            assert (old.call_id, old.name, old.kind, old.exit_code) == (
                new.call_id,
                new.name,
                new.kind,
                new.exit_code,
            )
            size = len(old.body.encode())
            if size <= cap or is_stub(old.body):
                assert new.body == old.body
                continue
            cut += 1
            data = new.body.encode()
            assert len(data) <= cap
            assert b" bytes of output omitted (kept first 60% and last 40%)" in data
            ends = data.split(b"\n[... ", 1)
            assert old.body.encode().startswith(ends[0][: max(0, len(ends[0]) - 3)])
            tail = ends[1].split(b"...]\n", 1)[1]
            assert old.body.encode().endswith(tail[3:])
    assert cut == len(trims)
    assert all(t.kept <= cap < t.nbytes for t in trims)
    again, more = trim_unread(out, cap)  # trimming twice changes nothing more
    assert again == out and more == ()


@given(histories(), st.integers(0, 4), st.sampled_from(["S.", "The user wants a flag; done."]))
def test_summarising_keeps_pairs_and_the_last_user_message(
    history: list[Item], keep: int, summary: str
) -> None:
    plan = plan_summary(history, keep_rounds=keep)
    if plan is None:
        return
    out = apply_summary(history, plan, summary)
    assert_every_wire_pairs(out)
    assert is_summary(out[0]) and isinstance(out[0], UserText)
    assert out[0].text.startswith(SUMMARY_MARK) and summary in out[0].text
    assert person(out) == person(history)
    # the summary stays a message of its own: an assistant turn follows it
    assert len(out) == 1 or isinstance(out[1], AssistantTurn)
    # everything from the first of the last `keep` rounds on is kept as it was, at the end
    rounds = [u for u in units(history) if u.kind == "round"]
    tail = history[rounds[len(rounds) - keep].start :] if keep else []
    assert out[len(out) - len(tail) :] == tail
    # compacting again has nothing left to summarise
    assert plan_summary(out, keep_rounds=keep) is None
    # smaller whenever the summary is smaller than what it replaced
    added = estimate_items(out[: len(out) - len(tail) - (plan.kept_user is not None)])
    if estimate_items([history[i] for i in plan.summarised]) > added + 1:
        assert tokens(out) < tokens(history)


@given(histories(), st.integers(1, 4), st.sampled_from(["S.", "Done: a flag; " * 40]))
def test_the_compactors_steps_in_turn_keep_every_wire_valid(
    history: list[Item], keep: int, summary: str
) -> None:
    """Stub, summarise, then both again keeping fewer rounds (what the compactor does),
    a summary used only when it makes the history smaller."""
    typed = person(history)
    items = list(history)
    for rounds in sorted({keep, 1, 0}, reverse=True):
        stubbed, _ = stub_results(items, keep_rounds=rounds, locate=fake_locate)
        assert tokens(stubbed) <= tokens(items)
        items = stubbed
        assert_every_wire_pairs(items)
        assert person(items) == typed
        plan = plan_summary(items, keep_rounds=rounds)
        if plan is None:
            continue
        summarised = apply_summary(items, plan, summary)
        assert_every_wire_pairs(summarised)
        assert person(summarised) == typed
        if tokens(summarised) < tokens(items):
            items = summarised
    assert tokens(items) <= tokens(history)


# --------------------------------------------------------------------------- examples


def test_a_stubbed_frame_counts_its_bytes() -> None:
    big = ResultEntry("c1", "read", "ok", 0, "x" * 5000)
    history: list[Item] = [
        UserText("read it"),
        AssistantTurn("call c1 read\narg path a.py\nend\n"),
        ToolResults((big,), "error truncated: cut.", framed=True),
        AssistantTurn("Done."),
    ]
    out, stubs = stub_results(history, keep_rounds=1, locate=fake_locate)
    assert [s.call_id for s in stubs] == ["c1"] and stubs[0].nbytes == 5000
    results = out[2]
    assert isinstance(results, ToolResults) and results.framed
    body = results.results[0].body
    assert is_stub(body) and "c1 read (ok, 5,000 bytes)" in body and "log #12" in body
    sent = user_text(results)
    assert sent.startswith(f"result c1 exit=0 {len(body.encode())}\n")
    assert parse_frames(sent) == ([("c1", body.encode())], b"error truncated: cut.")


def test_a_native_result_keeps_its_id() -> None:
    history: list[Item] = [
        UserText("grep"),
        AssistantTurn("", (CallEntry("call_9", "grep", {}),)),
        ToolResults((ResultEntry("call_9", "grep", "error", 1, "[error] " + "y" * 900),)),
        AssistantTurn("No match."),
    ]
    out, _ = stub_results(history, keep_rounds=1)
    results = out[2]
    assert isinstance(results, ToolResults) and not results.framed
    (entry,) = results.results
    assert (entry.call_id, entry.kind, entry.exit_code) == ("call_9", "error", 1)
    assert entry.body.startswith("[result of call_9 grep (error, 908 bytes) elided")
    for wire in WIRES:
        sent = wire_messages(out, native=True, wire=wire)[2]
        assert isinstance(sent, UserMessage) and sent.results == (entry,)


def test_the_stores_tool_name_names_an_old_result() -> None:
    """A result read back from a session stored before typed items has no tool name:
    the store's answer gives it."""
    history: list[Item] = [
        UserText("read"),
        AssistantTurn("call c1 read\nend\n"),
        ToolResults((ResultEntry("c1", "", "ok", 0, "z" * 800),), framed=True),
        AssistantTurn("Read."),
    ]
    _, (stub,) = stub_results(history, keep_rounds=1, locate=lambda i, c: ("session ab", "read"))
    assert (stub.index, stub.name, stub.where) == (2, "read", "session ab")


def test_units_keep_feedback_with_its_round_and_runtime_texts_apart() -> None:
    history: list[Item] = [
        UserText(f"{SUMMARY_MARK} ...]\n\nOld.", "summary"),
        AssistantTurn(SUMMARY_ACK),
        UserText("[The user undid call c1.]", "notice"),
        UserText("go on"),
        AssistantTurn("", (CallEntry("a", "read"),)),
        ToolResults((ResultEntry("a", "read", "ok", 0, "x"),)),
        UserText(CONTRACT, "feedback"),
        UserText(CONTRACT, "feedback"),
        ToolResults(note=REPAIR, framed=True),
        UserText(f"{SUMMARY_MARK} typed by the person"),
    ]
    spans = [(u.start, u.end, u.kind) for u in units(history)]
    assert spans == [
        (0, 2, "summary"),
        (2, 3, "other"),
        (3, 4, "user"),
        (4, 8, "round"),
        (8, 9, "round"),
        (9, 10, "user"),
    ]
    assert last_user(history) == 9 and not is_summary(history[9])


def test_the_images_a_round_read_stay_with_it_and_are_named_in_a_summary() -> None:
    """A compaction never cuts a round's results from the images its tools read (shown
    after them): cut apart, the picture would answer nothing, or be kept as a person's."""
    from frontier.app.agent.compaction import mechanical_summary
    from frontier.app.image import Image

    shot = Image("image/png", "iVBORw0KGgo=", "shot.png")
    history: list[Item] = [
        UserText("what does it show?"),
        AssistantTurn("", (CallEntry("a", "read"),)),
        ToolResults((ResultEntry("a", "read", "ok", 0, "shot.png is an image"),)),
        UserText("[image shot.png, image/png, 8 bytes] read by call a", "tool", (shot,)),
        UserText("thanks"),
    ]
    spans = [(u.start, u.end, u.kind) for u in units(history)]
    assert spans == [(0, 1, "user"), (1, 4, "round"), (4, 5, "user")]
    summary = mechanical_summary(history, range(4))
    assert "[image shot.png, image/png, 8 bytes] was shown to the assistant" in summary
    assert "Frontier told the assistant" not in summary


def test_pairing_problems_name_each_split() -> None:
    call = AssistantTurn("", (CallEntry("a", "read"),))
    answer = ToolResults((ResultEntry("a", "read", "ok", 0, "x"),))
    assert pairing_problems([UserText("u"), call, answer]) == []
    assert pairing_problems([UserText("u"), call]) != []  # no result
    assert pairing_problems([UserText("u"), call, UserText("v"), answer]) != []  # apart
    assert pairing_problems([UserText("u"), answer]) != []  # results without the call
    framed = ToolResults(answer.results, framed=True)
    assert pairing_problems([UserText("u"), call, framed]) != []  # native call, frame
    assert pairing_problems([UserText("u"), AssistantTurn("call a read"), framed]) == []
    assert pairing_problems([UserText("u"), AssistantTurn("hm"), answer]) != []  # no call
    other = ToolResults((ResultEntry("b", "read", "ok", 0, "x"),))
    assert pairing_problems([UserText("u"), call, other]) != []  # someone else's result
    twice = ToolResults(answer.results * 2)
    assert pairing_problems([UserText("u"), call, twice]) != []


def test_the_transcript_labels_items_and_leaves_out_the_middle() -> None:
    history: list[Item] = [UserText("fix the flag")]
    for i in range(30):
        history.append(AssistantTurn(f"step {i}", (CallEntry(f"c{i}", "read", {"p": i}),)))
        history.append(ToolResults((ResultEntry(f"c{i}", "read", "ok", 0, "r" * 300),)))
    text = transcript(history, range(len(history)), 3000)
    assert text.startswith("USER: fix the flag\n\nASSISTANT: step 0\n[called read (id c0)")
    assert "TOOL RESULT c0 read: rrr" in text
    pieces = text.split("\n\n")
    assert pieces[-1].startswith("TOOL RESULT c29 read: ") and "characters left out" in pieces[-1]
    assert pieces[-2].startswith("ASSISTANT: step 29\n")
    gap = next(p for p in pieces if p.endswith("messages left out …]"))
    assert int(gap.split()[1]) == 61 + 1 - len(pieces)  # all but the pieces shown
    assert len(text) <= 3000
    whole = transcript(history, range(3), 10_000)
    assert "left out" not in whole and whole.count("\n\n") == 2


def test_frontiers_own_summary_names_each_call() -> None:
    history: list[Item] = [
        UserText("write two"),
        AssistantTurn("call c1 write\narg path a.txt\nend\n"),
        ToolResults((ResultEntry("c1", "write", "ok", 0, "wrote 12 bytes"),), framed=True),
        AssistantTurn("Now grep.", (CallEntry("call_9", "grep"),)),
        ToolResults((ResultEntry("call_9", "grep", "error", 1, "[error] bad"),)),
    ]
    text = mechanical_summary(history, range(len(history)))
    assert "- the user wrote: write two" in text
    assert "called write (c1): ok, 14 bytes" in text
    assert "- the assistant said: Now grep." in text and "called grep (call_9)" in text
    assert "result call_9: error, 11 bytes" in text
