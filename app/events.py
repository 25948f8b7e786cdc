"""The one event vocabulary shared by transducers, the agent loop, tools, the
session store, the recorder, replay and the UI.

Every event is a frozen record (``app/record.py``: declared as a dataclass is, built
without ``dataclasses``) with a ``type`` class attribute: the same
string ``frontier transduce`` / ``frontier run --json`` print as ``"type"``.
Offsets are byte offsets into the transducer's input (for text modes the UTF-8
assistant text; for native modes the concatenated tool-call argument bytes).
The *frontier* is the offset up to which input is confirmed; the pending bytes
are ``input[frontier:]``.

Nothing here imports anything beyond the standard library and ``stream_events``, the
half of this vocabulary a transducer emits (re-exported here: import from either).
"""

from __future__ import annotations

from collections.abc import Mapping

from frontier.app.record import field, record

# The stream events live in ``stream_events`` so that ``frontier transduce`` builds only
# those; they are this vocabulary.
from frontier.app.stream_events import (  # noqa: F401 (re-exported)
    CONTRACT_ERROR_KINDS,
    ArgBytes,
    ArgStarted,
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    ReasoningText,
    StreamBytes,
    StreamStopped,
    ToolCall,
    json_value,
)
from frontier.app.stream_events import event_to_json as _stream_event_to_json

TYPE_CHECKING = False
"""``typing`` is not imported at run time (~3 ms of start-up): ``ResultKind`` and the stream
types re-exported below exist for the type checker; ``ResultKind``, which code names at run
time, ``__getattr__`` (at the end) builds."""
if TYPE_CHECKING:
    from typing import Any, ClassVar, Literal

    from frontier.app.image import Image
    from frontier.app.stream_events import (  # noqa: F401 (re-exported)
        ArgForm,
        ArgValue,
        ContractErrorKind,
    )

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
RESULT_KINDS: tuple[str, ...] = (
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
)
OK_KINDS: tuple[ResultKind, ...] = ("ok", "applied")
"""The kinds that count as success (``applied``: recovery found a mutation whole on disk)."""


@record
class ToolResult:
    """The outcome of one call; every call is paired with exactly one."""

    call_id: str
    name: str
    kind: ResultKind
    output: str
    exit_code: int | None = None
    elapsed: float = 0.0
    meta: Mapping[str, Any] = field(default_factory=dict)
    images: tuple[Image, ...] = field(default=(), repr=False)
    """Images the tool found for the model to see (``read`` of a picture): the loop shows
    them after the round's results; never stored with the result, nor in its events."""

    @property
    def ok(self) -> bool:
        return self.kind in OK_KINDS


# --------------------------------------------------------------------------- loop


@record
class Retry(Event):
    """The provider is retrying a request (connect error, 429, 5xx, stale socket)."""

    type: ClassVar[str] = "retry"
    attempt: int
    delay: float
    reason: str
    limit: int = 0
    """Retries the provider makes at most (``0``: not said): ``retrying (3/5)``."""


@record
class AssistantText(Event):
    """Confirmed assistant prose as a string (decoded from confirmed text bytes)."""

    type: ClassVar[str] = "text"
    text: str


@record
class ServerTool(Event):
    """The provider ran a tool of its own inside the response (Responses
    ``web_search_call``, Anthropic ``server_tool_use``): shown, never run by Frontier."""

    type: ClassVar[str] = "server_tool"
    name: str
    id: str = ""


@record
class PromptRead(Event):
    """The server has read ``done`` of the prompt's ``total`` tokens, before its first
    token (llama.cpp's progress): the wait is shown as reading the prompt, how far.
    ``total`` 0: the size is not known (its ``/slots``, asked on a wire that streams no
    progress, gives only the count read)."""

    type: ClassVar[str] = "prompt_read"
    done: int
    total: int


@record
class ToolStarted(Event):
    type: ClassVar[str] = "tool_started"
    call: ToolCall


@record
class ToolOutput(Event):
    type: ClassVar[str] = "tool_output"
    call_id: str
    data: str


@record
class ToolFinished(Event):
    type: ClassVar[str] = "tool_finished"
    result: ToolResult


@record
class ResponseStarted(Event):
    """A new model response begins; transducer offsets restart at 0."""

    type: ClassVar[str] = "response_started"
    mode: str
    request_index: int = 0


@record
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


@record
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


@record
class RepairRequested(Event):
    """The runtime feeds a framing/truncation error back and asks for a resend."""

    type: ClassVar[str] = "repair"
    kind: str
    message: str
    attempt: int
    resend: bool = True
    """The model is asked to write a call again; ``False``: a cut reply with nothing to
    resend (no call cut or held back), the model is asked to go on from where it stopped."""


@record
class TurnEnded(Event):
    type: ClassVar[str] = "turn_ended"
    reason: str
    """``done`` (model finished), ``max_turns``, ``repair_limit``, ``repeating`` (the
    model called a refused repeat again: ``app/agent/repeats.py``),
    ``session_persistence_failed``, ``provider_error``, ``too_long`` (the person's
    message alone is larger than the model's window: docs/context-budget.md),
    ``cancelled``."""
    message: str = ""


@record
class UserMessage(Event):
    """A message the person wrote, as a turn began (a resumed session's history replays
    its ``user`` rows as these: ``app/agent/history_events.py``)."""

    type: ClassVar[str] = "user_message"
    text: str
    """What the person typed (nothing the session added for the model)."""
    notices: tuple[str, ...] = ()
    """What the session told the model first with it (an undo the person made)."""


@record
class QueuedDelivered(Event):
    """Messages the user queued while the agent worked (``AgentSession.queue``) went to
    the model as one user message, with the request that follows (or, when the turn
    they were typed in ended first, with the next turn's first request)."""

    type: ClassVar[str] = "queued_delivered"
    texts: tuple[str, ...]
    """Each message as typed, oldest first."""
    notes: tuple[str, ...] = ()
    """What went with them: ``attached PATH (N bytes)``, or why an ``@path`` was not."""


@record
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


@record
class Notice(Event):
    """Something the person should know that happened beside the turns, from another
    thread: an MCP server that stopped by itself. Shown as a note (the Transcript;
    ``note …`` in the headless log, on stderr with ``--json`` like every note)."""

    type: ClassVar[str] = "note"
    text: str


@record
class McpStarting(Event):
    """The MCP servers still starting in the background (a person's session: docs/mcp.md,
    "Starting"), told when a front end subscribes and again each time a start ends
    (empty: none left). The TUI's status bar shows them while it idles."""

    type: ClassVar[str] = "mcp_starting"
    servers: tuple[str, ...]


@record
class Summarising(Event):
    """The oldest rounds are being summarised by the model in a separate request (it
    can take a while on a slow model); a ``Compacted`` follows."""

    type: ClassVar[str] = "summarising"
    rounds: int
    before: int
    """Tokens the request would use."""
    window: int


@record
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
    """``threshold`` (the budget's share was passed), ``overflow`` (the server said the
    request was too long; it is retried once), ``manual`` (``/compact``), ``too_long`` (a
    message withdrawn), ``images_refused`` (the images taken out: the model takes
    none), or one of :data:`FORGETTING`."""
    detail: str = ""
    """What happened in words (how many results, the summary's source)."""
    messages: int = 0
    """``rewind``: how many of the person's messages it took out (the Transcript dims
    them and what followed); 0: not known (a rewind stored before stop 66)."""


FORGETTING = ("clear", "rewind")
""":class:`Compacted` reasons of a step that took the conversation back (``/clear``,
``/rewind``) rather than shortening it: no token counts to show (none were measured),
and how full the context is stays unknown until the next request."""


@record
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
    match event:
        case ToolStarted(call=c):
            out: dict[str, Any] = {"type": event.type}
            out.update(id=c.id, name=c.name, args=c.json_args())
            return out
        case ToolFinished(result=r):
            return {
                "type": event.type,
                "id": r.call_id,
                "name": r.name,
                "kind": r.kind,
                "exit": r.exit_code,
                "elapsed": round(r.elapsed, 6),
                "output": r.output,
            }
        case AssistantText(text=text):
            return {"type": event.type, "data": text}  # the shape of `transduce`'s text lines
    out = _stream_event_to_json(event)
    for name, value in out.items():
        if isinstance(value, TokenUsage):
            out[name] = value.to_json()
    return out


_LITERALS: dict[str, tuple[str, ...]] = {"ResultKind": RESULT_KINDS}
"""Each ``Literal`` type's values, for ``__getattr__`` (``tests/test_vocab.py`` checks that
each tuple holds exactly its type's values, as written for the type checker)."""

if not TYPE_CHECKING:  # the type checker sees the types themselves, above

    def __getattr__(name: str) -> object:
        """``ResultKind`` named at run time (``tools/base.py`` imports it): built from its
        values on first use, then kept (as ``app/vocab.py`` builds its own)."""
        values = _LITERALS.get(name)
        if values is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from typing import Literal

        made = Literal[values]
        globals()[name] = made
        return made
