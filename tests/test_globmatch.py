"""globmatch: the same answers as the glob's regex translation (its reference meaning) and as
``fnmatch`` where the two dialects agree, in work linear in the path (issue 21, item 3)."""

from __future__ import annotations

import fnmatch
import re
import warnings

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from frontier.tools import globmatch
from frontier.tools.gitignore import glob_to_regex, parse_rules
from frontier.tools.globmatch import Glob, GlobError, Work

GLOBS = st.text(alphabet=list("ab/*?[]!^-\\"), max_size=12)
PATHS = st.text(alphabet=list("ab/-]\\!^["), max_size=10)


def reference(pattern: str) -> re.Pattern[str] | None:
    """What a glob means: its regex translation (matched here only on tiny inputs)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return re.compile(glob_to_regex(pattern) + r"\Z", re.DOTALL)
    except re.error:
        return None


def steps(glob: Glob, path: str) -> int:
    work = Work()
    glob.match(path, work)
    return work.steps


@given(GLOBS, PATHS)
def test_the_same_answer_as_the_regex_translation(pattern: str, path: str) -> None:
    rx = reference(pattern)
    try:
        glob = Glob(pattern)
    except GlobError:
        # only a set that excludes nothing ([^], [!]) is refused where the regex compiled
        assert rx is None or "[^]" in pattern or "[!]" in pattern
        return
    assert rx is not None, "a glob whose translation does not compile must be refused"
    expected = rx.match(path) is not None
    assert glob.match(path) is expected
    assert glob.match(path, Work()) is expected  # the counted path (no shortcuts) agrees


@given(st.text(alphabet=list("ab*?[]!"), max_size=10), st.text(alphabet=list("ab]!["), max_size=8))
def test_the_same_answer_as_fnmatch_within_a_folder(pattern: str, name: str) -> None:
    """Without ``/``, ``\\``, ``^`` or ranges the two dialects mean the same."""
    assume("[!]" not in pattern)
    assert Glob(pattern).match(name) is fnmatch.fnmatchcase(name, pattern)


@given(st.text(alphabet=list("ab/*?[]"), max_size=14), PATHS)
def test_the_automaton_agrees_when_its_cache_is_full(pattern: str, path: str) -> None:
    rx = reference(pattern)
    assume(rx is not None)
    glob = Glob(pattern)
    expected = rx.match(path) is not None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(globmatch, "DFA_CACHE", 1)
        assert Glob(pattern).match(path) is expected
    assert glob.match(path) is expected


def test_runs_of_globstars_are_merged() -> None:
    assert Glob("**/" * 12 + "*.py").match("a/b/c.py")
    merged = Glob("**/" * 12 + "x")
    single = Glob("**/x")
    path = "d/" * 50 + "y"
    assert steps(merged, path) == steps(single, path)


@pytest.mark.parametrize(
    ("pattern", "segmentwise"),
    [
        ("*a*a*a*a*a*a*a*b", True),
        ("*?a*?a*?a*?b", True),
        ("[ab]*[ab]*[ab]*c", True),
        ("**/" * 12 + "*.py", True),
        ("**/d/" * 12 + "x", True),
        ("a/**/b/**/c/**/d", True),
        ("a**a**a**a**a**b", False),  # ** inside a segment: the automaton
        ("*a[!x]*a[!x]*b", False),  # a set that can match /: the automaton
    ],
)
@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda n: "a" * n, id="a"),
        pytest.param(lambda n: "a" * n + "b", id="a-then-b"),
        pytest.param(lambda n: "x" * n + "b", id="x-then-b"),
        pytest.param(lambda n: "ab" * n, id="ab"),
        pytest.param(lambda n: "d/" * n + "y", id="deep-miss"),
        pytest.param(lambda n: "d/" * n + "x", id="deep-hit"),
        pytest.param(lambda n: "a/" * n + "b", id="a-dirs"),
    ],
)
def test_four_times_the_path_is_at_most_six_times_the_work(
    pattern: str, segmentwise: bool, make: object
) -> None:
    glob = Glob(pattern)
    assert glob.segmentwise is segmentwise
    assert callable(make)
    small, large = steps(glob, make(300)), steps(glob, make(1200))
    assert small > 0
    assert large <= 6 * small, (small, large)


def test_the_work_counter_counts_the_scan() -> None:
    """A match that must read the whole name is counted as such (the ratio above is not
    a constant pretending to be linear)."""
    glob = Glob("*a*b")
    assert steps(glob, "x" * 1000 + "b") >= 1000


def test_a_gitignore_rule_with_many_stars_is_linear_in_the_name() -> None:
    (rule,) = parse_rules("*a*a*a*a*a*a*a*b\n", "")
    for make in (lambda n: "a" * n, lambda n: "ab" * n, lambda n: "x" * n + "b"):
        small, large = steps(rule.matcher, make(250)), steps(rule.matcher, make(1000))
        assert large <= 6 * small
    assert rule.matcher.match("a" * 249 + "b")
    assert not rule.matcher.match("a" * 250)


def test_a_set_that_excludes_nothing_is_refused_with_a_reason() -> None:
    with pytest.raises(GlobError, match="excludes nothing"):
        Glob("[^]x")
    assert parse_rules("[!]\nkeep\n", "")[0].matcher.pattern == "keep"
