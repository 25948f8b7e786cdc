"""``app/listing.py``: a cut list is said the same way everywhere, with the right count."""

from __future__ import annotations

from frontier.app.listing import listing


def test_a_list_within_its_bound_is_said_whole() -> None:
    assert listing(["a.py", "b.py"], 5) == "a.py, b.py"
    assert listing([], 5) == ""


def test_the_rest_is_counted_from_the_items_or_the_total_kept_beside_them() -> None:
    assert listing(["a", "b", "c", "d"], 2) == "a, b and 2 more"
    assert listing(["a", "b"], 2, total=2_500) == "a, b and 2,498 more"
    assert listing(["r1", "r2", "r3"], 2, sep="; ") == "r1; r2 and 1 more"


def test_a_total_smaller_than_what_is_shown_never_says_a_negative_rest() -> None:
    assert listing(["a", "b", "c"], 5, total=1) == "a, b, c"
