"""Large argument values are decoded in blocks; the result must equal one whole decode."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst import value


@given(
    data=st.one_of(st.text().map(str.encode), st.binary()),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=12),
)
def test_block_assembly_equals_decoding_the_whole(data: bytes, cuts: list[int]) -> None:
    """Tiny blocks force every path: characters split across blocks, invalid UTF-8."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(value, "BLOCK", 3)
        _check(data, cuts)


def _check(data: bytes, cuts: list[int]) -> None:
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    parts = [data[a:b] for a, b in itertools.pairwise(points)] or [b""]
    try:
        expected: str | bytes = data.decode("utf-8")
    except UnicodeDecodeError:
        expected = data
    assert value.assemble_value(parts, len(data)) == expected
