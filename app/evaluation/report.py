"""The reports of experiments C and D as aligned text tables and as JSON-ready values.

The tables are read by developers choosing a protocol for a model, not by the people who
named the safety properties: column heads say what was measured, a legend says what
each column means, and the verdict is a sentence. ``--json`` keeps the field names."""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import Any

from frontier.app.evaluation.counts import CountsReport
from frontier.app.evaluation.framings import FramingResult, FramingsReport
from frontier.app.record import asdict

FRAMINGS_COLUMNS = (
    "framing",
    "parsed from",
    "size",
    "ready at cut",
    "changed",
    "held avg",
    "held max",
    "kept bytes",
    "kept calls",
)
FRAMINGS_LEGEND = (
    ("framing", "how the calls are written: in the reply text (ctl, ctl-heredoc, json-*, xml)"),
    ("", "or in the API's tool-call fields (native-eos runs them at the end, -inc as each ends)"),
    ("parsed from", "text: the reply's text; sse: the raw event stream the API sends"),
    ("size", "bytes the framing takes to write the whole workload"),
    ("ready at cut", "calls complete and safe to run if the reply stops at a cut (average)"),
    ("changed", "calls that were ready, then changed: must be 0 (a ready call is final)"),
    ("held avg/max", "bytes received but not yet decided at a cut (native: argument bytes)"),
    ("kept", "share of the work runnable at a cut (average), by payload bytes and by calls:"),
    ("", "the higher, the less a reply cut off by a token limit or a dropped link wastes"),
)
"""One line per column: what it measures, in the words of someone comparing protocols."""


def table(rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    """``rows`` (the first is the header) as aligned lines; ``right`` per column."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(w) if r else cell.ljust(w)
            for cell, w, r in zip(row, widths, right, strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _pct(share: float) -> str:
    return f"{100 * share:.1f} %"


def framings_rows(report: FramingsReport) -> list[list[str]]:
    rows = [list(FRAMINGS_COLUMNS)]
    for r in report.results:
        rows.append(
            [
                r.framing,
                r.input,
                f"{r.size:,} B",
                f"{r.executable_mean:.2f}/{report.calls}",
                str(r.changed),
                f"{r.pending_mean:,.0f} B",
                f"{r.pending_max:,} B",
                _pct(r.salvaged_bytes),
                _pct(r.salvaged_calls),
            ]
        )
    return rows


def _sizes(values: Sequence[int]) -> str:
    """``1, 7 and 64``."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def framings_text(report: FramingsReport) -> str:
    every = " and at every byte" if report.every_byte else ""
    head = [
        f"How each way of writing tool calls survives a reply cut short: {report.workload}",
        *textwrap.wrap(
            f"The same calls in every framing, each cut at {report.cuts} points from start to "
            f"end{every}, fed in chunks of {_sizes(report.chunks)} bytes; native arguments "
            f"arrive {report.token} characters at a time.",
            width=96,
        ),
        "",
    ]
    right = [False, False, *([True] * (len(FRAMINGS_COLUMNS) - 2))]
    lines = head + table(framings_rows(report), right)
    bad = [r for r in report.results if not r.ok]
    unfaithful = [r.framing for r in report.results if not r.faithful]
    lines.append("")
    width = max(len(name) for name, _ in FRAMINGS_LEGEND)
    lines += [f"{name:<{width}}  {meaning}" for name, meaning in FRAMINGS_LEGEND]
    lines.append("")
    if unfaithful:
        lines.append(
            f"not faithful (the whole reply's calls differ from the workload): "
            f"{', '.join(unfaithful)}"
        )
    for r in report.results:
        if r.errors:
            lines.append(f"{r.framing}: contract errors on the whole reply: {', '.join(r.errors)}")
    if bad:
        for r in bad:
            lines.append(f"FAIL {r.framing}: {_failure(r)}")
    else:
        lines += textwrap.wrap(
            f"ok: no ready call ever changed; no cut made a call ready by itself; chunks of "
            f"{_sizes(report.chunks)} bytes gave the same calls at every cut",
            width=96,
        )
    return "\n".join(lines) + "\n"


def _failure(r: FramingResult) -> str:
    """What broke, in words (the JSON keeps ``changed``, ``s1``, ``chunking``)."""
    said = []
    if r.changed:
        said.append(f"{r.changed} ready call(s) changed afterwards")
    if r.s1:
        said.append(f"{r.s1} call(s) became ready only because the reply was cut")
    if r.chunking:
        said.append(f"the chunk sizes disagreed at {r.chunking} cut(s)")
    return "; ".join(said) or "see --json"


def framings_json(report: FramingsReport, samples: bool = True) -> dict[str, Any]:
    out = asdict(report)
    for r, result in zip(out["results"], report.results, strict=True):
        r["ok"] = result.ok
        if not samples:
            r.pop("samples")
    out["ok"] = report.ok
    return out


# --------------------------------------------------------------------------- D


COUNTS_COLUMNS = (
    "source",
    "call",
    "tool",
    "argument",
    "said",
    "sent",
    "off by",
    "outcome",
    "next try",
)
COUNTS_LEGEND = (
    ("said / sent", "the byte count the model wrote before the value / the bytes it then sent"),
    ("off by", "said − sent; ≥ / ≤ mark bounds: the reply was closed at the error"),
    ("outcome", "ok, miscount (with the error it caused), or cut (the reply ended inside it)"),
    ("next try", "whether the model's next reply sent that argument right"),
)
"""What the counts table's less obvious columns mean."""


def counts_rows(report: CountsReport) -> list[list[str]]:
    rows = [list(COUNTS_COLUMNS)]
    for a in report.args:
        repair = a.repair + (f" ({a.repair_form})" if a.repair_form else "")
        miss = a.miss
        rows.append(
            [
                a.source,
                a.call_id,
                a.name,
                a.key,
                str(a.declared),
                "?" if a.arrived is None else ("" if a.exact else "≥") + str(a.arrived),
                "" if miss is None or a.status == "ok" else ("" if a.exact else "≤") + f"{miss:+d}",
                a.status + (f" ({a.error})" if a.error else ""),
                repair,
            ]
        )
    return rows


def miss_histogram(report: CountsReport, exact: bool | None = None) -> list[tuple[int, int]]:
    """(signed miss, how many), by miss; ``exact`` True/False keeps only the exact misses or
    only the bounds."""
    misses = [
        a.miss
        for a in report.miscounts
        if a.miss is not None and (exact is None or a.exact == exact)
    ]
    return sorted(Counter(misses).items())


def counts_text(report: CountsReport) -> str:
    n = len(report.args)
    counted = len(report.counted)
    cut = n - counted
    sources = report.sources
    named = ", ".join(sources[:3]) + (f", … ({len(sources)} sources)" if len(sources) > 3 else "")
    lines = [
        f"How well models count the bytes of a ctl argument (arg KEY N): {named}",
        f"{report.responses} ctl {'reply' if report.responses == 1 else 'replies'} read "
        f"({report.skipped} in other protocols skipped), "
        f"{report.calls} call(s) started, {report.executable} ready to run",
    ]
    if not n:
        lines.append("no length-prefixed argument (arg <key> <nbytes>) in these responses")
        return "\n".join(lines) + "\n"
    rate = report.error_rate
    lines.append(
        f"length-prefixed arguments: {n}"
        + (f" ({cut} cut off inside the body, not counted)" if cut else "")
        + f"; miscounted {len(report.miscounts)} of {counted}"
        + (f" ({100 * rate:.1f} %)" if rate is not None else "")
    )
    s = report.miss_summary()
    if report.misses:
        hist = ", ".join(f"{m:+d}×{k}" for m, k in miss_histogram(report))
        lines += textwrap.wrap(
            f"off by (said − sent): min {s['min']:+d}, median {s['median']:+g}, "
            f"max {s['max']:+d}, average size {s['mean_abs']:.1f} bytes; how often: {hist}",
            width=96,
        )
        if report.bounded:
            lines.append(
                f"{report.bounded} of the misses are bounds (≤): the reply was closed at the "
                "error before the value's real end arrived"
            )
        tried, ok = report.repairs
        untried = len(report.miscounts) - tried
        lines.append(
            f"sent right on the next try: {ok} of {tried}"
            + (f" ({untried} had no next reply)" if untried else "")
        )
    lines.append("")
    right = [False, False, False, False, True, True, True, False, False]
    lines += table(counts_rows(report), right)
    lines.append("")
    width = max(len(name) for name, _ in COUNTS_LEGEND)
    lines += [f"{name:<{width}}  {meaning}" for name, meaning in COUNTS_LEGEND]
    return "\n".join(lines) + "\n"


def counts_json(report: CountsReport) -> dict[str, Any]:
    out = asdict(report)
    for a, arg in zip(out["args"], report.args, strict=True):
        a["miss"] = arg.miss
    tried, ok = report.repairs
    out.update(
        length_args=len(report.args),
        counted=len(report.counted),
        miscounted=len(report.miscounts),
        error_rate=report.error_rate,
        misses=report.misses,
        miss=report.miss_summary(),
        bounded=report.bounded,
        repairs_tried=tried,
        repairs_succeeded=ok,
    )
    return out
