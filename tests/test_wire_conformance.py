"""Real model streams from other projects' tests, through Frontier's transducers.

The 73 inputs, their expected calls and the runner live in ``../shared/conformance/``
(sources and licences in ``wire/SOURCES.md``); they are read from there at test time,
never copied here, and every test skips when that directory is absent.

* the runner feeds each case to ``frontier transduce`` at chunk sizes 1, 7 and 4096 and
  must report every counted case passing (its ``frontier transduce`` answered in this
  process, ``tests/conformance_runner.py``; one case through the real command);
* in process, each fixture split at random chunk boundaries must make exactly the calls
  of the one-piece run — no call ever changes, appears early or goes missing — and
  ``frontier check``'s S1–S3 must hold on it, whole and truncated.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chat_wire import CHAT
from conformance_runner import IN_PROCESS, load_runner, run_main
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst.base import calls_of, errors_of
from frontier.app.cst.factory import make_transducer
from frontier.app.cst.props import check_stream
from frontier.app.events import ToolCall

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
RUNNER = SHARED / "wire_cases.py"
CASES = SHARED / "wire" / "cases.json"
ABSENT = f"the wire conformance cases are not here ({CASES} is absent)"


@functools.cache
def jobs() -> tuple[tuple[str, str, bytes], ...]:
    """(case id, protocol, input) for every case and protocol (out-of-scope cases too:
    whatever the expected calls, a chunking must never change Frontier's own)."""
    if not CASES.is_file():
        return ()
    cases = json.loads(CASES.read_text(encoding="utf-8"))["cases"]
    out = []
    for case in cases:
        data = (CASES.parent / case["input"]).read_bytes()
        out += [(case["id"], protocol, data) for protocol in case["protocols"]]
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


@pytest.mark.skipif(not RUNNER.is_file(), reason=ABSENT)
def test_every_wire_case_passes(capsys: pytest.CaptureFixture[str]) -> None:
    # The runner's own code, its `frontier transduce` answered in this process
    # (tests/conformance_runner.py): 303 child processes were this test's 30 s.
    code, out = run_main(load_runner(RUNNER), ["--frontier", IN_PROCESS], capsys)
    failures = [line for line in out.splitlines() if line.startswith("FAIL")]
    last = out.splitlines()[-1] if out else ""
    m = re.fullmatch(r"wire cases: (\d+)/(\d+) passed", last)
    assert m is not None and m[1] == m[2] and int(m[2]) > 0, out
    assert code == 0 and not failures, "\n".join(failures)


@pytest.mark.skipif(not RUNNER.is_file(), reason=ABSENT)
def test_one_wire_case_passes_through_the_installed_command(tmp_path: Path) -> None:
    first = jobs()[0][0]
    res = subprocess.run(
        [sys.executable, str(RUNNER), "--frontier", frontier_command(tmp_path), "--only", first],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0 and res.stdout.splitlines()[-1].startswith("wire cases: "), (
        res.stdout + res.stderr
    )
    assert "FAIL" not in res.stdout and "PASS" in res.stdout, res.stdout


def run(protocol: str, pieces: list[bytes]) -> tuple[list[ToolCall], list[str]]:
    """The calls and error kinds of ``pieces`` fed in turn; fails if a call becomes
    executable before the byte that confirms it has arrived (S1)."""
    t = make_transducer(protocol, wire=CHAT)
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
    case, protocol, data = jobs()[pick % len(jobs())]
    full, full_kinds = run(protocol, [data])
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    pieces = [data[a:b] for a, b in itertools.pairwise(points)]
    calls, kinds = run(protocol, pieces)
    assert calls == full, (case, protocol, points)  # id, name, args and confirming offset
    assert kinds == full_kinds, (case, protocol, points)


@pytest.mark.skipif(not CASES.is_file(), reason=ABSENT)
@pytest.mark.parametrize("clean", [True, False], ids=["clean", "truncated"])
def test_s1_to_s3_hold_on_every_real_stream(clean: bool) -> None:
    bad: list[Any] = []
    for case, protocol, data in jobs():
        report = check_stream(data, protocol, clean, wire=CHAT)
        if not report.ok:
            bad.append((case, protocol, report.first))
    assert not bad
