"""Hostile model output: every parser has a depth and a size limit, and costs linear work.

No timings here: nesting is asserted by the error and by finishing at all with
10^4 levels (``json.loads`` recursed once per level and raised ``RecursionError``);
linearity by what the code does per input — bytes searched, bytes allocated
per chunk, collections scanned, bytes fed to the checker's transducers.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from chat_wire import CHAT, ChatAccumulator, chat_sse
from hypothesis import given, settings
from hypothesis import strategies as st
from scripted import ScriptedClient
from test_tools_fakes import make_boundary

from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.commands import check as check_cmd
from frontier.app.commands.transduce import TEXT_PIECE, _Printer
from frontier.app.cst import xml
from frontier.app.cst.base import calls_of, errors_of, run_chunks, split
from frontier.app.cst.ctl import CtlTransducer
from frontier.app.cst.factory import make_transducer
from frontier.app.cst.jsonbuf import CallShapeError, JsonWholeTransducer, call_from_json
from frontier.app.cst.props import check_stream
from frontier.app.events import Confirmed, Event, ToolFinished
from frontier.app.session.record import Recording, write_recording
from frontier.app.wire import safejson
from frontier.app.wire.sse import SSEDecoder, encode_sse
from frontier.tools.registry import default_registry
from frontier.tools.schema import ArgError, coerce_args

DEEP = 10**4
NESTED = "[" * DEEP + "]" * DEEP
TOO_DEEP = f"nested {DEEP + 1} levels deep; at most {safejson.MAX_DEPTH} allowed"


def tool_chunk(args: str, index: int = 0, name: str = "multi") -> dict[str, Any]:
    fn = {"name": name, "arguments": args}
    piece = {"index": index, "id": f"c{index + 1}", "type": "function", "function": fn}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [piece]}, "finish_reason": None}]}


FINISH = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
DEEP_ARGS = '{"path": "a.txt", "edits": ' + NESTED + "}"


def deep_sse() -> bytes:
    return encode_sse([json.dumps(tool_chunk(DEEP_ARGS)), json.dumps(FINISH), "[DONE]"])


# --------------------------------------------------------------------------- the one parser


def test_safejson_refuses_deep_nesting_before_json_loads_recurses() -> None:
    with pytest.raises(safejson.JsonLimitError) as info:
        safejson.loads(NESTED)
    assert isinstance(info.value, ValueError)
    assert str(info.value) == f"nested {DEEP} levels deep; at most 64 allowed"
    assert info.value.kind == "depth" and info.value.pos == 64 and info.value.depth == DEEP
    objects = '{"a":' * DEEP + "1" + "}" * DEEP
    with pytest.raises(safejson.JsonLimitError, match="nested 10000 levels"):
        safejson.loads(objects)
    level_64 = "[" * 64 + "]" * 64
    assert safejson.loads(level_64) == json.loads(level_64)


def test_safejson_counts_only_brackets_outside_strings() -> None:
    text = json.dumps({"s": "[" * 500 + '\\"{' * 100, "t": ["]" * 9, [1, {"u": "[["}]]})
    assert safejson.loads(text) == json.loads(text)
    assert safejson.nesting(text, 64) == (4, -1)
    # an unterminated string: the scan stops there and json.loads reports it
    with pytest.raises(json.JSONDecodeError, match="Unterminated string"):
        safejson.loads('["abc' + "[" * 1000)


NESTED_VALUES = st.recursive(
    st.none() | st.integers() | st.text(alphabet='[]{}"\\ax,:'),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=40,
)


def _safe_outcome(text: str, depth: int, chars: int, most: int) -> tuple[object, ...]:
    try:
        return ("value", safejson.loads(text, depth, chars, most))
    except safejson.JsonLimitError as exc:
        return ("limit", str(exc), exc.kind, exc.pos, exc.depth)
    except ValueError as exc:
        return (type(exc).__name__, str(exc))


@settings(max_examples=400, deadline=None)
@given(
    NESTED_VALUES,
    st.integers(0, 8),
    st.sampled_from(["whole", "cut", "open", "close"]),
    st.integers(0, 200),
    st.integers(1, 10**6),
    st.integers(0, 30),
)
def test_safejson_parsed_first_says_what_the_scan_says(
    value: object, depth: int, how: str, at: int, chars: int, most: int
) -> None:
    """A text past ``PARSE_FIRST`` is parsed before its nesting is measured: the value, or
    the error (too large, too many lists and objects, too deep with its place and depth,
    invalid JSON), is the one the scan-first path gives, whole or cut short, with stray
    brackets, at every limit."""
    text = json.dumps(value)
    if how == "cut":
        text = text[: at % (len(text) + 1)]
    elif how in ("open", "close"):
        text = text[:at] + ("[" if how == "open" else "]") * 3 + text[at:]
    scanned = _safe_outcome(text, depth, chars, most)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(safejson, "PARSE_FIRST", -1)
        assert _safe_outcome(text, depth, chars, most) == scanned


def test_safejson_parsed_first_refuses_what_would_recurse() -> None:
    """Past ``PARSE_FIRST``, 200,000 levels never recurse in Python: the C scanner stops near
    the interpreter's limit and the scan names the depth; a large text within the limits
    comes back whole."""
    deep = "[" * 200_000 + "]" * 200_000
    assert len(deep) > safejson.PARSE_FIRST
    with pytest.raises(safejson.JsonLimitError) as info:
        safejson.loads(deep, max_depth=200, max_chars=1 << 20)
    assert (info.value.pos, info.value.depth) == (200, 200_000)
    wide = json.dumps([{"s": "[" * 1000, "n": [1, [2]]}] * 200)
    assert len(wide) > safejson.PARSE_FIRST
    assert safejson.loads(wide, max_depth=4) == json.loads(wide)
    with pytest.raises(safejson.JsonLimitError, match="nested 4 levels deep; at most 3"):
        safejson.loads(wide, max_depth=3)


def test_safejson_bounds_the_lists_and_objects_a_parse_builds() -> None:
    """``{}`` is two characters and a 64-byte dict: past ``max_containers`` lists and objects
    outside its strings a text is refused before it is parsed, at the one past the bound,
    as a size overflow is ("limit", not "bad_json", for a tool call); brackets inside
    strings do not count, and a text of small containers under the bound parses."""
    text = json.dumps({"s": "[{" * 300, "t": [[], {}, [{"u": "]]"}]]})
    assert safejson.containers(text, 100) == (6, -1)
    assert safejson.loads(text, max_containers=6) == json.loads(text)
    many = "[" + "{}," * 10**6 + "{}]"
    assert safejson.containers(many, 5) == (6, 13)  # stops at the sixth, just past the bound
    assert safejson.containers('["abc', 5) == (1, -1)  # an unterminated string ends the count
    for size in (100, safejson.PARSE_FIRST + 1):  # both of loads' paths
        wide = many[: size - 3].rsplit(",", 1)[0] + "]"
        n = wide.count("{") + 1
        assert safejson.loads(wide, max_containers=n) == json.loads(wide)
        with pytest.raises(safejson.JsonLimitError) as info:
            safejson.loads(wide, max_containers=n - 1)
        assert info.value.kind == "containers" and info.value.pos == wide.rindex("{")
        assert str(info.value) == f"made of over {n - 1} lists and objects; at most {n - 1} allowed"
    assert safejson.MAX_CONTAINERS == 1_000_000
    with pytest.raises(safejson.JsonLimitError, match="made of over 1000000 lists"):
        safejson.loads(many)  # 6 MB of text, 2 million containers once parsed


def test_safejson_size_limit() -> None:
    with pytest.raises(safejson.JsonLimitError) as info:
        safejson.loads("[" + "1," * 50 + "1]", max_chars=64)
    assert info.value.kind == "size" and "at most 64 allowed" in str(info.value)


def test_safejson_scan_is_one_regex_step_per_bracket() -> None:
    """Strings and escapes are skipped by C code: Python steps = brackets (+1), not bytes."""
    steps = 0
    real = safejson._STEP

    class Counting:
        def match(self, text: str, pos: int) -> Any:
            nonlocal steps
            steps += 1
            return real.match(text, pos)

    text = json.dumps([{"old": "x\n" * 1000 + '"[{', "new": "y" * 5000} for _ in range(100)])
    brackets = 2 + 2 * 100
    safejson._STEP = Counting()  # type: ignore[assignment]
    try:
        assert safejson.nesting(text, 64) == (2, -1)
    finally:
        safejson._STEP = real
    assert steps <= brackets + 1


# --------------------------------------------------------------------------- native


@pytest.mark.parametrize("protocol", ["native-inc", "native-eos"])
def test_native_deep_arguments_are_a_contract_error_for_that_call(protocol: str) -> None:
    events = run_chunks(make_transducer(protocol, wire=CHAT), split(deep_sse(), 512))
    assert calls_of(events) == []
    [error] = errors_of(events)
    assert error.kind == "bad_json"
    assert error.message.startswith("call c1 (multi), index 0: arguments are " + TOO_DEEP)
    assert error.offset == len('{"path": "a.txt", "edits": ') + 63  # the 65th bracket


@pytest.mark.parametrize("protocol", ["native-inc", "native-eos"])
def test_native_arguments_of_millions_of_objects_are_a_limit_error(protocol: str) -> None:
    """A server streaming 6 MB of ``{},`` as a call's arguments (2 million dicts once
    parsed, ~150 MB): that call is a ``limit`` contract error, its arguments never
    parsed, at the object past the bound; nothing runs."""
    many = '{"path": "a.txt", "edits": [' + "{}," * 2 * 10**6 + "{}]}"
    sse = encode_sse([json.dumps(tool_chunk(many)), json.dumps(FINISH), "[DONE]"])
    events = run_chunks(make_transducer(protocol, wire=CHAT), split(sse, 1 << 16))
    assert calls_of(events) == []
    [error] = errors_of(events)
    assert error.kind == "limit"
    assert error.message == (
        "call c1 (multi), index 0: arguments are made of over 1000000 lists and objects; "
        "at most 1000000 allowed; resend the call"
    )
    assert error.offset == len('{"path": "a.txt", "edits": [') + 3 * (10**6 - 2)


def test_native_deep_arguments_sent_as_an_object_or_a_deep_chunk() -> None:
    def object_chunk(levels: int) -> dict[str, Any]:
        deep_obj: Any = 1
        for _ in range(levels):
            deep_obj = [deep_obj]
        chunk = tool_chunk("")
        chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = {"edits": deep_obj}
        return chunk

    # within the envelope's limit (the chunk is 8 + 70 levels deep): the wire parsed it,
    # and the arguments object (71 levels) is that call's error
    acc = ChatAccumulator(incremental=True)
    chunk = object_chunk(70)
    [error] = errors_of(acc.feed_chunk(chunk) + acc.feed_chunk(FINISH) + acc.finish(True))
    assert error.kind == "bad_json" and "nested 71 levels deep; at most 64" in error.message
    # past the envelope's limit the chunk itself is refused, still as bad_json
    acc = ChatAccumulator(incremental=True)
    [error] = errors_of(acc.feed_chunk(object_chunk(100)) + acc.finish(True))
    assert error.kind == "bad_json" and "an SSE chunk is nested 108 levels deep" in error.message
    # an SSE data line nested 10^4 deep (not a string): an error, not skipped as junk
    t = chat_sse(incremental=True)
    events = run_chunks(t, [encode_sse(['{"choices": ' + NESTED + "}", "[DONE]"])])
    [error] = errors_of(events)
    assert error.kind == "bad_json" and error.message.startswith("an SSE chunk is nested 10001")
    assert t.stopped and t.skipped == 0


def test_native_held_arguments_are_capped() -> None:
    acc = ChatAccumulator(incremental=False, max_held=1000)
    events: list[Event] = []
    for i in range(10):
        events += acc.feed_chunk(tool_chunk('{"content": "' + "x" * 150, index=i, name="write"))
    [error] = errors_of(events)
    assert error.kind == "limit" and "passed 1000 bytes" in error.message
    assert acc.stopped and acc.pending_size() == 0 and acc.pending() == b""


class CountingDict(dict):
    """A dict that counts full scans (iteration, values, items)."""

    scans = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        CountingDict.scans += 1
        return super().__iter__()

    def values(self):  # type: ignore[no-untyped-def]
        CountingDict.scans += 1
        return super().values()

    def items(self):  # type: ignore[no-untyped-def]
        CountingDict.scans += 1
        return super().items()


@pytest.mark.parametrize("incremental", [True, False])
def test_native_many_calls_cost_no_scan_per_call(incremental: bool) -> None:
    acc = ChatAccumulator(incremental=incremental)
    acc._calls = CountingDict()
    CountingDict.scans = 0
    ready = 0
    for i in range(3000):
        ready += len(calls_of(acc.feed_chunk(tool_chunk('{"path": "a"}', index=i, name="read"))))
        piece: dict[str, Any] = {"function": {"arguments": ""}}  # no index: the latest call
        chunk = {"choices": [{"delta": {"tool_calls": [piece]}}]}
        acc.feed_chunk(chunk)
        acc.frontier  # noqa: B018 (a property that used to scan every call)
    ready += len(calls_of(acc.feed_chunk(FINISH) + acc.finish(True)))
    assert ready == 3000
    assert CountingDict.scans <= 2


def test_sse_long_line_allocates_per_chunk_not_per_line() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: ")
    for _ in range(256):
        decoder.feed(b"x" * 4096)  # 1 MiB of one line so far
    tracemalloc.start()
    try:
        decoder.feed(b"y" * 64)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024  # the old decoder copied the whole line (1 MiB) per chunk
    assert decoder.feed(b"z\n\n") == ["x" * (1 << 20) + "y" * 64 + "z"]


def test_sse_line_over_the_limit_stops_with_bounded_memory() -> None:
    decoder = SSEDecoder(max_line=10_000)
    for _ in range(100):
        assert decoder.feed(b"data: " + b"x" * 1000) == []
    assert decoder.too_long and decoder._size == 0
    t = chat_sse(incremental=True)
    t._sse = SSEDecoder(max_line=10_000)
    events = t.feed(b"data: " + b"x" * 20_000)
    [error] = errors_of(events)
    assert error.kind == "limit" and "passed 10000 bytes" in error.message and t.stopped


# --------------------------------------------------------------------------- json baselines


def test_json_baselines_refuse_deep_documents() -> None:
    whole = run_chunks(
        JsonWholeTransducer(), [b'{"name": "multi", "arguments": ' + NESTED.encode()]
    )
    [error] = errors_of(whole)
    assert error.kind == "bad_json" and f"nested {DEEP + 1} levels deep" in error.message
    obj = run_chunks(make_transducer("json-object"), [b'{"a": ' + NESTED.encode() + b"}"])
    [error] = errors_of(obj)
    assert error.kind == "bad_json" and error.message.startswith("JSON call #1: the JSON is nested")
    with pytest.raises(CallShapeError, match='"arguments" string is nested 10000 levels'):
        call_from_json({"name": "multi", "arguments": NESTED}, 1, 0)


def test_json_whole_holds_bytes_fed_one_at_a_time_compactly() -> None:
    t = JsonWholeTransducer()
    data = json.dumps({"name": "write", "arguments": {"content": "x" * 300_000}}).encode()
    for k in range(len(data)):
        t.feed(data[k : k + 1])
    assert len(t._held.parts) <= len(data) // t._held.SMALL + 1  # not one entry per byte
    assert t.pending() == data
    [call] = calls_of(t.finish(True))
    assert len(call.args["content"]) == 300_000


# --------------------------------------------------------------------------- text modes -> schema


def test_schema_coerce_turns_deep_text_json_into_an_arg_error() -> None:
    schema = default_registry().get("multi").spec.parameters
    with pytest.raises(ArgError, match=f"must be a JSON array; it is nested {DEEP} levels"):
        coerce_args("multi", schema, {"path": "a.txt", "edits": NESTED})


@pytest.mark.parametrize("protocol", ["ctl-heredoc", "xml"])
async def test_boundary_answers_a_deep_edits_value_with_an_arg_result(
    tmp_path: Path, protocol: str
) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    if protocol == "xml":
        text = (
            '<minimax:tool_call>\n<invoke name="multi">\n<parameter name="path">a.txt'
            f'</parameter>\n<parameter name="edits">{NESTED}</parameter>\n</invoke>\n'
            "</minimax:tool_call>"
        )
    else:
        text = f"call c1 multi\narg path a.txt\narg edits <<EOF\n{NESTED}\nEOF\nend\n"
    [call] = calls_of(run_chunks(make_transducer(protocol), split(text.encode(), 1000)))
    result = await make_boundary(tmp_path).run(call)
    assert result.kind == "arg" and "nested 10000 levels deep; at most 64 allowed" in result.output
    assert (tmp_path / "a.txt").read_text() == "hello\n"


def text(content: str, finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"delta": {"content": content}, "finish_reason": finish}]}


@pytest.mark.parametrize("mode", ["ctl-heredoc", "native-inc", "native-eos"])
async def test_the_loop_survives_deep_arguments_and_tells_the_model(
    tmp_path: Path, mode: str
) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    if mode.startswith("native"):
        first = [tool_chunk(DEEP_ARGS), FINISH]
    else:
        reply = f"call c1 multi\narg path a.txt\narg edits <<EOF\n{NESTED}\nEOF\nend\n"
        first = [text(reply[i : i + 500]) for i in range(0, len(reply), 500)]
        first[-1]["choices"][0]["finish_reason"] = "stop"
    finish = first[-1]["choices"][0]["finish_reason"]
    client = ScriptedClient([(first, finish), ([text("Done.", "stop")], "stop")])
    events: list[Event] = []
    loop = AgentLoop(
        client=client,
        boundary=make_boundary(tmp_path, events=events),
        registry=default_registry(),
        mode=get_mode(mode),
        emit=events.append,
    )
    ended = await loop.send("edit a.txt")
    assert ended.reason == "done"
    fed_back = json.dumps(client.requests[1][-1])
    assert "nested 10000 levels deep; at most 64 allowed" in fed_back or TOO_DEEP in fed_back
    if mode == "ctl-heredoc":  # the confirmed call got its result
        [finished] = [e for e in events if isinstance(e, ToolFinished)]
        assert finished.result.kind == "arg"
    assert (tmp_path / "a.txt").read_text() == "hello\n"


# --------------------------------------------------------------------------- commands


def run_cli(*args: str, data: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *args],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )


def deep_recording(path: Path) -> Path:
    events = ((0.0, json.dumps(tool_chunk(DEEP_ARGS))), (0.1, json.dumps(FINISH)), (0.1, "[DONE]"))
    rec = Recording("native-inc", "m", "2026-01-01T00:00:00+00:00", events, "tool_calls", {}, 0.1)
    write_recording(path, rec)
    return path


def test_transduce_check_and_replay_report_deep_arguments_without_crashing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proc = run_cli("transduce", "--protocol", "native-inc", data=deep_sse())
    assert proc.returncode == 0, proc.stderr.decode()[-500:]  # a contract error, as a record
    lines = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    assert lines[0]["kind"] == "bad_json" and TOO_DEEP in lines[0]["message"]
    rec = deep_recording(tmp_path / "deep.jsonl")
    assert check_cmd.main(argparse.Namespace(sources=[str(rec)])) == 0
    assert "errors=bad_json" in capsys.readouterr().out
    proc = run_cli("replay", "--headless", str(rec))
    assert proc.returncode == 1, proc.stderr.decode()[-500:]  # 1: the recording has an error
    assert TOO_DEEP in proc.stdout.decode()


# --------------------------------------------------------------------------- xml


def test_xml_block_is_split_with_a_bounded_number_of_bytes_searched() -> None:
    scanned = 0

    class Counting(bytes):
        def find(self, sub: Any, start: Any = 0, end: Any = None) -> int:
            nonlocal scanned
            at = super().find(sub, start) if end is None else super().find(sub, start, end)
            scanned += (at if at >= 0 else len(self)) - start
            return at

    for body in (b'<invoke name="a">' * 5000, b'<invoke name="a"></invoke>x' * 5000):
        scanned = 0
        xml._elements(Counting(body), xml._INVOKE)
        assert scanned <= 2 * len(body)


def test_xml_thousands_of_unclosed_invokes_are_one_bad_xml_error() -> None:
    block = b"<minimax:tool_call>" + b'<invoke name="read">' * 20_000 + b"</minimax:tool_call>"
    [error] = errors_of(run_chunks(make_transducer("xml"), split(block, 4096)))
    assert error.kind == "bad_xml" and "has no <invoke name=…>…</invoke>" in error.message


def test_xml_blocks_held_until_the_end_are_capped() -> None:
    block = b'<minimax:tool_call><invoke name="read"><parameter name="path">a</parameter>'
    block += b"</invoke></minimax:tool_call>\n"
    t = xml.XmlTransducer(max_held=10 * len(block))
    events = run_chunks(t, [block * 20])
    [error] = errors_of(events)
    assert error.kind == "limit" and calls_of(events) == []
    assert t.pending_size() <= 10 * len(block)


# --------------------------------------------------------------------------- ctl


def test_ctl_header_line_fed_a_byte_at_a_time_grows_in_place() -> None:
    t = CtlTransducer(l_line=1 << 20)
    t.feed(b"call c1 write\narg path ")
    t.feed(b"x")
    held = t._buf
    for _ in range(10_000):
        assert t.feed(b"x") == []
    assert (
        t._buf is held and len(held) == len(b"arg path ") + 10_001
    )  # no copy of the line per byte
    t.feed(b"   ")
    assert t._buf is held
    events = t.feed(b"\nend\n")
    [call] = calls_of(events)
    assert call.args["path"] == "x" * 10_001 + "   "
    assert all(type(e.data) is bytes for e in events if isinstance(e, Confirmed))


def test_ctl_blank_line_after_a_call_fed_a_byte_at_a_time_grows_in_place() -> None:
    t = CtlTransducer()
    t.feed(b"call c1 read\narg path a\nend\n ")
    held = None
    for _ in range(2000):
        assert t.feed(b" ") == []
        held = held or t._buf
        assert t._buf is held
    assert t.pending() == b" " * 2001 and type(t.pending()) is bytes
    [event] = t.feed(b"\n")
    assert isinstance(event, Confirmed) and event.kind == "frame"


# --------------------------------------------------------------------------- transduce printer


class Sink:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def write(self, data: bytes) -> int:
        self.lines.extend(json.loads(x) for x in data.decode().splitlines())
        return len(data)


def test_printer_holds_a_long_line_in_pieces_and_prints_the_same_for_any_chunking() -> None:
    line = ("héllo wörld " * 20_000 + "€\n").encode() + b"short\n" + b"tail"
    outputs = []
    for size in (1, 7, 4096, len(line)):
        sink = Sink()
        printer = _Printer(sink, detail=False, quiet=False)  # type: ignore[arg-type]
        offset = 0
        for piece in split(line, size):
            printer.events([Confirmed(offset, "text", piece)])
            offset += len(piece)
            assert printer._size <= TEXT_PIECE + size  # never the whole line
        printer.flush_text()
        outputs.append(sink.lines)
    assert all(out == outputs[0] for out in outputs)
    pieces = [x["data"] for x in outputs[0]]
    assert "".join(pieces) == line.decode() and "\ufffd" not in "".join(pieces)
    assert all(len(p.encode()) <= TEXT_PIECE for p in pieces)
    assert pieces[-2:] == ["short\n", "tail"]
    assert [x["offset"] for x in outputs[0]][-1] == len(line) - 4


def test_printer_adds_text_with_allocation_per_chunk_not_per_line() -> None:
    printer = _Printer(Sink(), detail=False, quiet=True)  # type: ignore[arg-type]
    offset = 0
    for _ in range(1000):
        printer.events([Confirmed(offset, "text", b"x" * 1000)])
        offset += 1000
    tracemalloc.start()
    try:
        printer.events([Confirmed(offset, "text", b"y" * 64)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * TEXT_PIECE  # the old printer re-joined the whole held line (1 MB)


def test_transduce_streams_a_long_line_with_the_same_output_for_any_chunk() -> None:
    data = ("ñ" * 100_000 + "\n").encode() + b"call c1 read\narg path a\nend\n"
    outs = []
    for chunk in ("1", "3", "65536", "1000000"):
        proc = run_cli("transduce", "--protocol", "ctl", "--chunk", chunk, data=data)
        assert proc.returncode == 0
        outs.append([json.loads(x) for x in proc.stdout.decode().splitlines()][:-1])
    assert all(out == outs[0] for out in outs)
    texts = [x["data"] for x in outs[0] if x["type"] == "text"]
    assert "".join(texts) == "ñ" * 100_000 + "\n" and len(texts) == 4


# --------------------------------------------------------------------------- check


def test_check_work_is_linear_in_the_input_whatever_the_number_of_calls() -> None:
    """Bytes fed to all the checker's transducers stay within a constant times the input
    (it used to run a fresh transducer on three prefixes per call: quadratic)."""
    fed = 0

    class Counted(CtlTransducer):
        def feed(self, data: bytes) -> list[Event]:
            nonlocal fed
            fed += len(data)
            return super().feed(data)

    for calls in (100, 400):
        data = b"".join(b"call c%d read\narg path f%d\nend\n" % (i, i) for i in range(calls))
        fed = 0
        report = check_stream(data, "ctl", True, fresh=100, factory=lambda p: Counted())
        assert report.ok and report.calls == calls
        assert fed <= (report.fresh_prefixes + 3) * len(data)
        assert report.fresh_prefixes <= 25 and report.cut_prefixes >= 3 * calls


# slow (8.7 s alone at load 2, 13.7 s in the full suite): check_stream byte by byte over
# 250 KB under tracemalloc, which the memory bound needs
def test_check_memory_does_not_grow_with_the_input() -> None:
    """The checker keeps where calls appeared, not something per byte (it kept a count per
    prefix and a list of every offset: ~40 bytes per input byte)."""
    line = b"    result = compute(alpha, beta, gamma)  # a line of prose, ~60 B\n"
    peaks = []
    for size in (50_000, 200_000):  # 4x apart: per-byte state would show as 4x the peak
        data = line * (size // len(line)) + b"call c1 read\narg path a\nend\n"
        tracemalloc.start()
        try:
            report = check_stream(data, "ctl", True)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert report.ok and report.calls == 1
    # the events of one piece fed at once (``props.PIECE``), whatever the input's size
    assert peaks[1] < 1.5 * peaks[0] and peaks[1] < 4 << 20


class LateOnOneCall(CtlTransducer):
    """Unsafe on purpose: when call c150's confirming newline arrives as a one-byte
    ``feed``, the call becomes executable one byte late (at the next feed)."""

    def feed(self, data: bytes) -> list[Event]:
        events = getattr(self, "_late", []) + super().feed(data)
        self._late: list[Event] = []
        if len(data) == 1 and not getattr(self, "_delayed", False):
            late = [e for e in events if getattr(getattr(e, "call", None), "id", "") == "c150"]
            if late:
                self._delayed = True
                self._late = late
                events = [e for e in events if e not in late]
        return events


def test_check_compares_every_call_cut_with_a_piecewise_fed_transducer() -> None:
    """A chunking bug at one call of 300, where no fresh prefix is looked at, is found."""
    data = b"".join(b"call c%d read\narg path f%d\nend\n" % (i, i) for i in range(300))
    assert check_stream(data, "ctl", True, fresh=100).ok
    report = check_stream(data, "ctl", True, fresh=100, factory=lambda p: LateOnOneCall())
    assert {v.prop for v in report.violations} >= {"chunking"}
    end = data.index(b"call c151 ")
    assert any(v.prop == "chunking" and end - 2 <= v.offset <= end for v in report.violations)
