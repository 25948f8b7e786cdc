"""Issue 21, item 3: a hostile pattern must not freeze the agent.

The three inputs of the issue — grep ``(a+)+$`` on a 35-byte line, glob ``**/`` twelve times
over a deep tree, a ``.gitignore`` rule ``*a*a*a*a*a*a*a*b`` beside one long file name — go
through the real tools (the boundary, read-only) on both searchers and end with the right
rows. Cost is asserted through what ran (RE2, the glob matcher's work counter: 4× the input,
at most 6× the work; ``test_globmatch.py``), never through the clock; a pattern only Python's
``re`` can run goes to a child that Esc and the timeout kill, checked by its pid being gone.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_tools_fakes import call, make_boundary

from frontier.app.events import ToolResult
from frontier.tools import regex_guard, search
from frontier.tools.globmatch import Glob, Work
from frontier.tools.regex_guard import LinePattern
from frontier.tools.registry import Registry

RG = shutil.which("rg")
needs_rg = pytest.mark.skipif(RG is None, reason="ripgrep not installed")
SEARCHERS = [pytest.param(False, id="python"), pytest.param(True, id="rg", marks=needs_rg)]
BOUND = 30.0
"""Seconds a call may take before the test fails: a hang guard, not a timing."""
LINE = "a" * 34 + "!"
"""35 bytes: ``(a+)+$`` backtracks 2**34 ways on it in Python's ``re``."""


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[LinePattern]:
    """Every ``LinePattern`` grep makes, and a signal once one of them starts a child."""
    out: list[LinePattern] = []
    real = search.line_pattern

    def spy(pattern: re.Pattern[str], timeout: float) -> LinePattern:
        out.append(real(pattern, timeout))
        return out[-1]

    monkeypatch.setattr(search, "line_pattern", spy)
    return out


@pytest.fixture
def child_up(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set when a regex child has been handed its lines."""
    started = threading.Event()
    real = regex_guard._Worker.match

    def match(self: Any, raw: bytes) -> list[int]:
        started.set()
        return real(self, raw)

    monkeypatch.setattr(regex_guard._Worker, "match", match)
    return started


async def run(root: Path, name: str, rg: bool = False, **args: Any) -> ToolResult:
    search.GrepTool.use_ripgrep = rg
    try:
        boundary = make_boundary(root, policy="read-only")
        return await asyncio.wait_for(boundary.run(call(name, **args)), BOUND)
    finally:
        search.GrepTool.use_ripgrep = True


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


# ----------------------------------------------------------------------------- the issue


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_grep_nested_repeat_on_a_35_byte_line(
    tmp_path: Path, rg: bool, made: list[LinePattern]
) -> None:
    (tmp_path / "a.txt").write_text(f"{LINE}\naaaa\n{LINE}\n")
    r = await run(tmp_path, "grep", rg, pattern="(a+)+$")
    assert r.kind == "ok"
    assert r.output.splitlines() == ["a.txt:2:aaaa", "[1 match in 1 file]"]
    (pattern,) = made
    assert pattern.engine == "re2"
    assert not pattern.child_started


@pytest.fixture
def deep(tmp_path: Path) -> Path:
    """40 folders deep, a hit and a miss at the bottom, a hit at the top."""
    bottom = tmp_path.joinpath(*["d"] * 40)
    bottom.mkdir(parents=True)
    (bottom / "x.py").write_text("hit\n")
    (bottom / "x.txt").write_text("hit\n")
    (tmp_path / "top.py").write_text("hit\n")
    return tmp_path


async def test_glob_with_twelve_globstars_on_a_deep_tree(deep: Path) -> None:
    bottom = "d/" * 40
    r = await run(deep, "glob", pattern="**/" * 12 + "*.py")
    assert r.output.splitlines() == [f"{bottom}x.py", "top.py", "[2 files]"]
    r = await run(deep, "glob", pattern="**/d/" * 12 + "x.py")  # twelve runs, not merged
    assert r.output.splitlines() == [f"{bottom}x.py", "[1 file]"]
    r = await run(deep, "glob", pattern="**/" * 12 + "*.rs")
    assert r.output == f"no files match {'**/' * 12 + '*.rs'!r}"


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_grep_filtered_by_twelve_globstars_on_a_deep_tree(deep: Path, rg: bool) -> None:
    r = await run(deep, "grep", rg, pattern="hit", glob="**/" * 12 + "d/*.py")
    assert r.output.splitlines() == [f"{'d/' * 40}x.py:1:hit", "[1 match in 1 file]"]


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_a_gitignore_rule_with_many_stars_and_one_long_name(tmp_path: Path, rg: bool) -> None:
    (tmp_path / ".gitignore").write_text("*a*a*a*a*a*a*a*b\n")
    kept, ignored = "a" * 250, "a" * 249 + "b"
    (tmp_path / kept).write_text("hit\n")
    (tmp_path / ignored).write_text("hit\n")
    r = await run(tmp_path, "grep", rg, pattern="hit")
    assert r.output.splitlines() == [f"{kept}:1:hit", "[1 match in 1 file]"]
    r = await run(tmp_path, "glob", pattern="*")
    assert r.output.splitlines() == [".gitignore", kept, "[2 files]"]


async def test_a_globs_work_grows_linearly_with_the_tree_depth() -> None:
    """The glob tool's matcher on the issue's inputs, 4× deeper: at most 6× the work."""
    glob = search.compile_glob("**/" * 12 + "*.py", "glob")
    for tail in ("x.py", "x.txt"):
        work = []
        for depth in (100, 400):
            counted = Work()
            glob.match("d/" * depth + tail, counted)
            work.append(counted.steps)
        assert work[0] > 0 and work[1] <= 6 * work[0]


# ----------------------------------------------------------------------------- Esc, timeout


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_esc_kills_the_child_running_a_catastrophic_look_around(
    tmp_path: Path, rg: bool, made: list[LinePattern], child_up: threading.Event
) -> None:
    """Look-around: not RE2's, so Python's ``re`` runs it — in a child, never here. ripgrep
    cannot compile it either (the Python searcher takes over)."""
    (tmp_path / "a.txt").write_text(LINE + "\n")
    search.GrepTool.use_ripgrep = rg
    boundary = make_boundary(tmp_path, policy="read-only")
    try:
        task = asyncio.ensure_future(boundary.run(call("grep", pattern="(?=(a+)+$)")))
        assert await asyncio.to_thread(child_up.wait, BOUND)
        (pattern,) = made
        (pid,) = pattern.children
        assert not gone(pid)
        assert boundary.cancel_running()  # Esc
        r = await asyncio.wait_for(task, BOUND)
    finally:
        search.GrepTool.use_ripgrep = True
    assert r.kind == "cancelled"
    assert r.output == "grep: cancelled by the user; nothing was returned."
    assert gone(pid)


async def test_the_timeout_kills_the_child(
    tmp_path: Path, made: list[LinePattern], child_up: threading.Event
) -> None:
    class QuickGrep(search.GrepTool):
        spec = dataclasses.replace(search.GrepTool.spec, timeout=0.5)
        use_ripgrep = False

    (tmp_path / "a.txt").write_text(LINE + "\n")
    boundary = make_boundary(tmp_path, registry=Registry([QuickGrep()]), policy="read-only")
    r = await asyncio.wait_for(boundary.run(call("grep", pattern="(?=(a+)+$)")), BOUND)
    assert child_up.is_set()
    assert r.kind == "timeout"
    (pattern,) = made
    (pid,) = pattern.children
    assert gone(pid)


async def test_a_child_at_its_cpu_limit_is_a_plain_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child's own CPU bound (the call's timeout + 5 s; 1 s here) ends it even if the
    timeout never came: the model is told why and what to write instead."""
    monkeypatch.setattr(
        search, "line_pattern", lambda p, t: LinePattern(p.pattern, p.flags, cpu_seconds=1)
    )
    (tmp_path / "a.txt").write_text(LINE + "\n")
    r = await run(tmp_path, "grep", pattern="(?=(a+)+$)")
    assert r.kind == "error"
    assert "ran out of CPU time" in r.output and "backtracks catastrophically" in r.output


async def test_esc_stops_a_glob_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The listing's walk is told to stop and the call ends ``cancelled`` at once."""
    (tmp_path / "f.py").write_text("x\n")
    entered, stopped = threading.Event(), threading.Event()

    def slow_walk(*args: Any, stop: threading.Event | None = None, **kw: Any) -> Any:
        entered.set()
        assert stop is not None
        stopped.set() if stop.wait(BOUND) else None
        return iter(())

    monkeypatch.setattr(search, "walk", slow_walk)
    boundary = make_boundary(tmp_path, policy="read-only")
    task = asyncio.ensure_future(boundary.run(call("glob", pattern="**/*.py")))
    assert await asyncio.to_thread(entered.wait, BOUND)
    assert boundary.cancel_running()
    r = await asyncio.wait_for(task, BOUND)
    assert r.kind == "cancelled" and r.output.startswith("glob: cancelled by the user;")
    assert await asyncio.to_thread(stopped.wait, BOUND)


# ----------------------------------------------------------------------------- the edges


@pytest.mark.parametrize("rg", SEARCHERS)
async def test_ordinary_patterns_give_the_rows_they_always_gave(tmp_path: Path, rg: bool) -> None:
    """RE2 decides these (``\\b`` and ``(?i)`` send a non-ASCII line to the child): the rows
    are those of ``re.search`` on each line."""
    text = "def main():\n    return 'needle'\nNeedle = 1\nnaïve needle\nnaïveneedle\n\n"
    (tmp_path / "a.py").write_text(text)
    lines = text.split("\n")
    for pattern in (r"\bneedle\b", "(?i)needle", r"^\s+return", r"\w+le$", r"\Bneedle", "^$"):
        r = await run(tmp_path, "grep", rg, pattern=pattern)
        rx = re.compile(pattern)
        want = [f"a.py:{i + 1}:{line}" for i, line in enumerate(lines[:-1]) if rx.search(line)]
        assert r.output.splitlines()[:-1] == want, pattern


def test_the_ripgrep_dialect_check_is_linear_and_means_what_the_regex_meant() -> None:
    old = re.compile(r"\[[^\]]*(?:\[:|&&|~~|--)|\{,")
    assert search.rg_dialect_ok("[" * 200_000)  # the regex took ~2e10 steps on this
    for text in ("[[:alpha:]]", "[a&&b]", "[a--b]", "[~~]", "a{,3}", "[a]--", "[:x:]", "x\ny"):
        assert search.rg_dialect_ok(text) is (old.search(text) is None and "\n" not in text)


@given(st.text(alphabet=list("[]:&~-{,a"), max_size=14))
def test_the_ripgrep_dialect_check_agrees_with_its_old_regex(text: str) -> None:
    old = re.compile(r"\[[^\]]*(?:\[:|&&|~~|--)|\{,")
    assert search.rg_dialect_ok(text) is (old.search(text) is None)


def test_an_invalid_glob_is_still_said_plainly() -> None:
    with pytest.raises(search.ToolError, match="goes backwards"):
        search.compile_glob("src/[z-a]*.py", "glob")
    with pytest.raises(search.ToolError, match="excludes nothing"):
        search.compile_glob("[^]x", "glob")
    assert isinstance(search.compile_glob("src/**/*.ts", "glob"), Glob)


def test_a_pattern_nested_too_deep_to_compile_is_an_argument_error() -> None:
    with pytest.raises(search.ToolError, match="too deeply nested") as caught:
        search.compile_pattern("(" * 100_000 + ")" * 100_000)
    assert caught.value.kind == "arg"


async def test_a_child_that_cannot_start_is_a_plain_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(regex_guard.subprocess, "Popen", refuse)
    (tmp_path / "a.txt").write_text("ab\n")
    r = await run(tmp_path, "grep", pattern="(?<=a)b")
    assert r.kind == "error"
    assert "needs Python's re for some lines" in r.output and "could not be started" in r.output
    r = await run(tmp_path, "grep", pattern="a(?:b)")  # RE2's: no child needed
    assert r.output.splitlines() == ["a.txt:1:ab", "[1 match in 1 file]"]
