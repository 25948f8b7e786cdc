"""The stream half of the event vocabulary: what a transducer emits.

``app/events.py`` is the one vocabulary and re-exports every name here; the
transducers (``app/cst``) and ``frontier transduce`` import this module instead,
so a process that only transduces does not build the turn's two dozen other
event classes (a fifth of ``frontier transduce``'s start-up when they were
dataclasses; ``app/record.py`` has since made every class cheap). Same classes,
same fields; see ``app/events.py`` for the conventions.

Nothing here imports anything beyond the standard library and ``app/record.py``.
"""

from __future__ import annotations

from collections.abc import Mapping

from frontier.app.record import fields, record

TYPE_CHECKING = False
"""``typing`` is not imported at run time (~3 ms of start-up): the types below exist for the
type checker; a ``Literal`` one named at run time ``__getattr__`` (at the end) builds from its
tuple."""
if TYPE_CHECKING:
    from typing import Any, ClassVar, Literal

    ArgValue = str | bytes | Any
"""CTL arguments are ``str`` when valid UTF-8, else ``bytes``; native/JSON
arguments are whatever the JSON decoded to."""

if TYPE_CHECKING:
    ArgForm = Literal["length", "inline", "heredoc", "json"]
ARG_FORMS: tuple[ArgForm, ...] = ("length", "inline", "heredoc", "json")

if TYPE_CHECKING:
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
CONTRACT_ERROR_KINDS: tuple[str, ...] = (
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
)


@record
class ToolCall:
    """A call that the transducer has proven complete: it can no longer change."""

    id: str
    name: str
    args: Mapping[str, ArgValue]
    offset: int = 0
    """Offset of the byte that confirmed the call (the ``\\n`` of ``end``)."""
    origin: str = ""
    """The command the model wrote, when the agent loop read a shell call as a file tool's
    (``sed -i …`` run as the patch it makes: ``Registry.meant``); shown beside the call it
    became, so a person sees what the model asked for. ``""``: the call as the model made
    it."""

    def json_args(self) -> dict[str, Any]:
        """Arguments as JSON-safe values (``bytes`` become ``{"base64": ...}``)."""
        return {k: json_value(v) for k, v in self.args.items()}


def json_value(value: ArgValue) -> Any:
    """``bytes`` as UTF-8 text, else ``{"base64": ...}``; other values unchanged."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            import base64  # only for bytes that are not UTF-8

            return {"base64": base64.b64encode(value).decode("ascii")}
    return value


# --------------------------------------------------------------------------- stream


_set = object.__setattr__


@record
class Event:
    """Every event: a frozen record whose ``type`` names it in JSON.

    The stream events below are declared ``init=False`` with their ``__init__`` written
    out: a transducer builds them by the thousand, and a written-out ``__init__`` is
    faster than ``@record``'s generic one.
    """

    type: ClassVar[str] = "event"

    def json_fields(self) -> dict[str, Any] | None:
        """The event's fields in ``event_to_json``'s form, for an event defined above
        this module (``tools/contract.py``'s approval events) whose fields are not plain
        values; ``None``: every field as it is."""
        return None


@record(init=False)
class StreamBytes(Event):
    """Raw bytes arrived at the transducer (before any confirmation)."""

    type: ClassVar[str] = "bytes"
    offset: int
    data: bytes

    def __init__(self, offset: int, data: bytes) -> None:
        _set(self, "offset", offset)
        _set(self, "data", data)


@record(init=False)
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

    def __init__(self, offset: int, kind: Literal["text", "frame", "body"], data: bytes) -> None:
        _set(self, "offset", offset)
        _set(self, "kind", kind)
        _set(self, "data", data)


@record(init=False)
class CallStarted(Event):
    """A call's header was confirmed: its id and tool name can no longer change."""

    type: ClassVar[str] = "call_started"
    id: str
    name: str
    offset: int = 0
    replaces: str = ""
    """The id this call was announced under, when its wire changed it before the call
    completed (a Responses ``call_id`` that differs between ``added`` and ``done``): the
    same call, renamed; nothing is open under the old id any more."""

    def __init__(self, id: str, name: str, offset: int = 0, replaces: str = "") -> None:
        _set(self, "id", id)
        _set(self, "name", name)
        _set(self, "offset", offset)
        _set(self, "replaces", replaces)


@record(init=False)
class ArgStarted(Event):
    """An argument's header was confirmed: its key and form (its bytes follow)."""

    type: ClassVar[str] = "arg_started"
    call_id: str
    key: str
    form: ArgForm
    declared: int | None = None
    """Declared byte count for length-prefixed arguments."""
    offset: int = 0

    def __init__(
        self,
        call_id: str,
        key: str,
        form: ArgForm,
        declared: int | None = None,
        offset: int = 0,
    ) -> None:
        _set(self, "call_id", call_id)
        _set(self, "key", key)
        _set(self, "form", form)
        _set(self, "declared", declared)
        _set(self, "offset", offset)


@record(init=False)
class ArgBytes(Event):
    """Confirmed bytes of an argument value (may arrive in many pieces)."""

    type: ClassVar[str] = "arg_bytes"
    call_id: str
    key: str
    data: bytes
    offset: int = 0

    def __init__(self, call_id: str, key: str, data: bytes, offset: int = 0) -> None:
        _set(self, "call_id", call_id)
        _set(self, "key", key)
        _set(self, "data", data)
        _set(self, "offset", offset)


@record(init=False)
class CallReady(Event):
    """The call is complete and may execute (CTL: at ``end\\n``)."""

    type: ClassVar[str] = "call"
    call: ToolCall

    def __init__(self, call: ToolCall) -> None:
        _set(self, "call", call)


@record(init=False)
class ContractError(Event):
    """A framing error; nothing after it in this message is processed."""

    type: ClassVar[str] = "error"
    kind: str
    """One of ``CONTRACT_ERROR_KINDS``."""
    message: str
    offset: int

    def __init__(self, kind: str, message: str, offset: int) -> None:
        _set(self, "kind", kind)
        _set(self, "message", message)
        _set(self, "offset", offset)


@record
class ReasoningText(Event):
    """A piece of the model's reasoning (``delta.reasoning_content`` or ``delta.reasoning``,
    Responses' reasoning summaries, Anthropic's thinking): shown as a dimmed thinking block
    and kept in the recorded stream, never fed to a transducer (it proves nothing). The
    native transducer reads it off the events it decodes, so a replay and ``frontier
    transduce`` show it where the live run did; what goes back to the model is the API's
    own reasoning block (``model.stream.ReasoningBlock``)."""

    type: ClassVar[str] = "reasoning"
    text: str


@record(init=False)
class StreamStopped(Event):
    """The transducer stopped reading (e.g. text after a confirmed call)."""

    type: ClassVar[str] = "stop"
    reason: str
    offset: int

    def __init__(self, reason: str, offset: int) -> None:
        _set(self, "reason", reason)
        _set(self, "offset", offset)


def coalesce_confirmed(events: list[Event]) -> list[Event]:
    """``events`` with each run of back-to-back ``Confirmed`` of one kind and contiguous
    offsets joined into one (the same bytes became irreversible, in one event).

    CTL confirms prose a line at a time, so a 1 MiB reply is ~40,000 events; a reader
    that takes a whole slice at once (replay at "max") applies a few instead. Any other
    event between two ``Confirmed`` keeps them apart, so the order of everything a front
    end shows is unchanged."""
    out: list[Event] = []
    run: list[Confirmed] = []
    end = -1

    def flush() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            out.append(Confirmed(run[0].offset, run[0].kind, b"".join(e.data for e in run)))
        run.clear()

    for event in events:
        if isinstance(event, Confirmed):
            if not (run and event.kind == run[0].kind and event.offset == end):
                flush()
            run.append(event)
            end = event.offset + len(event.data)
        else:
            flush()
            out.append(event)
    flush()
    return out


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON-lines form of a stream event, as ``frontier transduce`` prints it.

    ``app/events.event_to_json`` is this plus the turn's events (``run --json``,
    recordings): one form for both."""
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
            if c.origin:
                out["from"] = c.origin
        case ArgBytes(data=d):
            out.update(call_id=event.call_id, key=event.key, data=json_value(d))
            out["offset"] = event.offset
        case _:
            for name in (f.name for f in fields(event)):
                value = getattr(event, name)
                out[name] = json_value(value) if isinstance(value, bytes) else value
    return out


_LITERALS: dict[str, tuple[str, ...]] = {
    "ArgForm": ARG_FORMS,
    "ContractErrorKind": CONTRACT_ERROR_KINDS,
}
"""Each ``Literal`` type's values, for ``__getattr__`` (``tests/test_vocab.py`` checks that
each tuple holds exactly its type's values, as written for the type checker)."""

if not TYPE_CHECKING:  # the type checker sees the types themselves, above

    def __getattr__(name: str) -> object:
        """A ``Literal`` type named at run time (``get_args(ContractErrorKind)``): built from
        its values on first use, then kept (as ``app/vocab.py`` builds its own)."""
        values = _LITERALS.get(name)
        if values is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from typing import Literal

        made = Literal[values]
        globals()[name] = made
        return made
