"""The loop over real HTTP when the server is wrong rather than flaky: a web page or a
JSON error with 200 ends the turn at once (no repair, no second request); a hung
server costs first_byte_timeout, not minutes; a stream that just stops is a truncation
the model is asked to resend."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from sse_server import serve, sse, start_sse

from frontier.app.agent.loop import DOCTOR_HINT, AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.events import Event, Notice, RepairRequested, ResponseEnded, Retry, TurnEnded
from frontier.app.model.registry import codec
from frontier.app.model.transport import ModelClient, Timeouts
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry


def content(text: str) -> bytes:
    return sse({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


DONE_BODY = (
    content("All done.")
    + sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    + b"data: [DONE]\n\n"
)


@dataclass
class Server:
    url: str = ""
    answers: list[Any] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        answer = self.answers[min(len(self.requests), len(self.answers)) - 1]
        return await answer(self, request)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    srv = Server()
    async with serve(srv.dispatch) as url:
        srv.url = url
        yield srv
        srv.release.set()


async def html_page(srv: Server, request: web.Request) -> web.StreamResponse:
    return web.Response(text="<html><title>It works!</title></html>", content_type="text/html")


async def json_error(srv: Server, request: web.Request) -> web.StreamResponse:
    return web.json_response({"error": {"message": "quota exhausted for this key"}})


async def cut_short(srv: Server, request: web.Request) -> web.StreamResponse:
    resp = await start_sse(request)
    await resp.write(content("I will write the fi"))
    await resp.write_eof()  # no finish_reason, no [DONE]
    return resp


async def done(srv: Server, request: web.Request) -> web.StreamResponse:
    resp = await start_sse(request)
    await resp.write(DONE_BODY)
    await resp.write_eof()
    return resp


async def hangs(srv: Server, request: web.Request) -> web.StreamResponse:
    await srv.release.wait()
    return web.Response(status=204)


async def no_sleep(delay: float) -> None:
    return None


def make_loop(url: str, root: Path, events: list[Event], **client: Any) -> AgentLoop:
    registry = default_registry()
    boundary = ToolBoundary(registry, root, PolicyApprover("auto"), None, emit=events.append)
    return AgentLoop(
        client=ModelClient(codec("openai-chat"), url, "m", sleep=no_sleep, **client),
        boundary=boundary,
        registry=registry,
        mode=get_mode("ctl-heredoc"),
        emit=events.append,
    )


async def test_html_200_ends_the_turn_without_repair_or_another_request(
    server: Server, tmp_path: Path
) -> None:
    server.answers = [html_page, done]
    events: list[Event] = []
    loop = make_loop(server.url, tmp_path, events)
    ended = await loop.send("hello")
    await loop.client.aclose()
    assert ended.reason == "provider_error"
    assert "the server answered text/html, not an event stream; is --base-url right?" in (
        ended.message
    )
    assert len(server.requests) == 1
    assert not any(isinstance(e, RepairRequested | Retry) for e in events)


async def refused_key(srv: Server, request: web.Request) -> web.StreamResponse:
    return web.json_response({"error": {"message": "Incorrect API key"}}, status=401)


async def test_a_setup_failure_points_at_frontier_doctor_once_and_a_passing_one_never(
    server: Server, tmp_path: Path
) -> None:
    server.answers = [html_page, refused_key, refused_key, json_error]
    events: list[Event] = []
    loop = make_loop(server.url, tmp_path, events)
    for _ in range(3):  # a 200 that is not a stream, then a refused key twice
        ended = await loop.send("hello")
        assert ended.reason == "provider_error"
    hints = [e for e in events if isinstance(e, Notice) and e.text == DOCTOR_HINT]
    assert len(hints) == 1  # once a session, at the first
    assert events.index(hints[0]) < next(
        i for i, e in enumerate(events) if isinstance(e, TurnEnded)
    )
    passing: list[Event] = []
    other = make_loop(server.url, tmp_path, passing)
    assert (await other.send("hello")).reason == "provider_error"  # a 200 error: the server's
    await loop.client.aclose()
    await other.client.aclose()
    assert not any(isinstance(e, Notice) and e.text == DOCTOR_HINT for e in passing)


async def test_json_error_with_200_is_shown_as_the_servers_message(
    server: Server, tmp_path: Path
) -> None:
    server.answers = [json_error, done]
    events: list[Event] = []
    loop = make_loop(server.url, tmp_path, events)
    ended = await loop.send("hello")
    await loop.client.aclose()
    assert ended.reason == "provider_error"
    assert "the server says: quota exhausted for this key" in ended.message
    assert len(server.requests) == 1


async def test_stream_without_done_or_finish_reason_is_a_truncation(
    server: Server, tmp_path: Path
) -> None:
    server.answers = [cut_short, done]
    events: list[Event] = []
    loop = make_loop(server.url, tmp_path, events)
    ended = await loop.send("hello")
    await loop.client.aclose()
    assert ended.reason == "done"
    assert [e.finish_reason for e in events if isinstance(e, ResponseEnded)] == [
        "disconnect",
        "stop",
    ]
    repairs = [e for e in events if isinstance(e, RepairRequested)]
    assert [r.kind for r in repairs] == ["truncated"] and len(server.requests) == 2
    roles = [m["role"] for m in server.requests[1]["messages"]]
    assert roles[:2] == ["system", "user"] and roles[-1] == "user"
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
    assert "error truncated" in server.requests[1]["messages"][-1]["content"]


async def test_hung_server_ends_the_turn_after_first_byte_timeout(
    server: Server, tmp_path: Path
) -> None:
    server.answers = [hangs]
    events: list[Event] = []
    loop = make_loop(server.url, tmp_path, events, timeouts=Timeouts(first_byte=0.2), max_retries=1)
    ended = await loop.send("hello")
    await loop.client.aclose()
    assert ended.reason == "provider_error" and "first_byte_timeout" in ended.message
    assert len(server.requests) == 2
    assert [e.attempt for e in events if isinstance(e, Retry)] == [1]
    assert not any(isinstance(e, RepairRequested) for e in events)
