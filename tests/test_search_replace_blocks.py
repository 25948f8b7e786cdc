"""Cline's and Roo's search/replace blocks read as multi's edits (``registry.meant`` in
test_agent_loop): any lines between the markers, either marker style, every cut."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from frontier.tools.search_replace_blocks import _DIVIDER, _REPLACE, _SEARCH, blocks

LINE = st.text(alphabet="ab =<>+-:\t", max_size=6).filter(
    lambda line: not any(p.fullmatch(line.strip()) for p in (_SEARCH, _DIVIDER, _REPLACE))
)
BLOCK = st.tuples(
    st.lists(LINE, min_size=1, max_size=3).filter(lambda ls: any(x.strip() for x in ls)),
    st.lists(LINE, max_size=3),
    st.booleans(),
)


@given(st.lists(BLOCK, min_size=1, max_size=4))
def test_blocks_read_back_exactly_and_a_cut_one_is_never_half_read(
    made: list[tuple[list[str], list[str], bool]],
) -> None:
    """Blocks written with either marker style read back as exactly their edits; every
    prefix reads as nothing or as whole blocks before the cut, never a block without its
    end (a stream cut mid-edit never becomes a smaller edit)."""
    if any(old[0].strip() == "-------" or old[0].strip().startswith(":") for old, _, _ in made):
        return  # a first line Roo's head would take as its hint or separator
    text, wanted = "", []
    for old, new, roo in made:
        head, end = (
            ("<<<<<<< SEARCH", ">>>>>>> REPLACE") if roo else ("------- SEARCH", "+++++++ REPLACE")
        )
        text += "\n".join([head, *old, "=======", *new, end]) + "\n"
        wanted.append({"old": "\n".join(old), "new": "\n".join(new)})
    assert blocks(text) == wanted
    for cut in range(len(text)):
        got = blocks(text[:cut])
        assert got is None or got == wanted[: len(got)], (text[:cut], got)
