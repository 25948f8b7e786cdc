"""Anthropic Messages (``POST {base_url}/messages``): Claude's own API, and the
Anthropic-compatible endpoints other providers offer.

Requests: ``system`` beside the messages; ``max_tokens`` always (the API requires it);
strictly alternating ``user`` / ``assistant`` messages of content blocks. A user message
carries the native results first (``tool_result`` naming its ``tool_use_id``, ``is_error``
for a failed call), then its text; an assistant message carries the reasoning blocks this
wire made, first and unchanged (a ``thinking`` block with its ``signature``, a
``redacted_thinking`` block with its ``data``: the API checks them, and wants them before
the ``tool_use`` they led to), then its text, then its ``tool_use`` blocks. Empty and
whitespace-only text blocks are never sent (the API rejects them); call ids are made to
fit the API's ``^[a-zA-Z0-9_-]+$`` (a session begun on another wire may hold others).
Tools are ``{"name", "description", "input_schema"}``. A prefill is a trailing assistant
message; one that ends in whitespace is refused here (``ValueError``: the API would
answer 400, so the caller resends instead).

Events: every event's ``data`` names its ``type``. ``message_start`` gives the input
usage; ``content_block_start`` opens block ``index``: ``text`` and ``thinking`` stream
their deltas (``text_delta`` text, ``thinking_delta`` reasoning, ``signature_delta`` kept
for the block), ``redacted_thinking`` is whole at once, ``tool_use`` is a call keyed by
its block index whose arguments are the ``input_json_delta`` pieces (the ``input: {}``
of the start is a placeholder; a non-empty start ``input`` with no pieces after it *is*
the arguments), ``server_tool_use`` / ``mcp_tool_use`` are the provider's own tools
(shown, never run). ``content_block_stop`` completes a call (``CallDone`` with proof)
and closes a reasoning block (``ReasoningBlock``, to be sent back). ``message_delta``
carries the stop reason and the output usage, ``message_stop`` ends the message;
``ping`` means nothing; an ``error`` event is a server error. A ``tool_use`` block cut by
``max_tokens`` gets no stop from Anthropic; llama.cpp's server stops it anyway, before
``max_tokens``: the native accumulator holds a stopped call whose JSON is still open for
the finish, and reports it truncated either way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence

from frontier.app.events import TokenUsage
from frontier.app.hashes import sha256_hex
from frontier.app.model.conversation import NO_REPLY, AssistantMessage, Item, wire_messages
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import (
    UNREADABLE_PREVIEW,
    CallArgs,
    CallDone,
    CallStart,
    Delta,
    End,
    Finish,
    Ignored,
    Malformed,
    ReasoningBlock,
    ReasoningDelta,
    ServerError,
    ServerToolCall,
    TextDelta,
    Unreadable,
    UsageDelta,
)
from frontier.app.model.think_tags import ThinkTags, split_think
from frontier.app.record import field, record
from frontier.app.wire import safejson

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

    from frontier.app.model.stream import FinishReason
    from frontier.app.model.wires.base import TextField

    BlockKind = Literal["text", "thinking", "redacted", "tool", "server", "other"]

API_VERSION = "2023-06-01"
"""The ``anthropic-version`` header: the one version of the Messages API there is."""

DEFAULT_MAX_TOKENS = 8192
"""``max_tokens`` when the request names none. The API refuses a request without it
(unlike Chat Completions, where absent means "up to the window"), and a figure above a
model's output limit is refused too, so the default is one every Claude model from 3.5
on accepts (8192 is Claude 3.5 Haiku's limit, the smallest of them; the Claude 3 models
take 4096) and Anthropic-compatible servers take. It is a fallback: the runtime passes
the catalogue's figure for the model."""

MAX_KEPT = safejson.MAX_CHARS
"""Characters of reasoning (thinking text and signatures) one response may keep for
the blocks sent back. A block past it is dropped whole (an ``Ignored`` note says so):
a thinking block cut short would fail the API's signature check anyway."""

MAX_ERROR = 4096
"""Characters of a server's error message kept (it is shown and logged)."""

SERVER_TOOL_BLOCKS = frozenset({"server_tool_use", "mcp_tool_use"})
"""Blocks of a tool the provider runs itself: shown as ``ServerToolCall``, never run.
Their results (``web_search_tool_result``, ``mcp_tool_result``, ...) are other blocks and
are not shown a second time."""

FINISH: Mapping[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "pause_turn": "pause",
    "refusal": "content_filter",
    # Chat Completions' words, which a gateway translating another API to this one may
    # pass through (read case-insensitively, as the Chat wire reads Anthropic's)
    "stop": "stop",
    "tool_calls": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}
"""Anthropic's stop reasons, normalised (the word lower-cased); any other word is
``other`` (never proof). ``model_context_window_exceeded`` (the output ran into the
context window) cuts the message like ``max_tokens`` does."""

EMPTY_RESULT = "(no output)"
"""A ``tool_result`` body that is empty: some Anthropic-compatible servers reject empty
content, and the model reads the placeholder as what it is."""
EMPTY_MESSAGE = "(empty message)"
"""A user message left with no block (its text was only whitespace, which the API
rejects as a text block; a message needs at least one block), or a request whose
history has no message at all (the API wants one)."""

_TOOL_ID = re.compile(r"[A-Za-z0-9_-]+")
EVENT_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    }
)
"""The Messages stream's own event names (``ping`` and ``error`` are too generic to tell)."""


_TOKENS_OVER = re.compile(r"max_tokens: (\d{1,9}) > (\d{1,9})")
"""The API's refusal of a cap over the model's own: ``max_tokens: 32000 > 8192, which is the
maximum allowed number of output tokens for …``."""
CACHE = {"type": "ephemeral"}
"""A prompt-cache breakpoint (``cache_control``): the request's prefix up to the block
that carries it is kept by the API for reuse (5 minutes, renewed by each hit)."""


class Codec:
    """The Anthropic Messages wire (see the module doc). One per client: it remembers a
    server that rejected prompt caching (:meth:`rejected`)."""

    def __init__(self) -> None:
        self.cache = True
        """Mark prompt-cache breakpoints (:func:`cached`); off once a server refuses them."""
        self.most_tokens: int | None = None
        """The model's own cap on ``max_tokens``, once a refusal named it (:meth:`rejected`)."""
        self.thinking = True
        """Ask for extended thinking when a request names an effort; off once refused (a
        model without it, a proxy that knows no such field)."""
        self.refused_kinds: set[str] = set()
        """Ways of asking to think a refusal named (``adaptive``, ``budget``): the other is
        tried, once (:meth:`_thinking_kind`)."""
        self._sent_thinking = ""
        """How the last body built asked to think (only then can a refusal be of it)."""

    name = "anthropic-messages"
    path = "messages"
    sdk_prefix = "v1"
    signals_call_done = True
    can_prefill = True
    records_bare_events = True
    required_max_tokens = 32_000
    """What a session asks for when nobody set a cap: the model's own limit from the
    catalogue, at most this (what Claude Code asks for)."""
    native_sign = "a tool_use block"

    def recognises(self, event: str | None, obj: dict[str, Any] | None) -> str | None:
        """The stream's event names or ``type``s (``message_start``, ``content_block_*``
        …), or an ``error`` event with a nested ``error`` object (Responses' is flat)."""
        if event in EVENT_TYPES:
            return "event names"
        kind = obj.get("type") if obj is not None else None
        if kind in EVENT_TYPES:
            return "event types"
        if kind == "error" and obj is not None and isinstance(obj.get("error"), dict):
            return "its error event's shape"
        return None

    # ------------------------------------------------------------------ requests

    def headers(self, api_key: str | None) -> dict[str, str]:
        """``x-api-key`` (not a Bearer token) and the API version every request names."""
        headers = {
            "anthropic-version": API_VERSION,
            "accept": "text/event-stream",
            "content-type": "application/json",
        }
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    def body(self, request: ModelRequest, model: str) -> dict[str, Any]:
        """The request body; ``ValueError`` for a prefill the API would refuse."""
        messages = encode_messages(request.items, native=request.native, wire=self.name)
        if request.prefill:
            if request.prefill != request.prefill.rstrip():
                raise ValueError(
                    "the Anthropic Messages API refuses a final assistant message that "
                    "ends in whitespace; this prefill does, so resend the response instead "
                    "of continuing it"
                )
            block = {"type": "text", "text": request.prefill}
            if messages and messages[-1]["role"] == "assistant":
                messages[-1]["content"].append(block)  # the roles must alternate
            else:
                messages.append({"role": "assistant", "content": [block]})
        asked = request.max_tokens or DEFAULT_MAX_TOKENS
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": min(asked, self.most_tokens or asked),
            "messages": messages,
            "stream": True,
        }
        if request.system:
            body["system"] = request.system
        kind = self._thinking_kind(model) if request.effort in THINKING_BUDGETS else ""
        budget = thinking_budget(request.effort, body["max_tokens"])
        if not kind or request.prefill:
            pass  # a continued message cannot think first: the API refuses a prefill with it
        elif _unthought_tool_loop(messages):
            pass  # the API refuses it there; the model thinks again from the next message
        elif kind == "adaptive":
            body["thinking"] = {"type": "adaptive"}
            body["output_config"] = {"effort": request.effort}
        elif budget:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        self._sent_thinking = kind if "thinking" in body else ""
        if self.cache and not request.once:
            cached(body)
        if request.tools:
            body["tools"] = [
                {
                    "name": t.name,
                    "description": t.description,
                    "input_schema": dict(t.parameters),
                }
                for t in request.tools
            ]
        extra = dict(request.extra)
        extra.pop("stream", None)  # the loop reads a stream; it is never turned off
        body.update(extra)
        return body

    def _thinking_kind(self, model: str) -> str:
        """How to ask ``model`` to think (``adaptive``, ``budget``), ``""`` for not at all:
        the catalogue's way, else adaptive (every Claude model since 4.6 takes it, and
        from Opus 4.7 on the only way), less any way a refusal named; a model the
        catalogue knows to have no reasoning is never asked."""
        if not self.thinking:
            return ""
        from frontier.app.model.catalogue import known

        info = known(model)
        if info is not None and not info.reasoning:
            return ""
        first = info.thinking if info is not None and info.thinking else "adaptive"
        order = (first, "budget" if first == "adaptive" else "adaptive")
        return next((kind for kind in order if kind not in self.refused_kinds), "")

    def rejected(self, status: int, text: str) -> str | None:
        """Prompt caching is the one optional thing sent: a server that refuses it (a
        strict proxy of another API: its refusal names ``cache_control`` or ``system``) is
        asked again without it, once; a cap over the model's own is lowered to it; any
        other refusal is final."""
        if status in (400, 422) and self.cache and ("cache_control" in text or "system" in text):
            # a strict proxy of the API may refuse the field, or a system prompt given as
            # blocks (the form a breakpoint needs) where it takes only a string
            self.cache = False
            return "the server rejected cache_control; retrying without prompt caching"
        sent = self._sent_thinking
        if status in (400, 422) and sent and any(word in text for word in _THINKING_WORDS):
            other = "budget" if sent == "adaptive" else "adaptive"
            if _names_the_kind(text) and other not in self.refused_kinds:
                # the model thinks the other way: Opus 4.7 on takes only adaptive
                # thinking, 4.5 and before only a budget
                self.refused_kinds.add(sent)
                return f"the server refused {sent} thinking; retrying with {other} thinking"
            # a model without extended thinking, a proxy that knows no such field, a
            # history whose last assistant turn was made without it
            self.thinking = False
            return "the server refused extended thinking; retrying without it"
        over = _TOKENS_OVER.search(text) if status in (400, 422) else None
        if over is not None and int(over.group(2)) > 0 and self.most_tokens is None:
            # a model the catalogue does not know (a proxy's alias) is asked for 32,000
            self.most_tokens = int(over.group(2))
            return f"the model allows at most {self.most_tokens:,} output tokens; retrying"
        return None

    # ------------------------------------------------------------------ responses

    def decoder(self) -> ThinkTags:
        """A response's decoder; a reply that opens with ``<think>`` has it as reasoning
        (``think_tags.py``)."""
        return ThinkTags(MessagesDecoder())

    def streamed_text(self, data: str) -> Iterator[TextField]:
        """The model's strings in one event: deltas of text, thinking, a call's input
        (and a compaction summary), and the text, thinking, tool name and input strings
        a block may start with. Keyed per block (``index``): a secret never spans two."""
        try:
            obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError:
            return
        if not isinstance(obj, dict):
            return
        index = _int(obj.get("index"))
        at = index if index is not None else repr(obj.get("index"))
        kind = obj.get("type")
        if kind == "content_block_delta" and isinstance(obj.get("delta"), dict):
            delta = obj["delta"]
            for name, stream in _DELTA_TEXT:
                text = delta.get(name)
                if isinstance(text, str) and text:
                    yield (stream, at), ("delta", name), text
        elif kind == "content_block_start" and isinstance(obj.get("content_block"), dict):
            block = obj["content_block"]
            for name, stream in (("text", "text"), ("thinking", "thinking"), ("name", "name")):
                text = block.get(name)
                if isinstance(text, str) and text:
                    yield (stream, at), ("content_block", name), text
            if "input" in block:
                for path, text in _strings(block["input"], ("content_block", "input")):
                    yield ("input", at, *path[2:]), path, text

    def error_text(self, obj: Any) -> str:
        return error_message(obj)

    def whole_stream(self, obj: Any) -> list[tuple[str, str]] | None:
        return whole_events(obj)

    def json_answer(self, obj: Any) -> list[Delta] | None:
        """A ``message`` object (a server that ignored ``stream: true``), as the deltas
        its stream would have carried."""
        deltas = self._whole_answer(obj)
        return None if deltas is None else split_think(deltas)

    def _whole_answer(self, obj: Any) -> list[Delta] | None:
        if not isinstance(obj, dict) or not isinstance(obj.get("content"), list):
            return None
        if obj.get("type") != "message" and obj.get("role") != "assistant":
            return None
        out: list[Delta] = []
        for index, block in enumerate(obj["content"]):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str) and block["text"]:
                out.append(TextDelta(block["text"]))
            elif kind == "thinking":
                thinking = _str(block.get("thinking"))
                if thinking:
                    out.append(ReasoningDelta(thinking))
                signature = _str(block.get("signature"))
                data = {"type": "thinking", "thinking": thinking, "signature": signature}
                out.append(ReasoningBlock(data))
            elif kind == "redacted_thinking":
                out.append(ReasoningBlock({"type": kind, "data": _str(block.get("data"))}))
            elif kind == "tool_use":
                out.append(CallStart(index, _str(block.get("id")), _str(block.get("name"))))
                arguments = block.get("input")
                text = _compact(arguments) if arguments is not None else ""
                out.append(CallDone(index, arguments=text if arguments else None))
            elif kind in SERVER_TOOL_BLOCKS:
                out.append(ServerToolCall(_str(block.get("name")), _str(block.get("id"))))
        raw = obj.get("stop_reason")
        raw = raw if isinstance(raw, str) and raw else "end_turn"
        out.append(Finish(FINISH.get(raw.lower(), "other"), raw))
        if isinstance(obj.get("usage"), dict):
            usage = _Usage()
            usage.update(obj["usage"])
            out.append(UsageDelta(usage.tokens()))
        out.append(End())
        return out


_DELTA_TEXT = (
    ("text", "text"),
    ("thinking", "thinking"),
    ("partial_json", "input"),
    ("content", "compaction"),
)
"""``content_block_delta.delta`` fields the model wrote, and the stream each belongs to."""


# --------------------------------------------------------------------------- decoding


@record(frozen=False, slots=True)
class _Block:
    """One open content block: what the decoder must remember until its stop."""

    kind: BlockKind
    start_input: str = ""
    """A ``tool_use`` start's non-empty ``input`` (compact JSON): the arguments when no
    piece follows."""
    pieces: bool = False
    """A ``tool_use`` block received a non-empty ``input_json_delta``."""
    thinking: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    dropped: bool = False
    """Its reasoning passed ``MAX_KEPT``: it is not sent back."""
    data: dict[str, Any] | None = None
    """A ``redacted_thinking`` block as it came."""


class _Usage:
    """The response's token counts so far: ``message_start`` gives the input side,
    ``message_delta`` the (cumulative) output and sometimes the input again (the last
    value of each field wins)."""

    __slots__ = ("cache_read", "cache_write", "input", "output")

    def __init__(self) -> None:
        self.input: int | None = None
        self.output: int | None = None
        self.cache_read: int | None = None
        self.cache_write: int | None = None

    def update(self, usage: Mapping[str, Any]) -> None:
        for name, attr in (
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_input_tokens", "cache_read"),
            ("cache_creation_input_tokens", "cache_write"),
        ):
            value = _int(usage.get(name))
            if value is not None and value >= 0:
                setattr(self, attr, value)

    def tokens(self) -> TokenUsage:
        """``prompt`` is the whole prompt, as OpenAI counts it: Anthropic's
        ``input_tokens`` leave out what was read from or written to the prompt cache, so
        both are added (the context budget needs the whole size); ``cached`` is the part
        read from the cache."""
        prompt = None
        if self.input is not None or self.cache_read is not None or self.cache_write is not None:
            prompt = (self.input or 0) + (self.cache_read or 0) + (self.cache_write or 0)
        return TokenUsage(prompt, self.output, self.cache_read)


class MessagesDecoder:
    """One Messages response: events in, deltas out (see the module doc).

    State is the blocks still open (what each needs at its stop) and the usage; reasoning
    kept for the blocks sent back is capped (``MAX_KEPT``). Every event is parsed once,
    so time is linear in the body; junk never raises."""

    def __init__(self) -> None:
        self.skipped = 0
        self._blocks: dict[int, _Block] = {}
        self._keys: dict[int, int] = {}
        """The call key of each open ``tool_use`` block (its index, unless a call had it)."""
        self._called: set[int] = set()
        """The keys calls have had: a block starting at one of them again is another call."""
        self._max_key = -1
        self._usage = _Usage()
        self._kept = 0
        self._ended = False

    def feed(self, event: str, data: str) -> list[Delta]:
        stripped = data.strip()
        if not stripped:
            return []
        if stripped == "[DONE]":
            # Not Anthropic's (it ends with message_stop), but vercel/ai's test streams
            # end so, as a proxy written for Chat Completions may; after message_stop it
            # says nothing new.
            return [] if self._ended else self._end()
        try:
            obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
        except safejson.JsonLimitError as exc:
            # Not junk to skip: it may have carried a call's input.
            return [Malformed(f"an SSE event is {exc}; resend the response")]
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            if event == "error":
                return [ServerError(stripped[:MAX_ERROR])]
            self.skipped += 1
            return [Unreadable(stripped[:UNREADABLE_PREVIEW])]
        kind = obj.get("type")
        kind = kind if isinstance(kind, str) else event
        if kind == "error" or event == "error":
            return [ServerError(error_message(obj))]
        if self._ended:
            if kind == "ping":
                return []
            return [Ignored(f"ignored a {kind!r} event after message_stop")]
        if kind == "content_block_delta":
            return self._delta(obj)
        if kind == "content_block_start":
            return self._start(obj)
        if kind == "content_block_stop":
            return self._stop(obj)
        if kind == "message_start":
            message = obj.get("message")
            usage = message.get("usage") if isinstance(message, dict) else None
            if isinstance(usage, dict):
                self._usage.update(usage)
                return [UsageDelta(self._usage.tokens())]
            return []
        if kind == "message_delta":
            return self._message_delta(obj)
        if kind == "message_stop":
            return self._end()
        return []  # ping, and events this decoder does not know

    def _end(self) -> list[Delta]:
        self._ended = True
        self._blocks.clear()
        return [End()]

    def _start(self, obj: Mapping[str, Any]) -> list[Delta]:
        index, block = _int(obj.get("index")), obj.get("content_block")
        if index is None or not isinstance(block, dict):
            return []
        kind = block.get("type")
        out: list[Delta] = []
        if kind == "tool_use":
            arguments = block.get("input")
            start_input = _compact(arguments) if arguments else ""
            self._blocks[index] = _Block("tool", start_input=start_input)
            # an index used again (a server's counting slip: rules.py names it) is another
            # call, after the ones before it; appended to the first, both were lost
            key = index if index not in self._called else self._max_key + 1
            self._keys[index] = key
            self._called.add(key)
            self._max_key = max(self._max_key, key, index)
            out.append(CallStart(key, _str(block.get("id")), _str(block.get("name"))))
        elif kind in SERVER_TOOL_BLOCKS:
            self._blocks[index] = _Block("server")
            out.append(ServerToolCall(_str(block.get("name")), _str(block.get("id"))))
        elif kind == "thinking":
            state = self._blocks[index] = _Block("thinking")
            text = _str(block.get("thinking"))
            if text:
                out.append(ReasoningDelta(text))
                self._keep(state, state.thinking, text)
            self._keep(state, state.signature, _str(block.get("signature")))
        elif kind == "redacted_thinking":
            self._blocks[index] = _Block("redacted", data={"type": kind, "data": block.get("data")})
        elif kind == "text":
            self._blocks[index] = _Block("text")
            if isinstance(block.get("text"), str) and block["text"]:
                out.append(TextDelta(block["text"]))
        else:
            self._blocks[index] = _Block("other")  # fallback, compaction, tool results, ...
        return out

    def _delta(self, obj: Mapping[str, Any]) -> list[Delta]:
        index, delta = _int(obj.get("index")), obj.get("delta")
        if not isinstance(delta, dict):
            return []
        block = self._blocks.get(index) if index is not None else None
        kind = delta.get("type")
        if kind == "text_delta":
            text = delta.get("text")
            return [TextDelta(text)] if isinstance(text, str) and text else []
        if kind == "thinking_delta":
            text = delta.get("thinking")
            if not isinstance(text, str) or not text:
                return []
            if block is not None and block.kind == "thinking":
                self._keep(block, block.thinking, text)
            return [ReasoningDelta(text)]
        if kind == "signature_delta":
            if block is not None and block.kind == "thinking":
                self._keep(block, block.signature, _str(delta.get("signature")))
            return []
        if kind == "input_json_delta":
            if block is None or block.kind != "tool":
                if block is None:
                    return [Ignored(f"ignored input for block {index!r}, which is not open")]
                return []  # a server tool's input: shown by the provider, never run
            piece = delta.get("partial_json")
            if not isinstance(piece, str):
                return [Malformed(f"block {index}: partial_json is not a string")]
            if not piece:
                return []  # a tool without parameters sends one "": {}
            assert index is not None  # the block was found by it
            block.pieces = True
            return [CallArgs(self._keys.get(index, index), piece)]
        return []

    def _stop(self, obj: Mapping[str, Any]) -> list[Delta]:
        index = _int(obj.get("index"))
        block = self._blocks.pop(index, None) if index is not None else None
        if index is None or block is None:
            return []
        if block.kind == "tool":
            arguments = block.start_input if block.start_input and not block.pieces else None
            return [CallDone(self._keys.pop(index, index), arguments=arguments)]
        if block.kind == "thinking":
            if block.dropped:
                return [Ignored(f"thinking block {index} passed {MAX_KEPT} characters: not kept")]
            thinking, signature = "".join(block.thinking), "".join(block.signature)
            if not thinking and not signature:
                return []  # nothing to send back (the API would refuse an empty block)
            data = {"type": "thinking", "thinking": thinking, "signature": signature}
            return [ReasoningBlock(data)]
        if block.kind == "redacted" and block.data is not None:
            return [ReasoningBlock(block.data)]
        return []

    def _message_delta(self, obj: Mapping[str, Any]) -> list[Delta]:
        out: list[Delta] = []
        delta = obj.get("delta")
        raw = delta.get("stop_reason") if isinstance(delta, dict) else None
        if isinstance(raw, str) and raw:
            out.append(Finish(FINISH.get(raw.lower(), "other"), raw))
        if isinstance(obj.get("usage"), dict):
            self._usage.update(obj["usage"])
            out.append(UsageDelta(self._usage.tokens()))
        return out

    def _keep(self, block: _Block, into: list[str], text: str) -> None:
        """Keep ``text`` of a reasoning block for sending it back, within ``MAX_KEPT``."""
        if block.dropped or not text:
            return
        if self._kept + len(text) > MAX_KEPT:
            block.dropped = True
            self._kept -= sum(map(len, block.thinking)) + sum(map(len, block.signature))
            block.thinking.clear()
            block.signature.clear()
            return
        self._kept += len(text)
        into.append(text)


def error_message(obj: Any) -> str:
    """The human part of an Anthropic error (``{"type": "error", "error": {"type",
    "message"}}``, the inner object, or anything else), at most ``MAX_ERROR`` characters."""
    error = obj.get("error", obj) if isinstance(obj, dict) else obj
    if isinstance(error, dict):
        message = error.get("message")
        kind = error.get("type")
        text = message if isinstance(message, str) and message else _compact(error)
        if isinstance(kind, str) and kind and kind != "error" and kind not in text:
            text = f"{text} ({kind})"
    else:
        text = error if isinstance(error, str) else _compact(error)
    return text[:MAX_ERROR]


# --------------------------------------------------------------------------- messages


def cached(body: dict[str, Any]) -> None:
    """Prompt-cache breakpoints in ``body``: the system prompt (with the tools before it,
    in the API's order) and the last block of each of the last two user messages. Without
    them the API caches nothing, so every turn of a session was read whole again, the
    first byte waiting on all of it (and billed at the full input price); with them a turn
    reads the conversation up to the turn before from the cache. The second-to-last user
    message carries one because the API looks back only 20 blocks from a breakpoint for a
    hit, and a turn of parallel calls adds more. Four at most are allowed: three are set.
    A prefix under the model's minimum (1,024 tokens, 2,048 for Haiku) is not cached, and
    no error is made."""
    system = body.get("system")
    if isinstance(system, str) and system:
        body["system"] = [{"type": "text", "text": system, "cache_control": CACHE}]
    users = [m for m in body["messages"] if m["role"] == "user"][-2:]
    for message in users:
        message["content"][-1] = {**message["content"][-1], "cache_control": CACHE}


def _unthought_tool_loop(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the request goes on with a tool loop (its last message holds results) whose
    assistant message does not start with a thinking block. The API refuses thinking
    then ("a final assistant message must start with a thinking block"): the effort was
    raised mid-turn (``/effort`` applies from the next request), or a resumed session's
    results answer calls made without thinking. Refused, thinking was turned off for the
    rest of the session; now it is left out of that one request."""
    if len(messages) < 2 or messages[-1]["role"] != "user":
        return False
    last, before = messages[-1]["content"], messages[-2]["content"]
    if not any(isinstance(b, Mapping) and b.get("type") == "tool_result" for b in last):
        return False
    first = before[0] if before and isinstance(before[0], Mapping) else {}
    return first.get("type") not in ("thinking", "redacted_thinking")


def encode_messages(items: Sequence[Item], *, native: bool, wire: str) -> list[dict[str, Any]]:
    """The history as Messages API messages: alternating, starting with ``user``, every
    ``tool_use`` answered by one ``tool_result`` in the next message (``wire_messages``
    makes the history so; this only writes the blocks)."""
    out: list[dict[str, Any]] = []
    ids = _UniqueIds()
    for message in wire_messages(items, native=native, wire=wire):
        content: list[dict[str, Any]] = []
        if isinstance(message, AssistantMessage):
            ids.new_turn()
            content.extend(dict(block) for block in message.reasoning)
            if message.text.strip():
                content.append({"type": "text", "text": message.text})
            content.extend(
                {
                    "type": "tool_use",
                    "id": ids.use(c.id),
                    "name": c.name,
                    "input": dict(c.arguments),
                }
                for c in message.calls
            )
            if not any(b.get("type") in ("text", "tool_use") for b in content):
                content.append({"type": "text", "text": message.text.strip() or NO_REPLY})
            out.append({"role": "assistant", "content": content})
            continue
        content.extend(
            {
                "type": "tool_result",
                "tool_use_id": ids.answer(r.call_id),
                "content": r.body or EMPTY_RESULT,
                "is_error": r.kind not in ("ok", "applied"),
            }
            for r in message.results
        )
        content.extend(
            {
                "type": "image",
                "source": {"type": "base64", "media_type": i.media_type, "data": i.data},
            }
            for i in message.images
        )
        if message.text.strip():
            content.append({"type": "text", "text": message.text})
        if not content:
            content.append({"type": "text", "text": EMPTY_MESSAGE})
        out.append({"role": "user", "content": content})
    if not out:  # the API wants at least one message
        out.append({"role": "user", "content": [{"type": "text", "text": EMPTY_MESSAGE}]})
    return out


class _UniqueIds:
    """``tool_use`` ids unique within one request, as the API requires ("tool_use ids must
    be unique"): other servers reuse ids across responses (LM Studio's ``call_0``, a
    scripted ``call_1``), so a later call with an id used before is sent as ``ID_2`` and
    the result right after it names it the same way."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._current: dict[str, str] = {}
        """The ids of the last assistant message: what its results answer."""

    def use(self, ident: str) -> str:
        base = tool_id(ident)
        unique, n = base, 1
        while unique in self._used:
            n += 1
            unique = f"{base}_{n}"
        self._used.add(unique)
        self._current.setdefault(ident, unique)
        return unique

    def new_turn(self) -> None:
        """An assistant message begins: its results answer its own calls."""
        self._current = {}

    def answer(self, ident: str) -> str:
        found = self._current.get(ident)
        return found if found is not None else tool_id(ident)


_THINKING_WORDS = ("thinking", "adaptive", "output_config", "effort", "budget_tokens")
"""Words a refusal of the way a body asked to think names."""
_KIND_WORDS = ("adaptive", "output_config", "effort", "budget_tokens", "enabled")
"""Words that say the way of asking was refused, not thinking itself (Anthropic: "Input
tag 'adaptive' found using 'type' does not match any of the expected tags: 'disabled',
'enabled'"; "thinking.type.enabled is not supported for this model. Use
thinking.type.adaptive")."""


def _names_the_kind(text: str) -> bool:
    return any(word in text for word in _KIND_WORDS)


THINKING_BUDGETS = {"low": 4_000, "medium": 10_000, "high": 32_000}
"""Extended thinking's ``budget_tokens`` for each ``reasoning_effort`` (at most half of
``max_tokens``, which counts the thinking too; the API's least is 1,024)."""


def thinking_budget(effort: str | None, max_tokens: int) -> int | None:
    """The thinking budget for ``effort`` under a ``max_tokens`` cap, or ``None``."""
    wanted = THINKING_BUDGETS.get(effort or "")
    if wanted is None:
        return None
    budget = min(wanted, max_tokens // 2)
    return budget if budget >= 1_024 else None


def tool_id(ident: str) -> str:
    """``ident`` as the API accepts a ``tool_use`` id (``^[a-zA-Z0-9_-]+$``): as it is
    when it fits, else its allowed characters and a hash of the whole (so two ids never
    meet, and a call and its result map alike)."""
    if _TOOL_ID.fullmatch(ident):
        return ident
    digest = sha256_hex(ident.encode("utf-8", "replace"))[:12]
    kept = "".join(_TOOL_ID.findall(ident))[:64]
    return f"{kept}_{digest}" if kept else f"call_{digest}"


# --------------------------------------------------------------------------- helpers


def _int(value: object) -> int | None:
    """``value`` when it is a JSON integer (``true`` is not ``1``), else ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def whole_events(obj: Any) -> list[tuple[str, str]] | None:
    """A ``message`` object as the events of its stream: ``message_start`` (no content
    yet), each block started whole and stopped, ``message_delta`` with the stop reason,
    ``message_stop``."""
    if not isinstance(obj, dict) or not isinstance(obj.get("content"), list):
        return None
    if obj.get("type") != "message" and obj.get("role") != "assistant":
        return None
    usage = obj.get("usage")
    start = {**obj, "content": [], "stop_reason": None, "stop_sequence": None}
    out: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(obj["content"]):
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        out.append({"type": "content_block_stop", "index": index})
    delta = {"stop_reason": obj.get("stop_reason"), "stop_sequence": obj.get("stop_sequence")}
    end: dict[str, Any] = {"type": "message_delta", "delta": delta}
    if isinstance(usage, dict) and "output_tokens" in usage:
        end["usage"] = {"output_tokens": usage["output_tokens"]}
    out += [end, {"type": "message_stop"}]
    return [(e["type"], json.dumps(e, ensure_ascii=False, separators=(",", ":"))) for e in out]


def _compact(value: Any) -> str:
    """A JSON value as compact text, keys in the order sent, non-ASCII as is (the bytes
    the native accumulator counts are then the same however a server spaced it)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)


def _strings(
    value: Any, path: tuple[str | int, ...]
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every non-empty string inside a parsed JSON value, with its path (depth is bounded
    by the envelope limit the value was parsed under)."""
    if isinstance(value, str):
        if value:
            yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*path, i))


__all__ = [
    "DEFAULT_MAX_TOKENS",
    "Codec",
    "MessagesDecoder",
    "encode_messages",
    "error_message",
    "tool_id",
]
