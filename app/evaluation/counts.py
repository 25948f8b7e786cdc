"""Experiment D: the byte counts models write in length-prefixed CTL arguments.

For every response of a CTL mode in the sources (recordings or a stored session's
responses, in order), every ``arg <key> <nbytes>`` header is found by the transducer
(``ArgStarted`` with ``form="length"``) and judged:

* ``ok`` — the transducer read the declared body and the frame went on (the next
  ``arg``/``end`` line followed it): ``arrived == declared``;
* ``miscount`` — the body did not end where declared: the transducer's contract error
  for that argument says so (``unexpected_line`` right after the declared body: more
  content followed, declared too small; ``body_eof`` inside the body: the stream
  ended first, declared too large — DESIGN §3). How many bytes the model actually
  wrote is then found by re-scanning the raw bytes from the body's start for where
  it really ended: the first line that is ``end``, an ``arg <key> …`` or a ``call …``
  line (the frame's next line, as the model meant it). With none, ``arrived`` is the
  bytes up to the end of what was received and only a lower bound (``exact`` false):
  at a contract error the client stops reading, so a body declared too small is
  usually cut off a line after its declared end;
* ``cut`` — the response was truncated (``length``, disconnect) inside the body: how
  many bytes were meant is unknown, so it counts in neither.

The signed miss is ``declared − arrived`` (negative: declared too small). A miscount's
**repair** succeeded when the next response of the same sequence (the next response
of that session, the next recording file given) made a call of the same tool — with
the same ``path`` when the broken call had confirmed one — executable; ``none`` when
there is no next response.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from statistics import median
from typing import Literal

from frontier.app.cst.factory import make_transducer
from frontier.app.events import (
    ArgBytes,
    ArgStarted,
    CallReady,
    CallStarted,
    ContractError,
    Event,
    ToolCall,
)
from frontier.app.model.registry import codec
from frontier.app.record import record, replace
from frontier.app.session.record import Recording
from frontier.app.vocab import CTL_MODES, PROTOCOLS

Status = Literal["ok", "miscount", "cut"]
Repair = Literal["", "succeeded", "failed", "none"]

MISCOUNT_KINDS = frozenset({"unexpected_line", "body_eof"})
_NEXT_LINE = re.compile(rb"end(?:\r?\n|$)|arg [A-Za-z_][A-Za-z0-9_]{0,63} |call ")


@record
class LengthArg:
    """One length-prefixed argument a model wrote."""

    source: str
    """The response it is in (a recording file, or ``SESSION#N``)."""
    call_id: str
    name: str
    key: str
    offset: int
    """Byte offset of its ``arg`` header in the response's text."""
    declared: int
    arrived: int | None
    """Bytes the model wrote for the body (``None`` when the response was cut inside it)."""
    status: Status
    error: str = ""
    """The contract error kind that reported a miscount."""
    exact: bool = True
    """False when ``arrived`` is a lower bound: no frame line followed the body in what was
    received (the client stops reading at a contract error, so the rest was never sent)."""
    repair: Repair = ""
    repair_form: str = ""
    """How the repaired call carried ``key`` (``length``, ``heredoc``, ``inline``)."""

    @property
    def miss(self) -> int | None:
        """``declared − arrived``: negative when declared too small."""
        return None if self.arrived is None else self.declared - self.arrived


@record
class CountsReport:
    sources: tuple[str, ...]
    responses: int
    """CTL responses read."""
    skipped: int
    """Responses in other modes (no length prefixes there)."""
    calls: int
    """``call`` lines the CTL responses started."""
    executable: int
    """Calls they completed (``end``)."""
    args: tuple[LengthArg, ...]

    @property
    def counted(self) -> list[LengthArg]:
        """The arguments whose arrived size is known (``cut`` ones excluded)."""
        return [a for a in self.args if a.status != "cut"]

    @property
    def miscounts(self) -> list[LengthArg]:
        return [a for a in self.args if a.status == "miscount"]

    @property
    def error_rate(self) -> float | None:
        counted = self.counted
        return len(self.miscounts) / len(counted) if counted else None

    @property
    def misses(self) -> list[int]:
        """The signed misses of the miscounted arguments, in order."""
        return [a.miss for a in self.miscounts if a.miss is not None]

    @property
    def bounded(self) -> int:
        """Miscounts whose ``arrived`` is only a lower bound (``miss`` an upper bound)."""
        return sum(not a.exact for a in self.miscounts)

    @property
    def repairs(self) -> tuple[int, int]:
        """(repairs that had a next response, those that succeeded)."""
        tried = [a for a in self.miscounts if a.repair in ("succeeded", "failed")]
        return len(tried), sum(a.repair == "succeeded" for a in tried)

    def miss_summary(self) -> dict[str, float | int | None]:
        misses = self.misses
        if not misses:
            return {"min": None, "median": None, "max": None, "mean_abs": None}
        return {
            "min": min(misses),
            "median": median(misses),
            "max": max(misses),
            "mean_abs": sum(abs(m) for m in misses) / len(misses),
        }


@record
class _Read:
    """One response read by its transducer."""

    events: list[Event]
    data: bytes
    clean: bool


def _read(rec: Recording, mode: str) -> _Read:
    t = make_transducer(mode, wire=codec(rec.wire))
    data = rec.transducer_input(mode)
    events = t.feed(data) + t.finish(rec.clean)
    return _Read(events, data, rec.clean)


def body_end(data: bytes, start: int) -> tuple[int, bool]:
    """Where a length-prefixed body starting at ``start`` really ended: the start of the
    first line at or after it that is ``end``, ``arg <key> …`` or ``call …``, and True;
    with none, the end of ``data`` and False (the body went on at least that far: after
    a contract error the client stops reading, so the rest was never received)."""
    p = start
    n = len(data)
    while p <= n:
        if _NEXT_LINE.match(data, p):
            return p, True
        nl = data.find(b"\n", p)
        if nl < 0:
            break
        p = nl + 1
    return n, False


def length_args(source: str, read: _Read) -> list[LengthArg]:
    """Every length-prefixed argument of one CTL response, judged (repair not yet known)."""
    data, events = read.data, read.events
    error = next((e for e in events if isinstance(e, ContractError)), None)
    names: dict[str, str] = {}
    out: list[LengthArg] = []
    started = [e for e in events if isinstance(e, ArgStarted | CallStarted)]
    for i, event in enumerate(started):
        if isinstance(event, CallStarted):
            names[event.id] = event.name
            continue
        if event.form != "length" or event.declared is None:
            continue
        nl = data.find(b"\n", event.offset)
        body = nl + 1 if nl >= 0 else len(data)
        declared = event.declared
        later = i + 1 < len(started)
        ready = any(
            isinstance(e, CallReady) and e.call.id == event.call_id and e.call.offset > body
            for e in events
        )
        head = (source, event.call_id, names.get(event.call_id, ""), event.key, event.offset)
        if later or ready or error is None:
            out.append(LengthArg(*head, declared, arrived=declared, status="ok"))
            continue
        inside = body + declared > len(data)
        if error.kind == "truncated" and inside:
            out.append(LengthArg(*head, declared, arrived=None, status="cut"))
            continue
        miscount = (error.kind == "unexpected_line" and error.offset == body + declared) or (
            error.kind == "body_eof" and inside
        )
        if not miscount:
            out.append(LengthArg(*head, declared, arrived=declared, status="ok"))
            continue
        end, exact = body_end(data, body)
        miscounted = LengthArg(*head, declared, end - body, "miscount", error.kind, exact)
        out.append(miscounted)
    return out


def _path_of(events: Sequence[Event], call_id: str) -> str | None:
    """The inline ``path`` a (possibly broken) call confirmed, if any."""
    for e in events:
        if isinstance(e, ArgBytes) and e.call_id == call_id and e.key == "path":
            return e.data.decode("utf-8", "replace")
    return None


def _repair(arg: LengthArg, broken: _Read, nxt: _Read | None) -> tuple[Repair, str]:
    if nxt is None:
        return "none", ""
    path = _path_of(broken.events, arg.call_id)
    made: list[ToolCall] = [e.call for e in nxt.events if isinstance(e, CallReady)]
    for call in made:
        if call.name != arg.name:
            continue
        if path is not None and str(call.args.get("path", "")) != path:
            continue
        form = next(
            (
                e.form
                for e in nxt.events
                if isinstance(e, ArgStarted) and e.call_id == call.id and e.key == arg.key
            ),
            "",
        )
        return "succeeded", form
    return "failed", ""


def count_sequence(
    recordings: Sequence[tuple[str, Recording]],
) -> tuple[list[LengthArg], int, int, int, int]:
    """The length arguments of one sequence of responses (one session, or files in the
    order given), with repairs judged against each next response; also (responses,
    skipped, calls, executable)."""
    reads = [
        (name, rec, _read(rec, rec.mode) if rec.mode in CTL_MODES else None)
        for name, rec in recordings
    ]
    out: list[LengthArg] = []
    responses = skipped = calls = executable = 0
    for i, (name, _, read) in enumerate(reads):
        if read is None:
            skipped += 1
            continue
        responses += 1
        calls += sum(isinstance(e, CallStarted) for e in read.events)
        executable += sum(isinstance(e, CallReady) for e in read.events)
        nxt: _Read | None = None
        if i + 1 < len(reads):
            _, rec, nxt = reads[i + 1]
            if nxt is None and rec.mode in PROTOCOLS:  # a repair in another mode
                nxt = _read(rec, rec.mode)
        for arg in length_args(name, read):
            if arg.status == "miscount":
                repair, form = _repair(arg, read, nxt)
                arg = replace(arg, repair=repair, repair_form=form)
            out.append(arg)
    return out, responses, skipped, calls, executable


def run_counts(sequences: Iterable[tuple[str, Sequence[tuple[str, Recording]]]]) -> CountsReport:
    """Experiment D over ``sequences``: (source name, its responses in order) each."""
    names: list[str] = []
    args: list[LengthArg] = []
    responses = skipped = calls = executable = 0
    for name, recordings in sequences:
        names.append(name)
        found, r, s, c, x = count_sequence(recordings)
        args += found
        responses += r
        skipped += s
        calls += c
        executable += x
    return CountsReport(tuple(names), responses, skipped, calls, executable, tuple(args))
