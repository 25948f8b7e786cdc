"""The neutral stream: what every wire's response becomes, and what every consumer reads.

A wire adapter (``app/model/wires/<wire>.py``) decodes each server-sent event of its API
into a tuple of *deltas* (below); the transport wraps them, with the event's raw ``data``
string and its arrival time, in a :class:`WireEvent`. The loop, the transducers (through
the mode adapter), the recorder, replay and ``frontier check`` read deltas only, so none
of them knows which API produced them.

Calls are keyed per response by the wire's own handle (``key``: Chat Completions' tool
call ``index``, a Responses ``output_index``, an Anthropic content block ``index``), an
int that orders the calls as the model wrote them; ``id`` is what the API wants a result
to name (``tool_call_id``, ``call_id``, ``tool_use_id``).

This module imports nothing of Frontier but the event vocabulary (``TokenUsage``):
``app/cst`` may import it (the native accumulator consumes deltas).
"""

from __future__ import annotations

from collections.abc import Mapping

from frontier.app.events import PromptRead, Retry, TokenUsage
from frontier.app.record import field, record

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

    FinishReason = Literal[
        "stop",
        "tool_calls",
        "pause",
        "length",
        "content_filter",
        "error",
        "disconnect",
        "stopped",
        "other",
    ]
"""A response's end, normalised over every wire (the raw reason is kept beside it):

- ``stop``: the model ended its turn (Chat ``stop``, Anthropic ``end_turn`` /
  ``stop_sequence``, Responses ``completed`` without a call);
- ``tool_calls``: it ended to have calls run (Chat ``tool_calls``, Anthropic ``tool_use``,
  Responses ``completed`` with a function call);
- ``pause``: the server paused a long turn (Anthropic ``pause_turn``): clean, nothing cut;
- ``length``: cut by the token limit (Chat ``length``, Anthropic ``max_tokens``,
  Responses ``incomplete`` for ``max_output_tokens``);
- ``content_filter``: cut by the provider's filter or a refusal;
- ``error``: the server reported an error inside the stream;
- ``disconnect``: the connection dropped, stalled, or ended before any end was sent;
- ``stopped``: Frontier stopped reading (text after a confirmed call, a contract error);
- ``other``: a word Frontier does not know: not clean, so nothing is taken as proven by it.
"""


@record(slots=True)
class TextDelta:
    """Assistant text (what the text protocols' transducers read)."""

    text: str


@record(slots=True)
class ReasoningDelta:
    """A piece of the model's reasoning: shown and recorded, never transduced."""

    text: str


@record(slots=True)
class ReasoningBlock:
    """A whole reasoning item or block the API requires back in later requests, as the
    API sent it (Anthropic ``thinking`` with its ``signature``, ``redacted_thinking``;
    a Responses ``reasoning`` item with its ``encrypted_content``). Opaque to everyone
    but the wire that made it; kept in the conversation with that wire's name."""

    data: Mapping[str, Any]


@record(slots=True)
class CallStart:
    """A native tool call was announced (its id or name is known)."""

    key: int
    id: str
    name: str


@record(slots=True)
class CallArgs:
    """A piece of a call's JSON arguments text."""

    key: int
    data: str


@record(slots=True)
class CallDone:
    """The wire says call ``key`` is complete (Responses ``output_item.done``, Anthropic
    ``content_block_stop`` of a ``tool_use`` block).

    ``arguments``, when the wire repeats them whole, are authoritative (some servers send
    no argument pieces at all); ``id`` and ``name`` likewise override what the start said
    (the Responses ``call_id`` can change between ``added`` and ``done``). ``proof`` is
    false when the event closes the call without proving it whole (``status:
    incomplete`` or ``in_progress``): the call then waits for a clean end of the
    response, like a Chat Completions call."""

    key: int
    id: str = ""
    name: str = ""
    arguments: str | None = None
    proof: bool = True


@record(slots=True)
class ServerToolCall:
    """A tool the provider runs itself (Responses ``web_search_call``, Anthropic
    ``server_tool_use``): shown, never executed by Frontier."""

    name: str
    id: str = ""


@record(slots=True)
class UsageDelta:
    """Token counts for the request (the last one of a response wins)."""

    usage: TokenUsage


@record(slots=True)
class PromptProgress:
    """The server is reading the prompt: ``done`` of its ``total`` tokens (``cached`` of
    them from its cache). llama.cpp sends it when asked (``return_progress``), once per
    batch, before the first token: a long prompt on a CPU takes minutes there, and this
    is the sign that the server works on it (the deadlines move; the person is shown how
    far it is). Nothing of the reply."""

    done: int
    total: int
    cached: int = 0


@record(slots=True)
class Finish:
    """Why the response ended, normalised (``raw``: the wire's own word)."""

    reason: FinishReason
    raw: str = ""


@record(slots=True)
class ServerError:
    """The server reported an error inside the stream; the response ends ``error``."""

    message: str
    refused_call: str | None = None
    """The model's own words, when the server could not read them as a call and said so
    (Groq's ``tool_use_failed`` with its ``failed_generation``): a framing error of the
    model's, repaired like any other, not the end of the turn."""


@record(slots=True)
class Malformed:
    """An event the wire could not read that may have carried model output (JSON nested
    past the limit): the native accumulator stops there rather than guess."""

    message: str


UNREADABLE_PREVIEW = 80
"""Characters of an unreadable event's data kept to say what it was."""


@record(slots=True)
class Unreadable:
    """An event whose ``data`` the wire could not read at all (not JSON), skipped. It may
    have been a piece of the reply: inside a call (or an undecided frame) that call fails,
    since its bytes have a hole; elsewhere the person is told (``app/agent/modes.py``)."""

    preview: str
    """The start of the event's data, as sent (for the message)."""


@record(slots=True)
class Ignored:
    """Input read and deliberately not used (a chunk for a second choice), with why."""

    note: str


@record(slots=True)
class End:
    """The wire's terminal event (``[DONE]``, ``response.completed``/``incomplete``/
    ``failed``, ``message_stop``): nothing more belongs to this response."""


Delta = (
    TextDelta
    | ReasoningDelta
    | ReasoningBlock
    | CallStart
    | CallArgs
    | CallDone
    | ServerToolCall
    | UsageDelta
    | PromptProgress
    | Finish
    | ServerError
    | Malformed
    | Unreadable
    | Ignored
    | End
)
"""What one server-sent event can mean, on any wire."""


@record(slots=True)
class WireEvent:
    """One server-sent event: its raw ``data`` (recorded exactly) and what it means."""

    raw: str
    t: float
    """Seconds since the request that produced it was sent."""
    deltas: tuple[Delta, ...] = ()


NO_FINISH = "(none)"
"""The ``raw_reason`` of a stream that ended with its end event and no finish before it
(``[DONE]`` alone: proxies in front of Gemini, servers that never send ``finish_reason``):
read as ``stop``, since nothing cut it."""


@record
class StreamEnd:
    """The last item of every stream.

    ``finish_reason`` is normalised (:data:`FinishReason`); ``raw_reason`` is the wire's
    word for it (:data:`NO_FINISH`: it said none). ``error``: the server's message for an
    ``error`` end. ``detail``: why a ``disconnect`` happened (for logs and the UI).
    """

    finish_reason: str
    usage: TokenUsage = field(default_factory=TokenUsage)
    error: str | None = None
    skipped: int = 0
    """Events skipped because their ``data`` was not JSON the wire could read (each also
    came through as an ``Unreadable`` delta)."""
    detail: str = ""
    raw_reason: str = ""
    refused_call: str | None = None
    """:attr:`ServerError.refused_call` of the error that ended the stream."""
    notes: tuple[str, ...] = ()
    """What this response taught the client that the person should hear, each once a
    client (a server that sends no finish, a template that opens the thought)."""


StreamItem = WireEvent | Retry | PromptRead | StreamEnd
"""What a model client's stream yields: events, retries of the request, how far the
server has read the prompt when only asking it can tell (``PromptRead``: llama.cpp's
``/slots``), then one end."""


def text_of(deltas: tuple[Delta, ...] | list[Delta]) -> str:
    """The assistant text among ``deltas`` (what a text protocol reads of one event)."""
    return "".join(d.text for d in deltas if type(d) is TextDelta)


def reasoning_of(deltas: tuple[Delta, ...] | list[Delta]) -> str:
    return "".join(d.text for d in deltas if type(d) is ReasoningDelta)


__all__ = [
    "UNREADABLE_PREVIEW",
    "CallArgs",
    "CallDone",
    "CallStart",
    "Delta",
    "End",
    "Finish",
    "Ignored",
    "Malformed",
    "ReasoningBlock",
    "ReasoningDelta",
    "Retry",
    "ServerError",
    "ServerToolCall",
    "StreamEnd",
    "StreamItem",
    "TextDelta",
    "Unreadable",
    "UsageDelta",
    "WireEvent",
    "reasoning_of",
    "text_of",
]
