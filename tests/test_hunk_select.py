"""Hunk-level accept: only the hunks a person accepted are written, atomically and bound to
the previewed content, and the model is told which were declined and why (DESIGN §5)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from test_tools_fakes import FakeStore, call, make_boundary, model_has_read

from frontier.app.events import ToolCall
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.hunk_select import select
from frontier.tools.patch_engine import plan_patch

LINES = [f"line {i}" for i in range(1, 41)]
TEXT = "".join(f"{x}\n" for x in LINES)


def three_changes() -> str:
    """Three changes far apart: three review hunks."""
    return (
        "--- a/f.txt\n+++ b/f.txt\n"
        "@@ -4,3 +4,3 @@\n line 4\n-line 5\n+FIVE\n line 6\n"
        "@@ -19,3 +19,3 @@\n line 19\n-line 20\n+TWENTY\n line 21\n"
        "@@ -34,3 +34,3 @@\n line 34\n-line 35\n+THIRTY-FIVE\n line 36\n"
    )


def dependent_pair() -> str:
    """Hunk 2's context starts with the line hunk 1 adds, 14 lines above its own change."""
    context = "".join(f" line {i}\n" for i in range(6, 20))
    return (
        "--- a/f.txt\n+++ b/f.txt\n"
        "@@ -4,2 +4,3 @@\n line 4\n line 5\n+ADDED\n"
        f"@@ @@\n ADDED\n{context}-line 20\n+TWENTY\n line 21\n"
    )


@dataclass
class Declining:
    """An approver that declines the given hunks (by path and review index)."""

    declined: tuple[tuple[str, int], ...]
    reason: str = "keep line 20 as it is"
    seen: list[Preview] = field(default_factory=list)

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        self.seen.append(preview)
        return Decision(True, self.reason, declined=self.declined)


def test_declined_hunk_is_left_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(TEXT)
    plan = plan_patch(tmp_path, three_changes())
    preview = plan.preview()
    assert [h.index for h in preview.files[0].hunks] == [1, 2, 3]
    chosen = select(plan, preview, Decision(True, declined=(("f.txt", 2),)))
    (change,) = chosen.plan.changes
    assert (
        change.new
        == TEXT.replace("line 5\n", "FIVE\n").replace("line 35\n", "THIRTY-FIVE\n").encode()
    )
    assert chosen.preview.files[0].new_hash == hashlib.sha256(change.new).hexdigest()
    assert [d.index for d in chosen.declined] == [2]


def test_a_hunk_using_a_declined_hunks_lines_is_declined_with_it(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(TEXT)
    plan = plan_patch(tmp_path, dependent_pair())
    preview = plan.preview()
    _, second = preview.files[0].hunks
    assert second.depends_on == (1,)
    assert any("patch hunk 2" in note for note in second.notes)
    chosen = select(plan, preview, Decision(True, declined=(("f.txt", 1),)))
    assert chosen.everything_declined and chosen.plan.changes == ()
    assert [(d.index, d.because) for d in chosen.declined] == [(1, None), (2, 1)]
    keep_base = select(plan, preview, Decision(True, declined=(("f.txt", 2),)))
    assert keep_base.plan.changes[0].new == TEXT.replace("line 5\n", "line 5\nADDED\n").encode()


def test_declined_creation_and_deletion_are_not_written(tmp_path: Path) -> None:
    (tmp_path / "gone.txt").write_text("bye\n")
    (tmp_path / "f.txt").write_text(TEXT)
    patch = (
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"
        "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" + three_changes()
    )
    plan = plan_patch(tmp_path, patch)
    chosen = select(
        plan, plan.preview(), Decision(True, declined=(("new.txt", 1), ("gone.txt", 1)))
    )
    assert [c.path for c in chosen.plan.changes] == ["f.txt"]


async def test_the_boundary_writes_only_accepted_hunks_and_tells_the_model(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(TEXT)
    store = FakeStore()
    approver = Declining((("f.txt", 2),))
    boundary = make_boundary(tmp_path, approver=approver, store=store)
    result = await boundary.run(call("apply_patch", 1, patch=three_changes()))
    written = (tmp_path / "f.txt").read_text()
    assert written == TEXT.replace("line 5\n", "FIVE\n").replace("line 35\n", "THIRTY-FIVE\n")
    assert result.kind == "ok"
    assert result.output.splitlines()[0] == "M f.txt (+2 −2)"
    assert "declined by the user in review (not written): f.txt: hunk 2 (@@ -17,7 +17,7 @@)" in (
        result.output
    )
    assert "Reason: keep line 20 as it is" in result.output
    assert result.meta["changes"][0]["declined"] == [2]
    # the call row records the hashes of what was really written (recovery stays exact)
    (persisted,) = [v for k, v in store.log if k == "persist_call"]
    assert persisted[1].files[0].new_hash == hashlib.sha256(written.encode()).hexdigest()


async def test_declining_every_hunk_is_a_denial_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(TEXT)
    approver = Declining((("f.txt", 1),), reason="not now")
    boundary = make_boundary(tmp_path, approver=approver, store=FakeStore())
    result = await boundary.run(call("apply_patch", 1, patch=dependent_pair()))
    assert result.kind == "denied"
    assert "every hunk was declined" in result.output and "because it depends on hunk 1" in (
        result.output
    )
    assert (tmp_path / "f.txt").read_text() == TEXT


async def test_declined_hunks_of_a_write_call(tmp_path: Path) -> None:
    """Every mutation offers the same review: a write's diff hunks can be declined too."""
    (tmp_path / "f.txt").write_text(TEXT)
    new = TEXT.replace("line 2\n", "TWO\n").replace("line 30\n", "THIRTY\n")
    boundary = make_boundary(tmp_path, approver=Declining((("f.txt", 1),)), store=FakeStore())
    model_has_read(boundary, "f.txt")
    result = await boundary.run(call("write", 1, path="f.txt", content=new))
    assert result.kind == "ok"
    assert (tmp_path / "f.txt").read_text() == TEXT.replace("line 30\n", "THIRTY\n")
