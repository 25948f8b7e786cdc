"""Compaction over random histories (``app/agent/compaction.py``): a call is never split
from its result, the last message the person typed is kept verbatim, nothing grows,
and compacting again changes nothing more."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from frontier.app.agent.compaction import (
    SUMMARY_ACK,
    apply_summary,
    frames,
    is_stub,
    is_summary,
    last_user,
    pairing_problems,
    plan_summary,
    stub_results,
    stub_text,
    units,
)
from frontier.app.agent.frames import result_body, result_frame
from frontier.app.events import ToolResult

Message = dict[str, Any]

BODY = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=600,
)
KIND = st.sampled_from(["ok", "ok", "ok", "error", "denied", "timeout"])


@st.composite
def results(draw: st.DrawFn, prefix: str) -> list[ToolResult]:
    n = draw(st.integers(0, 3))
    return [
        ToolResult(
            f"{prefix}{i}",
            draw(st.sampled_from(["read", "grep", "shell"])),
            draw(KIND),
            draw(BODY),
            draw(st.none() | st.integers(0, 2)),
        )
        for i in range(n)
    ]


@st.composite
def text_round(draw: st.DrawFn, index: int) -> list[Message]:
    """What ``AgentLoop._record_history`` appends in a text mode."""
    done = draw(results(f"c{index}_"))
    calls = "".join(f"call {r.call_id} {r.name}\narg path a.py\nend\n" for r in done)
    prose = draw(st.sampled_from(["", "Let me look.\n", "Done: the flag is added.\n"]))
    text = prose + calls
    repair = draw(st.sampled_from(["", "", "error truncated: your response was cut off."]))
    out: list[Message] = []
    if text:
        out.append({"role": "assistant", "content": text})
    feedback = "".join(result_frame(r) for r in done) + repair
    if feedback:
        out.append({"role": "user", "content": feedback})
    return out


@st.composite
def native_round(draw: st.DrawFn, index: int) -> list[Message]:
    done = draw(results(f"call_{index}_"))
    prose = draw(st.sampled_from(["", "Reading it."]))
    message: Message = {"role": "assistant", "content": prose or None}
    if done:
        message["tool_calls"] = [
            {
                "id": r.call_id,
                "type": "function",
                "function": {"name": r.name, "arguments": json.dumps({"path": "a.py"})},
            }
            for r in done
        ]
    out: list[Message] = [message] if prose or done else []
    out += [{"role": "tool", "tool_call_id": r.call_id, "content": result_body(r)} for r in done]
    if draw(st.booleans()) and draw(st.booleans()):
        out.append({"role": "user", "content": "error contract (bad_json): resend the call."})
    return out


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    native = draw(st.booleans())
    out: list[Message] = [{"role": "user", "content": draw(st.sampled_from(["fix it", "add -v"]))}]
    for index in range(draw(st.integers(0, 12))):
        step = draw(st.sampled_from(["round", "round", "round", "user"]))
        if step == "user":
            out.append({"role": "user", "content": f"also do thing {index}"})
        else:
            out += draw(native_round(index) if native else text_round(index))
    return out


def size(messages: list[Message]) -> int:
    return len(json.dumps(messages, ensure_ascii=False).encode())


def fake_locate(index: int, call_id: str) -> tuple[str, str]:
    return f"session 1a2b3c4d log #{index + 10}", ""


def user_text(messages: list[Message]) -> str | None:
    i = last_user(messages)
    return None if i is None else messages[i]["content"]


@given(histories(), st.integers(0, 4))
def test_stubbing_keeps_pairs_and_the_last_user_message(history: list[Message], keep: int) -> None:
    assert pairing_problems(history) == []
    out, stubs = stub_results(history, keep_rounds=keep, locate=fake_locate)
    assert pairing_problems(out) == []
    assert [m["role"] for m in out] == [m["role"] for m in history]
    assert user_text(out) == user_text(history)
    assert size(out) <= size(history)
    for before, after in zip(history, out, strict=True):  # never a message grows
        assert size([after]) <= size([before])
        if before["role"] == "user" and before["content"].startswith("result "):
            # a stubbed CTL frame is still a well-formed frame: same ids, same count
            old, rest_old = frames(before["content"])
            new, rest_new = frames(after["content"])
            assert [f.call_id for f in new] == [f.call_id for f in old]
            assert rest_new == rest_old
    assert all(
        s.nbytes > len(stub_text(s.call_id, s.name, s.kind, s.nbytes, s.where)) for s in stubs
    )
    again, more = stub_results(out, keep_rounds=keep, locate=fake_locate)
    assert again == out and more == ()


@given(histories(), st.integers(0, 4))
def test_the_last_rounds_are_never_stubbed(history: list[Message], keep: int) -> None:
    out, _ = stub_results(history, keep_rounds=keep, locate=fake_locate)
    rounds = [u for u in units(history) if u.kind == "round"]
    recent = rounds[len(rounds) - keep :] if keep else []
    for unit in recent:
        assert out[unit.start : unit.end] == history[unit.start : unit.end]


@given(histories(), st.integers(0, 4), st.sampled_from(["S.", "The user wants a flag; done."]))
def test_summarising_keeps_pairs_and_the_last_user_message(
    history: list[Message], keep: int, summary: str
) -> None:
    plan = plan_summary(history, keep_rounds=keep)
    if plan is None:
        return
    out = apply_summary(history, plan, summary)
    assert pairing_problems(out) == []
    assert is_summary(out[0]) and summary in out[0]["content"]
    assert user_text(out) == user_text(history)
    # roles still alternate where the summary joins the kept messages
    assert len(out) == 1 or out[1]["role"] == "assistant"
    # everything from the first of the last `keep` rounds on is kept as it was, at the end
    rounds = [u for u in units(history) if u.kind == "round"]
    tail = history[rounds[len(rounds) - keep].start :] if keep else []
    assert out[len(out) - len(tail) :] == tail
    # compacting again has nothing left to summarise
    assert plan_summary(out, keep_rounds=keep) is None
    # smaller whenever the summary is smaller than what it replaced
    replaced = [history[i] for i in plan.summarised]
    if size(replaced) > size([out[0]]) + len(SUMMARY_ACK) + 64:
        assert size(out) < size(history)


def test_a_stubbed_frame_counts_its_bytes() -> None:
    big = ToolResult("c1", "read", "ok", "x" * 5000)
    history = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": "call c1 read\narg path a.py\nend\n"},
        {"role": "user", "content": result_frame(big) + "error truncated: cut."},
        {"role": "assistant", "content": "Done."},
    ]
    out, stubs = stub_results(history, keep_rounds=1, locate=fake_locate)
    assert [s.call_id for s in stubs] == ["c1"] and stubs[0].nbytes == 5000
    (frame,), rest = frames(out[2]["content"])
    body = frame.body.decode()
    assert is_stub(body) and "c1 read (ok, 5,000 bytes)" in body and "log #12" in body
    assert out[2]["content"].startswith(f"result c1 exit=0 {len(frame.body)}\n")
    assert rest == b"error truncated: cut."


def test_a_tool_message_keeps_its_id() -> None:
    history = [
        {"role": "user", "content": "grep"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_9",
                    "type": "function",
                    "function": {"name": "grep", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_9", "content": "[error] " + "y" * 900},
        {"role": "assistant", "content": "No match."},
    ]
    out, _ = stub_results(history, keep_rounds=1)
    assert out[2]["tool_call_id"] == "call_9"
    assert out[2]["content"].startswith("[result of call_9 grep (error, 908 bytes) elided")
