"""The reports of experiments C and D as aligned text tables and as JSON-ready values."""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from frontier.app.evaluation.counts import CountsReport
from frontier.app.evaluation.framings import FramingsReport

FRAMINGS_COLUMNS = (
    "framing",
    "input",
    "bytes",
    "calls@cut",
    "changed",
    "pending mean",
    "pending max",
    "salvaged bytes",
    "salvaged calls",
)


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
                f"{r.size:,}",
                f"{r.executable_mean:.2f}/{report.calls}",
                str(r.changed),
                f"{r.pending_mean:,.0f}",
                f"{r.pending_max:,}",
                _pct(r.salvaged_bytes),
                _pct(r.salvaged_calls),
            ]
        )
    return rows


def framings_text(report: FramingsReport) -> str:
    chunks = ",".join(str(c) for c in report.chunks)
    every = " + every byte" if report.every_byte else ""
    head = [
        f"experiment C, framings under truncation: {report.workload}",
        f"cut at {report.cuts} relative points{every}; chunk sizes {chunks}; native "
        f"arguments streamed {report.token} characters a chunk",
        "",
    ]
    right = [False, False, *([True] * (len(FRAMINGS_COLUMNS) - 2))]
    lines = head + table(framings_rows(report), right)
    bad = [r for r in report.results if not r.ok]
    unfaithful = [r.framing for r in report.results if not r.faithful]
    lines.append("")
    lines += textwrap.wrap(
        "calls@cut: calls executable when the stream is cut there (mean); changed: calls that "
        "were executable and then changed (S2, must be 0); pending: undecided bytes at the cut "
        "(native: argument bytes); salvaged: share of the workload executable at the cut "
        "(mean), by payload bytes and by calls",
        width=96,
    )
    if unfaithful:
        lines.append(
            f"not faithful (the whole stream's calls differ from the workload): "
            f"{', '.join(unfaithful)}"
        )
    for r in report.results:
        if r.errors:
            lines.append(f"{r.framing}: contract errors on the whole stream: {', '.join(r.errors)}")
    if bad:
        for r in bad:
            lines.append(
                f"FAIL {r.framing}: S2 changed={r.changed}, S1 truncation={r.s1}, "
                f"chunking={r.chunking}"
            )
    else:
        lines += textwrap.wrap(
            f"ok: S2 = 0 in every framing; truncation probes made no call executable (S1); "
            f"every chunk size ({chunks}) agreed at every cut",
            width=96,
        )
    return "\n".join(lines) + "\n"


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
    "key",
    "declared",
    "arrived",
    "miss",
    "status",
    "repair",
)


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
        f"experiment D, byte counts written by models: {named}",
        f"{report.responses} CTL response(s) ({report.skipped} in other modes skipped), "
        f"{report.calls} call(s) started, {report.executable} executable",
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
            f"miss = declared − arrived: min {s['min']:+d}, median {s['median']:+g}, "
            f"max {s['max']:+d}, mean |miss| {s['mean_abs']:.1f}; by value: {hist}",
            width=96,
        )
        if report.bounded:
            lines.append(
                f"{report.bounded} of the misses are bounds (≤): the stream was closed at the "
                "error before the body's real end arrived"
            )
        tried, ok = report.repairs
        untried = len(report.miscounts) - tried
        lines.append(
            f"repairs: {ok} of {tried} succeeded on the next try"
            + (f" ({untried} had no next response)" if untried else "")
        )
    lines.append("")
    right = [False, False, False, False, True, True, True, False, False]
    lines += table(counts_rows(report), right)
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
