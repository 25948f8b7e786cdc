"""``@`` completion's ranking (``widgets/prompt_input.PathRanker``): the same order as the
rule written out plainly, whatever paths and however the query is typed (a key at a
time, with backspaces, pasted whole)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from frontier.widgets.prompt_input import PathRanker, rank_paths


def reference(files: list[str], query: str, limit: int) -> list[str]:
    """The rule as the docstring says it, one path at a time."""
    q = query.casefold()
    scored = []
    for path in files:
        low = path.casefold()
        name = low.rsplit("/", 1)[-1]
        it = iter(low)
        if not q or name.startswith(q):
            rank = 0
        elif low.startswith(q):
            rank = 1
        elif q in name:
            rank = 2
        elif q in low:
            rank = 3
        elif all(ch in it for ch in q):
            rank = 4
        else:
            continue
        scored.append((rank, len(path), path))
    return [path for _, _, path in sorted(scored)[:limit]]


# letters that fold (ß, K), a slash, a newline and regex metacharacters (in and out of a
# character class) among them
ALPHABET = "abAB/.ßsK\n*]^\\-"
paths = st.lists(st.text(ALPHABET, min_size=1, max_size=12), max_size=40)
queries = st.text(ALPHABET, max_size=5)


@given(files=paths, query=queries, limit=st.integers(min_value=1, max_value=50))
def test_one_query_ranks_as_the_rule_says(files: list[str], query: str, limit: int) -> None:
    assert rank_paths(files, query, limit) == reference(files, query, limit)


@given(files=paths, typed=st.lists(st.one_of(queries, st.just("\b")), max_size=12))
def test_a_query_typed_key_by_key_ranks_as_if_typed_at_once(
    files: list[str], typed: list[str]
) -> None:
    ranker = PathRanker(files)
    query = ""
    for piece in typed:
        query = query[:-1] if piece == "\b" else query + piece
        assert ranker.rank(query, 50) == reference(files, query, 50), query


def test_names_first_then_paths_then_characters_in_order() -> None:
    files = ["docs/readme.md", "read/notes.txt", "src/reader.py", "lib/thread.py", "r/e/a/d"]
    assert rank_paths(files, "read") == [
        "src/reader.py",  # the name starts with it
        "docs/readme.md",
        "read/notes.txt",  # the path starts with it
        "lib/thread.py",  # the name holds it
        "r/e/a/d",  # its characters in order
    ]


def test_a_long_pasted_query_of_repeats_ranks_at_once() -> None:
    # a near-miss of repeats: a backtracking in-order test took exponential time here
    files = ["a" * 2000, "b/" + "a" * 3000, "ab" * 1000]
    assert rank_paths(files, "a" * 60 + "b") == ["ab" * 1000]
    assert rank_paths(files, "a" * 2500 + "c") == []
