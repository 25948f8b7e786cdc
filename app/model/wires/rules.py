"""The wires' own framing rules, checked over one response's SSE events.

The decoders (``openai_chat``, ``openai_responses``, ``anthropic_messages``) are lenient
on purpose: an event they cannot place is skipped or noted, so a live turn goes on. But
a person debugging a stream needs to know *whose* error it was: a model that wrote a bad
call, or a server that broke its own API's framing (a delta for a block never started,
arguments at ``.done`` that disagree with the deltas, an id that changes). This module
says the latter, and names each event in the wire's words, for the framing-error
explanation (``app/cst/explain.py``). It holds no Frontier state: only what the events
themselves say, so it never changes what the codecs decode (their hot path is untouched).

Cost is linear in the events; per call it keeps the argument bytes streamed so far (to
compare with a repeated ``.done``), bounded by the body itself.
"""

from __future__ import annotations

from frontier.app.model.think_tags import OPENED
from frontier.app.record import field, record
from frontier.app.wire import safejson

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

RULES = (
    "out_of_order",
    "after_end",
    "args_disagree",
    "id_changed",
    "index_reused",
    "missing_index",
    "not_json",
)
"""The server rules checked (``Violation.rule``)."""

MAX_VIOLATIONS = 16
"""Violations kept per response (``dropped`` counts the rest): a broken server can break
a rule at every event, and one line per event says nothing more."""

HEAD = 40
"""Characters of an id or argument text quoted in a message."""


@record
class Violation:
    """One event that broke its wire's own rules: the server's error, not the model's."""

    rule: str
    """One of :data:`RULES`."""
    event: int
    """1-based number of the SSE event in the body."""
    message: str


@record
class Step:
    """What one SSE event was, in the wire's words."""

    event: int
    label: str


@record(frozen=False)
class _Call:
    """What the events said of one call so far (per key: the decoders' own key)."""

    key: int
    id: str = ""
    name: str = ""
    item: str = ""
    """Responses: the item's ``id`` (``fc_…``), besides its ``call_id``."""
    started: int = 0
    """Event that opened it (0: never opened)."""
    closed: int = 0
    """Event that closed it (``content_block_stop``, ``output_item.done``)."""
    deltas: list[str] = field(default_factory=list)


def _short(text: str) -> str:
    return text if len(text) <= HEAD else text[: HEAD - 1] + "…"


def _typed(event: str, data: str) -> tuple[dict[str, Any], str] | str:
    """An event-typed wire's JSON and its ``type`` (the SSE event name when the JSON has
    none, or none that is a string); else the label of what could not be read."""
    if data == "[DONE]":
        return "data: [DONE]"
    obj = _load(data)
    if obj is None:
        return f"`{event}` (not JSON)"
    kind = obj.get("type")
    return obj, kind if isinstance(kind, str) else event


def _load(data: str) -> dict[str, Any] | None:
    try:  # a capture is untrusted: bounded before any recursion
        obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _differ(final: str, streamed: str) -> str:
    """How repeated arguments differ from the streamed ones ("" : they agree). Byte for
    byte: the accumulator believes the repeat, and after a completed call a re-serialised
    repeat is ``late_arguments``, so the same JSON in other bytes is worth saying."""
    if final == streamed:
        return ""
    try:
        same = safejson.loads(final) == safejson.loads(streamed)
    except ValueError:
        same = False
    return " (the same JSON in other bytes)" if same else ""


class WireRules:
    """One response's events, checked; subclasses know one wire."""

    wire = ""
    closer = ""
    """The event that says a call is complete (empty: the wire never says)."""

    def __init__(self) -> None:
        self.calls: dict[int, _Call] = {}
        self.violations: list[Violation] = []
        self.ended = 0
        """The event that ended the response (0: not yet)."""
        self.dropped = 0
        """Violations past ``MAX_VIOLATIONS``."""
        self._event = 0
        self._after = False

    def feed(self, event: str, data: str) -> Step:
        """Check one event; its label in the wire's words."""
        self._event += 1
        if data == OPENED:  # Frontier's own line in its recording, not the server's
            return Step(self._event, "(Frontier: read opened inside a thought)")
        if self._after:
            return Step(self._event, "(after the end: not read)")
        label = self._feed(event, data.strip())
        return Step(self._event, label)

    @property
    def count(self) -> int:
        """Events read so far."""
        return self._event

    def closed(self, key: int) -> bool:
        """The wire said the call at ``key`` was complete."""
        call = self.calls.get(key)
        return call is not None and bool(call.closed)

    def call_label(self, key: int) -> str:
        """The call at ``key`` as the wire names it."""
        raise NotImplementedError

    def held(self, key: int) -> str:
        """Why the wire had not yet said the call at ``key`` was complete."""
        call = self.calls.get(key)
        if call is not None and call.closed:
            return f"its {self.closer} came at event {call.closed}"
        return f"its {self.closer} never came"

    def _feed(self, event: str, data: str) -> str:
        raise NotImplementedError

    def _flag(self, rule: str, message: str) -> None:
        if len(self.violations) >= MAX_VIOLATIONS:
            self.dropped += 1
        else:
            self.violations.append(Violation(rule, self._event, message))

    def _not_json(self, label: str, data: str) -> str:
        """An event whose data is not JSON: every decoder skips it, and a live session
        fails a call it arrived inside (its bytes may have a hole: ``app/agent/modes.py``)."""
        if data:  # an empty ``data:`` is a keep-alive, not junk
            self._flag("not_json", f"event {self._event} cannot be read as JSON ({_short(data)!r})")
        return label

    def _after_end(self, what: str, end: str) -> str:
        """The first event after the response ended: flagged once; the rest are another
        response spliced on (the decoders ignore them too), so they are not read."""
        self._flag("after_end", f"{what} at event {self._event} came after {end}")
        self._after = True
        return f"{what} (after the end)"

    def _call(self, key: int) -> _Call:
        call = self.calls.get(key)
        if call is None:
            call = self.calls[key] = _Call(key)
        return call


class AnthropicRules(WireRules):
    wire = "anthropic-messages"
    closer = "content_block_stop"

    def __init__(self) -> None:
        super().__init__()
        self._open: dict[int, str] = {}
        self._stopped: dict[int, int] = {}
        self._started: dict[int, int] = {}

    def call_label(self, key: int) -> str:
        call = self.calls.get(key)
        who = f" ({call.id or 'no id'} {call.name or 'no name'})" if call else ""
        return f"the Anthropic tool_use block at index {key}{who}"

    def _feed(self, event: str, data: str) -> str:
        typed = _typed(event, data)
        if isinstance(typed, str):
            return self._not_json(typed, data) if typed.endswith("(not JSON)") else typed
        obj, kind = typed
        index = _int(obj.get("index"))
        if self.ended and kind != "ping":
            return self._after_end(f"`{kind}`", f"message_stop (event {self.ended})")
        if kind == "content_block_start":
            block = obj.get("content_block")
            block = block if isinstance(block, dict) else {}
            btype = str(block.get("type") or "?")
            if index is not None:
                if index in self._started:
                    self._flag(
                        "index_reused",
                        f"content_block_start at event {self._event} reused index {index} "
                        f"(first started at event {self._started[index]})",
                    )
                self._started.setdefault(index, self._event)
                self._open[index] = btype
                if btype == "tool_use":
                    call = self._call(index)
                    call.id, call.name = str(block.get("id") or ""), str(block.get("name") or "")
                    call.started, call.closed, call.deltas = self._event, 0, []
                    return f"content_block_start index {index} (tool_use {call.id} {call.name})"
            return f"content_block_start index {index} ({btype})"
        if kind == "content_block_delta":
            delta = obj.get("delta")
            delta = delta if isinstance(delta, dict) else {}
            dtype = str(delta.get("type") or "?")
            if index is not None and index not in self._open:
                where = (
                    f"after its content_block_stop at event {self._stopped[index]}"
                    if index in self._stopped
                    else "a block never started"
                )
                self._flag(
                    "out_of_order",
                    f"content_block_delta ({dtype}) at event {self._event} for index "
                    f"{index}, {where}",
                )
            piece = delta.get("partial_json")
            if dtype == "input_json_delta" and isinstance(piece, str) and index in self.calls:
                self.calls[index].deltas.append(piece)
                return f"content_block_delta index {index} (input_json_delta, {len(piece)} chars)"
            return f"content_block_delta index {index} ({dtype})"
        if kind == "content_block_stop":
            if index is not None and index not in self._open:
                where = (
                    f"already stopped at event {self._stopped[index]}"
                    if index in self._stopped
                    else "never opened"
                )
                self._flag(
                    "out_of_order",
                    f"content_block_stop at event {self._event} for index {index}, {where}",
                )
            elif index is not None:
                self._open.pop(index)
                self._stopped[index] = self._event
                if index in self.calls:
                    self.calls[index].closed = self._event
            return f"content_block_stop index {index}"
        if kind == "message_delta":
            delta = obj.get("delta")
            reason = delta.get("stop_reason") if isinstance(delta, dict) else None
            return f"message_delta with stop_reason: {reason}" if reason else "message_delta"
        if kind == "message_stop":
            self.ended = self.ended or self._event
            return "message_stop"
        return str(kind)


class ResponsesRules(WireRules):
    wire = "openai-responses"
    closer = "response.output_item.done"
    _TERMINAL = ("response.completed", "response.incomplete", "response.failed", "response.done")

    def __init__(self) -> None:
        super().__init__()
        self._added: dict[int, int] = {}
        self._final: dict[int, str] = {}
        """``function_call_arguments.done``'s arguments, per output_index."""
        self._by_item: dict[str, int] = {}
        """Item id → output_index, for a server that leaves ``output_index`` out."""
        self._unindexed = False
        self._sequence: int | None = None
        """The last ``sequence_number`` (the API numbers its events in order)."""
        self._misnumbered = False

    def call_label(self, key: int) -> str:
        call = self.calls.get(key)
        if call is None:
            return f"the Responses function_call at output_index {key}"
        return (
            f"the Responses function_call item {call.item or '(no id)'} at output_index {key} "
            f"({call.id or 'no call_id'} {call.name or 'no name'})"
        )

    def _feed(self, event: str, data: str) -> str:
        typed = _typed(event, data)
        if isinstance(typed, str):
            return self._not_json(typed, data) if typed.endswith("(not JSON)") else typed
        obj, kind = typed
        index = _int(obj.get("output_index"))
        if self.ended:
            return self._after_end(f"`{kind}`", f"the response ended (event {self.ended})")
        self._numbered(str(kind), _int(obj.get("sequence_number")))
        if kind in self._TERMINAL:
            self.ended = self.ended or self._event
            response = obj.get("response")
            details = response.get("incomplete_details") if isinstance(response, dict) else None
            why = details.get("reason") if isinstance(details, dict) else None
            return f"{kind} (reason: {why})" if why else str(kind)
        if kind in ("response.output_item.added", "response.output_item.done"):
            item = obj.get("item")
            if index is None:
                ident = item.get("id") if isinstance(item, dict) else None
                index = self._index_of(str(kind), ident, added=kind.endswith(".added"))
            return self._item(str(kind), index, item)
        if isinstance(kind, str) and kind.startswith("response.function_call_arguments."):
            if index is None:
                index = self._index_of(kind, obj.get("item_id"), added=False)
            return self._arguments(str(kind), index, obj)
        return str(kind)

    def _numbered(self, kind: str, number: int | None) -> None:
        """An event's ``sequence_number`` goes forward (said once: a capture spliced or
        reordered, or a proxy that buffered events out of order)."""
        if number is None:
            return
        last, self._sequence = self._sequence, number
        if last is not None and number <= last and not self._misnumbered:
            self._misnumbered = True
            self._flag(
                "out_of_order",
                f"{kind} at event {self._event} has sequence_number {number}, not after the "
                f"{last} before it (the Responses API numbers its events in order)",
            )

    def _index_of(self, kind: str, item_id: object, *, added: bool) -> int | None:
        """The output_index of an event that carries none (llama.cpp's ``/v1/responses``
        sends none): found by its item's id, said once as the server's deviation."""
        if not isinstance(item_id, str) or not item_id:
            return None
        if not self._unindexed:
            self._unindexed = True
            self._flag(
                "missing_index",
                f"{kind} at event {self._event} carries no output_index (the Responses "
                "stream names every output item by it); its items are matched by id",
            )
        if added and item_id not in self._by_item:
            self._by_item[item_id] = len(self._by_item)
        return self._by_item.get(item_id)

    def _item(self, kind: str, index: int | None, item: Any) -> str:
        item = item if isinstance(item, dict) else {}
        itype = str(item.get("type") or "?")
        added = kind.endswith(".added")
        if index is None:
            return f"{kind} ({itype})"
        if added:
            if index in self._added:
                self._flag(
                    "index_reused",
                    f"response.output_item.added at event {self._event} reused output_index "
                    f"{index} (first added at event {self._added[index]})",
                )
            elif self._added and index < max(self._added):
                self._flag(
                    "out_of_order",
                    f"response.output_item.added at event {self._event} added output_index "
                    f"{index} after output_index {max(self._added)} (items are added in order)",
                )
            self._added.setdefault(index, self._event)
        elif index not in self._added:
            self._flag(
                "out_of_order",
                f"response.output_item.done at event {self._event} for output_index {index}, "
                "an item never added",
            )
        if itype != "function_call":
            return f"{kind} output_index {index} ({itype})"
        call = self._call(index)
        ident, item_id = str(item.get("call_id") or ""), str(item.get("id") or "")
        name = str(item.get("name") or "")
        if added:
            call.id, call.item, call.name, call.started = ident, item_id, name, self._event
        else:
            for what, was, now in (("call_id", call.id, ident), ("id", call.item, item_id)):
                if was and now and was != now:
                    self._flag(
                        "id_changed",
                        f"the function_call at output_index {index} changed its {what} "
                        f"from {was} to {now} at response.output_item.done (event {self._event})",
                    )
            call.id, call.item = call.id or ident, call.item or item_id
            call.name = call.name or name
            call.closed = self._event
            final = item.get("arguments")
            streamed = "".join(call.deltas)
            if isinstance(final, str) and (call.deltas or index in self._final):
                against = self._final.get(index, streamed)
                source = "function_call_arguments.done" if index in self._final else "the deltas"
                if final != against:
                    self._flag(
                        "args_disagree",
                        f"response.output_item.done at event {self._event} carries arguments "
                        f"{_short(final)!r} for output_index {index}, but {source} said "
                        f"{_short(against)!r}{_differ(final, against)}",
                    )
        return f"{kind} output_index {index} (function_call {call.item} {call.id} {call.name})"

    def _arguments(self, kind: str, index: int | None, obj: dict[str, Any]) -> str:
        if index is None:
            return kind
        call = self.calls.get(index)
        item_id = obj.get("item_id")
        if call is None or not call.started:
            self._flag(
                "out_of_order",
                f"{kind} at event {self._event} for output_index {index}, an item never added",
            )
            call = self._call(index)
        elif call.closed:
            self._flag(
                "out_of_order",
                f"{kind} at event {self._event} for output_index {index}, after its "
                f"response.output_item.done at event {call.closed}",
            )
        if isinstance(item_id, str) and item_id and call.item and item_id != call.item:
            self._flag(
                "id_changed",
                f"{kind} at event {self._event} names item {item_id} for output_index "
                f"{index}, which was added as {call.item}",
            )
        if kind.endswith(".delta"):
            delta = obj.get("delta")
            if isinstance(delta, str):
                call.deltas.append(delta)
                return f"{kind} output_index {index} ({len(delta)} chars)"
            return f"{kind} output_index {index}"
        if kind.endswith(".done"):
            final = obj.get("arguments")
            if isinstance(final, str):
                streamed = "".join(call.deltas)
                if call.deltas and final != streamed:
                    self._flag(
                        "args_disagree",
                        f"{kind} at event {self._event} carries arguments {_short(final)!r} "
                        f"for output_index {index}, but its deltas said {_short(streamed)!r}"
                        f"{_differ(final, streamed)}",
                    )
                self._final[index] = final
        return f"{kind} output_index {index}"


class ChatRules(WireRules):
    wire = "openai-chat"
    closer = ""

    def __init__(self) -> None:
        super().__init__()
        self._finished = 0

    def call_label(self, key: int) -> str:
        call = self.calls.get(key)
        who = f" ({call.id or 'no id'} {call.name or 'no name'})" if call else ""
        return f"Chat tool_calls[{key}]{who}"

    def held(self, key: int) -> str:
        return (
            "Chat never says a call is complete: it is complete once a later call's "
            "argument bytes arrive and its own parse, or at a clean finish_reason"
        )

    def _feed(self, event: str, data: str) -> str:
        if data == "[DONE]":
            if self.ended:
                return self._after_end("a second data: [DONE]", f"event {self.ended}")
            self.ended = self.ended or self._event
            return "data: [DONE]"
        obj = _load(data)
        if obj is None:
            return self._not_json("chunk (not JSON)", data)
        if self.ended:
            return self._after_end("a chunk", f"data: [DONE] (event {self.ended})")
        choices = obj.get("choices")
        choice = next(
            (
                c
                for c in (choices if isinstance(choices, list) else [])
                if isinstance(c, dict) and c.get("index", 0) in (0, None)
            ),
            None,
        )
        if choice is None:
            return "chunk (usage)" if obj.get("usage") else "chunk"
        parts: list[str] = []
        delta = choice.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        pieces = delta.get("tool_calls")
        if self._finished and (delta.get("content") or pieces):
            self._flag(
                "out_of_order",
                f"a chunk at event {self._event} carries content or tool_calls after "
                f"finish_reason (event {self._finished})",
            )
        if delta.get("content"):
            parts.append("content")
        for piece in pieces if isinstance(pieces, list) else []:
            if isinstance(piece, dict):
                parts.append(self._piece(piece))
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self._finished = self._finished or self._event
            parts.append(f"finish_reason: {reason}")
        return f"chunk ({', '.join(parts)})" if parts else "chunk"

    def _piece(self, piece: dict[str, Any]) -> str:
        index = _int(piece.get("index"))
        if index is None:
            return "tool_calls[?]"
        call = self._call(index)
        fn = piece.get("function")
        fn = fn if isinstance(fn, dict) else {}
        ident, name = piece.get("id"), fn.get("name")
        if isinstance(ident, str) and ident:
            if call.id and ident != call.id:
                self._flag(
                    "id_changed",
                    f"tool_calls[{index}] changed its id from {call.id} to {ident} at event "
                    f"{self._event} (one index, two ids)",
                )
            call.id = call.id or ident
        if isinstance(name, str) and name:
            if call.name and name != call.name:
                self._flag(
                    "id_changed",
                    f"tool_calls[{index}] changed its name from {call.name} to {name} at "
                    f"event {self._event}",
                )
            call.name = call.name or name
        call.started = call.started or self._event
        args = fn.get("arguments")
        if isinstance(args, str) and args:
            call.deltas.append(args)
            return f"tool_calls[{index}] {len(args)} argument chars"
        return f"tool_calls[{index}] {call.id} {call.name}".rstrip()


_BY_WIRE: dict[str, type[WireRules]] = {
    r.wire: r for r in (AnthropicRules, ResponsesRules, ChatRules)
}


def rules_for(wire: str) -> WireRules | None:
    """A fresh checker for one response on ``wire`` (``None``: a wire without rules here)."""
    cls = _BY_WIRE.get(wire)
    return cls() if cls is not None else None


def checked(wire: str, events: Iterable[tuple[str, str]]) -> WireRules | None:
    """``wire``'s rules, fed one response's ``(event, data)`` pairs (``None``: a wire
    without rules here): its ``violations``, and the ``calls`` the events opened."""
    rules = rules_for(wire)
    if rules is not None:
        for name, data in events:
            rules.feed(name, data)
    return rules


def check_events(wire: str, events: list[tuple[str, str]]) -> list[Violation]:
    """Every violation of ``wire``'s rules in one response's ``(event, data)`` pairs."""
    rules = checked(wire, events)
    return rules.violations if rules is not None else []


__all__ = [
    "MAX_VIOLATIONS",
    "RULES",
    "Step",
    "Violation",
    "WireRules",
    "check_events",
    "checked",
    "rules_for",
]
