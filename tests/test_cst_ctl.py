"""CTL (DESIGN §3): every rule and error kind, each fed whole and byte by byte."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from frontier.app.cst.base import calls_of, coalesce, errors_of, run_chunks, split
from frontier.app.cst.ctl import CtlTransducer
from frontier.app.events import (
    ArgStarted,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    StreamStopped,
    ToolCall,
)


def run(data: bytes, clean: bool = True, chunk: int | None = None, **kw: int) -> list[Event]:
    t = CtlTransducer(**kw)
    return run_chunks(t, split(data, chunk or max(1, len(data))), clean)


def both(data: bytes, clean: bool = True, **kw: int) -> list[Event]:
    """Events fed whole; asserts byte-by-byte feeding gives the same (coalesced) events."""
    whole = coalesce(run(data, clean, **kw))
    assert coalesce(run(data, clean, chunk=1, **kw)) == whole
    return whole


def text_of(events: list[Event]) -> bytes:
    return b"".join(e.data for e in events if isinstance(e, Confirmed) and e.kind == "text")


@dataclass(frozen=True)
class Case:
    name: str
    stream: bytes
    calls: list[tuple[str, str, dict[str, object]]]
    error: str | None = None
    clean: bool = True
    stop: bool = False


CASES = [
    Case(
        "inline, length and heredoc forms",
        b"call c1 write\narg path a.py\narg n 3\nabcarg content <<EOF\nx = 1\nEOF\nend\n",
        [("c1", "write", {"path": "a.py", "n": "abc", "content": "x = 1\n"})],
    ),
    Case(
        "prose before the first call is text, blank lines between frames ignored",
        b"I will read.\n\ncall r1 read\narg path x\nend\n\n  \ncall r2 read\narg path y\nend\n",
        [("r1", "read", {"path": "x"}), ("r2", "read", {"path": "y"})],
    ),
    Case(
        "end, call and code fences inside a heredoc are plain text",
        b"call c1 write\narg content <<EOF\nend\ncall c9 shell\n```py\n  EOF\nEOF \nEOF\nend\n",
        [("c1", "write", {"content": "end\ncall c9 shell\n```py\n  EOF\nEOF \n"})],
    ),
    Case(
        "quoted TAGs",
        b"call c1 w\narg a <<'T1'\nx\nT1\narg b <<\"T_2\"\ny\nT_2\nend\n",
        [("c1", "w", {"a": "x\n", "b": "y\n"})],
    ),
    Case(
        "empty heredoc and zero-length body",
        b"call c1 w\narg a <<E\nE\narg b 0\nend\n",
        [("c1", "w", {"a": "", "b": ""})],
    ),
    Case(
        "an all-digit inline value is read as a length prefix",
        b"call c1 read\narg offset 10\n0123456789end\n",
        [("c1", "read", {"offset": "0123456789"})],
    ),
    Case(
        "length counts bytes, not characters (multi-byte UTF-8)",
        "call c1 w\narg s 8\nhé€!\nend\n".encode(),
        [("c1", "w", {"s": "hé€!\n"})],
    ),
    Case(
        "`arg key \\n` is an empty inline value",
        b"call c1 w\narg a \nend\n",
        [("c1", "w", {"a": ""})],
    ),
    Case(
        "invalid UTF-8 body stays bytes",
        b"call c1 w\narg a 2\n\xff\xfeend\n",
        [("c1", "w", {"a": b"\xff\xfe"})],
    ),
    Case(
        "text after a confirmed call stops the stream (not an error)",
        b"call c1 r\nend\nThanks, done.\ncall c2 r\nend\n",
        [("c1", "r", {})],
        stop=True,
    ),
    Case(
        "TAG at clean EOF without newline ends the heredoc; the call still needs end",
        b"call c1 w\narg a <<EOF\nx\nEOF",
        [],
        error="body_eof",
    ),
    Case(
        "TAG then end at clean EOF without newline completes the call",
        b"call c1 w\narg a <<EOF\nx\nEOF\nend",
        [("c1", "w", {"a": "x\n"})],
    ),
    Case(
        "`end` without newline on truncation does not complete the call",
        b"call c1 w\narg a <<EOF\nx\nEOF\nend",
        [],
        error="truncated",
        clean=False,
    ),
    Case(
        "TAG without newline on truncation is not sufficient",
        b"call c1 w\narg a <<EOF\nx\nEOF",
        [],
        error="truncated",
        clean=False,
    ),
    Case("bad_call: missing name", b"call c1\nend\n", [], error="bad_call"),
    Case("bad_call: bad id", b"call c!1 read\nend\n", [], error="bad_call"),
    Case("bad_arg: no space after key", b"call c1 r\narg path\nend\n", [], error="bad_arg"),
    Case("bad_arg: bad key", b"call c1 r\narg 9path x\nend\n", [], error="bad_arg"),
    Case("bad_arg: bad heredoc tag", b"call c1 r\narg a <<E-F\nx\nE-F\nend\n", [], error="bad_arg"),
    Case(
        "bad_arg: duplicate key",
        b"call c1 r\narg path a\narg path b\nend\n",
        [],
        error="bad_arg",
    ),
    Case(
        "unexpected_line: length declared too small",
        b"call c1 w\narg a 3\nabcdef\nend\n",
        [],
        error="unexpected_line",
    ),
    Case(
        "unexpected_line: a new call before end",
        b"call c1 w\ncall c2 w\nend\n",
        [],
        error="unexpected_line",
    ),
    Case(
        "body_eof: length declared too large",
        b"call c1 w\narg a 10\nabc",
        [],
        error="body_eof",
    ),
    Case("body_eof: no end at clean EOF", b"call c1 w\narg a x\n", [], error="body_eof"),
    Case("heredoc_eof", b"call c1 w\narg a <<EOF\nx\ny\n", [], error="heredoc_eof"),
    Case(
        "calls before an error stand",
        b"call c1 r\nend\ncall c2 r\narg bad\nend\n",
        [("c1", "r", {})],
        error="bad_arg",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_ctl_rule_table(case: Case) -> None:
    events = both(case.stream, case.clean)
    calls = [(c.id, c.name, dict(c.args)) for c in calls_of(events)]
    assert calls == case.calls
    kinds = [e.kind for e in errors_of(events)]
    assert kinds == ([case.error] if case.error else [])
    assert any(isinstance(e, StreamStopped) for e in events) == case.stop


def test_messages_name_declared_and_arrived() -> None:
    [err] = errors_of(both(b"call c1 write\narg content 495\n" + b"x" * 438))
    assert err.kind == "body_eof"
    assert 'arg "content": declared 495 bytes but only 438 arrived' in err.message
    assert err.offset == len(b"call c1 write\narg content 495\n") + 438

    [err] = errors_of(both(b"call c1 write\narg content 3\nabcdef\nend\n"))
    assert "declared 3 bytes" in err.message and "'def\\n'" in err.message
    assert err.offset == len(b"call c1 write\narg content 3\nabc")


def test_stop_offset_is_first_text_byte_and_frontier_stays_at_last_call() -> None:
    data = b"call c1 r\nend\n\n  Done\n"
    t = CtlTransducer()
    events = run_chunks(t, [data])
    [stop] = [e for e in events if isinstance(e, StreamStopped)]
    assert stop.offset == data.index(b"Done")
    assert t.stopped and t.frontier == data.index(b"  Done") and t.pending() == b""


def test_prose_is_confirmed_as_soon_as_it_cannot_start_call() -> None:
    t = CtlTransducer()
    assert t.feed(b"ca") == [] and t.pending() == b"ca"
    events = t.feed(b"t")
    assert text_of(events) == b"cat" and t.frontier == 3
    # an undecided prefix waits: "call " may follow
    t = CtlTransducer()
    t.feed(b"Hi.\ncall")
    assert t.frontier == 4 and t.pending() == b"call"


def test_heredoc_body_confirmed_early_pending_at_most_tag_plus_one() -> None:
    t = CtlTransducer()
    t.feed(b"call c1 w\narg a <<MARK\nMA")
    assert t.pending() == b"MA" and t.pending_bound() == len(b"MARK") + 1
    t.feed(b"X")  # "MAX" can no longer be MARK: confirmed at once
    assert t.pending() == b""
    t.feed(b"\nMARKER")  # longer than TAG: confirmed too
    assert t.pending() == b""
    t.feed(b"\nMARK")
    assert t.pending() == b"MARK"
    events = t.feed(b"\nend\n")
    [call] = calls_of(events)
    assert call.args == {"a": "MAX\nMARKER\n"}


def test_length_body_is_confirmed_as_it_arrives() -> None:
    t = CtlTransducer()
    t.feed(b"call c1 w\narg a 10\n")
    events = t.feed(b"hello")
    assert [e.data for e in events if isinstance(e, Confirmed)] == [b"hello"]
    assert t.pending() == b"" and t.pending_bound() == 0


def test_line_too_long() -> None:
    head = b"call c1 w\narg a " + b"v" * 100
    events = both(head + b"\nend\n", l_line=64)
    [err] = errors_of(events)
    assert err.kind == "line_too_long" and err.offset == len(b"call c1 w\n") + 64
    # a header line exactly at the limit is fine
    line = b"arg a " + b"v" * (64 - 6)
    [call] = calls_of(both(b"call c1 w\n" + line + b"\nend\n", l_line=64))
    assert call.args["a"] == "v" * 58
    # a long line with no newline yet errors as soon as it passes the limit
    t = CtlTransducer(l_line=64)
    assert errors_of(t.feed(head))[0].kind == "line_too_long"


def test_limit_on_declared_length_and_growing_heredoc() -> None:
    [err] = errors_of(both(b"call c1 w\narg a 101\n", max_arg=100))
    assert err.kind == "limit" and "declares 101 bytes" in err.message and err.offset == 10
    data = b"call c1 w\narg a <<E\n" + b"x" * 99 + b"\n" + b"y\nE\nend\n"
    events = both(data, max_arg=100)
    [err] = errors_of(events)
    assert err.kind == "limit" and err.offset == len(b"call c1 w\narg a <<E\n") + 100
    assert calls_of(events) == []
    # exactly at the limit is allowed
    ok = b"call c1 w\narg a <<E\n" + b"x" * 99 + b"\nE\nend\n"
    assert calls_of(both(ok, max_arg=100))[0].args["a"] == "x" * 99 + "\n"


def test_events_and_offsets_of_one_call() -> None:
    data = b"call c1 read\narg path a.py\nend\n"
    events = both(data)
    assert events[1] == CallStarted("c1", "read", 0)
    assert events[3] == ArgStarted("c1", "path", "inline", None, 13)
    call = calls_of(events)[0]
    assert call == ToolCall("c1", "read", {"path": "a.py"}, len(data) - 1)
    assert b"".join(e.data for e in events if isinstance(e, Confirmed)) == data


def test_nothing_after_an_error_is_processed() -> None:
    t = CtlTransducer()
    t.feed(b"call c1\n")
    assert t.stopped
    assert t.feed(b"call c2 r\nend\n") == [] and t.finish(True) == []
    assert t.consumed == len(b"call c1\ncall c2 r\nend\n")


def test_truncation_reports_the_unfinished_call() -> None:
    t = CtlTransducer()
    events = run_chunks(t, [b"call c1 r\nend\ncall c2 write\narg a 9\nabc"], clean=False)
    assert [c.id for c in calls_of(events)] == ["c1"]
    [err] = errors_of(events)
    assert err.kind == "truncated" and "c2" in err.message and "declared 9" in err.message
    assert t.unfinished == ("c2", "write")


def test_clean_end_confirms_trailing_prose() -> None:
    events = both(b"All done, no tools needed.")
    assert text_of(events) == b"All done, no tools needed."
    assert isinstance(
        next(e for e in both(b"ca", clean=True) if isinstance(e, Confirmed)), Confirmed
    )


def test_contract_error_type_is_shared_event() -> None:
    [err] = errors_of(both(b"call c1\n"))
    assert isinstance(err, ContractError) and err.offset == 0
