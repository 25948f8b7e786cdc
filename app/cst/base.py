"""What every transducer is, and small helpers shared by all of them.

A transducer turns the bytes of one model response into events. It does no I/O
and never blocks, so the agent loop, ``frontier transduce``, ``frontier check``
and replay all drive the same object the same way: ``feed`` each piece as it
arrives, then ``finish`` once with how the stream ended.
"""

from __future__ import annotations

from collections.abc import Iterable

from frontier.app.stream_events import (
    ArgBytes,
    CallReady,
    Confirmed,
    ContractError,
    Event,
    ToolCall,
)

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Protocol

    class Transducer(Protocol):  # a type only: no code checks isinstance against it
        """Bytes of one model response in, events out (DESIGN §2–§4).

        Offsets in events are byte offsets into this transducer's input stream.
        ``frontier`` is the offset up to which input is confirmed (irreversible);
        ``pending()`` are the bytes still undecided. After a stop or a contract
        error the rest of the input is ignored: ``stopped`` is true and nothing is
        pending any more.
        """

        @property
        def frontier(self) -> int:
            """The offset up to which input is confirmed (irreversible)."""
            ...

        @property
        def consumed(self) -> int:
            """Input bytes fed so far."""
            ...

        @property
        def stopped(self) -> bool:
            """The rest of the input is ignored (a stop or a contract error)."""
            ...

        def feed(self, data: bytes) -> list[Event]:
            """Take the next piece of input (any size, any split) and return new events."""
            ...

        def finish(self, clean: bool) -> list[Event]:
            """End of stream. ``clean`` means finish_reason ``stop``; otherwise truncation."""
            ...

        def pending(self) -> bytes:
            """The bytes received but not yet confirmed (and not discarded)."""
            ...

        def pending_bound(self) -> int:
            """The most bytes that may be pending in the current state.

            CTL has the DESIGN §3 bounds; the whole-message modes (native, json,
            xml) hold calls until they complete, so their bound is ``consumed``.
            """
            ...


def decode_value(data: bytes) -> str | bytes:
    """A CTL argument value: ``str`` when it is valid UTF-8, else the raw bytes."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def json_where(exc: ValueError) -> str:
    """A JSON parse error's message and place as one phrase: ``json`` says "Unterminated
    string starting at" and "Expecting value", so " at" is added only where it is not
    already the message's last word ("starting at at char 32" read as a typo)."""
    msg = getattr(exc, "msg", str(exc))
    pos, line, col = (getattr(exc, k, None) for k in ("pos", "lineno", "colno"))
    joiner = " " if msg.endswith(" at") else " at "
    return f"{msg}{joiner}char {pos} (line {line}, column {col})"


def preview(data: bytes, limit: int = 40) -> str:
    """A short printable rendering of bytes for error messages."""
    text = data[:limit].decode("utf-8", "replace")
    more = "…" if len(data) > limit else ""
    return repr(text + more) if text else "''"


def calls_of(events: Iterable[Event]) -> list[ToolCall]:
    """The executable calls among ``events``, in order."""
    return [e.call for e in events if isinstance(e, CallReady)]


def errors_of(events: Iterable[Event]) -> list[ContractError]:
    return [e for e in events if isinstance(e, ContractError)]


def coalesce(events: Iterable[Event]) -> list[Event]:
    """Merge contiguous pieces: ``Confirmed`` of one kind, ``ArgBytes`` of one argument.

    Pieces interleave (``Confirmed``, ``ArgBytes``, ``Confirmed``, ...); a piece
    merges into the latest event of its type when only partner pieces lie
    between. Chunking changes how many pieces confirmed bytes arrive in, never
    what they are: after coalescing every chunking gives an equal list.
    """
    out: list[Event] = []
    last_conf = last_arg = -1
    for event in events:
        if isinstance(event, Confirmed) and last_conf >= 0:
            prev = out[last_conf]
            assert isinstance(prev, Confirmed)
            if (
                prev.kind == event.kind
                and prev.offset + len(prev.data) == event.offset
                and all(isinstance(e, ArgBytes) for e in out[last_conf + 1 :])
            ):
                out[last_conf] = Confirmed(prev.offset, prev.kind, prev.data + event.data)
                continue
        if isinstance(event, ArgBytes) and last_arg >= 0:
            prev_arg = out[last_arg]
            assert isinstance(prev_arg, ArgBytes)
            if (
                (prev_arg.call_id, prev_arg.key) == (event.call_id, event.key)
                and prev_arg.offset + len(prev_arg.data) == event.offset
                and all(isinstance(e, Confirmed) for e in out[last_arg + 1 :])
            ):
                data = prev_arg.data + event.data
                out[last_arg] = ArgBytes(event.call_id, event.key, data, prev_arg.offset)
                continue
        out.append(event)
        if isinstance(event, Confirmed):
            last_conf = len(out) - 1
        elif isinstance(event, ArgBytes):
            last_arg = len(out) - 1
    return out


def run_chunks(t: Transducer, chunks: Iterable[bytes], clean: bool = True) -> list[Event]:
    """Feed every chunk, then finish; all events in order (a convenience for tools and tests)."""
    events: list[Event] = []
    for chunk in chunks:
        events.extend(t.feed(chunk))
    events.extend(t.finish(clean))
    return events


def split(data: bytes, size: int) -> list[bytes]:
    """``data`` in pieces of ``size`` bytes (the last may be shorter)."""
    return [data[i : i + size] for i in range(0, len(data), size)] or [b""]
