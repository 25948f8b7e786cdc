"""Test support: scripted model responses for every wire, and a loopback server for them.

A response is written once, wire-neutrally, as a list of parts (:class:`Text`,
:class:`Think`, :class:`Call`, and ``asyncio.Event`` gates), and :func:`script` turns it
into the server-sent events of one API:

- ``openai-responses``: ``event:`` + ``data:`` pairs: ``response.created``, one output
  item per part (``output_item.added`` → ``output_text.delta`` / ``reasoning_summary_text
  .delta`` / ``function_call_arguments.delta`` → ``.done`` → ``output_item.done``), then
  ``response.completed``, ``response.incomplete`` (``max_output_tokens``) or an ``error``;
- ``anthropic-messages``: ``message_start``, a ``ping``, one content block per part
  (``content_block_start`` / ``_delta`` / ``_stop``; a cut ``tool_use`` block gets no
  stop), ``message_delta`` with the ``stop_reason`` and ``message_stop``, or an ``error``;
- ``openai-chat``: ``chat.completion.chunk`` objects, a finish and ``[DONE]``.

A gate in the parts makes the server hold the rest of the body until the test sets it
(tests wait for a state, never for time). :class:`WireServer` serves the three paths on
127.0.0.1, answers each request with the next scripted :data:`Reply` (the last one
repeats), and keeps each request's path, headers and body.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web
from request_validity import CHECKERS

from frontier.app.config import Config

PATHS = {
    "openai-chat": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic-messages": "/v1/messages",
}
WIRES = tuple(PATHS)

GATE_TIMEOUT = 15.0
"""The longest a handler holds a body behind a gate nobody sets (a failing test): it then
drops the connection rather than answer as if released."""

ALTERNATE = "Conversation roles must alternate user/assistant/user/assistant/..."
"""What llama.cpp's Jinja templates (Gemma, Mistral) answer to two same-role messages."""
NOT_UNIQUE = "messages.{m}.content.{b}: `tool_use` ids must be unique"
"""What the Anthropic API answers to a request naming one ``tool_use`` id twice."""


def duplicate_tool_use(body: dict[str, Any]) -> str | None:
    """Anthropic's refusal of a request whose ``tool_use`` ids repeat (anywhere in it), or
    ``None``. Only Anthropic's ids are unique by construction (``toolu_...``): Chat and
    Responses servers may reuse theirs across responses (llama.cpp's ``call_0``)."""
    seen: set[str] = set()
    for m, message in enumerate(body.get("messages", [])):
        content = message.get("content")
        for b, block in enumerate(content if isinstance(content, list) else []):
            if block.get("type") == "tool_use":
                if block["id"] in seen:
                    return NOT_UNIQUE.format(m=m, b=b)
                seen.add(block["id"])
    return None


def problems_of(wire: str, body: dict[str, Any]) -> list[str]:
    """Why the API of ``wire`` would refuse ``body`` (``request_validity``, and Anthropic's
    unique ``tool_use`` ids); empty: it would accept it."""
    found = CHECKERS[wire](body)
    if wire == "anthropic-messages" and (twice := duplicate_tool_use(body)):
        found.append(twice)
    return found


# --------------------------------------------------------------------------- the parts


@dataclass(frozen=True)
class Text:
    """Assistant prose (streamed in two pieces)."""

    text: str


@dataclass(frozen=True)
class Think:
    """Reasoning: Responses ``reasoning`` item (``encrypted_content`` = ``secret``),
    Anthropic ``thinking`` block (``signature`` = ``secret``), Chat
    ``reasoning_content``."""

    text: str
    secret: str = "opaque-reasoning-0001"


@dataclass(frozen=True)
class Call:
    """A native call; ``args`` is its JSON arguments text, streamed in three pieces.
    ``cut``: the token limit cut it (``args`` is then the part that was sent): no
    ``output_item.done`` with ``completed`` (Responses: one with ``incomplete``), no
    ``content_block_stop`` (Anthropic)."""

    id: str
    name: str
    args: str
    cut: bool = False
    first_id: str = ""
    """Responses: the ``call_id`` ``output_item.added`` names, when it differs from the
    one ``output_item.done`` gives (seen in real recordings: the done's wins)."""
    signature: str = ""
    """Chat: Gemini's thought signature on the call's first piece
    (``extra_content.google.thought_signature``)."""
    routed: bool = False
    """Chat: the signature as OpenRouter sends it, a ``reasoning.encrypted`` item of
    ``delta.reasoning_details`` naming the call, after two ``reasoning.text`` pieces."""


@dataclass(frozen=True)
class Hosted:
    """A tool the provider runs itself (Responses ``web_search_call`` item, Anthropic
    ``server_tool_use`` block and its result block); Chat has none."""

    id: str
    query: str


def args(**values: Any) -> str:
    return json.dumps(values)


class Drop:
    """In a body: the server drops the connection here (no end event ever comes)."""


Part = Text | Think | Call | Hosted | asyncio.Event
End = Literal["stop", "length", "drop"]
"""How a response ends: cleanly, cut by the token limit, or by a dropped connection."""
Chunk = bytes | asyncio.Event | Drop


def pieces(text: str, n: int) -> list[str]:
    """``text`` in ``n`` non-empty pieces at most (fewer when it is shorter)."""
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def sse_data(obj: Any) -> bytes:
    return f"data: {json.dumps(obj)}\n\n".encode()


def sse_event(name: str, obj: Any) -> bytes:
    return f"event: {name}\ndata: {json.dumps(obj)}\n\n".encode()


def script(
    wire: str,
    parts: Sequence[Part],
    *,
    end: End = "stop",
    error: str | None = None,
    error_type: str | None = None,
    usage: tuple[int, int] = (120, 30),
) -> list[Chunk]:
    """The body of one response of ``wire`` (see the module doc); ``error``: the stream
    ends with the API's ``error`` event carrying that message instead of an end, of
    ``error_type`` (default: the API's overload, an error that passes)."""
    build = {
        "openai-chat": _chat,
        "openai-responses": _responses,
        "anthropic-messages": _anthropic,
    }[wire]
    if end == "drop":
        return [*build(parts, "stop", None, usage)[: -_ENDS[wire]], Drop()]
    return build(parts, end, error, usage, error_type)


_ENDS = {"openai-chat": 3, "openai-responses": 1, "anthropic-messages": 2}
"""How many events of a body are its end (finish, usage, ``[DONE]``; ``completed``;
``message_delta``, ``message_stop``)."""


# --------------------------------------------------------------------------- Responses


def _responses(
    parts: Sequence[Part],
    end: End,
    error: str | None,
    usage: tuple[int, int],
    error_type: str | None = None,
) -> list[Chunk]:
    out: list[Chunk] = []
    seq = 0
    output: list[dict[str, Any]] = []

    def ev(kind: str, **fields: Any) -> None:
        nonlocal seq
        out.append(sse_event(kind, {"type": kind, "sequence_number": seq, **fields}))
        seq += 1

    item: dict[str, Any]
    response = {"id": "resp_1", "object": "response", "model": "test-model", "output": []}
    ev("response.created", response={**response, "status": "in_progress"})
    for part in parts:
        if isinstance(part, asyncio.Event):
            out.append(part)
            continue
        at = len(output)
        if isinstance(part, Text):
            item_id = f"msg_{at}"
            item = {"id": item_id, "type": "message", "role": "assistant", "content": []}
            ev(
                "response.output_item.added",
                output_index=at,
                item={**item, "status": "in_progress"},
            )
            where = {"item_id": item_id, "output_index": at, "content_index": 0}
            ev("response.content_part.added", **where, part={"type": "output_text", "text": ""})
            for piece in pieces(part.text, 2):
                ev("response.output_text.delta", **where, delta=piece)
            ev("response.output_text.done", **where, text=part.text)
            done_part = {"type": "output_text", "text": part.text, "annotations": []}
            ev("response.content_part.done", **where, part=done_part)
            item = {**item, "status": "completed", "content": [done_part]}
            ev("response.output_item.done", output_index=at, item=item)
        elif isinstance(part, Hosted):
            item = {"id": part.id, "type": "web_search_call"}
            ev(
                "response.output_item.added",
                output_index=at,
                item={**item, "status": "in_progress"},
            )
            ev("response.web_search_call.in_progress", output_index=at, item_id=part.id)
            ev("response.web_search_call.completed", output_index=at, item_id=part.id)
            action = {"type": "search", "query": part.query}
            item = {**item, "status": "completed", "action": action}
            ev("response.output_item.done", output_index=at, item=item)
        elif isinstance(part, Think):
            item_id = f"rs_{at}"
            ev(
                "response.output_item.added",
                output_index=at,
                item={"id": item_id, "type": "reasoning", "summary": []},
            )
            where = {"item_id": item_id, "output_index": at, "summary_index": 0}
            ev("response.reasoning_summary_part.added", **where, part={"type": "summary_text"})
            for piece in pieces(part.text, 2):
                ev("response.reasoning_summary_text.delta", **where, delta=piece)
            ev("response.reasoning_summary_text.done", **where, text=part.text)
            item = {
                "id": item_id,
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": part.text}],
                "encrypted_content": part.secret,
            }
            ev("response.output_item.done", output_index=at, item=item)
        else:
            item_id = f"fc_{at}"
            item = {"id": item_id, "type": "function_call", "call_id": part.id, "name": part.name}
            added = {**item, "call_id": part.first_id or part.id}
            ev(
                "response.output_item.added",
                output_index=at,
                item={**added, "arguments": "", "status": "in_progress"},
            )
            for piece in pieces(part.args, 3):
                ev(
                    "response.function_call_arguments.delta",
                    item_id=item_id,
                    output_index=at,
                    delta=piece,
                )
            if part.cut:
                # what the API sends for an item cut by max_output_tokens: closed, not proven
                item = {**item, "arguments": part.args, "status": "incomplete"}
            else:
                ev(
                    "response.function_call_arguments.done",
                    item_id=item_id,
                    output_index=at,
                    arguments=part.args,
                )
                item = {**item, "arguments": part.args, "status": "completed"}
            ev("response.output_item.done", output_index=at, item=item)
        output.append(item)
    if error is not None:
        ev("error", code=error_type or "server_error", message=error, param=None)
        return out
    counts = {"input_tokens": usage[0], "output_tokens": usage[1], "total_tokens": sum(usage)}
    final = {**response, "output": output, "usage": counts}
    if end == "length":
        final |= {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
        ev("response.incomplete", response=final)
    else:
        ev("response.completed", response={**final, "status": "completed"})
    return out


# --------------------------------------------------------------------------- Anthropic


def _anthropic(
    parts: Sequence[Part],
    end: End,
    error: str | None,
    usage: tuple[int, int],
    error_type: str | None = None,
) -> list[Chunk]:
    out: list[Chunk] = []

    def ev(kind: str, **fields: Any) -> None:
        out.append(sse_event(kind, {"type": kind, **fields}))

    ev(
        "message_start",
        message={
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "test-model",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": 1},
        },
    )
    ev("ping")
    calls = 0
    index = 0
    block: dict[str, Any]
    for part in parts:
        if isinstance(part, asyncio.Event):
            out.append(part)
            continue
        if isinstance(part, Text):
            ev("content_block_start", index=index, content_block={"type": "text", "text": ""})
            for piece in pieces(part.text, 2):
                ev("content_block_delta", index=index, delta={"type": "text_delta", "text": piece})
            ev("content_block_stop", index=index)
        elif isinstance(part, Hosted):
            block = {"type": "server_tool_use", "id": part.id, "name": "web_search", "input": {}}
            ev("content_block_start", index=index, content_block=block)
            delta = {"type": "input_json_delta", "partial_json": args(query=part.query)}
            ev("content_block_delta", index=index, delta=delta)
            ev("content_block_stop", index=index)
            index += 1
            found = [{"type": "web_search_result", "url": "https://example.com", "title": "x"}]
            block = {"type": "web_search_tool_result", "tool_use_id": part.id, "content": found}
            ev("content_block_start", index=index, content_block=block)
            ev("content_block_stop", index=index)
        elif isinstance(part, Think):
            block = {"type": "thinking", "thinking": "", "signature": ""}
            ev("content_block_start", index=index, content_block=block)
            for piece in pieces(part.text, 2):
                delta = {"type": "thinking_delta", "thinking": piece}
                ev("content_block_delta", index=index, delta=delta)
            delta = {"type": "signature_delta", "signature": part.secret}
            ev("content_block_delta", index=index, delta=delta)
            ev("content_block_stop", index=index)
        else:
            calls += 1
            block = {"type": "tool_use", "id": part.id, "name": part.name, "input": {}}
            ev("content_block_start", index=index, content_block=block)
            for piece in pieces(part.args, 3):
                delta = {"type": "input_json_delta", "partial_json": piece}
                ev("content_block_delta", index=index, delta=delta)
            if not part.cut:  # a block cut by max_tokens never gets its stop
                ev("content_block_stop", index=index)
        index += 1
    if error is not None:
        ev("error", error={"type": error_type or "overloaded_error", "message": error})
        return out
    reason = "max_tokens" if end == "length" else ("tool_use" if calls else "end_turn")
    ev(
        "message_delta",
        delta={"stop_reason": reason, "stop_sequence": None},
        usage={"output_tokens": usage[1]},
    )
    ev("message_stop")
    return out


# --------------------------------------------------------------------------- Chat


def _chat(
    parts: Sequence[Part],
    end: End,
    error: str | None,
    usage: tuple[int, int],
    error_type: str | None = None,
) -> list[Chunk]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return sse_data({"object": "chat.completion.chunk", "choices": [choice]})

    out: list[Chunk] = [chunk({"role": "assistant", "content": ""})]
    calls = 0
    for part in parts:
        if isinstance(part, asyncio.Event):
            out.append(part)
        elif isinstance(part, Text):
            out += [chunk({"content": piece}) for piece in pieces(part.text, 2)]
        elif isinstance(part, Think):
            out += [chunk({"reasoning_content": piece}) for piece in pieces(part.text, 2)]
        elif isinstance(part, Hosted):
            raise ValueError("Chat Completions has no provider-run tools")
        else:
            head = {"index": calls, "id": part.id, "type": "function"}
            head["function"] = {"name": part.name, "arguments": ""}
            delta: dict[str, Any] = {"tool_calls": [head]}
            if part.signature and part.routed:
                text = {"type": "reasoning.text", "format": "google-gemini-v1", "index": 0}
                out.append(
                    chunk({"reasoning": "Plan", "reasoning_details": [{**text, "text": "Plan"}]})
                )
                out.append(
                    chunk({"reasoning": " it.", "reasoning_details": [{**text, "text": " it."}]})
                )
                sign = {"type": "reasoning.encrypted", "data": part.signature, "id": part.id}
                delta["reasoning_details"] = [{**sign, "format": "google-gemini-v1", "index": 1}]
            elif part.signature:
                head["extra_content"] = {"google": {"thought_signature": part.signature}}
            out.append(chunk(delta))
            for piece in pieces(part.args, 3):
                call = {"index": calls, "function": {"arguments": piece}}
                out.append(chunk({"tool_calls": [call]}))
            calls += 1
    if error is not None:
        out.append(sse_data({"error": {"message": error, "type": error_type or "server_error"}}))
        return out
    reason = "length" if end == "length" else ("tool_calls" if calls else "stop")
    out.append(chunk({}, reason))
    counts = {"prompt_tokens": usage[0], "completion_tokens": usage[1]}
    out.append(sse_data({"object": "chat.completion.chunk", "choices": [], "usage": counts}))
    out.append(b"data: [DONE]\n\n")
    return out


# --------------------------------------------------------------------------- error bodies


def overflow_body(wire: str) -> dict[str, Any]:
    """The HTTP 400 body each API answers to a request longer than the context window."""
    if wire == "anthropic-messages":
        return {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "prompt is too long: 210000 tokens > 200000 maximum",
            },
        }
    if wire == "openai-responses":
        return {
            "error": {
                "message": "Your input exceeds the context window of this model. Please "
                "adjust your input and try again.",
                "type": "invalid_request_error",
                "param": "input",
                "code": "context_length_exceeded",
            }
        }
    return {
        "error": {
            "message": "This model's maximum context length is 128000 tokens. However, your "
            "messages resulted in 130000 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


def overloaded_body(wire: str) -> dict[str, Any]:
    if wire == "anthropic-messages":
        return {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    return {"error": {"message": "The server is overloaded", "type": "server_error"}}


# --------------------------------------------------------------------------- the server


@dataclass(frozen=True)
class Seen:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def text(self) -> str:
        return json.dumps(self.body, ensure_ascii=False)


Reply = Callable[["WireServer", web.Request], Awaitable[web.StreamResponse]]


def stream(chunks: Sequence[Chunk]) -> Reply:
    """Answer 200 with ``chunks`` as an event stream, waiting at each gate."""

    async def reply(server: WireServer, request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        try:
            for chunk in chunks:
                if isinstance(chunk, Drop):
                    break
                if isinstance(chunk, asyncio.Event):
                    server.gates.append(chunk)
                    server.held.set()
                    try:
                        async with asyncio.timeout(GATE_TIMEOUT):
                            await chunk.wait()
                    except TimeoutError:
                        break
                    if request.transport is None or request.transport.is_closing():
                        return resp  # the client went away while the body was held
                    continue
                await resp.write(chunk)
            else:
                await resp.write_eof()
                return resp
        except ConnectionError:
            return resp
        if request.transport is not None:
            # a Drop, or a gate nobody set: never answer as if released
            request.transport.close()
        return resp

    return reply


def status(code: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    """Answer HTTP ``code`` with ``body`` as JSON."""

    async def reply(server: WireServer, request: web.Request) -> web.StreamResponse:
        return web.json_response(body, status=code, headers=headers)

    return reply


@dataclass
class WireServer:
    """A loopback endpoint of one wire (see the module doc). ``strict``: a request the
    wire's API would refuse (:func:`problems_of`: two same-role messages in a row, an
    unanswered call, a repeated ``tool_use`` id...) gets HTTP 400 with llama.cpp's
    alternation message (Anthropic's for a repeated id)."""

    wire: str
    replies: list[Reply] = field(default_factory=list)
    """What the next requests are answered, in order (:meth:`answer` queues more)."""
    strict: bool = False
    url: str = ""
    requests: list[Seen] = field(default_factory=list)
    refused: list[list[str]] = field(default_factory=list)
    """The problems of each request the strict server refused."""
    gates: list[asyncio.Event] = field(default_factory=list)
    held: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once a handler holds a body at a gate."""
    models: list[object] | None = None
    """What ``GET /v1/models`` lists (its ``data``); none: 404, as before it was served."""
    thinking: bool = False
    """Chat as DeepSeek's thinking mode checks it: an assistant message with calls and
    no ``reasoning_content`` (or a null ``content`` beside it) gets DeepSeek's 400."""
    signed: bool = False
    """Chat as Gemini 3's OpenAI endpoint checks it: a call sent back without its
    ``extra_content.google.thought_signature`` gets Gemini's 400."""
    mistral: bool = False
    """Chat as Mistral checks it: a call id that is not 9 letters and digits gets
    Mistral's 400."""
    props: dict[str, Any] | None = None
    """What llama.cpp's ``GET /props`` answers (the window, whether its template renders
    tools); none: 404."""
    slots: list[dict[str, Any]] | None = None
    """What llama.cpp's ``GET /slots`` answers (each slot, busy or not); none: 501, as a
    server started with ``--no-slots`` answers."""
    slots_asked: int = 0
    slots_late: float = 0.0
    """Seconds ``/slots`` takes to answer (a server between two batches of a prompt)."""
    pages: dict[str, Any] = field(default_factory=dict)
    """``GET /v1/models/{id}``: each model's page (OpenRouter's ``{"data": {...}}``)."""
    paged: list[str] = field(default_factory=list)
    """The model pages asked for."""
    lmstudio: dict[str, Any] | None = None
    """What LM Studio's ``GET /api/v1/models`` answers; none: 404."""
    ollama: list[str] | None = None
    """Serve as Ollama does beside ``/v1``: ``GET /api/ps`` (nothing loaded) and ``POST
    /api/show`` answering these ``capabilities``; none: 404 there."""
    shown: list[str] = field(default_factory=list)
    """The models ``/api/show`` was asked about."""
    _repeating: bool = False

    async def ollama_ps(self, request: web.Request) -> web.StreamResponse:
        if self.ollama is None:
            return web.json_response({"error": "not found"}, status=404)
        return web.json_response({"models": []})

    async def ollama_show(self, request: web.Request) -> web.StreamResponse:
        if self.ollama is None:
            return web.json_response({"error": "not found"}, status=404)
        self.shown.append((await request.json()).get("model"))
        return web.json_response({"template": "{{ .Prompt }}", "capabilities": self.ollama})

    async def lmstudio_models(self, request: web.Request) -> web.StreamResponse:
        if self.lmstudio is None:
            return web.json_response({"error": "not found"}, status=404)
        return web.json_response(self.lmstudio)

    async def model_page(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        self.paged.append(name)
        if name not in self.pages:
            return web.json_response({"error": {"message": "not found"}}, status=404)
        return web.json_response(self.pages[name])

    async def served_props(self, request: web.Request) -> web.StreamResponse:
        if self.props is None:
            return web.json_response({"error": {"message": "not found"}}, status=404)
        return web.json_response(self.props)

    async def served_slots(self, request: web.Request) -> web.StreamResponse:
        self.slots_asked += 1
        if self.slots_late:
            await asyncio.sleep(self.slots_late)
        if self.slots is None:
            error = {"code": 501, "message": "This server does not support slots endpoint."}
            return web.json_response({"error": error}, status=501)
        return web.json_response(self.slots)

    async def listing(self, request: web.Request) -> web.StreamResponse:
        if self.models is None:
            return web.json_response({"error": {"message": "not found"}}, status=404)
        return web.json_response({"object": "list", "data": self.models})

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(Seen(request.path, dict(request.headers), body))
        if request.path != PATHS[self.wire]:
            return web.json_response({"error": {"message": "wrong path"}}, status=404)
        if self.strict:
            problems = problems_of(self.wire, body)
            if problems:
                self.refused.append(problems)
                said = next((p for p in problems if "must be unique" in p), ALTERNATE)
                return web.json_response({"error": {"message": said}}, status=400)
        if self.mistral and (said := _mistral_refusal(body)):
            self.refused.append([said])
            error = {"object": "error", "message": said, "type": "invalid_function_call"}
            return web.json_response({**error, "param": None, "code": "3280"}, status=400)
        if self.signed and (said := _gemini_refusal(body)):
            self.refused.append([said])
            error = {"code": 400, "message": said, "status": "INVALID_ARGUMENT"}
            return web.json_response([{"error": error}], status=400)
        if self.thinking and (said := _deepseek_refusal(body)):
            self.refused.append([said])
            error = {"message": said, "type": "invalid_request_error", "param": None}
            return web.json_response(
                {"error": {**error, "code": "invalid_request_error"}}, status=400
            )
        return await self._next()(self, request)

    def answer(self, *replies: Reply) -> None:
        """Queue what the next requests are answered (the last one repeats until more are
        queued)."""
        if self._repeating:
            self.replies.clear()
            self._repeating = False
        self.replies.extend(replies)

    def _next(self) -> Reply:
        reply = self.replies[0]
        if len(self.replies) > 1:
            self.replies.pop(0)
        else:
            self._repeating = True
        return reply

    def problems(self) -> list[tuple[int, list[str]]]:
        """Every received request the wire's API would refuse, by index."""
        found = [(i, problems_of(self.wire, r.body)) for i, r in enumerate(self.requests)]
        return [(i, p) for i, p in found if p]

    def release(self) -> None:
        for gate in self.gates:
            gate.set()


def _mistral_refusal(body: Any) -> str | None:
    """What Mistral answers a history holding a call id of another shape."""
    for m in body.get("messages", []):
        ids = [c["id"] for c in m.get("tool_calls") or []]
        ids += [m["tool_call_id"]] if m.get("role") == "tool" else []
        for ident in ids:
            if not (len(ident) == 9 and ident.isascii() and ident.isalnum()):
                return f"Tool call id was {ident} but must be a-z, A-Z, 0-9, with a length of 9."
    return None


def _gemini_refusal(body: Any) -> str | None:
    """What Gemini 3 answers a history whose call lost its thought signature (on the call,
    or, through OpenRouter, as a ``reasoning.encrypted`` detail naming it)."""
    at = 0
    for m in body.get("messages", []):
        routed = {
            d.get("id")
            for d in m.get("reasoning_details") or []
            if d.get("type") == "reasoning.encrypted" and d.get("data")
        }
        for call in m.get("tool_calls") or []:
            at += 1
            extra = call.get("extra_content") or {}
            if not extra.get("google", {}).get("thought_signature") and call["id"] not in routed:
                name = call["function"]["name"]
                return (
                    "Function call is missing a thought_signature in functionCall parts. "
                    "This is required for tools to work correctly, and missing "
                    "thought_signature may lead to degraded model performance. Additional "
                    f"data, function call `default_api:{name}` , position {at}. Please refer "
                    "to https://ai.google.dev/gemini-api/docs/thought-signatures for more "
                    "details."
                )
    return None


def _deepseek_refusal(body: Any) -> str | None:
    """What DeepSeek's thinking mode answers a history that lost a call's reasoning."""
    for i, m in enumerate(body.get("messages", [])):
        if m.get("role") != "assistant" or not m.get("tool_calls"):
            continue
        if "reasoning_content" not in m:
            return (
                f"Missing `reasoning_content` field in the assistant message at message "
                f"index {i}. For more information, please refer to "
                "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"
            )
        if m.get("content") is None:
            return "The `reasoning_content` in the thinking mode must be passed back to the API."
    return None


@asynccontextmanager
async def serve_wire(server: WireServer, sock: socket.socket | None = None) -> AsyncIterator[str]:
    """Serve the three wires' paths on 127.0.0.1 (a free port, or ``sock``: bound, and
    listened on from now); sets and yields ``server.url`` (the base URL, ``.../v1``)."""
    app = web.Application()
    for path in PATHS.values():
        app.router.add_post(path, server.dispatch)
    app.router.add_get("/v1/models", server.listing)
    app.router.add_get("/v1/models/{name:.+}", server.model_page)
    app.router.add_get("/props", server.served_props)
    app.router.add_get("/slots", server.served_slots)
    app.router.add_get("/api/ps", server.ollama_ps)
    app.router.add_get("/api/v1/models", server.lmstudio_models)
    app.router.add_post("/api/show", server.ollama_show)
    runner = web.AppRunner(app, shutdown_timeout=1.0)
    await runner.setup()
    try:
        site: web.BaseSite
        if sock is not None:
            site = web.SockSite(runner, sock)
        else:
            site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        server.url = f"http://127.0.0.1:{port}/v1"
        yield server.url
    finally:
        server.release()
        await runner.cleanup()


def refusing_socket() -> socket.socket:
    """A socket bound to a free loopback port and not listening: connecting to it is
    refused at once, until :func:`serve_wire` listens on it (same port, no race)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


__all__ = [
    "ALTERNATE",
    "PATHS",
    "WIRES",
    "Call",
    "Drop",
    "Hosted",
    "Seen",
    "Text",
    "Think",
    "WireServer",
    "args",
    "overflow_body",
    "overloaded_body",
    "problems_of",
    "refusing_socket",
    "script",
    "serve_wire",
    "status",
    "stream",
]


def loopback_config(url: str, wire: str) -> Config:
    """A session's settings against a :class:`WireServer` at ``url``: native calls, no
    prompts, a test key, a window no test fills, no project instructions."""
    return Config(
        base_url=url,
        model="test-model",
        wire=wire,
        protocol="native-inc",
        approval="auto",
        api_key="sk-test-0123456789",
        context_window=100_000,
        instructions=False,
    )
