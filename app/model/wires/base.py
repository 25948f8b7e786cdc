"""What a wire adapter is: the contract every ``app/model/wires/<wire>.py`` fulfils.

A wire adapter is pure JSON work (no HTTP: ``app/model/transport.py`` does that for
every wire): it encodes a :class:`~frontier.app.model.request.ModelRequest` as its API's
body, decodes each server-sent event of a response into neutral deltas
(``app/model/stream.py``), says where model-written text sits in an event (so secrets
are masked there, in place), and reads its API's error bodies. docs/ARCHITECTURE.md,
"Adding a wire", walks through writing one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import Delta

TextField = tuple[tuple[Any, ...], tuple[str | int, ...], str]
"""``(stream key, path, text)``: one string an event carries that the model wrote.

The key names the text stream across a response's events (text, reasoning, one call's
arguments: the scrubber follows a secret split across events along it); the path finds
the string literal inside the event's JSON (keys and list indices from the root)."""


class EventDecoder(Protocol):
    """One response's decoder (stateful: it follows calls across events)."""

    skipped: int
    """Events ignored because their ``data`` was not JSON of this API."""

    def feed(self, event: str, data: str) -> list[Delta]:
        """The deltas of one event (``event``: its SSE name, ``message`` when absent)."""
        ...


class WireCodec(Protocol):
    """One API's JSON: request bodies, stream events, error bodies."""

    name: str
    """The wire's name (``openai-chat``): ``--wire``, recordings, sessions."""
    path: str
    """The endpoint under the base URL (``chat/completions``)."""
    sdk_prefix: str
    """What the vendor's SDK puts between a base URL and ``path`` when the base URL does
    not end in it: Anthropic's ``v1`` (``ANTHROPIC_BASE_URL`` and the Anthropic-compatible
    base URLs others document, ``https://api.deepseek.com/anthropic``, are given without
    it, and the SDK posts to ``…/v1/messages``); empty for the OpenAI wires, whose SDK
    takes the base URL with its ``/v1``."""
    signals_call_done: bool
    """The API says when each call is complete (Responses, Anthropic); else the
    native accumulator proves it from the stream (Chat Completions' rule, DESIGN §4)."""
    can_prefill: bool
    """A request may end with an assistant message for the answer to continue."""
    records_bare_events: bool
    """A session records this wire's events that carry no delta. Anthropic's are small
    and structural (``content_block_start``/``_stop``, ``ping``): without them ``check``
    of a stored session said every block was "never started". Responses' are not
    (``response.created`` echoes the instructions and tools, ``output_text.done`` and
    ``output_item.done`` repeat the text) and Chat's were never recorded: both record
    only events that carry something."""
    required_max_tokens: int | None
    """The API refuses a request without ``max_tokens`` (Anthropic): the cap a session
    sends when nobody set one (at most this, less when the catalogue says the model's
    limit is lower); ``None``: absent means "up to the window"."""
    native_sign: str
    """How a native call shows in this wire's stream, as a capture's detection line says
    it (``a tool_use block``)."""

    def recognises(self, event: str | None, obj: dict[str, Any] | None) -> str | None:
        """How one captured SSE event (its name, its data parsed when it is an object)
        says it was spoken on this wire (``event names``), else ``None``: a capture of
        unknown origin is told by its events (``app/session/capture.py``)."""
        ...

    def headers(self, api_key: str | None) -> dict[str, str]: ...

    def body(self, request: ModelRequest, model: str) -> dict[str, Any]: ...

    def decoder(self) -> EventDecoder: ...

    def streamed_text(self, data: str) -> Iterator[TextField]:
        """Every model-written string in one event's ``data`` (see :data:`TextField`)."""
        ...

    def error_text(self, obj: Any) -> str:
        """The human part of an error object or body of this API."""
        ...

    def json_answer(self, obj: Any) -> list[Delta] | None:
        """A whole (non-streamed) answer of this API, as the deltas a stream would have
        carried; ``None`` when ``obj`` is not one (the transport then says so)."""
        ...

    def whole_stream(self, obj: Any) -> list[tuple[str, str]] | None:
        """A whole (non-streamed) answer of this API as the events, ``(name, data)``, its
        stream would have carried, which this wire's decoder reads as :meth:`json_answer`
        reads the object; ``None`` when ``obj`` is not one. A capture of a request made
        without ``stream`` (an SDK's default, a ``curl`` saved to a file) is checked and
        replayed so."""
        ...

    def rejected(self, status: int, text: str) -> str | None:
        """The server refused a request (``status``, body ``text``): if the wire can send
        it differently (an optional field an older server rejects), adjust and say why;
        ``None`` to treat the refusal as final."""
        ...


__all__ = ["EventDecoder", "TextField", "WireCodec"]
