"""``frontier sessions delete`` (``app/session/forget.py``): a stored session can be
removed, its content gone from the database files, not only from its tables; another
session, and the file versions it shares, stay whole."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from test_tools_fakes import model_has_read

from frontier.app.events import ToolCall
from frontier.app.model.conversation import UserText
from frontier.app.session import lock as session_lock
from frontier.app.session.db import default_path
from frontier.app.session.prompt_history import PromptHistory
from frontier.app.session.store import SessionStore
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.registry import default_registry

MARK = "pasted-by-mistake-7f3a9c1e"


class Yes:
    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        return Decision(True)


async def make_session(store: SessionStore, ws: Path, text: str, edits: list[str]) -> str:
    """A session: a prompt holding ``text``, then one ``write`` over each file in ``edits``
    (each keeps the file as it was: a pre-image)."""
    sid = store.create_session(str(ws), "m", None, "ctl")
    store.append_items(sid, [UserText(f"please look at {text}")])
    boundary = ToolBoundary(default_registry(), ws, Yes(), store.persistence(sid))
    for n, name in enumerate(edits):
        model_has_read(boundary, name)
        r = await boundary.run(ToolCall(f"c{n}", "write", {"path": name, "content": f"{sid}\n"}))
        assert r.kind == "ok", r.output
    return sid


def frontier(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "sessions", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=120,
        check=False,
    )


def on_disk() -> bytes:
    db = default_path()
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


async def test_a_deleted_session_is_gone_from_the_files_and_the_other_stays_whole(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "shared.txt").write_text("shared, as it was\n")
    (ws / "own.txt").write_text(f"only the first session's version: {MARK}-file\n")
    with SessionStore.open() as store:
        first = await make_session(store, ws, MARK, ["own.txt", "shared.txt"])
        (ws / "shared.txt").write_text("shared, as it was\n")  # the same pre-image again
        second = await make_session(store, ws, "the other task", ["shared.txt"])
    history = PromptHistory.for_workspace(str(ws))
    history.add("an older prompt of this workspace")
    history.add(f"please look at {MARK}")  # what ↑ recalls: the same words
    assert MARK.encode() in on_disk()
    done = frontier("delete", first[:6], "--yes")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"deleted {first} (")
    assert "please look at pasted-by-mistake" in done.stdout
    # own.txt's version, not shared.txt's; the prompt recalled by ↑ in that workspace
    assert done.stdout.rstrip().endswith(", 1 kept file version(s), 1 prompt(s) from the ↑ history")
    assert MARK.encode() not in on_disk()  # not in the tables, the freed pages or the WAL
    assert MARK not in history.path.read_text()  # nor in the ↑ history of the workspace
    assert PromptHistory.for_workspace(str(ws)).entries() == ["an older prompt of this workspace"]
    with SessionStore.open() as store:
        assert [s.id for s in store.list_sessions()] == [second]
        assert store.load_items(second)[0] == UserText("please look at the other task")
        shared = hashlib.sha256(b"shared, as it was\n").hexdigest()
        assert store.preimages.get(shared) == b"shared, as it was\n"
    listed = frontier()
    assert first not in listed.stdout and second in listed.stdout


async def command_session(store: SessionStore, ws: Path, command: str) -> str:
    """A session whose one call is a shell command changing the files it names (its
    earlier content kept as a command's: tools/command_changes.py)."""
    sid = store.create_session(str(ws), "m", None, "ctl")
    store.append_items(sid, [UserText("run it")])
    boundary = ToolBoundary(default_registry(), ws, Yes(), store.persistence(sid))
    r = await boundary.run(ToolCall("c1", "shell", {"command": command}))
    assert r.kind == "ok" and r.meta.get("targets"), r.output
    return sid


async def test_what_a_command_changed_goes_with_its_session_and_stays_for_another(
    tmp_path: Path,
) -> None:
    """A command's changes are kept on its result row, not its call row: deleting its
    session must find them there too — gone with it, kept while another names them."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "own.txt").write_text(f"{MARK}-command\n")
    (ws / "shared.txt").write_text("shared, as it was\n")
    with SessionStore.open() as store:
        first = await command_session(store, ws, "echo new > own.txt; echo one > shared.txt")
        (ws / "shared.txt").write_text("shared, as it was\n")
        second = await command_session(store, ws, "echo two > shared.txt")
    assert f"{MARK}-command".encode() in on_disk()
    done = frontier("delete", first, "--yes")
    assert done.returncode == 0, done.stderr
    assert ", 1 kept file version(s)" in done.stdout
    assert f"{MARK}-command".encode() not in on_disk()
    with SessionStore.open() as store:
        shared = hashlib.sha256(b"shared, as it was\n").hexdigest()
        assert store.preimages.get(shared) == b"shared, as it was\n"  # the second's undo
        assert [s.id for s in store.list_sessions()] == [second]


async def test_what_a_command_held_before_it_ran_goes_with_its_session(tmp_path: Path) -> None:
    """Before a command runs, the files it names are kept in the store (a crash while it
    runs must not lose what it changes: tools/command_changes.py ``Watch.held``), the ones
    it then left alone too: deleting the session removes them."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "src.txt").write_text(f"{MARK}-held\n")
    with SessionStore.open() as store:
        sid = await command_session(store, ws, "cp src.txt copy.txt")
        assert not store.db.read("SELECT 1 FROM intents WHERE state = 'holding'")
    assert f"{MARK}-held".encode() in on_disk()
    done = frontier("delete", sid, "--yes")
    assert done.returncode == 0, done.stderr
    assert f"{MARK}-held".encode() not in on_disk()


async def test_an_open_session_or_one_without_a_yes_is_not_deleted(tmp_path: Path) -> None:
    with SessionStore.open() as store:
        sid = await make_session(store, tmp_path, MARK, [])
    held = session_lock.acquire(default_path().parent, sid)
    try:
        refused = frontier("delete", sid, "--yes")
    finally:
        held.release()
    assert refused.returncode == 1
    assert f"session {sid} is open in a running Frontier; close it there first" in refused.stderr
    asked = frontier("delete", sid, stdin="")  # no terminal to confirm on
    assert asked.returncode == 3 and "run again with --yes" in asked.stderr
    assert frontier("delete", "nope", "--yes").returncode == 1
    assert frontier("delete").returncode == 2  # neither ids nor --older-than
    assert MARK.encode() in on_disk()


async def test_older_than_deletes_the_sessions_last_used_before_it(tmp_path: Path) -> None:
    with SessionStore.open() as store:
        old = await make_session(store, tmp_path, "old", [])
        new = await make_session(store, tmp_path, "new", [])
        month_ago = time.time() - 31 * 86400
        store.db.write(
            "test",
            lambda c: c.execute("UPDATE sessions SET updated = ? WHERE id = ?", (month_ago, old)),
        )
    assert frontier("delete", "--older-than", "40", "--yes").stdout.startswith("no session")
    done = frontier("delete", "--older-than", "30", "--yes")
    assert done.returncode == 0 and done.stdout.startswith(f"deleted {old} (")
    with SessionStore.open() as store:
        assert [s.id for s in store.list_sessions()] == [new]


def test_a_session_named_without_a_verb_says_what_can_be_done_with_it() -> None:
    said = frontier("6943")
    assert said.returncode == 2
    assert "frontier export 6943" in said.stderr and "frontier sessions delete 6943" in said.stderr


async def test_a_command_s_held_record_shrinks_to_its_hashes_once_it_ran(tmp_path: Path) -> None:
    """The names and git's listing a command's held record keeps serve a recovery only;
    once its result commits the row keeps the held files' hashes (what deleting the
    session reads), so a long session's store does not grow with every listing."""
    import json

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "src.txt").write_text("held\n")
    with SessionStore.open() as store:
        await command_session(store, ws, "cp src.txt copy.txt")
        ((state, entries),) = store.db.read("SELECT state, entries FROM intents")
    held = hashlib.sha256(b"held\n").hexdigest()
    assert state == "ran" and json.loads(entries) == {"before": [["src.txt", held, 0o644]]}
