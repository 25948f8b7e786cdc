"""Every real stream of the wire conformance suites checks as a capture (issue 25).

Each SSE body of ``../shared/conformance/wire/native`` (Chat Completions) and
``../shared/conformance/wire2/native`` (Responses, Anthropic Messages) is given to
``frontier check FILE`` as a person would give a ``curl -N`` capture — no ``--wire``:
the wire must be detected — and the calls its recording makes must be the ones its case
expects (compared by the suite's own runner, ``wire_cases.compare`` /
``wire2_cases.compare``). An out-of-scope case must make exactly the calls
``frontier transduce`` makes of the same bytes. The ``wire/text`` inputs are assistant
text, not captures of a response, and are not read here. Skipped when ``../shared`` is
absent.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from frontier.app.commands import check as check_cmd
from frontier.app.cst.base import calls_of, errors_of
from frontier.app.cst.factory import make_transducer
from frontier.app.events import Event
from frontier.app.model.registry import codec
from frontier.app.session.capture import capture_sources

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
ABSENT = f"the wire conformance cases are not here ({SHARED} is absent)"
SUITES = {"wire": "wire_cases.py", "wire2": "wire2_cases.py"}


@functools.cache
def runner(suite: str) -> ModuleType:
    """The suite's own runner, for its ``compare`` (and ``expectation``)."""
    spec = importlib.util.spec_from_file_location(f"{suite}_cases", SHARED / SUITES[suite])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def jobs() -> tuple[tuple[str, str, dict[str, Any], str], ...]:
    """(suite, file, case, protocol) for every native (SSE) case of both suites."""
    out = []
    for suite in SUITES:
        cases = SHARED / suite / "cases.json"
        if not cases.is_file():
            continue
        for case in json.loads(cases.read_text(encoding="utf-8"))["cases"]:
            file = SHARED / suite / case.get("file", case.get("input", ""))
            for protocol in case["protocols"]:
                if protocol.startswith("native"):
                    out.append((suite, str(file), case, protocol))
    return tuple(out)


def as_runner_events(events: list[Event]) -> list[dict[str, Any]]:
    """Calls and errors in the runners' JSON form (what ``frontier transduce`` prints)."""
    calls = [
        {"type": "call", "id": c.id, "name": c.name, "args": c.json_args()}
        for c in calls_of(events)
    ]
    errors = [{"type": "error", "kind": e.kind, "message": e.message} for e in errors_of(events)]
    return calls + errors


def transduce(data: bytes, protocol: str, wire: str, clean: bool) -> list[Event]:
    t = make_transducer(protocol, wire=codec(wire))
    return [*t.feed(data), *t.finish(clean)]


def test_there_are_cases_to_run() -> None:
    if not SHARED.is_dir():
        pytest.skip(ABSENT)
    assert len(jobs()) > 100


# slow (~13 s quiet for wire2): every conformance stream is read as a capture and checked (S1-S3);
# marked so it starts first (conftest): started last it was the run's last 25 s
@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason=ABSENT)
@pytest.mark.parametrize("suite", list(SUITES))
def test_every_stream_checks_as_a_capture_with_its_expected_calls(
    suite: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad: list[str] = []
    counted = {"in": 0, "out": 0}
    mine = [j for j in jobs() if j[0] == suite]
    for _, file, case, protocol in mine:
        wire = case.get("wire", "openai-chat")
        (source,) = capture_sources(file, protocol=protocol)
        rec = source.recording
        if rec.wire != wire:
            bad.append(f"{case['id']}: detected {rec.wire}, the case is {wire}")
            continue
        got = as_runner_events(transduce(rec.transducer_input(), protocol, wire, rec.clean))
        if suite == "wire2":
            exp, scope, _ = runner(suite).expectation(case, protocol)
            diff = runner(suite).compare(exp, got) if scope == "in" else None
        else:
            scope = case.get("scope", "in")
            diff = runner(suite).compare(case, got) if scope == "in" else None
        if scope != "in":  # out of scope: the capture makes what transduce makes of the bytes
            direct = transduce(Path(file).read_bytes(), protocol, wire, rec.clean)
            diff = None if calls(got) == calls(as_runner_events(direct)) else "calls differ"
            counted["out"] += 1
        else:
            counted["in"] += 1
        if diff:
            bad.append(f"{case['id']} [{protocol}]: {diff}")
        args = argparse.Namespace(sources=[file], protocol=protocol, wire=None, explain=False)
        if check_cmd.main(args) != 0:
            bad.append(f"{case['id']} [{protocol}]: frontier check failed")
    _, err = capsys.readouterr()
    assert not bad, "\n".join(bad)
    assert counted["in"] > counted["out"], counted
    assert err.count("capture: raw SSE") == len(mine)  # what was detected, said each time


def calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "call"]
