"""llama.cpp reads a long prompt for minutes on a CPU before its first token, and says how
far when asked (``return_progress``): Frontier asks it once ``/props`` showed llama.cpp on
the Chat and Responses wires, the progress moves the first-byte deadline (the server
works, it is not hung: 45 s cut such a request off) and the wait reads ``reading the
prompt: 12,000 of 30,000 tokens (40%)`` in the status bar and the headless log. Its
Anthropic Messages endpoint streams none: there its ``GET /slots`` is asked while the
request waits."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from async_wait import until
from test_protocol_auto import session_on
from wire_scripts import Text, WireServer, script, sse_data, status, stream

from frontier.app.agent.wait import ResponseWait
from frontier.app.events import Event, PromptRead, Retry, TurnEnded
from frontier.app.model.stream import PromptProgress
from frontier.app.model.wires import openai_responses
from frontier.app.model.wires.llama_progress import slots_reading
from frontier.app.model.wires.openai_chat import Codec

LLAMA_CPP = {"default_generation_settings": {"n_ctx": 32768}}


def progress_chunk(done: int, total: int = 30_000) -> bytes:
    return sse_data(
        {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}],
            "prompt_progress": {"total": total, "cache": 0, "processed": done, "time_ms": 5},
        }
    )


def waiting(seen: list[Event]) -> str:
    """The status bar's wait after ``seen``, 3 s into it."""
    wait = ResponseWait()
    for event in seen:
        wait.apply(event, lambda: 0.0)
    return wait.label(3.0)


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses"])
async def test_llama_cpp_is_asked_for_the_prompts_progress_and_the_wait_shows_it(
    tmp_path: Path, wire: str
) -> None:
    """Only Chat was asked at first: on ``--wire openai-responses`` a long prompt read on
    a CPU hit the 45 s first-byte deadline, and the retry loaded the server with a second
    request while it still read the first."""
    server = WireServer(wire, props=LLAMA_CPP)
    gate = asyncio.Event()
    said = progress_chunk if wire == "openai-chat" else responses_progress
    async with session_on(tmp_path, server, "a-local-model") as (session, seen):
        reply = [said(12_000), gate, *script(server.wire, [Text("Read it.")])]
        server.replies[:] = [stream(reply)]
        turn = asyncio.create_task(session.send("summarise the logs"))
        await until(lambda: any(isinstance(e, PromptRead) for e in seen), "the progress")
        assert waiting(seen) == "reading the prompt: 12,000 of 30,000 tokens (40%) · 3 s"
        gate.set()
        assert (await turn).reason == "done"
    assert server.requests[-1].body.get("return_progress") is True


async def test_the_next_batch_of_the_prompt_may_take_as_long_as_the_first(tmp_path: Path) -> None:
    """Progress moved the deadline as a reply's text does, to ``idle_timeout`` (30 s) from
    it: a batch of 2,048 tokens of a 7B model on a CPU takes longer, and the request was
    cut off as stalled between two reports of progress. The wait after a report is the
    first byte's (here 5 s; the test waits three times the idle 0.3 s past it)."""
    server = WireServer("openai-chat", props=LLAMA_CPP)
    gate = asyncio.Event()
    settings = {"first_byte_timeout": 5.0, "idle_timeout": 0.3}
    async with session_on(tmp_path, server, "a-local-model", **settings) as (session, seen):
        reply = [
            progress_chunk(0),
            gate,
            progress_chunk(30_000),
            *script(server.wire, [Text("Read it.")]),
        ]
        server.replies[:] = [stream(reply)]
        turn = asyncio.create_task(session.send("summarise the logs"))
        await until(lambda: any(isinstance(e, PromptRead) for e in seen), "the progress")
        past = time.monotonic() + 0.9
        await until(lambda: time.monotonic() > past or turn.done(), "three idle timeouts")
        gate.set()
        assert (await turn).reason == "done"
    assert len([r for r in server.requests if "messages" in r.body]) == 1
    assert [e.done for e in seen if isinstance(e, PromptRead)] == [0, 30_000]


async def test_a_batch_slower_than_the_first_byte_deadline_is_waited_for(tmp_path: Path) -> None:
    """llama.cpp reports progress once a batch, and a batch of 2,048 tokens of a 7B model on
    a CPU (20–50 tokens a second) outlasts ``first_byte_timeout``: the request was cut off
    between two reports. Its ``/slots`` is asked meanwhile, on every wire: a busy slot
    moves the deadline (here 1.5 s, waited past twice over)."""
    server = WireServer("openai-chat", props=LLAMA_CPP, slots=[slot(True, 0)])
    gate = asyncio.Event()
    model = "a-local-model"
    async with session_on(tmp_path, server, model, first_byte_timeout=1.5) as (session, seen):
        reply = [progress_chunk(0), gate, *script(server.wire, [Text("Read it.")])]
        server.replies[:] = [stream(reply)]
        turn = asyncio.create_task(session.send("summarise the logs"))
        await until(lambda: server.slots_asked >= 7 or turn.done(), "/slots asked for 3.5 s")
        gate.set()
        assert (await turn).reason == "done"
    assert len([r for r in server.requests if "messages" in r.body]) == 1
    assert [(e.done, e.total) for e in seen if isinstance(e, PromptRead)] == [(0, 30_000)]


async def test_a_server_that_is_not_llama_cpp_is_not_asked(tmp_path: Path) -> None:
    server = WireServer("openai-chat")  # no /props: vLLM, OpenAI, a gateway
    async with session_on(tmp_path, server, "a-local-model") as (session, _):
        assert (await session.send("hi")).reason == "done"
    assert "return_progress" not in server.requests[-1].body


async def test_a_server_that_refuses_the_field_is_asked_again_without_it(tmp_path: Path) -> None:
    """A proxy in front of llama.cpp that checks the fields it forwards."""
    server = WireServer("openai-chat", props=LLAMA_CPP)
    refusal: dict[str, Any] = {"error": {"message": "Unrecognized argument: return_progress"}}
    async with session_on(tmp_path, server, "a-local-model") as (session, _):
        server.replies[:] = [status(400, refusal), stream(script(server.wire, [Text("Hi.")]))]
        assert (await session.send("hi")).reason == "done"
        assert (await session.send("again")).reason == "done"
    sent = [r.body.get("return_progress") for r in server.requests if "messages" in r.body]
    assert sent == [True, None, None]


def test_the_chat_decoder_reads_the_progress_and_nothing_else_as_it() -> None:
    def fed(value: Any) -> list[Any]:
        chunk = {"object": "chat.completion.chunk", "choices": [], "prompt_progress": value}
        return Codec().decoder().feed("message", json.dumps(chunk))

    assert fed({"total": 30_000, "processed": 12_000, "cache": 2_000}) == [
        PromptProgress(12_000, 30_000, 2_000)
    ]
    assert fed({"total": 30_000, "processed": 40_000}) == [PromptProgress(30_000, 30_000)]
    for odd in ({"total": 0, "processed": 0}, {"total": "30000", "processed": 1}, [], None):
        assert fed(odd) == []


def responses_progress(done: int, total: int = 30_000) -> bytes:
    """llama.cpp's ``/v1/responses`` says it in ``response.in_progress`` events (the rig)."""
    response = {"id": "resp_1", "object": "response", "status": "in_progress"}
    progress = {"total": total, "cache": 0, "processed": done, "time_ms": 5}
    event = {"type": "response.in_progress", "response": response, "prompt_progress": progress}
    return b"event: response.in_progress\n" + sse_data(event)


def test_the_responses_decoder_reads_the_progress_of_in_progress_events_only() -> None:
    def fed(kind: str, value: Any) -> list[Any]:
        event = {"type": kind, "response": {"status": "in_progress"}, "prompt_progress": value}
        return openai_responses.Codec().decoder().feed(kind, json.dumps(event))

    progress = {"total": 30_000, "processed": 12_000, "cache": 2_000}
    assert fed("response.in_progress", progress) == [PromptProgress(12_000, 30_000, 2_000)]
    assert fed("response.created", progress) == []
    for odd in ({"total": 0, "processed": 0}, {"total": "30000", "processed": 1}, [], None):
        assert fed("response.in_progress", odd) == []


def slot(busy: bool, read: int = 0) -> dict[str, Any]:
    """One slot of llama.cpp's ``GET /slots`` (the rig's server, trimmed)."""
    fields = {"id": 0, "n_ctx": 4096, "speculative": False, "is_processing": busy}
    return {**fields, "n_prompt_tokens": 2048, "n_prompt_tokens_processed": read}


@contextlib.asynccontextmanager
async def held_on_messages(
    tmp_path: Path, slots: list[dict[str, Any]] | None, first_byte: float, late: float = 0.0
) -> AsyncIterator[tuple[WireServer, list[Event], asyncio.Event, asyncio.Task[TurnEnded]]]:
    """A turn on llama.cpp's ``/v1/messages`` whose body is held at ``gate`` (its headers
    sent, as llama.cpp sends them before it reads the prompt), ``/slots`` answering
    ``slots`` after ``late`` seconds."""
    server = WireServer("anthropic-messages", props=LLAMA_CPP, slots=slots, slots_late=late)
    gate = asyncio.Event()
    model = "a-local-model"
    async with session_on(tmp_path, server, model, first_byte_timeout=first_byte) as (
        session,
        seen,
    ):
        server.replies[:] = [stream([gate, *script(server.wire, [Text("Read it.")])])]
        turn = asyncio.create_task(session.send("summarise the logs"))
        try:
            yield server, seen, gate, turn
        finally:
            turn.cancel()
            await asyncio.wait({turn})


def retried(seen: list[Event]) -> list[Retry]:
    return [e for e in seen if isinstance(e, Retry)]


async def test_on_the_messages_wire_a_busy_slot_keeps_the_request_waiting(tmp_path: Path) -> None:
    """llama.cpp's ``/v1/messages`` sends its headers at once and nothing more until the
    prompt is read (16 s for 3,500 tokens on the rig, minutes for a long one): the 45 s
    first-byte deadline cut it off and the retry loaded the server with a second request
    while it still read the first. Its ``/slots`` says a slot is reading: the deadline
    moves (here 1.5 s, waited past twice over) and the wait shows how far."""
    busy = [slot(True, 2048), slot(False)]
    async with held_on_messages(tmp_path, busy, 1.5) as (server, seen, gate, turn):
        await until(lambda: server.slots_asked >= 7 or retried(seen), "/slots asked for 3.5 s")
        assert waiting(seen) == "reading the prompt: 2,048 tokens so far · 3 s"
        gate.set()
        assert (await turn).reason == "done"
    assert [e for e in seen if isinstance(e, PromptRead)] == [PromptRead(2048, 0)]
    assert not retried(seen)
    assert len([r for r in server.requests if "messages" in r.body]) == 1


async def test_a_slots_answer_later_than_the_poll_still_keeps_the_request(tmp_path: Path) -> None:
    """A review: a ``/slots`` answer slower than the poll (a server between two batches)
    read as "no /slots" and stopped the polling, and the request was cut off. Here each
    answer takes 0.6 s, the poll is every 0.4 s, the deadline 1.2 s: waited past three
    times over."""
    async with held_on_messages(tmp_path, [slot(True, 2048)], 1.2, late=0.6) as (
        server,
        seen,
        gate,
        turn,
    ):
        await until(lambda: server.slots_asked >= 4 or retried(seen), "/slots asked four times")
        gate.set()
        assert (await turn).reason == "done"
    assert not retried(seen)


def test_the_deadline_moved_as_its_timeout_expires_raises_nothing() -> None:
    """A review: ``/slots`` answered in the same loop pass as the deadline ran out, and
    rescheduling the expiring timeout raised ``RuntimeError`` out of ``stream()``."""
    from frontier.app.model.transport import _Deadline

    async def race() -> None:
        loop = asyncio.get_running_loop()
        deadline = _Deadline(loop.time(), 1.0)
        async with asyncio.timeout_at(deadline.when) as deadline.timer:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:  # the timeout fired: it is expiring now
                deadline.working(5.0)
                raise

    with pytest.raises(TimeoutError):  # it ran out, as it had: no RuntimeError
        asyncio.run(race())


@pytest.mark.parametrize("slots", [[slot(False), slot(False)], None], ids=["idle", "no-slots"])
async def test_a_server_whose_slots_are_idle_or_unknown_is_still_cut_off(
    tmp_path: Path, slots: list[dict[str, Any]] | None
) -> None:
    """Nothing read: a hung request is cut off at the first-byte deadline as before (a
    server started with ``--no-slots`` answers 501, and is not asked again)."""
    async with held_on_messages(tmp_path, slots, 0.6) as (server, seen, _, _):
        await until(lambda: bool(retried(seen)), "the request cut off")
        asked = server.slots_asked
    assert "first_byte_timeout" in retried(seen)[0].reason
    assert asked == 1 if slots is None else asked >= 1
    assert not [e for e in seen if isinstance(e, PromptRead)]


def test_slots_are_read_for_the_busy_ones_and_nothing_else_as_them() -> None:
    assert slots_reading([slot(True, 2048), slot(False, 9), slot(True)]) == [2048, 0]
    assert slots_reading([slot(False)]) == []
    assert slots_reading([{**slot(True), "n_prompt_tokens_processed": True}]) == [0]
    assert slots_reading([{**slot(True), "is_processing": "yes"}]) == []
    for odd in ({"error": {"code": 501}}, [{"id": 0}], [1], "[]", None, [slot(True)] * 1025):
        assert slots_reading(odd) is None
