"""Truncation resumed from the frontier (docs/protocol.md, "Continuation").

When a CTL response is cut by ``finish_reason: "length"``, or cut off (a ``disconnect``:
the connection dropped, the server stalled), every byte so far has been fed to the
transducer, and the calls it confirmed may already have run. Where the
endpoint continues a trailing assistant message (a wire that can take one —
``WireCodec.can_prefill``: Chat Completions on a server ``model/prefill.py`` detects,
Anthropic Messages — and the server does), the response is not resent:
:func:`open_stream` makes a second request that ends with those bytes as an assistant
message and feeds its stream to the *same* transducer,
so it resumes in the state it was in — a heredoc body keeps its confirmed lines, a
length-prefixed body its counted bytes, and no call runs twice.

To the loop the joined streams are one stream of items: the first stream's events,
then a *join marker* event (``wire/continuation.py``: recorded, never fed), then the
continuation's events with the server's echo of the prefix cut out of their text
deltas (:class:`~frontier.app.agent.echo.EchoSkipper`) while their ``raw`` strings
stay as the server sent them, so the recording holds the
echo and the marker says how much to skip. The cut stream's ``StreamEnd`` is
swallowed (a ``ResponseContinued`` event tells the front ends instead); only the
last stream's end reaches the loop.

At most :data:`MAX_CONTINUATIONS` per turn; past them, or when the endpoint cannot
continue, is not known to, refuses the request, or answers with something that is
not the message going on (an echo that diverges), the cut stream's own end is what
the loop sees, and the truncation is resent as before (DESIGN §6). A refusal or a
bad echo turns prefill off for the rest of the session (remembered in
:class:`Prefill`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable

from frontier.app.agent.echo import EchoSkipper
from frontier.app.events import Event, ResponseContinued, TokenUsage
from frontier.app.model.client import Client
from frontier.app.model.errors import ModelError
from frontier.app.model.prefill import PREFILL_SETTINGS, PrefillSupport
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import Delta, StreamEnd, StreamItem, TextDelta, WireEvent, text_of
from frontier.app.record import replace
from frontier.app.vocab import CTL_MODES
from frontier.app.wire.continuation import Join, join_data

log = logging.getLogger(__name__)

MAX_CONTINUATIONS = 3
"""Continuations per user turn; a continuation cut by ``length`` again uses another."""
CONTINUED_ENDS = ("length", "disconnect")
"""How a stream may end and still be continued from its frontier: cut by the token limit,
or cut off (the connection dropped, the server stalled past ``idle_timeout``). A
continuation asks again from the last byte, so a dropped connection in the middle of a
long heredoc costs one request and no confirmed line, where a resend asked for the call
again (a repair round, and the model writing the whole body anew)."""


class Prefill:
    """One endpoint's continuation capability: configured, detected once, and learned.

    ``setting``: ``off`` never continues; ``on`` always does (detection still runs, for
    what the request needs: vLLM's fields); ``auto`` continues where ``detect`` finds a
    server that does. What a continuation shows is remembered for the session: whether
    the server echoes, and that it cannot continue (after a refusal or a bad echo).
    """

    def __init__(
        self,
        setting: str = "auto",
        detect: Callable[[], Awaitable[PrefillSupport]] | None = None,
        *,
        limit: int = MAX_CONTINUATIONS,
    ) -> None:
        if setting not in PREFILL_SETTINGS:
            raise ValueError(
                f"prefill must be one of {', '.join(PREFILL_SETTINGS)}, not {setting!r}"
            )
        self.setting = setting
        self.limit = limit
        self.used = 0
        """Continuations made in the current turn."""
        self._detect = detect
        self._support: PrefillSupport | None = None
        if setting == "off":
            self._support = PrefillSupport(False, reason="prefill = off")

    @property
    def known(self) -> PrefillSupport | None:
        """What is known so far (``None``: not yet detected)."""
        return self._support

    async def support(self) -> PrefillSupport:
        """The capability, detected on first use (a probe failure means off)."""
        if self._support is None:
            found = PrefillSupport(False, reason="no way to ask the endpoint")
            if self._detect is not None:
                try:
                    found = await self._detect()
                except Exception as exc:  # a probe never fails the turn
                    found = PrefillSupport(False, reason=f"detection failed: {exc}")
            if self.setting == "on" and not found.enabled:
                found = replace(found, enabled=True, reason="prefill = on")
            self._support = found
            log.info("prefill %s: %s", "on" if found.enabled else "off", found.reason)
        return self._support

    def new_turn(self) -> None:
        self.used = 0

    def turn_off(self, reason: str) -> None:
        """The endpoint did not continue as it should: resend from now on."""
        known = self._support or PrefillSupport(False)
        self._support = replace(known, enabled=False, reason=reason)
        log.warning("prefill turned off: %s", reason)

    def saw(self, echo: bool) -> None:
        """A continuation showed whether this server echoes the prefix."""
        if self._support is not None and self._support.echo is None:
            self._support = replace(self._support, echo=echo)


def open_stream(
    client: Client,
    request: ModelRequest,
    *,
    mode: str,
    prefill: Prefill | None,
    can_prefill: bool,
    resumable: Callable[[], bytes | None],
    emit: Callable[[Event], None],
) -> AsyncGenerator[StreamItem, None]:
    """The client's stream for ``request``, continued from the frontier when cut.

    ``resumable`` is asked when a stream ends with ``length`` or ``disconnect``
    (:data:`CONTINUED_ENDS`): the transducer input so
    far if the response may go on from it (nothing stopped or broke it), else ``None``.
    Modes other than the CTL ones get the client's stream as it is: a trailing
    assistant message cannot resume native tool calls, and XML calls run only after
    the stream; so does a wire that cannot take a trailing assistant message.
    """
    if prefill is None or mode not in CTL_MODES or not can_prefill:
        return client.stream(request)
    return _joined(client, request, prefill, resumable, emit)


class _Gate:
    """A continuation's first events, held until the echo is decided."""

    def __init__(self, prefix: bytes, attempt: int, echo: bool | None, t: float) -> None:
        self.skipper = EchoSkipper(prefix, echo)
        self.offset = len(prefix)
        self.attempt = attempt
        self.t = t
        self.held: list[WireEvent] = []
        self.open = True
        """Still holding (undecided)."""
        self.seen = 0
        """Text bytes of the continuation so far (echo included)."""

    def feed(self, event: WireEvent) -> list[WireEvent]:
        self.held.append(event)
        data = text_of(event.deltas).encode("utf-8")
        self.seen += len(data)
        self.skipper.feed(data)
        return self.release() if self.skipper.decided else []

    def finish(self) -> list[WireEvent]:
        self.skipper.finish()
        return self.release()

    def release(self) -> list[WireEvent]:
        """The marker, then the held events with the echo cut out of their text."""
        self.open = False
        if self.skipper.outcome == "mismatch":
            return []
        join = Join(self.offset, self.skipper.skipped, self.attempt)
        out = [WireEvent(join_data(join), self.t)]
        skip = join.echo_skipped
        for event in self.held:
            if skip:
                event, skip = _without_echo(event, skip)
            out.append(event)
        self.held.clear()
        return out


def _without_echo(event: WireEvent, skip: int) -> tuple[WireEvent, int]:
    """``event`` with its first ``skip`` bytes of text dropped; the bytes still to drop."""
    deltas: list[Delta] = []
    for delta in event.deltas:
        if skip and type(delta) is TextDelta:
            assert isinstance(delta, TextDelta)
            piece = delta.text.encode("utf-8")
            cut = min(skip, len(piece))
            skip -= cut
            rest = piece[cut:].decode("utf-8")
            if rest:
                deltas.append(TextDelta(rest))
            continue
        deltas.append(delta)
    return replace(event, deltas=tuple(deltas)), skip


def _seen(gate: _Gate | None) -> int:
    return gate.seen if gate is not None else 0


def _told(
    gate: _Gate, released: list[WireEvent], cut: StreamEnd | None, emit: Callable[[Event], None]
) -> list[WireEvent]:
    """``released``, after telling the front ends that the response was joined."""
    if released:
        usage = cut.usage if cut is not None else TokenUsage()
        emit(ResponseContinued(gate.offset, gate.skipper.skipped, gate.attempt, usage))
    return released


async def _joined(
    client: Client,
    request: ModelRequest,
    prefill: Prefill,
    resumable: Callable[[], bytes | None],
    emit: Callable[[Event], None],
) -> AsyncGenerator[StreamItem, None]:
    began = time.perf_counter()
    shift = 0.0
    """Seconds from the first request to the current one: recorded times stay one clock."""
    last = 0.0
    attempt = 0
    cut: StreamEnd | None = None
    """The end of the stream the current continuation goes on from."""
    gate: _Gate | None = None
    stream = client.stream(request)
    while True:
        end: StreamEnd | None = None
        failed = ""
        try:
            async for item in stream:
                if isinstance(item, StreamEnd):
                    end = item
                    break
                if not isinstance(item, WireEvent):
                    yield item  # a Retry of the request, how far the prompt was read
                    continue
                last = max(last, shift + item.t)
                item = replace(item, t=last)
                if gate is None or not gate.open:
                    yield item
                    continue
                for released in _told(gate, gate.feed(item), cut, emit):
                    yield released
                if gate.skipper.outcome == "mismatch":
                    failed = gate.skipper.detail
                    break
        except ModelError as exc:
            if gate is None or not gate.open:
                raise
            failed = f"the continuation request failed: {exc.message}"
        except ValueError as exc:
            # the wire cannot send this prefix (Anthropic refuses one ending in
            # whitespace): resend this time, as without prefill, and try again next time
            if gate is None or not gate.open or cut is None:
                raise
            log.info("not continued: %s", exc)
            yield replace(cut, detail=f"{cut.detail}; not continued: {exc}".lstrip("; "))
            return
        finally:
            await stream.aclose()
        refused = end is not None and end.finish_reason == "error" and not _seen(gate)
        if gate is not None and gate.open and not failed and refused:
            assert end is not None
            failed = f"the continuation request failed: {end.error or 'an error event'}"
        if gate is not None and gate.open and not failed:
            for released in _told(gate, gate.finish(), cut, emit):  # ended while undecided
                yield released
            failed = gate.skipper.detail if gate.skipper.outcome == "mismatch" else ""
        if failed:
            assert cut is not None
            prefill.turn_off(failed)
            why = f"not continued: {failed}; prefill is off for this session"
            yield replace(cut, detail=f"{cut.detail}; {why}" if cut.detail else why)
            return
        if gate is not None:
            if gate.seen:  # what the server does with a prefix, learned from bytes only
                prefill.saw(gate.skipper.outcome == "echo")
            gate = None
        if end is None:
            return  # the client always ends with a StreamEnd; nothing to add if not
        prefix = resumable() if end.finish_reason in CONTINUED_ENDS else None
        if not prefix or prefill.used >= prefill.limit:
            yield end
            return
        support = await prefill.support()
        if not support.enabled:
            yield end
            return
        continued = _continuation(request, prefix, support)
        if continued is None:
            yield end
            return
        prefill.used += 1
        attempt += 1
        cut = end
        shift = time.perf_counter() - began
        gate = _Gate(prefix, attempt, support.echo, max(last, shift))
        stream = client.stream(continued)


def _continuation(
    request: ModelRequest, prefix: bytes, support: PrefillSupport
) -> ModelRequest | None:
    """``request`` asking the answer to go on from ``prefix``, or ``None`` when the bytes
    cannot be sent as text (a prefix cut inside a UTF-8 character cannot be)."""
    try:
        text = prefix.decode("utf-8")
    except UnicodeDecodeError:
        return None
    extra = {**request.extra, **support.body} if support.body else request.extra
    return replace(request, prefill=text, extra=extra)


__all__ = ["CONTINUED_ENDS", "MAX_CONTINUATIONS", "Prefill", "open_stream"]
