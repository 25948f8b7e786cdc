"""A native response retold in its wire's own events (issue 25): where the framing
broke, each call as parsed so far, what a confirming client ran at which event, and
the server's own framing errors (``app/model/wires/rules.py``), never blamed on the
model.

It lives in the agent layer because it reads the wire's rules and deltas (the model
layer) beside the native accumulator (CST): ``app/cst`` imports neither the model
layer nor its wires.
"""

from __future__ import annotations

from collections.abc import Sequence

from frontier.app.cst.explain import NAMED_CALL as _NAMED
from frontier.app.cst.native import NativeAccumulator
from frontier.app.events import CallReady, CallStarted, ContractError
from frontier.app.model.stream import CallArgs, CallDone, CallStart, End, Finish
from frontier.app.model.wires.rules import WireRules, rules_for
from frontier.app.record import record
from frontier.app.vocab import NATIVE_MODES
from frontier.app.wire import safejson
from frontier.app.wire.sse import SSEDecoder

TYPE_CHECKING = False  # DeltaSource is a type only (a Protocol: app/cst/native.py)
if TYPE_CHECKING:
    from frontier.app.cst.native import DeltaSource


@record
class WireCall:
    """One native call as the wire's events left it at the break (or the end)."""

    key: int
    id: str
    name: str
    label: str
    """The call in the wire's words (``the Anthropic tool_use block at index 2 (…)``)."""
    args: bytes
    """Its argument bytes so far (the final ones, when the wire repeated them)."""
    json_complete: bool
    """Those bytes parse as a JSON object."""
    ran_at: str = ""
    """``event N label`` where it became executable ("" : it never did)."""
    held: str = ""
    """Why a confirming client held it back ("" when it ran)."""


@record
class WireStory:
    """A native response retold in its wire's events: where the framing broke, each
    call as parsed so far, what a confirming client ran at which event, and the
    server's own framing errors (``rules``: the server's, never the model's)."""

    wire: str
    events: int
    broke: tuple[str, ...]
    """Where the framing broke, one sentence per call it concerned ("" : it did not)."""
    calls: tuple[WireCall, ...]
    steps: tuple[str, ...]
    """Each event at which a call became executable, or the stream broke."""
    server: tuple[ServerError, ...]


@record
class ServerError:
    """A violation of the wire's own rules, placed in the transducer's byte stream."""

    rule: str
    event: int
    message: str
    offset: int
    """The transducer's ``consumed`` when the event came."""


def wire_story(
    pieces: Sequence[bytes], mode: str, clean: bool, wire: DeltaSource | None
) -> WireStory | None:
    """Re-read a native response event by event, beside the wire's rules (``None``: not
    a native mode, or a wire without rules). Mirrors ``NativeSSETransducer`` (same
    accumulator, same decoder) so the events it names are the ones that decided."""
    name = getattr(wire, "name", "")
    rules = rules_for(name) if mode in NATIVE_MODES and wire is not None else None
    if rules is None or wire is None:
        return None
    acc = NativeAccumulator(mode == "native-inc", signals_done=wire.signals_call_done)
    decoder, sse = wire.decoder(), SSEDecoder()
    args: dict[int, list[str]] = {}
    ids: dict[str, int] = {}
    ran: dict[int, str] = {}
    steps: list[str] = []
    broke: list[str] = []
    server: list[ServerError] = []
    finish_at = last = ""
    saw_end = False
    error: ContractError | None = None
    for piece in pieces:
        for event, data in sse.feed_events(piece):
            seen = len(rules.violations)
            step = rules.feed(event, data)
            at = f"event {step.event} {step.label}"
            last = at
            server += [
                ServerError(v.rule, v.event, v.message, acc.consumed)
                for v in rules.violations[seen:]
            ]
            deltas = decoder.feed(event, data)
            for delta in deltas:
                if isinstance(delta, CallStart):
                    ids.setdefault(delta.id or f"call_{delta.key}", delta.key)
                    args.setdefault(delta.key, [])
                elif isinstance(delta, CallArgs):
                    args.setdefault(delta.key, []).append(delta.data)
                elif isinstance(delta, CallDone) and delta.arguments is not None:
                    args[delta.key] = [delta.arguments]
                elif isinstance(delta, Finish):
                    finish_at = at
                elif isinstance(delta, End):
                    saw_end = True
            if error is not None:
                continue  # the transducer stopped: the rules still read every event
            _, found = acc.feed(deltas)
            for ev in found:
                if isinstance(ev, CallStarted):
                    ids[ev.id] = ids.pop(ev.replaces, ids.get(ev.id, len(ids)))
                elif isinstance(ev, CallReady):
                    key = ids.get(ev.call.id, -1)
                    ran[key] = at
                    steps.append(f"{at}: {ev.call.id} {ev.call.name} became executable")
                elif isinstance(ev, ContractError) and error is None:
                    error = ev
                    broke += _broke_at(ev, at, rules, ids, ran)
                    steps.append(f"{at}: {ev.kind}: reading stopped")
    if error is None:
        ended = saw_end or acc.finish_reason is not None
        found = acc.finish(clean and ended)
        end = f"the end of the stream (after {last or 'no event'})"
        for ev in found:
            if isinstance(ev, CallReady):
                key = ids.get(ev.call.id, -1)
                ran[key] = end
                steps.append(f"{end}: {ev.call.id} {ev.call.name} became executable")
            elif isinstance(ev, ContractError):
                if error is None:
                    steps.append(f"{end}: {ev.kind}")
                error = error or ev
        if error is not None and error.kind == "truncated":
            before = finish_at or end
            for key in sorted(k for k in args if k not in ran):
                if rules.closer and rules.closed(key):
                    broke.append(
                        f"{rules.call_label(key)} got its {rules.closer} but did not run: "
                        f"the response was cut at {before}"
                    )
                elif rules.closer:
                    broke.append(
                        f"{rules.call_label(key)} never got its {rules.closer} before {before}"
                    )
                else:
                    broke.append(f"{rules.call_label(key)} was still open at {before}")
    open_keys = [k for k in args if k not in ran]
    calls = tuple(
        _wire_call(key, args[key], rules, ids, ran, mode, error, any(k < key for k in open_keys))
        for key in sorted(args)
    )
    return WireStory(name, rules.count, tuple(broke), calls, tuple(steps), tuple(server))


def _broke_at(
    error: ContractError, at: str, rules: WireRules, ids: dict[str, int], ran: dict[int, str]
) -> list[str]:
    named = _NAMED.match(error.message)
    key = ids.get(named[1], -1) if named is not None else -1
    if key < 0:
        return [f"{error.kind} at {at}"]
    if error.kind == "late_arguments":
        when = f" (it became executable at {ran[key]})" if key in ran else ""
        return [
            f"{rules.call_label(key)} received argument bytes at {at} after it was "
            f"complete{when} (late_arguments)"
        ]
    return [f"{rules.call_label(key)}: {error.kind} at {at}"]


def _wire_call(
    key: int,
    pieces: list[str],
    rules: WireRules,
    ids: dict[str, int],
    ran: dict[int, str],
    mode: str,
    error: ContractError | None,
    behind: bool,
) -> WireCall:
    """``behind``: a lower call never completed (calls run in the order written)."""
    ident = next((i for i, k in ids.items() if k == key), "")
    known = rules.calls.get(key)
    name = known.name if known is not None else ""
    data = "".join(pieces).encode("utf-8", "replace")
    try:
        complete = isinstance(safejson.loads(data.decode("utf-8") or "null"), dict)
    except ValueError:
        complete = False
    held = ""
    if key not in ran:
        if error is not None and error.kind == "late_arguments" and _NAMED.match(error.message):
            held = "reading stopped at the late arguments, before it was complete"
        elif mode == "native-eos":
            held = "native-eos runs no call before a clean end of the response"
        elif not complete:
            held = f"its arguments are not a complete JSON object; {rules.held(key)}"
        elif behind:
            held = "a lower call never completed, and calls run in the order written"
        else:
            held = rules.held(key)
    return WireCall(key, ident, name, rules.call_label(key), data, complete, ran.get(key, ""), held)
