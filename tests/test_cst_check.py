"""The S1–S3 checker catches unsafe transducers, and ``frontier check`` reports them."""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import threading
from pathlib import Path

import pytest
from chat_wire import CHAT
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.commands import check as check_cmd
from frontier.app.cst import ctl, props
from frontier.app.cst.native import NativeSSETransducer
from frontier.app.cst.props import check_stream
from frontier.app.events import Event
from frontier.app.session.record import synthesize, write_recording
from frontier.app.wire.sse import encode_sse

TYPE_CHECKING = False  # Transducer is a type only (a Protocol: app/cst/base.py)
if TYPE_CHECKING:
    from frontier.app.cst.base import Transducer

EXAMPLES = Path(__file__).parent / "examples"


class EagerEnd(ctl.CtlTransducer):
    """Unsafe on purpose: treats a chunk ending in ``end`` as the end line (no newline yet)."""

    def feed(self, data: bytes) -> list[Event]:
        events = super().feed(data)
        if self._state == ctl._FRAME and self._buf == b"end":
            self._buf = b""
            self.frontier += 3
            self._ready(self.frontier, events)
        return events


def eager_factory(protocol: str) -> Transducer:
    return EagerEnd()


class EndAtAnyEof(ctl.CtlTransducer):
    """Unsafe on purpose: lets a final ``end`` without newline close a call on truncation too."""

    def finish(self, clean: bool) -> list[Event]:
        return super().finish(True)


def test_checker_flags_a_call_run_before_its_confirming_byte() -> None:
    data = b"call c1 read\narg path a\nend\n"
    report = check_stream(data, "ctl", True, factory=eager_factory)
    assert not report.ok
    first = report.first
    assert first is not None and first.prop == "S1"
    assert first.offset == data.index(b"end\n") + 2  # the prefix ending in "end"


def test_checker_flags_a_call_completed_by_a_truncated_stream() -> None:
    data = b"call c1 read\narg path a\nend\n"
    report = check_stream(data, "ctl", True, factory=lambda protocol: EndAtAnyEof())
    assert [v.prop for v in report.violations][:1] == ["S1"]
    first = report.first
    assert first is not None and first.offset == data.index(b"end\n") + 2  # cut after "end"
    assert "truncated after" in first.message
    assert check_stream(data, "ctl", True).ok


def test_checker_flags_a_call_that_the_full_stream_rejects() -> None:
    data = b"call c1 read\narg path a\nendless\n"
    report = check_stream(data, "ctl", True, factory=eager_factory)
    assert "S2" in {v.prop for v in report.violations}
    assert check_stream(data, "ctl", True).ok  # the real transducer never ran it


def test_checker_passes_the_real_transducers_on_every_bundled_example() -> None:
    files = sorted(EXAMPLES.glob("*.jsonl"))
    assert len(files) >= 10
    args = argparse.Namespace(sources=[str(f) for f in files])
    assert check_cmd.main(args) == 0


def test_check_exit_codes_and_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "r.jsonl"
    write_recording(rec, synthesize("call c1 read\narg path a\nend\n", "ctl"))
    assert check_cmd.main(argparse.Namespace(sources=[str(rec)])) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok ") and "calls=1" in out

    assert check_cmd.main(argparse.Namespace(sources=[str(tmp_path / "missing.jsonl")])) == 2
    assert "missing.jsonl: no such recording file or session" in capsys.readouterr().err
    assert check_cmd.main(argparse.Namespace(sources=[str(tmp_path)])) == 2
    assert "is a directory" in capsys.readouterr().err
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"hello": 1}\n')
    assert check_cmd.main(argparse.Namespace(sources=[str(junk)])) == 2
    assert "junk.jsonl:1: not a frontier recording" in capsys.readouterr().err


def test_the_closing_line_counts_what_held_and_whose_framing_broke(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each line says ``ok`` when S1–S3 hold, however broken the framing: the closing line
    counts the responses that broke it, so ``ok`` is not read as "fine"."""
    clean, broken = tmp_path / "clean.jsonl", tmp_path / "broken.jsonl"
    write_recording(clean, synthesize("call c1 read\narg path a\nend\n", "ctl"))
    write_recording(broken, synthesize("call c1 read\narg path a\nnonsense\n", "ctl"))
    args = argparse.Namespace(sources=[str(clean)])
    assert check_cmd.main(args) == 0
    assert capsys.readouterr().out.count("\n") == 1  # one clean response: its line says it all

    assert check_cmd.main(argparse.Namespace(sources=[str(clean), str(broken)])) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line[:6] for line in lines[:2]] == ["ok    ", "ok    "]
    assert "errors=" in lines[1]
    assert lines[2] == (
        "2 responses: S1–S3 hold in every one; framing broken: 1 with the model's contract "
        "errors (--explain shows each contract error)"
    )
    assert check_cmd.main(argparse.Namespace(sources=[str(clean), str(clean)])) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2 responses: S1–S3 hold in every one"


def test_check_exit_1_names_first_violating_offset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = "call c1 read\narg path a\nend\n"
    rec = tmp_path / "r.jsonl"
    write_recording(rec, synthesize(data, "ctl"))
    monkeypatch.setattr(
        check_cmd,
        "check_stream",
        lambda *a, **k: props.check_stream(*a, **k, factory=eager_factory),
    )
    assert check_cmd.main(argparse.Namespace(sources=[str(rec), str(rec)])) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL") and f"S1 at offset {data.index('end') + 2}" in out
    assert out.splitlines()[-1] == "2 responses: 2 FAIL S1–S3, 0 hold"


def test_long_inputs_sample_fresh_prefixes_but_check_every_prefix_incrementally() -> None:
    data = b"".join(b"call c%d read\narg path f%d\nend\n" % (i, i) for i in range(200))
    report = check_stream(data, "ctl", True, fresh=100, samples=50, probes=24)
    assert report.ok and report.prefixes == len(data) and report.calls == 200
    # every prefix next to a call is compared with a piecewise-fed transducer; a bounded
    # number of prefixes (so the cost stays linear) also with fresh ones fed at once
    assert report.cut_prefixes >= 3 * 200 and 12 < report.fresh_prefixes <= 24 + 1


def test_check_uses_a_process_per_cpu_only_where_it_pays(monkeypatch: pytest.MonkeyPatch) -> None:
    small = ("s#0", synthesize("call c1 read\narg path a\nend\n", "ctl"))
    big = ("b#0", synthesize("x" * check_cmd.PARALLEL_BYTES, "ctl", sizes=(4096,)))
    monkeypatch.setattr(check_cmd.os, "cpu_count", lambda: 8)
    monkeypatch.setattr(check_cmd.sys, "platform", "linux")
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # the CLI: one thread
    assert check_cmd._workers([small, small], None) == 1  # under PARALLEL_BYTES: one process
    # small native responses cost what their bytes do (fresh transducers only where their
    # state changes): 120 of them are checked in a few ms, so in one process
    native = ("n#0", synthesize("x" * 400, "native-inc", sizes=(400,)))
    assert sum(len(d) for _, d in native[1].events) * 120 < check_cmd.PARALLEL_BYTES
    assert check_cmd._workers([native] * 120, None) == 1
    assert check_cmd._workers([big, small, small], None) == 3  # at most one per response
    assert check_cmd._workers([big] * 20, None) == 8  # at most one per CPU
    assert check_cmd._workers([big], None) == 1  # one response is one loop
    assert check_cmd._workers([small, small], 4) == 2  # -j, bounded by the responses
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert check_cmd._workers([big] * 20, 4) == 1  # never a fork beside another thread
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(check_cmd.sys, "platform", "darwin")
    assert check_cmd._workers([big] * 20, 4) == 1  # a fork is assumed safe on Linux only


class _Bytewise:
    """A native transducer the checker cannot see as one: it feeds every byte alone."""

    def __init__(self, inner: NativeSSETransducer) -> None:
        self.inner = inner

    @property
    def consumed(self) -> int:
        return self.inner.consumed

    def feed(self, data: bytes) -> list[Event]:
        return self.inner.feed(data)

    def finish(self, clean: bool) -> list[Event]:
        return self.inner.finish(clean)

    def pending(self) -> bytes:
        return self.inner.pending()

    def pending_size(self) -> int:
        return self.inner.pending_size()

    def pending_bound(self) -> int:
        return self.inner.pending_bound()


class _NoBound(NativeSSETransducer):
    """Unsafe on purpose: no pending byte allowed, so every held argument is a violation."""

    def pending_bound(self) -> int:
        return 0


class _EofCompletes(NativeSSETransducer):
    """Unsafe on purpose: a body cut off completes its open call as a clean end would."""

    def finish(self, clean: bool) -> list[Event]:
        return self.accumulator.finish(True)  # the body's own end not asked for


UNSAFE: dict[str, type[NativeSSETransducer]] = {
    "safe": NativeSSETransducer,
    "bound": _NoBound,
    "eof": _EofCompletes,
}


def _native_body(draw: st.DrawFn) -> bytes:
    args = json.dumps({"path": draw(st.text(max_size=6)), "n": draw(st.integers())})
    cuts = sorted(set(draw(st.lists(st.integers(0, len(args)), max_size=5))) | {0, len(args)})
    chunks: list[dict[str, object]] = [
        {"choices": [{"delta": {"content": draw(st.text(max_size=5))}}]}
    ]
    for j, (a, b) in enumerate(itertools.pairwise(cuts)):
        fn: dict[str, object] = {"arguments": args[a:b]}
        call: dict[str, object] = {"index": 0, "function": fn}
        if j == 0:
            call.update(id="call_1", type="function")
            fn["name"] = "read"
        chunks.append({"choices": [{"delta": {"tool_calls": [call]}}]})
    chunks.append({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    body = encode_sse([json.dumps(c) for c in chunks] + ["[DONE]"])
    if draw(st.booleans()):
        body = body.replace(b"\n", draw(st.sampled_from([b"\r\n", b"\r"])))
    for _ in range(draw(st.integers(0, 3))):  # a server's or a capture's damage
        at = draw(st.integers(0, len(body)))
        body = body[:at] + draw(st.sampled_from([b"\n", b"\r", b"", b"}", b"x"])) + body[at + 1 :]
    return body[: draw(st.integers(0, len(body)))] if draw(st.booleans()) else body


@given(st.data(), st.sampled_from(["native-inc", "native-eos"]), st.sampled_from([2048, 40]))
def test_an_inert_run_fed_at_once_reports_what_every_byte_alone_would(
    data: st.DataObject, protocol: str, fresh: int
) -> None:
    """The byte-by-byte pass feeds a native stream's bytes inside one SSE line at once, and
    fresh transducers are fed only the prefixes after which an event was decoded: every
    call, error, offset and violation is the one a check blind to both reports, unsafe
    transducer or safe."""
    body = _native_body(data.draw)
    kind = data.draw(st.sampled_from(sorted(UNSAFE)))

    def native(p: str) -> NativeSSETransducer:
        return UNSAFE[kind](p == "native-inc", CHAT)

    def bytewise(p: str) -> Transducer:
        return _Bytewise(native(p))  # type: ignore[return-value]

    fast = check_stream(body, protocol, True, fresh=fresh, samples=8, factory=native)  # type: ignore[arg-type]
    slow = check_stream(body, protocol, True, fresh=fresh, samples=8, factory=bytewise)
    # the same verdict; fewer transducers fed (the states a native stream can be in)
    assert fast.fresh_prefixes <= slow.fresh_prefixes
    uncounted = {"fresh_prefixes": 0, "cut_prefixes": 0, "violations": ()}
    assert dataclasses.replace(fast, **uncounted) == dataclasses.replace(slow, **uncounted)
    if kind != "eof":  # found byte by byte: each one, at each byte
        assert fast.violations == slow.violations
    else:  # found by fresh transducers: every kind the blind check finds; where both
        # feed every prefix, the first of each at the same byte (the blind one finds it
        # again at each byte up to the next event)
        assert {v.prop for v in slow.violations} <= {v.prop for v in fast.violations}
        if len(body) + 1 <= fresh:
            first = lambda r: {v.prop: v.offset for v in reversed(r.violations)}  # noqa: E731
            assert first(fast) == first(slow)
