"""``coalesce_confirmed``: a replay applies one event per run of confirmed prose, and a
front end sees the same bytes, kinds, order and frontier as event by event."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst.factory import make_transducer
from frontier.app.stream_events import (
    CallStarted,
    Confirmed,
    Event,
    StreamBytes,
    coalesce_confirmed,
)


def _spans(events: list[Event]) -> list[tuple[str, int, bytes]]:
    """Confirmed bytes as runs: (kind, offset, bytes) joined wherever contiguous and
    adjacent, the other events as markers: what a reader of the stream learns."""
    out: list[tuple[str, int, bytes]] = []
    for event in events:
        if isinstance(event, Confirmed):
            last = out[-1] if out else None
            if last and last[0] == event.kind and last[1] + len(last[2]) == event.offset:
                out[-1] = (last[0], last[1], last[2] + event.data)
                continue
            out.append((event.kind, event.offset, event.data))
        else:
            out.append((event.type, -1, b""))
    return out


def test_lines_of_prose_become_one_event() -> None:
    transducer = make_transducer("ctl-heredoc")
    events = transducer.feed(b"one\ntwo\nthree\ncall c1 read\narg path x\nend\nfour\n")
    merged = coalesce_confirmed(events)
    texts = [e for e in merged if isinstance(e, Confirmed) and e.kind == "text"]
    assert texts[0] == Confirmed(0, "text", b"one\ntwo\nthree\n")
    assert any(isinstance(e, CallStarted) for e in merged)
    assert len(merged) < len(events)
    assert _spans(merged) == _spans(events)


def test_a_gap_or_another_kind_keeps_events_apart() -> None:
    events: list[Event] = [
        Confirmed(0, "text", b"a\n"),
        Confirmed(3, "text", b"b\n"),  # a byte between them was never confirmed
        Confirmed(5, "frame", b"call c1 x\n"),
        StreamBytes(15, b"z"),
        Confirmed(15, "frame", b"z"),
    ]
    assert coalesce_confirmed(events) == events


lines = st.lists(
    st.sampled_from(
        [b"prose here\n", b"call c1 read\n", b"arg path a.py\n", b"end\n", b"\n", b"x"]
    ),
    max_size=40,
)


@given(lines, st.lists(st.integers(1, 64), min_size=1, max_size=8))
def test_same_stream_whatever_the_chunking(parts: list[bytes], sizes: list[int]) -> None:
    data = b"".join(parts)
    transducer = make_transducer("ctl-heredoc")
    events: list[Event] = []
    pos, i = 0, 0
    while pos < len(data):
        step = sizes[i % len(sizes)]
        events += coalesce_confirmed(transducer.feed(data[pos : pos + step]))
        pos, i = pos + step, i + 1
    events += coalesce_confirmed(transducer.finish(True))
    whole = make_transducer("ctl-heredoc")
    reference = whole.feed(data) + whole.finish(True)
    assert _spans(events) == _spans(reference)
