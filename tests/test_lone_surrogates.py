"""A lone surrogate escape in the JSON a model sends (``"\\udcff"``: valid JSON, not a
character) is U+FFFD once parsed (``safejson.loads``). In a call's arguments the session
store could not record the call (``'utf-8' codec can't encode character '\\udcff'``) and
the turn ended with ``session_persistence_failed``."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from wire_scripts import Call, Text, WireServer, loopback_config, script, serve_wire
from wire_scripts import stream as reply

from frontier.app.agent.runtime import create_runtime
from frontier.app.events import Event, ToolFinished
from frontier.app.record import replace
from frontier.app.wire import safejson


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings(v)]]
    return []


units = st.one_of(st.integers(0xD800, 0xDFFF), st.integers(0, 0xFFFF)).map(lambda n: f"\\u{n:04x}")
"""``\\uXXXX`` escapes, half of them surrogates (paired or lone, as they fall)."""
pieces = st.lists(st.one_of(units, st.text(alphabet="ab é😀", max_size=3)), max_size=12)


@given(pieces, pieces)
def test_every_parsed_string_is_text_a_store_can_write(key: list[str], body: list[str]) -> None:
    source = '{"' + "".join(key) + '": ["' + "".join(body) + '"]}'
    value = safejson.loads(source)
    for s in strings(value):
        s.encode("utf-8")  # raises on a lone surrogate
    plain = json.loads(source)  # the same value where json found only characters
    if all(not 0xD800 <= ord(c) <= 0xDFFF for s in strings(plain) for c in s):
        assert value == plain


def test_pairs_stay_characters_and_lone_ones_are_replaced() -> None:
    parsed = safejson.loads(r'{"a\udc00": ["\ud83d\ude00", "bad\udcff name", "\\udcff"]}')
    assert parsed == {"a\ufffd": ["😀", "bad\ufffd name", "\\udcff"]}


@given(pieces, pieces)
def test_json_rewritten_for_a_strict_reader_holds_only_characters(
    key: list[str], body: list[str]
) -> None:
    """What an MCP server's line becomes before the SDK reads it (``WholeLines``)."""
    source = '{"' + "".join(key) + '": ["' + "".join(body) + '"]}'
    rewritten = safejson.without_lone_surrogates(source)
    rewritten.encode("utf-8")  # raises on a lone surrogate left as a character
    assert json.loads(rewritten) == safejson.loads(source)
    if rewritten != source:  # only a text that held a lone one is touched
        assert safejson.loads(source) != json.loads(source)


def test_a_text_that_is_not_json_is_left_for_its_reader_to_refuse() -> None:
    broken = '{"a": "\\udcff'
    assert safejson.without_lone_surrogates(broken) == broken


async def test_a_call_naming_a_lone_surrogate_runs_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    wire = "openai-chat"
    server = WireServer(wire)
    call = Call("c1", "read", '{"path": "bad\\udcff name.txt"}')
    server.answer(
        reply(script(wire, [Text("Reading it."), call])),
        reply(script(wire, [Text("It is not there.")])),
    )
    events: list[Event] = []
    async with serve_wire(server) as url:
        config = replace(loopback_config(url, wire), protocol="native-inc", sandbox="off")
        session = create_runtime(config, workspace=tmp_path)
        session.subscribe(events.append)
        try:
            ended = await session.send("go")
        finally:
            await session.close()
    assert ended.reason == "done", ended
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert result.kind == "error" and "bad\ufffd name.txt: no such file" in result.output
