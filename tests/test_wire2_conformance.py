"""Real streams of the OpenAI Responses and Anthropic Messages wires, through Frontier.

The inputs, their expected calls and the runner live in ``../shared/conformance/``
(``wire2/SOURCES.md`` names each source, its licence and the quirk it shows); they are
read from there at test time, never copied here, and every test skips when that
directory is absent.

* the runner feeds each case of a wire to ``frontier transduce --wire`` at chunk sizes 1,
  7 and 4096, in ``native-inc`` and ``native-eos``, and must report every counted line
  passing (a wire whose adapter is not written yet is skipped) — its ``frontier transduce``
  answered in this process (``tests/conformance_runner.py``), one case through the real
  command;
* in process, each case split at random chunk boundaries must make exactly the calls of
  the one-piece run, and ``frontier check``'s S1–S3 must hold on it, whole and truncated.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conformance_runner import IN_PROCESS, load_runner, run_main
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst.base import calls_of, errors_of
from frontier.app.cst.factory import make_transducer
from frontier.app.cst.props import check_stream
from frontier.app.events import ToolCall
from frontier.app.model.registry import codec

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
RUNNER = SHARED / "wire2_cases.py"
DATA = SHARED / "wire2"
CASES = DATA / "cases.json"
ABSENT = f"the wire2 conformance cases are not here ({CASES} is absent)"
MODULES = {
    "openai-responses": "frontier.app.model.wires.openai_responses",
    "anthropic-messages": "frontier.app.model.wires.anthropic_messages",
}


def written(wire: str) -> bool:
    """Whether ``wire``'s adapter exists yet (the wires land one at a time)."""
    return importlib.util.find_spec(MODULES[wire]) is not None


def wire_param(wire: str) -> Any:
    return pytest.param(
        wire, marks=pytest.mark.skipif(not written(wire), reason=f"no {wire} adapter yet")
    )


@functools.cache
def cases() -> tuple[dict[str, Any], ...]:
    if not CASES.is_file():
        return ()
    return tuple(json.loads(CASES.read_text(encoding="utf-8"))["cases"])


@functools.cache
def jobs() -> tuple[tuple[str, str, str, bytes], ...]:
    """(case id, wire, protocol, input) for every case of a written wire, out-of-scope
    cases too: whatever the expected calls, a chunking must never change Frontier's own."""
    out = []
    for case in cases():
        if written(case["wire"]):
            data = (DATA / case["file"]).read_bytes()
            out += [(case["id"], case["wire"], p, data) for p in case["protocols"]]
    return tuple(out)


def frontier_command(tmp_path: Path) -> str:
    """The ``frontier`` executable of this environment (a wrapper if none is installed)."""
    installed = Path(sys.executable).with_name("frontier")
    if installed.is_file():
        return str(installed)
    wrapper = tmp_path / "frontier"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m frontier.app.cli "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def cases_of(wire: str, tmp_path: Path) -> Path:
    """A data folder holding only ``wire``'s cases (the runner selects cases by id only)."""
    data = tmp_path / "wire2"
    data.mkdir()
    (data / "native").symlink_to(DATA / "native")
    mine = [c for c in cases() if c["wire"] == wire]
    (data / "cases.json").write_text(json.dumps({"cases": mine}), encoding="utf-8")
    return data


@pytest.mark.skipif(not RUNNER.is_file() or not CASES.is_file(), reason=ABSENT)
@pytest.mark.parametrize("wire", [wire_param("openai-responses"), wire_param("anthropic-messages")])
def test_every_case_of_the_wire_passes(
    wire: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The runner's own code, its `frontier transduce` answered in this process
    # (tests/conformance_runner.py): 264 child processes per wire were this test's 30 s.
    argv = ["--frontier", IN_PROCESS, "--data", str(cases_of(wire, tmp_path))]
    code, out = run_main(load_runner(RUNNER), argv, capsys)
    failures = [line for line in out.splitlines() if line.startswith("FAIL")]
    last = out.splitlines()[-1] if out else ""
    m = re.fullmatch(r"wire2 cases: (\d+)/(\d+) passed", last)
    assert m is not None and m[1] == m[2] and int(m[2]) > 0, out
    assert code == 0 and not failures, "\n".join(failures)


@pytest.mark.skipif(not RUNNER.is_file() or not CASES.is_file(), reason=ABSENT)
@pytest.mark.parametrize("wire", [wire_param("openai-responses"), wire_param("anthropic-messages")])
def test_one_case_of_the_wire_passes_through_the_installed_command(
    wire: str, tmp_path: Path
) -> None:
    first = next(c["id"] for c in cases() if c["wire"] == wire)
    command = [sys.executable, str(RUNNER), "--frontier", frontier_command(tmp_path)]
    res = subprocess.run(
        [*command, "--data", str(cases_of(wire, tmp_path)), "--only", first],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0 and res.stdout.splitlines()[-1].startswith("wire2 cases: "), (
        res.stdout + res.stderr
    )
    assert "FAIL" not in res.stdout and "PASS" in res.stdout, res.stdout


def run(wire: str, protocol: str, pieces: list[bytes]) -> tuple[list[ToolCall], list[str]]:
    """The calls and error kinds of ``pieces`` fed in turn; fails if a call becomes
    executable before the byte that confirms it has arrived (S1)."""
    t = make_transducer(protocol, wire=codec(wire))
    calls: list[ToolCall] = []
    kinds: list[str] = []
    for piece in [*pieces, None]:
        events = t.feed(piece) if piece is not None else t.finish(True)
        new = calls_of(events)
        assert all(c.offset < t.consumed or not t.consumed for c in new), (new, t.consumed)
        calls += new
        kinds += [e.kind for e in errors_of(events)]
    return calls, kinds


@pytest.mark.skipif(not CASES.is_file(), reason=ABSENT)
@given(pick=st.integers(min_value=0), cuts=st.lists(st.integers(min_value=0), max_size=40))
def test_random_chunkings_of_real_streams_never_change_a_call(pick: int, cuts: list[int]) -> None:
    if not jobs():
        pytest.skip("no wire2 adapter is written yet")
    case, wire, protocol, data = jobs()[pick % len(jobs())]
    full, full_kinds = run(wire, protocol, [data])
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    pieces = [data[a:b] for a, b in itertools.pairwise(points)]
    calls, kinds = run(wire, protocol, pieces)
    assert calls == full, (case, protocol, points)  # id, name, args and confirming offset
    assert kinds == full_kinds, (case, protocol, points)


# slow (~12 s quiet): S1-S3 at every byte prefix of every real stream, by design; marked so
# it starts first (conftest)
@pytest.mark.slow
@pytest.mark.skipif(not CASES.is_file(), reason=ABSENT)
@pytest.mark.parametrize("clean", [True, False], ids=["clean", "truncated"])
def test_s1_to_s3_hold_on_every_real_stream(clean: bool) -> None:
    bad: list[Any] = []
    for case, wire, protocol, data in jobs():
        report = check_stream(data, protocol, clean, wire=codec(wire))
        if not report.ok:
            bad.append((case, protocol, report.first))
    assert not bad
