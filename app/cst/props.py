"""The S1–S3 checker: is it safe to act on what a transducer confirms, at every prefix?

For an input stream and a protocol it verifies, at **every byte prefix**:

* S1 — no incomplete call is ever executable: a call the transducer makes
  executable after prefix *k* has its confirming byte inside the prefix, and a
  stream *truncated* after prefix *k* (``finish(clean=False)``) completes no call.
* S2 — every call executable on a prefix is byte-identical (id, name, args,
  offset) to the call at the same position on the full stream.
* S3 — the number of executable calls never decreases as the prefix grows.
* bound — the pending bytes never exceed ``pending_bound()``.

Every prefix is observed by feeding one transducer byte by byte. Because that
relies on the transducer giving the same answer whatever the chunking, fresh
transducers are also run on prefixes fed in one piece — all of them for inputs
up to ``fresh`` bytes, otherwise an even sample plus every prefix next to a
call becoming executable — and must agree (reported as ``chunking``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from frontier.app.cst.base import Transducer, calls_of, errors_of
from frontier.app.cst.factory import make_transducer, pending_size
from frontier.app.events import ToolCall


@dataclass(frozen=True)
class Violation:
    prop: str
    """``S1``, ``S2``, ``S3``, ``bound`` or ``chunking``."""
    offset: int
    """Input byte offset: the last byte of the first prefix that shows it."""
    message: str


@dataclass(frozen=True)
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


def check_stream(
    data: bytes,
    protocol: str,
    clean: bool,
    *,
    fresh: int = 2048,
    samples: int = 256,
    factory: Callable[[str], Transducer] = make_transducer,
    max_violations: int = 20,
) -> CheckReport:
    """Check S1–S3 (and the pending bound) for ``data`` read with ``protocol``."""
    full = factory(protocol)
    full_events = full.feed(data) + full.finish(clean)
    full_calls = calls_of(full_events)
    violations: list[Violation] = []

    def add(prop: str, offset: int, message: str) -> None:
        if len(violations) < max_violations:
            violations.append(Violation(prop, offset, message))

    t = factory(protocol)
    executable: list[ToolCall] = []
    counts = [0]
    max_pending = 0
    n = len(data)
    for k in range(n):
        for call in calls_of(t.feed(data[k : k + 1])):
            i = len(executable)
            executable.append(call)
            if call.offset >= t.consumed:
                add(
                    "S1",
                    k,
                    f"call #{i + 1} {_show(call)} became executable before its confirming byte "
                    f"arrived (consumed {t.consumed})",
                )
            expected = full_calls[i] if i < len(full_calls) else None
            if call != expected:
                add(
                    "S2",
                    k,
                    f"call #{i + 1} on the prefix ending at byte {k} is {_show(call)}, "
                    f"but on the full stream it is {_show(expected)}",
                )
        size = pending_size(t)
        max_pending = max(max_pending, size)
        if size > t.pending_bound():
            add("bound", k, f"{size} bytes pending, over the bound of {t.pending_bound()}")
        counts.append(len(executable))

    if n + 1 <= fresh:
        cuts = list(range(n + 1))
    else:
        step = max(1, n // samples)
        picked = set(range(0, n + 1, step)) | {n}
        for k in range(1, n + 1):
            if counts[k] != counts[k - 1]:
                picked.update((k - 1, k, min(n, k + 1)))
        cuts = sorted(picked)
    previous = 0
    for k in cuts:
        probe = factory(protocol)
        got = calls_of(probe.feed(data[:k]))
        if len(got) < previous:
            add("S3", max(k - 1, 0), f"executable calls fell from {previous} to {len(got)}")
        previous = len(got)
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
        if got != executable[: counts[k]]:
            add(
                "chunking",
                max(k - 1, 0),
                f"the prefix of {k} bytes fed at once gives {len(got)} call(s), fed byte by "
                f"byte {counts[k]}: the transducer depends on chunking",
            )
    if executable != full_calls[: len(executable)]:
        add("S2", n, "the calls executable on the stream differ from the full run's")
    return CheckReport(
        protocol=protocol,
        size=n,
        clean=clean,
        prefixes=n,
        fresh_prefixes=len(cuts),
        calls=len(full_calls),
        errors=tuple(e.kind for e in errors_of(full_events)),
        max_pending=max_pending,
        violations=tuple(sorted(violations, key=lambda v: v.offset)),
    )
