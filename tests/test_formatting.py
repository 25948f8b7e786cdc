"""The person's formatters (``tools/formatting.py``): what a call will write is formatted
before the review, so the diff approved, the bytes written and the undo hold one text."""

from __future__ import annotations

import asyncio
import hashlib
import sys
from pathlib import Path
from typing import Any

import pytest

from frontier.app.check_text import check_lines
from frontier.app.events import Event
from frontier.tools.after_edit import CheckSettings
from frontier.tools.base import CancelToken
from frontier.tools.formatting import UNFORMATTED, Formatters, _filter, command_line
from frontier.tools.sandbox import SandboxSettings, make_sandbox
from tests.test_tools_fakes import Approver, FakeStore, call, make_boundary

PY = sys.executable
UPPER = CheckSettings(
    "upper", f'{PY} -c "import sys; sys.stdout.write(sys.stdin.read().upper())"', ("*.py",)
)
"""A formatter that upper-cases a ``.py`` file (stdin to stdout, as ``ruff format -``)."""


def boundary_with(
    tmp_path: Path, *formatters: CheckSettings, sandbox: Any = None, **kw: Any
) -> Any:
    events: list[Event] = kw.pop("events", [])
    b = make_boundary(tmp_path, events=events, **kw)
    b.formatters = Formatters(formatters, b.root, sandbox)
    return b


async def test_the_review_shows_the_formatted_file_and_that_is_what_is_written(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("X = 1\n")  # formatted before: upper-case
    approver = Approver()
    store = FakeStore()
    b = boundary_with(tmp_path, UPPER, approver=approver, store=store)
    result = await b.run(call("replace", path="a.py", old="X = 1", new="y = 2"))
    assert result.kind == "ok"
    assert (tmp_path / "a.py").read_text() == "Y = 2\n"
    ((_, preview),) = approver.seen  # the person approved the formatted text
    (shown,) = preview.files
    assert shown.new_text == "Y = 2\n"
    assert preview.summary.endswith(" · formatted by upper")  # the review's header says so
    assert shown.new_hash == hashlib.sha256(b"Y = 2\n").hexdigest()  # the undo's "after"
    assert "The person's formatter (upper) rewrote a.py before it was written" in result.output
    assert "-y = 2\n+Y = 2" in result.output  # the diff from the model's version
    assert result.meta["formatted"] == ["a.py"] and result.meta["formatted_by"] == ["upper"]
    assert check_lines(result.meta) == [("✎ formatted by upper: a.py", False)]


async def test_a_projects_formatter_is_said_to_be_the_projects(tmp_path: Path) -> None:
    """One from ``.frontier/checks.toml`` (trusted) is named to the model as the project's,
    with its name: its settings are in the workspace, where the model can read them."""
    from dataclasses import replace as changed

    (tmp_path / "a.py").write_text("X = 1\n")
    b = boundary_with(tmp_path, changed(UPPER, project=True))
    result = await b.run(call("replace", path="a.py", old="X = 1", new="y = 2"))
    assert "The project's formatter (upper) rewrote a.py before it was written" in result.output


async def test_a_formatter_that_refuses_leaves_the_models_version_and_says_why(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    refuses = CheckSettings("strict", "echo 'error: cannot parse a.py:1' >&2; exit 2")
    silent = CheckSettings("silent", "cat >/dev/null")
    b = boundary_with(tmp_path, refuses, silent)
    result = await b.run(call("replace", path="a.py", old="x = 1", new="y = (2"))
    assert (tmp_path / "a.py").read_text() == "y = (2\n"
    assert "[the person's formatter left it as sent: strict on a.py: exit 2: error: cannot " in (
        result.output
    )
    assert "silent on a.py: it printed nothing" in result.output
    assert "formatted" not in result.meta and len(result.meta["format_failed"]) == 2
    assert check_lines(result.meta)[0] == (
        "✗ not formatted: strict on a.py: exit 2: error: cannot parse a.py:1",
        True,
    )


async def test_no_formatter_for_other_files_deletions_or_a_dry_run(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("hello\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    b = boundary_with(tmp_path, UPPER)
    md = await b.run(call("replace", path="notes.md", old="hello", new="hi"))
    assert (tmp_path / "notes.md").read_text() == "hi\n" and "formatted" not in md.meta
    dry = await b.run(call("replace", 2, path="a.py", old="x = 1", new="y", dry_run="true"))
    assert "dry run" in dry.output and "Y" not in dry.output
    patch = "*** Begin Patch\n*** Delete File: a.py\n*** End Patch"
    gone = await b.run(call("apply_patch", 3, patch=patch))
    assert gone.kind == "ok" and not (tmp_path / "a.py").exists()


async def test_esc_stops_a_formatter_and_the_models_version_is_kept(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    started = tmp_path.parent / f"{tmp_path.name}-started"
    slow = CheckSettings("slow", f"touch {started}; sleep 120", timeout=300)
    b = boundary_with(tmp_path, slow)
    task = asyncio.ensure_future(b.run(call("replace", path="a.py", old="1", new="2")))
    for _ in range(6000):  # the formatter's process has begun (its own word, on disk)
        if started.exists():
            break
        await asyncio.sleep(0.01)
    assert started.exists()
    b.cancel_running()
    result = await asyncio.wait_for(task, 60)
    assert (tmp_path / "a.py").read_text() == "x = 2\n"
    assert "slow on a.py: stopped by the person" in result.output


async def test_a_timeout_and_an_output_past_the_cap_keep_the_models_version() -> None:
    data = b"x = 1\n"
    out, why = await _filter(["sleep", "60"], data, ".", {}, 0.3, CancelToken(), 1 << 20)
    assert (out, why) == (data, "timed out after 0 s")
    flood = ["sh", "-c", "cat >/dev/null; yes"]
    out, why = await _filter(flood, data, ".", {}, 60, CancelToken(), 4096)
    assert (out, why) == (data, "its output was over 0 MiB")


def test_the_files_name_is_quoted_for_the_shell() -> None:
    fmt = CheckSettings("f", "fmt --stdin-filename {file} -")
    assert command_line(fmt, "$(touch x).py") == "fmt --stdin-filename '$(touch x).py' -"
    assert command_line(fmt, "-rf.py") == "fmt --stdin-filename ./-rf.py -"


_BOX = make_sandbox(SandboxSettings())


@pytest.mark.skipif(not _BOX.active, reason=f"no OS sandbox here ({_BOX.label})")
async def test_a_formatter_reads_and_prints_but_writes_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("X = 1\n")
    box = make_sandbox(SandboxSettings(mode="workspace-write"), ws)
    sneaky = CheckSettings("sneaky", "touch made.txt 2>/dev/null; tr a-z A-Z")
    try:
        b = boundary_with(ws, sneaky, sandbox=box)
        result = await b.run(call("replace", path="a.py", old="X = 1", new="y = 2"))
    finally:
        box.close()
    assert (ws / "a.py").read_text() == "Y = 2\n" and not (ws / "made.txt").exists()
    assert result.meta["formatted"] == ["a.py"]


async def test_a_formatting_step_that_breaks_leaves_the_call_as_the_model_wrote_it(
    tmp_path: Path,
) -> None:
    class Broken(Formatters):
        async def __call__(self, prepared: Any, cancel: CancelToken) -> Any:
            raise RuntimeError("boom")

    (tmp_path / "a.py").write_text("x = 1\n")
    b = make_boundary(tmp_path)
    b.formatters = Broken([UPPER], b.root, None)
    result = await b.run(call("replace", path="a.py", old="x = 1", new="y = 2"))
    assert result.kind == "ok" and (tmp_path / "a.py").read_text() == "y = 2\n"
    assert "left it as sent: the formatting step failed: boom" in result.output


async def test_paused_formatters_leave_every_call_as_the_model_wrote_it(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    b = boundary_with(tmp_path, UPPER)
    b.formatters.paused = True  # /checks off
    result = await b.run(call("replace", path="a.py", old="x = 1", new="y = 2"))
    assert (tmp_path / "a.py").read_text() == "y = 2\n" and "formatted" not in result.meta
    b.formatters.paused = False
    (tmp_path / "b.py").write_text("B = 1\n")
    await b.run(call("replace", 2, path="b.py", old="B = 1", new="z = 3"))
    assert (tmp_path / "b.py").read_text() == "Z = 3\n"


async def test_a_file_not_formatted_before_the_edit_is_left_as_the_model_sent_it(
    tmp_path: Path,
) -> None:
    """Formatting a file nobody formatted would rewrite every line of it in the review and
    the history, for a one-line change: left as sent, and said, unless ``reformat``."""
    from dataclasses import replace as changed

    (tmp_path / "legacy.py").write_text("x = 1\nkeep = 'me'\n")
    b = boundary_with(tmp_path, UPPER)
    result = await b.run(call("replace", path="legacy.py", old="x = 1", new="y = 2"))
    assert (tmp_path / "legacy.py").read_text() == "y = 2\nkeep = 'me'\n"
    assert "formatted" not in result.meta and "format_failed" not in result.meta
    assert result.meta["format_left"] == [f"upper on legacy.py: {UNFORMATTED}"]
    assert f"[the person's formatter left it as sent: upper on legacy.py: {UNFORMATTED}]" in (
        result.output
    )
    assert check_lines(result.meta) == [
        (f"· not formatted: upper on legacy.py: {UNFORMATTED}", False)
    ]
    # a new file has no "before": formatted
    new = await b.run(call("write", 2, path="new.py", content="n = 1\n"))
    assert (tmp_path / "new.py").read_text() == "N = 1\n" and new.meta["formatted"] == ["new.py"]
    # reformat = true formats it whole
    b.formatters = Formatters([changed(UPPER, reformat=True)], b.root, None)
    await b.run(call("replace", 3, path="legacy.py", old="y = 2", new="z = 3"))
    assert (tmp_path / "legacy.py").read_text() == "Z = 3\nKEEP = 'ME'\n"
