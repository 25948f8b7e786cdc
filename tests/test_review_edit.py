"""A file the person rewrote in the review is written as they wrote it, bound to what the
review showed, and the model is told how it differs from its own version
(``tools/review_edit.py``, ``ToolBoundary._edited``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from test_hunk_select import TEXT, three_changes
from test_tools_fakes import FakeStore, call, make_boundary, model_has_read

from frontier.app.events import ToolCall
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.patch_engine import plan_patch
from frontier.tools.review_edit import EditError, apply_edits

THEIRS = TEXT.replace("line 5\n", "FIVE (their way)\n").replace("line 35\n", "THIRTY-FIVE\n")


@dataclass
class Editing:
    """An approver that rewrites files in the review (and may decline hunks of the diff
    to its version)."""

    edited: tuple[tuple[str, bytes], ...]
    declined: tuple[tuple[str, int], ...] = ()
    seen: list[Preview] = field(default_factory=list)

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        self.seen.append(preview)
        return Decision(True, "", declined=self.declined, edited=self.edited)


async def test_their_version_is_written_and_the_model_told_the_difference(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(TEXT)
    store = FakeStore()
    approver = Editing((("f.txt", THEIRS.encode()),))
    boundary = make_boundary(tmp_path, approver=approver, store=store)
    result = await boundary.run(call("apply_patch", 1, patch=three_changes()))
    assert result.kind == "ok"
    assert (tmp_path / "f.txt").read_text() == THEIRS  # not the model's FIVE / TWENTY
    assert result.output.splitlines()[0] == "M f.txt (+2 −2)"
    assert "The user edited f.txt in the review before it was written" in result.output
    assert "-FIVE\n+FIVE (their way)\n" in result.output and "-TWENTY\n+line 20\n" in result.output
    assert result.meta["edited"] == ["f.txt"]
    # the call row records the hashes of what was really written (recovery stays exact)
    (persisted,) = [v for k, v in store.log if k == "persist_call"]
    assert persisted[1].files[0].new_hash == hashlib.sha256(THEIRS.encode()).hexdigest()


async def test_hunks_declined_after_an_edit_count_in_the_diff_to_their_version(
    tmp_path: Path,
) -> None:
    (tmp_path / "f.txt").write_text(TEXT)
    approver = Editing((("f.txt", THEIRS.encode()),), declined=(("f.txt", 2),))
    boundary = make_boundary(tmp_path, approver=approver, store=FakeStore())
    result = await boundary.run(call("apply_patch", 1, patch=three_changes()))
    assert result.kind == "ok"  # hunk 2 of old → theirs is THIRTY-FIVE: left as it was
    assert (tmp_path / "f.txt").read_text() == TEXT.replace("line 5\n", "FIVE (their way)\n")


async def test_a_write_call_edited_in_review(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\n")
    boundary = make_boundary(
        tmp_path, approver=Editing((("f.txt", b"a\nB, said the person\r\n"),)), store=FakeStore()
    )
    model_has_read(boundary, "f.txt")
    result = await boundary.run(call("write", 1, path="f.txt", content="a\nB\n"))
    assert result.kind == "ok"
    assert (tmp_path / "f.txt").read_bytes() == b"a\nB, said the person\r\n"  # byte for byte


async def test_an_edit_the_same_as_the_models_tells_nothing(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\n")
    boundary = make_boundary(tmp_path, approver=Editing((("f.txt", b"b\n"),)), store=FakeStore())
    model_has_read(boundary, "f.txt")
    result = await boundary.run(call("write", 1, path="f.txt", content="b\n"))
    assert result.kind == "ok" and "edited" not in result.output and "edited" not in result.meta


def test_a_path_the_change_does_not_write_or_deletes_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(TEXT)
    (tmp_path / "gone.txt").write_text("x\n")
    plan = plan_patch(tmp_path, three_changes())
    with pytest.raises(EditError, match=r"other\.txt, which this change does not write"):
        apply_edits(plan, plan.preview(), (("other.txt", b"x"),))
    deleting = plan_patch(tmp_path, "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")
    with pytest.raises(EditError, match="deletes or moves it"):
        apply_edits(deleting, deleting.preview(), (("gone.txt", b"y\n"),))


async def test_the_boundary_refuses_an_impossible_edit_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(TEXT)
    approver = Editing((("elsewhere.txt", b"x"),))
    boundary = make_boundary(tmp_path, approver=approver, store=FakeStore())
    result = await boundary.run(call("apply_patch", 1, patch=three_changes()))
    assert result.kind == "error" and "the review's edit was not written" in result.output
    assert (tmp_path / "f.txt").read_text() == TEXT


def test_an_edit_over_the_size_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from frontier.tools import review_edit

    monkeypatch.setattr(review_edit, "EDIT_MAX_FILE", 1024)
    (tmp_path / "f.txt").write_text(TEXT)
    plan = plan_patch(tmp_path, three_changes())
    with pytest.raises(EditError, match="over 0 MiB"):
        apply_edits(plan, plan.preview(), (("f.txt", b"x" * 2048),))


def test_the_terminal_prompt_edits_a_change_in_the_persons_editor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`frontier run` in a terminal: `e` opens the file as the model would write it in
    $VISUAL (here a real `sed`), shows the diff to that version, and `y` approves it."""
    import asyncio
    import io

    from frontier.app.frontends.headless import TerminalApprover
    from frontier.tools.diffing import file_preview

    monkeypatch.setenv("VISUAL", "sed -i s/TWO/two,_said_the_person/")
    monkeypatch.setattr("sys.stdin", io.StringIO("e\ny\n"))
    out = io.StringIO()
    preview = Preview("diff", files=(file_preview("f.txt", b"one\n2\n", b"one\nTWO\n"),))
    spec = ToolSpec("write", "write", {"type": "object"}, mutates=True, kind="edit")
    decision = asyncio.run(TerminalApprover(out=out).approve(call("write", 1), spec, preview))
    assert decision.approved
    assert decision.edited == (("f.txt", b"one\ntwo,_said_the_person\n"),)
    shown = out.getvalue()
    assert "[e] edit" in shown and "approve your version of" in shown
    assert "+two,_said_the_person" in shown


def test_the_terminal_prompt_offers_no_edit_for_a_command(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    import io

    from frontier.app.frontends.headless import TerminalApprover

    monkeypatch.setattr("sys.stdin", io.StringIO("e\n"))
    out = io.StringIO()
    spec = ToolSpec("shell", "run", {"type": "object"}, kind="exec")
    decision = asyncio.run(
        TerminalApprover(out=out).approve(call("shell", 1), spec, Preview("command", command="ls"))
    )
    assert not decision.approved and decision.reason == "e"  # a reason, as typed
    assert "[e] edit" not in out.getvalue()
