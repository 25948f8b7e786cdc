"""``frontier eval --plot`` speaks the table's words (issue 23): a slide made from the chart
reads like the report next to it (``kept``, ``held``, ``said − sent``), not like the
insiders' names the table gave up (``salvaged``, ``pending``, ``miss``)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from frontier.app.evaluation.counts import run_counts
from frontier.app.evaluation.framings import run_framings
from frontier.app.evaluation.plot import write_plot
from frontier.app.evaluation.workload import WorkCall
from frontier.app.session.record import read_recording, synthesize, write_recording

pytest.importorskip("matplotlib")

CALLS = (
    WorkCall("read", {"path": "greet/cli.py", "limit": 40}),
    WorkCall("write", {"path": "docs/notes.md", "content": "hello\n" * 20}),
)
OLD_WORDS = ("salvag", "pending", "executable", "miss =", "declared", "arrived", "truncation")


def svg_words(path: Path) -> str:
    """Every text of the SVG (fonts are kept as text: ``svg.fonttype none``), lowercased."""
    root = ET.parse(path).getroot()
    return " ".join("".join(node.itertext()) for node in root.iter()).lower()


def test_the_framings_chart_uses_the_tables_words(tmp_path: Path) -> None:
    words = svg_words(write_plot(run_framings(CALLS, cuts=8, chunks=(64,)), tmp_path / "c.svg"))
    for said in ("work kept", "kept:", "bytes held", "held:", "cut short", "cut position"):
        assert said in words
    assert not [old for old in OLD_WORDS if old in words]


def test_the_counts_chart_uses_the_tables_words(tmp_path: Path) -> None:
    rec = tmp_path / "1.jsonl"
    text = "call c1 write\narg path n.md\narg content 5\nhello world\nend\n"
    write_recording(rec, synthesize(text, "ctl", sizes=(7,)))
    report = run_counts([("files", [(str(rec), read_recording(rec))])])
    assert report.miscounts  # the chart has a bar to label
    words = svg_words(write_plot(report, tmp_path / "d.svg"))
    for said in ("off by: said − sent", "byte-counted arguments", "1 of 1 miscounted"):
        assert said in words
    assert not [old for old in OLD_WORDS if old in words]
