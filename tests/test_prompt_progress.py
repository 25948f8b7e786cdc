"""llama.cpp reads a long prompt for minutes on a CPU before its first token, and says how
far when asked (``return_progress``): Frontier asks it once ``/props`` showed llama.cpp on
the Chat and Responses wires, the progress moves the first-byte deadline (the server
works, it is not hung: 45 s cut such a request off) and the wait reads ``reading the
prompt: 12,000 of 30,000 tokens (40%)`` in the status bar and the headless log."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from async_wait import until
from test_protocol_auto import session_on
from wire_scripts import Text, WireServer, script, sse_data, status, stream

from frontier.app.agent.wait import ResponseWait
from frontier.app.events import PromptRead
from frontier.app.model.stream import PromptProgress
from frontier.app.model.wires import openai_responses
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
        wait = ResponseWait()
        for event in seen:
            wait.apply(event, lambda: 0.0)
        assert wait.label(3.0) == "reading the prompt: 12,000 of 30,000 tokens (40%) · 3 s"
        gate.set()
        assert (await turn).reason == "done"
    assert server.requests[-1].body.get("return_progress") is True


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
