"""A command's output as the model reads it: escape sequences dropped, a line redrawn with
a carriage return as drawn last (``tools/terminal_output.py``)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_tools_fakes import call, make_boundary

from frontier.tools.terminal_output import terminal_text


def test_colours_titles_and_cursor_moves_are_dropped() -> None:
    assert terminal_text("\x1b[1;31mFAILED\x1b[0m test_x") == "FAILED test_x"
    assert terminal_text("\x1b]0;build\x07done\n") == "done\n"  # a window title
    assert terminal_text("\x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\") == "link"  # hyperlink
    assert terminal_text("\x1b[?25l\x1b[2K\x1b[1Gok\x1b[?25h") == "ok"
    assert terminal_text("\x1b(Bplain\x1b=") == "plain"
    assert terminal_text("cut at the end\x1b") == "cut at the end"


def test_a_line_redrawn_in_place_keeps_what_was_drawn_last() -> None:
    meter = "  0  1M\r 50  1M\r100  1M\r"
    assert terminal_text(f"start\n{meter}\nend\n") == "start\n100  1M\nend\n"
    assert terminal_text("a\r\nb\r\n") == "a\nb\n"  # CRLF: line ends, nothing redrawn
    assert terminal_text("spinner \\\r\r\n") == "spinner \\\n"


def test_plain_text_is_unchanged() -> None:
    text = "ünïcode, tabs\tand % signs\n[exit 1]\n"
    assert terminal_text(text) is text


@settings(max_examples=400)
@given(st.text(alphabet="\x1b[]();?0123456789mKHJ\x07\\\r\nab ", max_size=300))
def test_no_escape_or_carriage_return_survives_and_text_is_kept(text: str) -> None:
    out = terminal_text(text)
    assert "\r" not in out and out.count("\n") == text.count("\n")
    assert set(out) <= set(text)


def test_a_long_unterminated_sequence_is_one_pass() -> None:
    """Hostile output: escape openers that never end, by the hundred thousand."""
    text = "\x1b[" + "0;" * 200_000 + "\x1b]" + "x" * 200_000 + "\x1b[1m" * 50_000 + "end"
    assert terminal_text(text).endswith("end")


async def test_the_model_reads_a_commands_output_as_a_terminal_showed_it(tmp_path: Path) -> None:
    cmd = r"printf '\033[32mok\033[0m 3 passed\n'; printf '10%%\r50%%\r100%%\n' >&2; exit 1"
    r = await make_boundary(tmp_path).run(call("shell", command=cmd))
    assert r.output.splitlines() == ["ok 3 passed", "100%", "[exit 1]"]
