"""``frontier eval --tui``: the charts of a report in a Textual screen (Pilot)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pilot_wait import until
from textual.widgets import Static, TabbedContent
from textual_plotext import PlotextPlot

from frontier.app.evaluation.counts import run_counts
from frontier.app.evaluation.framings import run_framings
from frontier.app.evaluation.report import (
    FRAMINGS_COLUMNS,
    FRAMINGS_LEGEND,
    counts_text,
    framings_json,
    framings_text,
)
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
        assert "ctl-heredoc" in str(table.render()) and "kept bytes" in str(table.render())
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
        await until(pilot, lambda: "said − sent" in plot.plt.build(), "the misses chart")
        await pilot.press("2")
        await until(pilot, lambda: tabs.active == "table", "the table tab")
        assert "miscount" in str(app.query_one("#table Static", Static).render())


# ------------------------------------------------------------------ the table's words
INSIDER = ("experiment C", "experiment D", "S1", "S2", "calls@cut", "salvaged", "declared")


def test_the_framings_table_speaks_to_someone_comparing_protocols() -> None:
    report = run_framings(CALLS, framings=("ctl", "native-inc"), cuts=10, chunks=(1, 7))
    text = framings_text(report)
    assert not [word for word in INSIDER if word in text], text
    header = next(line for line in text.splitlines() if line.startswith("framing "))
    assert [h for h in FRAMINGS_COLUMNS if h not in header] == []
    legend = {name.split()[0] for name, _ in FRAMINGS_LEGEND if name}
    # every column head is explained (held avg/max and kept bytes/calls share a line)
    assert {h.split()[0] for h in FRAMINGS_COLUMNS} <= legend
    assert "ok: no ready call ever changed" in text
    assert "chunks of 1 and 7 bytes gave the same calls at every cut" in " ".join(text.split())
    value = framings_json(report)  # --json keeps its field names for programs
    assert {"executable_mean", "changed", "s1", "pending_mean", "salvaged_bytes"} <= set(
        value["results"][0]
    )


def test_a_broken_framing_is_told_in_words() -> None:
    report = run_framings(CALLS, framings=("ctl",), cuts=5, chunks=(7,))
    broken = replace(report, results=(replace(report.results[0], changed=2, chunking=1),))
    text = framings_text(broken)
    assert "FAIL ctl: 2 ready call(s) changed afterwards" in text
    assert "the chunk sizes disagreed at 1 cut(s)" in text and "S2" not in text


def test_the_counts_table_says_said_and_sent() -> None:
    text = "call c1 write\narg path n.md\narg content 3\nhello\nend\n"
    out = counts_text(run_counts([("r", [("r#0", synthesize(text, "ctl"))])]))
    assert not [word for word in INSIDER if word in out], out
    assert "How well models count the bytes of a ctl argument" in out
    assert "said / sent" in out and "1 ctl reply read" in out
