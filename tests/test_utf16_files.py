"""UTF-16 files, told by their byte order mark (PowerShell 5's ``>``, ``reg export``, SQL
Server's scripts): ``read`` called them binary and ``grep`` passed over them; an edit said
"`old` not found" and a patch "context not found", naming no cause (``tools/utf16.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_tools_fakes import call, make_boundary, model_has_read

from frontier.tools import search

LOG = "Line one\r\nLine two: café\r\n"


@pytest.fixture(params=["utf-16-le", "utf-16-be"])
def wide(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    mark = b"\xff\xfe" if request.param == "utf-16-le" else b"\xfe\xff"
    (tmp_path / "build.log").write_bytes(mark + LOG.encode(request.param))
    return tmp_path


async def test_read_shows_a_utf16_file_as_its_text(wide: Path) -> None:
    r = await make_boundary(wide).run(call("read", path="build.log"))
    assert r.kind == "ok", r.output
    assert r.output.splitlines()[:2] == ["     1\tLine one", "     2\tLine two: café"]
    assert r.output.endswith("[build.log is UTF-16 text, shown decoded]")


@pytest.mark.parametrize("ripgrep", [False, True])
async def test_grep_finds_text_in_a_utf16_file_with_either_searcher(
    wide: Path, monkeypatch: pytest.MonkeyPatch, ripgrep: bool
) -> None:
    if ripgrep and shutil.which("rg") is None:
        pytest.skip("ripgrep not installed")
    monkeypatch.setattr(search.GrepTool, "use_ripgrep", ripgrep)
    (wide / "App.cs").write_bytes(b"\xef\xbb\xbfusing System;\nclass App {}\n")
    (wide / "blob.bin").write_bytes(b"caf\x00e two\n")  # NUL bytes and no mark: binary
    r = await make_boundary(wide).run(call("grep", pattern="caf|^using"))
    assert r.output.splitlines() == [
        "App.cs:1:using System;",  # UTF-8's mark is not part of line 1
        "build.log:2:Line two: café",
        "[2 matches in 2 files]",
    ]


@pytest.mark.parametrize(
    "tool",
    [
        call("replace", path="build.log", old="two", new="2"),
        call("multi", path="build.log", edits=[{"old": "two", "new": "2"}]),
        call(
            "apply_patch",
            patch="*** Begin Patch\n*** Update File: build.log\n@@\n-Line one\n+Line 1\n"
            "*** End Patch\n",
        ),
    ],
    ids=["replace", "multi", "apply_patch"],
)
async def test_an_edit_of_a_utf16_file_is_refused_saying_why(wide: Path, tool: object) -> None:
    before = (wide / "build.log").read_bytes()
    r = await make_boundary(wide).run(tool)  # type: ignore[arg-type]
    assert r.kind == "error"
    assert "build.log is UTF-16 text (its byte order mark says so)" in r.output
    assert "change it with a command" in r.output
    assert (wide / "build.log").read_bytes() == before


async def test_write_over_a_utf16_file_keeps_it_utf16_and_the_review_shows_its_text(
    wide: Path,
) -> None:
    """``write`` wrote the model's content as UTF-8 over it, silently: a ``.reg`` export
    or a resource script that Windows tools read as UTF-16 no longer read. Kept now: the
    mark, the byte order, the CRLF; the review shows both sides as text."""
    from test_tools_fakes import Approver

    before = (wide / "build.log").read_bytes()
    mark, order = before[:2], "utf-16-le" if before[:2] == b"\xff\xfe" else "utf-16-be"
    approver = Approver()
    b = make_boundary(wide, approver=approver)
    model_has_read(b, "build.log")
    r = await b.run(call("write", path="build.log", content="Line one\nLine 2: café\n"))
    assert r.kind == "ok", r.output
    assert (wide / "build.log").read_bytes() == mark + "Line one\r\nLine 2: café\r\n".encode(order)
    ((_, preview),) = approver.seen
    (shown,) = preview.files
    assert "-Line two: café" in shown.diff and "+Line 2: café" in shown.diff
    assert "\x00" not in shown.diff
