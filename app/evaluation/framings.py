"""Experiment C: the same calls in every framing, cut at the same relative points.

For each framing the workload is rendered once (``render.py``) and its transducer is
fed **once**, in pieces of the chunk size that also end exactly at every cut offset;
at each cut the transducer's state is what a stream truncated there leaves behind:

* **executable** — the calls it had made executable (``CallReady``) after the first
  *k* bytes. In a stream cut off there these have run (eager framings) or none has
  (framings that wait for the end); ``finish(clean=False)`` adds no call (S1: probed
  at ``PROBES`` cuts per framing with a fresh transducer fed the prefix at once and
  then truncated);
* **changed** — executable calls that differ (id, name, arguments, offset) from the
  call at the same position on the whole stream, plus ``late_arguments`` errors: a
  call that would have run and then changed. S2 says this is 0 for every framing;
* **pending** — the bytes received but not yet decided (``pending_size``): a bounded
  line or TAG prefix in CTL, a whole call object in json-object, everything so far in
  json-whole, the argument bytes of the calls not yet complete in the native
  framings (their unit is argument bytes, not SSE bytes), every block in xml;
* **salvaged** — the share of the workload's payload (argument bytes, the same in
  every framing: ``WorkCall.payload``) in the calls executable at the cut; the mean
  over cuts is the "share of the workload salvaged" (and ``salvaged_calls`` the same
  by number of calls).

Cut offsets are ``round(n * i / (cuts + 1))`` for ``i = 1..cuts`` of each rendering's
own length *n*, kept within ``1..n-1`` (a cut at 0 or *n* is no truncation); with
``every_byte`` every offset ``1..n-1`` is measured too and the means and maxima are
over all of them (the chart keeps the relative points). Each chunk size is a separate
pass; the passes must agree at every cut (``chunking`` counts where they do not).

Cost: one feed of each rendering per chunk size, plus ``PROBES`` fresh prefixes —
linear in the input, not O(n·cuts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from itertools import accumulate
from typing import Any

from frontier.app.cst.base import calls_of, errors_of
from frontier.app.cst.factory import pending_size
from frontier.app.evaluation.render import FRAMINGS, TOKEN_CHARS, Rendering, render
from frontier.app.evaluation.workload import WorkCall, value_text
from frontier.app.events import CallReady, ContractError, Event, ToolCall
from frontier.app.record import field, record
from frontier.app.transducers import transducer_factory

TYPE_CHECKING = False  # Transducer is a type only (a Protocol: app/cst/base.py)
if TYPE_CHECKING:
    from frontier.app.cst.base import Transducer

DEFAULT_CUTS = 200
DEFAULT_CHUNKS: tuple[int, ...] = (1, 7, 64)
PROBES = 16
"""Cuts per framing (spread over the stream) at which truncation is probed with a fresh
transducer: ``finish(clean=False)`` must make no call executable (S1)."""

CHANGED_AFTER_READY = frozenset({"late_arguments"})
"""Error kinds saying an executable call received more bytes (``props.py`` counts them as S2)."""


@record
class CutSample:
    """The state of one framing's transducer at one relative cut point."""

    at: float
    """The cut's relative position in the rendering, 0 < at < 1."""
    offset: int
    executable: int
    salvaged: float
    """Share of the workload payload in the calls executable at the cut."""
    pending: int


@record
class FramingResult:
    framing: str
    input: str
    """``text`` (assistant text) or ``sse`` (a chat-completions SSE body)."""
    size: int
    """Bytes of the rendering."""
    calls: int
    """Calls executable on the whole stream (clean end)."""
    faithful: bool
    """The whole stream's calls are the workload's (names, and arguments after the
    tool schemas' coercion): the rendering says what the workload says."""
    cuts: int
    """Cut offsets measured (the relative points; with ``every_byte``, every offset)."""
    executable_mean: float
    executable_max: int
    changed: int
    """S2: executable calls that later differ from the whole stream's (must be 0)."""
    s1: int
    """Calls a probed truncation made executable (must be 0)."""
    chunking: int
    """Cuts at which two chunk sizes disagree (must be 0)."""
    pending_mean: float
    pending_max: int
    salvaged_bytes: float
    """Mean over cuts of the share of the payload executable at the cut."""
    salvaged_calls: float
    errors: tuple[str, ...] = ()
    """Contract-error kinds on the whole stream (a faithful rendering has none)."""
    samples: tuple[CutSample, ...] = ()

    @property
    def ok(self) -> bool:
        return not (self.changed or self.s1 or self.chunking)


@record
class FramingsReport:
    workload: str
    """A line describing the workload (``workload.describe``)."""
    calls: int
    payload: int
    cuts: int
    every_byte: bool
    chunks: tuple[int, ...]
    token: int
    results: tuple[FramingResult, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)


def cut_offsets(n: int, cuts: int) -> list[int]:
    """The relative cut points of an ``n``-byte rendering, kept within ``1..n-1`` (duplicates
    kept: each point counts)."""
    if n < 2:
        return [0] * cuts
    return [min(n - 1, max(1, round(n * i / (cuts + 1)))) for i in range(1, cuts + 1)]


def _spread(items: Sequence[int], count: int) -> list[int]:
    if len(items) <= count:
        return list(items)
    last = len(items) - 1
    return sorted({items[round(j * last / (count - 1))] for j in range(count)})


@record(frozen=False)
class _Pass:
    """One feed of a rendering: the state at every measured offset."""

    executable: dict[int, int]
    pending: dict[int, int]
    changed: int
    calls: list[ToolCall]


def _feed_pass(
    data: bytes,
    framing: str,
    chunk: int,
    offsets: Sequence[int],
    full: Sequence[ToolCall],
    factory: Callable[[str], Transducer],
) -> _Pass:
    t = factory(framing)
    made: list[ToolCall] = []
    changed = 0
    executable: dict[int, int] = {}
    pending: dict[int, int] = {}

    def take(events: list[Event]) -> None:
        nonlocal changed
        for event in events:
            if isinstance(event, CallReady):
                i = len(made)
                made.append(event.call)
                if i >= len(full) or event.call != full[i]:
                    changed += 1
            elif isinstance(event, ContractError) and event.kind in CHANGED_AFTER_READY:
                changed += 1

    pos = 0
    feed = t.feed
    for k in offsets:
        while pos < k:
            end = min(pos + chunk, k)
            events = feed(data[pos:end])
            if events:
                take(events)
            pos = end
        executable[k] = len(made)
        pending[k] = pending_size(t)
    n = len(data)
    while pos < n:
        take(feed(data[pos : pos + chunk]))
        pos += chunk
    take(t.finish(True))
    return _Pass(executable, pending, changed, made)


def _probe(
    data: bytes, framing: str, k: int, factory: Callable[[str], Transducer]
) -> tuple[int, int]:
    """(calls executable after the prefix fed at once, calls ``finish(False)`` adds)."""
    t = factory(framing)
    before = len(calls_of(t.feed(data[:k])))
    return before, len(calls_of(t.finish(False)))


def evaluate_rendering(
    rendering: Rendering,
    calls: Sequence[WorkCall],
    *,
    cuts: int = DEFAULT_CUTS,
    every_byte: bool = False,
    chunks: Sequence[int] = DEFAULT_CHUNKS,
    probes: int = PROBES,
    factory: Callable[[str], Transducer] | None = None,
) -> FramingResult:
    data, framing = rendering.data, rendering.framing
    if factory is None:  # the rendering's native framing is a Chat Completions body
        factory = transducer_factory("openai-chat")
    n = len(data)
    whole = factory(framing)
    events = whole.feed(data) + whole.finish(True)
    full = calls_of(events)
    errors = tuple(e.kind for e in errors_of(events))
    relative = cut_offsets(n, cuts)
    measured = list(range(1, n)) if every_byte and n > 1 else relative
    unique = sorted(set(measured) | set(relative))
    passes = [_feed_pass(data, framing, max(1, c), unique, full, factory) for c in chunks]
    first = passes[0]
    chunking = sum(
        1
        for k in unique
        for p in passes[1:]
        if p.executable[k] != first.executable[k] or p.pending[k] != first.pending[k]
    )
    chunking += sum(1 for p in passes[1:] if p.calls != first.calls)
    changed = max(p.changed for p in passes)
    s1 = 0
    for k in _spread(sorted(set(relative)), probes):
        before, added = _probe(data, framing, k, factory)
        s1 += added
        chunking += before != first.executable[k]
    weights = [c.payload() for c in calls]
    total = sum(weights) or 1
    cum = [0, *accumulate(weights)]

    def salvaged(count: int) -> float:
        return cum[min(count, len(calls))] / total

    ex = [first.executable[k] for k in measured]
    pend = [first.pending[k] for k in measured]
    m = max(1, len(measured))
    samples = tuple(
        CutSample(
            at=i / (cuts + 1),
            offset=k,
            executable=first.executable[k],
            salvaged=salvaged(first.executable[k]),
            pending=first.pending[k],
        )
        for i, k in enumerate(relative, 1)
    )
    return FramingResult(
        framing=framing,
        input=rendering.input,
        size=n,
        calls=len(full),
        faithful=faithful(full, calls),
        cuts=len(measured),
        executable_mean=sum(ex) / m,
        executable_max=max(ex, default=0),
        changed=changed,
        s1=s1,
        chunking=chunking,
        pending_mean=sum(pend) / m,
        pending_max=max(pend, default=0),
        salvaged_bytes=sum(salvaged(x) for x in ex) / m,
        salvaged_calls=sum(min(x, len(calls)) for x in ex) / m / max(1, len(calls)),
        errors=errors,
        samples=samples,
    )


def run_framings(
    calls: Sequence[WorkCall],
    framings: Sequence[str] = FRAMINGS,
    *,
    cuts: int = DEFAULT_CUTS,
    every_byte: bool = False,
    chunks: Sequence[int] = DEFAULT_CHUNKS,
    token: int = TOKEN_CHARS,
    description: str = "",
    factory: Callable[[str], Transducer] | None = None,
) -> FramingsReport:
    """Experiment C over ``framings``; see the module docstring for each figure."""
    from frontier.app.evaluation.workload import describe

    if not calls:
        raise ValueError("the workload has no calls")
    if cuts < 1:
        raise ValueError(f"cuts must be at least 1 (got {cuts})")
    results = tuple(
        evaluate_rendering(
            render(f, calls, token=token),
            calls,
            cuts=cuts,
            every_byte=every_byte,
            chunks=chunks,
            factory=factory,
        )
        for f in framings
    )
    return FramingsReport(
        workload=description or describe(calls),
        calls=len(calls),
        payload=sum(c.payload() for c in calls),
        cuts=cuts,
        every_byte=every_byte,
        chunks=tuple(chunks),
        token=token,
        results=results,
    )


# --------------------------------------------------------------------------- faithful


def faithful(made: Sequence[ToolCall], calls: Sequence[WorkCall]) -> bool:
    """Whether ``made`` (a whole stream's calls) are ``calls``: same names in order, and the
    same arguments once both are coerced to the tool's schema (text framings carry ``40``
    as ``"40"``); where either does not fit the schema (or the registry does not know the
    tool), the same text per value."""
    if [c.name for c in made] != [c.name for c in calls]:
        return False
    return all(_same(m.name, m.args, c.args) for m, c in zip(made, calls, strict=True))


@cache
def _schemas() -> dict[str, Any]:
    """Each built-in tool's parameter schema, by name."""
    from frontier.tools.registry import default_registry

    return {s.name: s.parameters for s in default_registry().specs()}


def _same(name: str, got: Mapping[str, Any], meant: Mapping[str, Any]) -> bool:
    from frontier.tools.schema import ArgError, coerce_args

    schema = _schemas().get(name)
    if schema is not None:
        try:
            return coerce_args(name, schema, got) == coerce_args(name, schema, meant)
        except ArgError:
            pass
    text = {k: value_text(v) for k, v in got.items()}
    return text == {k: value_text(v) for k, v in meant.items()}
