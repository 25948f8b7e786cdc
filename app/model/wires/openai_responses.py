"""OpenAI Responses (``POST {base_url}/responses``): OpenAI's own API for reasoning
models, also spoken by Azure OpenAI, xAI, GitHub Copilot, LM Studio, DeepSeek and others.

Requests: the system prompt as ``instructions``; the history as ``input`` items: a user
message as ``{"role": "user", "content": [{"type": "input_text", ...}]}`` after the
``function_call_output`` items answering the calls before it; an assistant message as its
``reasoning`` items (sent back as they came but for their item ``id``, and only those
with ``encrypted_content``: with ``store: false`` an item without it refers to a stored
item the server does not have, and one with an ``id`` must be followed by items naming
theirs), then a ``message`` with ``output_text``, then one ``function_call`` per call
(``arguments`` a JSON string). Tools are flat ``{"type": "function", "name", ...}``
objects, not strict. ``store: false`` keeps nothing on the server, so ``include:
["reasoning.encrypted_content"]`` asks for the reasoning to be returned whole, and
``reasoning: {"summary": "auto"}`` for its summaries to be streamed (both only of a
model not known to lack reasoning; each dropped once refused).

Events: every event's ``data`` names its ``type`` (the SSE ``event:`` name is only a
fallback: several servers send ``data:`` lines alone). Text is
``response.output_text.delta`` (and ``response.refusal.delta``); reasoning is
``response.reasoning_text.delta`` / ``response.reasoning_summary_text.delta``; a finished
``reasoning`` item is a :class:`ReasoningBlock`. A function call is an output item:
``output_item.added`` (name, ``call_id``) → ``function_call_arguments.delta`` ×n →
``function_call_arguments.done`` (the whole arguments) → ``output_item.done`` (the whole
item). Quirks handled:

- calls are keyed by ``output_index``, never by item id (GitHub Copilot rotates item ids
  between the events of one item); a server that sends no ``output_index`` (llama.cpp's
  ``llama-server``) has each call it adds keyed anew and its later events by their item id
  (it sends the calls' ``output_item.done`` together at the end, in order; an end whose
  ids match no single open call is the oldest open call's): every call was keyed 0, so a
  second call's arguments read as late bytes of the first's, which had already run;
- the ``call_id`` of ``output_item.added`` can differ from the one in ``output_item.done``:
  the latter wins, so ``function_call_arguments.done`` closes the call (its arguments are
  whole; later bytes are late) without proving it, and ``output_item.done`` proves it;
- some servers send no argument deltas (LM Studio): the arguments of the ``.done``
  events are authoritative;
- ``output_item.done`` with ``status`` ``incomplete`` (cut by ``max_output_tokens``) or
  ``in_progress`` (vercel's programmatic calls) closes a call without proving it: it waits
  for a clean end of the response;
- any output item that is not a ``function_call``, ``message`` or ``reasoning``
  (``web_search_call``, ``code_interpreter_call``, ``mcp_call``, ``custom_tool_call``,
  ``local_shell_call``, ...) is run by the server or is not Frontier's: it is shown
  (:class:`ServerToolCall`) and never executed;
- the end is ``response.completed`` (xAI: ``response.done``), ``response.incomplete``
  (``incomplete_details.reason``: ``max_output_tokens`` is ``length``) or
  ``response.failed``; an ``error`` event (flat ``code``/``message`` or nested ``error``)
  is a server error. No ``data: [DONE]`` is sent by the real API; one that arrives
  (xAI through vercel's tests) is not an end and not counted as skipped;
- nothing after the terminal event belongs to the response (a body holding a second
  response would reuse its output indices): it is ``Ignored``, noted once;
- a message streamed without text deltas is read from its ``output_text.done``, and a
  stream that sent nothing but a ``completed`` end is read from the end's ``output``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

from frontier.app.events import TokenUsage
from frontier.app.model.conversation import AssistantMessage, wire_messages
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
from frontier.app.model.wires.llama_progress import prompt_progress
from frontier.app.wire import safejson

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

    from frontier.app.model.stream import FinishReason
    from frontier.app.model.wires.base import TextField

AMBIGUOUS = -1
"""The key kept for ids more than one call carried: they name no call."""
MAX_ITEM_IDS = 4096
"""Calls whose ids (and whether they are still open) are kept, for a server that sends no
``output_index`` (past them, an event naming no index is the last call's)."""
OWN_ITEMS = ("function_call", "message", "reasoning")
"""Output items Frontier reads; any other is a server-side (or foreign) tool item."""

INCOMPLETE: Mapping[str, FinishReason] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}
"""``incomplete_details.reason`` normalised; any other word is ``other`` (never clean)."""

TEXT_DELTAS = ("response.output_text.delta", "response.refusal.delta")
REASONING_DELTAS = ("response.reasoning_text.delta", "response.reasoning_summary_text.delta")
WHOLE_FIELDS = ("text", "refusal", "arguments", "code", "input")
"""Top-level string fields of ``*.done`` events (and of output items) the model wrote."""
PART_FIELDS = ("text", "refusal")
"""Model-written fields of an item's ``content`` / ``summary`` parts."""
NOT_TEXT_DELTAS = ("response.audio.delta",)
"""``*.delta`` events whose ``delta`` is not text (base64 audio)."""


def wants_encrypted_reasoning(model: str) -> bool:
    """Whether to ask for the reasoning's encrypted content, which a stateless session
    (``store: false``) must send back for a reasoning model to go on reasoning across
    calls. A model the catalogue knows to have no reasoning refuses the request outright
    (400, "Encrypted content is not supported with this model"): every request of a
    ``--provider openai --model gpt-4.1`` session failed. An unknown model is asked (a
    refusal is caught by :meth:`Codec.rejected`)."""
    from frontier.app.model.catalogue import lookup

    info = lookup(model)
    return info is None or info.reasoning


def _refuses_summaries(text: str) -> bool:
    """A refusal of ``reasoning.summary`` (OpenAI: "Your organization must be verified to
    generate reasoning summaries", ``param: reasoning.summary``) or of ``reasoning`` for
    a model without any ("Unsupported parameter: 'reasoning.summary'...")."""
    low = text.lower()
    return (
        "reasoning.summary" in low
        or "reasoning summaries" in low
        or any(f"{q}reasoning{q}" in low for q in "'\"`")
    )


class Codec:
    """The Responses wire (see the module doc). One per client: it remembers a model that
    refused encrypted reasoning (:meth:`rejected`)."""

    def __init__(self) -> None:
        self.encrypted_reasoning = True
        """Ask for the reasoning's encrypted content (:func:`wants_encrypted_reasoning`);
        off once the model refuses it."""
        self.summaries = True
        """Ask a reasoning model for summaries of its reasoning (``reasoning.summary:
        "auto"``, as Codex does): without it OpenAI streams none, and a person watched a
        gpt-5 or o3 think for a minute with nothing on screen. Off once refused (OpenAI
        gives them only to a verified organization)."""

    name = "openai-responses"
    path = "responses"
    sdk_prefix = ""
    required_max_tokens = None
    native_sign = "a function_call item"

    def recognises(self, event: str | None, obj: dict[str, Any] | None) -> str | None:
        """An event named, or typed, ``response.*``."""
        if event and event.startswith("response."):
            return "event names"
        kind = obj.get("type") if obj is not None else None
        if isinstance(kind, str) and kind.startswith("response."):
            return "event types"
        return None

    signals_call_done = True
    can_prefill = False
    records_bare_events = False

    # ------------------------------------------------------------------ requests

    def headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        return headers

    def body(self, request: ModelRequest, model: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": model,
            "instructions": request.system,
            "input": encode_input(request, self.name),
            "stream": True,
            "store": False,
        }
        reasons = wants_encrypted_reasoning(model)
        if self.encrypted_reasoning and reasons:
            body["include"] = ["reasoning.encrypted_content"]
        reasoning: dict[str, str] = {}
        if self.summaries and reasons:
            reasoning["summary"] = "auto"
        if request.effort and reasons:
            reasoning["effort"] = request.effort
        if reasoning:
            body["reasoning"] = reasoning
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.parameters),
                    # Strict mode rewrites schemas (every property required, no extras):
                    # the registry's schemas have optional parameters.
                    "strict": False,
                }
                for t in request.tools
            ]
        if request.max_tokens:
            body["max_output_tokens"] = request.max_tokens
        extra = dict(request.extra)
        extra.pop("stream", None)  # the loop reads a stream; never turned off
        body.update(extra)
        return body

    def rejected(self, status: int, text: str) -> str | None:
        """A model without reasoning refuses ``include`` ("Encrypted content is not
        supported with this model", OpenAI's gpt-4o and gpt-4.1): asked again without it,
        once. Any other refusal is final."""
        if (
            status in (400, 422)
            and self.encrypted_reasoning
            and "encrypted content" in text.lower()
        ):
            self.encrypted_reasoning = False
            return "the model refused encrypted reasoning; retrying without asking for it"
        if status in (400, 422) and self.summaries and _refuses_summaries(text):
            self.summaries = False
            return "the model refused reasoning summaries; retrying without asking for them"
        return None

    # ------------------------------------------------------------------ responses

    def decoder(self) -> ThinkTags:
        """A response's decoder; a reply that opens with ``<think>`` has it as reasoning
        (``think_tags.py``)."""
        return ThinkTags(ResponsesDecoder())

    def streamed_text(self, data: str) -> Iterator[TextField]:
        try:
            obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError:
            return
        if not isinstance(obj, dict):
            return
        kind = obj.get("type")
        kind = kind if isinstance(kind, str) else ""
        where = (_index(obj.get("output_index")), _part_index(obj))
        delta = obj.get("delta")
        if isinstance(delta, str) and delta and kind not in NOT_TEXT_DELTAS:
            # One stream per kind and item part: a secret split across deltas is followed.
            stream = obj.get("output_index", obj.get("item_id"))
            yield ("delta", kind, repr(stream), where[1]), ("delta",), delta
        for name in WHOLE_FIELDS:
            text = obj.get(name)
            if isinstance(text, str) and text:
                yield ("whole", kind, where, name), (name,), text
        part = obj.get("part")
        if isinstance(part, dict):
            for name in PART_FIELDS:
                text = part.get(name)
                if isinstance(text, str) and text:
                    yield ("whole", kind, where, "part", name), ("part", name), text
        item = obj.get("item")
        if isinstance(item, dict):
            for path, text in _item_text(item):
                yield ("whole", kind, where, *path), ("item", *path), text
        response = obj.get("response")
        output = response.get("output") if isinstance(response, dict) else None
        if isinstance(output, list):
            for i, entry in enumerate(output):
                if isinstance(entry, dict):
                    for path, text in _item_text(entry):
                        full = ("response", "output", i, *path)
                        yield ("whole", kind, *full), full, text

    def error_text(self, obj: Any) -> str:
        return error_message(obj)

    def json_answer(self, obj: Any) -> list[Delta] | None:
        """A ``response`` object (a server that ignored ``stream: true``)."""
        deltas = self._whole_answer(obj)
        return None if deltas is None else split_think(deltas)

    def _whole_answer(self, obj: Any) -> list[Delta] | None:
        if not isinstance(obj, dict) or not isinstance(obj.get("output"), list):
            return None
        if obj.get("object") not in ("response", None) or "status" not in obj:
            return None
        out, saw_call = output_deltas(obj["output"])
        out += _ending(obj.get("status"), obj, saw_call)
        return out

    def whole_stream(self, obj: Any) -> list[tuple[str, str]] | None:
        """A ``response`` object as the terminal event that carries it (the decoder reads
        that event's ``output`` as the answer when nothing streamed before it)."""
        if self.json_answer(obj) is None:
            return None
        status = obj.get("status")
        kind = {"incomplete": "response.incomplete", "failed": "response.failed"}.get(
            status if isinstance(status, str) else "", "response.completed"
        )
        data = {"type": kind, "response": obj}
        return [(kind, json.dumps(data, ensure_ascii=False, separators=(",", ":")))]


class ResponsesDecoder:
    """One Responses stream: events in, deltas out (see the module doc).

    State is a few flags and indices, and the ids of the calls and which are still open
    (at most :data:`MAX_ITEM_IDS`), for a server whose events name no ``output_index``."""

    def __init__(self) -> None:
        self.skipped = 0
        self._saw_call = False
        """A ``function_call`` item was seen: a completed response ends ``tool_calls``."""
        self._last_call = 0
        """The ``output_index`` of the last call announced (for a piece that names none)."""
        self._next_key = 0
        """Past every ``output_index`` seen: the key of the next call announced without one."""
        self._by_item: dict[str, int] = {}
        """The key of the latest call added with each item id (for events naming no index)."""
        self._by_pair: dict[tuple[str, str], int] = {}
        """The key of each call added, by its item id and call id."""
        self._open: dict[int, None] = {}
        """The keys of the calls added and not ended, oldest first."""
        self._args_since_added = False
        """Arguments arrived since the last call was added (a later ``added`` naming the
        same ids is another call, not the same one sent twice)."""
        self._last_added: tuple[str, str, str] = ("", "", "")
        """The item id, call id and name of the last call added."""
        self._shown = -1
        """The highest ``output_index`` shown as a server tool (each is shown once)."""
        self._text_streamed = True
        """The current message item has streamed text deltas (else its ``.done`` text is
        the text: a server may send no deltas)."""
        self._ended = 0
        """Events read after the terminal one (nothing after it belongs to this response)."""
        self._streamed = False
        """An output item or a delta was streamed (else the end's ``output`` is the answer)."""

    def feed(self, event: str, data: str) -> list[Delta]:
        stripped = data.strip()
        if not stripped or stripped == "[DONE]":
            return []
        try:
            obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
        except safejson.JsonLimitError as exc:
            # Not junk to skip: it may have carried a call's arguments.
            return [Malformed(f"an SSE event is {exc}; resend the response")]
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            if event == "error":
                return [ServerError(stripped[:2000])]
            self.skipped += 1
            return [Unreadable(stripped[:UNREADABLE_PREVIEW])]
        if self._ended:
            # A second response spliced after the end (a fixture that concatenates
            # several): its calls would collide with this one's output indices.
            self._ended += 1
            if self._ended == 2:
                return [Ignored("ignored the events after the response ended")]
            return []
        kind = obj.get("type")
        if not isinstance(kind, str) or not kind:
            if obj.get("error"):  # an error body without a type (a proxy's)
                return [ServerError(error_message(obj))]
            kind = event
        if kind == "error":
            return [ServerError(error_message(obj))]
        if kind == "response.in_progress":  # llama.cpp's reading of a long prompt
            progress = prompt_progress(obj.get("prompt_progress"))
            return [progress] if progress is not None else []
        if kind.startswith("response.output_item.") or kind.endswith(".delta"):
            self._streamed = True
        if kind.startswith("response.output_item."):
            return self._item(kind, obj)
        if kind in TEXT_DELTAS:
            delta = obj.get("delta")
            if isinstance(delta, str) and delta:
                self._text_streamed = True
                return [TextDelta(delta)]
            return []
        if kind in REASONING_DELTAS:
            delta = obj.get("delta")
            return [ReasoningDelta(delta)] if isinstance(delta, str) and delta else []
        if kind == "response.reasoning_summary_part.added":
            # Summary parts are paragraphs: keep them apart in what is shown.
            at = obj.get("summary_index")
            return [ReasoningDelta("\n\n")] if isinstance(at, int) and at > 0 else []
        if kind == "response.output_text.done" and not self._text_streamed:
            self._text_streamed = True
            text = obj.get("text")
            return [TextDelta(text)] if isinstance(text, str) and text else []
        if kind == "response.function_call_arguments.delta":
            delta = obj.get("delta")
            if delta is not None and not isinstance(delta, str):
                delta = _canonical(delta)
            self._saw_call = True
            self._args_since_added = self._args_since_added or bool(delta)
            return [CallArgs(self._key(obj), delta)] if delta else []
        if kind == "response.function_call_arguments.done":
            # Whole and final, but the call_id may still change at output_item.done.
            arguments = obj.get("arguments")
            if arguments is not None and not isinstance(arguments, str):
                arguments = _canonical(arguments)
            self._saw_call = True
            return [CallDone(self._key(obj), arguments=arguments, proof=False)]
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            return self._end(kind.removeprefix("response."), obj.get("response"))
        if kind == "response.done":  # xAI's name for the end; its status says which
            response = obj.get("response")
            status = response.get("status") if isinstance(response, dict) else None
            return self._end(
                status if status in ("incomplete", "failed") else "completed", response
            )
        return []

    def _end(self, status: str, response: Any) -> list[Delta]:
        self._ended = 1
        out: list[Delta] = []
        output = response.get("output") if isinstance(response, dict) else None
        if status == "completed" and not self._streamed and isinstance(output, list):
            # Nothing was streamed (a proxy that sends only the end): a completed
            # response's output is the whole answer.
            out, saw_call = output_deltas(output)
            self._saw_call = self._saw_call or saw_call
        return out + _ending(status, response, self._saw_call)

    def _key(self, obj: Mapping[str, Any]) -> int:
        """The key of an arguments event: its ``output_index``, else its item's call (the
        latest added with that id), else the last call added (calls stream one by one)."""
        index = _index(obj.get("output_index"))
        if index is not None:
            return index
        item_id = obj.get("item_id")
        return self._by_item.get(item_id, self._last_call) if item_id else self._last_call

    def _added_key(self, item: Mapping[str, Any], index: int | None) -> int:
        """The key of a call added: its ``output_index``, else the last call's when this is
        the same ``added`` again (the same ids and name, no arguments since), else a new
        one past every key seen. Its ids are kept for the events that name no index; ids
        a second call reuses are kept as naming none."""
        pair = (_str(item.get("id")), _str(item.get("call_id")))
        same = (*pair, _str(item.get("name")))
        again = same == self._last_added and not self._args_since_added
        if index is None and again and self._last_call in self._open:
            return self._last_call
        self._last_added = same
        key = self._next_key if index is None else index
        if any(pair) and len(self._by_pair) < MAX_ITEM_IDS:
            reused = self._by_pair.get(pair, key) != key
            self._by_pair[pair] = AMBIGUOUS if reused else key
        if pair[0] and len(self._by_item) < MAX_ITEM_IDS:
            self._by_item[pair[0]] = key
        if len(self._open) < MAX_ITEM_IDS:
            self._open[key] = None
        return key

    def _done_key(self, item: Mapping[str, Any], index: int | None) -> int:
        """The key of a call's ``output_item.done``: its ``output_index``, else its item's
        and call's (ids used for one call only), else the oldest call still open —
        llama-server sends its calls' ends together, in order, and may give several calls
        one id, or none."""
        if index is not None:
            key = index
        else:
            pair = (_str(item.get("id")), _str(item.get("call_id")))
            key = self._by_pair.get(pair, AMBIGUOUS) if any(pair) else AMBIGUOUS
            if key not in self._open:
                key = next(iter(self._open), self._last_call)
        self._open.pop(key, None)
        return key

    def _item(self, kind: str, obj: Mapping[str, Any]) -> list[Delta]:
        item = obj.get("item")
        if not isinstance(item, dict):
            return []
        index = _index(obj.get("output_index"))
        item_type = item.get("type")
        added = kind == "response.output_item.added"
        if item_type == "function_call":
            self._saw_call = True
            ident, name = _str(item.get("call_id")), _str(item.get("name"))
            if added:
                key = self._last_call = self._added_key(item, index)
                self._args_since_added = False
                self._next_key = max(self._next_key, key + 1)
                return [CallStart(key, ident, name)]
            if kind != "response.output_item.done":
                return []
            key = self._done_key(item, index)
            return [CallDone(key, ident, name, _arguments(item), _proof(item))]
        if item_type == "message":
            if added:
                self._text_streamed = False
            return []
        if item_type == "reasoning":
            done = kind == "response.output_item.done"
            return [ReasoningBlock(item)] if done else []
        if not isinstance(item_type, str) or item_type.endswith("_output"):
            return []  # a tool's output (``tool_search_output``): nothing to show as a call
        at = -1 if index is None else index
        if added or at > self._shown:
            self._shown = max(self._shown, at)
            return [_server_tool(item, item_type)]
        return []


# --------------------------------------------------------------------------- helpers


def output_deltas(output: list[Any]) -> tuple[list[Delta], bool]:
    """The deltas of a whole response's ``output`` items (a non-streamed answer, or a
    stream that sent only its end), and whether a function call is among them."""
    out: list[Delta] = []
    saw_call = False
    for index, item in enumerate(output):
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "message":
            text = "".join(
                _str(p.get("text")) or _str(p.get("refusal"))
                for p in _list(item.get("content"))
                if isinstance(p, dict)
            )
            if text:
                out.append(TextDelta(text))
        elif kind == "reasoning":
            text = "\n\n".join(
                _str(p.get("text"))
                for p in (*_list(item.get("summary")), *_list(item.get("content")))
                if isinstance(p, dict) and _str(p.get("text"))
            )
            if text:
                out.append(ReasoningDelta(text))
            out.append(ReasoningBlock(item))
        elif kind == "function_call":
            saw_call = True
            ident, name = _str(item.get("call_id")), _str(item.get("name"))
            out.append(CallStart(index, ident, name))
            out.append(CallDone(index, ident, name, _arguments(item), _proof(item)))
        elif isinstance(kind, str) and not kind.endswith("_output"):
            out.append(_server_tool(item, kind))
    return out, saw_call


def _ending(status: Any, response: Any, saw_call: bool) -> list[Delta]:
    """The deltas that end a response of ``status`` (``completed``, ``incomplete``,
    ``failed``): its finish, usage and the end."""
    response = response if isinstance(response, dict) else {}
    out: list[Delta] = []
    if status == "failed":
        error = response.get("error")
        out.append(ServerError(error_message(error) if error else "the response failed"))
        out.append(Finish("error", "failed"))
    elif status == "incomplete":
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        reason = reason if isinstance(reason, str) and reason else "incomplete"
        out.append(Finish(INCOMPLETE.get(reason, "other"), reason))
    elif status in ("completed", None):
        out.append(Finish("tool_calls" if saw_call else "stop", "completed"))
    else:
        # A non-streamed response still ``in_progress`` / ``queued`` (background mode):
        # not an answer Frontier can take as whole.
        out.append(Finish("other", str(status)))
    usage = response.get("usage")
    if isinstance(usage, dict):
        out.append(UsageDelta(usage_of(usage)))
    out.append(End())
    return out


def usage_of(usage: Mapping[str, Any]) -> TokenUsage:
    """A Responses ``usage`` object (``input_tokens``, ``output_tokens``, cached input)."""
    details = usage.get("input_tokens_details")
    cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else None
    return TokenUsage(_count(usage.get("input_tokens")), _count(usage.get("output_tokens")), cached)


def _proof(item: Mapping[str, Any]) -> bool:
    """An item's ``status`` proves it whole only when absent or ``completed``."""
    return item.get("status") in (None, "completed")


def _arguments(item: Mapping[str, Any]) -> str | None:
    args = item.get("arguments")
    if args is None or isinstance(args, str):
        return args
    return _canonical(args)


def _server_tool(item: Mapping[str, Any], item_type: str) -> ServerToolCall:
    name = item.get("name")
    return ServerToolCall(
        name if isinstance(name, str) and name else item_type, _str(item.get("id"))
    )


def _item_text(item: Mapping[str, Any]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """``(path, text)`` of every model-written string of an output item: its arguments,
    input or code, and the text of its content and summary parts (never the opaque
    ``encrypted_content``)."""
    for name in WHOLE_FIELDS:
        text = item.get(name)
        if isinstance(text, str) and text:
            yield (name,), text
    if item.get("type") == "function_call":
        name_text = item.get("name")
        if isinstance(name_text, str) and name_text:
            yield ("name",), name_text
    for group in ("content", "summary"):
        parts = item.get(group)
        if not isinstance(parts, list):
            continue
        for j, part in enumerate(parts):
            if not isinstance(part, dict):
                continue
            for name in PART_FIELDS:
                text = part.get(name)
                if isinstance(text, str) and text:
                    yield (group, j, name), text


def error_message(error: Any) -> str:
    """The human part of a Responses error: an HTTP body ``{"error": {...}}``, an ``error``
    event (flat ``code``/``message`` or nested ``error``), or a failed response's
    ``error``."""
    for _ in range(4):  # unwrap ``{"error": {"error": ...}}`` a bounded number of times
        if isinstance(error, dict) and isinstance(error.get("error"), dict):
            error = error["error"]
    if not isinstance(error, dict):
        return str(error)
    message = error.get("message")
    if not isinstance(message, str) or not message:
        message = json.dumps(error, ensure_ascii=False)[:2000]
    code = error.get("code")
    if not code and error.get("type") != "error":
        code = error.get("type")
    return f"{message} ({code})" if code and str(code) not in message else message


def encode_input(request: ModelRequest, wire: str) -> list[dict[str, Any]]:
    """The history as Responses ``input`` items (see the module doc)."""
    out: list[dict[str, Any]] = []
    for message in wire_messages(request.items, native=request.native, wire=wire):
        if isinstance(message, AssistantMessage):
            out.extend(_reasoning_input(block) for block in message.reasoning if _returnable(block))
            if message.text:
                out.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": message.text}],
                    }
                )
            out.extend(
                {
                    "type": "function_call",
                    "call_id": c.id,
                    "name": c.name,
                    "arguments": json.dumps(dict(c.arguments), ensure_ascii=False),
                }
                for c in message.calls
            )
            continue
        out.extend(
            {"type": "function_call_output", "call_id": r.call_id, "output": r.body}
            for r in message.results
        )
        parts: list[dict[str, Any]] = [
            {"type": "input_image", "image_url": i.data_url()} for i in message.images
        ]
        if message.text:
            parts.append({"type": "input_text", "text": message.text})
        if parts:
            out.append({"role": "user", "content": parts})
    return out


def _returnable(block: Mapping[str, Any]) -> bool:
    """A reasoning item can go back only with its ``encrypted_content``: without it, under
    ``store: false``, the item is a reference to nothing and the request fails (404)."""
    content = block.get("encrypted_content")
    return block.get("type") == "reasoning" and isinstance(content, str) and bool(content)


def _reasoning_input(block: Mapping[str, Any]) -> dict[str, Any]:
    """A reasoning item as input: as it came, without its item ``id`` and ``status``.

    Under ``store: false`` nothing is looked up by id, and an ``rs_`` id makes the API
    demand the item that followed it by *its* id ("provided without its required
    following item"), which the calls sent here (by ``call_id`` alone) do not carry."""
    return {k: v for k, v in block.items() if k not in ("id", "status")}


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _part_index(obj: Mapping[str, Any]) -> int | None:
    for name in ("content_index", "summary_index"):
        if (index := _index(obj.get(name))) is not None:
            return index
    return None


def _count(value: object) -> int | None:
    """A token count as the server sent it, or ``None`` for anything but an int >= 0."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _canonical(value: Any) -> str:
    """``arguments`` a server sent as a JSON value instead of a string, as the string
    (compact, keys in the order sent: the bytes counted are the same either way)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


__all__ = [
    "Codec",
    "ResponsesDecoder",
    "encode_input",
    "error_message",
    "output_deltas",
    "usage_of",
]
