"""Every history the loop can make is a request every API accepts (issue 20).

A hypothesis property drives the real ``AgentLoop`` through random sequences of turns —
replies with prose, reasoning and native calls, calls cut by the token limit, server
errors, requests that fail outright, turns the person interrupts mid-reply, contract
errors in the text protocols, mode switches, compactions and crash-and-resume with
results the model never saw — and checks every request the model is sent, encoded for
each of the three wires: roles alternate, every call has exactly one result in the next
message, reasoning comes before the calls it led to (Anthropic), nothing is empty.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inline_boundary import InlineBoundary
from request_validity import WIRES, problems

from frontier.app.agent import loop as loop_module
from frontier.app.agent.compaction import apply_summary, plan_summary, stub_results
from frontier.app.agent.loop import AgentLoop, Carried
from frontier.app.agent.modes import get_mode
from frontier.app.events import ToolCall, ToolResult
from frontier.app.model.errors import model_error
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import (
    CallArgs,
    CallDone,
    CallStart,
    Delta,
    End,
    Finish,
    ReasoningBlock,
    ReasoningDelta,
    StreamEnd,
    StreamItem,
    TextDelta,
    WireEvent,
)
from frontier.tools.registry import default_registry


@dataclass(frozen=True)
class Reply:
    """One scripted response."""

    kind: str
    """``text``, ``calls``, ``cut`` (length mid-call), ``error`` (an error event),
    ``fail`` (the request fails), ``hang`` (the person interrupts it), ``bad`` (a CTL
    contract error)."""
    calls: int = 0
    thinking: bool = False


REPLIES = st.builds(
    Reply,
    st.sampled_from(["text", "calls", "calls", "cut", "error", "fail", "hang", "bad"]),
    st.integers(1, 3),
    st.booleans(),
)


class Script:
    """A client that plays ``Reply``s and keeps every request it was sent."""

    wire = "anthropic-messages"
    model = "test"

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = list(replies)
        self.sent: list[ModelRequest] = []
        self.hanging = asyncio.Event()
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        self.sent.append(request)
        reply = self.replies.pop(0) if self.replies else Reply("text")
        native = request.native
        if reply.kind == "fail":
            raise model_error("connect", "the server is down")
        deltas: list[Delta] = []
        if reply.thinking:
            deltas += [ReasoningDelta("hmm"), ReasoningBlock({"type": "thinking",
                       "thinking": "hmm", "signature": "sig"})]  # fmt: skip
        deltas.append(TextDelta("Working on it.\n"))
        yield WireEvent("{}", 0.0, tuple(deltas))
        if reply.kind == "hang":
            self.hanging.set()
            await asyncio.Event().wait()
        if reply.kind == "bad" and not native:
            yield WireEvent("{}", 0.0, (TextDelta("call c9 read\narg path 2\nabc\nend\n"),))
            yield StreamEnd("stop")
            return
        n = reply.calls if reply.kind in ("calls", "cut") else 0
        for k in range(n):
            self.calls += 1
            cid = f"c{self.calls}"
            cut = reply.kind == "cut" and k == n - 1
            if native:
                args = '{"path": "a.txt"}'
                events: list[Delta] = [CallStart(k, cid, "read")]
                events.append(CallArgs(k, args[:8] if cut else args))
                if not cut:
                    events.append(CallDone(k, proof=True))
                yield WireEvent("{}", 0.0, tuple(events))
            else:
                frame = f"call {cid} read\narg path a.txt\n" + ("" if cut else "end\n")
                yield WireEvent("{}", 0.0, (TextDelta(frame),))
        if reply.kind == "error":
            yield StreamEnd("error", error="overloaded")
            return
        finish = "length" if reply.kind == "cut" else ("tool_calls" if n else "stop")
        yield WireEvent("{}", 0.0, (Finish(finish), End()))  # type: ignore[arg-type]
        yield StreamEnd(finish)

    async def aclose(self) -> None:
        return None


class Tools(InlineBoundary):
    async def run(self, call: ToolCall) -> ToolResult:
        return ToolResult(call.id, call.name, "ok", "hello\n", exit_code=0)


EPISODE = st.tuples(
    st.sampled_from(["native-inc", "native-eos", "ctl-heredoc"]),
    st.lists(REPLIES, min_size=1, max_size=4),
    st.sampled_from(["none", "none", "stub", "summary", "crash"]),
)


def valid_for_every_wire(request: ModelRequest) -> None:
    for wire in WIRES:
        bad = problems(request, wire)
        assert not bad, (wire, bad, json.dumps([repr(i) for i in request.items])[:2000])
    bare = replace(request, tools=())  # the same history under a text protocol
    for wire in WIRES:
        assert not problems(bare, wire), (wire, "without tools")


async def run_episodes(
    episodes: list[tuple[str, list[Reply], str]], stopped_by: str | None = None
) -> Script:
    """``stopped_by``: a hanging reply is stopped as a signal's stop does (its reason in
    the cancel), not as a person's. The loop's pauses before it asks again (a second
    after a reply an ``error`` cut) are not waited out: they are the loop's to choose, and
    60 conversations slept ~16 s in them."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(loop_module, "ASKED_AGAIN", (0.0, 0.0, 0.0))
        return await _run_episodes(episodes, stopped_by)


async def _run_episodes(
    episodes: list[tuple[str, list[Reply], str]], stopped_by: str | None
) -> Script:
    script = Script([])
    loop = AgentLoop(
        client=script,
        boundary=Tools(),
        registry=default_registry(),
        mode=get_mode("native-inc"),
        signals_call_done=True,
        max_turns=6,
    )
    for mode, replies, after in episodes:
        loop.set_mode(get_mode(mode))
        script.replies = list(replies)
        script.hanging.clear()
        turn = asyncio.create_task(loop.send("do the thing"))
        waiter = asyncio.create_task(script.hanging.wait())
        done, _ = await asyncio.wait({turn, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if waiter in done and not turn.done():
            if stopped_by is None:
                loop.cancel_turn()
            else:
                turn.cancel(stopped_by)
        await turn
        waiter.cancel()
        if after == "stub":
            loop.replace_history(stub_results(loop.history, keep_rounds=1)[0])
        elif after == "summary":
            plan = plan_summary(loop.history, keep_rounds=1)
            if plan is not None:
                loop.replace_history(apply_summary(loop.history, plan, "what happened so far"))
        elif after == "crash":
            # the process died while a call ran: resume with its result carried
            crashed = ToolCall("x1", "shell", {"command": "make"})
            result = ToolResult("x1", "shell", "interrupted", "the session stopped")
            loop = AgentLoop(
                client=script,
                boundary=Tools(),
                registry=default_registry(),
                mode=get_mode(mode),
                signals_call_done=True,
                max_turns=6,
                history=loop.history,
                carried=[Carried(crashed, result)],
            )
    return script


# 60 random conversations of up to five episodes, each run through the loop and every
# request it sent checked on every wire
@settings(max_examples=60, deadline=None)
@given(st.lists(EPISODE, min_size=1, max_size=5))
def test_every_request_the_loop_sends_is_valid_on_every_wire(
    episodes: list[tuple[str, list[Reply], str]],
) -> None:
    script = asyncio.run(run_episodes(episodes))
    assert script.sent
    for request in script.sent:
        valid_for_every_wire(request)


def test_an_interrupted_reply_is_kept_with_its_marker_and_the_next_message_alternates() -> None:
    episodes = [("ctl-heredoc", [Reply("hang")], "none"), ("ctl-heredoc", [Reply("text")], "none")]
    script = asyncio.run(run_episodes(episodes))
    last = script.sent[-1]
    kinds = [type(i).__name__ for i in last.items]
    assert kinds == ["UserText", "AssistantTurn", "UserText"]
    turn = last.items[1]
    assert turn.text == "Working on it.\n"  # type: ignore[union-attr]
    assert "interrupted by the user" in turn.cut  # type: ignore[union-attr]


def test_a_reply_stopped_by_a_signal_says_so_to_the_model() -> None:
    """The marker said "interrupted by the user" when SIGTERM or a closed terminal stopped
    the turn."""
    episodes = [("ctl-heredoc", [Reply("hang")], "none"), ("ctl-heredoc", [Reply("text")], "none")]
    script = asyncio.run(run_episodes(episodes, stopped_by="stopped by SIGTERM"))
    turn = script.sent[-1].items[1]
    assert turn.cut == "[Reply interrupted: stopped by SIGTERM]"  # type: ignore[union-attr]


def test_a_failed_request_leaves_a_marker_not_two_user_messages() -> None:
    episodes = [("native-inc", [Reply("fail")], "none"), ("native-inc", [Reply("text")], "none")]
    script = asyncio.run(run_episodes(episodes))
    kinds = [type(i).__name__ for i in script.sent[-1].items]
    assert kinds == ["UserText", "AssistantTurn", "UserText"]
    assert "Reply failed" in script.sent[-1].items[1].cut  # type: ignore[union-attr]


def test_a_crashed_native_call_keeps_its_entry_with_its_result_attached() -> None:
    episodes = [("native-inc", [Reply("text")], "crash"), ("native-inc", [Reply("text")], "none")]
    script = asyncio.run(run_episodes(episodes))
    from frontier.app.model.registry import codec

    body: dict[str, Any] = codec("openai-chat").body(script.sent[-1], "m")
    roles = [m["role"] for m in body["messages"]]
    # the reply before the crash and the lost reply's call are one assistant message
    assert roles == ["system", "user", "assistant", "tool", "user"]
    call_message = next(m for m in body["messages"] if m.get("tool_calls"))
    assert call_message["tool_calls"][0]["id"] == "x1"
    tool = next(m for m in body["messages"] if m["role"] == "tool")
    assert tool["tool_call_id"] == "x1" and tool["content"].startswith("[interrupted]")
