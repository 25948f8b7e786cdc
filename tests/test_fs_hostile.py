"""A hostile workspace: links swapped in after the review, FIFOs, loops, racing writers, and a
SIGKILL between the renames of a multi-file write (DESIGN §5)."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_tools_fakes import FakeStore, call, make_boundary, model_has_read

from frontier.app.events import ToolCall
from frontier.tools import atomic, beneath
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.patch_engine import PatchError, apply_patch

MUTATIONS = {
    "write": lambda p: {"path": p, "content": "new\n"},
    "replace": lambda p: {"path": p, "old": "old", "new": "NEW"},
    "multi": lambda p: {"path": p, "edits": [{"old": "old", "new": "NEW"}]},
    "apply_patch": lambda p: {"patch": f"--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-old\n+NEW\n"},
}


@dataclass
class Swapper:
    """Approves, but first swaps ``ws/sub`` for a link to ``target`` (as a git checkout or a
    background job might, during the review)."""

    ws: Path
    target: Path
    seen: list[Preview] = field(default_factory=list)

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        self.seen.append(preview)
        sub = self.ws / "sub"
        sub.rename(self.ws / "sub-moved")
        sub.symlink_to(self.target)
        return Decision(True)


@pytest.mark.parametrize("tool", sorted(MUTATIONS))
@pytest.mark.parametrize("where", ["outside", "inside"])
async def test_a_folder_swapped_for_a_link_after_review_cannot_redirect_the_write(
    tmp_path: Path, tool: str, where: str
) -> None:
    ws, out = tmp_path / "ws", tmp_path / "out"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "f.txt").write_text("old\n")
    (ws / "elsewhere").mkdir()
    (ws / "elsewhere" / "f.txt").write_text("old\n")
    out.mkdir()
    (out / "f.txt").write_text("old\n")
    target = out if where == "outside" else ws / "elsewhere"
    approver = Swapper(ws, target)
    boundary = make_boundary(ws, approver=approver, store=FakeStore())
    model_has_read(boundary, "sub/f.txt")
    result = await boundary.run(call(tool, 1, **MUTATIONS[tool]("sub/f.txt")))
    assert approver.seen, "the call reached the review"
    assert result.kind == "error"
    assert "outside the workspace" in result.output or "now resolves to" in result.output
    assert "nothing written" in result.output
    assert (out / "f.txt").read_text() == "old\n"
    assert (ws / "elsewhere" / "f.txt").read_text() == "old\n"
    assert (ws / "sub-moved" / "f.txt").read_text() == "old\n"
    assert sorted(p.name for p in out.iterdir()) == ["f.txt"]


@pytest.mark.parametrize("tool", ["read", *sorted(MUTATIONS)])
async def test_a_fifo_is_refused_never_opened_for_reading(tmp_path: Path, tool: str) -> None:
    os.mkfifo(tmp_path / "pipe")
    args = {"path": "pipe"} if tool == "read" else MUTATIONS[tool]("pipe")
    boundary = make_boundary(tmp_path, store=FakeStore())
    result = await boundary.run(call(tool, 1, **args))
    assert result.kind == "error"
    assert "pipe is a FIFO (named pipe), not a regular file" in result.output


def test_links_inside_are_followed_links_out_and_loops_are_refused(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "real").mkdir(parents=True)
    (ws / "real" / "f.txt").write_text("x\n")
    (ws / "alias").symlink_to("real")
    (ws / "abs").symlink_to(ws / "real")
    (ws / "out").symlink_to(tmp_path)
    (ws / "up").symlink_to("..")
    (ws / "loop1").symlink_to("loop2")
    (ws / "loop2").symlink_to("loop1")
    assert beneath.read_file(ws, "alias/f.txt")[0] == b"x\n"
    assert beneath.read_file(ws, "abs/f.txt")[0] == b"x\n"
    assert beneath.resolve_rel(ws, "alias/../real/f.txt") == "real/f.txt"
    for path in ("out/ws/real/f.txt", "up/ws/real/f.txt", "../ws/real/f.txt", str(tmp_path)):
        with pytest.raises(beneath.PathError, match="outside the workspace"):
            beneath.read_file(ws, path)
    with pytest.raises(OSError, match="too many levels of symbolic links"):
        beneath.read_file(ws, "loop1")


@pytest.mark.parametrize(
    ("setup", "path", "message"),
    [
        (None, "x" * 300, "the name is too long for the file system"),
        ("loop", "loop1/x.txt", "symbolic link loop"),
        ("file", "f.txt/x.txt", "is a file, not a folder"),
    ],
    ids=["name-too-long", "link-loop", "file-as-folder"],
)
async def test_os_errors_get_plain_messages(
    tmp_path: Path, setup: str | None, path: str, message: str
) -> None:
    if setup == "loop":
        (tmp_path / "loop1").symlink_to("loop2")
        (tmp_path / "loop2").symlink_to("loop1")
    elif setup == "file":
        (tmp_path / "f.txt").write_text("x\n")
    boundary = make_boundary(tmp_path, store=FakeStore())
    for tool in ("read", "write"):
        args = {"path": path} if tool == "read" else {"path": path, "content": "y\n"}
        result = await boundary.run(call(tool, 1, **args))
        assert result.kind in ("error", "arg"), result
        assert message in result.output
        assert "internal error" not in result.output


def test_racing_writers_never_lose_an_update(tmp_path: Path) -> None:
    """Eight writers each read the counter, then write it plus one: every write that reports
    success is in the final value (the check and the rename are one step under a lock)."""
    (tmp_path / "n.txt").write_text("0\n")
    wins = []

    def writer() -> None:
        for _ in range(40):
            old = (tmp_path / "n.txt").read_bytes()
            new = b"%d\n" % (int(old) + 1)
            try:
                atomic.commit_files(tmp_path, [atomic.FileWrite("n.txt", new, old=old)])
            except atomic.ChangedSinceReview:
                continue
            wins.append(1)

    threads = [threading.Thread(target=writer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int((tmp_path / "n.txt").read_text()) == len(wins) > 0


# ----------------------------------------------------------------------------- crash atomicity

FILES = {"a.txt": b"a0\n", "sub/b.txt": b"b0\n", "c.txt": b"c0\n"}
NEW = {"a.txt": b"a1\n", "sub/b.txt": b"b1\n", "c.txt": None, "d/new.txt": b"d1\n"}


class FileJournal:
    """The store's journal, as a JSON file: ``begin`` is durable before it returns."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def begin(self, entries: Any) -> None:
        self.path.write_text(json.dumps({"entries": list(entries), "state": "open"}))
        fd = os.open(self.path, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)

    def end(self, outcome: str) -> None:
        data = json.loads(self.path.read_text())
        self.path.write_text(json.dumps({**data, "state": outcome}))


def _setup(ws: Path) -> None:
    for name, data in FILES.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_bytes(data)


def _writes() -> list[atomic.FileWrite]:
    return [atomic.FileWrite(n, NEW[n], old=FILES.get(n)) for n in NEW]


def _crash_run(ws: Path, journal: Path, crash_at: int) -> int:
    """Fork: the child writes and SIGKILLs itself (``os._exit``, no cleanup) at step
    ``crash_at``; returns how many steps the child passed."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest, no cleanup, no finally blocks once it dies
        os.close(r)
        passed = 0

        def point(step: str) -> None:
            nonlocal passed
            if passed == crash_at:
                os.write(w, b"%d" % passed)
                os._exit(137)
            passed += 1

        atomic._crash_point = point  # type: ignore[assignment]
        try:
            atomic.commit_files(ws, _writes(), journal=FileJournal(journal))
        except BaseException:
            os._exit(1)
        os.write(w, b"%d" % passed)
        os._exit(0)
    os.close(w)
    _, status = os.waitpid(pid, 0)
    passed = int(os.read(r, 64) or b"-1")
    os.close(r)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) in (0, 137)
    return passed


def _tree(ws: Path) -> dict[str, bytes]:
    return {
        p.relative_to(ws).as_posix(): p.read_bytes()
        for p in sorted(ws.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_a_sigkill_at_any_step_of_a_multi_file_write_leaves_it_whole_or_absent(
    tmp_path: Path,
) -> None:
    before = dict(FILES)
    after = {k: v for k, v in NEW.items() if v is not None}
    full = _crash_run(_fresh(tmp_path / "probe"), tmp_path / "probe.json", crash_at=10_000)
    assert full >= 8  # temps, pre-images, renames, pre-image removal
    outcomes = set()
    for k in range(full + 1):
        ws = _fresh(tmp_path / f"ws{k}")
        journal = tmp_path / f"j{k}.json"
        _crash_run(ws, journal, crash_at=k)
        if journal.exists() and json.loads(journal.read_text())["state"] == "open":
            outcomes.add(atomic.recover_intent(ws, json.loads(journal.read_text())["entries"]))
        else:  # no journal committed yet: the session's recovery only removes the copies
            atomic.remove_leftovers(ws, list(NEW))
        state = _tree(ws)
        assert state in (before, after), f"crash at step {k}: half applied: {state}"
        if not journal.exists():  # died before the journal: nothing may have been renamed
            assert state == before
    assert "rolled forward" in outcomes


def _fresh(ws: Path) -> Path:
    ws.mkdir(parents=True)
    _setup(ws)
    return ws


def test_a_failed_rename_puts_every_file_back_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(tmp_path)
    calls = {"n": 0}
    real = atomic._replace

    def full_disk(src: str, dst: str, dir_fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        real(src, dst, dir_fd)

    monkeypatch.setattr(atomic, "_replace", full_disk)
    with pytest.raises(atomic.AtomicWriteError) as info:
        atomic.commit_files(tmp_path, _writes())
    assert "No space left on device" in str(info.value)
    assert "the 2 file(s) already written were put back; nothing changed on disk" in str(info.value)
    assert _tree(tmp_path) == FILES


def test_apply_patch_refuses_a_patch_through_a_link_out(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "link").symlink_to(tmp_path)
    with pytest.raises(PatchError, match="outside the workspace"):
        apply_patch(ws, "--- /dev/null\n+++ b/link/evil.txt\n@@ -0,0 +1 @@\n+x\n")
    assert not (tmp_path / "evil.txt").exists()
