"""Exact undo (issue 15): pre-images kept with the call row, undo as a reviewed, recorded,
atomic mutation that refuses when a file changed since, and the model told next time.

The mutations run through the session's real tool boundary (``write``, ``replace``,
``apply_patch`` against a real store); the undo through ``AgentSession.undo``, which the
TUI's ``/undo`` and ``frontier undo`` both call.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from test_tools_fakes import model_has_read

from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.agent.undo import UNDO_TOOL, split_undone
from frontier.app.cli import main as cli
from frontier.app.config import Config
from frontier.app.events import Event, ToolCall, ToolFinished, ToolResult
from frontier.app.model.conversation import UserMessage, wire_messages
from frontier.app.session import preimages
from frontier.app.session.store import SessionStore
from frontier.tools import undo as undo_tool
from frontier.tools.contract import Decision, Preview, ToolSpec


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Reviews:
    """The person at the review: records what was shown, answers ``answer``."""

    def __init__(self) -> None:
        self.shown: list[tuple[ToolCall, ToolSpec, Preview]] = []
        self.answer = Decision(True)

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        self.shown.append((call, spec, preview))
        return self.answer


class Agent:
    """A stored session in ``ws`` whose mutations run through its real tool boundary."""

    def __init__(self, session: AgentSession, reviews: Reviews, ws: Path) -> None:
        self.session = session
        self.reviews = reviews
        self.ws = ws
        self.events: list[Event] = []
        session.subscribe(self.events.append)
        self._ids = itertools.count(1)

    async def run(self, name: str, call_id: str | None = None, **args: Any) -> ToolResult:
        call = ToolCall(call_id or f"c{next(self._ids)}", name, args)
        result = await self.session._loop.boundary.run(call)  # type: ignore[attr-defined]
        assert result.ok, result.output
        return result

    def has_read(self, *paths: str) -> None:
        """The model read these files first (one never read is not written whole)."""
        model_has_read(self.session._loop.boundary, *paths)  # type: ignore[attr-defined]

    @property
    def store(self) -> SessionStore:
        return self.session._store  # type: ignore[return-value]

    def calls(self) -> list[Any]:
        return self.store.ledger.calls(self.session.session_id)


@pytest.fixture
async def agent(tmp_path: Path) -> AsyncIterator[Agent]:
    ws = tmp_path / "ws"
    ws.mkdir()
    reviews = Reviews()
    # the model's calls are approved by policy; the undo still asks the person
    session = create_runtime(Config(approval="auto"), approver=reviews, workspace=ws, offline=True)
    try:
        yield Agent(session, reviews, ws)
    finally:
        await session.close()


def patch_text() -> str:
    return (
        "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n"
        "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+fresh\n"
        "--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone soon\n"
    )


# --------------------------------------------------------------------------- undo a patch


async def test_undo_after_a_patch_restores_deletes_and_recreates(agent: Agent) -> None:
    ws = agent.ws
    (ws / "a.py").write_text("one\ntwo\n")
    (ws / "old.py").write_text("gone soon\n")
    os.chmod(ws / "old.py", 0o755)
    await agent.run("apply_patch", patch=patch_text())
    assert not (ws / "old.py").exists() and (ws / "new.py").read_text() == "fresh\n"

    outcome = await agent.session.undo()

    assert outcome.undone and outcome.call == "c1" and outcome.undo_id == "u1"
    assert (ws / "a.py").read_text() == "one\ntwo\n"
    assert not (ws / "new.py").exists()
    assert (ws / "old.py").read_text() == "gone soon\n"
    assert (ws / "old.py").stat().st_mode & 0o777 == 0o755  # the mode it had before
    # reviewed first, as a diff from the files now to the files as they were
    (call, spec, preview) = agent.reviews.shown[0]
    assert (call.name, spec.internal) == (UNDO_TOOL, True)
    assert {f.path: f.action for f in preview.files} == {
        "a.py": "modify",
        "new.py": "delete",
        "old.py": "create",
    }
    assert outcome.message.splitlines()[0] == (
        "undid c1 apply_patch: restored a.py; deleted new.py; recreated old.py"
    )
    assert agent.session.notices == (
        "(The user undid call c1 apply_patch: restored a.py; deleted new.py; recreated "
        "old.py. Those files are as they were before that call; re-read them before "
        "editing them.)",
    )
    # recorded like any call: its row carries pre/post hashes, its result is committed
    undo_row = agent.calls()[-1]
    assert undo_row.name == UNDO_TOOL and undo_row.result is not None and undo_row.result.ok
    assert {t.path: (t.pre, t.post) for t in undo_row.targets} == {
        "a.py": (sha(b"ONE\ntwo\n"), sha(b"one\ntwo\n")),
        "new.py": (sha(b"fresh\n"), None),
        "old.py": (None, sha(b"gone soon\n")),
    }
    finished = [e.result for e in agent.events if isinstance(e, ToolFinished)]
    assert finished[-1].call_id == "u1" and finished[-1].ok


async def test_undo_after_a_write_deletes_a_new_file_and_restores_an_overwritten_one(
    agent: Agent,
) -> None:
    ws = agent.ws
    (ws / "keep.txt").write_bytes(b"original\r\nbytes\x00\xff")
    await agent.run("write", path="made/new.txt", content="brand new\n")
    agent.has_read("keep.txt")
    await agent.run("write", path="keep.txt", content="overwritten\n")

    first = await agent.session.undo()
    assert first.call == "c2" and first.undone
    assert (ws / "keep.txt").read_bytes() == b"original\r\nbytes\x00\xff"  # exactly

    second = await agent.session.undo()
    assert second.call == "c1" and second.undone
    assert not (ws / "made" / "new.txt").exists()
    assert second.message.startswith("undid c1 write: deleted made/new.txt")

    third = await agent.session.undo()
    assert third.kind == "refused" and third.message.startswith("nothing to undo")


# --------------------------------------------------------------------------- refusals


async def test_an_external_edit_is_refused_naming_the_file_and_nothing_is_written(
    agent: Agent,
) -> None:
    ws = agent.ws
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("v1\n")
    (ws / "b.py").write_text("b1\n")
    await agent.run(
        "apply_patch",
        patch="--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-v1\n+v2\n"
        "--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-b1\n+b2\n",
    )
    (ws / "src" / "a.py").write_text("edited by hand\n")
    before = len(agent.calls())

    outcome = await agent.session.undo()

    now, left = sha(b"edited by hand\n")[:12], sha(b"v2\n")[:12]
    assert outcome.kind == "refused" and outcome.call == "c1"
    assert outcome.message == (
        f"refused: src/a.py changed since c1 wrote it (now sha256:{now}, c1 left "
        f"sha256:{left}); nothing written"
    )
    assert (ws / "src" / "a.py").read_text() == "edited by hand\n"
    assert (ws / "b.py").read_text() == "b2\n"  # the other file is not touched either
    assert agent.reviews.shown == [] and len(agent.calls()) == before  # nothing recorded
    assert agent.session.notices == ()


async def test_a_later_change_of_the_session_is_named_in_the_refusal(agent: Agent) -> None:
    (agent.ws / "a.py").write_text("x = 1\n")
    agent.has_read("a.py")
    await agent.run("write", path="a.py", content="x = 2\n")
    await agent.run("replace", path="a.py", old="x = 2", new="x = 3")

    outcome = await agent.session.undo("c1")

    assert outcome.kind == "refused"
    assert outcome.message.endswith("c2 replace changed it after c1: undo c2 first")
    assert (agent.ws / "a.py").read_text() == "x = 3\n"


async def test_a_deleted_file_that_came_back_is_refused(agent: Agent) -> None:
    (agent.ws / "old.py").write_text("gone soon\n")
    await agent.run("apply_patch", patch="--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone soon\n")
    (agent.ws / "old.py").write_text("someone else's\n")

    outcome = await agent.session.undo()

    assert outcome.kind == "refused"
    assert outcome.message.startswith("refused: old.py exists again since c1 deleted it (now sha")
    assert (agent.ws / "old.py").read_text() == "someone else's\n"


async def test_what_cannot_be_undone_says_why(agent: Agent) -> None:
    (agent.ws / "a.py").write_text("x\n")
    await agent.run("read", path="a.py")
    await agent.run("replace", path="a.py", old="x", new="y", dry_run=True)

    assert (await agent.session.undo()).message.startswith("nothing to undo")
    shell = await agent.session.undo("c1")
    assert shell.message == (
        "c1 is a read call: only file changes (write, replace, multi, apply_patch, a command's "
        "changes to the files it names, undo) can "
        "be undone"
    )
    dry = await agent.session.undo("c2")
    assert dry.kind == "refused" and dry.message.startswith("c2 replace changed no file")
    missing = await agent.session.undo("c9")
    assert missing.kind == "not_found" and missing.message.startswith("no call 'c9'")


async def test_a_denied_review_writes_nothing_and_tells_the_model_nothing(agent: Agent) -> None:
    await agent.run("write", path="a.py", content="new\n")
    agent.reviews.answer = Decision(False, "keep it")

    outcome = await agent.session.undo()

    assert outcome.kind == "denied" and "keep it" in outcome.message
    assert (agent.ws / "a.py").read_text() == "new\n"
    assert agent.session.notices == ()
    agent.reviews.answer = Decision(True)
    assert (await agent.session.undo()).undone  # c1 is still in effect: undone now


# --------------------------------------------------------------------------- named calls


async def test_the_named_call_form_and_undo_of_an_undo(agent: Agent) -> None:
    ws = agent.ws
    await agent.run("write", path="a.py", content="a\n")
    await agent.run("write", path="b.py", content="b\n")

    named = await agent.session.undo("c1")  # an older change, on another file
    assert named.undone and not (ws / "a.py").exists() and (ws / "b.py").exists()
    again = await agent.session.undo("c1")
    assert again.message == "c1 was already undone by u1; to bring its changes back, undo u1"

    redo = await agent.session.undo("u1")  # undoing the undo brings c1 back
    assert redo.undone and (ws / "a.py").read_text() == "a\n"
    assert redo.message.startswith("undid u1 (the undo of c1 write): recreated a.py")
    assert redo.notice is not None
    assert redo.notice.startswith(
        "(The user undid call u1 (their undo of c1 write), so the changes it had undone are "
        "back: recreated a.py."
    )
    # repeated undos walk back through what is in effect: c2, then c1 again
    assert (await agent.session.undo()).call == "c2"
    assert (await agent.session.undo()).call == "c1"
    assert not (ws / "a.py").exists() and not (ws / "b.py").exists()


async def test_a_repeated_call_id_reaches_the_older_change_once_the_newer_is_undone(
    agent: Agent,
) -> None:
    """LM Studio numbers each response's calls from ``call_0``: undoing ``call_0`` reached
    only the newest change so named, then said it was already undone."""
    ws = agent.ws
    await agent.run("write", "call_0", path="a.py", content="a\n")
    await agent.run("write", "call_0", path="b.py", content="b\n")
    assert (await agent.session.undo("call_0")).undone and not (ws / "b.py").exists()
    older = await agent.session.undo("call_0")
    assert older.undone and not (ws / "a.py").exists()
    again = await agent.session.undo("call_0")
    assert again.message.startswith("call_0 was already undone by u1")  # the newest


async def test_undo_is_refused_during_a_turn(agent: Agent) -> None:
    from frontier.app.agent.session import SessionBusy

    agent.session._busy = True  # as while send() runs
    with pytest.raises(SessionBusy):
        await agent.session.undo()


# --------------------------------------------------------------------------- pre-images


async def test_preimages_are_kept_once_per_version_with_the_call_row(agent: Agent) -> None:
    ws = agent.ws
    (ws / "x.txt").write_text("same\n")
    (ws / "y.txt").write_text("same\n")
    agent.has_read("x.txt", "y.txt")
    await agent.run("write", path="x.txt", content="x2\n")
    await agent.run("write", path="y.txt", content="y2\n")
    await agent.run("write", path="x.txt", content="x3\n")

    kept = agent.store.preimages
    assert kept.get(sha(b"same\n")) == b"same\n"
    assert kept.get(sha(b"x2\n")) == b"x2\n"
    assert kept.total() == (2, len(b"same\n") + len(b"x2\n"))  # "same" once, not twice
    rows = agent.store.db.read("SELECT hash FROM preimages")
    assert sorted(r[0] for r in rows) == sorted([sha(b"same\n"), sha(b"x2\n")])


async def test_a_file_over_the_cap_is_not_kept_and_its_undo_says_why(
    agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preimages, "FILE_CAP", 1024)
    ws = agent.ws
    (ws / "big.bin").write_bytes(b"x" * 2048)
    (ws / "small.txt").write_text("s\n")
    await agent.run(
        "apply_patch",
        patch="--- a/small.txt\n+++ b/small.txt\n@@ -1 +1 @@\n-s\n+t\n",
    )
    agent.has_read("big.bin")
    await agent.run("write", path="big.bin", content="y" * 10)

    status = agent.store.preimages.status(sha(b"x" * 2048))
    assert status is not None and not status.kept and status.size == 2048
    assert status.skipped == "0.0 MiB, over the 0.0 MiB cap on a kept file"
    outcome = await agent.session.undo()
    assert outcome.kind == "refused"
    assert outcome.message == (
        "undo unavailable: c2's earlier content of big.bin was not kept (0.0 MiB, over the "
        "0.0 MiB cap on a kept file); nothing written"
    )
    assert (ws / "big.bin").read_bytes() == b"y" * 10
    assert (await agent.session.undo("c1")).undone  # the small change still can be


async def test_the_per_call_cap_and_secrets_keep_nothing_they_should_not(
    agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preimages, "CALL_CAP", 10)
    ws = agent.ws
    (ws / "a.txt").write_text("aaaaaaaa\n")  # 9 bytes: fits
    (ws / "b.txt").write_text("bbbbbbbb\n")  # would pass 10 in the same call
    (ws / ".env").write_text("api_key=sk12345678secret\n")
    await agent.run(
        "apply_patch",
        patch="--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-aaaaaaaa\n+A\n"
        "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-bbbbbbbb\n+B\n",
    )
    monkeypatch.setattr(preimages, "CALL_CAP", 1 << 20)
    agent.has_read(".env")
    await agent.run("write", path=".env", content="api_key=\n")

    kept = agent.store.preimages
    assert kept.get(sha(b"aaaaaaaa\n")) == b"aaaaaaaa\n"
    b_status = kept.status(sha(b"bbbbbbbb\n"))
    assert b_status is not None and not b_status.kept
    assert "cap per call" in (b_status.skipped or "")
    secret = kept.status(sha(b"api_key=sk12345678secret\n"))
    assert secret is not None and not secret.kept and "secret" in (secret.skipped or "")
    blobs = b"".join(bytes(r[0]) for r in agent.store.db.read("SELECT body FROM preimages") if r[0])
    assert b"sk12345678secret" not in blobs  # the store never holds the secret
    refused = await agent.session.undo()
    assert refused.kind == "refused" and "holds a secret" in refused.message


def test_the_documented_caps_are_the_caps() -> None:
    doc = " ".join(undo_tool.internal_tools_markdown())
    assert f"over {preimages.FILE_CAP // (1 << 20)} MiB" in doc
    assert f"past {preimages.CALL_CAP // (1 << 20)} MiB" in doc


# --------------------------------------------------------------------------- the model


async def test_the_model_is_told_in_the_next_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from frontier.app.model.wires import demo

    sent: list[list[dict[str, Any]]] = []
    real = demo.DemoTransport.handle_async_request

    async def recording(self: Any, request: Any) -> Any:
        sent.append(json.loads(request.content)["messages"])
        return await real(self, request)

    monkeypatch.setattr(demo.DemoTransport, "handle_async_request", recording)
    reviews = Reviews()
    session = create_runtime(
        Config(approval="auto", protocol="ctl-heredoc"), approver=reviews, demo=True, demo_rate=0
    )
    try:
        await session.send(session.demo_prompts[0])
        outcome = await session.undo()
        assert outcome.undone and outcome.call is not None
        sent.clear()
        await session.send("what is left?")
        user = [m for m in sent[0] if m["role"] == "user"][-1]
        assert user["content"] == f"{outcome.notice}\n\nwhat is left?"
        assert outcome.notice is not None and outcome.notice.startswith(
            f"(The user undid call {outcome.call} "
        )
        assert session.notices == ()  # told once
        sent.clear()
        await session.send("and now?")
        assert [m for m in sent[0] if m["role"] == "user"][-1]["content"] == "and now?"
    finally:
        await session.close()


def test_undelivered_undo_results_become_notes_not_result_frames() -> None:
    ok = ToolResult(
        "u1",
        UNDO_TOOL,
        "ok",
        "undid c4 apply_patch: restored a.py",
        meta={
            "files": ["a.py"],
            "undo": {"call": "c4", "name": "apply_patch", "restored": ["a.py"]},
        },
    )
    denied = ToolResult("u2", UNDO_TOOL, "denied", "denied by the user")
    crashed = ToolResult("u3", UNDO_TOOL, "applied", "...", meta={"files": {"b.py": {}}})
    other = ToolResult("c5", "shell", "ok", "done")
    rest, notes = split_undone([ok, denied, other, crashed])
    assert rest == [other]
    assert notes[0].startswith("(The user undid call c4 apply_patch: restored a.py.")
    assert notes[1].startswith("(An undo the user ran (u3) was interrupted by a crash and finished")


# --------------------------------------------------------------------------- the CLI


async def demo_session() -> tuple[str, Path]:
    """A stored demo session (its story ran to the end), closed again."""
    session = create_runtime(
        Config(approval="auto", protocol="ctl-heredoc"), approver=Reviews(), demo=True, demo_rate=0
    )
    try:
        await session.send(session.demo_prompts[0])
        return session.session_id, session.workspace
    finally:
        await session.close()


def test_cli_undo_restores_and_a_later_resume_tells_the_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sid, ws = asyncio.run(demo_session())
    readme = (ws / "README.md").read_text()
    assert "--shout" in readme

    assert cli(["undo", sid, "--yes"]) == 0

    out = capsys.readouterr().out
    assert out.startswith("undid c6 replace: restored README.md\nM README.md (+0 −1)\n")
    assert f"recorded as call u1 of session {sid}" in out
    assert "--shout" not in (ws / "README.md").read_text()
    asyncio.run(resume_and_send(sid))


async def resume_and_send(sid: str) -> None:
    resumed = create_runtime(
        Config(approval="auto"), approver=Reviews(), session_id=sid, demo_rate=0
    )
    try:
        assert resumed.notices == (
            "(The user undid call c6 replace: restored README.md. Those files are as they were "
            "before that call; re-read them before editing them.)",
        )
        assert resumed.carried == 0  # a note, not a result frame
        await resumed.send("thanks")
        with SessionStore.open() as store:
            items = store.load_items(sid)
        sent = wire_messages(items, native=False, wire="openai-chat")
        last = [m for m in sent if isinstance(m, UserMessage)][-1]
        assert last.text.startswith("(The user undid call c6 replace")
        assert last.text.endswith("\n\nthanks")
    finally:
        await resumed.close()


def test_list_says_a_command_still_running_or_cut_off_is_not_recorded_yet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command a crash cut off has its changes recorded when the session is reconciled
    (app/session/recover.py): until then the read-only list says so, not "changed no
    file"."""
    shell = ToolSpec("shell", "", {}, sequential=True, kind="exec")
    with SessionStore.open() as store:
        sid = store.create_session(str(tmp_path), "m", None, "ctl")
        p = store.persistence(sid)
        p.persist_call(ToolCall("c1", "shell", {"command": "make"}), shell, Preview("command"))
        p.mark_started("c1")
    assert cli(["undo", sid, "--list"]) == 0
    out = capsys.readouterr().out
    assert out == (
        f"c1 shell was running when its Frontier stopped: what it changed is recorded once "
        f"the session is reconciled (`frontier undo {sid}` or `frontier resume {sid}` does it "
        f"first)\nsession {sid} changed no file recorded yet\n"
    )


def test_cli_refusals_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    sid, ws = asyncio.run(demo_session())
    (ws / "README.md").write_text("mine now\n")

    assert cli(["undo", sid, "--yes"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "frontier undo: refused: README.md changed since c6 wrote it (now sha256:"
    )
    assert err.rstrip().endswith("nothing written")
    assert (ws / "README.md").read_text() == "mine now\n"

    assert cli(["undo", sid, "c42", "--yes"]) == 2
    assert "no call 'c42'" in capsys.readouterr().err
    assert cli(["undo", "nosuchsession", "--yes"]) == 2
    capsys.readouterr()

    assert cli(["undo", sid, "c4", "--yes"]) == 0  # NOTES.md: an older, untouched change
    assert not (ws / "NOTES.md").exists()
    capsys.readouterr()
    assert cli(["undo", sid, "--list"]) == 0
    listing = capsys.readouterr().out
    assert "c4       write          undone by u1" in listing
    assert " → c6       replace        changed since" in listing
    assert "   c2       apply_patch    in effect" in listing


def test_cli_without_a_terminal_shows_the_diff_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sid, ws = asyncio.run(demo_session())
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)

    assert cli(["undo", sid]) == 1

    captured = capsys.readouterr()
    assert "── u1 would write ──\n--- a/README.md\n+++ b/README.md" in captured.out
    assert "rerun with --yes" in captured.err
    assert "--shout" in (ws / "README.md").read_text()


async def test_a_file_removed_with_rm_comes_back_with_undo(agent: Agent) -> None:
    """`rm notes.txt` as a command removed the person's file for good; read as the patch
    tool's deletion (tools/delete_via_shell.py, as the loop reads it), its content is kept
    and undo puts it back exactly."""
    from frontier.tools.registry import default_registry

    (agent.ws / "notes.txt").write_bytes(b"mine\r\n\x00kept exactly\n")
    name, args = default_registry().meant("shell", {"command": "rm notes.txt"}, str(agent.ws))
    assert name == "apply_patch"
    await agent.run(name, **args)
    assert not (agent.ws / "notes.txt").exists()
    outcome = await agent.session.undo()
    assert outcome.undone, outcome.message
    assert (agent.ws / "notes.txt").read_bytes() == b"mine\r\n\x00kept exactly\n"


@pytest.mark.parametrize("yes", [False, True], ids=["reviewed", "--yes"])
async def test_an_undo_through_a_link_into_git_says_so_and_never_goes_unseen(
    tmp_path: Path, yes: bool
) -> None:
    """An audit: the model wrote a script ``x``, removed it (kept for undo), and made ``x``
    a link to ``.git/hooks/pre-commit``; ``frontier undo --yes`` said "recreated x" and
    wrote the hook, which ran at the person's next commit. The review said nothing of it."""
    from frontier.app.agent.undo import Approve
    from frontier.app.frontends.headless import render_preview
    from frontier.tools.registry import default_registry

    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    reviews = Reviews()
    answer = Approve() if yes else reviews
    session = create_runtime(Config(approval="auto"), approver=answer, workspace=ws, offline=True)
    agent = Agent(session, reviews, ws)
    try:
        (ws / "x").write_text("#!/bin/sh\ntouch PWNED\n")
        name, args = default_registry().meant("shell", {"command": "rm x"}, str(ws))
        await agent.run(name, **args)
        (ws / "x").symlink_to(".git/hooks/pre-commit")  # the model's next command
        outcome = await session.undo()
    finally:
        await session.close()
    if yes:
        assert not outcome.undone
        assert "x (reaches .git/hooks/pre-commit): a protected path" in outcome.message
        assert "without --yes" in outcome.message
    else:
        assert outcome.undone  # the person saw it and approved
        shown = reviews.shown[0][2]
        assert "protected: x reaches .git/hooks/pre-commit" in shown.summary  # the TUI's
        said = render_preview(shown)  # a terminal's (it shows the diff, not the summary)
        assert said.endswith(
            "\nprotected (git runs what it says): x (reaches .git/hooks/pre-commit)"
        )
    assert (ws / ".git" / "hooks" / "pre-commit").exists() is (not yes)


async def test_a_file_moved_with_mv_comes_back_with_undo(agent: Agent) -> None:
    """`mv a.py lib/b.py`, read as the patch tool's rename: undo puts it back where it was."""
    from frontier.tools.registry import default_registry

    (agent.ws / "a.py").write_bytes(b"kept\x00exactly\n")
    name, args = default_registry().meant("shell", {"command": "mv a.py lib/b.py"}, str(agent.ws))
    assert name == "apply_patch"
    await agent.run(name, **args)
    assert (agent.ws / "lib" / "b.py").read_bytes() == b"kept\x00exactly\n"
    assert not (agent.ws / "a.py").exists()
    outcome = await agent.session.undo()
    assert outcome.undone, outcome.message
    assert (agent.ws / "a.py").read_bytes() == b"kept\x00exactly\n"
    assert not (agent.ws / "lib" / "b.py").exists()


# --------------------------------------------------------------------------- a command's changes


async def test_what_a_command_changed_among_the_files_it_names_is_undone(agent: Agent) -> None:
    """A command's writes (here a redirection, `touch`, `rm` in one line: no file tool's
    reading of it) are found after it ran, shown and told as an edit's, and undone."""
    ws = agent.ws
    (ws / "a.py").write_bytes(b"x = 1\r\n")
    (ws / "src").mkdir()
    (ws / "src" / "b.py").write_text("y = 1\n")
    result = await agent.run(
        "shell", command="printf 'x = 2\\n' > a.py && touch src/new.py && rm src/b.py"
    )
    assert [(c["status"], c["path"]) for c in result.meta["changes"]] == [
        ("M", "a.py"),
        ("D", "src/b.py"),
        ("A", "src/new.py"),
    ]
    assert result.output.rstrip().endswith(
        "[the command changed 3 files: M a.py (+1 \u22121), D src/b.py (+0 \u22121), "
        "A src/new.py (+0 \u22120)]"
    )

    outcome = await agent.session.undo()

    assert outcome.undone and outcome.call == "c1", outcome.message
    assert (ws / "a.py").read_bytes() == b"x = 1\r\n"
    assert (ws / "src" / "b.py").read_text() == "y = 1\n"
    assert not (ws / "src" / "new.py").exists()
    assert outcome.message.splitlines()[0] == (
        "undid c1 shell: restored a.py; deleted src/new.py; recreated src/b.py"
    )


async def test_a_failed_command_s_changes_are_undone_too(agent: Agent) -> None:
    """A command that changed a file and then failed (`ruff --fix` fixing half) left the
    change all the same."""
    (agent.ws / "a.py").write_text("before\n")
    call = ToolCall("c1", "shell", {"command": "echo after > a.py && false"})
    result = await agent.session._loop.boundary.run(call)  # type: ignore[attr-defined]
    assert result.kind == "error" and result.meta["files"] == ["a.py"]
    outcome = await agent.session.undo()
    assert outcome.undone, outcome.message
    assert (agent.ws / "a.py").read_text() == "before\n"


async def test_a_command_s_change_is_not_undone_over_a_later_one_nor_kept_with_a_secret(
    agent: Agent,
) -> None:
    ws = agent.ws
    (ws / "a.py").write_text("one\n")
    (ws / ".env").write_text("api_key=sk12345678secret\n")
    await agent.run("shell", command="echo two > a.py && echo api_key=other > .env")
    (ws / "a.py").write_text("the person's\n")
    refused = await agent.session.undo("c1")
    assert refused.kind == "refused" and "a.py" in refused.message
    assert (ws / "a.py").read_text() == "the person's\n"
    (ws / "a.py").write_text("two\n")
    refused = await agent.session.undo("c1")
    assert refused.kind == "refused" and "holds a secret" in refused.message
    blobs = b"".join(row[0] or b"" for row in agent.store.db.read("SELECT body FROM preimages", ()))
    assert b"sk12345678secret" not in blobs


async def test_a_command_naming_too_much_says_its_changes_were_not_recorded(
    agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    from frontier.tools import command_changes

    monkeypatch.setattr(command_changes, "WATCH_FILES", 1)
    (agent.ws / "a.py").write_text("one\n")
    (agent.ws / "b.py").write_text("one\n")
    result = await agent.run("shell", command="echo two > a.py && python3 -c pass .")
    assert result.meta["unwatched"] == "it names more than 1 files"
    assert "files" not in result.meta
    from frontier.app.check_text import check_lines

    assert check_lines(result.meta) == [
        (
            "· its changes were not recorded, so /undo cannot put them back: it names more "
            "than 1 files",
            False,
        )
    ]
    refused = await agent.session.undo("c1")
    assert refused.message == (
        "c1 shell: what it changed was not recorded (it names more than 1 files); nothing to undo"
    )
    await agent.run("shell", command="ls")
    assert (await agent.session.undo("c2")).message.startswith(
        "c2 shell changed none of the files it names"
    )


async def test_a_script_s_writes_to_the_paths_it_names_are_undone(agent: Agent) -> None:
    """Models edit with a script as often as with a tool: `python3 - <<'EOF'` in a shell,
    or the python tool; the paths its string literals name are watched."""
    ws = agent.ws
    (ws / "a.py").write_text("x = 1\n")
    script = (
        "from pathlib import Path\np = Path('a.py')\np.write_text(p.read_text() + 'y = 2\\n')\n"
    )
    await agent.run("shell", command=f"python3 - <<'EOF'\n{script}EOF")
    await agent.run("python", code="open('made.txt', 'w').write('new\\n')")
    assert (ws / "a.py").read_text() == "x = 1\ny = 2\n" and (ws / "made.txt").exists()

    first = await agent.session.undo()
    second = await agent.session.undo()

    assert (first.call, second.call) == ("c2", "c1"), (first.message, second.message)
    assert not (ws / "made.txt").exists()
    assert (ws / "a.py").read_text() == "x = 1\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_a_formatter_run_with_no_path_in_a_repository_is_undone(agent: Agent) -> None:
    """`cargo fmt`, `npm run format`, `ruff format`: nothing on the line names a file; in a
    git work tree git says what changed and the index what it was."""
    ws = agent.ws
    (ws / "fmt.sh").write_text("sed -i 's/x=1/x = 1/' src/a.py\n")
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("x=1\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q", "."], ["add", "-A"]):
        subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"],
        cwd=ws,
        env=env,
        check=True,
        capture_output=True,
    )
    result = await agent.run("shell", command="sh fmt.sh")
    assert (ws / "src" / "a.py").read_text() == "x = 1\n"
    assert result.meta["files"] == ["src/a.py"]

    outcome = await agent.session.undo()

    assert outcome.undone, outcome.message
    assert (ws / "src" / "a.py").read_text() == "x=1\n"


async def test_a_watch_that_breaks_never_keeps_a_command_from_running_nor_loses_its_result(
    agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    from frontier.tools import command_changes

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(command_changes.Watch, "take", broken)
    result = await agent.run("shell", command="echo ran > a.txt && cat a.txt")
    assert "ran" in result.output and (agent.ws / "a.txt").read_text() == "ran\n"
    assert result.meta["unwatched"] == (
        "its files could not be read before it ran (RuntimeError: boom)"
    )
    monkeypatch.undo()
    monkeypatch.setattr(command_changes.Watch, "changes", broken)
    result = await agent.run("shell", command="echo again > a.txt && cat a.txt")
    assert "again" in result.output
    assert result.meta["unwatched"].startswith("its files could not be read after it ran")


async def test_a_store_that_cannot_keep_the_held_files_never_keeps_a_command_from_running(
    agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a command names is kept in the store before it runs, for a crash while it runs;
    a store failing there is said in the result's meta, and the command runs and its
    changes are recorded as it ends."""
    from frontier.app.session.journal import StoreJournal

    def full(*_: object, **__: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(StoreJournal, "hold", full)
    (agent.ws / "a.txt").write_text("one\n")
    result = await agent.run("shell", command="echo two > a.txt")
    assert (agent.ws / "a.txt").read_text() == "two\n"
    assert result.meta["unheld"] == (
        "its files could not be kept before it ran (OSError: [Errno 28] No space left on device)"
    )
    assert result.meta["files"] == ["a.txt"]
    assert (await agent.session.undo()).undone
    assert (agent.ws / "a.txt").read_text() == "one\n"


async def test_an_undo_removes_the_folders_the_call_made_once_it_emptied_them(
    agent: Agent,
) -> None:
    """A new file in a new package (`newpkg/sub/mod.py`) or a command's copy of a folder
    (`cp -r src backup`): an undo deleting the files leaves no empty folders behind, and
    undoing that undo makes them again; a folder holding anything else stays."""
    ws = agent.ws
    (ws / "src" / "pkg").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("a\n")
    (ws / "src" / "pkg" / "b.py").write_text("b\n")
    written = await agent.run("write", path="newpkg/sub/mod.py", content="x = 1\n")
    assert written.meta["made"] == ["newpkg", "newpkg/sub"]
    copied = await agent.run("shell", command="cp -r src backup")
    assert copied.meta["made"] == ["backup", "backup/pkg"]

    second = await agent.session.undo()
    first = await agent.session.undo()

    assert second.undone and first.undone, (second.message, first.message)
    assert sorted(p.name for p in ws.iterdir()) == ["src"]
    assert second.message.startswith(
        "undid c2 shell: deleted backup/a.py, backup/pkg/b.py; removed the emptied folders "
        "backup, backup/pkg"
    ), second.message
    again = await agent.session.undo("u2")  # the undo of the write, undone: all back
    assert again.undone and (ws / "newpkg" / "sub" / "mod.py").read_text() == "x = 1\n"
    (ws / "newpkg" / "notes.txt").write_text("the person's\n")
    assert (await agent.session.undo("u3")).undone
    assert sorted(p.name for p in (ws / "newpkg").iterdir()) == ["notes.txt"]  # kept


def test_an_undo_removes_no_folder_its_arguments_name_outside_the_workspace(
    tmp_path: Path,
) -> None:
    """The folders come from the store's record of the call (untrusted): only empty folders
    beneath the root are removed, never the root, never through a link."""
    ws = tmp_path / "ws"
    (ws / "empty").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (ws / "link").symlink_to(tmp_path / "outside")
    removed = undo_tool._remove_emptied(
        str(ws), ["../outside", ".", "", "link", str(tmp_path / "outside"), "empty", 7]
    )
    assert removed == ["empty"]
    assert (tmp_path / "outside").is_dir() and (ws / "link").is_symlink() and ws.is_dir()


async def test_undo_list_names_the_command_a_shell_change_came_from(
    agent: Agent, capsys: pytest.CaptureFixture[str]
) -> None:
    await agent.run("shell", command="echo one > a.txt")
    await agent.run("python", code="open('b.txt', 'w').write('two')\nprint('done')\n")
    assert cli(["undo", agent.session.session_id, "--list"]) == 0
    listing = capsys.readouterr().out
    assert "   c1       shell          in effect        a.txt  ← echo one > a.txt\n" in listing
    assert (
        " → c2       python         in effect        b.txt  ← open('b.txt', 'w').write('two')…"
        in (listing)
    )
