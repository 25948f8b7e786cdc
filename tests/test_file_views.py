"""What the model saw of each file, kept across a resume: a call's changes recorded
(``CallViews``), stored as JSON with its result, and replayed (``FileViews.replay``) leave
the session knowing exactly what it knew; anything else in the store is passed over."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from frontier.tools.file_views import CallViews, FileViews

PATHS = st.sampled_from(["a.py", "b.py", "src/c.py"])
DIGESTS = st.sampled_from(["d1", "d2", "d3", None])
WINDOWS = st.none() | st.tuples(st.integers(1, 9), st.integers(0, 9), st.integers(1, 9))
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("saw"), PATHS, DIGESTS, WINDOWS),
        st.tuples(st.just("edited"), PATHS, DIGESTS, st.integers(1, 9)),
    ),
    max_size=30,
)


def state(views: FileViews) -> list[tuple[str, str | None, bool, object]]:
    """What a write would be judged by: for each path and digest, changed? and unread?"""
    return [
        (path, digest, views.changed(path, digest), views.unread(path, digest))
        for path in ("a.py", "b.py", "src/c.py")
        for digest in ("d1", "d2", "d3", None)
    ]


@given(OPS)
def test_replayed_views_judge_as_the_live_ones_did(
    ops: list[tuple[str, str, str | None, object]],
) -> None:
    live = FileViews()
    calls: list[CallViews] = []
    for kind, path, digest, extra in ops:
        door = CallViews(live)
        if kind == "saw":
            assert extra is None or isinstance(extra, tuple)
            door.saw(path, digest, extra)
        else:
            assert isinstance(extra, int)
            door.edited(path, digest, extra)
        calls.append(door)
    stored = json.loads(json.dumps([op for door in calls for op in door.ops]))
    resumed = FileViews()
    assert resumed.replay(stored) == len(ops)
    assert state(resumed) == state(live)


def test_a_malformed_stored_entry_is_passed_over() -> None:
    views = FileViews()
    junk: list[object] = [
        "saw",
        ["saw"],
        ["saw", 7, "d1", None],
        ["saw", "a.py", 5, None],
        ["saw", "a.py", "d1", [1, 2]],
        ["saw", "a.py", "d1", [1, True, 3]],
        ["edited", "a.py", "d1", "9"],
        ["made", "a.py", "d1", None],
        ["saw", "b.py", "d2", None],
    ]
    assert views.replay(junk) == 1
    assert views.changed("b.py", "d9") and not views.changed("a.py", "d9")
