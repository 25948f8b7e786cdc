"""``frontier eval --tui``: the charts of a report in a Textual screen (Pilot)."""

from __future__ import annotations

import pytest
from pilot_wait import until
from textual.widgets import Static, TabbedContent
from textual_plotext import PlotextPlot

from frontier.app.evaluation.counts import run_counts
from frontier.app.evaluation.framings import run_framings
from frontier.app.evaluation.workload import WorkCall
from frontier.app.frontends.eval_view import EvalApp
from frontier.app.session.record import synthesize

CALLS = (
    WorkCall("read", {"path": "a.py"}),
    WorkCall("write", {"path": "b.md", "content": "x\n" * 200}),
    WorkCall("shell", {"command": "true"}),
)


def _drawn(app: EvalApp, plot_id: str) -> bool:
    plot = app.query_one(plot_id, PlotextPlot)
    return plot.size.width > 0 and "cut position" in plot.plt.build()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_the_framings_charts_and_table(size: tuple[int, int]) -> None:
    report = run_framings(CALLS, cuts=20, chunks=(7,))
    app = EvalApp(report)
    async with app.run_test(size=size) as pilot:
        tabs = app.query_one("#tabs", TabbedContent)
        await until(pilot, lambda: tabs.active == "salvaged", "the salvaged tab")
        await until(pilot, lambda: _drawn(app, "#salvaged-plot"), "the salvaged chart")
        await pilot.press("2")
        await until(pilot, lambda: tabs.active == "pending", "the pending tab")
        await until(pilot, lambda: _drawn(app, "#pending-plot"), "the pending chart")
        await pilot.press("3")
        await until(pilot, lambda: tabs.active == "table", "the table tab")
        table = app.query_one("#table Static", Static)
        assert "ctl-heredoc" in str(table.render()) and "salvaged" in str(table.render())
        await pilot.press("q")
    assert app.return_code == 0


async def test_the_counts_chart() -> None:
    text = "call c1 write\narg path n.md\narg content 3\nhello\nend\n"
    report = run_counts([("r", [("r#0", synthesize(text, "ctl"))])])
    app = EvalApp(report)
    async with app.run_test(size=(80, 24)) as pilot:
        tabs = app.query_one("#tabs", TabbedContent)
        await until(pilot, lambda: tabs.active == "misses", "the misses tab")
        plot = app.query_one("#misses-plot", PlotextPlot)
        await until(pilot, lambda: "declared" in plot.plt.build(), "the misses chart")
        await pilot.press("2")
        await until(pilot, lambda: tabs.active == "table", "the table tab")
        assert "miscount" in str(app.query_one("#table Static", Static).render())
