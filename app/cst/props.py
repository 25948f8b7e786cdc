"""The S1–S3 checker: is it safe to act on what a transducer confirms, at every prefix?

For an input stream and a protocol it verifies, at **every byte prefix**:

* S1 — no incomplete call is ever executable: a call the transducer makes
  executable after prefix *k* has its confirming byte inside the prefix, and a
  stream *truncated* after prefix *k* (``finish(clean=False)``) completes no call.
* S2 — every call executable on a prefix is byte-identical (id, name, args,
  offset) to the call at the same position on the full stream.
* S3 — the number of executable calls never decreases as the prefix grows.
* bound — the pending bytes never exceed ``pending_bound()``.

Framing errors are not violations (a model may break the contract), with one
exception: ``late_arguments`` (native-inc) means bytes arrived for a call the
transducer had already made executable — the proof it ran on was wrong, so it
is reported as the S2 violation it would have been had those bytes been used.

Every prefix is observed by feeding one transducer byte by byte (a native
transducer's bytes inside one SSE line at once: they reach no decoder, so every
prefix among them is the state before them, and checking it again would only
repeat that check; stop 74: an 18 MB native stream's pass went from ~30 s to ~1).
Because that relies on the transducer giving the same answer whatever the chunking, two
more transducers check that view (reported as ``chunking``):

* one fed in pieces that end at every *cut* — every prefix next to a call
  becoming executable, plus ``samples`` evenly spaced ones — must have made
  the same calls executable at each cut;
* fresh ones fed a prefix at once (in pieces of ``PIECE`` bytes when it is
  longer) must agree too, must never complete a call when the stream is
  then cut off (S1), and must not run fewer calls on a longer prefix (S3):
  every prefix for inputs up to ``fresh`` bytes (a native stream's: those
  after which its wire decoder was handed an event, and the whole; each
  other is the state of the one before it but for bytes held unread, which
  its end drops), otherwise at most ``probes``
  prefixes (the full input, whose run is the first full run's, cuts next to
  calls spread over the stream, and evenly spaced ones, fewer of those on a
  stream so long that they would be fed over ``FRESH_BYTES`` in all).

Cost is linear in the input, memory the transducers' state plus the calls:
the byte-by-byte pass keeps only where calls became executable (not a count
per byte), events are dropped as they come, and the fresh prefixes — each up
to ``n`` bytes — are bounded in number (before, one per call: quadratic, and
a 100 MB recording took 258 s and 1.1 GB).
"""

from __future__ import annotations

import functools
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from functools import partial

from frontier.app.cst.base import calls_of, errors_of
from frontier.app.cst.factory import make_transducer
from frontier.app.record import record
from frontier.app.stream_events import ToolCall

TYPE_CHECKING = False  # types only (Protocols, for the type checker)
if TYPE_CHECKING:
    from frontier.app.cst.base import Transducer
    from frontier.app.cst.native import DeltaSource, NativeSSETransducer


@record
class Violation:
    prop: str
    """``S1``, ``S2``, ``S3``, ``bound`` or ``chunking``."""
    offset: int
    """Input byte offset: the last byte of the first prefix that shows it."""
    message: str


@record
class CheckReport:
    protocol: str
    size: int
    clean: bool
    prefixes: int
    fresh_prefixes: int
    calls: int
    errors: tuple[str, ...]
    """Kinds of the contract errors on the full stream (framing errors are not violations)."""
    max_pending: int
    violations: tuple[Violation, ...]
    cut_prefixes: int = 0
    """Prefixes compared with a transducer fed in pieces ending at each of them."""

    @property
    def ok(self) -> bool:
        return not self.violations

    @property
    def first(self) -> Violation | None:
        return min(self.violations, key=lambda v: v.offset) if self.violations else None


def _show(call: ToolCall | None) -> str:
    if call is None:
        return "no call"
    args = ", ".join(f"{k}={v!r:.40}" for k, v in call.args.items())
    return f"{call.id} {call.name}({args}) @ {call.offset}"


CHANGED_AFTER_READY = frozenset({"late_arguments"})
"""Error kinds that say an executable call's bytes changed afterwards: S2 violations."""

PIECE = 1 << 14
"""The largest piece fed at once: the full run and long fresh prefixes are fed in pieces
of this size, so the events of one ``feed`` never hold more than about this much input
(holding all the events of a long prefix also made the garbage collector's work grow
faster than the input)."""


def _pieces(data: bytes, end: int) -> Iterator[bytes]:
    """``data[:end]`` in ``PIECE``-byte pieces (one piece, possibly empty, when it is short)."""
    if end <= PIECE:
        yield data[:end] if end < len(data) else data
        return
    for i in range(0, end, PIECE):
        yield data[i : min(i + PIECE, end)]


def _pending_len(t: Transducer) -> int:
    return len(t.pending())


def _spread(items: Sequence[int], count: int) -> list[int]:
    """At most ``count`` of ``items``, evenly spaced, the first and the last included
    (``items`` may be a ``range``: a list of every offset would cost ~36 bytes a byte)."""
    if count <= 0 or not items:
        return []
    if len(items) <= count:
        return list(items)
    if count == 1:
        return [items[-1]]
    last = len(items) - 1
    return sorted({items[round(j * last / (count - 1))] for j in range(count)})


FRESH = 2048
"""Bytes under which every prefix of a stream is also fed at once to a fresh transducer;
above, a bounded sample of prefixes is (so the cost stays linear)."""


def _native(t: Transducer) -> NativeSSETransducer | None:
    """``t`` if it is a native transducer; its module is not imported unless one was made
    (a text protocol's ``check`` never loads it: issue 24's start-up)."""
    native = sys.modules.get("frontier.app.cst.native")
    if native is not None and isinstance(t, native.NativeSSETransducer):
        return t  # type: ignore[no-any-return]
    return None


def _state_before(k: int, marks: Sequence[int] | None) -> int:
    """The prefix just before prefix ``k``, or (a native stream's ``marks``) the mark
    whose state it is."""
    return k - 1 if marks is None else marks[bisect_right(marks, k - 1) - 1]


FRESH_BYTES = 64 << 20
"""About what the evenly spaced fresh prefixes of a long stream are fed in all (~3 s of a
native transducer): up to ~10 MB all of them are checked; beyond, fewer (at least 4),
rather than a wait of twelve full runs (an 18 MB stream: 12 s of a 16 s check)."""


def check_stream(
    data: bytes,
    protocol: str,
    clean: bool,
    *,
    fresh: int = FRESH,
    samples: int = 256,
    probes: int = 24,
    factory: Callable[[str], Transducer] | None = None,
    wire: DeltaSource | None = None,
    max_violations: int = 20,
) -> CheckReport:
    """Check S1–S3 (and the pending bound) for ``data`` read with ``protocol``; a native
    protocol reads ``wire``'s SSE body (its adapter: CST imports no wire)."""
    if factory is None:
        factory = functools.partial(make_transducer, wire=wire)
    n = len(data)
    full = factory(protocol)
    full_calls: list[ToolCall] = []
    error_kinds: list[str] = []
    for piece in _pieces(data, n):
        events = full.feed(piece)
        full_calls += calls_of(events)
        error_kinds += [e.kind for e in errors_of(events)]
    fed_whole = len(full_calls)
    """Calls the whole stream, fed at once, made before its end: the fresh prefix ``n``."""
    events = full.finish(clean)
    full_calls += calls_of(events)
    error_kinds += [e.kind for e in errors_of(events)]
    del events
    violations: list[Violation] = []

    def add(prop: str, offset: int, message: str) -> None:
        if len(violations) < max_violations:
            violations.append(Violation(prop, offset, message))

    # Every prefix, byte by byte: S1, S2 and the pending bound. Each call is compared
    # with the full run's as it appears, so only where calls appeared is kept.
    t = factory(protocol)
    became: list[int] = []
    """For the i-th call made executable byte by byte, the prefix length at which it did."""
    same = True
    max_pending = 0
    # The loop runs once per input byte, so its lookups are hoisted.
    feed, bound = t.feed, t.pending_bound
    watch = not CHANGED_AFTER_READY.isdisjoint(error_kinds)
    counter = getattr(t, "pending_size", None)
    size_of = counter if callable(counter) else partial(_pending_len, t)
    # A native transducer's bytes inside one SSE line reach no decoder: each prefix
    # among them is the state before them, so they are fed at once and checked once.
    native = _native(t)
    inert = native.inert if native is not None else None
    marks = [0] if native is not None else None
    """The prefixes after which a native transducer's wire decoder was handed an event:
    every other prefix is, but for bytes held unread, the state of the mark before it."""
    k, seen = -1, 0
    while k + 1 < n:
        start = k + 1
        k = start + max(inert(data, start), 1) - 1 if inert is not None else start
        events = feed(data[start : k + 1])
        if marks is not None and native is not None and native.decoded != seen:
            seen = native.decoded
            marks.append(k + 1)
        for call in calls_of(events) if events else ():
            i = len(became)
            became.append(k + 1)
            # (``consumed`` 0: no byte yet, so no call can have its byte; only a native call
            # with no argument bytes, completed by a chunk, can be ready then.)
            if call.offset >= t.consumed and t.consumed:
                add(
                    "S1",
                    k,
                    f"call #{i + 1} {_show(call)} became executable before its confirming byte "
                    f"arrived (consumed {t.consumed})",
                )
            expected = full_calls[i] if i < len(full_calls) else None
            if call != expected:
                same = False
                add(
                    "S2",
                    k,
                    f"call #{i + 1} on the prefix ending at byte {k} is {_show(call)}, "
                    f"but on the full stream it is {_show(expected)}",
                )
        if watch and events:
            for error in errors_of(events):
                if error.kind in CHANGED_AFTER_READY:
                    add(
                        "S2",
                        k,
                        f"a call already executable on the prefix ending at byte {k} received "
                        f"more bytes ({error.kind}): {error.message}",
                    )
        size = size_of()
        if size > max_pending:
            max_pending = size
        if size > bound():  # at each prefix of an inert run alike, as byte by byte
            for j in range(start, k + 1):
                if len(violations) >= max_violations:
                    break
                add("bound", j, f"{size} bytes pending, over the bound of {bound()}")
    del t, feed, bound, size_of, counter, inert, native
    if marks is not None and marks[-1] != n:
        marks.append(n)

    def count(k: int) -> int:
        """Calls executable, fed byte by byte, after the first ``k`` bytes."""
        return bisect_right(became, k)

    def agrees(calls: list[ToolCall], first: int) -> bool:
        """``calls`` are the ones made executable byte by byte from number ``first`` on.

        Compared with the full run's, which the byte-by-byte ones equal (else S2 is
        already reported): no list of the byte-by-byte calls is kept.
        """
        return calls == full_calls[first : first + len(calls)]

    changes = sorted(set(became))
    if marks is not None and (n + 1 <= fresh or len(marks) <= probes):
        fresh_cuts, cuts = marks, list[int]()  # every distinct state, as few as the events
    elif n + 1 <= fresh:
        fresh_cuts, cuts = list(range(n + 1)), list[int]()
    else:
        step = max(1, n // max(1, samples))
        picked = set(range(0, n + 1, step)) | {n}
        for c in changes:
            picked.update((c - 1, c, min(n, c + 1)))
        cuts = sorted(picked)
        # Half of them just before and at a call's confirming byte (where a stream cut
        # off must not complete it), spread over the calls; the rest evenly spaced.
        # (A native stream's: the mark before a call's, the state just before its byte.)
        near = _spread(changes, max(1, probes // 4))
        chosen = {n} | {k for c in near for k in (_state_before(c, marks), c)}
        even = min(probes - len(chosen), max(4, 2 * FRESH_BYTES // n))
        chosen.update(_spread(marks or range(n + 1), max(1, even)))
        fresh_cuts = sorted(chosen)

    # Pieces ending at every cut: the same calls at each cut as byte by byte.
    piecewise = factory(protocol)
    made = previous = 0
    for k in cuts:
        ok = True
        if k > previous:
            new = calls_of(piecewise.feed(data[previous:k]))
            ok = agrees(new, made)
            made += len(new)
            previous = k
        if not ok or made != count(k):
            add(
                "chunking",
                max(k - 1, 0),
                f"the prefix of {k} bytes fed in pieces ending at the checked cuts gives "
                f"{made} call(s), fed byte by byte {count(k)}: the transducer depends on "
                f"chunking",
            )
            break
    del piecewise

    # Fresh transducers, each fed one prefix at once: chunking, S3 and truncation (S1).
    previous = 0
    for k in fresh_cuts:
        if k == n and n > 0:  # fed at once in the same pieces: the first full run
            made, ok = fed_whole, True
        else:
            probe = factory(protocol)
            made, ok = 0, True
            for piece in _pieces(data, k):
                new = calls_of(probe.feed(piece))
                ok = ok and agrees(new, made)
                made += len(new)
        if made < previous:
            add("S3", max(k - 1, 0), f"executable calls fell from {previous} to {made}")
        previous = made
        if k < n:
            # A stream cut here (finish_reason length, disconnect) must not complete a
            # call: EOF sufficiency applies to a clean end only (DESIGN §3, §4).
            cut = calls_of(probe.finish(False))
            if cut:
                add(
                    "S1",
                    max(k - 1, 0),
                    f"a stream truncated after {k} bytes made {len(cut)} more call(s) "
                    f"executable at its end, first {_show(cut[0])}",
                )
        if not ok or made != count(k):
            add(
                "chunking",
                max(k - 1, 0),
                f"the prefix of {k} bytes fed at once gives {made} call(s), fed byte by "
                f"byte {count(k)}: the transducer depends on chunking",
            )
    if not same:
        add("S2", n, "the calls executable on the stream differ from the full run's")
    return CheckReport(
        protocol=protocol,
        size=n,
        clean=clean,
        prefixes=n,
        fresh_prefixes=len(fresh_cuts),
        calls=len(full_calls),
        errors=tuple(error_kinds),
        max_pending=max_pending,
        violations=tuple(sorted(violations, key=lambda v: v.offset)),
        cut_prefixes=len(cuts),
    )
