"""Brace alternatives in the model's globs (``**/*.{ts,tsx}``): they matched nothing, and
the model concluded there were no such files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_tools_fakes import call, make_boundary

from frontier.tools.glob_braces import MAX_ALTERNATIVES, braced, expand
from frontier.tools.globmatch import GlobError


def test_braces_expand_in_order_nested_and_literal_where_they_are_no_choice() -> None:
    assert expand("*.{ts,tsx}") == ["*.ts", "*.tsx"]
    assert expand("{src,lib}/**/*.{js,jsx}") == [
        "src/**/*.js", "src/**/*.jsx", "lib/**/*.js", "lib/**/*.jsx"
    ]  # fmt: skip
    assert expand("a{b,{c,d}}e") == ["abe", "ace", "ade"]
    assert expand("a{,.bak}") == ["a", "a.bak"]
    for literal in ("{x}", "a{b", "a}b", "[{,}]", "\\{a,b\\}"):
        assert expand(literal) == [literal]
    with pytest.raises(GlobError, match="more than 64 alternatives"):
        expand("{a,b}" * 7)


@given(
    st.lists(st.lists(st.text("ab*", min_size=1, max_size=3), min_size=2, max_size=3), max_size=3)
)
def test_a_braced_glob_matches_exactly_what_one_of_its_alternatives_does(
    groups: list[list[str]],
) -> None:
    """Every alternative a product of choices; ``braced`` matches a path when one of them
    does, never more (checked against each alternative compiled alone)."""
    pattern = "x" + "".join("{" + ",".join(g) + "}" for g in groups)
    alternatives = [""]
    for group in groups:
        alternatives = [a + c for a in alternatives for c in group]
    alternatives = ["x" + a for a in alternatives]
    assert expand(pattern) == alternatives
    glob = braced(pattern)
    for path in ("xa", "xab", "xbba", "xaaa", "x"):
        assert glob.match(path) == any(braced(a).match(path) for a in alternatives)
    assert len(alternatives) <= MAX_ALTERNATIVES


@pytest.mark.parametrize("ripgrep", [True, False], ids=["ripgrep", "python"])
async def test_glob_and_grep_take_braces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ripgrep: bool
) -> None:
    from frontier.tools import search

    monkeypatch.setattr(search.GrepTool, "use_ripgrep", ripgrep)
    (tmp_path / "src").mkdir()
    for name in ("a.ts", "b.tsx", "c.js"):
        (tmp_path / "src" / name).write_text("needle\n")
    b = make_boundary(tmp_path)
    r = await b.run(call("glob", 1, pattern="**/*.{ts,tsx}"))
    assert r.output.splitlines()[:2] == ["src/a.ts", "src/b.tsx"], r.output
    r = await b.run(call("grep", 2, pattern="needle", glob="*.{ts,tsx}"))
    assert [line.split(":")[0] for line in r.output.splitlines()[:2]] == ["src/a.ts", "src/b.tsx"]
    assert "c.js" not in r.output


async def test_a_glob_that_matches_only_below_the_top_says_so(tmp_path: Path) -> None:
    """`*.py` (ripgrep's -g reads it at any depth) matched nothing at the top here, and
    the model concluded there were no Python files."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("")
    (tmp_path / "pkg" / "b.py").write_text("")
    r = await make_boundary(tmp_path).run(call("glob", 1, pattern="*.py"))
    assert r.output == (
        "no files match '*.py' at the top of the workspace; '**/*.py' matches 2 files in "
        "its folders"
    )
    r = await make_boundary(tmp_path).run(call("glob", 2, pattern="*.rs"))
    assert r.output == "no files match '*.rs'"
    for folder in ("pkg", "pkg/"):
        r = await make_boundary(tmp_path).run(call("glob", 3, pattern=folder))
        assert r.output == (
            f"no files match {folder!r}: pkg is a folder (glob matches files): read lists "
            "it, 'pkg/**' its files"
        )


async def test_a_glob_naming_an_ignored_folder_lists_it(tmp_path: Path) -> None:
    """`node_modules/lib/**/*.js` listed nothing (the walk leaves .gitignore'd folders
    out), while grep with that path searched it: a folder the pattern names before its
    first wildcard is walked as a path named explicitly is."""
    (tmp_path / ".gitignore").write_text("node_modules/\n")
    (tmp_path / "node_modules" / "lib").mkdir(parents=True)
    (tmp_path / "node_modules" / "lib" / "index.js").write_text("x\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.js").write_text("x\n")
    b = make_boundary(tmp_path)
    r = await b.run(call("glob", 1, pattern="node_modules/**/*.js"))
    assert r.output.splitlines() == ["node_modules/lib/index.js", "[1 file]"], r.output
    r = await b.run(call("glob", 2, pattern="**/*.js"))
    assert r.output.splitlines() == ["src/a.js", "[1 file]"], r.output  # still left out


@pytest.mark.parametrize("ripgrep", [True, False], ids=["ripgrep", "python"])
async def test_a_grep_that_found_nothing_names_the_ignored_folders_it_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ripgrep: bool
) -> None:
    """A symbol defined in a dependency: "no matches", and the model concluded it did not
    exist. The folders .gitignore left out are named, and one named as path is searched."""
    from frontier.tools import search

    monkeypatch.setattr(search.GrepTool, "use_ripgrep", ripgrep)
    (tmp_path / ".gitignore").write_text("node_modules/\ndist/\n")
    (tmp_path / "node_modules" / "lib").mkdir(parents=True)
    (tmp_path / "node_modules" / "lib" / "index.js").write_text("function needle() {}\n")
    (tmp_path / "dist").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.js").write_text("x\n")
    b = make_boundary(tmp_path)
    r = await b.run(call("grep", 1, pattern="needle"))
    assert r.output.splitlines() == [
        "no matches for /needle/ in .",
        "[not searched, .gitignore'd: dist/, node_modules/; name one as path to search it]",
    ]
    r = await b.run(call("grep", 2, pattern="needle", path="node_modules"))
    assert r.output.startswith("node_modules/lib/index.js:1:function needle()"), r.output
    r = await b.run(call("grep", 3, pattern="x", path="src"))
    assert "not searched" not in r.output
