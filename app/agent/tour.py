"""The guided tour (``frontier demo --tour``): the demo story recorded, and its teaching moments.

No Textual here: the TUI plays a :class:`TourRecording` through its panes
(``frontends/tui/tour.py``), and tests read the moments directly.

**Recording.** :func:`record_story` runs the demo story once, headless, as fast as
it goes (token rate 0, approval ``auto``, no continuation), in a data directory
of its own that is deleted afterwards: the real loop, transducer and tools (in
a scratch copy of the sample project), exactly the events the live TUI observes.
Each event is kept with the loop's frontier and pending bound right after it
(what the live status bar probes). Tool output is re-cut at line ends, so the
same story gives the same events every run whatever the pipes delivered.

**Moments.** :func:`find_moments` finds each stop *from the events*, never from
byte offsets, so the tour stays right when the script changes: the first
confirmed call line (``CallStarted``), a heredoc line held back because it may
still be the TAG (pending > 0 inside a heredoc body), a call run while its
response still streams (``ToolStarted`` followed by more bytes of the same
response), a miscounted length prefix (``ContractError`` ``body_eof`` /
``unexpected_line``), a made-up result cut off (``StreamStopped``
``text_after_call``), and a truncation (``ResponseEnded`` ``length``). Each
moment's text names the offsets and bytes of *this* recording.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterator
from typing import ClassVar

from frontier.app.events import (
    ArgBytes,
    ArgStarted,
    CallReady,
    CallStarted,
    Confirmed,
    ContextUsage,
    ContractError,
    Event,
    ResponseEnded,
    ResponseStarted,
    StreamBytes,
    StreamStopped,
    ToolCall,
    ToolFinished,
    ToolOutput,
    ToolStarted,
)
from frontier.app.record import record

TOUR_MODE = "ctl-heredoc"
"""The story the tour tells: ctl-heredoc has every moment (heredocs, a length prefix
counted wrong, a made-up result, a truncation); ``ctl`` differs only in its miscount."""
PANES = ("transcript", "raw", "confirmed", "pending", "tools", "errors")
"""The panes a moment can highlight (the main screen's widget ids)."""


@record
class Said(Event):
    """The tour's log only: the person's message (the live TUI shows it as it sends)."""

    type: ClassVar[str] = "tour_said"
    text: str


@record
class Noted(Event):
    """The tour's log only: a note the live TUI shows when the session starts."""

    type: ClassVar[str] = "tour_noted"
    text: str


@record
class TourRecording:
    """The demo story as the live TUI saw it: every event, with the probe after it."""

    mode: str
    events: tuple[Event, ...]
    probes: tuple[tuple[int, int], ...]
    """``(frontier, pending bound)`` of the loop right after each event."""

    def __post_init__(self) -> None:
        if len(self.events) != len(self.probes):
            raise ValueError("a tour recording needs one probe per event")


@record
class Moment:
    """One stop of the tour."""

    key: str
    """``first_call``, ``heredoc_tag``, ``eager_call``, ``miscount``, ``made_up_result``,
    ``truncation``."""
    title: str
    text: str
    """Two or three sentences: what the frontier did, where (offsets, bytes) and why."""
    stop: int
    """Index of the last event applied when the tour pauses here."""
    panes: tuple[str, ...]
    """The panes involved (highlighted), most important first."""
    tab: str
    """The right-column pane shown at this stop when the panes are tabs (80×24)."""
    response: int
    """Which response of the story (1-based)."""


# --------------------------------------------------------------------------- recording


class _Approve:
    """The tour's approver: with ``auto`` nothing asks, but should a rule ask, the
    recording says yes (it runs the script in a scratch copy, and the tour says so)."""

    async def approve(self, call: object, spec: object, preview: object) -> object:
        from frontier.tools.contract import Decision

        return Decision(True, "the tour runs the demo script as written")


SCRATCH_DIRS = ("FRONTIER_DATA_DIR", "FRONTIER_CONFIG_DIR")


@contextlib.contextmanager
def _scratch_dirs() -> Iterator[str]:
    """``FRONTIER_DATA_DIR`` and ``FRONTIER_CONFIG_DIR`` pointed at a new temporary
    directory, removed afterwards: the recording's session, store and scratch workspace
    never reach the user's, and the user's settings never change the story."""
    with tempfile.TemporaryDirectory(prefix="frontier-tour-") as tmp:
        before = {name: os.environ.get(name) for name in SCRATCH_DIRS}
        for name in SCRATCH_DIRS:
            os.environ[name] = os.path.join(tmp, name.removeprefix("FRONTIER_").lower())
        try:
            yield tmp
        finally:
            for name, value in before.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


class _LineCutter:
    """Tool output re-cut at line ends (one ``ToolOutput`` per line), so a recording
    does not depend on how the pipe happened to split it."""

    def __init__(self) -> None:
        self._partial: dict[str, str] = {}

    def feed(self, event: Event) -> list[Event]:
        if isinstance(event, ToolOutput):
            text = self._partial.pop(event.call_id, "") + event.data
            lines = text.split("\n")
            tail = lines.pop()
            if tail:
                self._partial[event.call_id] = tail
            return [ToolOutput(event.call_id, line + "\n") for line in lines]
        if isinstance(event, ToolFinished):
            tail = self._partial.pop(event.result.call_id, "")
            return [*([ToolOutput(event.result.call_id, tail)] if tail else []), event]
        return [event]


async def record_story(mode: str = TOUR_MODE) -> TourRecording:
    """Run the demo story headless (rate 0, approval auto) and keep what it emitted."""
    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config

    config = Config(protocol=mode, approval="auto", prefill="off")
    events: list[Event] = []
    probes: list[tuple[int, int]] = []
    with _scratch_dirs():
        session = create_runtime(config, approver=_Approve(), demo=True, demo_rate=0)  # type: ignore[arg-type]
        cutter = _LineCutter()

        def keep(event: Event) -> None:
            for item in cutter.feed(event):
                events.append(item)
                probes.append((int(session.frontier), int(session.pending_bound())))

        unsubscribe = session.subscribe(keep)
        try:
            for note in session.notes:
                keep(Noted(note))
            for prompt in session.demo_prompts:
                keep(Said(prompt))
                await session.send(prompt)
        finally:
            unsubscribe()
            await session.close()
    return TourRecording(mode, tuple(events), tuple(probes))


def record_story_sync(mode: str = TOUR_MODE) -> TourRecording:
    """:func:`record_story` from synchronous code (before the TUI starts)."""
    import asyncio

    return asyncio.run(record_story(mode))


# --------------------------------------------------------------------------- moments


def show(data: bytes, limit: int = 40) -> str:
    """Bytes as the card quotes them: ``⏎`` for a newline, cut with ``…``."""
    text = data.decode("utf-8", "replace").replace("\n", "⏎").replace("\t", "→")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _span(start: int, end: int) -> str:
    """``byte 7`` or ``bytes 7–9`` (``end`` exclusive)."""
    return f"byte {start:,}" if end - start <= 1 else f"bytes {start:,}–{end - 1:,}"


_TAG = re.compile(rb"<<\s*['\"]?([A-Za-z0-9_]{1,32})")


@record(frozen=False)
class _Arg:
    call_id: str
    key: str
    form: str
    offset: int
    declared: int | None
    tag: str = ""
    arrived: int = 0


class _Scan:
    """One pass over the events, tracking what the panes would show, finding each moment."""

    def __init__(self, recording: TourRecording) -> None:
        self.events = recording.events
        self.probes = recording.probes
        self.found: dict[str, Moment] = {}
        self.response = 0
        self.raw = bytearray()
        self.frontier = 0
        self.last_frame: tuple[int, bytes] = (0, b"")
        self.arg: _Arg | None = None
        self.open_calls: dict[str, str] = {}
        self.eager: tuple[int, ToolCall, tuple[int, bytes]] | None = None
        """A call started while its response is open, waiting for more bytes to follow."""
        self.fallback_eager: tuple[int, ToolCall, tuple[int, bytes], int] | None = None
        """The first call started before its response ended (if none runs while more bytes
        follow)."""
        self.ready: tuple[ToolCall, tuple[int, bytes]] | None = None
        """The last call confirmed, with its ``end`` line."""

    def settle(self, i: int) -> int:
        """The stop for a moment at event ``i``: on over the events that belong to it (the
        prose report after a call line, the repair after an error, the rest of a stopped
        response), up to the next bytes or the next request."""
        stop = i
        cut = (StreamBytes, ResponseStarted, ContextUsage, Said)
        while stop + 1 < len(self.events) and not isinstance(self.events[stop + 1], cut):
            stop += 1
        return stop

    def add(self, moment: Moment) -> None:
        self.found.setdefault(moment.key, moment)

    def run(self) -> list[Moment]:
        for i, event in enumerate(self.events):
            if isinstance(event, StreamBytes):
                self._before_bytes(i)
                self.raw[event.offset :] = event.data
            self._event(i, event)
        self._before_bytes(len(self.events))
        if "eager_call" not in self.found and self.fallback_eager is not None:
            i, call, frame, response = self.fallback_eager
            self.add(self._eager(i, call, frame, response, streaming=False))
        return sorted(self.found.values(), key=lambda m: m.stop)

    def _before_bytes(self, i: int) -> None:
        """The state settled after the previous bytes and everything they caused."""
        arg = self.arg
        consumed = len(self.raw)
        if arg is not None and arg.form == "heredoc" and consumed > self.frontier and i > 0:
            pending = bytes(self.raw[self.frontier :])
            if arg.tag and arg.tag.encode().startswith(pending):
                self.add(self._heredoc(i - 1, arg, pending))
        if self.eager is not None and i < len(self.events):
            at, call, frame = self.eager
            self.eager = None
            self.add(self._eager(at, call, frame, self.response, streaming=True))

    def _event(self, i: int, event: Event) -> None:
        if isinstance(event, ResponseStarted):
            self.response += 1
            self.raw.clear()
            self.frontier = 0
            self.arg = None
            self.open_calls.clear()
            self.eager = None
        elif isinstance(event, Confirmed):
            self.frontier = max(self.frontier, event.offset + len(event.data))
            if event.kind == "frame":
                self.last_frame = (event.offset, event.data)
        elif isinstance(event, CallStarted):
            self.open_calls[event.id] = event.name
            self.arg = None
            offset, line = self.last_frame
            self.add(self._first_call(self.settle(i), event, offset, line))
        elif isinstance(event, ArgStarted):
            tag = ""
            if event.form == "heredoc":
                found = _TAG.search(self.last_frame[1])
                tag = found.group(1).decode() if found else ""
            self.arg = _Arg(event.call_id, event.key, event.form, event.offset, event.declared, tag)
        elif isinstance(event, ArgBytes):
            if self.arg is not None and self.arg.key == event.key:
                self.arg.arrived += len(event.data)
        elif isinstance(event, CallReady):
            self.open_calls.pop(event.call.id, None)
            self.arg = None
            self.ready = (event.call, self.last_frame)
        elif isinstance(event, ToolStarted):
            ready = self.ready
            if ready is not None and ready[0].id == event.call.id and self._response_open(i):
                if self.fallback_eager is None:
                    self.fallback_eager = (i, event.call, ready[1], self.response)
                if "eager_call" not in self.found:
                    self.eager = (i, event.call, ready[1])
        elif isinstance(event, ContractError):
            if event.kind in ("body_eof", "unexpected_line"):
                self.add(self._miscount(self.settle(i), event))
            self.arg = None
        elif isinstance(event, StreamStopped):
            if event.reason == "text_after_call":
                self.add(self._made_up(self.settle(i), event))
        elif isinstance(event, ResponseEnded):
            self.eager = None
            if event.finish_reason == "length":
                self.add(self._truncation(self.settle(i), event))

    def _response_open(self, i: int) -> bool:
        """No ``ResponseEnded`` of the current response among the events before ``i``."""
        for event in reversed(self.events[:i]):
            if isinstance(event, ResponseEnded):
                return False
            if isinstance(event, ResponseStarted):
                return True
        return False

    # ------------------------------------------------------------------ the texts
    def _first_call(self, stop: int, event: CallStarted, offset: int, line: bytes) -> Moment:
        end = offset + len(line)
        text = (
            f"Byte {end - 1:,}, the ⏎ ending “{show(line)}”, confirmed the call line: id "
            f"{event.id} and tool {event.name} can never change now. The frontier is at byte "
            f"{end:,} and Confirmed lists the call; nothing runs yet, its arguments are "
            "still to come."
        )
        return Moment(
            "first_call",
            "the first call line is confirmed",
            text,
            stop,
            ("raw", "confirmed"),
            "raw",
            self.response,
        )

    def _heredoc(self, stop: int, arg: _Arg, pending: bytes) -> Moment:
        start = self.frontier
        bound = self.probes[stop][1] if stop < len(self.probes) else len(arg.tag) + 1
        text = (
            f"{_span(start, start + len(pending)).capitalize()} “{show(pending)}” are held "
            f"back: so far this line of {arg.call_id}'s {arg.key} heredoc matches its TAG "
            f"{arg.tag}, so it closes the argument if ⏎ comes next and is {arg.key} text if "
            f"anything else does. Pending is {len(pending)} of at most {bound} bytes "
            "(len(TAG)+1)."
        )
        return Moment(
            "heredoc_tag",
            "a heredoc line that might still be the TAG",
            text,
            stop,
            ("pending", "raw"),
            "pending",
            self.response,
        )

    def _eager(
        self, i: int, call: ToolCall, frame: tuple[int, bytes], response: int, *, streaming: bool
    ) -> Moment:
        offset, line = frame
        more = (
            "while the model is still writing this response"
            if streaming
            else "before the response has ended"
        )
        text = (
            f"“{show(line)}” at {_span(offset, offset + len(line))} confirmed {call.id} "
            f"({call.name}) and the loop started it at once, {more}. Generation and "
            "execution overlap: no later byte can change a confirmed call, so it never "
            "waits for finish_reason."
        )
        return Moment(
            "eager_call",
            "end confirms a call; it runs while the stream goes on",
            text,
            i,
            ("tools", "raw"),
            "raw",
            response,
        )

    def _miscount(self, stop: int, event: ContractError) -> Moment:
        arg = self.arg
        if arg is not None and arg.form == "length" and arg.declared is not None:
            head = (
                f"“arg {arg.key} {arg.declared}” (byte {arg.offset:,}) declared {arg.declared} "
                "bytes, taken raw"
            )
            if event.kind == "body_eof":
                head += (
                    f", so the call's own end⏎ became body; only {arg.arrived} arrived before "
                    f"the stream ended: body_eof at byte {event.offset:,}."
                )
            else:
                head += (
                    f"; the line after them was neither arg nor end: unexpected_line at byte "
                    f"{event.offset:,}."
                )
            who = f"{arg.call_id} never ran"
        else:
            head = f"{event.kind} at byte {event.offset:,}: {event.message}."
            who = "The call never ran"
        text = (
            f"{head} {who}, and the error, declared vs arrived, went back to the model to repair."
        )
        return Moment(
            "miscount",
            "a length prefix counted wrong",
            text,
            stop,
            ("errors", "transcript", "raw"),
            "errors",
            self.response,
        )

    def _made_up(self, stop: int, event: StreamStopped) -> Moment:
        ready = self.ready
        call = ready[0].id if ready is not None else "the call"
        dropped = bytes(self.raw[event.offset :])
        text = (
            f"After {call}'s end the model went on with “{show(dropped)}…” (byte "
            f"{event.offset:,}), a result frame only the runtime may write: text after a "
            "confirmed call stops the stream. The client closed the response, kept the text "
            f"up to {call}, and {call}'s real output goes back instead."
        )
        return Moment(
            "made_up_result",
            "a made-up result is cut off",
            text,
            stop,
            ("raw", "transcript", "tools"),
            "raw",
            self.response,
        )

    def _truncation(self, stop: int, event: ResponseEnded) -> Moment:
        end = len(self.raw)
        calls = ", ".join(f"{cid} {name}" for cid, name in self.open_calls.items())
        where = ""
        arg = self.arg
        if arg is not None:
            if arg.form == "heredoc":
                where = f" (arg {arg.key}: {arg.arrived} body bytes, no {arg.tag} line)"
            elif arg.declared is not None:
                where = f" (arg {arg.key}: {arg.arrived} of {arg.declared} declared bytes)"
            else:
                where = f" (in arg {arg.key})"
        if calls:
            ids = ", ".join(self.open_calls)
            body = (
                f"finish_reason length at byte {end:,} cut the reply inside {calls}{where}. "
                f"A call runs only once its end⏎ is confirmed, so {ids} never ran (Tools: "
                "truncated); the model is asked to resend it whole."
            )
        else:
            body = (
                f"finish_reason length at byte {end:,}: the reply was cut off outside any call; "
                "calls confirmed before it stand, and the model is asked to go on."
            )
        return Moment(
            "truncation",
            "a reply cut off by the token limit",
            body,
            stop,
            ("raw", "tools", "transcript"),
            "raw",
            self.response,
        )


def find_moments(recording: TourRecording) -> tuple[Moment, ...]:
    """The tour's stops in story order, found from the events (each kind once, the first)."""
    return tuple(_Scan(recording).run())


__all__ = [
    "PANES",
    "TOUR_MODE",
    "Moment",
    "Noted",
    "Said",
    "TourRecording",
    "find_moments",
    "record_story",
    "record_story_sync",
    "show",
]
