"""``gitignore.RuleSet`` answers as git's rule (the last matching rule decides) did when
every rule was matched in turn: random rules of every shape, random paths."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.tools.gitignore import Rule, RuleSet, Skipped, parse_rules, walk

SEGMENTS = ["a", "b", "ab", "a.x", "b.x", "x.a", "d", "e", ".x", "tmp_1", "tmp_12"]
PATTERNS = [
    "a", "ab", "a.x", ".x", "d", "tmp_1",  # names
    "*.x", "*x", "*.a", "*_1", "*b",  # suffixes
    "tmp_*", "a*", "x.*", "ab*",  # prefixes
    "d/a", "d/e/ab", "e/a.x", "/a", "/d",  # paths below the .gitignore's folder
    "**/a", "**/*.x", "**/tmp_*", "**/d/a",  # at any depth
    "*", "a*x", "?b", "[ab].x", "d/**", "d/*.x", "\\a", "t*_1",  # the rest
]  # fmt: skip


def reference(rel: str, is_dir: bool, rules: list[Rule]) -> bool:
    """Every rule matched in turn, the last match deciding (the walk before ``RuleSet``)."""
    verdict = False
    name = rel.rsplit("/", 1)[-1]
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.base:
            if not rel.startswith(rule.base + "/"):
                continue
            sub = rel[len(rule.base) + 1 :]
        else:
            sub = rel
        if rule.matcher.match(sub if rule.anchored else name):
            verdict = not rule.negate
    return verdict


RULE_LINES = st.tuples(st.booleans(), st.sampled_from(PATTERNS), st.booleans()).map(
    lambda t: ("!" if t[0] else "") + t[1] + ("/" if t[2] else "")
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["", "d", "d/e"]), st.lists(RULE_LINES, max_size=8))),
    st.lists(st.tuples(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4), st.booleans())),
)
def test_a_rule_set_decides_as_every_rule_in_turn(
    files: list[tuple[str, list[str]]], paths: list[tuple[list[str], bool]]
) -> None:
    groups = [parse_rules("\n".join(lines), base) for base, lines in files]
    rules = [rule for group in groups for rule in group]
    whole = RuleSet(rules)
    chain = [RuleSet([])]  # as the walk builds it: one .gitignore at a time
    for group in groups:
        chain.append(chain[-1].extended(group))
    for parts, is_dir in paths:
        rel = "/".join(parts)
        expected = reference(rel, is_dir, rules)
        assert whole.ignored(rel, is_dir) == chain[-1].ignored(rel, is_dir) == expected, rel
        # each set below is left as it was by those built on it (sibling folders share it)
        for below in chain[:-1]:
            assert below.ignored(rel, is_dir) == reference(rel, is_dir, below.rules), rel


def test_a_long_gitignore_is_not_matched_rule_by_rule(tmp_path: Path) -> None:
    """300 rules of the usual shapes (a 315-rule file made the walk of 33,623 files 3.3 s
    against 0.12 s without it): the walk finds what the reference finds, and no rule is
    left to be matched one by one; every path is decided by lookups."""
    lines = [f"*.ext{i}" for i in range(100)] + [f"gen_{i}*" for i in range(100)]
    lines += [f"name{i}" for i in range(98)] + ["keep/", "!keep.ext3"]
    (tmp_path / ".gitignore").write_text("\n".join(lines) + "\n")
    names = (".gitignore", "a.py", "b.ext3", "keep.ext3", "gen_7.c", "gen.c", "name5", "name5x")
    for name in names[1:]:
        (tmp_path / name).write_text("x")
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "inside.py").write_text("x")
    rules = parse_rules((tmp_path / ".gitignore").read_text(), "")
    found = sorted(entry.rel for entry in walk(tmp_path, ".", skipped=Skipped()))
    expected = sorted(rel for rel in names if not reference(rel, False, rules))
    assert found == expected == [".gitignore", "a.py", "gen.c", "keep.ext3", "name5x"]
    assert RuleSet(rules).others == []


def test_a_gitignore_saved_with_a_byte_order_mark_keeps_its_first_rule(tmp_path: Path) -> None:
    """As git does (``git check-ignore`` agrees): a Windows editor's ``.gitignore`` starting
    ``\\ufeffnode_modules/`` let grep and glob search ``node_modules``."""
    (tmp_path / ".gitignore").write_bytes(b"\xef\xbb\xbfnode_modules/\n*.log\n")
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "node_modules" / "x" / "a.js").write_text("x")
    (tmp_path / "main.js").write_text("x")
    (tmp_path / "run.log").write_text("x")
    found = sorted(entry.rel for entry in walk(tmp_path, ".", skipped=Skipped()))
    assert found == [".gitignore", "main.js"]
