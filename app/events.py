"""The one event vocabulary shared by transducers, the agent loop, tools, the
session store, the recorder, replay and the UI.

Every event is a frozen dataclass with a ``type`` class attribute: the same
string ``frontier transduce`` / ``frontier run --json`` print as ``"type"``.
Offsets are byte offsets into the transducer's input (for text modes the UTF-8
assistant text; for native modes the concatenated tool-call argument bytes).
The *frontier* is the offset up to which input is confirmed; the pending bytes
are ``input[frontier:]``.

Nothing here imports anything beyond the standard library.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, get_args

ArgValue = str | bytes | Any
"""CTL arguments are ``str`` when valid UTF-8, else ``bytes``; native/JSON
arguments are whatever the JSON decoded to."""

ArgForm = Literal["length", "inline", "heredoc", "json"]

ResultKind = Literal[
    "ok",
    "error",
    "arg",
    "unknown_tool",
    "denied",
    "runtime",
    "timeout",
    "cancelled",
    "truncated",
    "contract",
    "session_persistence_failed",
    "interrupted",
    "not_executed",
    "applied",
    "not_applied",
    "diverged",
]
"""``ToolResult.kind``: how a call ended (DESIGN §5, §7); this is the one list."""
RESULT_KINDS: tuple[str, ...] = get_args(ResultKind)
OK_KINDS: tuple[ResultKind, ...] = ("ok", "applied")
"""The kinds that count as success (``applied``: recovery found a mutation whole on disk)."""

ContractErrorKind = Literal[
    "bad_call",
    "bad_arg",
    "unexpected_line",
    "body_eof",
    "heredoc_eof",
    "line_too_long",
    "limit",
    "bad_json",
    "bad_xml",
    "late_arguments",
    "truncated",
]
"""``ContractError.kind``: what the framing of a response broke (docs/protocol.md lists
each). ``late_arguments``: native-inc argument bytes for a call already executable."""

CONTRACT_ERROR_KINDS: tuple[str, ...] = get_args(ContractErrorKind)


@dataclass(frozen=True)
class ToolCall:
    """A call that the transducer has proven complete: it can no longer change."""

    id: str
    name: str
    args: Mapping[str, ArgValue]
    offset: int = 0
    """Offset of the byte that confirmed the call (the ``\\n`` of ``end``)."""

    def json_args(self) -> dict[str, Any]:
        """Arguments as JSON-safe values (``bytes`` become ``{"base64": ...}``)."""
        return {k: json_value(v) for k, v in self.args.items()}


def json_value(value: ArgValue) -> Any:
    """``bytes`` as UTF-8 text, else ``{"base64": ...}``; other values unchanged."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(value).decode("ascii")}
    return value


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call; every call is paired with exactly one."""

    call_id: str
    name: str
    kind: ResultKind
    output: str
    exit_code: int | None = None
    elapsed: float = 0.0
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.kind in OK_KINDS


# --------------------------------------------------------------------------- stream


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = "event"

    def json_fields(self) -> dict[str, Any] | None:
        """The event's fields in ``event_to_json``'s form, for an event defined above
        this module (``tools/contract.py``'s approval events) whose fields are not plain
        values; ``None``: every field as it is."""
        return None


@dataclass(frozen=True)
class StreamBytes(Event):
    """Raw bytes arrived at the transducer (before any confirmation)."""

    type: ClassVar[str] = "bytes"
    offset: int
    data: bytes


@dataclass(frozen=True)
class Confirmed(Event):
    """Bytes ``[offset, offset+len(data))`` became irreversible.

    ``kind`` says what they were: ``text`` (prose outside a frame), ``frame``
    (call/arg/end header lines and blank lines), ``body`` (argument value bytes).
    After this event the frontier is ``offset + len(data)``.
    """

    type: ClassVar[str] = "confirmed"
    offset: int
    kind: Literal["text", "frame", "body"]
    data: bytes


@dataclass(frozen=True)
class CallStarted(Event):
    type: ClassVar[str] = "call_started"
    id: str
    name: str
    offset: int = 0
    replaces: str = ""
    """The id this call was announced under, when its wire changed it before the call
    completed (a Responses ``call_id`` that differs between ``added`` and ``done``): the
    same call, renamed; nothing is open under the old id any more."""


@dataclass(frozen=True)
class ArgStarted(Event):
    type: ClassVar[str] = "arg_started"
    call_id: str
    key: str
    form: ArgForm
    declared: int | None = None
    """Declared byte count for length-prefixed arguments."""
    offset: int = 0


@dataclass(frozen=True)
class ArgBytes(Event):
    """Confirmed bytes of an argument value (may arrive in many pieces)."""

    type: ClassVar[str] = "arg_bytes"
    call_id: str
    key: str
    data: bytes
    offset: int = 0


@dataclass(frozen=True)
class CallReady(Event):
    """The call is complete and may execute (CTL: at ``end\\n``)."""

    type: ClassVar[str] = "call"
    call: ToolCall


@dataclass(frozen=True)
class ContractError(Event):
    """A framing error; nothing after it in this message is processed."""

    type: ClassVar[str] = "error"
    kind: str
    """One of ``CONTRACT_ERROR_KINDS``."""
    message: str
    offset: int


@dataclass(frozen=True)
class StreamStopped(Event):
    """The transducer stopped reading (e.g. text after a confirmed call)."""

    type: ClassVar[str] = "stop"
    reason: str
    offset: int


# --------------------------------------------------------------------------- loop


@dataclass(frozen=True)
class Retry(Event):
    """The provider is retrying a request (connect error, 429, 5xx, stale socket)."""

    type: ClassVar[str] = "retry"
    attempt: int
    delay: float
    reason: str
    limit: int = 0
    """Retries the provider makes at most (``0``: not said): ``retrying (3/5)``."""


@dataclass(frozen=True)
class AssistantText(Event):
    """Confirmed assistant prose as a string (decoded from confirmed text bytes)."""

    type: ClassVar[str] = "text"
    text: str


@dataclass(frozen=True)
class ReasoningText(Event):
    """A piece of the model's reasoning (``delta.reasoning_content`` or ``delta.reasoning``,
    streamed before the answer by DeepSeek, Qwen3, llama.cpp, vLLM): shown live as a dimmed
    thinking block and kept in the recorded stream, but never fed to a transducer (it proves
    nothing) and never sent back to the model (DeepSeek rejects it in later requests)."""

    type: ClassVar[str] = "reasoning"
    text: str


@dataclass(frozen=True)
class ServerTool(Event):
    """The provider ran a tool of its own inside the response (Responses
    ``web_search_call``, Anthropic ``server_tool_use``): shown, never run by Frontier."""

    type: ClassVar[str] = "server_tool"
    name: str
    id: str = ""


@dataclass(frozen=True)
class ToolStarted(Event):
    type: ClassVar[str] = "tool_started"
    call: ToolCall


@dataclass(frozen=True)
class ToolOutput(Event):
    type: ClassVar[str] = "tool_output"
    call_id: str
    data: str


@dataclass(frozen=True)
class ToolFinished(Event):
    type: ClassVar[str] = "tool_finished"
    result: ToolResult


@dataclass(frozen=True)
class ResponseStarted(Event):
    """A new model response begins; transducer offsets restart at 0."""

    type: ClassVar[str] = "response_started"
    mode: str
    request_index: int = 0


@dataclass(frozen=True)
class TokenUsage:
    """A response's token counts, the same on every wire (each wire adapter reads its
    API's usage object into one), ``None`` where the server did not say (many local
    servers send no usage unless asked, some never).

    ``cached`` is the part of the prompt the server answered from its prompt cache:
    OpenAI's and vLLM's ``prompt_tokens_details.cached_tokens``, DeepSeek's
    ``prompt_cache_hit_tokens`` or an Anthropic-style ``cache_read_input_tokens``.
    """

    prompt: int | None = None
    completion: int | None = None
    cached: int | None = None

    @classmethod
    def from_usage(cls, usage: Mapping[str, Any]) -> TokenUsage:
        details = usage.get("prompt_tokens_details")
        cached = _count(details.get("cached_tokens")) if isinstance(details, Mapping) else None
        for key in ("cached_tokens", "prompt_cache_hit_tokens", "cache_read_input_tokens"):
            if cached is None:
                cached = _count(usage.get(key))
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        return cls(_count(prompt), _count(completion), cached)

    @property
    def known(self) -> bool:
        return self.prompt is not None or self.completion is not None

    def to_json(self) -> dict[str, int]:
        """The counts the server gave, by name (recordings, ``--json``)."""
        out = {"prompt_tokens": self.prompt, "completion_tokens": self.completion}
        out["cached_tokens"] = self.cached
        return {k: v for k, v in out.items() if v is not None}


@dataclass(frozen=True)
class ResponseEnded(Event):
    """The model response ended: ``finish_reason`` as reported, or ``disconnect``."""

    type: ClassVar[str] = "response_ended"
    finish_reason: str
    """Normalised over every wire (``app/model/stream.FinishReason``)."""
    usage: TokenUsage = field(default_factory=lambda: TokenUsage())
    detail: str = ""
    """Why a ``disconnect`` happened (``no data for 30 s (idle_timeout)``), else empty."""

    @property
    def tokens(self) -> TokenUsage:
        """The response's token counts (what a status bar shows)."""
        return self.usage


def _count(value: object) -> int | None:
    """A token count as the server sent it, or ``None`` for anything but an int >= 0."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


@dataclass(frozen=True)
class RepairRequested(Event):
    """The runtime feeds a framing/truncation error back and asks for a resend."""

    type: ClassVar[str] = "repair"
    kind: str
    message: str
    attempt: int


@dataclass(frozen=True)
class TurnEnded(Event):
    type: ClassVar[str] = "turn_ended"
    reason: str
    """``done`` (model finished), ``max_turns``, ``repair_limit``,
    ``session_persistence_failed``, ``provider_error``, ``cancelled``."""
    message: str = ""


@dataclass(frozen=True)
class UserMessage(Event):
    """A message the person wrote, as a turn began (a resumed session's history replays
    its ``user`` rows as these: ``app/agent/history_events.py``)."""

    type: ClassVar[str] = "user_message"
    text: str
    """What the person typed (nothing the session added for the model)."""
    notices: tuple[str, ...] = ()
    """What the session told the model first with it (an undo the person made)."""


@dataclass(frozen=True)
class QueuedDelivered(Event):
    """Messages the user queued while the agent worked (``AgentSession.queue``) went to
    the model as one user message, with the request that follows (or, when the turn
    they were typed in ended first, with the next turn's first request)."""

    type: ClassVar[str] = "queued_delivered"
    texts: tuple[str, ...]
    """Each message as typed, oldest first."""
    notes: tuple[str, ...] = ()
    """What went with them: ``attached PATH (N bytes)``, or why an ``@path`` was not."""


@dataclass(frozen=True)
class ContextUsage(Event):
    """How much of the model's context window the next request uses (the server's last
    count plus an estimate of what was added since; docs/context-budget.md)."""

    type: ClassVar[str] = "context_usage"
    used: int
    """Tokens."""
    window: int
    """The model's context window in tokens."""
    source: str = ""
    """Where the window figure came from: ``config``, ``server (...)``, ``catalogue (...)``,
    ``assumed`` (nobody said: the front ends say so), ``demo``, ``overflow``."""


@dataclass(frozen=True)
class Summarising(Event):
    """The oldest rounds are being summarised by the model in a separate request (it
    can take a while on a slow model); a ``Compacted`` follows."""

    type: ClassVar[str] = "summarising"
    rounds: int
    before: int
    """Tokens the request would use."""
    window: int


@dataclass(frozen=True)
class Compacted(Event):
    """The history sent to the model was shortened before a request (and stored as a
    compaction; the original messages stay in the store and the export)."""

    type: ClassVar[str] = "compacted"
    step: str
    """``stub`` (old tool results replaced by one-line stubs) or ``summary`` (the oldest
    rounds replaced by a summary the model wrote in a separate request)."""
    before: int
    """Tokens the request would have used."""
    after: int
    window: int
    rounds: int
    """Rounds whose results were stubbed, or rounds summarised."""
    reason: str = "threshold"
    """``threshold`` (the budget's share was passed) or ``overflow`` (the server said the
    request was too long; it is retried once)."""
    detail: str = ""
    """What happened in words (how many results, the summary's source)."""


@dataclass(frozen=True)
class ResponseContinued(Event):
    """A response cut by ``length`` goes on from its frontier: the next request ended with
    the bytes so far as an assistant message, and its stream feeds the same transducer
    from ``offset`` on (docs/protocol.md, "Continuation"). No ``ResponseEnded`` comes
    between: one response, joined."""

    type: ClassVar[str] = "response_continued"
    offset: int
    """Transducer input bytes before the join (the continuation's bytes follow)."""
    echo_skipped: int = 0
    """Bytes the server sent back first (its echo of the prefix), skipped, never fed."""
    attempt: int = 1
    """Which continuation of this response (1, 2, ...)."""
    usage: TokenUsage = field(default_factory=lambda: TokenUsage())
    """The token counts of the stream that was cut (the final ``ResponseEnded`` carries
    the last stream's)."""


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON-lines form used by ``transduce``, ``run --json`` and recordings."""
    out: dict[str, Any] = {"type": event.type}
    custom = event.json_fields()
    if custom is not None:
        out.update(custom)
        return out
    match event:
        case StreamBytes(offset=o, data=d) | Confirmed(offset=o, data=d):
            out["offset"] = o
            out["data"] = json_value(d)
            if isinstance(event, Confirmed):
                out["kind"] = event.kind
        case CallReady(call=c):
            out.update(id=c.id, name=c.name, args=c.json_args(), offset=c.offset)
        case ToolStarted(call=c):
            out.update(id=c.id, name=c.name, args=c.json_args())
        case ToolFinished(result=r):
            out.update(
                id=r.call_id,
                name=r.name,
                kind=r.kind,
                exit=r.exit_code,
                elapsed=round(r.elapsed, 6),
                output=r.output,
            )
        case AssistantText(text=text):
            out["data"] = text  # the same shape as `frontier transduce`'s text lines
        case ArgBytes(data=d):
            out.update(call_id=event.call_id, key=event.key, data=json_value(d))
            out["offset"] = event.offset
        case _:
            for name in event.__dataclass_fields__:
                value = getattr(event, name)
                if isinstance(value, TokenUsage):
                    value = value.to_json()
                out[name] = json_value(value) if isinstance(value, bytes) else value
    return out
