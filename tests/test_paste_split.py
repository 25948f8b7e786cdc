"""Bracketed pastes found whole before Textual's parser (``paste_split.py``): whatever the
reads are, the keys and pastes posted are the ones Textual's own parser posts."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from textual import events
from textual._xterm_parser import XTermParser

from frontier.app.frontends.tui.paste_split import END, START, PasteSplitter

KEYS = st.sampled_from(["a", "Z", " ", "\r", "\x7f", "\t", "é", "\x1b[A", "\x1b[2~", "\x01"])
"""Typed keys: characters, arrows, Insert, ctrl+a (no lone Escape: it waits for a timeout)."""
PASTED = st.text(alphabet="ab \n\r\t\x00é€[~201", max_size=30)
"""Pasted text (no ESC: inside a paste Textual's parser reacts to some escapes)."""
ITEM = st.one_of(KEYS.map(lambda k: (False, k)), PASTED.map(lambda p: (True, p)))


def posted(messages: object) -> list[tuple[str, str]]:
    """What a message means to the app: a key (its name and character) or a paste."""
    out = []
    for message in messages:  # type: ignore[attr-defined]
        if isinstance(message, events.Paste):
            out.append(("paste", message.text))
        elif isinstance(message, events.Key):
            out.append((message.key, message.character or ""))
    return out


def by_textual(reads: list[str]) -> list[tuple[str, str]]:
    parser = XTermParser()
    messages = [m for read in reads for m in parser.feed(read)]
    return posted([*messages, *parser.feed("")])


def split_first(reads: list[str]) -> list[tuple[str, str]]:
    """As ``QuickExitDriver`` reads: the splitter first, the parser for the rest."""
    parser, pastes = XTermParser(), PasteSplitter()
    messages: list[object] = []
    for read in reads:
        for pasted, part in pastes.feed(read):
            messages += [events.Paste(part)] if pasted else list(parser.feed(part))
    held = pastes.flush()  # the idle poll after the last read
    messages += parser.feed(held) if held else []  # ("" would be the end of the input)
    return posted([*messages, *parser.feed("")])


def cut(stream: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(stream), *(c % (len(stream) + 1) for c in cuts)})
    return [stream[a:b] for a, b in itertools.pairwise(points)]


@settings(max_examples=300)
@given(st.lists(ITEM, max_size=12), st.lists(st.integers(0, 10_000), max_size=12))
def test_keys_and_pastes_come_out_as_textuals_parser_posts_them(
    items: list[tuple[bool, str]], cuts: list[int]
) -> None:
    stream = "".join(f"{START}{text}{END}" if pasted else text for pasted, text in items)
    reads = cut(stream, cuts)
    assert split_first(reads) == by_textual(reads)


def test_a_marker_cut_anywhere_across_reads_is_still_found() -> None:
    stream = f"x{START}line one\nline two{END}y"
    for at in range(len(stream) + 1):
        for at2 in range(at, len(stream) + 1):
            reads = [stream[:at], stream[at:at2], stream[at2:]]
            assert split_first(reads) == [("x", "x"), ("paste", "line one\nline two"), ("y", "y")]


def test_the_parser_never_reads_a_character_of_a_paste() -> None:
    pastes = PasteSplitter()
    log = "\n".join(f"{n:05d} ERROR" for n in range(20_000))
    stream = f"{START}{log}{END}"
    parts = [p for i in range(0, len(stream), 4096) for p in pastes.feed(stream[i : i + 4096])]
    assert parts == [(True, log)]
    assert not pastes.pasting


def test_held_bytes_that_no_read_finishes_go_to_the_parser() -> None:
    pastes = PasteSplitter()
    assert pastes.feed("ab\x1b[") == [(False, "ab")]  # may begin a paste: held
    assert pastes.flush() == "\x1b["  # the next idle poll gives it to the parser
    assert pastes.feed("\x1b") == [(False, "\x1b")]  # a lone ESC is never held
    assert pastes.feed(START + "half") == []
    assert pastes.pasting and pastes.flush() == ""  # inside a paste nothing is released
