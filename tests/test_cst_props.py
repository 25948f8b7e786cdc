"""Properties: random well-formed streams x random chunkings (CTL and native deltas).

Same events whatever the chunking; the calls the stream encodes and no others;
S1–S3 on every prefix; pending within DESIGN §3 bounds after every chunk.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from chat_wire import CHAT, ChatAccumulator
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.cst.base import calls_of, coalesce, decode_value, errors_of, run_chunks
from frontier.app.cst.ctl import CtlTransducer
from frontier.app.cst.factory import make_transducer, pending_size
from frontier.app.cst.props import check_stream
from frontier.app.events import ContractError, Event
from frontier.app.wire.sse import encode_sse

KEY = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
IDENT = st.from_regex(r"[A-Za-z0-9_.:-]{1,8}", fullmatch=True)
NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,8}", fullmatch=True)
TAG = st.from_regex(r"[A-Za-z0-9_]{1,5}", fullmatch=True)
LINE = st.binary(max_size=14).map(lambda b: b.replace(b"\n", b"."))
BLANK = st.sampled_from([b"\n", b" \n", b"\t\n", b"\r\n"])


@st.composite
def ctl_arg(draw: st.DrawFn, key: str) -> tuple[bytes, bytes]:
    """(wire bytes, value) of one argument in a random form."""
    form = draw(st.sampled_from(["length", "inline", "heredoc"]))
    k = key.encode()
    if form == "length":
        body = draw(st.binary(max_size=40))
        return b"arg %s %d\n" % (k, len(body)) + body, body
    if form == "inline":
        value = draw(LINE)
        if (value and value.isdigit()) or value.startswith(b"<<"):
            value = b"v" + value
        return b"arg %s %s\n" % (k, value), value
    tag = draw(TAG).encode()
    quote = draw(st.sampled_from([b"", b"'", b'"']))
    lines = [line + b"x" if line == tag else line for line in draw(st.lists(LINE, max_size=5))]
    body = b"".join(line + b"\n" for line in lines)
    return b"arg %s <<%s%s%s\n" % (k, quote, tag, quote) + body + tag + b"\n", body


@st.composite
def ctl_program(draw: st.DrawFn) -> tuple[bytes, list[tuple[str, str, dict[str, Any]]]]:
    prose = [
        line
        for line in draw(st.lists(LINE, max_size=3))
        if not line.startswith(b"call ") and line.lstrip(b" \t\r")
    ]
    out = [line + b"\n" for line in prose]
    expected = []
    ids = draw(st.lists(IDENT, min_size=1, max_size=4, unique=True))
    for ident in ids:
        name = draw(NAME)
        out.append(f"call {ident} {name}\n".encode())
        args: dict[str, Any] = {}
        for key in draw(st.lists(KEY, max_size=3, unique=True)):
            wire, value = draw(ctl_arg(key))
            out.append(wire)
            args[key] = decode_value(value)
        out.append(b"end\n")
        out.extend(draw(st.lists(BLANK, max_size=2)))
        expected.append((ident, name, args))
    if draw(st.booleans()):
        out.append(b"Done.\n")
    return b"".join(out), expected


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def simple(calls: list[Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(c.id, c.name, dict(c.args)) for c in calls]


@given(ctl_program(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_ctl_any_chunking_gives_the_same_events_and_the_encoded_calls(
    program: tuple[bytes, list[Any]], cuts: list[int]
) -> None:
    data, expected = program
    whole = coalesce(run_chunks(CtlTransducer(), [data]))
    t = CtlTransducer()
    events: list[Event] = []
    for piece in chunked(data, cuts):
        events += t.feed(piece)
        pending = t.pending()
        assert len(pending) <= t.pending_bound() <= t.l_line
        if not t.stopped:
            assert pending == data[t.frontier : t.consumed]
    events += t.finish(True)
    assert coalesce(events) == whole
    assert simple(calls_of(whole)) == expected
    assert not any(isinstance(e, ContractError) for e in whole)


@given(ctl_program(), st.integers(min_value=0, max_value=10_000))
def test_ctl_s1_s3_hold_on_every_prefix_clean_and_truncated(
    program: tuple[bytes, list[Any]], cut: int
) -> None:
    data, expected = program
    report = check_stream(data, "ctl", clean=True, fresh=48, samples=16)
    assert report.ok, report.violations
    prefix = data[: cut % (len(data) + 1)]
    report = check_stream(prefix, "ctl", clean=False, fresh=48, samples=16)
    assert report.ok, report.violations
    # on a truncated stream the calls that ran are exactly a prefix of the encoded ones
    got = simple(calls_of(run_chunks(CtlTransducer(), [prefix], clean=False)))
    assert got == expected[: len(got)]


TOKENS = st.sampled_from(
    [b"call c1 r\n", b"call c2 w\n", b"arg a 3\n", b"arg b <<E\n", b"E\n", b"end\n", b"end",
     b"x", b"\n", b"  ", b"abc\n", b"arg c v\n", b"\xc3\xa9", b"call", b"arg", b"<<"]
)  # fmt: skip


@given(st.lists(TOKENS, max_size=30), st.booleans())
def test_ctl_arbitrary_token_soup_never_breaks_s1_s3(tokens: list[bytes], clean: bool) -> None:
    data = b"".join(tokens)
    report = check_stream(data, "ctl", clean=clean, fresh=64, samples=16)
    assert report.ok, report.violations


# --------------------------------------------------------------------------- native

JSON_VALUE = st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none())


@st.composite
def native_stream(
    draw: st.DrawFn, twice: bool = False
) -> tuple[list[dict[str, Any]], list[tuple[str, str, dict]]]:
    """A Chat Completions stream of 1–3 calls cut anywhere; ``twice``: each call's
    arguments encoded twice (a JSON string holding the object)."""
    chunks: list[dict[str, Any]] = []
    if draw(st.booleans()):
        chunks.append({"choices": [{"delta": {"content": draw(st.text(max_size=12))}}]})
    expected = []
    for index in range(draw(st.integers(min_value=1, max_value=3))):
        ident, name = f"call_{draw(IDENT)}_{index}", draw(NAME)
        args = draw(st.dictionaries(KEY, JSON_VALUE, max_size=3))
        text = json.dumps(args, ensure_ascii=draw(st.booleans()))
        if twice:
            text = json.dumps(text)
        cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=4))) | {0, len(text)})
        pieces = [text[a:b] for a, b in itertools.pairwise(cuts)] or [""]
        for j, piece in enumerate(pieces):
            fn: dict[str, Any] = {"arguments": piece}
            tc: dict[str, Any] = {"index": index, "function": fn}
            if j == 0:
                tc.update(id=ident, type="function")
                fn["name"] = name
            chunks.append({"choices": [{"delta": {"tool_calls": [tc]}, "finish_reason": None}]})
        expected.append((ident, name, args))
    chunks.append({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    return chunks, expected


def sse_body(chunks: list[dict[str, Any]]) -> bytes:
    return encode_sse([json.dumps(c) for c in chunks] + ["[DONE]"])


@given(native_stream(), st.lists(st.integers(min_value=0, max_value=100_000), max_size=12))
def test_native_any_split_gives_the_same_calls(
    stream: tuple[list[dict[str, Any]], list[Any]], cuts: list[int]
) -> None:
    chunks, expected = stream
    body = sse_body(chunks)
    for protocol in ("native-inc", "native-eos"):
        whole = coalesce(run_chunks(make_transducer(protocol, wire=CHAT), [body]))
        t = make_transducer(protocol, wire=CHAT)
        events = []
        for piece in chunked(body, cuts):
            events += t.feed(piece)
            assert len(t.pending()) <= t.pending_bound()
            assert pending_size(t) == len(t.pending())  # the counter `check` relies on
        events += t.finish(True)
        assert pending_size(t) == len(t.pending())
        assert coalesce(events) == whole
        assert simple(calls_of(whole)) == expected


def resent(chunks: list[dict[str, Any]], how: str) -> list[dict[str, Any]]:
    """``chunks`` as a server that resends arguments sends them: ``cumulative``, every
    piece the arguments so far (DeepSeek on Baidu Qianfan, GLM-style local servers);
    ``repeat``, the pieces and then each call whole again before the finish (proxies that
    add the consolidated call)."""
    out: list[dict[str, Any]] = []
    so_far: dict[int, str] = {}
    for chunk in chunks[:-1]:
        tool_calls = chunk["choices"][0]["delta"].get("tool_calls")
        if not tool_calls or how != "cumulative":
            out.append(chunk)
            continue
        (tc,) = tool_calls
        so_far[tc["index"]] = so_far.get(tc["index"], "") + tc["function"]["arguments"]
        fn = {**tc["function"], "arguments": so_far[tc["index"]]}
        out.append({"choices": [{"delta": {"tool_calls": [{**tc, "function": fn}]}}]})
    if how == "repeat":
        whole: dict[int, str] = {}
        for chunk in chunks[:-1]:
            for tc in chunk["choices"][0]["delta"].get("tool_calls", []):
                whole[tc["index"]] = whole.get(tc["index"], "") + tc["function"]["arguments"]
        for index, text in whole.items():
            tc = {"index": index, "function": {"arguments": text}}
            out.append({"choices": [{"delta": {"tool_calls": [tc]}, "finish_reason": None}]})
    return [*out, chunks[-1]]


@given(native_stream(), st.sampled_from(["cumulative", "repeat"]))
def test_arguments_a_server_resends_are_read_once(
    stream: tuple[list[dict[str, Any]], list[Any]], how: str
) -> None:
    """Whatever the cuts (after a colon too, where appending the resend still reads as a
    nested object), a server resending the arguments so far, or the whole call again,
    runs the calls a well-behaved one would, and S1–S3 hold at every prefix."""
    chunks, expected = stream
    runs_as_sent_well(sse_body(resent(chunks, how)), expected)


def runs_as_sent_well(body: bytes, expected: list[Any]) -> None:
    """``body`` (a server's quirk) runs exactly the calls a well-behaved server's stream
    would, without an error, in both native modes, and S1–S3 hold at its prefixes."""
    for protocol in ("native-inc", "native-eos"):
        events = run_chunks(make_transducer(protocol, wire=CHAT), [body])
        assert errors_of(events) == [], errors_of(events)
        assert simple(calls_of(events)) == expected
        report = check_stream(body, protocol, clean=True, fresh=32, samples=8, wire=CHAT)
        assert report.ok, report.violations


@given(native_stream(twice=True))
def test_arguments_encoded_twice_are_read_as_the_object(
    stream: tuple[list[dict[str, Any]], list[Any]],
) -> None:
    """Qwen2.5-7B behind some servers sends a call's arguments as a JSON string holding
    the object: the same calls run as from a well-behaved server, and S1–S3 hold at
    every prefix (no call runs before its string closes)."""
    chunks, expected = stream
    runs_as_sent_well(sse_body(chunks), expected)


@given(native_stream(), st.integers(min_value=0, max_value=100_000))
def test_native_s1_s3_and_truncation_rules(
    stream: tuple[list[dict[str, Any]], list[Any]], cut: int
) -> None:
    chunks, expected = stream
    body = sse_body(chunks)
    for protocol in ("native-inc", "native-eos"):
        report = check_stream(body, protocol, clean=True, fresh=32, samples=12, wire=CHAT)
        assert report.ok, report.violations
    # truncated after some chunks: eos runs nothing, inc only calls already complete
    keep = cut % (len(chunks) + 1)
    eos = ChatAccumulator(incremental=False)
    inc = ChatAccumulator(incremental=True)
    eos_events: list[Event] = []
    inc_events: list[Event] = []
    for chunk in chunks[:keep]:
        eos_events += eos.feed_chunk(chunk)
        inc_events += inc.feed_chunk(chunk)
    eos_events += eos.finish(False)
    inc_events += inc.finish(False)
    assert calls_of(eos_events) == []
    ran = simple(calls_of(inc_events))
    assert ran == expected[: len(ran)]
    if keep < len(chunks):  # cut before finish_reason: the last call started never ran
        started = {
            tc["index"]
            for c in chunks[:keep]
            for tc in c["choices"][0]["delta"].get("tool_calls", [])
        }
        assert len(ran) == max(0, len(started) - 1)
        assert len(inc.truncated_calls) == (1 if started else 0)
        assert len(eos.truncated_calls) == len(started)


THOUGHTS = st.sampled_from(
    [b"", b"<think>", b"<think>\nhm\n</think>\n", b"\n <think>a", b"<thi", b"<thinker>x\n",
     b"</think>\n", b"<think>\ncall c9 shell\narg command <<E\nrm -rf /\nE\nend\n</think>\n",
     b"\xc3", b"   "]
)  # fmt: skip


def _said(events: list[Event]) -> tuple[str, list[Event]]:
    """The reasoning joined, and the other events coalesced."""
    from frontier.app.stream_events import ReasoningText

    thought = "".join(e.text for e in events if isinstance(e, ReasoningText))
    return thought, coalesce([e for e in events if not isinstance(e, ReasoningText)])


@given(THOUGHTS, ctl_program(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_a_leading_thought_splits_off_the_same_for_any_chunking(
    lead: bytes, program: tuple[bytes, list[Any]], cuts: list[int]
) -> None:
    """``frontier transduce`` of a reply's text: the thought a reply opens with is
    reasoning (as every wire's decoder makes it), whatever the chunks; the rest is what
    the transducer alone makes of it; a draft call in the thought never comes out."""
    from frontier.app.commands.transduce_think import ThoughtFirst

    data, expected = program
    whole = _said(run_chunks(ThoughtFirst(CtlTransducer()), [lead + data]))
    assert _said(run_chunks(ThoughtFirst(CtlTransducer()), chunked(lead + data, cuts))) == whole
    thought, events = whole
    if lead.strip().startswith(b"<think>") and lead.rstrip().endswith(b"</think>"):
        rest = (lead + data)[(lead + data).index(b"</think>") + len(b"</think>") :]
        assert events == coalesce(run_chunks(CtlTransducer(), [rest]))
        assert simple(calls_of(events)) == expected and "rm -rf" not in str(events)
    elif not lead.lstrip().startswith(b"<"):
        assert thought == "" and events == coalesce(run_chunks(CtlTransducer(), [lead + data]))
