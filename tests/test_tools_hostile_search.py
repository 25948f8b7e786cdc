"""grep and glob in a hostile workspace: links out of the root, link loops, FIFOs, odd names
and bytes, on both searchers (ripgrep and the Python walk), which must agree exactly."""

from __future__ import annotations

import asyncio
import errno
import os
import re
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from test_tools_fakes import call, make_boundary

from frontier.app.events import ToolResult
from frontier.tools import gitignore, search

RG = shutil.which("rg")
needs_rg = pytest.mark.skipif(RG is None, reason="ripgrep not installed")
SEARCHERS = [pytest.param(False, id="python"), pytest.param(True, id="rg", marks=needs_rg)]
BOUND = 20.0
"""Seconds any one call may take before the test fails (a hang, not a timing)."""


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """``ws`` with links leaving it, links inside it, loops, FIFOs and awkward files."""
    ws, out = tmp_path / "ws", tmp_path / "out"
    (out / "d").mkdir(parents=True)
    (out / "creds").write_text("AWS_SECRET=v\n")
    (out / "d" / "x").write_text("SECRET_IN_DIR\n")
    (ws / "in").mkdir(parents=True)
    (ws / "in" / "real.txt").write_text("SECRET_inside\n")
    (ws / "one.py").write_text("def f():\n    return 1\n")
    os.symlink(out / "creds", ws / "creds_link")  # a file link leaving the root
    os.symlink(out / "d", ws / "dir_link")  # a folder link leaving the root
    os.symlink("/", ws / "slash")  # the whole file system
    os.symlink("in/real.txt", ws / "inlink")  # a file link that stays inside
    os.symlink("in", ws / "indir")  # a folder link that stays inside
    os.symlink(".", ws / "in" / "self")  # a folder loop
    os.symlink("loop", ws / "loop")  # a link to itself
    os.mkfifo(ws / "fifo")
    os.mkfifo(ws / "in" / "pipe.txt")
    return ws


async def run(root: Path, name: str, rg: bool, **args: Any) -> ToolResult:
    search.GrepTool.use_ripgrep = rg
    try:
        boundary = make_boundary(root, policy="read-only")
        return await asyncio.wait_for(boundary.run(call(name, **args)), BOUND)
    finally:
        search.GrepTool.use_ripgrep = True


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_grep_never_reads_through_a_link_that_leaves_the_root(
    hostile: Path, rg: bool
) -> None:
    r = await run(hostile, "grep", rg, pattern="SECRET")
    assert r.kind == "ok"
    assert r.output.splitlines() == ["in/real.txt:1:SECRET_inside", "[1 match in 1 file]"]
    r = await run(hostile, "grep", rg, pattern="SECRET", path="creds_link")
    assert r.kind == "error" and "outside the workspace" in r.output
    assert "AWS_SECRET" not in r.output
    r = await run(hostile, "grep", rg, pattern="SECRET", path="dir_link")
    assert r.kind == "error" and "SECRET_IN_DIR" not in r.output


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_a_link_named_explicitly_that_stays_inside_is_its_target(
    hostile: Path, rg: bool
) -> None:
    for path in ("inlink", "indir", "in/self/real.txt"):
        r = await run(hostile, "grep", rg, pattern="SECRET", path=path)
        assert r.output.splitlines() == ["in/real.txt:1:SECRET_inside", "[1 match in 1 file]"]


async def test_glob_lists_regular_files_only_never_a_link(hostile: Path) -> None:
    r = await run(hostile, "glob", False, pattern="**")
    assert r.output.splitlines() == ["in/real.txt", "one.py", "[2 files]"]
    for pattern in ("creds_link", "dir_link/*", "slash/etc/*", "indir/*", "in/self/**", "fifo"):
        r = await run(hostile, "glob", False, pattern=pattern)
        assert r.output == f"no files match {pattern!r}", pattern


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_a_fifo_never_blocks_grep(hostile: Path, rg: bool) -> None:
    r = await run(hostile, "grep", rg, pattern="x", glob="*.txt")
    assert r.kind == "ok"
    r = await run(hostile, "grep", rg, pattern="x", path="fifo")
    assert r.kind == "error"
    assert r.output.startswith("grep: 'fifo' is a FIFO (named pipe), not a regular file")
    assert "internal error" not in r.output


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_hostile_gitignore_files_are_not_read(tmp_path: Path, rg: bool) -> None:
    """A .gitignore that is a FIFO, a link to /dev/zero or to a file outside: no rules, no
    hang, nothing read (ripgrep on its own hangs on the first two)."""
    for sub, make in (
        ("a", lambda p: os.mkfifo(p)),
        ("b", lambda p: os.symlink("/dev/zero", p)),
        ("c", lambda p: os.symlink(tmp_path / "rules", p)),
    ):
        (tmp_path / "ws" / sub).mkdir(parents=True)
        (tmp_path / "ws" / sub / "hit.txt").write_text("hit\n")
        make(tmp_path / "ws" / sub / ".gitignore")
    (tmp_path / "rules").write_text("*.txt\n")
    r = await run(tmp_path / "ws", "grep", rg, pattern="hit")
    assert r.output.splitlines() == [
        "a/hit.txt:1:hit",
        "b/hit.txt:1:hit",
        "c/hit.txt:1:hit",
        "[3 matches in 3 files]",
    ]


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_single_file_rows_have_the_path(hostile: Path, rg: bool) -> None:
    r = await run(hostile, "grep", rg, pattern="return", path="one.py")
    assert r.output.splitlines() == ["one.py:2:    return 1", "[1 match in 1 file]"]


# ----------------------------------------------------------------------------- parity


@pytest.fixture
def awkward(hostile: Path) -> Path:
    """On top of ``hostile``: every way the two searchers used to disagree."""
    files: dict[str, bytes] = {
        "crlf.txt": b"needle\r\nneedle end\r\n",
        "formfeed.txt": b"a\x0cneedle\nneedle 2\n",  # str.splitlines() split on \x0c
        "lonecr.txt": b"x\rneedle\n",
        "colon:name.txt": b"needle\n",
        "late_nul.txt": b"needle top\n" + b"x" * 200_000 + b"\n\x00\nneedle after\n",
        "utf16.txt": "needle\n".encode("utf-16"),  # a BOM: both read it as its text
        "bad_utf8.txt": b"caf\xe9 needle\n",
        "nonl.txt": b"first\nneedle no newline",
        "sub/.gitignore": b"ignored.txt\n[z-a]\n",
        "sub/ignored.txt": b"needle\n",
        "sub/kept.txt": b"needle\n",
        "wt/.git": b"gitdir: /elsewhere\nneedle\n",  # a worktree's .git file
        ".hidden": b"needle\n",
        "-dash.txt": b"needle\n",
        ".gitignore": b"*.log\nlogs/\n",
        "logs/a.txt": b"needle\n",
    }
    for name in ("st*ar", "sp ace", "[x]", "{a,b}", "#h", "!b", "back\\slash", "q?", "trail "):
        files[f"{name}.log"] = b"needle\n"
    for name, data in files.items():
        p = hostile / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (hostile / os.fsdecode(b"name\xff.txt")).write_bytes(b"needle\n")
    return hostile


EXPECTED = [
    "-dash.txt:1:needle",
    ".hidden:1:needle",
    "bad_utf8.txt:1:caf\ufffd needle",
    "colon:name.txt:1:needle",
    "crlf.txt:1:needle",
    "crlf.txt:2:needle end",
    "formfeed.txt:1:a\x0cneedle",
    "formfeed.txt:2:needle 2",
    "lonecr.txt:1:x\rneedle",
    "name\ufffd.txt:1:needle",
    "nonl.txt:2:needle no newline",
    "sub/kept.txt:1:needle",
    "utf16.txt:1:needle",
]


@needs_rg
@pytest.mark.parametrize(
    ("pattern", "path", "glob"),
    [
        ("needle", ".", None),
        ("needle|--x", ".", None),
        ("needle$", ".", None),
        (r"needle\r$", ".", None),
        ("(?<=a\x0c)needle", ".", None),  # ripgrep has no look-behind: Python runs
        ("[[:alpha:]]eedle", ".", None),  # a POSIX class means something else in Python
        ("needle", "sub", None),
        ("needle", ".", "*.txt"),
        ("needle", ".", "sub/*"),
        ("needle", "crlf.txt", None),
        ("needle", "sub/ignored.txt", None),  # named explicitly: searched
        ("needle", "late_nul.txt", None),
        ("SECRET", "indir", None),
    ],
)
async def test_ripgrep_and_python_agree(
    awkward: Path, pattern: str, path: str, glob: str | None
) -> None:
    outs = []
    for rg in (True, False):
        kwargs: dict[str, Any] = {"pattern": pattern, "path": path}
        if glob:
            kwargs["glob"] = glob
        r = await run(awkward, "grep", rg, **kwargs)
        outs.append(r.output)
    assert outs[0] == outs[1]


@needs_rg
async def test_the_two_searchers_give_the_rows_expected(awkward: Path) -> None:
    root = awkward.resolve()
    py = search.grep_python(root, ".", re.compile("needle"), None)
    found = await search.grep_rg(RG or "rg", root, ".", re.compile("needle"), None)
    assert found is not None
    assert py.rows == found.rows == EXPECTED
    assert py.skipped == found.skipped == ()


@needs_rg
async def test_an_ignored_name_ripgrep_cannot_be_told_falls_back_to_python(awkward: Path) -> None:
    """Entries left out are handed to ripgrep as ignore-file lines, which must be UTF-8."""
    (awkward / os.fsdecode(b"bad\xfe.log")).write_bytes(b"needle\n")
    root = awkward.resolve()
    assert await search.grep_rg(RG or "rg", root, ".", re.compile("needle"), None) is None
    r = await run(awkward, "grep", True, pattern="needle")
    assert r.output.split("\n")[:-1] == EXPECTED


async def test_python_rows_without_ripgrep(awkward: Path) -> None:
    py = search.grep_python(awkward.resolve(), ".", re.compile("needle"), None)
    assert py.rows == EXPECTED


@needs_rg
async def test_a_pattern_ripgrep_cannot_compile_falls_back_to_python(awkward: Path) -> None:
    root = awkward.resolve()
    assert await search.grep_rg(RG or "rg", root, ".", re.compile(r"(?<=x\r)needle"), None) is None
    r = await run(awkward, "grep", True, pattern=r"(?<=x\r)needle")
    assert r.output.split("\n") == ["lonecr.txt:1:x\rneedle", "[1 match in 1 file]"]


# ----------------------------------------------------------------------------- messages


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_plain_messages_for_paths_that_cannot_be_searched(hostile: Path, rg: bool) -> None:
    r = await run(hostile, "grep", rg, pattern="x", path="a" * 300)
    assert r.kind == "arg" and "too long" in r.output and "internal error" not in r.output
    r = await run(hostile, "grep", rg, pattern="x", path="loop")
    assert r.kind == "error" and "symbolic link loop" in r.output
    assert "internal error" not in r.output
    r = await run(hostile, "grep", rg, pattern="x", path="nothing/here")
    assert r.kind == "error" and "does not exist" in r.output
    r = await run(hostile, "grep", rg, pattern="x", path="one.py/x")
    assert r.kind == "error" and "internal error" not in r.output


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_bad_patterns_are_argument_errors(hostile: Path, rg: bool) -> None:
    r = await run(hostile, "grep", rg, pattern="[z-a]")
    assert r.kind == "arg"
    assert "invalid regular expression '[z-a]'" in r.output
    assert "goes backwards" in r.output and "Re-issue" in r.output
    r = await run(hostile, "grep", rg, pattern="(unclosed")
    assert r.kind == "arg" and "missing ), unterminated subpattern at position 0" in r.output
    r = await run(hostile, "grep", rg, pattern="x", glob="[z-a]")
    assert r.kind == "arg" and "invalid glob '[z-a]'" in r.output
    r = await run(hostile, "glob", rg, pattern="src/[z-a]*.py")
    assert r.kind == "arg" and "invalid glob 'src/[z-a]*.py'" in r.output
    assert "goes backwards" in r.output


def _fd_path(fd: int) -> str:
    return os.readlink(f"/proc/self/fd/{fd}")


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
@pytest.mark.parametrize("rg", SEARCHERS)
async def test_permission_denied_is_said_plainly(
    hostile: Path, rg: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root nothing is unreadable, so the kernel's answer is simulated: listing ``in``
    and opening ``one.py`` are refused with EACCES."""
    real_scandir, real_open, real_access = os.scandir, os.open, os.access
    locked = str(hostile.resolve() / "in")

    def scandir(path: Any = ".") -> Any:
        if isinstance(path, int) and _fd_path(path) == locked:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_scandir(path)

    def fake_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if path == "one.py" and dir_fd is not None:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, mode, dir_fd=dir_fd)

    def access(path: Any, mode: int, **kw: Any) -> bool:
        return False if path == "one.py" else real_access(path, mode, **kw)

    monkeypatch.setattr(gitignore.os, "scandir", scandir)
    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "access", access)
    r = await run(hostile, "grep", rg, pattern="return")
    assert r.kind == "ok"
    assert r.output.splitlines() == [
        "no matches for /return/ in .",
        "[not searched, could not be read: in/ (permission denied), one.py (permission denied)]",
    ]
    r = await run(hostile, "glob", rg, pattern="**")
    assert r.output.splitlines() == [
        "one.py",
        "[1 file]",
        "[not listed, could not be read: in/ (permission denied)]",
    ]
    r = await run(hostile, "grep", rg, pattern="x", path="in")
    assert r.kind == "ok" and "in/ (permission denied)" in r.output


async def test_a_start_folder_that_cannot_be_opened_is_said_plainly(
    hostile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(root: Any, path: str) -> Any:
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr(search, "resolve", refuse)
    r = await run(hostile, "grep", False, pattern="x", path="in")
    assert r.kind == "error"
    assert r.output.startswith("grep: permission denied for 'in'")


@needs_rg
async def test_ripgrep_is_killed_when_the_search_is_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FIFO swapped in after the walk blocks ripgrep; cancelling (Esc, the boundary's
    timeout) must not leave it running."""
    os.mkfifo(tmp_path / "p")
    procs: list[asyncio.subprocess.Process] = []
    real = asyncio.create_subprocess_exec

    async def spawn(*args: Any, **kwargs: Any) -> asyncio.subprocess.Process:
        proc = await real(*args, **kwargs)
        procs.append(proc)
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_exec", spawn)
    run_rg = search._run_rg(RG or "rg", tmp_path, re.compile("x"), "p", os.devnull)
    task = asyncio.ensure_future(run_rg)
    for _ in range(100_000):
        if procs:
            break
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, BOUND)
    assert procs[0].returncode is not None


async def test_a_cancelled_walk_stops_its_thread() -> None:
    started, finished = threading.Event(), threading.Event()
    seen: list[bool] = []

    def work(*, stop: threading.Event) -> None:
        started.set()
        seen.append(stop.wait(BOUND))
        finished.set()

    task = asyncio.ensure_future(search._threaded(work, stop=None))
    assert await asyncio.to_thread(started.wait, BOUND)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(finished.wait, BOUND)
    assert seen == [True]


def test_walk_bounds_depth_and_never_follows_a_loop(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*["d"] * (gitignore.MAX_DEPTH + 3))
    deep.mkdir(parents=True)
    (deep / "f.txt").write_text("x\n")
    os.symlink(tmp_path, tmp_path / "d" / "up")
    skipped = gitignore.Skipped()
    found = list(gitignore.walk(tmp_path, ".", skipped=skipped))
    assert found == []
    assert len(skipped.items) == 1
    assert skipped.items[0][1] == f"more than {gitignore.MAX_DEPTH} folders deep"


@needs_rg
async def test_a_line_matched_all_over_is_searched_in_python_not_read_as_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ripgrep's --json gives every match of a line its own object: a 2 MB minified line
    matching ``x`` everywhere was 105 MB of JSON, 3.2 s and 1.3 GB of memory to read.
    Past RG_LINE_MAX ripgrep is stopped and Python searches: the same rows."""
    monkeypatch.setattr(search, "RG_LINE_MAX", 64 << 10)
    (tmp_path / "bundle.min.js").write_text("x" * 20_000 + "\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    walked: list[str] = []
    python = search.grep_python

    def spied(*args: Any, **kwargs: Any) -> Any:
        walked.append("python")
        return python(*args, **kwargs)

    monkeypatch.setattr(search, "grep_python", spied)
    r = await asyncio.wait_for(make_boundary(tmp_path).run(call("grep", pattern="x")), BOUND)
    assert r.kind == "ok", r.output
    assert r.output.splitlines()[0] == "a.py:1:x = 1"
    assert r.output.splitlines()[1].startswith("bundle.min.js:1:xxxx")
    assert walked == ["python"]


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_grep_shows_context_lines_as_grep_does_on_both_searchers(
    tmp_path: Path, rg: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's Grep takes -C/-A/-B, and its models send them: each was an argument
    error. Lines around each match, path-n-text, runs apart by --, the same on both."""
    monkeypatch.setattr(search.GrepTool, "use_ripgrep", rg)
    lines = [f"line {i}" for i in range(1, 31)]
    for n in (10, 13, 30):
        lines[n - 1] = f"target {n}"
    (tmp_path / "a.py").write_text("\n".join(lines) + "\n")
    (tmp_path / "b.py").write_text("x\ntarget\n")
    r = await make_boundary(tmp_path).run(call("grep", pattern="target", **{"-C": 1}))
    assert r.kind == "ok", r.output
    assert r.output.splitlines() == [
        "a.py-9-line 9",
        "a.py:10:target 10",
        "a.py-11-line 11",
        "a.py-12-line 12",
        "a.py:13:target 13",
        "a.py-14-line 14",
        "--",
        "a.py-29-line 29",
        "a.py:30:target 30",
        "--",
        "b.py-1-x",
        "b.py:2:target",
        "[4 matches in 2 files]",
    ]
    r = await make_boundary(tmp_path).run(call("grep", pattern="target", context=11))
    assert r.kind == "arg" and "10" in r.output


@needs_rg
async def test_context_lines_read_no_more_than_their_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """500 matches in 500 large files would have read each again for its context: past
    CONTEXT_BYTES in all a file keeps its matching rows alone."""
    monkeypatch.setattr(search, "CONTEXT_BYTES", 40)
    (tmp_path / "a.py").write_text("x\ntarget\ny\n")  # 11 bytes: read
    (tmp_path / "b.py").write_text("p\ntarget\nq\n" + "z" * 60 + "\n")  # past the budget
    r = await make_boundary(tmp_path).run(call("grep", pattern="target", context=1))
    assert r.output.splitlines()[:-1] == [
        "a.py-1-x",
        "a.py:2:target",
        "a.py-3-y",
        "--",
        "b.py:2:target",
    ]


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_files_with_matches_lists_a_name_holding_a_colon_whole(
    tmp_path: Path, rg: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search.GrepTool, "use_ripgrep", rg)
    (tmp_path / "a:b.txt").write_text("needle\nneedle\n")
    r = await make_boundary(tmp_path).run(
        call("grep", pattern="needle", output_mode="files_with_matches")
    )
    assert r.output.splitlines() == ["a:b.txt", "[1 file, 2 matching lines]"], r.output
