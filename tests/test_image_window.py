"""A request carries the newest images only (``app/agent/image_window.py``): at most 20,
let go ten at a time, the older named in their items' text; the history keeps them all."""

from __future__ import annotations

import base64

from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app.agent.image_window import IMAGES_SENT, NOT_SENT, STEP, newest_images
from frontier.app.image import Image
from frontier.app.model.conversation import AssistantTurn, UserText


def shot(n: int) -> Image:
    return Image(
        "image/png", base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes([n])).decode(), f"s{n}.png"
    )


def rounds(count: int) -> list[object]:
    """A browser session: a screenshot a round, shown after each round's results."""
    items: list[object] = [UserText("look at the page", "person", (shot(0),))]
    for n in range(1, count):
        items.append(AssistantTurn(f"step {n}"))
        items.append(UserText(f"[image s{n}.png] read by call c{n}", "tool", (shot(n),)))
    return items


def sent(items: tuple[object, ...]) -> list[str]:
    return [i.name for it in items if isinstance(it, UserText) for i in it.images]


def test_up_to_twenty_images_all_go() -> None:
    items = rounds(IMAGES_SENT)
    assert newest_images(items) == tuple(items)


def test_past_twenty_the_oldest_are_named_not_sent_ten_at_a_time() -> None:
    for count, kept in ((21, 11), (25, 15), (30, 20), (31, 11)):
        items = rounds(count)
        window = newest_images(items)
        names = sent(window)
        assert len(names) == kept and names == [f"s{n}.png" for n in range(count - kept, count)]
        assert (count - kept) % STEP == 0
        first = window[0]
        assert isinstance(first, UserText) and first.origin == "person" and not first.images
        assert first.text.startswith("look at the page\n[image s0.png, image/png")
        assert first.text.endswith(NOT_SENT)
        assert sent(tuple(items)) == [f"s{n}.png" for n in range(count)]  # history intact


def test_the_cache_s_prefix_changes_once_per_ten_images() -> None:
    """From 21 to 30 images the same ten are let go: the request's beginning is the same."""
    windows = [newest_images(rounds(count)) for count in range(21, 31)]
    for window in windows[1:]:
        assert window[: len(windows[0])] == windows[0]


def test_the_loop_s_request_carries_the_window_and_its_history_all() -> None:
    from test_agent_loop import DONE, make_loop

    loop, _provider, _boundary, _events, _log = make_loop([DONE], mode="native-inc")
    loop.history[:] = rounds(27)
    request = loop.request()
    assert len(sent(tuple(request.items))) == 17
    assert len(sent(tuple(loop.history))) == 27


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["person", "tool"])), max_size=40))
def test_any_history_sends_the_newest_at_most_twenty(shape: list[tuple[int, str]]) -> None:
    """Whatever the history: at most 20 images go, they are the newest in order, the
    others are each named once, the items keep their order and origins, and the history
    itself is untouched."""
    items: list[object] = []
    n = 0
    for count, origin in shape:
        images = tuple(shot(n + k) for k in range(count))
        n += count
        items.append(UserText(f"m{len(items)}", origin, images))  # type: ignore[arg-type]
    before = list(items)
    window = newest_images(items)
    names = sent(window)
    total = n
    assert len(names) == min(total, IMAGES_SENT) or (
        total > IMAGES_SENT and (total - len(names)) % STEP == 0 and len(names) <= IMAGES_SENT
    )
    assert names == [f"s{k}.png" for k in range(total - len(names), total)]
    dropped = "\n".join(i.text for i in window if isinstance(i, UserText))
    assert dropped.count(NOT_SENT) == total - len(names)
    assert [(i.origin, i.text.split("\n")[0]) for i in window] == [  # type: ignore[union-attr]
        (i.origin, i.text)
        for i in before  # type: ignore[union-attr]
    ]
    assert items == before
