"""The five protocol modes (DESIGN §4): request shape, transducer, when calls run.

A ``ModeAdapter`` turns the neutral deltas of one server-sent event (whatever the
wire) into transducer-input bytes and events, so the loop treats native tool calls and
text-carried frames (CTL, XML) the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from frontier.app.events import (
    CallReady,
    CallStarted,
    ContractError,
    Event,
    Notice,
    PromptRead,
    ReasoningText,
    ServerTool,
)
from frontier.app.model.request import ToolSchema
from frontier.app.model.stream import (
    CallStart,
    Delta,
    Malformed,
    PromptProgress,
    ReasoningBlock,
    ReasoningDelta,
    ServerToolCall,
    TextDelta,
    Unreadable,
)
from frontier.app.record import record
from frontier.app.vocab import AGENT_MODES, EAGER_MODES, NATIVE_MODES
from frontier.tools.registry import Registry

TYPE_CHECKING = False  # Transducer is a type only (a Protocol: app/cst/base.py)
if TYPE_CHECKING:
    from frontier.app.cst.base import Transducer

MODES = AGENT_MODES
"""The five protocol modes (DESIGN §4); ``frontier.app.vocab`` is their home."""


@record
class Mode:
    name: str

    @property
    def native(self) -> bool:
        """Calls come as the wire's native tool calls and the request offers tools."""
        return self.name in NATIVE_MODES

    @property
    def eager(self) -> bool:
        """Calls run while the stream is still being read (CTL modes, native-inc)."""
        return self.name in EAGER_MODES

    def system_prompt(self, registry: Registry, instructions: str = "") -> str:
        """``instructions``: the project's section (``app/agent/instructions.py``), last."""
        from frontier.app.agent.prompts import system_prompt

        return system_prompt(self.name, registry.offered(), instructions)

    def tools(self, registry: Registry) -> tuple[ToolSchema, ...]:
        """The tools offered natively (none for the text protocols)."""
        if not self.native:
            return ()
        return tuple(ToolSchema(*spec) for spec in registry.native_tools())

    def warm(self) -> None:
        """Import what the first request imports for this protocol (its system prompt's
        module, its transducer), off the screen's loop (see ``ModelClient.warm``)."""
        from frontier.app.agent import prompts  # noqa: F401

        self.adapter()

    def adapter(self, *, signals_done: bool = False) -> ModeAdapter:
        """A fresh adapter for one response; ``signals_done``: the wire says when each
        native call is complete (``WireCodec.signals_call_done``)."""
        return ModeAdapter(self, signals_done=signals_done)


def get_mode(name: str) -> Mode:
    if name not in MODES:
        raise ValueError(f"unknown protocol {name!r}; choose one of {', '.join(MODES)}")
    return Mode(name)


class ModeAdapter:
    """One response's transducer, fed the deltas of each event.

    Reasoning comes out as ``ReasoningText`` first and never reaches the transducer; a
    tool the provider ran itself comes out as ``ServerTool``; reasoning blocks the API
    wants back are kept (``reasoning``) for the history.

    In a text protocol a native tool call (the API's own ``tool_calls``, which such a
    request never offers: a server or template may send one anyway) is not run and not
    dropped in silence: it is a ``bad_call`` contract error at the text read so far, so
    the person sees it, the session keeps it and the model is asked to write the call as
    a frame (the turn had ended "done" with an empty reply).

    An event the wire could not read (``Unreadable``: not JSON; in a text protocol also
    ``Malformed``: too deep) may have been a piece of the reply. While bytes are undecided
    (a frame, a call's arguments) it is a ``bad_json`` contract error there: the call has
    a hole and never runs. Elsewhere the prose may have lost a piece and nothing runs
    from it: a ``Notice`` says so, once a response."""

    def __init__(self, mode: Mode, *, signals_done: bool = False) -> None:
        self.mode = mode
        self.reasoning: list[Mapping[str, Any]] = []
        """The reasoning blocks of this response, in order (``ReasoningBlock.data``)."""
        if mode.native:
            from frontier.app.cst.native import NativeAccumulator

            self._native: NativeAccumulator | None = NativeAccumulator(
                incremental=mode.name == "native-inc", signals_done=signals_done
            )
            self.transducer: Any = self._native
        else:
            from frontier.app.cst.factory import make_transducer

            self._native = None
            self._text: Transducer = make_transducer(mode.name)
            self.transducer = self._text
        self._fed = 0
        """Bytes given to the text transducer (a text protocol's offsets)."""
        self._refused_native = False
        self._unread = 0
        """Unreadable events skipped between calls (:meth:`notes` says so)."""
        self._unread_first = ""
        self._open: set[str] = set()
        """Calls whose frame has started and is not complete (text protocols)."""

    @property
    def truncated_calls(self) -> list[tuple[str, str, bool]]:
        """Native calls reported ``truncated``: ``(id, name, complete)`` (none in text modes)."""
        return list(self._native.truncated_calls) if self._native is not None else []

    @property
    def held_arguments(self) -> dict[str, str]:
        """The arguments text of each complete call among ``truncated_calls``, by id."""
        return dict(self._native.held_arguments) if self._native is not None else {}

    def feed(self, deltas: Iterable[Delta]) -> tuple[bytes, list[Event]]:
        """The bytes these deltas add to the transducer input, and the events."""
        deltas = tuple(deltas)
        head: list[Event] = []
        thinking: list[str] = []
        for delta in deltas:
            kind = type(delta)
            if kind is ReasoningDelta:
                assert isinstance(delta, ReasoningDelta)
                thinking.append(delta.text)
            elif kind is ReasoningBlock:
                assert isinstance(delta, ReasoningBlock)
                self.reasoning.append(delta.data)
            elif kind is ServerToolCall:
                assert isinstance(delta, ServerToolCall)
                head.append(ServerTool(delta.name, delta.id))
            elif kind is PromptProgress:
                assert isinstance(delta, PromptProgress)
                head.append(PromptRead(delta.done, delta.total))
        text = "".join(thinking)
        if text:
            head.insert(0, ReasoningText(text))
        if self._native is not None:
            data, events = self._native.feed(deltas)
            unread = next((d for d in deltas if type(d) is Unreadable), None)
            if unread is not None and not self._native.stopped:
                self._skipped(unread)
            return data, [*head, *events]
        piece = "".join(d.text for d in deltas if type(d) is TextDelta)  # type: ignore[union-attr]
        data = piece.encode("utf-8")
        events = self._text.feed(data) if data else []
        self._fed += len(data)
        for event in events:  # which frames are open (a hole in one fails its call)
            if type(event) is CallStarted:
                assert isinstance(event, CallStarted)
                self._open.discard(event.replaces or "")
                self._open.add(event.id)
            elif type(event) is CallReady:
                assert isinstance(event, CallReady)
                self._open.discard(event.call.id)
        if not self._refused_native:
            native = next((d for d in deltas if type(d) is CallStart), None)
            if native is not None:
                self._refused_native = True
                events = [*events, self._native_call(native)]
        broken = next((d for d in deltas if type(d) in (Unreadable, Malformed)), None)
        if broken is not None and not self._text.stopped:
            events = [*events, *self._text_hole(broken)]
        return data, [*head, *events]

    def _text_hole(self, broken: Delta) -> list[Event]:
        """An unreadable event in a text protocol (see the class)."""
        if not self._open and not self._text.pending():  # no frame open or beginning
            self._skipped(broken)
            return []
        if isinstance(broken, Unreadable):
            from frontier.app.cst.native import unreadable_message

            message = unreadable_message(broken)
        else:
            assert isinstance(broken, Malformed)
            message = f"{broken.message} while a call was arriving: it did not run"
        return [ContractError("bad_json", f"{message}; resend the call", self._fed)]

    def _skipped(self, broken: Delta) -> None:
        """An unreadable event between calls: counted, and the first described, for the
        note :meth:`notes` gives once the response is over (said mid-reply, it split the
        reply on the screen in two)."""
        self._unread += 1
        if not self._unread_first:
            self._unread_first = (
                f"not JSON: {broken.preview!r}"
                if isinstance(broken, Unreadable)
                else "too deep to read"
            )

    def notes(self) -> list[Event]:
        """What the person is told about this response once it is over (asked once)."""
        count, self._unread = self._unread, 0
        if not count:
            return []
        what = "an event" if count == 1 else f"{count} events"
        first = self._unread_first if count == 1 else f"the first {self._unread_first}"
        return [
            Notice(
                f"the server sent {what} it could not read ({first}): skipped, no call was arriving"
            )
        ]

    def _native_call(self, call: CallStart) -> ContractError:
        """The error a native call in a text protocol is (see the class)."""
        name = call.name[:64]  # the model's: shown and stored, so kept short
        return ContractError(
            "bad_call",
            f"a native tool call ({name!r}) where the {self.mode.name} protocol calls tools "
            f"in the text; it did not run: write the call in your reply, as {self.mode.name} "
            "frames it",
            self._fed,
        )

    def finish(self, clean: bool) -> list[Event]:
        events: list[Event] = self.transducer.finish(clean)
        return events

    @property
    def frontier(self) -> int:
        return int(self.transducer.frontier)

    def pending(self) -> bytes:
        return bytes(self.transducer.pending())

    def pending_bound(self) -> int:
        return int(self.transducer.pending_bound())
