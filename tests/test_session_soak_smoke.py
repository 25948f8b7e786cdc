"""Kill a real headless demo at chosen events, recover, resume: nothing lost, nothing twice.

The fast sibling of ``bench/crash_soak.py`` (whose checks it reuses): three
``frontier demo --headless --json`` runs, each SIGKILLed right after a given
JSON event line arrives on stdout — not after a delay — then the store is
reopened, the session recovered and resumed to the end. Where the kill lands
within a window (e.g. before or after the patch's call row was committed)
varies with scheduling; the invariants asserted hold for every position.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import crash_soak
from crash_soak import Check, DemoProcess, DemoStates, RunDir

pytestmark = pytest.mark.slow

WAIT_S = 60.0


@pytest.fixture(scope="module")
def states() -> DemoStates:
    return DemoStates.compute()


@pytest.fixture(scope="module")
def pycache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One bytecode cache for the module's runs (compiled once, outside every workspace)."""
    return tmp_path_factory.mktemp("pycache")


@pytest.fixture
def started() -> Iterator[list[DemoProcess]]:
    """Every run a test starts is killed (process group + tool groups) if still alive."""
    procs: list[DemoProcess] = []
    yield procs
    for proc in procs:
        if proc.proc.poll() is None:
            proc.kill()


def kill_at_event(
    tmp_path: Path,
    pycache: Path,
    states: DemoStates,
    started: list[DemoProcess],
    match: Callable[[dict[str, Any]], bool],
) -> tuple[RunDir, Check]:
    run = RunDir(tmp_path / "run", pycache)
    proc = crash_soak.start_demo(run, rate=0)
    started.append(proc)
    proc.wait_event(match, WAIT_S)
    proc.kill()
    assert proc.proc.returncode == -9, "the run must die by SIGKILL, not finish"
    check = crash_soak.inspect_killed(run, proc.events(), states)
    assert check.session is not None, "the session row exists before any tool runs"
    return run, check


def assert_clean(check: Check) -> None:
    assert check.lost == []
    assert check.duplicated == []
    assert check.torn == []
    assert check.unreconciled == []
    assert check.misreconciled == []
    assert check.resume_failed == []


def test_kill_while_the_test_run_shell_call_runs(
    tmp_path: Path, pycache: Path, states: DemoStates, started: list[DemoProcess]
) -> None:
    run, check = kill_at_event(
        tmp_path,
        pycache,
        states,
        started,
        lambda e: e["type"] == "tool_started" and e["name"] == "shell",
    )
    # mark_started is committed before the command spawns; the test run takes ~0.2 s,
    # so the kill lands while it runs: the outcome is unknown, never re-run blindly.
    assert check.phase == "during"
    assert check.recovered == ["interrupted"]
    assert check.detail == "c3 shell → interrupted"
    assert_clean(check)

    crash_soak.resume_and_check(run, check, states, rate=0)
    assert_clean(check)
    assert check.resume == "final state"


def test_kill_right_after_the_apply_patch_call_is_confirmed(
    tmp_path: Path, pycache: Path, states: DemoStates, started: list[DemoProcess]
) -> None:
    run, check = kill_at_event(
        tmp_path,
        pycache,
        states,
        started,
        lambda e: e["type"] == "call" and e["name"] == "apply_patch",
    )
    # The kill lands somewhere between "not persisted yet" and "applied, result
    # committed"; whichever it is, both files are whole, and a persisted call is
    # reconciled by hashes into exactly what the disk shows.
    assert check.phase in ("before", "during", "after")
    assert set(check.recovered) <= {"not_applied", "applied"}
    assert len(check.recovered) <= 1
    assert_clean(check)
    patched = [
        (check.workspace / p).read_bytes() == states.final[p]
        for p in crash_soak.MUTATION_FILES["patch"]
    ]
    assert patched in ([True, True], [False, False]), "the two-file patch is all or nothing"

    crash_soak.resume_and_check(run, check, states, rate=0)
    assert_clean(check)
    # A patch the kill left unapplied (reconciled not_applied, or never persisted) is
    # offered again by the demo on resume (demo.story_position); one already applied is
    # not. Either way the story ends in the final state, the patch applied once.
    assert check.resume == "final state", (patched, check.resume_failed)
    assert check.duplicated == []


def test_kill_right_after_a_tool_finished(
    tmp_path: Path, pycache: Path, states: DemoStates, started: list[DemoProcess]
) -> None:
    run, check = kill_at_event(
        tmp_path,
        pycache,
        states,
        started,
        lambda e: e["type"] == "tool_finished" and e["name"] == "write",
    )
    # tool_finished is printed after the result commit: the write is never reconciled,
    # and NOTES.md is whole and exactly the write's post-image. The kill lands when this
    # test reads that line; on a loaded machine the run has often gone on by then to
    # start the demo's next call (`c5`, a shell command), whose outcome is unknown:
    # reconciled `interrupted`, never run again.
    assert "write" not in check.detail, check.detail
    if check.recovered:
        assert (check.phase, check.recovered) == ("during", ["interrupted"])
        assert check.detail == "c5 shell → interrupted", check.detail
    else:
        assert check.phase in ("after", "before")
    assert (check.workspace / "NOTES.md").read_bytes() == states.final["NOTES.md"]
    assert_clean(check)

    crash_soak.resume_and_check(run, check, states, rate=0)
    assert_clean(check)
    assert check.resume == "final state"
    # The write ran exactly once across the crash and the resume.
    with crash_soak_store(run) as store:
        writes = [c for c in store.calls(check.session) if c.name == "write"]
    assert [c.result.kind for c in writes if c.result] == ["ok"]


def crash_soak_store(run: RunDir):  # type: ignore[no-untyped-def]
    from frontier.app.session.store import SessionStore

    return SessionStore.open(run.db)


def test_a_result_committed_just_before_the_kill_reaches_the_model_on_resume(
    tmp_path: Path, pycache: Path, states: DemoStates, started: list[DemoProcess]
) -> None:
    run, check = kill_at_event(
        tmp_path,
        pycache,
        states,
        started,
        lambda e: e["type"] == "tool_finished" and e["name"] == "replace" and e["kind"] == "ok",
    )
    assert_clean(check)
    crash_soak.resume_and_check(run, check, states, rate=0)
    assert_clean(check)
    assert check.unseen == []
