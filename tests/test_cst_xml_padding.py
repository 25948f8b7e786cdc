"""MiniMax parameter padding: one newline after `<parameter …>` and one before `</parameter>`.

Models write `<parameter name="tags">\\n["a", "b"]\\n</parameter>`; MiniMax's reference
parser and vLLM read `["a", "b"]`. Frontier drops exactly that padding and keeps every
other byte (docs/protocol.md, xml).
"""

from __future__ import annotations

import pytest

from frontier.app.cst.base import calls_of, errors_of, run_chunks, split
from frontier.app.cst.xml import XmlTransducer


def block(value: bytes, key: bytes = b"tags") -> bytes:
    return (
        b'<minimax:tool_call>\n<invoke name="search">\n<parameter name="'
        + key
        + b'">'
        + value
        + b"</parameter>\n</invoke>\n</minimax:tool_call>"
    )


def value_of(data: bytes, chunk: int | None = None) -> object:
    events = run_chunks(XmlTransducer(), split(data, chunk) if chunk else [data])
    assert errors_of(events) == []
    [call] = calls_of(events)
    return call.args


def test_one_newline_each_side_is_padding() -> None:
    assert value_of(block(b'\n["a", "b"]\n')) == {"tags": '["a", "b"]'}
    assert value_of(block(b"src/app.py\n", b"path")) == {"path": "src/app.py"}
    assert value_of(block(b"\nls -la", b"command")) == {"command": "ls -la"}


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        (b"\n\nx\n\n", "\nx\n"),  # exactly one each side
        (b"\n", ""),  # a lone newline is padding
        (b"\n\n", ""),
        (b"", ""),
        (b"  x  ", "  x  "),  # spaces are content
        (b" \nx\n ", " \nx\n "),  # only *directly* after / before the tags
        (b"line 1\nline 2\n\n", "line 1\nline 2\n"),  # a final newline is written twice
    ],
)
def test_every_other_byte_is_kept(raw: bytes, kept: str) -> None:
    assert value_of(block(raw)) == {"tags": kept}


def test_padding_split_from_its_tag_by_any_chunking() -> None:
    data = b"Searching.\n" + block(b"\nfirst\nsecond\n") + b"\ndone"
    expected = {"tags": "first\nsecond"}
    for size in range(1, len(data) + 1):
        assert value_of(data, size) == expected, size
    for cut in range(len(data) + 1):  # every single split point
        events = run_chunks(XmlTransducer(), [data[:cut], data[cut:]])
        assert [c.args for c in calls_of(events)] == [expected], cut
