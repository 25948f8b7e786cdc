"""OpenAI Chat Completions (``POST {base_url}/chat/completions``): the wire every
OpenAI-compatible server speaks (llama.cpp, vLLM, Ollama, OpenRouter, DeepSeek, ...).

Requests: the system prompt as the first message; each user-side message as ``user``
(native results first, as ``tool`` messages naming their ``tool_call_id``); assistant
replies with ``content`` and ``tool_calls``; tools as ``{"type": "function",
"function": {...}}``; ``stream_options.include_usage`` (dropped for a server that
rejects it); a trailing assistant message when the answer continues one (prefill).
The reasoning that led to a reply's calls goes back on that assistant message, in the
field the server streamed it in (``reasoning_content``: DeepSeek's and Kimi's thinking
modes refuse every later request without it); a server that refuses the field is asked
again without it, and one that asks for it where the history has none (a session older
than this, a turn from another wire) is sent it empty, each once. What a server sent on
a call to get back (``extra_content``: Gemini's thought signature) goes back on that
call, and OpenRouter's ``reasoning_details`` on the message; a call without a signature
gets Google's stand-in once Gemini refuses it. Call ids go in Mistral's shape (9 letters
and digits) once a server asks for it.

Events: ``chat.completion.chunk`` objects. Only choice 0 is read (another choice's chunk
is ``Ignored``, noted); ``delta.content`` is text; ``delta.reasoning_content`` or
``delta.reasoning`` (the first present) is reasoning; ``delta.tool_calls`` pieces are
calls keyed by their ``index`` — a piece without one is matched to the first call with
its ``id``, or is a new call when it names a new id, else continues the last call; a
piece whose id is known joins that id's call whatever its index (LocalAI repeated a call
at another index), and one naming a function under an id new to its index is another
call (Ollama sent every call at index 0);
``arguments`` sent as a JSON value instead of a string is read as its compact text
(``_canonical``). ``finish_reason`` is the finish; a ``usage`` object the usage;
``[DONE]`` the end; an ``{"error": ...}`` object (or an ``event: error``) a server error;
llama.cpp's ``prompt_progress`` (sent when the request asks ``return_progress``, which the
transport does once ``/props`` showed llama.cpp) is a ``PromptProgress``.
Chat carries no per-call completion signal: the native accumulator proves calls itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from frontier.app import fastjson
from frontier.app.events import TokenUsage
from frontier.app.model.stream import (
    UNREADABLE_PREVIEW,
    CallArgs,
    CallStart,
    Delta,
    End,
    Finish,
    Ignored,
    Malformed,
    ReasoningBlock,
    ReasoningDelta,
    ServerError,
    TextDelta,
    Unreadable,
    UsageDelta,
)
from frontier.app.model.think_tags import CLOSE, KEPT, OPEN, ThinkTags, split_think
from frontier.app.model.wires.llama_progress import prompt_progress
from frontier.app.wire import safejson

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

    from frontier.app.model.conversation import (
        AssistantMessage,
        CallEntry,
        Item,
        ToolResults,
        UserText,
    )
    from frontier.app.model.request import ModelRequest
    from frontier.app.model.stream import FinishReason
    from frontier.app.model.wires.base import TextField

REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Where servers stream reasoning: DeepSeek, llama.cpp, vLLM (``reasoning_content``);
OpenRouter, vLLM's newer API, Ollama's OpenAI endpoint (``reasoning``). The first
one present wins (vLLM sends both with the same text during its migration)."""
TEXT_FIELDS = ("content", *REASONING_FIELDS, "refusal")
"""Every ``choices[i].delta`` field that streams model-written text (scrubbed)."""
CALL_EXTRA = "tool_call"
"""A kept block ``{"tool_call": ID, "extra_content": {...}}``: what a server sent on a
call that it wants back on it (Gemini's thought signature)."""
SKIP = "skip_thought_signature_validator"
"""Google's documented stand-in for a call whose signature the history lacks (made on
another model, or stored before signatures were kept)."""
DETAILS = "reasoning_details"
"""OpenRouter's structured reasoning: an array of ``reasoning.text`` /
``reasoning.summary`` / ``reasoning.encrypted`` items streamed in pieces by ``index``
(Gemini 3's thought signatures travel here through OpenRouter)."""
_DETAIL_TEXT = ("text", "summary", "data")
"""A detail's fields that stream in pieces; the others are replaced when sent again."""
TOOL_FIELDS = ("name", "arguments")
"""``choices[i].delta.tool_calls[j].function`` fields that stream model-written text."""

FINISH: Mapping[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
    # other APIs' words that proxies pass through on this wire (LiteLLM in front of
    # Anthropic, Ollama or Gemini sends end_turn; Hugging Face TGI eos_token; Gemini's
    # own words come upper case), read case-insensitively
    "end_turn": "stop",
    "stop_sequence": "stop",
    "eos_token": "stop",
    "eos": "stop",
    "complete": "stop",
    "tool_use": "tool_calls",
    "tool_call": "tool_calls",
    "max_tokens": "length",
    "max_output_tokens": "length",
    "safety": "content_filter",
    "recitation": "content_filter",
    "refusal": "content_filter",
    "prohibited_content": "content_filter",
}
"""Chat's finish reasons, normalised (the word lower-cased); any other word is ``other``
(never proof). Before the other APIs' words were known, a proxy that says ``end_turn``
had every response taken for cut: no call ran, three repairs, and the turn ended."""


class Codec:
    """The Chat Completions wire (see the module doc). One per client: it remembers a
    server that rejected ``stream_options``."""

    name = "openai-chat"
    path = "chat/completions"
    sdk_prefix = ""
    required_max_tokens = None
    native_sign = "a tool_calls delta"

    def recognises(self, event: str | None, obj: dict[str, Any] | None) -> str | None:
        """A ``chat.completion.chunk``: ``choices``, or its ``object`` name."""
        if obj is not None and (
            "choices" in obj or str(obj.get("object", "")).startswith("chat.completion")
        ):
            return "choices chunks"
        return None

    signals_call_done = False
    can_prefill = True
    records_bare_events = False

    def __init__(self) -> None:
        self.stream_options = True
        self.tokens_field = "max_tokens"
        """The name the token cap is sent under: ``max_completion_tokens`` once the model
        refused ``max_tokens`` (OpenAI's reasoning models do, over Chat Completions)."""
        self.reasoning_back = True
        """Reasoning goes back with the calls it led to, until the server refuses it."""
        self.pad_reasoning: str | None = None
        """The field sent empty on an assistant message with calls and no reasoning kept,
        once a server asked for it (DeepSeek: "Missing `reasoning_content` field")."""
        self._sent_reasoning = False
        """The last body built carried reasoning (only then can a refusal be of it)."""
        self.effort = True
        """Send a request's ``reasoning_effort`` (OpenAI's o-series and gpt-5, DeepSeek,
        gpt-oss on vLLM and Groq); off once a server refuses it."""
        self._sent_effort = False
        self.short_ids = False
        """Call ids are sent as 9 letters and digits, once the server asked (Mistral's
        API and its chat templates: "Tool call id was call_0 but must be a-z, A-Z, 0-9,
        with a length of 9")."""
        self.sign_calls: Literal["", "extra", "details"] = ""
        """Calls without a kept signature carry Google's stand-in once Gemini asked: in
        ``extra_content`` (Google's endpoint) or as a ``reasoning_details`` item
        (OpenRouter, whose refusal says so)."""

    # ------------------------------------------------------------------ requests

    def headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        return headers

    def body(self, request: ModelRequest, model: str) -> dict[str, Any]:
        messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
        history = encode_messages(
            request.items,
            native=request.native,
            wire=self.name,
            reasoning=self.reasoning_back,
            pad=self.pad_reasoning,
            sign=self.sign_calls,
        )
        self._sent_reasoning = any(_carries_reasoning(m) for m in history)
        if self.short_ids:
            _nine_character_ids(history)
        messages += history
        if request.prefill:
            messages.append({"role": "assistant", "content": request.prefill})
        body: dict[str, Any] = {"model": model, "messages": messages, "stream": True}
        if self.stream_options:
            body["stream_options"] = {"include_usage": True}
        if request.max_tokens:
            body[self.tokens_field] = request.max_tokens
        self._sent_effort = bool(request.effort and self.effort)
        if self._sent_effort:
            body["reasoning_effort"] = request.effort
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": dict(t.parameters),
                    },
                }
                for t in request.tools
            ]
        extra = dict(request.extra)
        # The loop reads one choice per response; streaming is never turned off.
        extra.pop("n", None)
        extra.pop("stream", None)
        body.update(extra)
        return body

    def rejected(self, status: int, text: str) -> str | None:
        if status in (400, 422) and self.stream_options and "stream_options" in text:
            self.stream_options = False  # older servers reject the usage option
            return "the server rejected stream_options; retrying without usage"
        if (
            status in (400, 422)
            and self.tokens_field == "max_tokens"
            and "max_completion_tokens" in text
        ):
            # OpenAI's o-series and gpt-5 over Chat Completions: "Unsupported parameter:
            # 'max_tokens' ... Use 'max_completion_tokens' instead." A compaction always
            # sends a cap, so a full session of such a model could not be compacted.
            self.tokens_field = "max_completion_tokens"
            return "the model refused max_tokens; retrying with max_completion_tokens"
        if status in (400, 422) and self._sent_effort and "reasoning_effort" in text:
            self.effort = False  # a model or server without it
            return "the server refused reasoning_effort; retrying without it"
        if "Tool call id" in text and "length of 9" in text and not self.short_ids:
            # Mistral (its API, and vLLM or llama.cpp running its template) takes only
            # its own id shape; calls made elsewhere (another model, a server that named
            # them call_0) refused every later request; any status (a template's 500)
            self.short_ids = True
            return "the server takes call ids of 9 letters and digits only; retrying with such"
        if status in (400, 422) and "thought_signature" in text and not self.sign_calls:
            # Gemini 3: "Function call is missing a thought_signature in functionCall
            # parts" for calls made elsewhere (another model, a session stored before);
            # OpenRouter adds "Gemini models require OpenRouter reasoning details"
            routed = "reasoning details" in text.lower() or DETAILS in text
            self.sign_calls = "details" if routed else "extra"
            return (
                "the model wants thought signatures on earlier tool calls, which this "
                "history lacks for some; retrying with Google's stand-in there"
            )
        if status in (400, 422) and _names_reasoning(text):
            if _wants_reasoning(text):
                if self.pad_reasoning is None and self.reasoning_back:
                    # DeepSeek's and Kimi's thinking modes, for calls whose reasoning this
                    # history lacks: an empty field is accepted where the reasoning is gone
                    self.pad_reasoning = "reasoning_content"
                    return (
                        "the server wants the reasoning of earlier tool calls back, which "
                        "this history lacks for some; retrying with it empty there"
                    )
            elif self._sent_reasoning and self.reasoning_back:
                self.reasoning_back = False  # a strict server that knows no such field
                return "the server refused reasoning in the history; retrying without it"
        return None

    # ------------------------------------------------------------------ responses

    def decoder(self) -> ThinkTags:
        """A response's decoder; a reply that opens with ``<think>`` has it as reasoning
        (``think_tags.py``), kept to be written back before the reply's text."""
        return ThinkTags(ChatDecoder(), keep=True)

    def streamed_text(self, data: str) -> Iterator[TextField]:
        try:
            obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError:
            return
        if not isinstance(obj, dict) or not isinstance(obj.get("choices"), list):
            return
        for ci, choice in enumerate(obj["choices"]):
            if not isinstance(choice, dict) or not isinstance(choice.get("delta"), dict):
                continue
            c_key = repr(choice.get("index", ci))
            delta = choice["delta"]
            for name in TEXT_FIELDS:
                text = delta.get(name)
                if isinstance(text, str) and text:
                    yield (c_key, name), ("choices", ci, "delta", name), text
            details = delta.get(DETAILS)
            for dj, item in enumerate(details if isinstance(details, list) else ()):
                if not isinstance(item, dict):
                    continue
                d_key = (c_key, DETAILS, repr(item.get("type")), repr(item.get("index", 0)))
                for name in ("text", "summary"):  # what the model wrote, in pieces
                    text = item.get(name)
                    if isinstance(text, str) and text:
                        at = ("choices", ci, "delta", DETAILS, dj, name)
                        yield (*d_key, name), at, text
            calls = delta.get("tool_calls")
            if not isinstance(calls, list):
                continue
            for tj, call in enumerate(calls):
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict):
                    continue
                t_key = repr(call.get("index", tj))
                for name in TOOL_FIELDS:
                    text = fn.get(name)
                    if isinstance(text, str) and text:
                        path = ("choices", ci, "delta", "tool_calls", tj, "function", name)
                        yield (c_key, "tool", t_key, name), path, text

    def error_text(self, obj: Any) -> str:
        return error_message(obj.get("error", obj) if isinstance(obj, dict) else obj)

    def json_answer(self, obj: Any) -> list[Delta] | None:
        """A ``chat.completion`` object (a server that ignored ``stream: true``)."""
        deltas = self._whole_answer(obj)
        return None if deltas is None else split_think(deltas, keep=True)

    def _whole_answer(self, obj: Any) -> list[Delta] | None:
        choices = obj.get("choices") if isinstance(obj, dict) else None
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            return None
        choice = choices[0]
        message = choice.get("message") or {}
        message = message if isinstance(message, dict) else {}
        out: list[Delta] = []
        for name in REASONING_FIELDS:
            if isinstance(message.get(name), str):
                if message[name]:
                    out.append(ReasoningDelta(message[name]))
                if message.get("tool_calls"):
                    out.append(ReasoningBlock({name: message[name]}))
                break
        if isinstance(message.get("content"), str) and message["content"]:
            out.append(TextDelta(message["content"]))
        for index, call in enumerate(message.get("tool_calls") or []):
            if not isinstance(call, dict):
                continue
            fn = call.get("function")
            fn = fn if isinstance(fn, dict) else {}
            ident = call.get("id") if isinstance(call.get("id"), str) else ""
            out.append(CallStart(index, ident or "", str(fn.get("name") or "")))
            extra = call.get("extra_content")
            if ident and isinstance(extra, dict) and extra:
                out.append(ReasoningBlock({CALL_EXTRA: ident, "extra_content": extra}))
            args = fn.get("arguments")
            if args is not None and not isinstance(args, str):
                args = _canonical(args)
            if args:
                out.append(CallArgs(index, args))
        details = message.get(DETAILS)
        if message.get("tool_calls") and isinstance(details, list) and details:
            out.append(ReasoningBlock({DETAILS: details}))
        raw = str(choice.get("finish_reason") or "stop")
        out.append(Finish(FINISH.get(raw.lower(), "other"), raw))
        if isinstance(obj.get("usage"), dict):
            out.append(UsageDelta(TokenUsage.from_usage(obj["usage"])))
        out.append(End())
        return out

    def whole_stream(self, obj: Any) -> list[tuple[str, str]] | None:
        """A ``chat.completion`` object as the one chunk its stream would have been: each
        choice's ``message`` as its ``delta``, each call given its ``index``."""
        choices = obj.get("choices") if isinstance(obj, dict) else None
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            return None
        if not isinstance(choices[0].get("message"), dict):
            return None  # a chunk (``delta``), or nothing of this API
        chunk = {k: v for k, v in obj.items() if k != "choices"}
        chunk["object"] = "chat.completion.chunk"
        chunk["choices"] = [
            {
                "index": choice.get("index", i),
                "delta": _as_delta(choice.get("message")),
                "finish_reason": choice.get("finish_reason"),
            }
            for i, choice in enumerate(choices)
            if isinstance(choice, dict)
        ]
        data = fastjson.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
        return [("message", data), ("message", "[DONE]")]


def _as_delta(message: object) -> dict[str, Any]:
    """A whole message as one chunk's ``delta``: each call with the ``index`` a stream's
    pieces carry (a whole message's calls have none)."""
    delta = dict(message) if isinstance(message, dict) else {}
    calls = delta.get("tool_calls")
    if isinstance(calls, list):
        delta["tool_calls"] = [
            {"index": i, **call} if isinstance(call, dict) else call for i, call in enumerate(calls)
        ]
    return delta


class ChatDecoder:
    """One chat-completions response: chunks in, deltas out (see the module doc)."""

    def __init__(self) -> None:
        self.skipped = 0
        self._by_id: dict[str, int] = {}
        """The first call with each id (a piece without ``index`` finds its call here)."""
        self._calls: set[int] = set()
        self._named: set[int] = set()
        self._moved: dict[int, int] = {}
        """An ``index`` a server used again for another call, and the key its call has."""
        self._max_index = -1
        self._field: str | None = None
        """The field this server streams reasoning in (seen even when empty: DeepSeek
        opens a reply without reasoning with ``"reasoning_content": ""`` and still wants
        the field back)."""
        self._thought: list[str] = []
        """Reasoning not yet kept in a :class:`ReasoningBlock`."""
        self._kept = False
        self._ids: dict[int, str] = {}
        """Each call's id by index (a later piece may carry only the index)."""
        self._details: dict[tuple[str, Any], dict[str, Any]] = {}
        """``reasoning_details`` so far, by (type, index), pieces joined."""
        self._details_sent: list[dict[str, Any]] | None = None
        self._done = False
        """``[DONE]`` came: what follows (a second stream joined on, a stray chunk) is not
        this response's, as the transport, which stops reading there, never sees it."""

    def feed(self, event: str, data: str) -> list[Delta]:
        stripped = data.strip()
        if self._done:  # a live stream stops at [DONE]; a capture read on must too
            return [Ignored("ignored an event after [DONE]")] if stripped else []
        if stripped == "[DONE]":
            self._done = True
            return [*self._keep(), End()]
        if not stripped:
            return []
        try:
            obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
        except safejson.JsonLimitError as exc:
            # Not junk to skip: it may have carried a call's arguments.
            return [Malformed(f"an SSE chunk is {exc}; resend the response")]
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            if event == "error":
                return [ServerError(stripped)]
            self.skipped += 1
            return [Unreadable(stripped[:UNREADABLE_PREVIEW])]
        if obj.get("error") or event == "error":
            from frontier.app.model.errors import refused_call

            error = obj.get("error") or obj
            return [ServerError(error_message(error), refused_call(error))]
        out: list[Delta] = []
        choices = obj.get("choices")
        if isinstance(choices, list) and choices:
            choice = next(
                (c for c in choices if isinstance(c, dict) and _choice_index(c) == 0), None
            )
            if choice is None:
                if isinstance(choices[0], dict):
                    out.append(
                        Ignored(
                            f"ignored a chunk for choice {choices[0].get('index')!r}: only "
                            "choice 0 is read (was n > 1 requested?)"
                        )
                    )
            else:
                self._choice(choice, out)
        if isinstance(obj.get("usage"), dict):
            out.append(UsageDelta(TokenUsage.from_usage(obj["usage"])))
        progress = prompt_progress(obj.get("prompt_progress"))
        if progress is not None:
            out.append(progress)
        return out

    def _choice(self, choice: Mapping[str, Any], out: list[Delta]) -> None:
        delta = choice.get("delta") or {}
        if isinstance(delta, dict):
            details = delta.get(DETAILS)
            if isinstance(details, list):
                self._detail(details)
            for name in REASONING_FIELDS:
                value = delta.get(name)
                if isinstance(value, str):
                    self._field = self._field or name
                    if value:
                        out.append(ReasoningDelta(value))
                        self._thought.append(value)
                        break
            content = delta.get("content")
            if isinstance(content, str) and content:
                out.append(TextDelta(content))
            pieces = delta.get("tool_calls")
            if isinstance(pieces, list):
                if pieces and not self._kept and (self._field is not None or self._details):
                    out += self._keep(calling=True)
                    self._kept = True
                for piece in pieces:
                    if isinstance(piece, dict):
                        self._piece(piece, out)
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            out += self._keep()
            out.append(Finish(FINISH.get(reason.lower(), "other"), reason))

    def _keep(self, *, calling: bool = False) -> list[Delta]:
        """The reasoning so far as a block to send back with the reply's calls: at the
        first call (so a reply cut after it keeps it), and what came after at the end.
        A reply without calls keeps none: no API wants that reasoning back.
        ``reasoning_details`` are kept whole each time they changed (the last wins)."""
        out: list[Delta] = []
        if calling or self._calls:
            details = [dict(d) for d in self._details.values()]
            if details and details != self._details_sent:
                self._details_sent = details
                out.append(ReasoningBlock({DETAILS: details}))
        if self._field is None or not (calling or (self._calls and self._thought)):
            return out
        self._kept = True
        text, self._thought = "".join(self._thought), []
        return [*out, ReasoningBlock({self._field: text})]

    def _detail(self, items: list[Any]) -> None:
        """OpenRouter's ``reasoning_details`` pieces, joined by (type, index)."""
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("type"), str):
                continue
            key = (item["type"], item.get("index", 0))
            kept = self._details.get(key)
            if kept is None:
                self._details[key] = dict(item)
                continue
            for name, value in item.items():
                if name in _DETAIL_TEXT and isinstance(value, str):
                    before = kept.get(name)
                    kept[name] = (before if isinstance(before, str) else "") + value
                elif value is not None:
                    kept[name] = value

    def _piece(self, piece: Mapping[str, Any], out: list[Delta]) -> None:
        index = piece.get("index")
        ident = piece.get("id")
        ident = ident if isinstance(ident, str) and ident else ""
        fn = piece.get("function")
        fn = fn if isinstance(fn, dict) else {}
        if isinstance(index, int) and not isinstance(index, bool):
            index = self._key(index, ident, fn)
        else:
            known = self._by_id.get(ident) if ident else None
            if known is not None:
                index = known
            elif ident or not self._calls:
                index = self._max_index + 1
            else:
                index = self._max_index
        if index not in self._calls:
            self._calls.add(index)
            self._max_index = max(self._max_index, index)
        if ident and ident not in self._by_id:
            self._by_id[ident] = index
        if ident:
            self._ids[index] = ident
        extra = piece.get("extra_content")
        if isinstance(extra, dict) and extra and index in self._ids:
            # Gemini's thought signature (extra_content.google.thought_signature): the
            # next request must carry it on this call, as received
            out.append(ReasoningBlock({CALL_EXTRA: self._ids[index], "extra_content": extra}))
        name = fn.get("name")
        name = name if isinstance(name, str) else ""
        if ident or name:
            out.append(CallStart(index, ident, name))
        args = fn.get("arguments")
        if args is not None and not isinstance(args, str):
            args = _canonical(args)
        if args:
            out.append(CallArgs(index, args))

    def _key(self, index: int, ident: str, fn: Mapping[str, Any]) -> int:
        """The call a piece at ``index`` belongs to. A piece naming a function under an id
        the call at that index does not have is another call: Ollama sent every call of
        a reply at index 0, each whole, and appended they were one call of broken JSON.
        (A server repeating a call's own id on every piece, or sending none after the
        first, keeps the index's call.)"""
        if ident and ident in self._by_id:
            return self._by_id[ident]
        key = self._moved.get(index, index)
        had = self._ids.get(key)
        if ident and had and had != ident and isinstance(fn.get("name"), str) and fn["name"]:
            key = self._moved[index] = self._max_index + 1
        return key


def _choice_index(choice: Mapping[str, Any]) -> int | None:
    """A choice's ``index`` (absent counts as 0: single-choice servers often omit it)."""
    index = choice.get("index", 0)
    if index is None:
        return 0
    return index if isinstance(index, int) and not isinstance(index, bool) else None


def _canonical(value: Any) -> str:
    """``arguments`` a server sent as a JSON value instead of a string, as the string.

    Compact separators, keys in the order sent, non-ASCII as is: the bytes the
    offsets count are then the same whichever way a server encodes the value.
    """
    return fastjson.dumps(value, ensure_ascii=False, separators=(",", ":"))


def error_message(error: Any) -> str:
    """The human part of an OpenAI-style error (``{"message": ..., "code": ...}``)."""
    if isinstance(error, dict):
        message = error.get("message") or error.get("error") or fastjson.dumps(error)
        code = error.get("code") or error.get("type")
        text = str(message) if not isinstance(message, dict) else error_message(message)
        return f"{text} ({code})" if code and str(code) not in text else text
    return str(error)


# --------------------------------------------------------------------------- scripted streams


def chunk_data(delta: Mapping[str, Any], finish: str | None = None, model: str = "") -> str:
    """The ``data`` string of one ``chat.completion.chunk`` carrying ``delta``."""
    return fastjson.dumps(
        {
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [{"index": 0, "delta": dict(delta), "finish_reason": finish}],
        },
        ensure_ascii=False,
    )


def scripted_events(
    text: Sequence[str],
    calls: Sequence[tuple[str, str, Sequence[str]]] = (),
    *,
    finish: str | None = None,
    model: str = "",
) -> list[str]:
    """The ``data`` strings of a response streaming ``text`` pieces, then each call
    ``(id, name, argument pieces)`` as ``delta.tool_calls`` pieces, a finish and
    ``[DONE]`` — what the evaluation, benchmarks and tests stream (``finish`` defaults to
    ``tool_calls`` when there are calls, else ``stop``)."""
    events = [chunk_data({"role": "assistant", "content": ""}, model=model)]
    events += [chunk_data({"content": piece}, model=model) for piece in text]
    for index, (call_id, name, pieces) in enumerate(calls):
        head = {"index": index, "id": call_id, "type": "function"}
        head["function"] = {"name": name, "arguments": ""}
        events.append(chunk_data({"tool_calls": [head]}, model=model))
        for piece in pieces:
            piece_delta = {"index": index, "function": {"arguments": piece}}
            events.append(chunk_data({"tool_calls": [piece_delta]}, model=model))
    end = finish or ("tool_calls" if calls else "stop")
    events.append(chunk_data({}, end, model=model))
    events.append("[DONE]")
    return events


# --------------------------------------------------------------------------- messages


def encode_messages(
    items: Sequence[Item],
    *,
    native: bool,
    wire: str,
    reasoning: bool = True,
    pad: str | None = None,
    sign: str = "",
) -> list[dict[str, Any]]:
    """The history as chat messages (after the system message). ``reasoning``: an
    assistant message with calls carries the reasoning that led to them and what the
    server sent on them to get back (off once a server refused any of it); ``pad``: the
    field such a message carries empty when none was kept; each call carries what its
    server sent on it to be sent back (``extra_content``), and with ``sign`` a call
    without a signature carries Google's stand-in (``"extra"``: in ``extra_content``;
    ``"details"``: as an OpenRouter ``reasoning_details`` item)."""
    # the conversation's vocabulary: for requests and old histories, not for decoding a
    # stream (`check`, `replay` decode; start-up, issue 24)
    from frontier.app.model.conversation import AssistantMessage, wire_messages

    out: list[dict[str, Any]] = []
    for message in wire_messages(items, native=native, wire=wire):
        if isinstance(message, AssistantMessage):
            said = _with_thought(message.reasoning, message.text)
            encoded: dict[str, Any] = {"role": "assistant", "content": said or None}
            if message.calls:
                extras = {
                    b[CALL_EXTRA]: b["extra_content"]
                    for b in message.reasoning
                    if isinstance(b.get(CALL_EXTRA), str)
                    and isinstance(b.get("extra_content"), dict)
                }
                encoded["tool_calls"] = []
                for c in message.calls:
                    sent: dict[str, Any] = {
                        "id": c.id,
                        "type": "function",
                        "function": {
                            "name": c.name,
                            "arguments": fastjson.dumps(dict(c.arguments), ensure_ascii=False),
                        },
                    }
                    extra = extras.get(c.id) if reasoning else None
                    if extra is None and sign == "extra":
                        extra = {"google": {"thought_signature": SKIP}}
                    if extra:
                        sent["extra_content"] = dict(extra)
                    encoded["tool_calls"].append(sent)
                details = _details(message, sign == "details") if reasoning else []
                if details:
                    encoded[DETAILS] = details
                thought = _reasoning(message.reasoning) if reasoning else {}
                if reasoning and not thought and pad:
                    thought = {pad: ""}
                if DETAILS in encoded:
                    thought.pop("reasoning", None)  # the same text, in the details
                if thought:
                    encoded.update(thought)
                    # DeepSeek refuses a null content beside reasoning_content
                    encoded["content"] = encoded["content"] or ""
            out.append(encoded)
            continue
        out.extend(
            {"role": "tool", "tool_call_id": r.call_id, "content": r.body} for r in message.results
        )
        if message.images:  # parts: the images, then the text
            parts: list[dict[str, Any]] = [
                {"type": "image_url", "image_url": {"url": i.data_url()}} for i in message.images
            ]
            if message.text:
                parts.append({"type": "text", "text": message.text})
            out.append({"role": "user", "content": parts})
        elif message.text:
            out.append({"role": "user", "content": message.text})
    return out


def _with_thought(blocks: Sequence[Mapping[str, Any]], text: str) -> str:
    """``text`` with the thinking the model wrote before it in ``<think>`` tags, as it
    wrote it (``think_tags.KEPT``): the reply's text came without it."""
    thought = [b[KEPT] for b in blocks if isinstance(b.get(KEPT), str)]
    return f"{OPEN}{''.join(thought)}{CLOSE}{text}" if thought else text


def _reasoning(blocks: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The reasoning kept for one assistant message, by the field it came in."""
    texts: dict[str, list[str]] = {}
    for block in blocks:
        for name in REASONING_FIELDS:
            text = block.get(name)
            if isinstance(text, str):
                texts.setdefault(name, []).append(text)
    return {name: "\n\n".join(t for t in parts if t) for name, parts in texts.items()}


def _details(message: AssistantMessage, sign: bool) -> list[dict[str, Any]]:
    """The ``reasoning_details`` kept for a message's calls (the last snapshot); with
    ``sign``, Google's stand-in for each call no ``reasoning.encrypted`` item names."""
    kept = [b[DETAILS] for b in message.reasoning if isinstance(b.get(DETAILS), list)]
    details = [dict(d) for d in kept[-1]] if kept else []
    if sign:
        signed = {d.get("id") for d in details if d.get("type") == "reasoning.encrypted"}
        details += [
            {"type": "reasoning.encrypted", "data": SKIP, "id": c.id, "format": "google-gemini-v1",
             "index": len(details) + i}
            for i, c in enumerate(c for c in message.calls if c.id not in signed)
        ]  # fmt: skip
    return details


def _nine_character_ids(messages: list[dict[str, Any]]) -> None:
    """Every call id in ``messages`` as 9 letters and digits, in place: an id already so
    stays; any other becomes the first 9 hex digits of its SHA-256, the same each request,
    so a call and its result still pair."""
    for message in messages:
        for call in message.get("tool_calls") or ():
            call["id"] = nine_character_id(call["id"])
        if message["role"] == "tool":
            message["tool_call_id"] = nine_character_id(message["tool_call_id"])


def nine_character_id(ident: str) -> str:
    """``ident`` as Mistral takes a call id (see :func:`_nine_character_ids`)."""
    if len(ident) == 9 and ident.isascii() and ident.isalnum():
        return ident
    from frontier.app.hashes import sha256_hex

    return sha256_hex(ident.encode("utf-8", "replace"))[:9]


SENT_BACK = ("reasoning_content", DETAILS, "extra_content")
"""The fields sent back that a server which never made them may refuse (after a switch
of model, a proxy in front of a strict API); ``reasoning`` is matched quoted."""


def _carries_reasoning(message: Mapping[str, Any]) -> bool:
    """An assistant message that carries something sent back (``SENT_BACK``)."""
    if message["role"] != "assistant":
        return False
    if any(name in message for name in (*REASONING_FIELDS, DETAILS)):
        return True
    return any("extra_content" in c for c in message.get("tool_calls") or ())


def _names_reasoning(text: str) -> bool:
    """A refusal about the fields sent back (not ``reasoning_effort``)."""
    return any(name in text for name in SENT_BACK) or any(
        f"{q}reasoning{q}" in text for q in "`'\""
    )


def _wants_reasoning(text: str) -> bool:
    """...one asking for them (DeepSeek: "The `reasoning_content` in the thinking mode
    must be passed back", "Missing `reasoning_content` field"), not refusing them."""
    low = text.lower()
    return any(sign in low for sign in ("missing", "must be passed", "must include", "required"))


# --------------------------------------------------------------------------- legacy sessions

_FRAME = re.compile(r"result ([A-Za-z0-9_.:-]{1,64}) exit=(-?\d+) (\d+)\n")
_KIND = re.compile(r"^\[([a-z_]+)\]")


def items_from_messages(messages: Sequence[Mapping[str, Any]]) -> list[Item]:
    """A history stored as chat messages (sessions before issue 20) as typed items.

    Native rounds keep their calls and results; a text protocol's feedback message is
    read back into its result frames (and the repair text after them), so compaction can
    stub them as it does new ones; a user message the runtime did not write is the
    person's."""
    from frontier.app.model.conversation import AssistantTurn, ResultEntry, ToolResults

    out: list[Item] = []
    results: list[ResultEntry] = []
    names: dict[str, str] = {}
    for message in messages:
        role = message.get("role")
        text = _text(message)
        if role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            kind = _KIND.match(text)
            results.append(
                ResultEntry(
                    call_id,
                    names.get(call_id, ""),
                    kind.group(1) if kind else "ok",
                    1 if kind else 0,
                    text,
                )
            )
            continue
        if results:
            out.append(ToolResults(tuple(results)))
            results = []
        if role == "assistant":
            calls = tuple(_call_entry(c) for c in message.get("tool_calls") or () if c)
            names.update({c.id: c.name for c in calls})
            out.append(AssistantTurn(text, calls))
        elif role == "user":
            out.append(_user_item(text))
    if results:
        out.append(ToolResults(tuple(results)))
    return out


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, Mapping) and "text" in p
        )
    return ""


def _call_entry(call: Any) -> CallEntry:
    from frontier.app.model.conversation import CallEntry

    call = call if isinstance(call, Mapping) else {}
    fn = call.get("function") if isinstance(call.get("function"), Mapping) else {}
    try:
        args = fastjson.loads(fn.get("arguments") or "{}")
    except (TypeError, ValueError):
        args = {}
    return CallEntry(
        str(call.get("id") or ""),
        str(fn.get("name") or ""),
        args if isinstance(args, dict) else {},
    )


def _user_item(text: str) -> UserText | ToolResults:
    """A stored user message: result frames (and the repair after them), a repair alone,
    a compaction summary, or what the person typed."""
    from frontier.app.model.conversation import SUMMARY_MARK, ResultEntry, ToolResults, UserText

    if text.startswith(SUMMARY_MARK):
        return UserText(text, "summary")
    if text.startswith(("error truncated", "error contract")):
        return UserText(text, "feedback")
    results: list[ResultEntry] = []
    raw = text.encode("utf-8")
    at = 0
    while True:
        head = _FRAME.match(raw[at:].decode("utf-8", "replace"))
        if head is None:
            break
        start = at + len(head.group(0).encode("utf-8"))
        size = int(head.group(3))
        end = start + size
        if raw[end : end + 5] != b"\nend\n":
            break
        body = raw[start:end].decode("utf-8", "replace")
        kind = _KIND.match(body)
        results.append(
            ResultEntry(
                head.group(1), "", kind.group(1) if kind else "ok", int(head.group(2)), body
            )
        )
        at = end + 5
    if not results:
        return UserText(text)
    return ToolResults(tuple(results), raw[at:].decode("utf-8", "replace"), framed=True)


__all__ = [
    "ChatDecoder",
    "Codec",
    "chunk_data",
    "encode_messages",
    "error_message",
    "items_from_messages",
    "scripted_events",
]
