"""The real runtime (``create_runtime`` + ``AgentSession.send``, real tools and store)
against scripted servers on 127.0.0.1 speaking each wire: OpenAI Responses
(``/v1/responses``), Anthropic Messages (``/v1/messages``) and Chat Completions
(``/v1/chat/completions``), in both native modes (issue 20, "How it is checked").

Covered per wire: eager start with prose after a call (a gate holds the rest of the
body until the test has seen the state it waits for: never a sleep), truncation by the
token limit, errors in the stream and before it, context overflow, reasoning, and a
server that enforces strict role alternation. Every request any server received must be
one its API accepts (``tests/request_validity.py``). The response bodies are written
wire-neutrally and encoded by ``tests/wire_scripts.py``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from wire_scripts import (
    ALTERNATE,
    PATHS,
    WIRES,
    Call,
    Hosted,
    Part,
    Seen,
    Text,
    Think,
    WireServer,
    args,
    overflow_body,
    overloaded_body,
    refusing_socket,
    script,
    serve_wire,
    sse_data,
    sse_event,
    status,
    stream,
)

from frontier.app.agent import loop as loop_module
from frontier.app.agent.explain import explain_session
from frontier.app.agent.loop import INTERRUPTED
from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.commands.check import load_sources, server_framing
from frontier.app.config import Config, data_dir
from frontier.app.events import (
    AssistantText,
    CallReady,
    CallStarted,
    Compacted,
    ContractError,
    Event,
    Notice,
    ReasoningText,
    RepairRequested,
    ResponseEnded,
    Retry,
    ServerTool,
    StreamBytes,
    Summarising,
    ToolFinished,
    ToolStarted,
    TurnEnded,
)
from frontier.app.model import transport
from frontier.app.notices import split_notices
from frontier.app.replay_player import ReplayPlayer, source_from_recording
from frontier.app.secrets import REDACTED
from frontier.tools.policy import PolicyApprover
from frontier.widgets.pane_state.notes import repair_line

NEW_WIRES = ("openai-responses", "anthropic-messages")
MODES = ("native-inc", "native-eos")
KEY = "sk-loopback-0123456789abcdefXYZ"
WAIT = 10.0
"""The longest any awaited state may take: past it the test fails (it never passes by
waiting)."""
NOTES = "alpha beta gamma\n"

T = TypeVar("T")


# --------------------------------------------------------------------------- the rig


class Watch:
    """Every event the session emits, in order, and waits for a state among them."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._waiting: list[tuple[Callable[[Event], bool], asyncio.Future[Event]]] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)
        for wanted, future in self._waiting:
            if not future.done() and wanted(event):
                future.set_result(event)

    async def until(self, wanted: Callable[[Event], bool], what: str) -> Event:
        for event in self.events:
            if wanted(event):
                return event
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        self._waiting.append((wanted, future))
        return await bounded(future, what)

    def of(self, kind: type[T]) -> list[T]:
        return [e for e in self.events if isinstance(e, kind)]

    def index(self, wanted: Callable[[Event], bool]) -> int:
        return next(i for i, e in enumerate(self.events) if wanted(e))

    def streamed(self) -> bytes:
        """Every byte that reached the transducer."""
        return b"".join(e.data for e in self.of(StreamBytes))

    def has_streamed(self, marker: bytes) -> Callable[[Event], bool]:
        """A state: ``marker`` has reached the transducer (in one piece or several)."""
        return lambda event: isinstance(event, StreamBytes) and marker in self.streamed()

    def streamed_at(self, marker: bytes) -> int:
        """The index of the event with which ``marker`` had wholly reached the transducer."""
        seen = b""
        for i, event in enumerate(self.events):
            if isinstance(event, StreamBytes):
                seen += event.data
                if marker in seen:
                    return i
        raise AssertionError(f"{marker!r} never streamed")


async def bounded(awaitable: Awaitable[T], what: str) -> T:
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({task}, timeout=WAIT)
    if not done:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        pytest.fail(f"timed out after {WAIT} s waiting for {what}")
    return task.result()


@dataclass
class Rig:
    server: WireServer
    session: AgentSession
    watch: Watch
    root: Path
    listen: Callable[[], Awaitable[None]]
    config: Config
    stack: contextlib.AsyncExitStack
    turns: list[TurnEnded] = field(default_factory=list)

    async def resume(self) -> None:
        """Close the session and open it again from the store (``frontier resume``)."""
        sid = self.session.session_id
        await self.session.close()
        self.session = create_runtime(self.config, approver=PolicyApprover("auto"), session_id=sid)
        self.stack.push_async_callback(self.session.close)
        self.session.subscribe(self.watch)

    @property
    def wire(self) -> str:
        return self.server.wire

    def begin(self, text: str) -> asyncio.Task[TurnEnded]:
        return asyncio.create_task(self.session.send(text))

    async def turn(self, text: str) -> TurnEnded:
        ended = await bounded(self.begin(text), f"the turn {text!r} to end")
        self.turns.append(ended)
        return ended

    def answer(self, *replies: Any) -> None:
        """Queue what the server answers to the next requests (the last one repeats)."""
        self.server.answer(*replies)

    def assert_valid(self) -> None:
        assert self.server.problems() == [], "a request the API would refuse"
        assert {r.path for r in self.server.requests} == {PATHS[self.wire]}


Make = Callable[..., Awaitable[Rig]]


@pytest.fixture
async def make(tmp_path: Path) -> AsyncIterator[Make]:
    async with contextlib.AsyncExitStack() as stack:

        async def build(
            wire: str, mode: str = "native-inc", *, strict: bool = False, refuse: bool = False,
            thinking: bool = False, signed: bool = False, mistral: bool = False,
            **config: Any,
        ) -> Rig:  # fmt: skip
            server = WireServer(
                wire, strict=strict, thinking=thinking, signed=signed, mistral=mistral
            )
            sock = refusing_socket() if refuse else None
            if sock is None:
                await stack.enter_async_context(serve_wire(server))
            else:
                stack.callback(sock.close)
                server.url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"

            async def listen() -> None:
                assert sock is not None
                await stack.enter_async_context(serve_wire(server, sock))

            root = tmp_path / "ws"
            root.mkdir(exist_ok=True)
            (root / "notes.txt").write_text(NOTES)
            settings: dict[str, Any] = {
                "base_url": server.url,
                "model": "test-model",
                "wire": wire,
                "protocol": mode,
                "approval": "auto",
                "api_key": KEY,
                "context_window": 100_000,
                "instructions": False,
                **config,
            }
            config = Config(**settings)
            session = create_runtime(config, approver=PolicyApprover("auto"), workspace=root)
            stack.push_async_callback(session.close)
            watch = Watch()
            session.subscribe(watch)
            return Rig(server, session, watch, root, listen, config, stack)

        yield build


def reply(wire: str, *parts: Part, **options: Any) -> Any:
    return stream(script(wire, parts, **options))


def done(wire: str, text: str = "All done.") -> Any:
    return reply(wire, Text(text))


def history_text(seen: Seen) -> str:
    """The request's history as text (every wire's JSON, whatever its shape)."""
    body = dict(seen.body)
    for key in ("system", "instructions", "tools"):
        body.pop(key, None)
    if seen.body.get("messages") and seen.body["messages"][0].get("role") == "system":
        body["messages"] = seen.body["messages"][1:]
    return json.dumps(body, ensure_ascii=False)


def roles(seen: Seen) -> list[str]:
    """The roles of the request's messages, in order, as the API reads them."""
    body = seen.body
    if "messages" in body:
        out = [m["role"] for m in body["messages"] if m["role"] != "system"]
        return ["user" if r == "tool" else r for r in out]
    out = []
    for item in body["input"]:
        kind = item.get("type", "message")
        role = item.get("role") if kind == "message" else None
        out.append(role or ("user" if kind == "function_call_output" else "assistant"))
    return out


def merged(seq: list[str]) -> list[str]:
    """Consecutive same roles as one (Chat's tool messages, Responses' items)."""
    return [r for i, r in enumerate(seq) if i == 0 or seq[i - 1] != r]


def result_kinds(watch: Watch) -> dict[str, str]:
    return {e.result.call_id: e.result.kind for e in watch.of(ToolFinished)}


def read_notes(call_id: str = "call_r1") -> Call:
    return Call(call_id, "read", args(path="notes.txt"))


# --------------------------------------------------------------------------- the basics


@pytest.mark.parametrize("wire", WIRES)
async def test_each_wire_sends_its_path_auth_and_body(make: Make, wire: str) -> None:
    rig = await make(wire)
    rig.answer(reply(wire, Text("Reading."), read_notes()), done(wire))
    ended = await rig.turn("what is in notes.txt?")
    assert ended.reason == "done", ended.message
    assert result_kinds(rig.watch) == {"call_r1": "ok"}
    first, second = rig.server.requests
    assert first.path == PATHS[wire]
    headers = {k.lower(): v for k, v in first.headers.items()}
    if wire == "anthropic-messages":
        assert headers["x-api-key"] == KEY and headers["anthropic-version"] == "2023-06-01"
        assert "authorization" not in headers
        assert first.body["max_tokens"] > 0 and first.body["system"]
        assert {t["name"] for t in first.body["tools"]} >= {"read", "write"}
        assert all("input_schema" in t for t in first.body["tools"])
    else:
        assert headers["authorization"] == f"Bearer {KEY}" and "x-api-key" not in headers
    if wire == "openai-responses":
        assert first.body["store"] is False
        assert first.body["include"] == ["reasoning.encrypted_content"]
        assert first.body["instructions"] and first.body["input"][0]["role"] == "user"
        assert all(t["type"] == "function" and "name" in t for t in first.body["tools"])
    if wire == "openai-chat":
        assert first.body["messages"][0]["role"] == "system"
    assert first.body["model"] == "test-model" and first.body["stream"] is True
    # the result goes back natively, paired with its call, holding what the file says
    assert "alpha beta gamma" in history_text(second)
    assert "call_r1" in history_text(second)
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_a_known_secret_the_model_reads_is_never_sent_to_it(
    make: Make, wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stop 63: the store and every screen scrubbed a known secret, but the request sent
    the model a file holding it as it was (another provider's key in a file the model
    read went to this one). A shape (a test's ``Bearer`` token) stays, for editing."""
    other = "sk-ant-other0123456789provider"
    monkeypatch.setenv("ANTHROPIC_API_KEY", other)
    rig = await make(wire)
    (rig.root / "notes.txt").write_text(
        f"key={KEY}\nanthropic {other}\nheaders = {{'Authorization': 'Bearer abc123def456'}}\n"
    )
    rig.answer(reply(wire, Text("Reading."), read_notes()), done(wire))
    ended = await rig.turn(f"is {other} in notes.txt?")
    assert ended.reason == "done", ended.message
    first, second = rig.server.requests
    for seen in (first, second):
        sent = history_text(seen)
        assert KEY not in sent and other not in sent, sent
    assert f"is {REDACTED} in notes.txt?" in history_text(first)
    text = history_text(second)
    assert f"key={REDACTED}" in text and f"anthropic {REDACTED}" in text
    assert "Bearer abc123def456" in text  # by shape only: kept for the model to edit
    rig.assert_valid()


@pytest.mark.parametrize("mode", [*MODES, "ctl-heredoc"])
@pytest.mark.parametrize("wire", WIRES)
async def test_a_stored_session_checks_without_blaming_the_server(
    make: Make, wire: str, mode: str
) -> None:
    """What a session stores of each response is what ``frontier check`` reads: the
    events that carry no delta (a block's start, Responses' ``output_item.added``) were
    left out, so ``check`` of every stored Anthropic session said the server sent "a
    block never started". A clean turn now checks clean on every wire."""
    rig = await make(wire, mode)
    call = read_notes() if mode != "ctl-heredoc" else Text("Reading it.")
    rig.answer(reply(wire, Text("Reading."), call), done(wire))
    ended = await rig.turn("what is in notes.txt?")
    assert ended.reason == "done", ended.message
    sources = load_sources(rig.session.session_id)
    assert len(sources) == (2 if mode != "ctl-heredoc" else 1)
    for name, rec in sources:
        server, native = server_framing(rec)
        assert (server, native) == ([], ()), name


@pytest.mark.parametrize("wire", WIRES)
async def test_a_native_call_to_a_text_protocol_is_refused_live_and_named_by_check(
    make: Make, wire: str
) -> None:
    """A server that sends a native call to a request offering none (a text protocol):
    the call never runs, the model is asked for a frame, and ``check`` of the stored
    response names the call (it reads the text, where the call is not)."""
    rig = await make(wire, "ctl-heredoc")
    rig.answer(reply(wire, Text("Reading."), read_notes()), done(wire))
    ended = await rig.turn("what is in notes.txt?")
    assert ended.reason == "done", ended.message
    assert result_kinds(rig.watch) == {}  # nothing ran
    assert "error contract (bad_call)" in history_text(rig.server.requests[1])
    checked = [server_framing(rec) for _, rec in load_sources(rig.session.session_id)]
    assert [server for server, _ in checked] == [[], []]  # the server kept its framing
    assert [native for _, native in checked] == [("call_r1 read",), ()]
    # ``check --explain`` tells the error the live run raised, though the text alone
    # (what the transducer reads) holds none: where, the feedback sent, what came next
    (explained,) = explain_session(rig.session.session_id)
    site = explained.site
    assert (site.kind, site.offset, site.frame.frontier) == ("bad_call", len(b"Reading."), 8)
    assert "a native tool call ('read')" in site.message
    assert explained.recorded_matches
    assert explained.attempt is not None and explained.attempt.outcome == "other"


# --------------------------------------------------------------------------- 1. eager start


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("wire", WIRES)
async def test_a_complete_call_starts_while_prose_after_it_still_streams(
    make: Make, wire: str, mode: str
) -> None:
    """Responses (``output_item.done``) and Anthropic (``content_block_stop``) prove a call
    whole the moment it ends: native-inc runs it while the prose after it is still held by
    the server. native-eos runs it only after the end. Chat carries no per-call signal:
    with prose after the call, native-inc starts it at the finish chunk, after the prose."""
    rig = await make(wire, mode)
    gate = asyncio.Event()
    rig.answer(
        reply(
            wire,
            Text("Let me look. "),
            read_notes(),
            Text("While that runs: "),
            gate,
            Text("here is a long explanation that comes after the call."),
        ),
        done(wire, "It says alpha beta gamma."),
    )
    eager = mode == "native-inc" and wire in NEW_WIRES
    task = rig.begin("what is in notes.txt?")
    try:
        if eager:
            await rig.watch.until(lambda e: isinstance(e, ToolStarted), "the call to start")
        else:
            await rig.watch.until(
                rig.watch.has_streamed(b"While that runs"), "the prose before the gate"
            )
            assert not rig.watch.of(ToolStarted), "the call started before the stream ended"
        assert b"here is" not in rig.watch.streamed()
        gate.set()
        ended = await bounded(task, "the turn to end")
    finally:
        gate.set()
    assert ended.reason == "done", ended.message
    w = rig.watch
    started = w.index(lambda e: isinstance(e, ToolStarted))
    prose_after = w.streamed_at(b"here is")
    end = w.index(lambda e: isinstance(e, ResponseEnded))
    if eager:
        assert started < prose_after < end
    elif mode == "native-inc":  # Chat: completed by the finish chunk, after all the prose
        assert prose_after < started
    else:  # native-eos: run after the stream ended
        assert prose_after < end < started
    # the tool really ran in the workspace, once, and its output went back
    (finished,) = w.of(ToolFinished)
    assert finished.result.kind == "ok" and "alpha beta gamma" in finished.result.output
    assert "alpha beta gamma" in history_text(rig.server.requests[1])
    said = "".join(e.text for e in w.of(AssistantText))
    assert "Let me look." in said and "long explanation" in said
    rig.assert_valid()


async def test_chat_proves_a_call_when_the_next_calls_arguments_begin(make: Make) -> None:
    """Chat's own eager rule over HTTP: call 0 starts once call 1's arguments begin
    (its JSON has closed), while the rest of call 1 is still held by the server."""
    wire = "openai-chat"
    rig = await make(wire, "native-inc")
    gate = asyncio.Event()
    whole = args(path="notes.txt")
    other = args(path="notes.txt", limit=9)  # another call (the same one twice runs once)
    (rig.root / "notes.txt").write_text(NOTES)

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return sse_data({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    def head(index: int, call_id: str) -> bytes:
        function = {"name": "read", "arguments": ""}
        return chunk({"tool_calls": [{"index": index, "id": call_id, "function": function}]})

    def piece(index: int, text: str) -> bytes:
        return chunk({"tool_calls": [{"index": index, "function": {"arguments": text}}]})

    rig.answer(
        stream(
            [
                chunk({"role": "assistant", "content": ""}),
                head(0, "call_r1"),
                piece(0, whole),
                head(1, "call_r2"),
                piece(1, other[:5]),
                gate,
                piece(1, other[5:]),
                chunk({}, "tool_calls"),
                b"data: [DONE]\n\n",
            ]
        ),
        done(wire),
    )
    task = rig.begin("read it")
    try:
        await rig.watch.until(lambda e: isinstance(e, ToolStarted), "call 0 to start")
        assert rig.watch.of(ToolStarted)[0].call.id == "call_r1"
        gate.set()
        ended = await bounded(task, "the turn to end")
    finally:
        gate.set()
    assert ended.reason == "done", ended.message
    assert [e.call.id for e in rig.watch.of(ToolStarted)] == ["call_r1", "call_r2"]
    assert result_kinds(rig.watch) == {"call_r1": "ok", "call_r2": "ok"}
    rig.assert_valid()


@pytest.mark.parametrize("mode", MODES)
async def test_a_call_id_changed_at_done_is_the_one_answered(make: Make, mode: str) -> None:
    """Responses: ``output_item.added`` may name another ``call_id`` than the item's
    ``done``: the done's is the one the result must name."""
    wire = "openai-responses"
    rig = await make(wire, mode)
    moved = Call("call_new", "read", args(path="notes.txt"), first_id="call_old")
    rig.answer(reply(wire, moved), done(wire))
    ended = await rig.turn("read it")
    assert ended.reason == "done", ended.message
    assert [e.call.id for e in rig.watch.of(ToolStarted)] == ["call_new"]
    outputs = [i for i in rig.server.requests[1].body["input"] if "output" in i]
    assert [i["call_id"] for i in outputs] == ["call_new"]
    assert "alpha beta gamma" in outputs[0]["output"]
    rig.assert_valid()


@pytest.mark.parametrize("end", ["stop", "length"])
async def test_a_call_whose_id_changed_is_never_reported_as_not_run(make: Make, end: str) -> None:
    wire = "openai-responses"
    rig = await make(wire, "native-inc")
    moved = Call("call_new", "read", args(path="notes.txt"), first_id="call_old")
    parts: list[Part] = [moved]
    if end == "length":
        parts.append(Call("call_w2", "write", args(path="b.txt", content="x")[:-4], cut=True))
    rig.answer(reply(wire, *parts, end=end), done(wire))
    assert (await rig.turn("read it")).reason == "done"
    kinds = result_kinds(rig.watch)
    assert kinds.pop("call_new") == "ok"
    assert kinds == ({"call_w2": "truncated"} if end == "length" else {})
    # every call the front ends saw announced is heard of again under its final id
    # (the renamed one was re-announced with ``replaces``)
    started = rig.watch.of(CallStarted)
    announced = {e.id for e in started} - {e.replaces for e in started}
    assert {e.replaces for e in started if e.replaces} == {"call_old"}
    assert announced <= {e.result.call_id for e in rig.watch.of(ToolFinished)}


# --------------------------------------------------------------------------- 2. truncation


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("wire", WIRES)
async def test_a_call_cut_by_the_token_limit_never_runs(make: Make, wire: str, mode: str) -> None:
    rig = await make(wire, mode)
    cut = Call("call_w1", "write", args(path="out.txt", content="hello there")[:-12], cut=True)
    rig.answer(
        reply(wire, Text("Writing it."), cut, end="length"),
        done(wire, "Sorry, I will keep it short."),
    )
    ended = await rig.turn("write out.txt")
    assert ended.reason == "done", ended.message
    assert not rig.watch.of(ToolStarted)
    assert not (rig.root / "out.txt").exists()
    assert [e.finish_reason for e in rig.watch.of(ResponseEnded)] == ["length", "stop"]
    assert result_kinds(rig.watch) == {"call_w1": "truncated"}
    assert [(r.kind, r.resend) for r in rig.watch.of(RepairRequested)] == [("truncated", True)]
    again = history_text(rig.server.requests[1])
    assert "error truncated" in again and "call_w1" in again and "did not run" in again
    assert "Writing it." in again  # what the model said is kept
    rig.assert_valid()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("wire", WIRES)
async def test_two_calls_the_second_cut(make: Make, wire: str, mode: str) -> None:
    """native-inc runs the complete first call; native-eos runs neither and says the
    first may be resent unchanged."""
    rig = await make(wire, mode)
    first = Call("call_w1", "write", args(path="a.txt", content="first"))
    second = Call("call_w2", "write", args(path="b.txt", content="second")[:-8], cut=True)
    rig.answer(reply(wire, first, second, end="length"), done(wire))
    ended = await rig.turn("write a.txt and b.txt")
    assert ended.reason == "done", ended.message
    assert not (rig.root / "b.txt").exists()
    repair = rig.server.requests[1]
    text = history_text(repair)
    assert "call_w2 (write) was cut off before its arguments were complete" in text
    if mode == "native-inc":
        assert (rig.root / "a.txt").read_text() == "first"
        assert result_kinds(rig.watch) == {"call_w1": "ok", "call_w2": "truncated"}
        assert "call_w1 (write) was complete and ran: its result is above" in text
        assert "unchanged" not in text and "None of its calls ran" not in text
    else:
        assert not (rig.root / "a.txt").exists()
        assert not rig.watch.of(ToolStarted)
        assert result_kinds(rig.watch) == {"call_w1": "truncated", "call_w2": "truncated"}
        assert "None of its calls ran" in text
        assert "call_w1 (write) was complete but did not run" in text
        assert "Resend it unchanged" in text
    rig.assert_valid()


@pytest.mark.parametrize("mode", MODES)
async def test_a_call_cut_by_a_server_that_still_says_tool_calls_is_told_as_cut(
    make: Make, mode: str
) -> None:
    """vLLM (and deployments or gateways that rewrite ``length``) end a response cut at
    their output limit with ``finish_reason: tool_calls``: the cut call never runs, and
    the model is told it was cut and to keep its arguments short, not to "send valid
    JSON" (which would have it write the same call into the same limit again). The
    inspector tells it the same way."""
    rig = await make("openai-chat", mode)
    cut = Call("call_w1", "write", args(path="out.txt", content="hello there")[:-12], cut=True)
    rig.answer(reply("openai-chat", Text("Writing it."), cut), done("openai-chat"))
    ended = await rig.turn("write out.txt")
    assert ended.reason == "done", ended.message
    assert [e.finish_reason for e in rig.watch.of(ResponseEnded)] == ["tool_calls", "stop"]
    assert not rig.watch.of(ToolStarted) and not (rig.root / "out.txt").exists()
    assert result_kinds(rig.watch) == {"call_w1": "truncated"}
    assert [r.kind for r in rig.watch.of(RepairRequested)] == ["truncated"]
    text = repair_of(rig)
    assert "call_w1 (write) was cut off before its arguments were complete" in text
    assert "Keep arguments short enough to fit." in text and "valid JSON" not in text
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_replies_all_cut_by_the_token_limit_end_saying_which_setting(
    make: Make, wire: str
) -> None:
    """The rig with ``--max-tokens 8``: four requests, each reply cut, then "3 repairs in
    a row failed; last error: truncated …" — the limit the person set named nowhere."""
    rig = await make(wire)
    cut = reply(wire, Text("A Python list is a dynamic"), end="length")
    rig.answer(cut)
    ended = await rig.turn("Explain what a Python list is.")
    assert ended.reason == "repair_limit"
    assert ended.message.endswith(
        "every reply was cut by the output token limit: if max_tokens is set (--max-tokens "
        "N, max_tokens in config.toml or a provider's table), raise it"
    )
    rig.answer(cut, cut, done(wire))  # cut but then answered: the limit is not the cause
    assert (await rig.turn("again")).reason == "done"


@pytest.mark.parametrize("mode", MODES)
async def test_a_proxy_that_ends_with_end_turn_has_its_calls_run(make: Make, mode: str) -> None:
    """LiteLLM in front of Anthropic, Ollama or Gemini ends Chat responses with
    ``end_turn``: every response was taken for cut, no call ran, and after three repairs
    the turn ended ``repair_limit``."""
    rig = await make("openai-chat", mode)
    end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "end_turn"}]}
    body = [*script("openai-chat", [read_notes("call_1")])[:-3], sse_data(end), b"data: [DONE]\n\n"]
    rig.answer(stream(body), done("openai-chat"))
    ended = await rig.turn("read notes")
    assert ended.reason == "done", ended.message
    assert result_kinds(rig.watch) == {"call_1": "ok"}
    assert not rig.watch.of(RepairRequested) and len(rig.server.requests) == 2
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_a_call_the_server_sent_back_as_text_is_asked_again_and_said(
    make: Make, wire: str
) -> None:
    """vLLM without the model's tool parser (or with one that did not read it) streams the
    call as text, ``<tool_call>{…}</tool_call>``, and ``stop``: the turn ended ``done``, the
    person saw a call that never ran and the model believed it had."""
    rig = await make(wire, "native-inc")
    envelope = '<tool_call>\n{"name": "read", "arguments": {"path": "notes.txt"}}\n</tool_call>'
    rig.answer(
        reply(wire, Text(f"Let me read it.\n{envelope}")),
        reply(wire, Text(f"Again.\n{envelope}")),
        reply(wire, read_notes("call_1")),
        done(wire, "It says alpha."),
    )
    ended = await rig.turn("read notes")
    assert ended.reason == "done", ended.message
    assert result_kinds(rig.watch) == {"call_1": "ok"}
    assert [r.kind for r in rig.watch.of(RepairRequested)] == ["bad_call", "bad_call"]
    told = [n.text for n in rig.watch.of(Notice) if "back as text" in n.text]
    assert len(told) == 1 and "--tool-call-parser" in told[0]  # once a session
    (asked,) = [t for t in text_blocks(rig.server.requests[1].body) if "back as text" in t]
    assert '{"name": "read", "arguments": {"path": "notes.txt"}}' in asked
    rig.assert_valid()


@pytest.mark.parametrize("mode", MODES)
async def test_a_third_identical_call_after_two_equal_results_is_not_run(
    make: Make, mode: str
) -> None:
    """A model that lost its way read the same file round after round until max_turns
    (100 in the TUI): the third identical call is refused, and it is told why."""
    wire = "openai-chat"
    rig = await make(wire, mode)
    rig.answer(
        reply(wire, read_notes("c1")),
        reply(wire, read_notes("c2")),
        reply(wire, read_notes("c3")),
        done(wire, "It says alpha beta gamma."),
    )
    ended = await rig.turn("read notes")
    assert ended.reason == "done", ended.message
    assert result_kinds(rig.watch) == {"c1": "ok", "c2": "ok", "c3": "not_executed"}
    told = history_text(rig.server.requests[3])
    assert "not run: the same call (read" in told and "ran 2 times in a row" in told
    # the person asking again is theirs to ask: a new message starts the count again
    rig.answer(reply(wire, read_notes("c4")), done(wire))
    await rig.turn("read it again")
    assert result_kinds(rig.watch)["c4"] == "ok"
    rig.assert_valid()


@pytest.mark.parametrize("mode", MODES)
async def test_a_model_calling_a_refused_repeat_again_has_its_turn_stopped(
    make: Make, mode: str
) -> None:
    """Told its call returns the same result each time, a model called it again, round
    after round, each a paid request, until the person pressed Esc (pi, opencode, vibe):
    the second refusal in a row ends the turn, saying why, for the person to steer."""
    wire = "openai-chat"
    rig = await make(wire, mode)
    rig.answer(*(reply(wire, read_notes(f"c{n}")) for n in range(1, 5)))
    ended = await rig.turn("read notes")
    assert ended.reason == "repeating", ended.message
    assert "kept calling read" in ended.message and "steer" in ended.message
    assert len(rig.server.requests) == 4  # two runs, two refusals
    kinds = result_kinds(rig.watch)
    assert kinds == {"c1": "ok", "c2": "ok", "c3": "not_executed", "c4": "not_executed"}
    rig.answer(reply(wire, read_notes("c9")), done(wire))
    assert (await rig.turn("read it once more")).reason == "done"  # the person steered
    assert result_kinds(rig.watch)["c9"] == "ok"
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_the_same_call_twice_in_one_reply_runs_once_on_every_wire(
    make: Make, wire: str
) -> None:
    """A server that streamed one call twice under two ids (LocalAI, a Qwen parser):
    the copy is not run, and the history each API gets back pairs both calls."""
    rig = await make(wire, "native-inc")
    rig.answer(reply(wire, read_notes("c1"), read_notes("c2")), done(wire))
    ended = await rig.turn("read notes")
    assert ended.reason == "done", ended.message
    assert result_kinds(rig.watch) == {"c1": "ok", "c2": "not_executed"}
    told = history_text(rig.server.requests[1])
    assert "the same call as c1 earlier in this response" in told
    rig.assert_valid()


def repair_in(rig: Rig) -> str:
    """The repair text the second request carries (every wire's JSON, decoded)."""
    found = [t for t in text_blocks(rig.server.requests[1].body) if "error truncated" in t]
    assert len(found) == 1, found
    return found[0]


def repair_of(rig: Rig) -> str:
    """:func:`repair_in`, after checking that the inspector (``check --explain``) derives
    the same text from the stored response as the one the loop sent and stored."""
    found = [repair_in(rig)]
    told = [e for e in explain_session(f"{rig.session.session_id}#0") if not e.server]
    assert told and all(e.feedback == found[0] and e.recorded_matches for e in told)
    return found[0]


def text_blocks(body: Any) -> list[str]:
    """Every string in a request body."""
    if isinstance(body, str):
        return [body]
    if isinstance(body, dict):
        return [t for v in body.values() for t in text_blocks(v)]
    if isinstance(body, list):
        return [t for v in body for t in text_blocks(v)]
    return []


@pytest.mark.parametrize("mode", [*MODES, "ctl-heredoc"])
@pytest.mark.parametrize("wire", WIRES)
async def test_a_reply_cut_with_no_call_open_is_said_stored_and_explained(
    make: Make, wire: str, mode: str
) -> None:
    """A reply cut by the token limit before any call: the loop asked the model to go
    on, but nothing said where the reply was cut — the export ran the cut reply and the
    next together as one paragraph, and ``check --explain`` found nothing to explain.
    The cut is an error of its own after the reply's prose, live, stored, in the
    export, in ``check --explain`` (the same feedback the model got) and in replay."""
    rig = await make(wire, mode, prefill="off")  # (Claude would continue a text protocol)
    cut = "The plan: first read the notes, then"
    rig.answer(reply(wire, Text(cut), end="length"), done(wire, "Then write the summary."))
    ended = await rig.turn("plan it")
    assert ended.reason == "done", ended.message
    said = "the response ended with finish_reason=length"
    (error,) = rig.watch.of(ContractError)
    assert (error.kind, error.message, error.offset) == ("truncated", said, len(cut))
    order = [e for e in rig.watch.events if isinstance(e, AssistantText | ContractError)]
    assert isinstance(order[0], AssistantText) and order[1] is error  # after its prose
    (repair,) = rig.watch.of(RepairRequested)  # nothing to resend: asked to go on
    assert (repair.kind, repair.resend) == ("truncated", False)
    assert repair_line(repair.kind, repair.attempt, repair.resend) == (
        "↺ repair 1: the model was sent the truncated error and asked to go on from where "
        "it stopped"
    )
    text = repair_of(rig)  # check --explain tells the model's feedback as the loop sent it
    assert text.startswith(f"error truncated: your response was cut off at byte {len(cut)} by")
    (explained,) = [e for e in explain_session(rig.session.session_id) if not e.server]
    assert explained.site.message == said and explained.site.call is None
    assert explained.attempt is not None and explained.attempt.succeeded
    assert explained.attempt.summary.startswith("went on:")
    records = [json.loads(line) for line in (await rig.session.export("jsonl")).splitlines()]
    kinds = [r["type"] for r in records if r["type"] in ("assistant", "error")]
    assert kinds == ["assistant", "error", "assistant"]  # not one run-together paragraph
    (name, rec), *_ = load_sources(rig.session.session_id)
    player = ReplayPlayer(source_from_recording(rec, name=name))
    assert player.error_offsets == [len(cut)]
    (replayed,) = [e for e in player.run_all() if isinstance(e, ContractError)]
    assert (replayed.kind, replayed.message, replayed.offset) == ("truncated", said, len(cut))
    await rig.resume()  # a resumed Transcript says it too
    again = [e for e in rig.session.history_events() if isinstance(e, ContractError)]
    assert [(e.kind, e.message) for e in again] == [("truncated", said)]


@pytest.mark.parametrize("wire", WIRES)
async def test_native_inc_a_call_that_ran_and_one_held_at_the_cut(make: Make, wire: str) -> None:
    """native-inc: call_1 ran; call_2's arguments had all arrived but the wire never
    proved it complete before the token limit (Chat: no later call, Responses: an
    ``incomplete`` item, Anthropic: no ``content_block_stop``). The repair says call_1
    ran (its result is in the same message) and quotes call_2 to resend unchanged."""
    rig = await make(wire, "native-inc")
    first = read_notes("call_1")
    held = Call("call_2", "shell", args(command="touch BAD"), cut=True)
    rig.answer(reply(wire, first, held, end="length"), done(wire))
    ended = await rig.turn("read and touch")
    assert ended.reason == "done", ended.message
    assert result_kinds(rig.watch) == {"call_1": "ok", "call_2": "truncated"}
    assert not (rig.root / "BAD").exists()
    text = repair_of(rig)
    assert "none of its calls" not in text.lower()
    assert "call_1 (read) was complete and ran: its result is above." in text
    assert "call_2 (shell) was complete but did not run" in text
    proof = "the API marked it complete" if wire in NEW_WIRES else "the next call's arguments"
    assert proof in text
    assert 'Resend it unchanged, as you wrote it:\n- shell {"command": "touch BAD"}\n' in text
    assert "cut off before its arguments" not in text
    history = history_text(rig.server.requests[1])
    assert NOTES.strip() in history  # call_1's result went back with the repair
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_native_eos_quotes_the_complete_calls_it_held_back(make: Make, wire: str) -> None:
    """native-eos keeps only the prose of a cut response in the history: the repair
    quotes each complete call (name and arguments) so the model can resend it unchanged,
    and names the one that was cut mid-arguments."""
    rig = await make(wire, "native-eos")
    parts = (
        Text("Two reads."),
        read_notes("call_1"),
        Call("call_2", "read", args(path="other.txt")),
        Call("call_3", "read", args(path="third.txt")[:-6], cut=True),
    )
    rig.answer(reply(wire, *parts, end="length"), done(wire))
    ended = await rig.turn("read three")
    assert ended.reason == "done", ended.message
    assert not rig.watch.of(ToolStarted)
    text = repair_of(rig)
    assert text.startswith("error truncated: your response was cut off at byte ")
    assert "by the output token limit. None of its calls ran." in text
    assert "call_1 (read) and call_2 (read) were complete but did not run" in text
    assert "no call of a cut-off response runs" in text
    assert (
        "Resend them unchanged, as you wrote them:\n"
        '- read {"path": "notes.txt"}\n'
        '- read {"path": "other.txt"}\n'
    ) in text
    assert "call_3 (read) was cut off before its arguments were complete" in text
    history = history_text(rig.server.requests[1])
    assert "Two reads." in history
    assert "tool_use" not in history and 'function_call"' not in history  # no call kept
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_a_reply_that_used_every_token_asked_is_cut_whatever_the_server_said(
    make: Make, wire: str
) -> None:
    """llama.cpp's Responses endpoint says ``completed`` at ``max_output_tokens``: the
    cut reply was the turn's answer ("done"), and native-eos ran the calls of a cut
    response. Its usage, 30 of the 30 tokens asked, says it was cut — and the stored
    response says so too, so ``check`` and replay read the same cut."""
    rig = await make(wire, "native-eos", max_tokens=30)
    parts = (Text("Two reads."), read_notes("call_1"), Text("And then I will"))
    rig.answer(reply(wire, *parts, usage=(120, 30)), reply(wire, Text("Done."), usage=(120, 5)))
    ended = await rig.turn("read it")
    assert ended.reason == "done", ended.message
    assert not rig.watch.of(ToolStarted)  # no call of a cut-off response runs
    (error,) = rig.watch.of(ContractError)
    assert error.kind == "truncated" and "the output token limit, though the server said" in (
        error.message
    )
    assert "call_1 (read) was complete but did not run" in repair_of(rig)
    (name, rec), *_ = load_sources(rig.session.session_id)
    assert rec.finish_reason == "length" and not rec.clean
    player = ReplayPlayer(source_from_recording(rec, name=name))
    replayed = player.run_all()
    assert not [e for e in replayed if isinstance(e, CallReady)]
    assert [e.kind for e in replayed if isinstance(e, ContractError)] == ["truncated"]


@pytest.mark.parametrize(("used", "cut"), [(29, False), (34, True), (35, False), (5000, False)])
async def test_only_usage_at_the_tokens_asked_says_a_reply_was_cut(
    make: Make, used: int, cut: bool
) -> None:
    """Under the limit, the server's end stands; thousands over it, too (a reasoner whose
    ``max_tokens`` caps only its answer counts its reasoning in the usage)."""
    wire = "openai-responses"
    rig = await make(wire, "native-eos", max_tokens=30)
    rig.answer(
        reply(wire, read_notes("call_1"), usage=(120, used)),
        reply(wire, Text("Done."), usage=(120, 5)),
    )
    ended = await rig.turn("read it")
    assert ended.reason == "done", ended.message
    assert [e.call.id for e in rig.watch.of(ToolStarted)] == ([] if cut else ["call_1"])
    assert bool(rig.watch.of(ContractError)) == cut


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("wire", WIRES)
async def test_a_dropped_connection_cuts_the_call_that_was_streaming(
    make: Make, wire: str, mode: str
) -> None:
    """A disconnect is a truncation too: the call whose arguments were streaming never
    runs; native-inc keeps the one proven before it (Chat: by the next call's bytes)."""
    rig = await make(wire, mode)
    first = Call("call_w1", "write", args(path="a.txt", content="first"))
    second = Call("call_w2", "write", args(path="b.txt", content="second")[:-8], cut=True)
    rig.answer(reply(wire, first, second, end="drop"), done(wire))
    ended = await rig.turn("write a.txt and b.txt")
    assert ended.reason == "done", ended.message
    assert [e.finish_reason for e in rig.watch.of(ResponseEnded)] == ["disconnect", "stop"]
    assert not (rig.root / "b.txt").exists()
    kinds = result_kinds(rig.watch)
    assert kinds["call_w2"] == "truncated"
    assert kinds["call_w1"] == ("ok" if mode == "native-inc" else "truncated")
    assert (rig.root / "a.txt").exists() == (mode == "native-inc")
    text = repair_of(rig)
    assert text.startswith("error truncated") and "by a dropped connection" in text
    assert "call_w2 (write) was cut off before its arguments were complete" in text
    rig.assert_valid()


# --------------------------------------------------------------------------- 3. server errors


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("wire", WIRES)
async def test_an_error_event_mid_stream_ends_the_turn_and_history_still_alternates(
    make: Make, wire: str, mode: str
) -> None:
    """An error that does not pass (an invalid request) ends the turn; the reply it cut
    stays in the history, marked, and the key in its words reaches no sink."""
    rig = await make(wire, mode)
    message = f"Internal failure while sampling (request signed with {KEY})"
    rig.answer(
        reply(
            wire,
            Text("Reading the notes. "),
            read_notes(),
            error=message,
            error_type="invalid_request_error",
        ),
        done(wire, "Back again."),
    )
    ended = await rig.turn("read notes.txt")
    assert ended.reason == "provider_error"
    assert "Internal failure while sampling" in ended.message
    assert KEY not in ended.message and REDACTED in ended.message
    assert all(KEY not in repr(e) for e in rig.watch.events)
    # native-inc ran the call proven before the error (Responses, Anthropic); eos never
    ran = mode == "native-inc" and wire in NEW_WIRES
    assert result_kinds(rig.watch) == ({"call_r1": "ok"} if ran else {})

    ended = await rig.turn("try again")
    assert ended.reason == "done", ended.message
    again = rig.server.requests[1]
    said = history_text(again)
    assert "Reading the notes." in said and "[Reply failed:" in said
    assert "Internal failure while sampling" in said and KEY not in said
    assert merged(roles(again)) == ["user", "assistant", "user"]
    assert ("alpha beta gamma" in said) == ran
    # the store (its recorded raw events included) never holds the key either
    stored = b"".join(f.read_bytes() for f in data_dir().rglob("*") if f.is_file())
    assert b"Internal failure while sampling" in stored and KEY.encode() not in stored
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_a_passing_error_mid_reply_keeps_the_key_out_of_every_sink(
    make: Make, wire: str, at_once: None
) -> None:
    """The cut a passing error makes says the server's words (a retry line, the failure
    in the store): scrubbed like the end of a turn's are."""
    rig = await make(wire, "native-inc")
    message = f"Internal failure while sampling (request signed with {KEY})"
    rig.answer(reply(wire, Text("Reading the notes. "), error=message), done(wire, "Back."))
    ended = await rig.turn("read notes.txt")
    assert ended.reason == "done", ended.message
    (said,) = rig.watch.of(Retry)
    assert "Internal failure while sampling" in said.reason and REDACTED in said.reason
    assert all(KEY not in repr(e) for e in rig.watch.events)
    assert KEY not in history_text(rig.server.requests[1])
    stored = b"".join(f.read_bytes() for f in data_dir().rglob("*") if f.is_file())
    assert b"Internal failure while sampling" in stored and KEY.encode() not in stored
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_overloaded_before_the_stream_is_retried(make: Make, wire: str) -> None:
    rig = await make(wire, "native-eos")
    now = {"Retry-After": "0"}
    rig.answer(
        status(529, overloaded_body(wire), now),
        status(503, overloaded_body(wire), now),
        done(wire),
    )
    ended = await rig.turn("hello")
    assert ended.reason == "done", ended.message
    retries = rig.watch.of(Retry)
    assert [r.attempt for r in retries] == [1, 2]
    assert "529" in retries[0].reason and "503" in retries[1].reason
    bodies = [r.body for r in rig.server.requests]
    assert len(bodies) == 3 and bodies[0] == bodies[1] == bodies[2]
    rig.assert_valid()


@pytest.mark.parametrize(
    ("wire", "field", "refusal"),
    [
        (
            "openai-responses",
            "include",
            {
                "error": {
                    "message": "Encrypted content is not supported with this model.",
                    "type": "invalid_request_error",
                    "param": "include",
                }
            },
        ),
        (
            "openai-responses",
            "reasoning",
            {
                "error": {
                    "message": "Your organization must be verified to generate reasoning "
                    "summaries. Please go to: https://platform.openai.com/settings/"
                    "organization/general and click on Verify Organization.",
                    "type": "invalid_request_error",
                    "param": "reasoning.summary",
                    "code": "unsupported_value",
                }
            },
        ),
        (
            "anthropic-messages",
            "cache_control",
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "cache_control: Extra inputs are not permitted",
                },
            },
        ),
    ],
)
async def test_an_optional_field_the_server_refuses_is_dropped_and_the_turn_goes_on(
    make: Make, wire: str, field: str, refusal: Any
) -> None:
    """OpenAI refuses ``include: ["reasoning.encrypted_content"]`` for a model without
    reasoning (gpt-4o; an unknown name is asked); a strict proxy of the Messages API may
    refuse prompt caching. Asked again at once without it, and never again."""
    rig = await make(wire, "native-inc")
    rig.answer(status(400, refusal), done(wire))
    ended = await rig.turn("hello")
    assert ended.reason == "done", ended.message
    (retry,) = rig.watch.of(Retry)
    assert retry.delay == 0.0
    assert ended.reason == "done"
    assert (await rig.turn("again")).reason == "done"
    sent = [json.dumps(r.body) for r in rig.server.requests]
    assert [f'"{field}"' in body for body in sent] == [True, False, False]
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_reasoning_effort_is_asked_in_each_apis_words(make: Make, wire: str) -> None:
    """``--reasoning-effort high``: there was no way to ask a model to think harder (or
    a Claude model to think at all)."""
    rig = await make(wire, "native-inc", reasoning_effort="high", model="gpt-5")
    rig.answer(done(wire))
    assert (await rig.turn("hello")).reason == "done"
    body = rig.server.requests[0].body
    if wire == "openai-responses":
        assert body["reasoning"] == {"summary": "auto", "effort": "high"}
    elif wire == "openai-chat":
        assert body["reasoning_effort"] == "high"
    else:  # a model the catalogue does not know: adaptive, as every Claude since 4.6
        assert body["thinking"] == {"type": "adaptive"}
        assert body["output_config"] == {"effort": "high"}
    rig.assert_valid()


@pytest.mark.parametrize(
    ("model", "thinking", "config"),
    [
        ("claude-opus-4-7", {"type": "adaptive"}, {"effort": "high"}),
        ("claude-sonnet-4-6", {"type": "adaptive"}, {"effort": "high"}),
        ("claude-sonnet-4-5-20250929", {"type": "enabled", "budget_tokens": 16_000}, None),
        ("claude-3-haiku-20240307", None, None),  # no reasoning: never asked
    ],
)
async def test_each_claude_is_asked_to_think_its_own_way(
    make: Make, model: str, thinking: Any, config: Any
) -> None:
    """Opus 4.7 takes only adaptive thinking (``type: enabled`` is a 400): asked with a
    budget, then without thinking after the refusal, ``--reasoning-effort high`` got no
    thinking at all from the newest Claude."""
    wire = "anthropic-messages"
    rig = await make(wire, "native-inc", reasoning_effort="high", model=model)
    rig.answer(done(wire))
    assert (await rig.turn("hello")).reason == "done"
    body = rig.server.requests[0].body
    assert body.get("thinking") == thinking and body.get("output_config") == config
    rig.assert_valid()


@pytest.mark.parametrize(
    ("model", "refusal", "then"),
    [
        (
            "claude-next-1",  # unknown: adaptive first; an older model refuses it
            "thinking.type: Input tag 'adaptive' found using 'type' does not match any of "
            "the expected tags: 'disabled', 'enabled'",
            {"type": "enabled", "budget_tokens": 16_000},
        ),
        (
            "claude-sonnet-4-5",  # a budget where only adaptive is taken
            "thinking.type.enabled is not supported for this model. Use "
            "thinking.type.adaptive and output_config.effort",
            {"type": "adaptive"},
        ),
    ],
)
async def test_a_refused_way_of_thinking_is_asked_the_other_way_once(
    make: Make, model: str, refusal: str, then: Any
) -> None:
    wire = "anthropic-messages"
    rig = await make(wire, "native-inc", reasoning_effort="high", model=model)
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": refusal}}
    rig.answer(status(400, error), done(wire))
    assert (await rig.turn("hello")).reason == "done"
    assert (await rig.turn("again")).reason == "done"
    asked = [r.body.get("thinking") for r in rig.server.requests]
    assert asked[1:] == [then, then]  # retried the other way, and kept to it
    (retry,) = rig.watch.of(Retry)
    assert "retrying with" in retry.reason


async def test_effort_chosen_in_the_session_wins_from_the_next_request(make: Make) -> None:
    """``/effort high`` for a hard step, ``/effort auto`` back to the model's own: the
    setting (``--reasoning-effort low``) is what a request names no other."""
    wire = "openai-chat"
    rig = await make(wire, "native-inc", reasoning_effort="low")
    rig.answer(done(wire))
    assert rig.session.effort == "low"
    assert (await rig.turn("one")).reason == "done"
    rig.session.set_effort("high")
    assert (await rig.turn("two")).reason == "done"
    rig.session.set_effort("auto")
    assert (await rig.turn("three")).reason == "done"
    asked = [r.body.get("reasoning_effort") for r in rig.server.requests]
    assert asked == ["low", "high", None]
    with pytest.raises(ValueError, match="unknown reasoning effort 'max'"):
        rig.session.set_effort("max")


@pytest.mark.parametrize(
    ("wire", "field", "refusal"),
    [
        (
            "openai-chat",
            "reasoning_effort",
            {"error": {"message": "Unrecognized request argument supplied: reasoning_effort"}},
        ),
        (
            "anthropic-messages",
            "thinking",
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "thinking: Extra inputs are not permitted",
                },
            },
        ),
    ],
)
async def test_an_effort_the_server_refuses_is_dropped_once(
    make: Make, wire: str, field: str, refusal: Any
) -> None:
    rig = await make(wire, "native-inc", reasoning_effort="medium")
    rig.answer(status(400, refusal), done(wire))
    assert (await rig.turn("hello")).reason == "done"
    assert (await rig.turn("again")).reason == "done"
    sent = [f'"{field}"' in json.dumps(r.body) for r in rig.server.requests]
    assert sent == [True, False, False]
    (retry,) = rig.watch.of(Retry)
    assert field in retry.reason


def test_a_model_known_to_have_no_reasoning_is_never_asked_for_it() -> None:
    """``--provider openai --model gpt-4.1``: every request was refused."""
    from frontier.app.model.conversation import UserText
    from frontier.app.model.request import ModelRequest
    from frontier.app.model.wires.openai_responses import Codec as ResponsesCodec

    ask = ModelRequest("system", (UserText("hi"),))
    for model in ("gpt-4.1", "gpt-5-chat-latest"):
        body = ResponsesCodec().body(ask, model)
        assert "include" not in body and "reasoning" not in body
    body = ResponsesCodec().body(ask, "gpt-5")
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["reasoning"] == {"summary": "auto"}  # streamed, so a person sees it think


@pytest.mark.parametrize("code", ["server_error", "invalid_prompt"])
async def test_a_failed_response_is_a_server_error_like_an_error_event(
    make: Make, code: str, at_once: None
) -> None:
    """Responses' own failure end (``response.failed``) is a server error, like ``error``:
    one that may pass cuts the reply and the model goes on; another ends the turn."""
    wire = "openai-responses"
    rig = await make(wire, "native-inc")
    failed = {
        "type": "response.failed",
        "response": {
            "id": "resp_1",
            "object": "response",
            "status": "failed",
            "error": {"code": code, "message": f"The model crashed ({KEY})"},
            "output": [],
        },
    }
    body = [*script(wire, [Text("Half a sen")])[:-1], sse_event("response.failed", failed)]
    rig.answer(stream(body), done(wire))
    ended = await rig.turn("hello")
    if code == "server_error":
        assert ended.reason == "done", ended.message
        said = history_text(rig.server.requests[1])
        assert "Half a sen" in said and "error truncated" in said and KEY not in said
        rig.assert_valid()
        return
    assert ended.reason == "provider_error"
    assert "The model crashed" in ended.message and KEY not in ended.message
    ended = await rig.turn("again")
    assert ended.reason == "done", ended.message
    said = history_text(rig.server.requests[1])
    assert "Half a sen" in said and "[Reply failed: The model crashed" in said
    assert merged(roles(rig.server.requests[1])) == ["user", "assistant", "user"]
    rig.assert_valid()


# --------------------------------------------------------------------------- 4. overflow


BIG = "".join(f"line {i}: " + "lorem ipsum dolor sit amet " * 8 + "\n" for i in range(60))


async def seed_long_history(rig: Rig) -> None:
    """One turn of four big reads: rounds enough that compaction has results to stub (each
    with another ``limit``: the same call a third time would not run)."""
    (rig.root / "big.txt").write_text(BIG)
    wire = rig.wire
    rig.answer(
        *(
            reply(wire, Call(f"call_b{i}", "read", args(path="big.txt", limit=4000 + i)))
            for i in range(4)
        ),
        done(wire, "Read it four times."),
    )
    ended = await rig.turn("read big.txt four times")
    assert ended.reason == "done", ended.message
    assert len(rig.server.requests) == 5


@pytest.mark.parametrize("wire", WIRES)
async def test_an_overflow_400_compacts_and_retries_once(make: Make, wire: str) -> None:
    rig = await make(wire)
    await seed_long_history(rig)
    rig.answer(status(400, overflow_body(wire)), done(wire, "Summarised."))
    ended = await rig.turn("now summarise it")
    assert ended.reason == "done", ended.message
    refused, retried = rig.server.requests[5:]
    assert len(rig.server.requests) == 7
    (step,) = rig.watch.of(Compacted)
    assert step.reason == "overflow" and step.step == "stub"
    assert not rig.watch.of(Summarising)
    assert len(retried.text) < len(refused.text) - 2 * len(BIG)
    assert "elided to save context" in history_text(retried)
    assert "now summarise it" in history_text(retried)
    if wire == "anthropic-messages":  # the server's numbers: the window is learned
        assert rig.session.context_window == 200_000
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_a_second_overflow_ends_the_turn_with_the_servers_words(
    make: Make, wire: str
) -> None:
    rig = await make(wire)
    await seed_long_history(rig)
    rig.answer(status(400, overflow_body(wire)))
    ended = await rig.turn("now summarise it")
    assert ended.reason == "provider_error"
    assert "HTTP 400" in ended.message
    assert len(rig.server.requests) == 7  # compacted and retried once, never more
    rig.assert_valid()


@pytest.fixture
def at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """No wait before a response is asked again (the waits are the loop's to choose)."""
    monkeypatch.setattr(loop_module, "ASKED_AGAIN", (0.0, 0.0, 0.0))


@pytest.mark.parametrize("wire", WIRES)
async def test_an_overload_reported_in_the_stream_before_any_reply_is_asked_again(
    make: Make, wire: str, at_once: None
) -> None:
    """Anthropic's ``overloaded_error`` after ``message_start`` (a gateway's
    ``server_error`` event): the turn ended ``provider_error`` and the person sent the
    message again; as a 529 status it was always retried."""
    rig = await make(wire)
    rig.answer(reply(wire, error="Overloaded"), done(wire, "Hello."))
    ended = await rig.turn("hi")
    assert ended.reason == "done", ended.message
    assert len(rig.server.requests) == 2
    (again,) = rig.watch.of(Retry)
    assert "before any of it (Overloaded" in again.reason and again.limit == 3
    assert [e.text for e in rig.watch.of(AssistantText)] == ["Hello."]
    rig.assert_valid()


@pytest.mark.parametrize("said", ["refusal", "overloads"])
async def test_a_lasting_error_ends_the_turn(make: Make, said: str, at_once: None) -> None:
    """An error no new request mends, after the reply began, ends the turn with the reply
    kept, cut; an overload that lasts ends it after three more requests."""
    wire = "anthropic-messages"
    rig = await make(wire)
    if said == "refusal":
        refusal = "Output blocked by content filtering"
        rig.answer(reply(wire, Text("Let me"), error=refusal, error_type="invalid_request_error"))
    else:
        rig.answer(reply(wire, error="Overloaded"))
    ended = await rig.turn("hi")
    assert ended.reason == "provider_error"
    assert ("content filtering" if said == "refusal" else "Overloaded") in ended.message
    assert len(rig.server.requests) == (1 if said == "refusal" else 4)
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("mode", MODES)
async def test_an_overload_after_the_reply_began_cuts_it_and_the_turn_goes_on(
    make: Make, wire: str, mode: str, at_once: None
) -> None:
    """An overload the server reported mid-reply ended the turn (``provider_error``): an
    autonomous run stopped until the person typed "go on". It now cuts the reply as a
    dropped connection does: what was said is kept, a call it had finished ran
    (native-inc) or is quoted to resend (native-eos), and the model is asked to go on."""
    rig = await make(wire, mode)
    first = read_notes("call_1")
    rig.answer(
        reply(wire, Text("Let me read it."), first, error="Overloaded"),
        done(wire, "Read it."),
    )
    ended = await rig.turn("read notes")
    assert ended.reason == "done", ended.message
    assert len(rig.server.requests) == 2
    assert [r.kind for r in rig.watch.of(RepairRequested)] == ["truncated"]
    (said,) = rig.watch.of(Retry)  # the person is told what cut it
    assert "with an error (" in said.reason and "Overloaded" in said.reason
    held = mode == "native-eos" or wire not in NEW_WIRES
    # (``check --explain`` explains a cut with a call open or held; one that ran is not a
    # contract error of the stream, and it says nothing of it)
    text = repair_of(rig) if held else repair_in(rig)
    assert "cut off at byte" in text and "an error the server reported" in text
    history = history_text(rig.server.requests[1])
    assert "Let me read it." in history
    if not held:  # its wire proved it complete: it ran
        assert result_kinds(rig.watch) == {"call_1": "ok"}
        assert NOTES.strip() in history
    else:  # native-eos, or Chat, where nothing proved it before the error
        assert result_kinds(rig.watch) == {"call_1": "truncated"}
        assert "Resend it unchanged" in text
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_an_overflow_reported_in_the_stream_compacts_and_retries(
    make: Make, wire: str
) -> None:
    """The same refusal as an ``error`` event inside a 200 stream."""
    rig = await make(wire)
    await seed_long_history(rig)
    body = overflow_body(wire)["error"]
    rig.answer(reply(wire, error=body["message"]), done(wire, "Summarised."))
    ended = await rig.turn("now summarise it")
    assert ended.reason == "done", ended.message
    assert len(rig.server.requests) == 7
    (step,) = rig.watch.of(Compacted)
    assert step.reason == "overflow"
    assert "elided to save context" in history_text(rig.server.requests[6])
    rig.assert_valid()


# --------------------------------------------------------------------------- 5. reasoning


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("wire", WIRES)
async def test_reasoning_is_shown_never_transduced_and_sent_back_as_the_api_wants(
    make: Make, wire: str, mode: str
) -> None:
    rig = await make(wire, mode)
    thought = "The user wants notes.txt; reading it first."
    secret = "EncryptedBlob-or-Signature-42=="
    rig.answer(
        reply(wire, Think(thought, secret), read_notes()),
        done(wire, "It says alpha beta gamma."),
    )
    ended = await rig.turn("what is in notes.txt?")
    assert ended.reason == "done", ended.message
    w = rig.watch
    assert "".join(e.text for e in w.of(ReasoningText)) == thought
    assert b"reading it first" not in w.streamed()
    assert all("reading it first" not in e.text for e in w.of(AssistantText))
    assert result_kinds(w) == {"call_r1": "ok"}
    after = rig.server.requests[1].body
    if wire == "anthropic-messages":
        (assistant,) = [m for m in after["messages"] if m["role"] == "assistant"]
        kinds = [b["type"] for b in assistant["content"]]
        assert kinds == ["thinking", "tool_use"]
        assert assistant["content"][0] == {
            "type": "thinking",
            "thinking": thought,
            "signature": secret,
        }
    elif wire == "openai-responses":
        assert after["store"] is False and after["include"] == ["reasoning.encrypted_content"]
        assert after["reasoning"] == {"summary": "auto"}
        kinds = [i.get("type", "message") for i in after["input"]]
        assert kinds == ["message", "reasoning", "function_call", "function_call_output"]
        sent = after["input"][1]
        assert sent == {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": thought}],
            "encrypted_content": secret,
        }
    else:  # Chat: on the message with the calls it led to, as DeepSeek's thinking mode wants
        (assistant,) = [m for m in after["messages"] if m["role"] == "assistant"]
        assert assistant["reasoning_content"] == thought
        assert assistant["content"] == ""  # DeepSeek refuses null beside reasoning_content
    rig.assert_valid()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("wire", WIRES)
async def test_reasoning_is_there_again_on_a_resume_and_in_the_export(
    make: Make, wire: str, mode: str
) -> None:
    """The live Transcript showed the model's thinking; a resumed one and the export
    showed the reply and the call without it (it was only in the raw stream events)."""
    rig = await make(wire, mode)
    rig.answer(
        reply(wire, Think("Reading notes first."), Text("Let me look."), read_notes()),
        reply(wire, Think("It is short."), Text("It says alpha beta gamma.")),
    )
    assert (await rig.turn("what is in notes.txt?")).reason == "done"
    await rig.resume()
    told = [
        (type(e).__name__, getattr(e, "text", "") or getattr(getattr(e, "call", None), "id", ""))
        for e in rig.session.history_events()
        if isinstance(e, ReasoningText | AssistantText | CallReady)
    ]
    assert told == [
        ("ReasoningText", "Reading notes first."),
        ("AssistantText", "Let me look."),
        ("CallReady", "call_r1"),
        ("ReasoningText", "It is short."),
        ("AssistantText", "It says alpha beta gamma."),
    ]
    records = [json.loads(line) for line in (await rig.session.export("jsonl")).splitlines()]
    assert [(r["type"], r.get("text")) for r in records if r["type"] != "result"][1:3] == [
        ("reasoning", "Reading notes first."),
        ("assistant", "Let me look."),
    ]
    markdown = await rig.session.export("markdown")
    assert "> _thinking_\n>\n> Reading notes first.\n\n## Assistant\n\nLet me look." in markdown


# --------------------------------------------------------------------------- 5b. chat reasoning


def assistants(seen: Seen) -> list[dict[str, Any]]:
    return [m for m in seen.body["messages"] if m["role"] == "assistant"]


@pytest.mark.parametrize("mode", MODES)
async def test_deepseek_thinking_gets_the_reasoning_of_each_call_back(
    make: Make, mode: str
) -> None:
    """DeepSeek V4 and Kimi think by default and refuse every request after a tool call
    whose reasoning is not sent back ("Missing `reasoning_content` field"): each round's
    reasoning goes back on its own message, an empty one (DeepSeek opens a reply that
    has none with ``"reasoning_content": ""``) as empty, and nothing is refused."""
    wire = "openai-chat"
    rig = await make(wire, mode, thinking=True)
    rig.answer(
        reply(wire, Think("Reading notes first."), read_notes("call_r1")),
        reply(wire, Think(""), read_notes("call_r2")),
        done(wire, "It says alpha beta gamma."),
    )
    ended = await rig.turn("what is in notes.txt?")
    assert ended.reason == "done", ended.message
    assert rig.server.refused == [] and rig.watch.of(Retry) == []
    assert result_kinds(rig.watch) == {"call_r1": "ok", "call_r2": "ok"}
    sent = [(m["reasoning_content"], m["content"]) for m in assistants(rig.server.requests[2])]
    assert sent == [("Reading notes first.", ""), ("", "")]
    rig.assert_valid()


async def test_reasoning_of_a_reply_without_calls_is_not_sent_back(make: Make) -> None:
    """No API wants it (DeepSeek ignores it): it would only fill the next requests."""
    wire = "openai-chat"
    rig = await make(wire, "native-inc", thinking=True)
    rig.answer(reply(wire, Think("Musing about greetings."), Text("Hello!")), done(wire))
    assert (await rig.turn("hi")).reason == "done"
    assert (await rig.turn("again")).reason == "done"
    (assistant,) = assistants(rig.server.requests[1])
    assert assistant == {"role": "assistant", "content": "Hello!"}
    assert "Musing" not in json.dumps(rig.server.requests[1].body)


async def test_a_history_without_the_reasoning_deepseek_wants_is_sent_it_empty(
    make: Make,
) -> None:
    """A session whose calls were made where no reasoning was kept (another wire or
    model before a switch, a session stored before this) and then continued on DeepSeek:
    its first refusal is retried at once with the field empty there, and the session goes
    on; never refused again."""
    wire = "openai-chat"
    rig = await make(wire, "native-inc")
    rig.answer(reply(wire, read_notes("call_r1")), done(wire))
    assert (await rig.turn("read notes")).reason == "done"
    rig.server.thinking = True
    rig.answer(reply(wire, Think("Again."), read_notes("call_r2")), done(wire))
    ended = await rig.turn("once more")
    assert ended.reason == "done", ended.message
    (retry,) = rig.watch.of(Retry)
    assert retry.delay == 0.0 and "reasoning of earlier tool calls" in retry.reason
    assert (
        len(rig.server.refused) == 1 and "Missing `reasoning_content`" in rig.server.refused[0][0]
    )
    last = assistants(rig.server.requests[-1])
    assert [m.get("reasoning_content") for m in last] == ["", None, "Again."]
    rig.assert_valid()


async def test_gemini_gets_each_calls_thought_signature_back_on_it(make: Make) -> None:
    """Gemini 3 over its OpenAI endpoint signs each call (``extra_content.google
    .thought_signature``) and refuses the next request if a call comes back without its
    own; a history that lacks them (calls made on another model) gets Google's stand-in
    after the first refusal, once."""
    wire = "openai-chat"
    rig = await make(wire, "native-inc", signed=True)
    first = Call("call_a", "read", args(path="notes.txt"), signature="Cq0BAXLI2nx-sig-A==")
    second = Call("call_b", "read", args(path="notes.txt"), signature="Cq0BAXLI2nx-sig-B==")
    rig.answer(reply(wire, first, second), done(wire))
    ended = await rig.turn("read notes twice")
    assert ended.reason == "done", ended.message
    assert rig.server.refused == [] and rig.watch.of(Retry) == []
    (assistant,) = assistants(rig.server.requests[1])
    signatures = [
        c["extra_content"]["google"]["thought_signature"] for c in assistant["tool_calls"]
    ]
    assert signatures == ["Cq0BAXLI2nx-sig-A==", "Cq0BAXLI2nx-sig-B=="]
    rig.assert_valid()


async def test_openrouter_gets_each_calls_reasoning_details_back(make: Make) -> None:
    """Through OpenRouter, Gemini 3's signatures come as ``reasoning_details`` items
    ("Gemini models require OpenRouter reasoning details to be preserved in each
    request"): the details, their text pieces joined, go back on the message with the
    calls, in place of the plain ``reasoning`` text."""
    wire = "openai-chat"
    rig = await make(wire, "native-inc", signed=True)
    call = Call("call_a", "read", args(path="notes.txt"), signature="EnQKcgG-sig==", routed=True)
    rig.answer(reply(wire, call), done(wire))
    ended = await rig.turn("read notes")
    assert ended.reason == "done", ended.message
    assert rig.server.refused == [] and rig.watch.of(Retry) == []
    (assistant,) = assistants(rig.server.requests[1])
    kinds = [(d["type"], d.get("text") or d.get("data")) for d in assistant["reasoning_details"]]
    assert kinds == [("reasoning.text", "Plan it."), ("reasoning.encrypted", "EnQKcgG-sig==")]
    assert "reasoning" not in assistant
    rig.assert_valid()


async def test_calls_without_a_signature_get_googles_stand_in_after_one_refusal(
    make: Make,
) -> None:
    wire = "openai-chat"
    rig = await make(wire, "native-inc")
    rig.answer(reply(wire, read_notes("call_r1")), done(wire))
    assert (await rig.turn("read notes")).reason == "done"
    rig.server.signed = True  # the session goes on with Gemini 3 (/model)
    rig.answer(
        reply(wire, Call("call_r2", "read", args(path="notes.txt"), signature="S2")), done(wire)
    )
    ended = await rig.turn("again")
    assert ended.reason == "done", ended.message
    (retry,) = rig.watch.of(Retry)
    assert "thought signatures" in retry.reason and len(rig.server.refused) == 1
    calls = [c for m in assistants(rig.server.requests[-1]) for c in m.get("tool_calls", [])]
    assert [c["extra_content"]["google"]["thought_signature"] for c in calls] == [
        "skip_thought_signature_validator",
        "S2",
    ]
    rig.assert_valid()


GROQ_REFUSAL = {
    "message": "Failed to call a function. Please adjust your prompt. See "
    "'failed_generation' for more details.",
    "type": "invalid_request_error",
    "code": "tool_use_failed",
    "failed_generation": '<function=read>{"path": "notes.txt"</function>',
}
"""Groq's answer when the model wrote a call its parser cannot read."""


@pytest.mark.parametrize("where", ["http", "stream"])
async def test_a_call_the_server_could_not_read_is_repaired_not_the_end_of_the_turn(
    make: Make, where: str
) -> None:
    """Groq parses the model's calls itself and, when it cannot, refuses the reply
    (``tool_use_failed``, as an HTTP 400 or an error event in the stream) with the
    model's words in ``failed_generation``. That is the model's framing error: it is
    asked to write the call again, quoting what it wrote, as for any broken call; the
    turn went on to run the call and finish (it ended "provider_error" before)."""
    wire = "openai-chat"
    rig = await make(wire, "native-inc")
    if where == "http":
        refusal = status(400, {"error": GROQ_REFUSAL})
    else:
        refusal = stream([sse_data({"error": GROQ_REFUSAL})])
    rig.answer(refusal, reply(wire, read_notes()), done(wire))
    ended = await rig.turn("what is in notes.txt?")
    assert ended.reason == "done", ended.message
    (repair,) = rig.watch.of(RepairRequested)
    assert repair.kind == "bad_call" and '<function=read>{"path": "notes.txt"' in repair.message
    assert result_kinds(rig.watch) == {"call_r1": "ok"}
    asked = rig.server.requests[1].body["messages"]
    assert asked[-1]["role"] == "user" and "refused the whole reply" in asked[-1]["content"]
    assert '<function=read>{"path": "notes.txt"' in asked[-1]["content"]
    rig.assert_valid()


async def test_mistral_gets_call_ids_of_its_own_shape_after_one_refusal(make: Make) -> None:
    """Mistral (its API, and its chat templates on vLLM, llama.cpp, MLX) refuses a call id
    that is not 9 letters and digits: a session that made calls elsewhere, or on a
    server that names them ``call_0``, failed every later request. The ids are sent in
    Mistral's shape, each call still paired with its result."""
    wire = "openai-chat"
    rig = await make(wire, "native-inc")
    rig.answer(reply(wire, read_notes("call_r1")), done(wire))
    assert (await rig.turn("read notes")).reason == "done"
    rig.server.mistral = True  # /model mistral-large-latest
    rig.answer(reply(wire, read_notes("a1B2c3D4e")), done(wire))
    ended = await rig.turn("again")
    assert ended.reason == "done", ended.message
    (retry,) = rig.watch.of(Retry)
    assert "9 letters and digits" in retry.reason and len(rig.server.refused) == 1
    last = rig.server.requests[-1].body["messages"]
    ids = [c["id"] for m in last for c in m.get("tool_calls") or []]
    assert len(ids) == 2 and ids[1] == "a1B2c3D4e" and ids[0] != "call_r1"
    assert [m["tool_call_id"] for m in last if m["role"] == "tool"] == ids
    assert result_kinds(rig.watch) == {"call_r1": "ok", "a1B2c3D4e": "ok"}
    rig.assert_valid()


async def test_a_server_refusing_reasoning_in_the_history_is_asked_again_without_it(
    make: Make,
) -> None:
    """A strict server that knows no such field (``Additional properties are not
    allowed``): asked again at once without it, and never sent it again."""
    wire = "openai-chat"
    rig = await make(wire, "native-inc")
    strict = {"error": {"message": "Additional properties are not allowed "
                        "('reasoning_content' was unexpected) - 'messages.2'"}}  # fmt: skip
    rig.answer(
        reply(wire, Think("Reading."), read_notes("call_r1")), status(400, strict), done(wire)
    )
    ended = await rig.turn("read notes")
    assert ended.reason == "done", ended.message
    (retry,) = rig.watch.of(Retry)
    assert "refused reasoning" in retry.reason
    assert (await rig.turn("again")).reason == "done"
    sent = ['"reasoning_content"' in json.dumps(r.body) for r in rig.server.requests]
    assert sent == [False, True, False, False]
    rig.assert_valid()


@pytest.mark.parametrize("wire", NEW_WIRES)
async def test_a_tool_the_provider_runs_is_shown_never_run(make: Make, wire: str) -> None:
    rig = await make(wire, "native-inc")
    rig.answer(reply(wire, Hosted("srvtoolu_01", "frontier agent"), Text("Found it.")))
    ended = await rig.turn("search the web")
    assert ended.reason == "done", ended.message
    (shown,) = rig.watch.of(ServerTool)
    assert shown.name in ("web_search", "web_search_call") and shown.id == "srvtoolu_01"
    assert not rig.watch.of(ToolStarted) and not rig.watch.of(ToolFinished)
    assert len(rig.server.requests) == 1
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_the_text_protocol_runs_over_every_wires_text(make: Make, wire: str) -> None:
    """ctl-heredoc reads the calls from the text any wire streams; no tools are offered
    and the results go back as result frames in a user message."""
    rig = await make(wire, "ctl-heredoc")
    call = "call c1 write\narg path out.txt\narg content <<EOF\nhello\nEOF\nend\n"
    rig.answer(reply(wire, Text("Writing it.\n" + call)), done(wire))
    ended = await rig.turn("write out.txt")
    assert ended.reason == "done", ended.message
    assert (rig.root / "out.txt").read_text() == "hello\n"
    first, second = rig.server.requests
    assert "tools" not in first.body
    assert "result c1 exit=0" in history_text(second)
    assert merged(roles(second)) == ["user", "assistant", "user"]
    rig.assert_valid()


# --------------------------------------------------------------------------- 6. alternation


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("wire", WIRES)
async def test_after_an_interrupted_reply_the_next_message_is_accepted(
    make: Make, wire: str, mode: str
) -> None:
    rig = await make(wire, mode, strict=True)
    gate = asyncio.Event()
    rig.answer(
        reply(wire, Text("First words of a long answer. "), gate, Text("never sent")),
        done(wire, "Sure."),
    )
    task = rig.begin("explain everything")
    try:
        await rig.watch.until(rig.watch.has_streamed(b"First"), "the first text delta")
        rig.session.cancel_turn()
        ended = await bounded(task, "the interrupted turn to end")
    finally:
        gate.set()
    assert ended.reason == "cancelled"
    ended = await rig.turn("something shorter, please")
    assert ended.reason == "done", ended.message
    assert rig.server.refused == []
    again = rig.server.requests[1]
    said = history_text(again)
    assert "First words of a long answer." in said and INTERRUPTED in said
    assert "never sent" not in said
    assert merged(roles(again)) == ["user", "assistant", "user"]
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_after_a_reply_interrupted_before_its_first_word_the_next_is_accepted(
    make: Make, wire: str
) -> None:
    rig = await make(wire, "native-eos", strict=True)
    gate = asyncio.Event()
    rig.answer(reply(wire, gate, Text("never sent")), done(wire, "Sure."))
    task = rig.begin("explain everything")
    try:
        await bounded(rig.server.held.wait(), "the server to hold the reply")
        rig.session.cancel_turn()
        ended = await bounded(task, "the interrupted turn to end")
    finally:
        gate.set()
    assert ended.reason == "cancelled"
    ended = await rig.turn("something shorter, please")
    assert ended.reason == "done", ended.message
    assert rig.server.refused == []
    said = history_text(rig.server.requests[1])
    assert INTERRUPTED in said and "never sent" not in said
    assert merged(roles(rig.server.requests[1])) == ["user", "assistant", "user"]
    rig.assert_valid()


async def interrupt_a_running_call(rig: Rig) -> TurnEnded:
    """native-inc: the wire proves a ``sleep 30`` call, it starts while the reply still
    streams, and the person presses Esc."""
    gate = asyncio.Event()
    running = Call("call_s1", "shell", args(command="sleep 30"))
    rig.answer(reply(rig.wire, running, Text("Waiting for it. "), gate, Text("never")))
    task = rig.begin("run it")
    try:
        await rig.watch.until(lambda e: isinstance(e, ToolStarted), "the call to start")
        rig.session.cancel_turn()
        return await bounded(task, "the interrupted turn to end")
    finally:
        gate.set()


@pytest.mark.parametrize("wire", NEW_WIRES)
async def test_interrupting_a_call_that_runs_while_the_reply_streams_keeps_it_paired(
    make: Make, wire: str
) -> None:
    """Esc while a call the wire proved runs and the reply still streams: the call keeps
    its entry with a result, and the next message is accepted."""
    rig = await make(wire, "native-inc", strict=True)
    ended = await interrupt_a_running_call(rig)
    assert ended.reason == "cancelled"
    rig.answer(done(wire))
    ended = await rig.turn("never mind")
    assert ended.reason == "done", ended.message
    assert rig.server.refused == []
    said = history_text(rig.server.requests[1])
    assert "call_s1" in said and INTERRUPTED in said and "never mind" in said
    rig.assert_valid()


@pytest.mark.parametrize("wire", NEW_WIRES)
async def test_an_interrupted_running_call_is_recorded_as_cancelled(make: Make, wire: str) -> None:
    rig = await make(wire, "native-inc")
    assert (await interrupt_a_running_call(rig)).reason == "cancelled"
    # the front ends hear how the call they saw start ended; the store keeps its result
    assert result_kinds(rig.watch) == {"call_s1": "cancelled"}
    (call,) = rig.session._store.calls(rig.session.session_id)  # type: ignore[union-attr]
    assert call.result is not None
    rig.answer(done(wire))
    assert (await rig.turn("never mind")).reason == "done"
    assert "not run" not in history_text(rig.server.requests[1])


@pytest.mark.parametrize("wire", NEW_WIRES)
async def test_resuming_after_an_interrupted_running_call_sends_each_call_once(
    make: Make, wire: str
) -> None:
    rig = await make(wire, "native-inc", strict=True)
    assert (await interrupt_a_running_call(rig)).reason == "cancelled"
    await rig.resume()
    rig.answer(done(wire))
    ended = await rig.turn("never mind")
    last = rig.server.requests[-1]
    named = [i["call_id"] for i in last.body.get("input", []) if i.get("type") == "function_call"]
    for message in last.body.get("messages", []):
        named += [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
    assert named == ["call_s1"]
    assert ended.reason == "done", ended.message
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_after_a_request_that_failed_five_times_the_next_message_is_accepted(
    make: Make, wire: str
) -> None:
    rig = await make(wire, strict=True)
    failing = status(500, {"error": {"message": "backend exploded"}}, {"Retry-After": "0"})
    rig.answer(*[failing] * 5, done(wire, "Working again."))
    ended = await rig.turn("first")
    assert ended.reason == "provider_error" and "backend exploded" in ended.message
    assert len(rig.server.requests) == 5
    ended = await rig.turn("second")
    assert ended.reason == "done", ended.message
    assert rig.server.refused == []
    said = history_text(rig.server.requests[5])
    assert "[Reply failed:" in said and "first" in said and "second" in said
    assert merged(roles(rig.server.requests[5])) == ["user", "assistant", "user"]
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_after_a_refused_connection_the_next_message_is_accepted(
    make: Make, wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # connect failures back off 0.5 s, 1 s, 2 s, 4 s: not waited out here
    monkeypatch.setattr(transport.ModelClient, "_backoff", lambda self, attempt: 0.0)
    rig = await make(wire, strict=True, refuse=True)
    ended = await rig.turn("first")
    assert ended.reason == "provider_error"
    assert "cannot connect" in ended.message and len(rig.watch.of(Retry)) == 4
    await rig.listen()
    rig.answer(done(wire, "Connected."))
    ended = await rig.turn("second")
    assert ended.reason == "done", ended.message
    assert rig.server.refused == [] and len(rig.server.requests) == 1
    (seen,) = rig.server.requests
    said = history_text(seen)
    assert "[Reply failed:" in said and "first" in said and "second" in said
    assert merged(roles(seen)) == ["user", "assistant", "user"]
    rig.assert_valid()


async def test_the_strict_server_refuses_what_it_should(make: Make) -> None:
    """The strict server is a real check: two user messages in a row are refused."""
    rig = await make("anthropic-messages", strict=True)
    said = [{"type": "text", "text": "hello"}]
    body = {
        "model": "m",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": said}, {"role": "user", "content": said}],
    }
    async with httpx.AsyncClient() as client:
        answer = await client.post(f"{rig.server.url}/messages", json=body)
    assert answer.status_code == 400 and ALTERNATE in answer.text
    assert rig.server.refused == [["message 1: two user messages in a row"]]


async def test_an_sdk_style_anthropic_base_url_lists_its_models_under_its_v1() -> None:
    """``/model`` (and the window probe) read ``/v1/models`` of a base URL given as
    ``ANTHROPIC_BASE_URL`` is (without ``/v1``): they asked ``/models``, a 404."""
    from frontier.app.model.registry import codec
    from frontier.app.model.served_models import listed_models
    from frontier.app.model.transport import ModelClient

    server = WireServer("anthropic-messages")
    server.models = [{"id": "claude-x", "type": "model"}]
    async with serve_wire(server):
        client = ModelClient(codec("anthropic-messages"), server.url.removesuffix("/v1"), "m")
        try:
            assert listed_models(await client.probe_json("models")) == ["claude-x"]
        finally:
            await client.aclose()


async def probed_window(server: WireServer, model: str) -> Any:
    """What the window probe of a client of ``model`` finds, ``server`` serving it."""
    from frontier.app.model.registry import codec
    from frontier.app.model.transport import ModelClient

    async with serve_wire(server):
        client = ModelClient(codec(server.wire), server.url, model)  # type: ignore[arg-type]
        try:
            return await client.probe_context_window()
        finally:
            await client.aclose()


async def test_anthropics_model_listing_says_a_claudes_window() -> None:
    """Anthropic's ``/v1/models`` gives each model's ``max_input_tokens``: a Claude newer
    than the catalogue had only its family's least figure (200,000) where the API says
    1,000,000."""
    server = WireServer("anthropic-messages")
    server.models = [
        {"id": "claude-opus-5", "type": "model", "max_input_tokens": 1_000_000,
         "max_tokens": 128_000},
        {"id": "claude-haiku-5", "type": "model", "max_input_tokens": 200_000},
    ]  # fmt: skip
    found = await probed_window(server, "claude-opus-5")
    assert found is not None and found.tokens == 1_000_000
    assert "max_input_tokens" in found.source


async def test_a_claude_past_the_listings_first_page_is_asked_by_its_own_page() -> None:
    """Anthropic lists 20 models a page, newest first: an older Claude is on its own page,
    ``GET /v1/models/{id}``, the entry itself."""
    server = WireServer("anthropic-messages")
    server.models = [
        {"id": "claude-opus-5", "type": "model", "max_input_tokens": 1_000_000},
        {"id": "claude-sonnet-5", "type": "model", "max_input_tokens": 1_000_000},
    ]  # the first page (a lone entry would be taken as the server's one model)
    server.pages["claude-sonnet-4-5"] = {
        "id": "claude-sonnet-4-5", "type": "model", "max_input_tokens": 200_000}  # fmt: skip
    found = await probed_window(server, "claude-sonnet-4-5")
    assert found is not None and found.tokens == 200_000
    assert server.paged == ["claude-sonnet-4-5"]


# --------------------------------------------------------------------------- images

from test_images import PNG  # noqa: E402  (a 2×2 PNG: a signature and padding is no image)


def image_parts(wire: str, seen: Seen) -> list[dict[str, Any]]:
    """The image parts of the request's user messages, in this wire's shape."""
    if wire == "openai-responses":
        messages = [i for i in seen.body["input"] if i.get("role") == "user"]
        kind = "input_image"
    else:
        messages = [m for m in seen.body["messages"] if m["role"] == "user"]
        kind = "image_url" if wire == "openai-chat" else "image"
    return [
        part
        for m in messages
        if isinstance(m["content"], list)
        for part in m["content"]
        if part.get("type") == kind
    ]


@pytest.mark.parametrize("wire", WIRES)
async def test_an_attached_image_reaches_the_model_in_each_apis_shape(
    make: Make, wire: str
) -> None:
    """`look at @shot.png` sends the screenshot itself, in the API's image part, before
    the words (every request of the session carries it, a resumed one too)."""
    rig = await make(wire)
    (rig.root / "shot.png").write_bytes(PNG)
    rig.answer(done(wire))
    prepared = rig.session.attach("what is wrong in @shot.png?")
    assert prepared.notes() == [f"attached shot.png (image/png, {len(PNG):,} bytes)"]
    ended = await bounded(rig.session.send(prepared.text, prepared.images), "the turn")
    assert ended.reason == "done", ended.message
    rig.assert_valid()
    data = base64.b64encode(PNG).decode()
    wanted = {
        "openai-chat": {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}},
        "openai-responses": {"type": "input_image", "image_url": f"data:image/png;base64,{data}"},
        "anthropic-messages": {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": data},
        },
    }[wire]
    (first,) = rig.server.requests
    assert image_parts(wire, first) == [wanted]
    assert "what is wrong in @shot.png?" in history_text(first)
    await rig.resume()
    rig.answer(done(wire))
    await rig.turn("and now?")
    assert image_parts(wire, rig.server.requests[-1]) == [wanted]  # kept in the store
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_a_model_that_takes_no_images_is_told_once_and_the_session_goes_on(
    make: Make, wire: str
) -> None:
    """llama.cpp without a vision projector answers HTTP 500 "image input is not
    supported": it was retried four times ("the server is failing or overloaded: try
    again later"), and the image stayed in the history, so every later message of the
    session was refused the same way. Now: no retry, what to do, and the image is taken
    out of the history (named in the message's text), for this run and a resumed one."""
    rig = await make(wire)
    (rig.root / "shot.png").write_bytes(PNG)
    refusal = {
        "error": {
            "code": 500,
            "message": "image input is not supported - hint: if this is unexpected, you "
            "may need to provide the mmproj",
            "type": "server_error",
        }
    }
    rig.answer(status(500, refusal), done(wire))
    prepared = rig.session.attach("what is wrong in @shot.png?")
    ended = await bounded(rig.session.send(prepared.text, prepared.images), "the turn")
    assert ended.reason == "provider_error" and len(rig.server.requests) == 1
    assert "the model takes no images" in ended.message
    assert "failing or overloaded" not in ended.message
    compacted = rig.watch.of(Compacted)
    assert [c.reason for c in compacted] == ["images_refused"]
    assert "1 image (shot.png) taken out" in compacted[0].detail
    prepared = rig.session.attach("and @shot.png again?")  # known now: not sent at all
    before = len(rig.server.requests)
    ended = await bounded(rig.session.send(prepared.text, prepared.images), "the turn")
    assert ended.reason == "done" and len(rig.server.requests) == before + 1
    assert image_parts(wire, rig.server.requests[-1]) == []
    told = [n.text for n in rig.watch.of(Notice) if n.text.startswith("not sent: shot.png")]
    assert len(told) == 1, told
    await rig.resume()
    await rig.turn("then read notes.txt instead")
    last = rig.server.requests[-1]
    assert image_parts(wire, last) == []
    assert "[image shot.png, image/png" in history_text(last)
    assert "not sent: the model takes no images" in history_text(last)
    rig.assert_valid()


def image_wanted(wire: str, png: bytes = PNG) -> dict[str, Any]:
    """``png`` as this wire's image part."""
    data = base64.b64encode(png).decode()
    if wire == "openai-chat":
        return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}
    if wire == "openai-responses":
        return {"type": "input_image", "image_url": f"data:image/png;base64,{data}"}
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


@pytest.mark.parametrize("wire", WIRES)
async def test_an_image_the_model_reads_is_shown_to_it_after_the_results(
    make: Make, wire: str
) -> None:
    """`read shot.png` said "read shows text only: ask the person to attach it": a model
    asked to fix what a screenshot shows could not look at it (Claude Code's Read and
    Codex's view_image show it). The picture follows the round's results in the API's
    image part, named with the call that read it, and stays in the stored history."""
    rig = await make(wire)
    (rig.root / "shot.png").write_bytes(PNG)
    look = Call("call_i1", "read", args(path="shot.png"))
    rig.answer(reply(wire, look, read_notes("call_r2")), done(wire, "The button is red."))
    ended = await rig.turn("what does the screenshot show?")
    assert ended.reason == "done", ended.message
    rig.assert_valid()  # results first: Anthropic refuses a tool_result after an image
    first, second = rig.server.requests
    assert image_parts(wire, first) == []
    assert image_parts(wire, second) == [image_wanted(wire)]
    said = history_text(second)
    assert f"shot.png is an image (image/png, {len(PNG):,} bytes)" in said  # the result
    assert f"[image shot.png, image/png, {len(PNG):,} bytes] read by call call_i1" in said
    picture = base64.b64encode(PNG).decode()[:40]
    assert said.index("bytes)") < said.index(picture) < said.index("read by call")
    await rig.resume()
    rig.answer(done(wire))
    await rig.turn("and now?")
    assert image_parts(wire, rig.server.requests[-1]) == [image_wanted(wire)]
    rig.assert_valid()


@pytest.mark.parametrize("wire", WIRES)
async def test_a_model_without_vision_reading_an_image_goes_on_without_it(
    make: Make, wire: str
) -> None:
    """On llama.cpp without a vision projector the request carrying the image is
    refused ("image input is not supported"). A person's image ends the turn (they chose
    to send it); the model's own read must not: the image is taken out, named, the model
    asked again once, and later reads name the image without showing it."""
    rig = await make(wire)
    (rig.root / "shot.png").write_bytes(PNG)
    refusal = {"error": {"code": 500, "message": "image input is not supported", "type": "x"}}
    look = Call("call_i1", "read", args(path="shot.png"))
    again = Call("call_i2", "read", args(path="shot.png"))
    rig.answer(
        reply(wire, look), status(500, refusal), reply(wire, again), done(wire, "It is a PNG.")
    )
    ended = await rig.turn("what does the screenshot show?")
    assert ended.reason == "done", ended.message
    assert len(rig.server.requests) == 4
    _, refused, asked_again, last = rig.server.requests
    assert image_parts(wire, refused) == [image_wanted(wire)]
    assert image_parts(wire, asked_again) == image_parts(wire, last) == []
    named = f"[image shot.png, image/png, {len(PNG):,} bytes] read by call call_i1\\n(not sent"
    assert named in history_text(asked_again)  # named once, said not sent
    assert "read by call call_i2: not shown: the model takes no images" in history_text(last)
    told = [n.text for n in rig.watch.of(Notice) if "carrying an image the model read" in n.text]
    assert len(told) == 1, told
    assert [c.reason for c in rig.watch.of(Compacted)] == ["images_refused"]
    rig.assert_valid()


async def test_a_resumed_session_still_refuses_a_write_over_a_file_changed_since_read(
    make: Make,
) -> None:
    """The person stops the agent, edits a file, resumes the next day: the model's whole-
    file write from its history undid the edit (a new process knew nothing of what the
    model had read). What each call saw is stored with its result and replayed."""
    wire = "openai-chat"
    rig = await make(wire)
    code = rig.root / "c.py"
    code.write_text("def f():\n    return 1\n")
    look = Call("call_r1", "read", args(path="c.py"))
    rig.answer(reply(wire, look), done(wire, "Read it."))
    await rig.turn("read c.py")
    await rig.resume()
    code.write_text("def f():\n    return 1\n\n\ndef mine():\n    pass\n")  # the person's
    stale = Call("call_w1", "write", args(path="c.py", content="def f():\n    return 2\n"))
    rig.answer(reply(wire, stale), done(wire, "Reading it again."))
    await rig.turn("make f return 2")
    refused = [e.result for e in rig.watch.of(ToolFinished) if e.result.call_id == "call_w1"]
    assert refused and refused[0].kind == "error", refused
    assert "c.py changed since you last read it" in refused[0].output
    assert "def mine()" in code.read_text()  # the person's edit kept
    rig.assert_valid()


@pytest.mark.parametrize("name", ["finish", "attempt_completion"])
async def test_a_model_that_calls_finish_ends_its_turn_there(make: Make, name: str) -> None:
    """OpenHands' finish and Cline's attempt_completion end a task; Devstral and Cline's
    models call them. It was an unknown tool, called again until the loop stopped it as
    `repeating` four requests later (`frontier run` exited 1 on a task done). Now the turn
    ends done on it, its message the call's output; Cline's command is not run."""
    wire = "openai-chat"
    rig = await make(wire)
    said = args(message="Fixed the bug in a.py.")
    if name == "attempt_completion":
        said = args(result="Fixed the bug in a.py.", command="touch ran.txt")
    rig.answer(reply(wire, Call("call_f1", name, said)), done(wire, "never asked"))
    ended = await rig.turn("fix it")
    assert (ended.reason, ended.message) == ("done", "Fixed the bug in a.py.")
    assert len(rig.server.requests) == 1
    (finished,) = [e.result for e in rig.watch.of(ToolFinished)]
    assert (finished.name, finished.kind, finished.output) == (
        "finish", "ok", "Fixed the bug in a.py."
    )  # fmt: skip
    assert not (rig.root / "ran.txt").exists()
    rig.assert_valid()


async def test_a_thought_written_as_a_call_is_answered_and_the_turn_goes_on(
    make: Make,
) -> None:
    """Anthropic's and OpenHands' think tool: Claude and Devstral call it to reason
    between calls; it was an unknown tool and a repair round. It is answered, nothing run."""
    wire = "openai-chat"
    rig = await make(wire)
    thought = Call("call_t1", "think", args(thought="The bug is in the parser."))
    rig.answer(reply(wire, thought, read_notes()), done(wire))
    ended = await rig.turn("fix it")
    assert ended.reason == "done", ended.message
    assert result_kinds(rig.watch) == {"call_t1": "ok", "call_r1": "ok"}
    assert "Your thought has been noted" in history_text(rig.server.requests[-1])
    rig.assert_valid()


@pytest.mark.parametrize("second", [200, 400])
async def test_an_image_refused_in_unknown_words_is_taken_out_and_asked_again_once(
    make: Make, second: int
) -> None:
    """A server that refuses the request carrying the model's image in words no known
    sign matches (a gateway's "invalid content part") left the image in the history, and
    every later request was refused the same way: the session stuck for good. The image
    is taken out and the model asked once more; a second refusal was about something
    else, and ends the turn with the server's words."""
    wire = "openai-chat"
    rig = await make(wire)
    (rig.root / "shot.png").write_bytes(PNG)
    refusal = {"error": {"message": "invalid content part at messages[3]", "type": "x"}}
    look = Call("call_i1", "read", args(path="shot.png"))
    after = done(wire, "Going on without it.") if second == 200 else status(400, refusal)
    rig.answer(reply(wire, look), status(400, refusal), after)
    ended = await rig.turn("look at shot.png")
    assert len(rig.server.requests) == 3
    assert image_parts(wire, rig.server.requests[1]) == [image_wanted(wire)]
    assert image_parts(wire, rig.server.requests[2]) == []
    told = [n.text for n in rig.watch.of(Notice) if "carrying an image" in n.text]
    assert len(told) == 1 and "it said: " in told[0], told
    if second == 200:
        assert ended.reason == "done", ended.message
    else:
        assert ended.reason == "provider_error" and "invalid content part" in ended.message
    rig.assert_valid()


async def test_a_resumed_session_tells_the_model_its_background_jobs_are_gone(
    make: Make,
) -> None:
    """A job lives as long as the process that started it; after a resume the history
    still said "started … still running", and a model curled its dead server and set
    about debugging code that was fine. The first message after the resume says so."""
    wire = "openai-chat"
    rig = await make(wire, sandbox="off")
    start = Call("call_srv", "shell", args(command="exec sleep 300", background=True))
    rig.answer(reply(wire, start), done(wire, "Started."))
    await rig.turn("start the server")
    first = rig.server.requests[-1]
    assert "Background jobs started before" not in history_text(first)
    await rig.resume()
    rig.answer(done(wire, "Restarting it."))
    await rig.turn("is it up?")
    sent = rig.server.requests[-1].body["messages"][-1]["content"]
    notices, typed = split_notices(sent)  # a resumed Transcript shows the note apart
    assert typed == "is it up?"
    assert notices == (
        "(Background jobs started before this session was resumed are no longer running: "
        "call_srv (exec sleep 300). Start one again (shell with background: true) if it is "
        "still needed.)",
    )


async def test_a_file_sent_whole_with_the_message_may_be_written_whole(make: Make) -> None:
    """A file the model never read is not written whole (tools/file_views.py); one the
    person sent whole with the message (``@notes.md``) was seen, so "rewrite @notes.md"
    writes it; a file sent only in part (cut at 32 KiB) was not seen whole: refused."""
    wire = "openai-chat"
    rig = await make(wire)
    (rig.root / "notes.md").write_text("# Notes\n\nold words\n")
    (rig.root / "big.md").write_text("line of the long file\n" * 4000)  # 88,000 bytes
    rig.answer(
        reply(
            wire,
            Call("call_w1", "write", args(path="notes.md", content="# Notes\n\nnew words\n")),
            Call("call_w2", "write", args(path="big.md", content="short\n")),
        ),
        done(wire),
    )
    prepared = rig.session.attach("rewrite @notes.md and @big.md in plain words")
    assert [a.digest != "" for a in prepared.attachments] == [True, False]
    ended = await bounded(rig.session.send(prepared.text, prepared.images), "the turn")
    assert ended.reason == "done"
    assert result_kinds(rig.watch) == {"call_w1": "ok", "call_w2": "error"}
    assert (rig.root / "notes.md").read_text() == "# Notes\n\nnew words\n"
    assert (rig.root / "big.md").stat().st_size == 88000
    assert "big.md exists (4,000 lines" in history_text(rig.server.requests[-1])
    rig.assert_valid()
