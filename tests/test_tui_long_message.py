"""A long message (a pasted log) is sent whole and drawn folded: its first and last lines
and how many are between, not 20,000 wrapped lines that held the screen 1.4 s."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from pilot_wait import until
from test_tui_input import make_app, pasted_log
from tui_input_fakes import EchoRuntime

from frontier.widgets.display import FOLD_SLACK, MESSAGE_HEAD, MESSAGE_TAIL, fold_lines
from frontier.widgets.transcript import render_entry

LINE = st.text(alphabet="ab …\t€", max_size=6)


@given(st.lists(LINE, min_size=1, max_size=80), st.integers(1, 12), st.integers(0, 12))
def test_folding_keeps_both_ends_and_counts_what_it_hides(
    lines: list[str], head: int, tail: int
) -> None:
    text = "\n".join(lines)
    folded = fold_lines(text, head, tail)
    hidden = len(lines) - head - tail
    if hidden <= FOLD_SLACK:
        assert folded == text
        return
    shown = folded.split("\n")
    assert shown[:head] == lines[:head]
    assert shown[head] == f"… {hidden:,} more lines …"
    assert shown[head + 1 :] == (lines[len(lines) - tail :] if tail else [])


async def test_a_pasted_log_is_sent_whole_and_drawn_by_its_ends(tmp_path: Path) -> None:
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder)
    async with app.run_test(size=(120, 40)) as pilot:
        _, log = await pasted_log(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: holder[0].loop.sent == [log], "the whole message sent")
        (entry,) = [e for e in app.state.transcript if e.role == "you"]
        assert entry.text == log  # kept whole (copy, export)
        drawn = render_entry(entry, None, 0.0).plain.split("\n")
        assert len(drawn) == MESSAGE_HEAD + 1 + MESSAGE_TAIL
        assert drawn[0] == "you  00000 ERROR in module_0.py"
        assert drawn[MESSAGE_HEAD] == f"… {20_000 - MESSAGE_HEAD - MESSAGE_TAIL:,} more lines …"
        assert drawn[-1] == "19999 ERROR in module_17.py"
