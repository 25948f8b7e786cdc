"""regex_guard: a model's regex decided line by line as Python's ``re.search`` would, with RE2
in this process and Python's ``re`` only in a child process (issue 21, item 3)."""

from __future__ import annotations

import os
import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.tools import regex_guard
from frontier.tools.regex_guard import LinePattern, PatternStopped

_RE2_ATOMS = [
    "a", "b", "é", "K", "k", "s", "ß", "İ", "i", "ſ", "\u212a", ".", r"\w", r"\W", r"\d",
    r"\s", r"\S", r"\D", "[a-c]", "[^a]", r"[\w-]", r"[^\W\d]", r"\b", r"\B", "^", "$",
    r"\A", r"\Z", r"\.", r"\t", r"\r", "x{2}", "[é-ü]", r"[^\s]",
]  # fmt: skip
"""Pieces RE2 can say (the child decides only lines RE2's reading could differ on)."""
_CHILD_ATOMS = ["(?=a)", "(?<!b)", r"(a)\1", "(?>a+)", "a++", "(a)?(?(1)b|k)"]
"""Pieces only Python's ``re`` can say: the whole pattern goes to the child."""
LINES = st.lists(
    st.text(alphabet=list("abkKsSiIé ßİı\u212a\u017f1_-.\t\rÉ→"), max_size=8),
    min_size=1,
    max_size=6,
)
FLAGS = st.sampled_from(["", "(?i)", "(?a)", "(?ai)", "(?s)"])


def patterns(atoms: list[str]) -> st.SearchStrategy[str]:
    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map(lambda t: f"(?:{t[0]}|{t[1]})"),
            st.tuples(inner, st.sampled_from(["*", "+", "?", "{0,2}", "*?", "{2}"])).map(
                lambda t: f"({t[0]}){t[1]}"
            ),
            st.tuples(st.sampled_from(["i", "s", "-i"]), inner).map(lambda t: f"(?{t[0]}:{t[1]})"),
        )

    return st.recursive(st.sampled_from(atoms), grow, max_leaves=6)


def python_says(source: str, lines: list[str]) -> list[int] | None:
    """What ``re.search`` says of each line (small inputs: no backtracking to fear)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rx = re.compile(source)
    except re.error:
        return None
    return [i for i, line in enumerate(lines) if rx.search(line)]


def guard_says(source: str, lines: list[str]) -> tuple[list[int], str]:
    pattern = LinePattern(source)
    try:
        return pattern.matching("\n".join(lines).encode()), pattern.engine
    finally:
        pattern.close()


@given(FLAGS, patterns(_RE2_ATOMS), LINES)
def test_re2_decides_as_python_re_does(flags: str, body: str, lines: list[str]) -> None:
    expected = python_says(flags + body, lines)
    if expected is None:
        return
    got, engine = guard_says(flags + body, lines)
    assert engine != "child"
    assert got == expected


@settings(max_examples=40)
@given(FLAGS, patterns(_RE2_ATOMS + _CHILD_ATOMS), LINES)
def test_the_child_decides_as_python_re_does(flags: str, body: str, lines: list[str]) -> None:
    expected = python_says(flags + body, lines)
    if expected is None:
        return
    assert guard_says(flags + body, lines)[0] == expected


@given(st.lists(st.sampled_from(["ab", "cd", "", "xa", "aa a", "\r"]), min_size=1, max_size=40))
def test_runs_of_matching_lines_are_found_whole(lines: list[str]) -> None:
    """One RE2 call finds a run of consecutive matching lines; the runs give exactly the
    lines a search per line gives, with the binding's ``Match`` or its public ``search``."""
    raw = "\n".join(lines).encode()
    expected = [i for i, line in enumerate(lines) if "a" in line]
    found = regex_guard.translate("a")
    assert found is not None
    fast = regex_guard._compiled(regex_guard._RUNS.format(found.source))
    options = regex_guard.re2.Options()
    options.never_capture = True
    public = regex_guard._python_finder(
        regex_guard.re2.compile(regex_guard._RUNS.format(found.source).encode(), options)
    )
    assert regex_guard._lines_found(fast, raw) == expected
    assert regex_guard._lines_found(public, raw) == expected


@pytest.mark.parametrize(
    ("source", "hit"),
    [
        ("(a+)+$", False),
        ("(a|aa)+$", False),
        ("(a|a?)+$", True),  # the empty string at the end
        (r"(\w+\s?)+$", False),
        ("^(a+)+b", False),
        ("(x+x+)+y", False),
        ("(.*a){12}", True),
        ("(a*)*!", True),
    ],
)
def test_classic_catastrophic_patterns_run_in_re2(source: str, hit: bool) -> None:
    """Each backtracks for hours in ``re`` on this 35-byte line; RE2 answers at once."""
    line = b"a" * 34 + b"!"
    pattern = LinePattern(source)
    assert pattern.engine == "re2"
    assert pattern.matching(line + b"\n" + line) == ([0, 1] if hit else [])
    assert not pattern.child_started


@pytest.mark.parametrize(
    "source",
    [
        "(?=(a+)+$)",  # look-ahead
        r"(a)\1",  # back-reference
        "(?a:\\w)",  # ASCII scoped to a group
        "a{1001}",  # a count past RE2's
        r"\w" * 200,  # a translation past RE2_MAX_SOURCE
    ],
)
def test_what_re2_cannot_say_goes_to_the_child(source: str) -> None:
    pattern = LinePattern(source)
    try:
        assert pattern.engine == "child"
        assert pattern.matching(b"!!") == []
        assert pattern.child_started
    finally:
        pattern.close()


def test_without_re2_every_line_goes_to_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    """No wheel for the platform (``import re2`` failed): the same answers, from the child."""
    monkeypatch.setattr(regex_guard, "re2", None)
    pattern = LinePattern("(a+)+$")
    try:
        assert pattern.engine == "child"
        assert pattern.matching(b"aaa\nab\naa") == [0, 2]
    finally:
        pattern.close()
    (pid,) = pattern.children
    assert gone(pid)


def test_close_kills_the_child_mid_match_and_later_searches_stop() -> None:
    pattern = LinePattern("(?=(a+)+$)")
    assert pattern.matching(b"aa") == [0]  # the child is up
    (pid,) = pattern.children
    pattern.close()
    assert gone(pid)
    with pytest.raises(PatternStopped):
        pattern.matching(b"a" * 40 + b"!")


def test_an_orphaned_child_ends_at_its_cpu_limit() -> None:
    """Even if no one kills it, a child stuck in a catastrophic match ends (SIGXCPU)."""
    pattern = LinePattern("(?=(a+)+$)", cpu_seconds=1)
    try:
        with pytest.raises(PatternStopped):
            pattern.matching(b"a" * 40 + b"!")
    finally:
        pattern.close()


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False
