"""The charts of experiments C and D as SVG or PNG files, for slides (``--plot FILE``).

matplotlib is an optional extra (``pip install 'frontier-agent[plots]'``): it is
imported only here and only when a chart is asked for, and a missing one is a
:class:`MissingExtra` saying what to install. Figures are built on the Agg canvas
(no GUI, no pyplot state) and written without a date, so the same report gives the
same file.

C: two panels over the cut position (share of each rendering received): the work
kept there (runnable, by payload bytes), and the bytes held (received, not yet decided;
log scale). D: how far off the miscounted byte counts were (said − sent).

The words are the table's (``report.py``: ``ready at cut``, ``held``, ``kept``, ``off
by``) and the terminal chart's (``eval_view.py``), so a slide reads like the report.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from frontier.app.evaluation.counts import CountsReport
from frontier.app.evaluation.framings import FramingsReport
from frontier.app.evaluation.report import miss_histogram
from frontier.app.files import write_atomic

PLOTS_EXTRA = "pip install 'frontier-agent[plots]'"
FORMATS = ("svg", "png")

STYLE: dict[str, tuple[str, str]] = {
    "ctl": ("#1f77b4", "-"),
    "ctl-heredoc": ("#17becf", "--"),
    "native-inc": ("#2ca02c", "-."),
    "native-eos": ("#98df8a", ":"),
    "json-object": ("#ff7f0e", "-"),
    "json-whole": ("#ffbb78", "--"),
    "xml": ("#9467bd", ":"),
}
"""Colour and line style per framing (the same in the terminal chart's order)."""
CUT_AXIS = "cut position (% of the rendering received)"
"""The x axis of both C panels, as the terminal chart words it."""


class MissingExtra(RuntimeError):
    """An optional library is not installed; the message says how to install it."""


class PlotError(ValueError):
    """The chart cannot be written (an unknown extension, an unwritable path)."""


def require() -> None:
    """Raise :class:`MissingExtra` unless matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise MissingExtra(
            f"the chart needs matplotlib, which is not installed: {PLOTS_EXTRA}"
        ) from exc


def _figure(width: float, height: float) -> Any:
    require()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def plot_format(path: str | Path) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise PlotError(f"{path}: the chart is written as .svg or .png (by the file's extension)")
    return suffix


def _save(fig: Any, path: str | Path) -> None:
    """Render the chart in memory, then write it whole or not at all
    (``app/files.write_atomic``): a failed write never leaves half an image."""
    fmt = plot_format(path)
    metadata: dict[str, Any] = {"Date": None} if fmt == "svg" else {}
    import matplotlib

    image = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "frontier-eval", "svg.fonttype": "none"}):
        fig.savefig(image, format=fmt, dpi=150, metadata=metadata)
    try:
        write_atomic(path, image.getvalue())
    except OSError as exc:
        raise PlotError(f"{path}: cannot write the chart ({exc.strerror or exc})") from exc


def framings_figure(report: FramingsReport) -> Any:
    fig = _figure(11, 4.2)
    salvage, pending = fig.subplots(1, 2)
    for r in report.results:
        color, style = STYLE.get(r.framing, ("#7f7f7f", "-"))
        xs = [100 * s.at for s in r.samples]
        shares = [100 * s.salvaged for s in r.samples]
        for ax, ys in ((salvage, shares), (pending, [s.pending for s in r.samples])):
            ax.step(
                xs, ys, where="post", color=color, linestyle=style, linewidth=1.6, label=r.framing
            )
    salvage.set(
        xlabel=CUT_AXIS,
        ylabel="kept: work runnable at the cut (% of payload bytes)",
        title="Work kept if the reply stops here",
        xlim=(0, 100),
        ylim=(-2, 102),
    )
    pending.set(
        xlabel=CUT_AXIS,
        ylabel="held: bytes received, not yet decided",
        title="Bytes held (log scale)",
        xlim=(0, 100),
    )
    pending.set_yscale("symlog", linthresh=10)
    pending.set_ylim(bottom=0)
    for ax in (salvage, pending):
        ax.grid(True, alpha=0.3)
    salvage.legend(loc="upper left", fontsize="small")
    fig.suptitle(
        f"How each way of writing tool calls survives a reply cut short: {report.workload}",
        fontsize="medium",
    )
    return fig


def counts_figure(report: CountsReport) -> Any:
    fig = _figure(7, 4)
    ax = fig.subplots()
    hist = miss_histogram(report)
    counted = len(report.counted)
    if hist:
        exact = [a.miss for a in report.miscounts if a.miss is not None and a.exact]
        bound = [a.miss for a in report.miscounts if a.miss is not None and not a.exact]
        reach = max(abs(m) for m, _ in hist) + 1
        # one bar per value while they fit; bins of a few bytes for a wide spread
        edges = [x - 0.5 for x in range(-reach, reach + 2)] if reach <= 40 else 41
        ax.hist(
            [exact, bound],
            bins=edges,
            range=(-reach, reach),
            stacked=True,
            rwidth=0.85,
            color=["#d62728", "#ff9896"],
            hatch=["", "//"],
            label=["exact", "bound (≤: the reply was closed at the error)"],
        )
        ax.axvline(0, color="#333333", linewidth=0.8)
        ax.legend(loc="upper right", fontsize="small")
        ax.set_xlim(-reach, reach)
    else:
        ax.text(
            0.5,
            0.5,
            f"no miscount in {counted} byte-counted argument(s)",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    rate = report.error_rate
    tried, ok = report.repairs
    what = (
        f"{len(report.miscounts)} of {counted} miscounted"
        + (f" ({100 * rate:.1f} %)" if rate is not None else "")
        + (f"; sent right on the next try: {ok} of {tried}" if tried else "")
    )
    ax.set(
        xlabel="off by: said − sent (bytes; < 0: said too few)",
        ylabel="byte-counted arguments",
        title=f"How well models count the bytes of a ctl argument\n{what}",
    )
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def write_plot(report: FramingsReport | CountsReport, path: str | Path) -> Path:
    """Write ``report``'s chart to ``path`` (SVG or PNG by its extension); return the path."""
    plot_format(path)
    fig = framings_figure(report) if isinstance(report, FramingsReport) else counts_figure(report)
    _save(fig, path)
    return Path(path)
