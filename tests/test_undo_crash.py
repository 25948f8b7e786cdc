"""An undo killed (SIGKILL) between its commit and its write: never a torn file, and the
next start finishes or reports it.

The session's last change is a real three-file patch (5,000 lines a file, so a torn write
would show). ``frontier undo SESSION --yes`` then runs in its own process
(``session_helpers/undo_driver.py``), paused at a chosen instant — its call row committed
but no file touched; between its journaled renames; every file written but the result not
committed — and killed there. What the kill leaves is checked file by file; then the next
``frontier undo`` opens the session, and its recovery reconciles the killed undo from the
intent journal and the hashes: a write that had begun is rolled forward (the undo is
``applied``, so nothing is left to undo), one that had not is ``not_applied`` (and the
undo can simply run again).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from frontier.app.agent.undo import split_undone
from frontier.app.cli import main as cli
from frontier.app.events import ToolCall
from frontier.app.session.store import SessionStore
from frontier.tools.atomic import OLD_SUFFIX, TEMP_SUFFIX

sys.path.insert(0, str(Path(__file__).parent))
from session_helpers import proc
from session_helpers.driver import PATCH_FILES, patch_contents, patch_text

UNDO_DRIVER = Path(__file__).parent / "session_helpers" / "undo_driver.py"

pytestmark = pytest.mark.slow


class UndoDriver(proc.Driver):
    """``undo_driver.py`` under the test's control (its own process group)."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(UNDO_DRIVER), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        import queue
        import threading

        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()


drivers = pytest.fixture(proc.drivers)


async def patched_session(ws: Path) -> str:
    """A stored session whose last change is the three-file patch (pre → post)."""
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.policy import PolicyApprover
    from frontier.tools.registry import default_registry

    (ws / "sub").mkdir(parents=True)
    for name in PATCH_FILES:
        (ws / name).write_bytes(patch_contents(name)[0])
    with SessionStore.open() as store:
        sid = store.create_session(str(ws), "driver", None, "ctl")
        boundary = ToolBoundary(
            default_registry(), ws, PolicyApprover("auto"), store.persistence(sid)
        )
        result = await boundary.run(ToolCall("c1", "apply_patch", {"patch": patch_text()}))
        assert result.ok, result.output
    for name in PATCH_FILES:
        assert (ws / name).read_bytes() == patch_contents(name)[1]
    return sid


STOPS = {
    "before-write": "not_applied",
    "renamed-0": "applied",
    "renamed-1": "applied",
    "renamed-2": "applied",
    "before-result": "applied",
}
"""Where the undo is killed → how recovery reconciles it. Once the journal is committed
(before the first rename) every temp is durable, so the write is finished."""


@pytest.mark.parametrize("stop", sorted(STOPS))
def test_a_killed_undo_is_finished_or_reported_never_torn(
    tmp_path: Path, drivers: list[proc.Driver], stop: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    sid = asyncio.run(patched_session(ws))
    d = UndoDriver(sid, "--stop", stop)
    drivers.append(d)
    d.expect("STARTED u1")  # the undo's call row and start are committed
    d.expect("PAUSED")
    d.kill()

    states = []
    for name in PATCH_FILES:
        pre, post = patch_contents(name)
        data = (ws / name).read_bytes()
        assert data in (pre, post), f"{name} is torn ({len(data)} bytes)"
        states.append("restored" if data == pre else "as the patch left it")
    if stop.startswith("renamed-"):
        assert states.count("restored") == int(stop.split("-")[1])

    # the next start of the session (here: another `frontier undo`) reconciles it first
    code = cli(["undo", sid, "--yes"])
    err = capsys.readouterr().err
    expected = STOPS[stop]
    assert f"recovered u1 undo (in flight when its process stopped): {expected}" in err
    for name in PATCH_FILES:  # whole again: every file as it was before the patch
        assert (ws / name).read_bytes() == patch_contents(name)[0]
    if expected == "applied":
        assert code == 1 and "nothing to undo" in err  # the killed undo counts as done
    else:
        assert code == 0  # it had written nothing: this undo did the work
    leftovers = [p.name for p in ws.rglob("*") if p.name.endswith((TEMP_SUFFIX, OLD_SUFFIX))]
    assert leftovers == []
    with SessionStore.open() as store:
        calls = store.calls(sid)
        killed = next(c for c in calls if c.call_id == "u1")
        assert killed.result is not None and killed.result.kind == expected
        assert store.unresolved_calls(sid) == []
        # what the model hears when the session is resumed
        _, notes = split_undone(store.undelivered_results(sid))
    assert notes, "the model is told of the undo"
