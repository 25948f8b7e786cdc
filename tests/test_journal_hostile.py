"""A crafted intent journal (issue 21, item 8): recovery trusts nothing a store says.

A session store travels (people send each other sessions to debug), and recovery renames
and deletes the files an open intent row names. Each case here starts from the entries a
real write journals, changes one field the way an attacker would, commits the row into a
real store with plain ``sqlite3`` (as someone editing the file would), and recovers: the
victim files outside the workspace survive, nothing inside changes, the row is closed
``invalid: …`` and the reconciled result says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from frontier.app.events import ToolCall, ToolResult
from frontier.app.model.demo_script import DEMO_MODEL
from frontier.app.model.wires.demo import DEMO_BASE_URL
from frontier.app.session.recover import INVALID, REFUSED_HEAD
from frontier.app.session.store import SessionStore
from frontier.tools import atomic
from frontier.tools.contract import FilePreview, Preview, ToolSpec
from frontier.tools.workspace_files import (
    NOTHING_TO_FINISH,
    BeneathFiles,
    InvalidIntent,
    check_intent,
)

PATCH = ToolSpec("apply_patch", "", {}, sequential=True, mutates=True, kind="edit")
OLD = {"a.txt": b"old a\n", "sub/b.txt": b"old b\n"}
NEW = {"a.txt": b"new a\n", "sub/b.txt": b"new b\n"}


def h(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


class Captured:
    """``contract.IntentJournal`` that keeps the entries and refuses to begin, so the write
    stops before its first rename: real entries, an unchanged workspace, no leftovers."""

    entries: list[dict[str, Any]]

    def begin(self, entries: Sequence[Mapping[str, Any]]) -> None:
        self.entries = [dict(e) for e in entries]
        raise OSError("captured")

    def end(self, outcome: str) -> None:
        raise AssertionError("a journal that did not begin is never ended")


def genuine_entries(ws: Path, writes: Mapping[str, bytes | None] = NEW) -> list[dict[str, Any]]:
    journal = Captured()
    with pytest.raises(OSError, match="captured"):
        atomic.commit_files(
            ws,
            [atomic.FileWrite(p, data, (ws / p).read_bytes()) for p, data in writes.items()],
            journal=journal,
        )
    return journal.entries


def tree(base: Path) -> dict[str, bytes]:
    """Every file beneath ``base`` (the workspace and the victims beside it) with its bytes."""
    return {
        p.relative_to(base).as_posix(): p.read_bytes()
        for p in sorted(base.rglob("*"))
        if p.is_file() and p.suffix != ".db" and ".db-" not in p.name
    }


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """``tmp_path/ws`` (the workspace) beside ``victim.txt`` and ``outside/victim.txt``."""
    ws = tmp_path / "ws"
    for path, data in OLD.items():
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_bytes(data)
    (tmp_path / "victim.txt").write_text("precious\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim.txt").write_text("precious too\n")
    return tmp_path, ws


def store_with_crafted_intent(db: Path, ws: Path, body: str, *, demo: bool = False) -> str:
    """A session whose apply_patch call has no result, and an open intent row ``body``
    written straight into the file (``sqlite3``, not the store's API)."""
    with SessionStore.open(db) as store:
        sid = store.create_session(
            str(ws), DEMO_MODEL if demo else "m", DEMO_BASE_URL if demo else None, "ctl-heredoc"
        )
        files = tuple(FilePreview(p, None, None, "", h(OLD[p]), h(NEW[p])) for p in OLD)
        persistence = store.persistence(sid)
        persistence.persist_call(
            ToolCall("p1", "apply_patch", {"patch": "…"}), PATCH, Preview("diff", files)
        )
        persistence.mark_started("p1")
        store.set_state(sid, "interrupted")
    with sqlite3.connect(db) as c:
        c.execute(
            "INSERT INTO intents (session_id, call_id, t, entries) VALUES (?, ?, ?, ?)",
            (sid, "p1", time.time(), body),
        )
    return sid


def intent_states(db: Path) -> list[str]:
    with sqlite3.connect(db) as c:
        return [state for (state,) in c.execute("SELECT state FROM intents ORDER BY id")]


Edit = Callable[[list[dict[str, Any]], Path], object]


def _set(index: int, key: str, value: Callable[[Path], object]) -> Edit:
    def edit(entries: list[dict[str, Any]], base: Path) -> object:
        entries[index][key] = value(base)
        return entries

    return edit


def _drop(key: str) -> Edit:
    def edit(entries: list[dict[str, Any]], base: Path) -> object:
        del entries[0][key]
        return entries

    return edit


CASES: dict[str, Edit] = {
    "temp-dotdot": _set(0, "temp", lambda base: "../victim.txt"),
    "pre-image-absolute": _set(0, "pre_image", lambda base: str(base / "victim.txt")),
    "temp-absolute": _set(0, "temp", lambda base: str(base / "outside" / "victim.txt")),
    "temp-in-a-subfolder": _set(1, "temp", lambda base: "../../outside/victim.txt"),
    "name-dotdot": _set(0, "name", lambda base: "../victim.txt"),
    "name-with-a-slash": _set(0, "name", lambda base: "sub/b.txt"),
    "dir-dotdot": _set(1, "dir", lambda base: "sub/../.."),
    "dir-absolute": _set(1, "dir", lambda base: str(base / "outside")),
    "temp-of-another-file": _set(0, "temp", lambda base: ".victim.txt.0123456789ab.frontier-tmp"),
    "temp-wrong-random": _set(0, "temp", lambda base: ".a.txt.0123.frontier-tmp"),
    "pre-image-with-temp-suffix": _set(
        0, "pre_image", lambda base: ".a.txt.0123456789ab.frontier-tmp"
    ),
    "before-not-a-hash": _set(0, "before", lambda base: "../victim.txt"),
    "after-a-number": _set(0, "after", lambda base: 42),
    "temp-without-new-content": _set(0, "temp", lambda base: None),
    "key-missing": _drop("pre_image"),
    "entries-an-object": lambda entries, base: {"entries": entries},
    "entry-a-string": lambda entries, base: ["../victim.txt", *entries],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_crafted_journal_is_closed_invalid_and_touches_nothing(
    world: tuple[Path, Path], case: str
) -> None:
    base, ws = world
    entries = genuine_entries(ws)
    assert check_intent(entries) is None  # what the writer writes passes
    body = json.dumps(CASES[case](entries, base))
    db = base / "sessions.db"
    sid = store_with_crafted_intent(db, ws, body)
    before = tree(base)

    with SessionStore.open(db) as store:
        (result,) = store.recover(sid, files=BeneathFiles)

    assert tree(base) == before  # the victims outside and every file inside, byte for byte
    (state,) = intent_states(db)
    assert state.startswith(f"{INVALID}: ") and state.endswith("nothing was touched"), state
    assert result.meta["journal"] == state
    assert result.output.startswith(REFUSED_HEAD + "\n")
    assert "is not one Frontier writes" in result.output
    assert "recovery touched no file" in result.output
    assert result.kind == "not_applied"  # decided from the files, as found
    assert "\x1b" not in result.output


def test_every_entry_is_checked_before_any_file_is_touched(world: tuple[Path, Path]) -> None:
    """A real interrupted write (one file renamed, temps and pre-images on disk) whose
    second entry was edited: not even the genuine first entry is acted on."""
    base, ws = world
    entries = killed_after_first_rename(ws, base / "journal.json")
    assert (ws / "a.txt").read_bytes() == NEW["a.txt"]  # half applied, leftovers on disk
    assert len(leftovers(ws)) == 3  # b's temp, both pre-images
    entries[1]["pre_image"] = str(base / "victim.txt")
    db = base / "sessions.db"
    sid = store_with_crafted_intent(db, ws, json.dumps(entries))
    before = tree(base)
    with SessionStore.open(db) as store:
        (result,) = store.recover(sid, files=BeneathFiles)
    assert tree(base) == before
    assert result.kind == "diverged"  # half applied, as found: the model is told to look
    assert intent_states(db)[0].startswith(f"{INVALID}: entry 2 of 2: pre_image ")


def leftovers(ws: Path) -> list[str]:
    return sorted(
        p.name for p in ws.rglob(".*") if p.name.endswith((atomic.TEMP_SUFFIX, atomic.OLD_SUFFIX))
    )


class DurableJournal:
    """``contract.IntentJournal`` as a JSON file, durable before ``begin`` returns."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def begin(self, entries: Sequence[Mapping[str, Any]]) -> None:
        with self.path.open("w") as fh:
            json.dump([dict(e) for e in entries], fh)
            fh.flush()
            os.fsync(fh.fileno())

    def end(self, outcome: str) -> None:
        self.path.unlink()


def killed_after_first_rename(ws: Path, journal: Path) -> list[dict[str, Any]]:
    """The write of ``NEW`` in a forked child that dies (``os._exit``: no cleanup runs, as
    under SIGKILL) just before its second rename; the entries it journaled."""
    pid = os.fork()
    if pid == 0:  # the child: no pytest, no finally blocks once it dies
        renames = 0

        def point(step: str) -> None:
            nonlocal renames
            if step == "rename":
                if renames == 1:
                    os._exit(137)
                renames += 1

        atomic._crash_point = point  # type: ignore[assignment]
        try:
            writes = [atomic.FileWrite(p, NEW[p], OLD[p]) for p in OLD]
            atomic.commit_files(ws, writes, journal=DurableJournal(journal))
        except BaseException:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 137
    entries: list[dict[str, Any]] = json.loads(journal.read_text())
    return entries


@pytest.mark.parametrize(
    "body", ["{not json", "null", '"entries"', "[[[[" * 50_000 + "]]]]" * 50_000]
)
def test_a_row_that_is_not_json_is_closed_invalid(world: tuple[Path, Path], body: str) -> None:
    base, ws = world
    db = base / "sessions.db"
    sid = store_with_crafted_intent(db, ws, body)
    before = tree(base)
    with SessionStore.open(db) as store:
        (result,) = store.recover(sid, files=BeneathFiles)
    assert tree(base) == before
    assert intent_states(db)[0].startswith(f"{INVALID}: ")
    assert "recovery touched no file" in result.output


def _entry(path: str, before: bytes | None, after: bytes | None) -> dict[str, Any]:
    """A journal entry of the right shape for ``path``, its temp and pre-image names made up
    (no writer made them: the random part is a constant)."""
    folder, _, name = path.rpartition("/")
    return {
        "path": path,
        "dir": folder or ".",
        "name": name,
        "temp": None if after is None else f".{name}.0123456789ab{atomic.TEMP_SUFFIX}",
        "pre_image": None if before is None else f".{name}.ba9876543210{atomic.OLD_SUFFIX}",
        "before": h(before),
        "after": h(after),
    }


WELL_FORMED = {
    # "delete a.txt, whose content I know" (rolled forward: a deletion needs no temp)
    "forward-deletes": [_entry("a.txt", OLD["a.txt"], None)],
    # "sub/b.txt was created by this write" + a target that changed since (rolled back:
    # the creation undone, the file deleted)
    "back-deletes": [_entry("sub/b.txt", None, OLD["sub/b.txt"]), _entry("a.txt", b"x", b"y")],
}


@pytest.mark.parametrize("case", sorted(WELL_FORMED))
def test_a_well_formed_journal_naming_files_nobody_made_deletes_nothing(
    world: tuple[Path, Path], case: str
) -> None:
    """Right shapes, made up, from someone who knows a file's content (a LICENSE, a README).
    A real write's leftovers carry 48 random bits; with none of them on disk the journal is
    no write interrupted here, and nothing is done."""
    base, ws = world
    entries = WELL_FORMED[case]
    assert check_intent(entries) is None
    db = base / "sessions.db"
    sid = store_with_crafted_intent(db, ws, json.dumps(entries))
    before = tree(base)
    with SessionStore.open(db) as store:
        store.recover(sid, files=BeneathFiles)
    assert tree(base) == before
    assert intent_states(db) == [NOTHING_TO_FINISH]


def test_finish_write_refuses_on_its_own(world: tuple[Path, Path]) -> None:
    """Whoever calls it (the CLI's journal, a future caller) gets the same check."""
    base, ws = world
    entries = genuine_entries(ws)
    entries[0]["temp"] = "../victim.txt"
    with pytest.raises(InvalidIntent, match=r"temp '\.\./victim\.txt' is not a temp name"):
        BeneathFiles(ws).finish_write(entries)
    assert (base / "victim.txt").read_text() == "precious\n"


@pytest.mark.parametrize(
    "name",
    [
        "plain.txt",
        "with space and ünïcode ✓.md",
        "-starts-with-dash",
        ".hidden",
        "dots.in.the.name.frontier-tmp",
        "x" * 250,  # the writer keeps the first 180 characters of a long name
        "[regex](chars)+*?.txt",
    ],
)
def test_whatever_the_writer_names_passes_the_check(tmp_path: Path, name: str) -> None:
    (tmp_path / "d").mkdir()
    for p in (name, f"d/{name}"):
        (tmp_path / p).write_text("old\n")
    entries = genuine_entries(tmp_path, {name: b"new\n", f"d/{name}": None})
    assert check_intent(entries) is None
    assert [e["dir"] for e in entries] == [".", "d"]


def test_frontier_resume_with_a_crafted_journal_tells_and_touches_nothing(
    world: tuple[Path, Path],
) -> None:
    """As a person would meet it: a session someone sent, resumed with the real CLI."""
    base, ws = world
    entries = genuine_entries(ws)
    entries[0]["temp"] = "../victim.txt"
    entries[1]["pre_image"] = str(base / "outside" / "victim.txt")
    db = Path(os.environ["FRONTIER_DATA_DIR"]) / "sessions.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    sid = store_with_crafted_intent(db, ws, json.dumps(entries), demo=True)
    before = tree(base)
    env = {**os.environ, "TMPDIR": str(base)}
    result = subprocess.run(
        [
            sys.executable, "-m", "frontier.app.cli", "resume", sid, "--headless",
            "--prompt", "go on", "--rate", "0", "--approval", "read-only",
        ],
        capture_output=True, text=True, timeout=120, env=env, cwd=base,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    assert (base / "victim.txt").read_text() == "precious\n"
    assert (base / "outside" / "victim.txt").read_text() == "precious too\n"
    after = tree(base)
    assert {k: v for k, v in after.items() if k in before} == before
    (state,) = intent_states(db)
    assert state.startswith(f"{INVALID}: entry 1 of 2: temp '../victim.txt'"), state
    assert f"p1 apply_patch not_applied 0.00s  {REFUSED_HEAD}" in result.stdout


# ------------------------------------------------ recover_intent checks on its own (item 8)


@pytest.mark.parametrize("case", sorted(CASES))
def test_recover_intent_itself_refuses_a_crafted_journal(
    world: tuple[Path, Path], case: str
) -> None:
    """Defence in depth: the writer's own recovery checks what it is given, whoever calls
    it (not only the session's recovery, which checks first)."""
    base, ws = world
    entries = genuine_entries(ws)
    crafted = json.loads(json.dumps(CASES[case](entries, base)))
    before = tree(base)
    with pytest.raises(InvalidIntent):
        atomic.recover_intent(ws, crafted)
    assert tree(base) == before


@pytest.mark.parametrize("case", sorted(WELL_FORMED))
def test_recover_intent_itself_ignores_a_journal_naming_files_nobody_made(
    world: tuple[Path, Path], case: str
) -> None:
    base, ws = world
    before = tree(base)
    assert atomic.recover_intent(ws, WELL_FORMED[case]) == NOTHING_TO_FINISH
    assert tree(base) == before


def test_recover_intent_still_finishes_a_real_interrupted_write(world: tuple[Path, Path]) -> None:
    base, ws = world
    entries = killed_after_first_rename(ws, base / "journal.json")
    assert atomic.recover_intent(ws, entries) == "rolled forward"
    assert {p: (ws / p).read_bytes() for p in NEW} == NEW and leftovers(ws) == []


# ----------------------------------------------- a journal that cannot be closed (item 7/8)


class Unclosable(DurableJournal):
    """A journal whose ``end`` fails, as a full disk or a broken store would make it."""

    def end(self, outcome: str) -> None:
        self.outcome = outcome
        raise OSError(28, "No space left on device")


def test_a_journal_that_cannot_be_closed_after_the_write_is_said_not_swallowed(
    world: tuple[Path, Path],
) -> None:
    base, ws = world
    journal = Unclosable(base / "journal.json")
    stop = atomic.WriteStop()
    with pytest.raises(atomic.JournalNotClosed) as caught:
        atomic.commit_files(
            ws, [atomic.FileWrite(p, NEW[p], OLD[p]) for p in OLD], journal=journal, stop=stop
        )
    assert str(caught.value) == (
        "the write is complete: every file has its new content. But its intent journal could "
        "not be closed ([Errno 28] No space left on device): the session store (or the journal "
        "file) is failing; check the disk and the data dir. The files are as just said, and "
        "recovery will leave them so"
    )
    assert stop.unrecorded is caught.value  # what the tool boundary reads back
    assert journal.outcome == "done"
    assert {p: (ws / p).read_bytes() for p in NEW} == NEW and leftovers(ws) == []
    # the journal stays open, and recovery at the next start agrees: nothing to do
    assert atomic.recover_intent(ws, json.loads(journal.path.read_text())) == NOTHING_TO_FINISH
    assert {p: (ws / p).read_bytes() for p in NEW} == NEW


def test_a_journal_that_cannot_be_closed_after_a_rollback_says_what_was_put_back(
    world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, ws = world
    real = atomic._replace
    renames = []

    def second_fails(src: str, dst: str, dir_fd: int) -> None:
        renames.append(dst)
        if len(renames) == 2:
            raise OSError(28, "No space left on device")
        real(src, dst, dir_fd)

    monkeypatch.setattr(atomic, "_replace", second_fails)
    journal = Unclosable(base / "journal.json")
    with pytest.raises(atomic.JournalNotClosed) as caught:
        atomic.commit_files(ws, [atomic.FileWrite(p, NEW[p], OLD[p]) for p in OLD], journal=journal)
    assert str(caught.value).startswith(
        "writing sub/b.txt failed (No space left on device); the 1 file(s) already written "
        "were put back; nothing changed on disk. But its intent journal could not be closed"
    )
    assert journal.outcome == "rolled back"
    assert {p: (ws / p).read_bytes() for p in OLD} == OLD and leftovers(ws) == []
    monkeypatch.undo()
    assert atomic.recover_intent(ws, json.loads(journal.path.read_text())) == NOTHING_TO_FINISH
    assert {p: (ws / p).read_bytes() for p in OLD} == OLD


async def test_a_store_that_cannot_close_the_journal_ends_the_turn_and_recovery_agrees(
    world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the session's real boundary and store: the write lands, recording its end
    fails, and that is a store failure (the turn ends, the model is told what is on disk);
    resuming decides the call from the files, and the open journal touches nothing."""
    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config
    from frontier.app.session import journal as store_journal
    from frontier.app.session.db import StoreError
    from frontier.tools.policy import PolicyApprover

    _, ws = world
    patch = (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old a\n+new a\n"
        "--- a/sub/b.txt\n+++ b/sub/b.txt\n@@ -1 +1 @@\n-old b\n+new b\n"
    )
    session = create_runtime(
        Config(approval="auto"), approver=PolicyApprover("auto"), workspace=ws, offline=True
    )
    boundary: Any = session._loop.boundary  # type: ignore[attr-defined]
    try:
        with monkeypatch.context() as m:

            def full(db: Any, intent: int, outcome: str) -> None:
                raise StoreError("closing the write's intent journal failed: disk full")

            m.setattr(store_journal, "close_intent", full)
            result = await boundary.run(ToolCall("c1", "apply_patch", {"patch": patch}))
    finally:
        await session.close()
    assert result.kind == "session_persistence_failed" and boundary.persistence_failed
    assert result.output.startswith(
        "session store failure: the write is complete: every file has its new content. But "
        "its intent journal could not be closed (closing the write's intent journal failed: "
        "disk full)"
    )
    assert result.output.endswith(
        "(the tool reported error). The turn ends; check the disk and the data dir."
    )
    assert result.meta == {"executed": True}
    assert {p: (ws / p).read_bytes() for p in NEW} == NEW and leftovers(ws) == []

    resumed = create_runtime(
        Config(approval="auto"),
        approver=PolicyApprover("auto"),
        session_id=session.session_id,
        offline=True,
    )
    try:
        (recovered,) = resumed.recovered
        assert (recovered.call_id, recovered.kind) == ("c1", "applied")
        assert recovered.meta["journal"] == NOTHING_TO_FINISH
        assert not any("journal" in note for note in resumed.notes)
    finally:
        await resumed.close()
    assert {p: (ws / p).read_bytes() for p in NEW} == NEW


# ------------------------------------- a refused row no result reports: the person is told


ORPHAN = "p9"


def store_with_orphan_intent(db: Path, ws: Path, body: str, *, answered: bool) -> str:
    """A demo session whose store holds an open intent row for call ``p9``, which has a
    result already (``answered``) or does not exist at all: no reconciled result can carry
    what recovery did with it."""
    with SessionStore.open(db) as store:
        sid = store.create_session(str(ws), DEMO_MODEL, DEMO_BASE_URL, "ctl-heredoc")
        if answered:
            persistence = store.persistence(sid)
            files = tuple(FilePreview(p, None, None, "", h(OLD[p]), h(NEW[p])) for p in OLD)
            call = ToolCall(ORPHAN, "apply_patch", {"patch": "…"})
            persistence.persist_and_start(call, PATCH, Preview("diff", files))
            persistence.commit_result(ToolResult(ORPHAN, "apply_patch", "error", "refused"))
    with sqlite3.connect(db) as c:
        c.execute(
            "INSERT INTO intents (session_id, call_id, t, entries) VALUES (?, ?, ?, ?)",
            (sid, ORPHAN, time.time(), body),
        )
    return sid


def crafted_body(base: Path, ws: Path) -> str:
    entries = genuine_entries(ws)
    entries[0]["temp"] = "../victim.txt"
    return json.dumps(entries)


NOTE_HEAD = (
    f"{REFUSED_HEAD} Recovery refused the session store's intent journal row for call "
    f"'{ORPHAN}', which no interrupted call accounts for: it is not one Frontier writes (entry "
    "1 of 2: temp '../victim.txt' is not a temp name"
)


@pytest.mark.parametrize("answered", [False, True], ids=["no-such-call", "call-answered"])
async def test_a_refused_row_without_a_call_to_report_it_becomes_a_note(
    world: tuple[Path, Path], answered: bool
) -> None:
    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config
    from frontier.tools.policy import PolicyApprover

    base, ws = world
    db = Path(os.environ["FRONTIER_DATA_DIR"]) / "sessions.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    sid = store_with_orphan_intent(db, ws, crafted_body(base, ws), answered=answered)
    before = tree(base)
    session = create_runtime(
        Config(approval="auto"), approver=PolicyApprover("auto"), session_id=sid, offline=True
    )
    try:
        assert session.recovered == []  # no call awaited a result: nothing to tell the model
        notes = [n for n in session.notes if n.startswith(REFUSED_HEAD)]
        assert len(notes) == 1 and notes[0].startswith(NOTE_HEAD), session.notes
        assert notes[0].endswith(
            "If this session came from someone else, its store may have been edited"
        )
    finally:
        await session.close()
    assert tree(base) == before
    (state,) = intent_states(db)
    assert state.startswith(f"{INVALID}: entry 1 of 2: temp '../victim.txt'")


def test_headless_resume_prints_the_note(world: tuple[Path, Path]) -> None:
    base, ws = world
    db = Path(os.environ["FRONTIER_DATA_DIR"]) / "sessions.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    sid = store_with_orphan_intent(db, ws, crafted_body(base, ws), answered=False)
    env = {**os.environ, "TMPDIR": str(base)}
    result = subprocess.run(
        [
            sys.executable, "-m", "frontier.app.cli", "resume", sid, "--headless",
            "--prompt", "go on", "--rate", "0", "--approval", "read-only",
        ],
        capture_output=True, text=True, timeout=120, env=env, cwd=base,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    assert f"note {NOTE_HEAD}" in result.stdout, result.stdout
    assert (base / "victim.txt").read_text() == "precious\n"


async def test_the_tui_shows_the_note_when_resuming(world: tuple[Path, Path]) -> None:
    from pilot_wait import until

    from frontier.app.config import Config
    from frontier.app.frontends.tui.app import FrontierApp

    base, ws = world
    db = Path(os.environ["FRONTIER_DATA_DIR"]) / "sessions.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    sid = store_with_orphan_intent(db, ws, crafted_body(base, ws), answered=True)
    app = FrontierApp(
        Config(approval="auto"), session_id=sid, demo_rate=0, welcome=False, remember_theme=False
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session to be resumed")

        def shown() -> bool:
            return any(entry.text.startswith(NOTE_HEAD) for entry in app.state.transcript)

        await until(pilot, shown, "the note about the refused journal row")
    assert (base / "victim.txt").read_text() == "precious\n"


def test_a_second_row_for_an_interrupted_call_is_not_lost(world: tuple[Path, Path]) -> None:
    """A crafted row beside the call's own: the call's result speaks of its last row, and
    the other one still reaches the person."""
    from frontier.app.session.recover import recover

    base, ws = world
    db = base / "sessions.db"
    sid = store_with_crafted_intent(db, ws, crafted_body(base, ws))
    with sqlite3.connect(db) as c:  # the call's own row, after: nothing of it is left
        c.execute(
            "INSERT INTO intents (session_id, call_id, t, entries) VALUES (?, ?, ?, ?)",
            (sid, "p1", time.time(), json.dumps(genuine_entries(ws))),
        )
    before = tree(base)
    with SessionStore.open(db) as store:
        recovery = recover(store.ledger, sid, BeneathFiles(ws))
    assert tree(base) == before
    (result,) = recovery.results
    assert result.meta["journal"] == NOTHING_TO_FINISH
    (note,) = recovery.notes
    assert note.startswith(NOTE_HEAD.replace(f"'{ORPHAN}'", "'p1'")), note
