"""Model-request failures that end a request (after any retries), on every wire.

Failures that are part of a response (a disconnect, a read stall, an ``{"error": ...}``
object inside a 200 stream) are *not* exceptions: they end the stream with a
``StreamEnd`` so the loop can treat them as truncation (DESIGN §4). This module
holds only what stops the request from producing a response at all.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from frontier.app.record import record
from frontier.app.wire import safejson

ModelErrorKind = Literal["auth", "not_found", "http", "connect", "timeout", "protocol"]


class ModelError(Exception):
    """The endpoint could not produce a response; the message says what to do next.

    The root of every model-request failure, on every wire (as ``httpx.HTTPError`` is
    httpx's). ``kind`` lets the caller pick a reaction without parsing text, and names
    the subclass: ``auth`` (:class:`AuthRefused`: 401/403, key missing or rejected),
    ``not_found`` (:class:`EndpointNotFound`: 404, wrong base URL or model), ``http``
    (:class:`StatusError`: another status, or retryable statuses after the last retry),
    ``connect`` (:class:`ConnectFailed`: no connection, or it closed, after the last
    retry), ``timeout`` (:class:`NoFirstByte`: the server accepted the request but sent
    nothing within ``first_byte_timeout``, after the last retry), ``protocol``
    (:class:`NotAStream`: a 200 that is not this API's stream: a web page, plain text,
    foreign JSON).
    """

    def __init__(
        self,
        kind: ModelErrorKind,
        message: str,
        *,
        url: str = "",
        model: str = "",
        status: int | None = None,
        attempts: int = 1,
        overflow: ContextOverflow | None = None,
        refused_call: str | None = None,
        tools_refused: bool = False,
        images_refused: bool = False,
    ) -> None:
        super().__init__(message)
        self.kind: ModelErrorKind = kind
        self.message = message
        self.url = url
        self.model = model
        self.status = status
        self.attempts = attempts
        self.overflow = overflow
        """Set when the server refused the request as longer than the model's context
        window (:func:`context_overflow`): the loop compacts and retries once."""
        self.refused_call = refused_call
        """Set when the server refused what the model wrote as a call it could not read
        (:func:`refused_call`): the loop asks the model to write it again."""
        self.tools_refused = tools_refused
        """Set when the server refused the request for its ``tools[]`` (it takes no native
        tool calls: ``lasting_refusals.refuses_tools``): an ``auto`` session that has had
        no reply yet goes on in the text protocol."""
        self.images_refused = images_refused
        """Set when the server refused the request for an image the model cannot read
        (``lasting_refusals.refuses_images``): the images are taken out of the history."""

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}(kind={self.kind!r}, status={self.status!r}, message={self.message!r})"


class AuthRefused(ModelError):
    """401/403: the key is missing or was rejected."""


class EndpointNotFound(ModelError):
    """404: the base URL or the model is wrong."""


class StatusError(ModelError):
    """Another HTTP status (retryable ones after the last retry)."""


class ConnectFailed(ModelError):
    """No connection, or it closed before an answer, after the last retry."""


class NoFirstByte(ModelError):
    """The server took the request but sent nothing in time, after the last retry."""


class NotAStream(ModelError):
    """A 200 that is not this API's event stream (a web page, foreign JSON)."""


ERROR_CLASSES: dict[str, type[ModelError]] = {
    "auth": AuthRefused,
    "not_found": EndpointNotFound,
    "http": StatusError,
    "connect": ConnectFailed,
    "timeout": NoFirstByte,
    "protocol": NotAStream,
}


def model_error(kind: ModelErrorKind, message: str, **fields: Any) -> ModelError:
    """The subclass of :class:`ModelError` for ``kind``."""
    return ERROR_CLASSES[kind](kind, message, **fields)


@record
class ContextOverflow:
    """A server's "the request is longer than the context window", with its numbers when
    it gave them (they are the window's real size: the budget learns it)."""

    window: int | None = None
    """The context size in tokens the server has (per slot for llama.cpp)."""
    requested: int | None = None
    """Tokens the request needed (prompt, or prompt + completion for vLLM/OpenAI)."""


OVERFLOW_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error"})
"""OpenAI's (and Groq's, DeepSeek's) ``code`` and llama.cpp's ``type`` for an overflow."""
_OVERFLOW_TEXT = re.compile(
    r"maximum context length|context length|context window|context size|"
    r"maximum model length|prompt is too long|too large for model with",
    re.IGNORECASE,
)
_N = r"(\d[\d,]*)"
_WINDOW = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"maximum context length is {_N}",  # OpenAI, vLLM, DeepSeek
        rf"available context size \({_N} tokens\)",  # llama.cpp
        rf"\(context length {_N}\)",  # vLLM: "too long to fit into the model (context length N)"
        rf"maximum model length of {_N}",  # vLLM: "is longer than the maximum model length of N"
        rf"model's context length(?: of)? {_N}",
        rf"tokens > {_N} maximum",  # Anthropic through OpenAI-compatible proxies
        rf"with {_N} maximum context length",  # Mistral
        rf"context window of {_N}",
    )
]
_REQUESTED = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"(?:resulted in|you requested) {_N} tokens",  # OpenAI, vLLM
        rf"request \({_N} tokens\)",  # llama.cpp
        rf"\((?:total )?length {_N}\)",  # vLLM
        rf"prompt is too long: {_N} tokens",
        rf"contains {_N} tokens",  # Mistral
    )
]


def context_overflow(text: str) -> ContextOverflow | None:
    """Whether an error body (JSON or plain text) says the request does not fit the
    model's context window, and the numbers it gives.

    Matched: OpenAI/Groq/DeepSeek ``{"error": {"code": "context_length_exceeded",
    "message": "This model's maximum context length is 8192 tokens. However, your
    messages resulted in 9000 tokens..."}}``; llama.cpp ``{"error": {"code": 400,
    "message": "request (6033 tokens) exceeds the available context size (4096 tokens),
    try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 6033,
    "n_ctx": 4096}}``; vLLM ``This model's maximum context length is 2048 tokens.
    However, you requested 2100 tokens ...`` and ``... is longer than the maximum model
    length of 2048``; Mistral's and Anthropic-style wordings (docs/context-budget.md).
    """
    obj: Any = None
    try:
        obj = safejson.loads(text, max_depth=safejson.ENVELOPE_DEPTH)
    except ValueError:
        obj = None
    error = obj.get("error", obj) if isinstance(obj, dict) else None
    message = text
    fields: dict[str, Any] = {}
    if isinstance(error, dict):
        fields = error
        message = str(error.get("message") or error.get("detail") or text)
    elif isinstance(error, str):
        message = error
    codes = {str(fields.get("code") or ""), str(fields.get("type") or "")}
    if not (codes & OVERFLOW_CODES or _OVERFLOW_TEXT.search(message)):
        return None
    window = _count(fields.get("n_ctx")) or _first(_WINDOW, message)
    requested = _count(fields.get("n_prompt_tokens")) or _first(_REQUESTED, message)
    return ContextOverflow(window, requested)


REFUSED_CALL_CODES = frozenset({"tool_use_failed"})
"""Groq's ``code`` when its parser could not read the model's tool call."""
MAX_REFUSED_CALL = 4_000
"""Characters of the model's refused words kept (they are quoted back to it)."""


def refused_call(error: Any) -> str | None:
    """The model's words a server refused to read as a call (``error`` is the error
    object, or a body holding one): Groq answers ``{"error": {"code": "tool_use_failed",
    "failed_generation": "<function=read>{...}</function>"}}``, as an HTTP 400 or inside
    the stream. ``None`` for any other error."""
    if isinstance(error, str):
        try:
            error = safejson.loads(error, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError:
            return None
    if isinstance(error, dict) and isinstance(error.get("error"), dict):
        error = error["error"]
    if not isinstance(error, dict) or str(error.get("code") or "") not in REFUSED_CALL_CODES:
        return None
    words = error.get("failed_generation")
    if not isinstance(words, str):
        return ""
    return words if len(words) <= MAX_REFUSED_CALL else words[:MAX_REFUSED_CALL] + "…"


def _first(patterns: list[re.Pattern[str]], text: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return int(match.group(1).replace(",", ""))
    return None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


__all__ = [
    "AuthRefused",
    "ConnectFailed",
    "ContextOverflow",
    "EndpointNotFound",
    "ModelError",
    "ModelErrorKind",
    "NoFirstByte",
    "NotAStream",
    "StatusError",
    "context_overflow",
    "model_error",
    "refused_call",
]
