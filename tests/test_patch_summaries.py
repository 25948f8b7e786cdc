"""Patch calls and results as people read them: ``apply_patch (2 files)`` while it is
a call, ``M path (+3 −1)`` lines once it ran — in the panes, headless and the export.

Results are built here as the engine will make them: ``meta["changes"]`` (status,
path, from, added, removed, hunks, declined) and ``meta["already_applied"]``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from frontier.app.agent.history_events import history_events
from frontier.app.cli import main
from frontier.app.events import CallReady, ToolCall, ToolFinished, ToolResult, ToolStarted
from frontier.app.frontends.headless import EventPrinter, describe, render_preview
from frontier.app.session.export import to_markdown
from frontier.app.session.store import LogRecord, SessionInfo, SessionStore
from frontier.tools.contract import FilePreview, Preview, ToolSpec
from frontier.tools.patch_summary import (
    MAX_PATCH_PATHS,
    change_line,
    change_lines,
    patch_label,
    patch_paths,
)
from frontier.widgets.state import UiState, summarize_call
from frontier.widgets.tools_pane import tool_lines
from frontier.widgets.transcript import render_entry

UNIFIED = """\
diff --git a/app/cli.py b/app/cli.py
--- a/app/cli.py
+++ b/app/cli.py
@@ -1,3 +1,4 @@
 import argparse
+import sys
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
--- gone
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+hi
"""

CODEX = """\
*** Begin Patch
*** Add File: NOTES.md
+# Notes
+--- not a header
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print("Hi")
+print("Hello")
*** Delete File: obsolete.txt
*** End Patch
"""

TWO = [
    {
        "status": "M",
        "path": "app/cli.py",
        "from": None,
        "added": 3,
        "removed": 1,
        "hunks": 2,
        "declined": [],
    },
    {
        "status": "A",
        "path": "NOTES.md",
        "from": None,
        "added": 1,
        "removed": 0,
        "hunks": 1,
        "declined": [],
    },
]
PATCH_SPEC = ToolSpec("apply_patch", "", {}, sequential=True, mutates=True, kind="edit")
WRITE_SPEC = ToolSpec("write", "", {}, sequential=True, mutates=True, kind="edit")


def change(path: str, status: str = "M", **kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "status": status,
        "path": path,
        "from": None,
        "added": 1,
        "removed": 0,
        "hunks": 1,
        "declined": [],
    }
    return base | kw


def patch_result(meta: dict[str, object], call_id: str = "c2") -> ToolResult:
    return ToolResult(call_id, "apply_patch", "ok", "applied:\nM app/cli.py", 0, 0.03, meta)


# ----------------------------------------------------------------------------- patch_paths


def test_unified_headers_give_each_file_once() -> None:
    # a/ b/ stripped; a deletion named by its --- side; the removed line "-- gone" of
    # a hunk body is not a header (no +++ line follows it)
    assert patch_paths(UNIFIED) == ["app/cli.py", "old.txt", "new.txt"]


def test_codex_headers_and_moves() -> None:
    assert patch_paths(CODEX) == ["NOTES.md", "src/main.py", "obsolete.txt"]


@pytest.mark.parametrize(
    ("text", "paths"),
    [
        (
            "--- a/x.py\t2024-01-01 10:00:00\n+++ b/x.py\t2024-01-02 10:00:00\n"
            "@@ -1 +1 @@\n-a\n+b\n",
            ["x.py"],
        ),
        ("--- a/x.py\r\n+++ b/x.py\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n", ["x.py"]),
        ("--- x.py.orig\n+++ x.py\n@@ -1 +1 @@\n-a\n+b\n", ["x.py"]),
        ('--- "a/with space.py"\n+++ "b/with space.py"\n', ["with space.py"]),
        (
            "diff --git a/p.py b/q.py\nsimilarity index 100%\nrename from p.py\nrename to q.py\n",
            ["q.py"],
        ),
        ("diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n", ["empty"]),
        ("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n", ["run.sh"]),
        ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/x\n+++ b/x\n@@ -5 +5 @@\n-c\n+d\n", ["x"]),
        ("no patch here\n", []),
        ("", []),
        (
            "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End of File\n*** End Patch",
            ["a.py"],
        ),
    ],
)
def test_headers_in_their_variants(text: str, paths: list[str]) -> None:
    assert patch_paths(text) == paths


def test_patch_paths_is_bounded() -> None:
    text = "*** Begin Patch\n" + "".join(f"*** Add File: f{i}\n+x\n" for i in range(5000))
    paths = patch_paths(text + "*** End Patch\n")
    assert len(paths) == MAX_PATCH_PATHS and paths[0] == "f0"
    text += "*** End Patch\n"
    assert patch_label(text) == f"({MAX_PATCH_PATHS}+ files)"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (UNIFIED, "(3 files)"),
        ("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n", "a.py"),
        ("garbage", "(unreadable patch)"),
    ],
)
def test_the_call_label(text: str, label: str) -> None:
    assert patch_label(text) == label
    assert summarize_call(ToolCall("c1", "apply_patch", {"patch": text})) == label
    assert summarize_call(ToolCall("c1", "apply_patch", {"patch": text.encode()})) == label


# ----------------------------------------------------------------------------- change lines


@pytest.mark.parametrize(
    ("entry", "line"),
    [
        (change("app/cli.py", added=3, removed=1), "M app/cli.py (+3 −1)"),
        (change("NOTES.md", "A", added=10), "A NOTES.md (+10 −0)"),
        (change("old.txt", "D", added=0, removed=7), "D old.txt (+0 −7)"),
        (
            change("src/main.py", "R", **{"from": "src/app.py"}),
            "R src/app.py → src/main.py (+1 −0)",
        ),
        (change("a.py", hunks=3, declined=[2]), "M a.py (+1 −0; hunk 2 of 3 declined)"),
        (change("a.py", hunks=4, declined=[2, 3]), "M a.py (+1 −0; hunks 2, 3 of 4 declined)"),
        ({"path": "odd.py", "added": "x", "removed": None}, "M odd.py (+0 −0)"),
    ],
)
def test_change_line(entry: dict[str, object], line: str) -> None:
    assert change_line(entry) == line


def test_change_lines_cut_after_a_limit() -> None:
    meta = {"changes": [change(f"f{i}.py") for i in range(5)], "already_applied": False}
    assert change_lines(meta, 3) == [
        "M f0.py (+1 −0)",
        "M f1.py (+1 −0)",
        "M f2.py (+1 −0)",
        "+2 more",
    ]
    assert len(change_lines(meta)) == 5


@pytest.mark.parametrize(
    ("meta", "lines"),
    [
        ({"changes": [], "already_applied": True}, ["already applied"]),
        ({"files": ["a.py"]}, []),  # a result from before meta["changes"]
        ({"changes": "nonsense"}, []),
        ({"changes": [1, None, change("a.py")]}, ["M a.py (+1 −0)"]),
        (None, []),
    ],
)
def test_change_lines_read_only_what_is_there(meta: dict | None, lines: list[str]) -> None:
    assert change_lines(meta) == lines


# ----------------------------------------------------------------------------- the panes


def finished_state(meta: dict[str, object], patch: str = UNIFIED) -> UiState:
    state = UiState(clock=lambda: 100.0)
    call = ToolCall("c2", "apply_patch", {"patch": patch})
    state.apply(CallReady(call))
    state.apply(ToolStarted(call))
    state.apply(ToolFinished(patch_result(meta)))
    return state


def test_tools_pane_row_shows_the_files_of_the_result() -> None:
    state = finished_state({"changes": TWO, "already_applied": False})
    row = state.tools["c2"]
    assert row.summary == "(3 files)"  # from the call's headers, while it was a call
    assert row.changes == ("M app/cli.py (+3 −1)", "A NOTES.md (+1 −0)")
    (line,) = tool_lines([row], now=100.0, width=160)
    assert line.plain.startswith("▸ c2 apply_patch (3 files)")
    assert line.plain.rstrip().endswith("M app/cli.py (+3 −1) · A NOTES.md (+1 −0)")
    assert "applied:" not in line.plain


def test_tools_pane_row_cuts_after_three_files() -> None:
    state = finished_state({"changes": [change(f"f{i}.py") for i in range(5)]})
    (line,) = tool_lines(state.tools.values(), now=100.0, width=200)
    assert line.plain.rstrip().endswith("M f2.py (+1 −0) · +2 more")
    assert "f3.py" not in line.plain


def test_tools_pane_row_says_already_applied() -> None:
    state = finished_state({"changes": [], "already_applied": True})
    (line,) = tool_lines(state.tools.values(), now=100.0, width=160)
    assert line.plain.rstrip().endswith("already applied")


def test_a_result_without_changes_shows_its_first_line_as_before() -> None:
    state = UiState(clock=lambda: 1.0)
    call = ToolCall("c1", "shell", {"command": "pytest -q"})
    state.apply(CallReady(call))
    state.apply(ToolFinished(ToolResult("c1", "shell", "ok", "3 passed\n", 0, 1.0)))
    assert state.tools["c1"].changes == ()
    (line,) = tool_lines(state.tools.values(), now=1.0, width=160)
    assert line.plain.rstrip().endswith("3 passed")


def test_transcript_lists_the_files_under_the_call() -> None:
    state = finished_state({"changes": TWO})
    entry = next(e for e in state.transcript if e.call_id == "c2")
    lines = render_entry(entry, state.tools["c2"], 100.0).plain.split("\n")
    assert lines[0] == "▸ c2 apply_patch (3 files)"
    assert lines[1:] == ["  M app/cli.py (+3 −1)", "  A NOTES.md (+1 −0)", "  ok exit=0 · 0.03 s"]


def test_transcript_lists_the_formatter_and_the_checks_under_the_files() -> None:
    """What the person's formatter did and each after-edit check's verdict, a line each
    after the files (``app/check_text.py``): a failure in bold, with its first line."""
    checks = [
        {"name": "ruff", "outcome": "failed", "exit": 1, "seconds": 0.2, "first": "F821 `os`"},
        {"name": "mypy", "outcome": "passed", "exit": 0, "seconds": 3.1, "first": ""},
    ]
    state = finished_state({"changes": TWO, "formatted": ["app/cli.py"], "checks": checks})
    entry = next(e for e in state.transcript if e.call_id == "c2")
    shown = render_entry(entry, state.tools["c2"], 100.0)
    lines = shown.plain.split("\n")
    assert lines[1:] == [
        "  M app/cli.py (+3 −1)",
        "  A NOTES.md (+1 −0)",
        "  ✎ formatted by your formatter: app/cli.py",  # stored before formatted_by (stop 66)
        "  ✗ check ruff: exit 1 · 0.2 s · F821 `os`",
        "  ✓ check mypy: passed · 3.1 s",
        "  ok exit=0 · 0.03 s",
    ]
    failed = shown.plain.index("✗ check ruff")
    assert any(
        span.start <= failed < span.end and "bold" in str(span.style) for span in shown.spans
    )


def test_a_command_whose_changes_were_not_recorded_says_so_under_its_output() -> None:
    """``meta["unwatched"]`` (tools/command_changes.py): past its bounds, a command's
    changes are not recorded; the person sees it where the command is, before /undo says."""
    state = UiState(clock=lambda: 1.0)
    state.apply(CallReady(ToolCall("c1", "shell", {"command": "ruff check --fix ."})))
    meta = {"unwatched": "it names more than 2,000 files"}
    state.apply(ToolFinished(ToolResult("c1", "shell", "ok", "Found 0 errors.\n", 0, 1.0, meta)))
    entry = next(e for e in state.transcript if e.call_id == "c1")
    lines = render_entry(entry, state.tools["c1"], 1.0).plain.split("\n")
    assert lines[1:] == [
        "  Found 0 errors.",
        "  · its changes were not recorded, so /undo cannot put them back: it names more "
        "than 2,000 files",
        "  ok exit=0 · 1.00 s",
    ]


def test_a_codex_patch_call_is_labelled_from_its_headers() -> None:
    state = finished_state({"changes": TWO}, patch=CODEX)
    assert state.tools["c2"].summary == "(3 files)"


def test_a_resumed_sessions_history_shows_the_changes() -> None:
    call = {"id": "c2", "name": "apply_patch", "args": {"patch": CODEX}}
    result = {
        "id": "c2",
        "name": "apply_patch",
        "kind": "ok",
        "output": "applied:\n…",
        "meta": {"changes": TWO},
    }
    state = UiState()
    records = [
        LogRecord(1, "call", 0.0, "c2", None, None, call),
        LogRecord(2, "result", 0.0, "c2", 1, None, result),
    ]
    state.show_history(history_events(records))
    entry = state.transcript[-1]
    assert entry.role == "call" and entry.tool is not None and not state.tools
    assert render_entry(entry, entry.tool, 0.0).plain.split("\n")[:3] == [
        "▸ c2 apply_patch (3 files)",
        "  M app/cli.py (+3 −1)",
        "  A NOTES.md (+1 −0)",
    ]


# ----------------------------------------------------------------------------- headless


def test_headless_text_prints_one_line_per_file() -> None:
    text = describe(ToolFinished(patch_result({"changes": TWO, "already_applied": False})))
    assert text == (
        "  ✓ c2 apply_patch ok exit=0 0.03s\n      M app/cli.py (+3 −1)\n      A NOTES.md (+1 −0)"
    )


def test_headless_text_prints_what_the_formatters_and_checks_said_under_the_files() -> None:
    meta = {
        "changes": TWO,
        "already_applied": False,
        "formatted": ["app/cli.py"],
        "formatted_by": ["ruff"],
        "format_failed": ["ruff on NOTES.md: exit 2"],
        "checks": [{"name": "lint", "outcome": "failed", "exit": 1, "first": "F401"}],
    }
    text = describe(ToolFinished(patch_result(meta))) or ""
    assert text.splitlines()[3:] == [
        "      ✎ formatted by ruff: app/cli.py",
        "      ✗ not formatted: ruff on NOTES.md: exit 2",
        "      ✗ check lint: exit 1 · F401",
    ]


def test_headless_text_says_already_applied() -> None:
    text = describe(ToolFinished(patch_result({"changes": [], "already_applied": True})))
    assert text == "  ✓ c2 apply_patch ok exit=0 0.03s  already applied"


def test_headless_text_without_changes_is_unchanged() -> None:
    result = ToolResult("c1", "shell", "ok", "3 passed\n", 0, 1.5)
    assert describe(ToolFinished(result)) == "  ✓ c1 shell ok exit=0 1.50s  3 passed"


def test_headless_json_carries_the_changes_as_they_are() -> None:
    out = io.StringIO()
    printer = EventPrinter(out, as_json=True)
    declined = [change("a.py", hunks=3, declined=[2])]
    printer(ToolFinished(patch_result({"changes": declined, "already_applied": False})))
    printer(ToolFinished(ToolResult("c3", "shell", "ok", "x", 0, 0.1)))
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["type"] == "tool_finished" and first["changes"] == declined
    assert first["already_applied"] is False
    assert "changes" not in second and "already_applied" not in second


def test_the_approval_prompt_still_shows_the_preview_diffs() -> None:
    files = (
        FilePreview(
            "a.py", "x\n", "y\n", "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n", "h", "i"
        ),
    )
    assert render_preview(Preview("diff", files, summary="1 file")) == files[0].diff


# ----------------------------------------------------------------------------- export

FENCED_PATCH = """\
--- a/README.md
+++ b/README.md
@@ -1,2 +1,5 @@
 # Demo
+```sh
+greet --shout Ada
+```
"""


def info() -> SessionInfo:
    with SessionStore.open() as store:
        sid = store.create_session("/proj", "gpt-4.1", None, "ctl-heredoc")
        return store.get_session(sid)


def test_export_shows_a_patch_as_a_diff_block_with_its_files() -> None:
    records = [
        {"type": "call", "id": "c2", "name": "apply_patch", "args": {"patch": FENCED_PATCH}}
        | {"tool_kind": "edit", "targets": [], "started": True},
        {"type": "result", "id": "c2", "name": "apply_patch", "kind": "ok", "exit": None}
        | {"elapsed": 0.03, "output": "applied:\nM README.md", "recovered": False}
        | {"changes": [change("README.md", added=3)], "already_applied": False},
    ]
    text = to_markdown(info(), records)
    # the patch holds a ``` fence, so the block's fence is longer
    assert "### ▸ apply_patch `c2`\n\n````diff\n--- a/README.md\n" in text
    assert "+```\n````\n" in text
    assert "- `M README.md (+3 −0)`" in text
    assert "applied:" not in text  # the summary lines replace the raw output


def test_a_command_that_changed_files_keeps_its_output_and_lists_its_files() -> None:
    """A command's output is what it said (test results, `3 files reformatted`): unlike an
    edit's `applied:`, the files it changed (tools/command_changes.py) come after it, in
    the export, the Transcript and the headless log alike."""
    records = [
        {"type": "call", "id": "c1", "name": "shell", "args": {"command": "ruff format"}}
        | {"tool_kind": "exec", "targets": [], "started": True},
        {"type": "result", "id": "c1", "name": "shell", "kind": "ok", "exit": 0}
        | {"elapsed": 0.1, "output": "1 file reformatted\n", "recovered": False}
        | {"changes": [change("a.py", added=1)], "sandbox": "workspace-write · net off"},
    ]
    text = to_markdown(info(), records)
    assert "```text\n1 file reformatted\n```\n\n- `M a.py (+1 −0)`" in text
    meta = {"changes": [change("a.py", added=1)], "sandbox": {"mode": "workspace-write"}}
    said = "1 file reformatted\n[the command changed 1 file: M a.py (+1 −0)]"
    result = ToolResult("c1", "shell", "ok", said, 0, 0.1, meta)
    assert (describe(ToolFinished(result)) or "").splitlines() == [
        "  ✓ c1 shell ok exit=0 0.10s  1 file reformatted",
        "      M a.py (+1 −0)",
    ]
    state = UiState(clock=lambda: 1.0)
    state.apply(CallReady(ToolCall("c1", "shell", {"command": "ruff format"})))
    state.apply(ToolFinished(result))
    entry = next(e for e in state.transcript if e.call_id == "c1")
    lines = render_entry(entry, state.tools["c1"], 1.0).plain.split("\n")
    # the note to the model is not folded in: the row lists the files itself
    assert lines[1:3] == ["  1 file reformatted", "  M a.py (+1 −0)"]
    assert lines[3].startswith("  ok exit=0 · 0.10 s")
    assert state.tools["c1"].whole() == said  # the pager and copy: what the model got


def test_export_shows_a_codex_envelope_as_a_diff_block_too() -> None:
    records = [
        {"type": "call", "id": "c1", "name": "apply_patch", "args": {"patch": CODEX}}
        | {"tool_kind": "edit", "targets": [], "started": True},
        {"type": "result", "id": "c1", "name": "apply_patch", "kind": "ok", "exit": None}
        | {"elapsed": 0.0, "output": "", "recovered": False, "already_applied": True},
    ]
    text = to_markdown(info(), records)
    assert "```diff\n*** Begin Patch\n*** Add File: NOTES.md\n" in text
    assert "*** End Patch\n```" in text
    assert "- `already applied`" in text


def test_export_other_mutations_use_the_preview_diff_when_recorded_else_arguments() -> None:
    diff = "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n"
    base = {"type": "call", "name": "write", "tool_kind": "edit", "targets": [], "started": True}
    records = [
        base | {"id": "w1", "args": {"path": "n.txt", "content": "hi\n"}, "diff": diff},
        base | {"id": "w2", "args": {"path": "m.txt", "content": "yo\n"}},
    ]
    text = to_markdown(info(), records)
    assert "### ▸ write `w1`\n\n```diff\n--- /dev/null\n+++ b/n.txt\n" in text
    assert '### ▸ write `w2`\n\n```json\n{\n  "path": "m.txt"' in text


def test_export_from_the_store_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with SessionStore.open() as store:
        sid = store.create_session("/proj", "gpt-4.1", None, "ctl-heredoc")
        p = store.persistence(sid)
        call = ToolCall("c2", "apply_patch", {"patch": CODEX})
        p.persist_call(call, PATCH_SPEC, Preview("diff", summary="3 files"))
        p.mark_started("c2")
        p.commit_result(patch_result({"changes": TWO, "already_applied": False}))
    out = tmp_path / "s.md"
    assert main(["export", sid, "--format", "markdown", "-o", str(out)]) == 0
    text = out.read_text()
    assert "```diff\n*** Begin Patch\n" in text
    assert "- `M app/cli.py (+3 −1)`\n- `A NOTES.md (+1 −0)`" in text

    capsys.readouterr()
    assert main(["export", sid, "--format", "jsonl"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (result,) = [r for r in records if r["type"] == "result"]
    assert result["changes"] == TWO and result["already_applied"] is False


def test_the_model_s_command_is_kept_with_the_call_it_became(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A shell call run as a patch (`sed -i …` as `apply_patch`) is stored with the model's
    command: a resumed session's row, the store's reading of the call (a resume sends it)
    and the export say it, as the live session did."""
    from frontier.app.agent.history_events import read_tail

    command = "sed -i 's/8000/9000/' settings.py"
    with SessionStore.open() as store:
        sid = store.create_session("/proj", "gpt-4.1", None, "native-inc")
        p = store.persistence(sid)
        call = ToolCall("c2", "apply_patch", {"patch": CODEX}, 0, command)
        p.persist_call(call, PATCH_SPEC, Preview("diff", summary="3 files"))
        p.mark_started("c2")
        p.commit_result(patch_result({"changes": TWO, "already_applied": False}))
        events = read_tail(store, sid, None).events
        ((stored, _),) = store.undelivered(sid)
    (ready,) = [e for e in events if isinstance(e, CallReady)]
    assert ready.call.origin == command and stored is not None and stored.origin == command
    state = UiState()
    state.show_history(events)
    entry = state.transcript[-1]
    assert entry.tool is not None
    assert render_entry(entry, entry.tool, 0.0).plain.startswith(
        f"▸ c2 apply_patch (3 files) ← {command}"
    )

    assert main(["export", sid, "--format", "jsonl"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (exported,) = [r for r in records if r["type"] == "call"]
    assert exported["from"] == command
    out = tmp_path / "s.md"
    assert main(["export", sid, "--format", "markdown", "-o", str(out)]) == 0
    assert f"### ▸ apply_patch `c2`\n\nFrom the model's command: `{command}`\n\n" in (
        out.read_text()
    )


def test_an_export_shows_a_here_document_command_as_a_block() -> None:
    command = "git apply <<'EOF'\n--- a/a.py\n+++ b/a.py\nEOF"
    records = [
        {"type": "call", "id": "c1", "name": "apply_patch", "args": {"patch": FENCED_PATCH}}
        | {"tool_kind": "edit", "targets": [], "started": True, "from": command},
    ]
    text = to_markdown(info(), records)
    assert f"From the model's command:\n\n```sh\n{command}\n```\n\n````diff\n" in text
