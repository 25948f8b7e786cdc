"""``frontier eval --tui``: the report of experiment C or D as charts in the terminal.

A small Textual app over a finished report (a frozen value from
``frontier.app.evaluation``): tabs with ``textual-plotext`` charts (the plots extra)
and the same aligned table the command prints. It only draws; the experiment ran
before it opened. Keys: ``1``–``3`` pick a tab, ``q`` quits.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from frontier.app.evaluation.counts import CountsReport
from frontier.app.evaluation.framings import FramingsReport
from frontier.app.evaluation.plot import PLOTS_EXTRA, STYLE, MissingExtra
from frontier.app.evaluation.report import counts_text, framings_text, miss_histogram
from frontier.themes.palette import DEFAULT_THEME, THEMES
from frontier.widgets.key_bar import KeyBar


def plot_widget_class() -> type[Any]:
    """``textual_plotext.PlotextPlot``, or :class:`MissingExtra` saying what to install."""
    try:
        from textual_plotext import PlotextPlot
    except ImportError as exc:
        raise MissingExtra(
            f"the terminal chart needs textual-plotext, which is not installed: {PLOTS_EXTRA}"
        ) from exc
    return PlotextPlot


def _bytes(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 else str(n)


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


class EvalApp(App[None]):
    """Charts and the table of one ``frontier eval`` report."""

    TITLE = "frontier eval"
    CSS = """
    #title { height: auto; padding: 0 1; text-style: bold; }
    TabbedContent { height: 1fr; }
    .table { padding: 0 1; width: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit"),
        Binding("1", "tab(0)", "first tab", show=False),
        Binding("2", "tab(1)", "second tab", show=False),
        Binding("3", "tab(2)", "third tab", show=False),
    ]

    def __init__(self, report: FramingsReport | CountsReport) -> None:
        super().__init__()
        self.report = report
        self._plot_class = plot_widget_class()
        for theme in THEMES:
            self.register_theme(theme)

    def on_load(self) -> None:
        self.theme = DEFAULT_THEME

    def compose(self) -> ComposeResult:
        report = self.report
        plot = self._plot_class
        if isinstance(report, FramingsReport):
            yield Static(f"Tool-call framings, cut short: {report.workload}", id="title")
            with TabbedContent(id="tabs"):
                with TabPane("Work kept", id="salvaged"):
                    yield plot(id="salvaged-plot")
                with TabPane("Bytes held", id="pending"):
                    yield plot(id="pending-plot")
                with TabPane("Table", id="table"), VerticalScroll():
                    yield Static(framings_text(report), classes="table", markup=False)
        else:
            n = len(report.sources)
            named = ", ".join(report.sources[:3]) + (f", … ({n} sources)" if n > 3 else "")
            yield Static(f"Byte counts models wrote: {named}", id="title")
            with TabbedContent(id="tabs"):
                with TabPane("Off by", id="misses"):
                    yield plot(id="misses-plot")
                with TabPane("Table", id="table"), VerticalScroll():
                    yield Static(counts_text(report), classes="table", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        if isinstance(self.report, FramingsReport):
            self._framings(self.report)
        else:
            self._counts(self.report)

    def action_tab(self, index: int) -> None:
        tabs = self.query_one("#tabs", TabbedContent)
        panes = [pane.id for pane in tabs.query(TabPane)]
        chosen = panes[index] if 0 <= index < len(panes) else None
        if chosen:
            tabs.active = chosen

    # ------------------------------------------------------------------ drawing

    def _plt(self, selector: str) -> Any:
        """The plotext handle of one chart (``PlotextPlot.plt``)."""
        return self.query_one(selector, self._plot_class).plt

    def _framings(self, report: FramingsReport) -> None:
        salvaged = self._plt("#salvaged-plot")
        pending = self._plt("#pending-plot")
        top = 1
        for r in report.results:
            color = _rgb(STYLE.get(r.framing, ("#7f7f7f", "-"))[0])
            xs = [100 * s.at for s in r.samples]
            shares = [100 * s.salvaged for s in r.samples]
            salvaged.plot(xs, shares, label=r.framing, color=color, marker="braille")
            # log10 drawn by hand: plotext's own log scale re-applies itself on every
            # rebuild (a resize), which ends in log10(0)
            logs = [math.log10(max(1, s.pending)) for s in r.samples]
            top = max(top, math.ceil(max(logs, default=0)))
            pending.plot(xs, logs, label=r.framing, color=color, marker="braille")
        salvaged.title("work runnable if the reply stops here (% of payload bytes)")
        salvaged.xlabel("cut position (% of the rendering received)")
        salvaged.ylim(0, 100)
        pending.title("bytes received, not yet decided (log scale; 0 drawn as 1)")
        pending.xlabel("cut position (% of the rendering received)")
        pending.ylim(0, top)
        pending.yticks(list(range(top + 1)), [_bytes(10**e) for e in range(top + 1)])

    def _counts(self, report: CountsReport) -> None:
        misses = self._plt("#misses-plot")
        hist = miss_histogram(report)
        if hist:
            misses.bar([str(m) for m, _ in hist], [k for _, k in hist], color=_rgb("#d62728"))
            misses.title("miscounted arguments by how far off: said − sent (bytes)")
        else:
            misses.title(f"no miscount in {len(report.counted)} byte-counted argument(s)")
