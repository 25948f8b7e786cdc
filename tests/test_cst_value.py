"""Argument values built piece by piece must equal one decode of the joined bytes."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst import value

VALUE = st.one_of(st.text().map(str.encode), st.binary())
CUTS = st.lists(st.integers(min_value=0, max_value=200), max_size=12)
LIMITS = pytest.mark.parametrize("tiny", [False, True], ids=["default", "tiny"])


@contextmanager
def limits(tiny: bool) -> Iterator[None]:
    """Tiny limits force every path: scratch, held pieces past it, blocks split in a character."""
    with pytest.MonkeyPatch.context() as patch:
        if tiny:
            patch.setattr(value, "SCRATCH_MAX", 5)
            patch.setattr(value, "BLOCK", 3)
        yield


def _pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)] or [b""]


def _decoded(data: bytes) -> str | bytes:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


@LIMITS
@given(data=VALUE, cuts=CUTS)
def test_assembly_equals_decoding_the_whole(tiny: bool, data: bytes, cuts: list[int]) -> None:
    """Characters split across pieces, invalid UTF-8, one piece or many."""
    with limits(tiny):
        assert value.assemble_value(_pieces(data, cuts), len(data)) == _decoded(data)


@LIMITS
@given(values=st.lists(st.tuples(VALUE, CUTS), min_size=2, max_size=6))
def test_one_builder_reused_for_values_of_any_sizes(
    tiny: bool, values: list[tuple[bytes, list[int]]]
) -> None:
    """Scratch buffers outlive each value (and go back to the pool): a shorter value after a
    longer one must not pick up its leftover bytes, nor a buffer still exported by a view."""
    with limits(tiny):
        builder = value.ValueBuilder()
        for data, cuts in values:
            for piece in _pieces(data, cuts):
                builder.add(piece)
            assert builder.size == len(data)
            assert builder.take() == _decoded(data)
            assert builder.size == 0
        assert len(value._pool) <= value.POOL
