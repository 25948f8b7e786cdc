"""The json-whole / json-object baselines and MiniMax XML calls."""

from __future__ import annotations

import pytest
from chat_wire import CHAT

from frontier.app.cst.base import calls_of, coalesce, errors_of, run_chunks, split
from frontier.app.cst.factory import PROTOCOLS, input_kind, make_transducer
from frontier.app.cst.jsonbuf import JsonObjectTransducer
from frontier.app.cst.xml import XmlTransducer
from frontier.app.events import Confirmed, Event


def run(protocol: str, data: bytes, clean: bool = True) -> list[Event]:
    """Whole and byte-by-byte must agree; returns the coalesced events."""
    whole = coalesce(run_chunks(make_transducer(protocol), [data], clean))
    assert coalesce(run_chunks(make_transducer(protocol), split(data, 1), clean)) == whole
    return whole


def test_json_whole_parses_at_the_end_only() -> None:
    data = b'{"calls": [{"id": "a", "name": "read", "arguments": {"path": "x"}},' \
        b' {"name": "grep", "arguments": "{\\"pattern\\": \\"y\\"}"}]}'  # fmt: skip
    t = make_transducer("json-whole")
    assert t.feed(data) == [] and t.pending() == data
    calls = calls_of(t.finish(True))
    assert [(c.id, c.name, c.args) for c in calls] == [
        ("a", "read", {"path": "x"}),
        ("call_2", "grep", {"pattern": "y"}),
    ]
    [err] = errors_of(run("json-whole", data, clean=False))
    assert err.kind == "truncated"
    [err] = errors_of(run("json-whole", b'[{"name": "read", "arguments": {"a": 1}'))
    assert err.kind == "bad_json" and "char" in err.message
    assert calls_of(run("json-whole", b"Just prose, no calls.")) == []


def test_json_object_runs_each_object_at_its_closing_brace() -> None:
    data = (
        b'First {"id": "c1", "name": "read", "arguments": {"path": "a}{\\"b"}}'
        b' then {"name": "ls", "arguments": {}} done'
    )
    t = JsonObjectTransducer()
    first_close = data.index(b"}}") + 2
    assert calls_of(t.feed(data[: first_close - 1])) == []
    assert t.pending().startswith(b'{"id"')
    [call] = calls_of(t.feed(data[first_close - 1 : first_close]))
    assert call.args == {"path": 'a}{"b'} and call.offset == first_close - 1
    events = run("json-object", data)
    assert [c.id for c in calls_of(events)] == ["c1", "call_2"]
    text = b"".join(e.data for e in events if isinstance(e, Confirmed) and e.kind == "text")
    assert text == b"First  then  done"


def test_json_object_errors() -> None:
    [err] = errors_of(run("json-object", b'{"name": "read", "arguments": {"a": 1,}}'))
    assert err.kind == "bad_json"
    [err] = errors_of(run("json-object", b'{"arguments": {}}'))
    assert err.kind == "bad_call" and "name" in err.message
    [err] = errors_of(run("json-object", b'{"name": "read", "argu', clean=False))
    assert err.kind == "truncated"


XML = (
    b"Let me check.\n<minimax:tool_call>\n"
    b'<invoke name="read">\n<parameter name="path">a.py</parameter>\n</invoke>\n'
    b'<invoke name="write"><parameter name="content">x < y\n</parameter></invoke>\n'
    b"</minimax:tool_call>\nok"
)


def test_xml_calls_run_only_after_a_clean_end() -> None:
    t = XmlTransducer()
    assert calls_of(t.feed(XML)) == []
    calls = calls_of(t.finish(True))
    assert [(c.name, c.args) for c in calls] == [
        ("read", {"path": "a.py"}),
        ("write", {"content": "x < y"}),  # the newline before </parameter> is padding
    ]
    assert calls_of(run("xml", XML)) == calls


def test_xml_truncation_runs_none_and_reports_each() -> None:
    t = XmlTransducer()
    events = run_chunks(t, [XML[: XML.index(b"</minimax")]], clean=False)
    assert calls_of(events) == []
    assert [name for _, name in t.truncated_calls] == ["read", "write"]
    assert {e.kind for e in errors_of(events)} == {"truncated"}


@pytest.mark.parametrize(
    "block",
    [
        b"<minimax:tool_call>nothing</minimax:tool_call>",
        b'<minimax:tool_call><invoke name="r"><parameter name="a">1</parameter>'
        b'<parameter name="a">2</parameter></invoke></minimax:tool_call>',
    ],
)
def test_xml_malformed_blocks_are_errors(block: bytes) -> None:
    events = run("xml", block)
    assert calls_of(events) == [] and len(errors_of(events)) == 1


def test_factory_covers_every_protocol() -> None:
    for protocol in PROTOCOLS:
        t = make_transducer(protocol, wire=CHAT)
        assert t.feed(b"") == [] and t.frontier == 0
        assert input_kind(protocol) in ("text", "sse")
    with pytest.raises(ValueError, match="unknown protocol 'nope'"):
        make_transducer("nope")
