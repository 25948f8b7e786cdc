"""``frontier eval``: experiment C (framings under truncation) and D (byte counts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app.cst.ctl import L_LINE
from frontier.app.evaluation.counts import body_end, run_counts
from frontier.app.evaluation.framings import FramingResult, cut_offsets, run_framings
from frontier.app.evaluation.plot import MissingExtra, PlotError, write_plot
from frontier.app.evaluation.render import FRAMINGS, heredoc_tag, render
from frontier.app.evaluation.report import (
    COUNTS_COLUMNS,
    FRAMINGS_COLUMNS,
    counts_json,
    counts_text,
    framings_json,
    framings_text,
)
from frontier.app.evaluation.workload import (
    WorkCall,
    WorkloadError,
    builtin_workload,
    calls_from_json,
    load_calls,
)
from frontier.app.session.record import synthesize, write_recording
from frontier.tools.registry import default_registry
from frontier.tools.schema import coerce_args

WRITE = "".join(f"line {i}: ünïcode and `code` {{braces}}\n" for i in range(40))
SMALL = (
    WorkCall("read", {"path": "greet/cli.py", "limit": 40}),
    WorkCall("write", {"path": "docs/notes.md", "content": WRITE}),
    WorkCall("replace", {"path": "a.py", "old": "x = 1\n", "new": "x = 2\n"}),
    WorkCall("shell", {"command": "python3 -m unittest -v"}),
)


def by_name(results: tuple[FramingResult, ...]) -> dict[str, FramingResult]:
    return {r.framing: r for r in results}


@pytest.fixture(scope="module")
def small() -> dict[str, FramingResult]:
    report = run_framings(SMALL, cuts=40, every_byte=True, chunks=(1, 5, 64))
    assert report.ok
    return by_name(report.results)


# --------------------------------------------------------------------------- C


def test_the_builtin_workload_has_the_real_tools_argument_shapes() -> None:
    specs = {s.name: s for s in default_registry().specs()}
    calls = builtin_workload()
    for call in calls:
        coerce_args(call.name, specs[call.name].parameters, call.args)  # raises if wrong
    names = {c.name for c in calls}
    assert {"read", "write", "replace", "apply_patch", "multi"} <= names
    write = next(c for c in calls if c.name == "write")
    assert 4800 <= write.payload() <= 5400  # the 5 KB write
    patch = next(c for c in calls if c.name == "apply_patch").args["patch"]
    assert patch.count("+++ ") >= 2  # a multi-file patch


def test_every_framing_keeps_s2_and_reproduces_the_workload(
    small: dict[str, FramingResult],
) -> None:
    assert set(small) == set(FRAMINGS)
    for r in small.values():
        assert (r.changed, r.s1, r.chunking) == (0, 0, 0), r.framing
        assert r.faithful and r.calls == len(SMALL) and r.errors == (), r.framing
        assert r.cuts == r.size - 1  # every byte
        assert len(r.samples) == 40


def test_pending_ctl_bounded_json_object_grows_with_the_argument_whole_holds_everything(
    small: dict[str, FramingResult],
) -> None:
    write_object = len(render("json-object", SMALL[1:2]).data.split(b"\n")[1])
    for name in ("ctl", "ctl-heredoc"):
        assert small[name].pending_max < 120 <= len(WRITE)  # a header line at most
        assert small[name].pending_max <= L_LINE
    # json-object holds a whole call object: just before the write's closing brace
    assert small["json-object"].pending_max == write_object - 1
    # json-whole holds the whole document; native-eos every argument byte until the end
    for s in small["json-whole"].samples:
        assert s.pending == s.offset
    eos = [s.pending for s in small["native-eos"].samples]
    assert eos == sorted(eos)
    assert small["native-eos"].pending_max == sum(
        len(json.dumps(dict(c.args), ensure_ascii=False).encode()) for c in SMALL
    )
    order = [small[f].pending_max for f in ("ctl", "json-object", "json-whole")]
    assert order == sorted(order) and order[0] < order[1] < order[2]
    assert small["native-inc"].pending_mean < small["native-eos"].pending_mean
    assert small["json-object"].pending_mean < small["json-whole"].pending_mean


def test_eager_framings_salvage_and_the_others_run_nothing_before_the_end(
    small: dict[str, FramingResult],
) -> None:
    for name in ("native-eos", "json-whole", "xml"):
        assert small[name].executable_max == 0 and small[name].salvaged_bytes == 0
    for name in ("ctl", "ctl-heredoc", "json-object", "native-inc"):
        r = small[name]
        # a CTL call needs its `end\n`, the last byte; a JSON object only its `}`, and
        # native-inc the finish_reason chunk, which comes before `[DONE]`
        last = 0 if name.startswith("ctl") else 1
        assert r.executable_max == len(SMALL) - 1 + last
        assert 0 < r.salvaged_bytes < 1 and 0 < r.salvaged_calls < 1
        assert all(0 <= s.salvaged <= 1 for s in r.samples)


def test_cut_points_are_the_same_relative_points_strictly_inside() -> None:
    assert cut_offsets(1000, 3) == [250, 500, 750]
    assert all(0 < k < 100 for k in cut_offsets(100, 200))
    assert len(cut_offsets(10, 200)) == 200  # each relative point counts, even repeated


def test_renderings_follow_what_the_prompts_teach() -> None:
    ctl = render("ctl", SMALL).data.decode()
    assert f"arg content {len(WRITE.encode())}\n" in ctl and "arg path greet/cli.py\n" in ctl
    assert "arg limit 2\n40end\n" in ctl  # digits are a length-prefixed body
    heredoc = render("ctl-heredoc", SMALL).data.decode()
    assert "arg content <<EOF\n" in heredoc
    assert heredoc_tag("a\nEOF\nEOF1\n") == "EOF2"
    assert render("native-inc", SMALL).input == "sse"
    assert render("json-whole", SMALL).data.startswith(b'{"calls": [')


KEYS = st.sampled_from(["path", "content", "old", "new", "command", "pattern"])
VALUES = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=60),
    st.lists(st.sampled_from(["EOF", "end", "call c1 read", "arg x 3", "  ", "é✓", "123"])).map(
        lambda lines: "".join(line + "\n" for line in lines)
    ),
    st.integers(0, 10_000),
    st.booleans(),
    st.lists(
        st.fixed_dictionaries({"old": st.text(max_size=8), "new": st.text(max_size=8)}), max_size=2
    ),
)
CALLS = st.lists(
    st.builds(
        WorkCall,
        st.sampled_from(["read", "write", "grep", "tool_x"]),
        st.dictionaries(KEYS, VALUES, min_size=1, max_size=3),
    ),
    min_size=1,
    max_size=4,
)


# 50, not the profile's 200: each example runs 7 framings x 12 cuts x 2 chunkings
# (~0.2 s); a small workload is also checked at every byte (the `small` fixture)
@settings(max_examples=50)
@given(CALLS)
def test_random_workloads_never_change_a_call_that_could_have_run(calls: list[WorkCall]) -> None:
    safe = [c for c in calls if all("</parameter>" not in str(v) for v in c.args.values())]
    if not safe:
        return
    report = run_framings(safe, cuts=12, chunks=(1, 3))
    for r in report.results:
        assert (r.changed, r.s1, r.chunking) == (0, 0, 0), r.framing
        assert r.calls == len(safe) and r.errors == (), (r.framing, r.errors)
        assert r.faithful, r.framing


def test_table_and_json_shape() -> None:
    report = run_framings(SMALL, framings=("ctl", "json-whole"), cuts=10, chunks=(7,))
    text = framings_text(report)
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("framing"))
    assert header.split("  ")[0] == "framing" and all(c in header for c in FRAMINGS_COLUMNS)
    rows = [line for line in lines if line.startswith(("ctl ", "json-whole "))]
    assert len(rows) == 2
    assert len({line.index("changed") for line in [header]}) == 1
    assert "ok: no ready call ever changed" in text
    value = json.loads(json.dumps(framings_json(report)))
    assert value["ok"] is True and value["calls"] == len(SMALL)
    first = value["results"][0]
    assert first["framing"] == "ctl" and first["changed"] == 0 and len(first["samples"]) == 10
    assert {"pending_mean", "pending_max", "salvaged_bytes", "salvaged_calls"} <= set(first)


def test_workload_files_are_checked() -> None:
    calls = calls_from_json(
        [{"name": "read", "args": {"path": "a"}}, {"name": "x", "arguments": "{}"}]
    )
    assert [c.name for c in calls] == ["read", "x"]
    with pytest.raises(WorkloadError, match="call #1"):
        calls_from_json([{"args": {}}])
    with pytest.raises(WorkloadError, match="list"):
        calls_from_json({"name": "read"})
    deep = "[" * 100_000 + "]" * 100_000  # json.loads raised RecursionError: a traceback
    with pytest.raises(WorkloadError, match=r'call #1 \(x\): "args" is nested 100000 levels'):
        calls_from_json([{"name": "x", "arguments": deep}])


def test_a_workload_file_nested_too_deep_is_refused_with_its_depth(tmp_path: Path) -> None:
    path = tmp_path / "calls.json"
    path.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    with pytest.raises(WorkloadError, match=r"calls.json: the JSON is nested 100000 levels deep"):
        load_calls(path)


# --------------------------------------------------------------------------- plots


def test_plot_writes_a_valid_svg_and_png(tmp_path: Path) -> None:
    report = run_framings(SMALL, cuts=10, chunks=(64,))
    svg = write_plot(report, tmp_path / "c.svg")
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert "ctl-heredoc" in svg.read_text()  # the legend, as text
    png = write_plot(report, tmp_path / "c.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(PlotError, match=r"\.svg or \.png"):
        write_plot(report, tmp_path / "c.pdf")


def test_a_missing_matplotlib_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    report = run_framings(SMALL[:1], cuts=2, chunks=(64,))
    with pytest.raises(MissingExtra, match=r"pip install 'frontier-agent\[plots\]'"):
        write_plot(report, tmp_path / "c.svg")


# --------------------------------------------------------------------------- D


def _rec(tmp_path: Path, name: str, text: str, finish: str = "stop") -> str:
    path = tmp_path / name
    write_recording(path, synthesize(text, "ctl", sizes=(3, 11), finish_reason=finish))
    return str(path)


MISCOUNTED = "I'll write it.\ncall c1 write\narg path notes.md\narg content 5\nhello world\nend\n"
REPAIRED = (
    "Resending.\ncall c1 write\narg path notes.md\narg content <<EOF\nhello world\nEOF\nend\n"
)
TOO_LARGE = "call c2 write\narg path b.txt\narg content 40\nshort\nend\n"
CUT = "call c3 write\narg path c.txt\narg content 400\nstarts but"


def test_counts_on_recordings_with_known_miscounts(tmp_path: Path) -> None:
    from frontier.app.session.record import read_recording

    files = [
        _rec(tmp_path, "1.jsonl", MISCOUNTED),
        _rec(tmp_path, "2.jsonl", REPAIRED),
        _rec(tmp_path, "3.jsonl", TOO_LARGE),
        _rec(tmp_path, "4.jsonl", CUT, finish="length"),
    ]
    report = run_counts([("files", [(f, read_recording(f)) for f in files])])
    small, large, cut = report.args
    assert (small.declared, small.arrived, small.miss) == (5, 12, -7)
    assert small.status == "miscount" and small.error == "unexpected_line"
    assert (small.repair, small.repair_form) == ("succeeded", "heredoc")
    assert (large.declared, large.arrived, large.miss) == (40, 6, 34)
    assert large.error == "body_eof" and large.repair == "failed"  # the next one is c3, cut
    assert cut.status == "cut" and cut.arrived is None and cut.miss is None
    assert report.error_rate == 1.0 and report.misses == [-7, 34]
    assert report.repairs == (2, 1)
    text = counts_text(report)
    assert "miscounted 2 of 2 (100.0 %)" in text and "-7×1" in text
    assert all(c in text for c in COUNTS_COLUMNS)
    value = counts_json(report)
    assert value["miscounted"] == 2 and value["args"][0]["miss"] == -7
    assert value["repairs_succeeded"] == 1
    svg = write_plot(report, tmp_path / "d.svg")
    assert ET.parse(svg).getroot().tag.endswith("svg")


def test_a_miscount_whose_stream_closed_at_the_error_is_a_bound(tmp_path: Path) -> None:
    from frontier.app.session.record import read_recording

    # the client stops reading at the error: the body's real end never arrived
    path = _rec(tmp_path, "b.jsonl", "call c1 write\narg path a\narg content 5\nhello world\n")
    report = run_counts([("b", [(path, read_recording(path))])])
    [arg] = report.args
    assert (arg.status, arg.arrived, arg.exact, arg.miss) == ("miscount", 12, False, -7)
    assert report.bounded == 1
    text = counts_text(report)
    assert "≥12" in text and "≤-7" in text and "1 of the misses are bounds" in text


def test_a_right_count_is_ok_and_the_body_end_is_found_by_its_next_line() -> None:
    data = b"arg content 6\nhello\nend\n"
    assert body_end(data, 14) == (20, True)
    assert body_end(b"abc\nxyz", 0) == (7, False)  # no next line: a lower bound
    from frontier.app.session.record import synthesize as synth

    text = "call c1 write\narg path a\narg content 6\nhello\nend\n"
    report = run_counts([("one", [("r", synth(text, "ctl"))])])
    [arg] = report.args
    assert (arg.status, arg.arrived, arg.miss) == ("ok", 6, 0)
    assert report.error_rate == 0.0


# --------------------------------------------------------------------------- the command


def frontier(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "FRONTIER_DATA_DIR": str(tmp_path / "data"),
        "FRONTIER_CONFIG_DIR": str(tmp_path / "config"),
    }
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )


def test_the_command_prints_json_and_writes_the_chart(tmp_path: Path) -> None:
    calls = tmp_path / "calls.json"
    calls.write_text(json.dumps([{"name": c.name, "args": dict(c.args)} for c in SMALL]))
    out = frontier(
        "eval", "framings", "--calls", str(calls), "--cuts", "20", "--chunk", "1,9",
        "--json", "--plot", str(tmp_path / "c.svg"), tmp_path=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    value = json.loads(out.stdout)
    assert [r["framing"] for r in value["results"]] == list(FRAMINGS)
    assert value["chunks"] == [1, 9] and value["ok"] is True
    assert ET.parse(tmp_path / "c.svg").getroot().tag.endswith("svg")


def test_the_command_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    for argv, words in [
        (["eval", "counts"], "SOURCE"),
        (["eval", "--plot", "x.pdf"], ".svg or .png"),
        (["eval", "framings", "--chunk", "0"], "--chunk"),
        (["eval", "--framings", "ctl,yaml"], "unknown yaml"),
        (["eval", "framings", "x.jsonl"], "unrecognized arguments: x.jsonl"),
        (["eval", "--every-byte", "counts", "x"], "--every-byte is for"),
        (["eval", "counts", "x", "--cuts", "3"], "unrecognized arguments: --cuts"),
        (["eval", "counts", str(tmp_path / "nope.jsonl")], "no such"),
    ]:
        out = frontier(*argv, tmp_path=tmp_path)
        assert out.returncode == 2, (argv, out.stdout, out.stderr)
        assert words in out.stderr, (argv, out.stderr)


def test_counts_on_the_demo_story_finds_its_miscounted_body(tmp_path: Path) -> None:
    demo = frontier(
        "demo", "--protocol", "ctl", "--headless", "--rate", "0", "--approval", "auto",
        tmp_path=tmp_path,
    )  # fmt: skip
    assert demo.returncode == 0, demo.stderr
    listing = frontier("sessions", "--json", tmp_path=tmp_path)
    session = json.loads(listing.stdout)[0]["id"]
    out = frontier("eval", "counts", session, "--json", tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr
    value = json.loads(out.stdout)
    [miss] = [a for a in value["args"] if a["status"] == "miscount"]
    from frontier.app.model.demo_script import NOTES, NOTES_MISCOUNT

    assert miss["name"] == "write" and miss["key"] == "content"
    assert miss["arrived"] == len(NOTES.encode()) and miss["miss"] == -NOTES_MISCOUNT
    assert miss["repair"] == "succeeded" and miss["repair_form"] == "heredoc"
