"""The Confirmed pane's byte-run preview: the run's last bytes, never a ``�`` for text
that was fine (the preview used to be re-encoded with its ``⏎`` marks and cut mid-mark)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from frontier.app.events import ArgBytes, ArgStarted, CallStarted
from frontier.widgets.display import display_preview
from frontier.widgets.state import PREVIEW_BYTES, UiState


def confirmed_arg(data: bytes, step: int) -> str:
    state = UiState(lambda: 0.0)
    state.apply(CallStarted("c1", "write", 0))
    state.apply(ArgStarted("c1", "content", "heredoc", 10))
    for start in range(0, len(data), step):
        state.apply(ArgBytes("c1", "content", data[start : start + step], 20 + start))
    row = state.confirmed[-1]
    assert row.nbytes == len(data)
    return row.preview


def test_ascii_with_newlines_never_shows_a_replacement_character() -> None:
    data = b"".join(b"line %d of the notes\n\tindented\n" % i for i in range(40))
    for step in (1, 3, 7, 64):
        preview = confirmed_arg(data, step)
        assert "\ufffd" not in preview
        assert preview.endswith("⏎→indented⏎")


@given(st.text(min_size=1, max_size=200), st.integers(1, 9))
def test_any_text_in_any_pieces_previews_its_own_tail(text: str, step: int) -> None:
    data = text.encode("utf-8")
    preview = confirmed_arg(data, step)
    assert "\ufffd" not in preview or "\ufffd" in text
    # Control characters are shown as pictures (issue 21): compare with the text as
    # displayed; the tail kept is at most PREVIEW_BYTES of the raw bytes.
    assert display_preview(text, one_line=True).endswith(preview)
    kept = next(
        n for n in range(len(text) + 1) if display_preview(text[n:], one_line=True) == preview
    )
    assert len(text[kept:].encode()) <= PREVIEW_BYTES
