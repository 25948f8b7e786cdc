"""At most ``max_calls`` calls per response (issue 21, item 12).

A model once streamed 3,000 calls in one response and every one ran (62.8 s). Now the
first call past the limit gets a ``not_executed`` result saying why, the loop reads the
response no further, and every call the history keeps is paired with exactly one result
(the typed conversation requires it on every wire). Covered in every protocol mode with
a scripted client, on every wire through the real runtime against a loopback server
(whose requests must be ones the API accepts), and the setting's three sources.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from inline_boundary import InlineBoundary
from request_validity import problems
from scripted import ScriptedClient
from wire_scripts import WIRES, Call, Text, WireServer, args, script, serve_wire, stream

from frontier.app.agent.loop import MAX_CALLS, AgentLoop
from frontier.app.agent.modes import MODES, get_mode
from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config, ConfigError, config_path, load_config
from frontier.app.events import (
    Event,
    ResponseEnded,
    ToolCall,
    ToolFinished,
    ToolResult,
    TurnEnded,
)
from frontier.app.model.conversation import AssistantTurn, ToolResults
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

WAIT = 30.0
"""The longest a turn may take here: past it the test fails."""


class CountingBoundary(InlineBoundary):
    """Runs nothing; records each call it was given and answers ``ok``."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    async def run(self, call: ToolCall) -> ToolResult:
        self.calls.append(call)
        return ToolResult(call.id, call.name, "ok", f"output of {call.id}", exit_code=0)


def ctl_call(n: int) -> str:
    return f"call c{n} read\narg path f{n}.txt\nend\n"


def xml_call(n: int) -> str:
    return (
        '<minimax:tool_call><invoke name="read"><parameter name="path">'
        f"f{n}.txt</parameter></invoke></minimax:tool_call>\n"
    )


def content(text: str) -> dict[str, Any]:
    return {"choices": [{"delta": {"content": text}, "finish_reason": None}]}


def native(n: int) -> list[dict[str, Any]]:
    """Call ``n`` as Chat chunks: its head, then its arguments in one piece."""
    head = {"index": n, "id": f"c{n}", "type": "function"}
    head["function"] = {"name": "read", "arguments": ""}
    piece = {"index": n, "function": {"arguments": json.dumps({"path": f"f{n}.txt"})}}
    return [
        {"choices": [{"delta": {"tool_calls": [head]}, "finish_reason": None}]},
        {"choices": [{"delta": {"tool_calls": [piece]}, "finish_reason": None}]},
    ]


def calls_response(mode: str, count: int) -> tuple[list[dict[str, Any]], str]:
    """One response making ``count`` read calls, written as ``mode`` expects them."""
    if get_mode(mode).native:
        chunks = [chunk for n in range(1, count + 1) for chunk in native(n)]
        chunks.append({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
        return chunks, "tool_calls"
    write = xml_call if mode == "xml" else ctl_call
    return [content(write(n)) for n in range(1, count + 1)], "stop"


DONE = ([content("All done.")], "stop")


def loop_for(
    mode: str, responses: list[tuple[list[dict[str, Any]], str]], **kw: Any
) -> tuple[AgentLoop, ScriptedClient, CountingBoundary, list[Event]]:
    events: list[Event] = []
    client = ScriptedClient(responses)
    boundary = CountingBoundary()
    loop = AgentLoop(
        client=client,
        boundary=boundary,
        registry=default_registry(),
        mode=get_mode(mode),
        emit=events.append,
        **kw,
    )
    return loop, client, boundary, events


def refused(events: list[Event]) -> list[ToolResult]:
    return [
        e.result for e in events if isinstance(e, ToolFinished) and e.result.kind == "not_executed"
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_calls_past_the_limit_are_not_run_and_the_model_is_told(mode: str) -> None:
    """Ten calls with ``max_calls=3``: three run, the fourth is answered ``not_executed``
    naming the limit, the response is read no further in the eager modes, and the next
    request pairs every call it keeps with exactly one result."""
    loop, client, boundary, events = loop_for(mode, [calls_response(mode, 10), DONE], max_calls=3)
    ended = await asyncio.wait_for(loop.send("read them all"), WAIT)
    assert ended.reason == "done"
    ran = [c.id for c in boundary.calls]
    assert len(ran) == 3 and [c.json_args().get("path") for c in boundary.calls] == [
        "f1.txt",
        "f2.txt",
        "f3.txt",
    ]
    [over] = refused(events)
    assert over.call_id not in ran
    assert "already made 3 calls" in over.output and "max_calls" in over.output
    if get_mode(mode).eager:
        # stopped at the fourth call: calls 5-10 were never read
        assert client.served_chunks < len(calls_response(mode, 10)[0])
    assert problems(client.sent[1], "openai-chat") == []
    told = json.dumps(client.requests[1])
    assert "already made 3 calls" in told
    round_ = loop.history[-3:-1]  # the round of calls, before the final "All done."
    assert isinstance(round_[0], AssistantTurn) and isinstance(round_[1], ToolResults)
    answered = [entry.call_id for entry in round_[1].results]
    assert answered == [*ran, over.call_id]
    if get_mode(mode).native:
        assert [c.id for c in round_[0].calls] == answered


@pytest.mark.parametrize("mode", MODES)
async def test_at_the_limit_every_call_runs(mode: str) -> None:
    loop, _client, boundary, events = loop_for(mode, [calls_response(mode, 3), DONE], max_calls=3)
    assert (await asyncio.wait_for(loop.send("go"), WAIT)).reason == "done"
    assert len(boundary.calls) == 3 and refused(events) == []


async def test_three_thousand_calls_run_sixty_four_by_default() -> None:
    """The issue's case: 3,000 native calls in one response, the default limit."""
    loop, client, boundary, events = loop_for(
        "native-inc", [calls_response("native-inc", 3000), DONE]
    )
    began = time.monotonic()
    ended = await asyncio.wait_for(loop.send("go"), WAIT)
    assert ended.reason == "done"
    assert len(boundary.calls) == MAX_CALLS == 64
    assert [r.call_id for r in refused(events)] == ["c65"]
    # call 65 is proven whole by call 66's arguments (Chat has no per-call end): the
    # stream was read that far and no further, not through its 6,000 chunks
    assert client.served_chunks <= 2 * 66 + 1 + len(DONE[0])
    assert time.monotonic() - began < WAIT


async def test_cancelling_after_the_limit_keeps_the_refusal() -> None:
    """A turn interrupted after a refusal: the refused call keeps its own result (it was
    decided already), the ones that ran keep theirs."""
    started = asyncio.Event()

    class Hangs(CountingBoundary):
        async def run(self, call: ToolCall) -> ToolResult:
            self.calls.append(call)
            started.set()
            await asyncio.Event().wait()
            raise AssertionError("unreachable")

    events: list[Event] = []
    chunks, _ = calls_response("ctl-heredoc", 3)
    loop = AgentLoop(
        client=ScriptedClient([(chunks, "stop")]),
        boundary=Hangs(),
        registry=default_registry(),
        mode=get_mode("ctl-heredoc"),
        emit=events.append,
        max_calls=1,
    )
    turn = asyncio.create_task(loop.send("go"))
    await asyncio.wait_for(started.wait(), WAIT)
    # the stream stopped at the refused call while the first one still runs
    stopped = lambda: any(isinstance(e, ResponseEnded) for e in events)  # noqa: E731
    await asyncio.wait_for(until(stopped), WAIT)
    turn.cancel()
    ended = await asyncio.wait_for(turn, WAIT)
    assert ended.reason == "cancelled"
    results = loop.history[-1]
    assert isinstance(results, ToolResults)
    assert [(r.call_id, r.kind) for r in results.results] == [
        ("c1", "cancelled"),
        ("c2", "not_executed"),
    ]
    assert [r.call_id for r in refused(events)] == ["c2"]
    assert [e.finish_reason for e in events if isinstance(e, ResponseEnded)] == ["stopped"]


async def until(check: Callable[[], bool]) -> None:
    """Yield to the loop until ``check`` holds (the caller bounds the wait)."""
    while not check():
        await asyncio.sleep(0)


def test_max_calls_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_calls must be at least 1"):
        loop_for("ctl", [], max_calls=0)


# --------------------------------------------------------------------------- the setting


def test_the_setting_defaults_to_the_loops_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FRONTIER_MAX_CALLS", raising=False)
    assert Config().max_calls == load_config().max_calls == MAX_CALLS


def test_config_env_and_flag_in_that_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FRONTIER_MAX_CALLS", raising=False)
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text("max_calls = 8\n")
    assert load_config().max_calls == 8
    monkeypatch.setenv("FRONTIER_MAX_CALLS", "12")
    assert load_config().max_calls == 12
    assert load_config(max_calls=5).max_calls == 5


@pytest.mark.parametrize(
    ("where", "value", "source"),
    [
        ("env", "0", "FRONTIER_MAX_CALLS"),
        ("env", "many", "FRONTIER_MAX_CALLS"),
        ("flag", -1, "--max-calls"),
    ],
)
def test_a_bad_max_calls_names_its_source(
    monkeypatch: pytest.MonkeyPatch, where: str, value: Any, source: str
) -> None:
    monkeypatch.delenv("FRONTIER_MAX_CALLS", raising=False)
    if where == "env":
        monkeypatch.setenv("FRONTIER_MAX_CALLS", value)
        flags: dict[str, Any] = {}
    else:
        flags = {"max_calls": value}
    with pytest.raises(
        ConfigError, match=f"max_calls must be a whole number of calls > 0.*{source}"
    ):
        load_config(**flags)


# --------------------------------------------------------------------------- every wire


@pytest.fixture(params=WIRES)
async def server(request: pytest.FixtureRequest) -> AsyncIterator[WireServer]:
    srv = WireServer(request.param, strict=True)
    async with serve_wire(srv):
        yield srv


async def test_every_wire_over_http_keeps_the_conversation_valid(
    server: WireServer, tmp_path: Path
) -> None:
    """The real runtime (tools, store, each wire's encoder) with ``max_calls=2`` and five
    reads in one response: two run, the third is refused, and the next request — which
    a strict server refuses if any call is unanswered — is accepted."""
    root = tmp_path / "ws"
    root.mkdir()
    for n in range(1, 6):
        (root / f"f{n}.txt").write_text(f"file {n}\n")
    calls = [Call(f"call_{n}", "read", args(path=f"f{n}.txt")) for n in range(1, 6)]
    server.answer(stream(script(server.wire, calls)), stream(script(server.wire, [Text("ok")])))
    config = Config(
        base_url=server.url,
        model="test-model",
        wire=server.wire,
        protocol="native-inc",
        approval="auto",
        api_key="sk-loopback-0123456789",
        context_window=100_000,
        instructions=False,
        max_calls=2,
    )
    events: list[Event] = []
    session = create_runtime(config, approver=PolicyApprover("auto"), workspace=root)
    try:
        session.subscribe(events.append)
        ended = await asyncio.wait_for(session.send("read the five files"), WAIT)
    finally:
        await session.close()
    assert isinstance(ended, TurnEnded) and ended.reason == "done"
    finished = [e.result for e in events if isinstance(e, ToolFinished)]
    assert [(r.call_id, r.kind) for r in finished] == [
        ("call_1", "ok"),
        ("call_2", "ok"),
        ("call_3", "not_executed"),
    ]
    assert len(server.requests) == 2 and server.refused == []
    assert "already made 2 calls" in server.requests[1].text
    assert "call_4" not in server.requests[1].text
