"""Does hostile input cost linear time and bounded memory? Each case at N and 4N, same run.

    .venv/bin/python bench/scaling.py            # every case, ~30-60 s
    .venv/bin/python bench/scaling.py --only xml --only check
    .venv/bin/python bench/scaling.py --scale 0.25   # smaller inputs (e.g. for old code)

For each transducer (and ``transduce``'s printer, and ``check``), a case builds
an input of size N and one of 4N *before* the clock starts, then feeds each
the way a stream arrives (chunks as stated) and drops the events. Time is
the best of ``--repeat`` runs (more for short ones); peak memory is tracemalloc's peak during one
more run (input excluded). Growth = value at 4N / value at N: linear is ≈ 4×,
constant memory ≈ 1×; anything over 5× is flagged ``SUPERLINEAR``.

Only stdlib and the public transducer APIs are used, so the same file runs
against an older checkout (``PYTHONPATH=<old tree as frontier/>``) for the
"before" figures. The native cases read the Chat Completions wire (its adapter is
passed as ``wire=`` where the checkout has wires; an older one took no wire).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

from frontier.app.cst.factory import make_transducer
from frontier.app.cst.props import check_stream
from frontier.app.session.record import synthesize
from frontier.app.wire.sse import encode_sse

try:  # wires exist (issue 20): the native transducers read one wire's SSE body
    from frontier.app.model.registry import codec

    NATIVE_WIRE: dict[str, object] = {"wire": codec("openai-chat")}
except ImportError:  # an older checkout: native meant Chat Completions
    NATIVE_WIRE = {}

KiB = 1 << 10
MiB = 1 << 20
FLAG = 5.0


@dataclass
class Case:
    name: str
    group: str
    unit: str
    sizes: tuple[int, int]
    """N and 4N, in ``unit``."""
    build: Callable[[int], Callable[[], object]]
    """Size -> a run with its input already built."""


def feed(protocol: str, pieces: list[bytes], **options: object) -> Callable[[], object]:
    def run() -> int:
        t = make_transducer(protocol, **options)
        n = 0
        for piece in pieces:
            n += len(t.feed(piece))
        return n + len(t.finish(True))

    return run


def chunked(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


LINE = b"    result = compute(alpha, beta, gamma)  # a typical line of source code, ~80 B\n"


def ctl_heredoc(size: int) -> Callable[[], object]:
    """Calls with a 64 KiB heredoc each, ``size`` bytes in all, 4 KiB chunks."""
    body = LINE * (64 * KiB // len(LINE))
    call = b"call c1 write\narg path a.py\narg content <<EOF\n" + body + b"EOF\nend\n"
    return feed("ctl-heredoc", chunked(call * max(1, size // len(call)), 4 * KiB))


def ctl_length(size: int) -> Callable[[], object]:
    body = LINE * (64 * KiB // len(LINE))
    call = b"call c1 write\narg path a.py\narg content %d\n" % len(body) + body + b"end\n"
    return feed("ctl", chunked(call * max(1, size // len(call)), 4 * KiB))


def ctl_headers_bytewise(size: int) -> Callable[[], object]:
    """Calls whose inline values make ~4 KB header lines, fed one byte at a time (as
    ``check`` does; a slow model's tokens are not much bigger)."""
    call = b"call c1 grep\narg pattern " + b"x" * 4000 + b"\nend\n"
    return feed("ctl", chunked(call * max(1, size // len(call)), 1))


def native_long_line(size: int) -> Callable[[], object]:
    """One SSE line carrying ``size`` bytes of arguments, in 64-byte chunks (the issue's
    100 MB line, scaled down)."""
    args = json.dumps({"path": "a.py", "content": "x" * size})
    chunk = {
        "choices": [
            {
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "c1", "function": {"name": "write", "arguments": args}}
                    ]
                }
            }
        ]
    }
    end = {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}
    body = encode_sse([json.dumps(chunk), json.dumps(end), "[DONE]"])
    return feed("native-inc", chunked(body, 64), **NATIVE_WIRE)


def native_many_calls(count: int) -> Callable[[], object]:
    """``count`` tool calls (native-inc: each completes when the next index appears)."""
    items = []
    for i in range(count):
        fn = {"name": "read", "arguments": '{"path": "a.py"}'}
        piece = {"index": i, "id": f"c{i}", "function": fn}
        items.append(json.dumps({"choices": [{"delta": {"tool_calls": [piece]}}]}))
    items += [json.dumps({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}), "[DONE]"]
    return feed("native-inc", chunked(encode_sse(items), 4 * KiB), **NATIVE_WIRE)


def xml_block(count: int, closed: bool) -> Callable[[], object]:
    invoke = (
        b'<invoke name="read"><parameter name="path">a.py</parameter></invoke>\n'
        if closed
        else b'<invoke name="read">\n'
    )
    data = b"<minimax:tool_call>\n" + invoke * count + b"</minimax:tool_call>"
    return feed("xml", chunked(data, 4 * KiB))


def json_whole(size: int) -> Callable[[], object]:
    content = "x" * size
    data = json.dumps({"name": "write", "arguments": {"path": "a", "content": content}})
    return feed("json-whole", chunked(data.encode(), 4 * KiB))


def json_reference(size: int) -> Callable[[], object]:
    """Not ours: join, decode and ``json.loads`` the same document — the allocations
    json-whole cannot avoid (over glibc's 32 MiB mmap threshold each is fresh, faulted-in
    memory, so this grows faster than 4x too)."""
    content = "x" * size
    data = json.dumps({"name": "write", "arguments": {"path": "a", "content": content}})
    pieces = chunked(data.encode(), 4 * KiB)
    return lambda: json.loads(b"".join(pieces).decode())


def json_objects(count: int) -> Callable[[], object]:
    one = json.dumps({"name": "read", "arguments": {"path": "src/app.py"}}).encode() + b"\n"
    return feed("json-object", chunked(one * count, 4 * KiB))


class _Discard(io.RawIOBase):
    """A stdout that drops what is written (so output is not counted as memory)."""

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        return len(data)  # type: ignore[arg-type]


def transduce_line(size: int) -> Callable[[], object]:
    """``frontier transduce`` (in process) on one prose line of ``size`` bytes."""
    from frontier.app.commands import transduce

    data = b"w" * size + b"\n"

    def run() -> object:
        args = argparse.Namespace(protocol="ctl", chunk=4096, events="calls", eof="clean")
        args.summary = False
        out = _Discard()
        stdin, stdout = sys.stdin, sys.stdout
        sys.stdin = SimpleNamespace(buffer=io.BytesIO(data))  # type: ignore[assignment]
        sys.stdout = SimpleNamespace(buffer=out)  # type: ignore[assignment]
        try:
            return transduce.main(args)
        finally:
            sys.stdin, sys.stdout = stdin, stdout

    return run


def check_calls(count: int) -> Callable[[], object]:
    """``frontier check`` on a recording of ``count`` small CTL calls."""
    text = "I'll read them.\n" + "".join(
        f"call c{i} read\narg path src/m{i}.py\nend\n" for i in range(count)
    )
    rec = synthesize(text, "ctl", sizes=(5, 9, 3))
    data = rec.transducer_input()
    return lambda: check_stream(data, rec.mode, rec.clean)


def check_prose(size: int) -> Callable[[], object]:
    """``frontier check`` on a recording of ``size`` bytes of prose and one call."""
    text = LINE.decode() * (size // len(LINE)) + "call c1 read\narg path a\nend\n"
    rec = synthesize(text, "ctl", sizes=(64,))
    data = rec.transducer_input()
    return lambda: check_stream(data, rec.mode, rec.clean)


def check_native(count: int) -> Callable[[], object]:
    """``frontier check`` on a native-inc SSE body of ``count`` calls."""
    items = []
    for i in range(count):
        fn = {"name": "read", "arguments": '{"path": "a.py"}'}
        items.append(
            json.dumps({"choices": [{"delta": {"tool_calls": [{"index": i, "function": fn}]}}]})
        )
    items += [json.dumps({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}), "[DONE]"]
    data = encode_sse(items)
    return lambda: check_stream(data, "native-inc", True, **NATIVE_WIRE)  # type: ignore[arg-type]


def cases(scale: float) -> list[Case]:
    def s(n: int) -> tuple[int, int]:
        m = max(1, int(n * scale))
        return m, 4 * m

    return [
        Case("ctl-heredoc, 64 KiB calls, 4 KiB chunks", "ctl", "B", s(16 * MiB), ctl_heredoc),
        Case("ctl length-prefixed, 64 KiB calls", "ctl", "B", s(16 * MiB), ctl_length),
        Case(
            "ctl 4 KB header lines, 1-byte chunks", "ctl", "B", s(256 * KiB), ctl_headers_bytewise
        ),
        Case("native SSE, one long line, 64 B chunks", "native", "B", s(2 * MiB), native_long_line),
        Case("native-inc, many calls", "native", "calls", s(5000), native_many_calls),
        Case(
            "xml, unclosed <invoke>s in one block",
            "xml",
            "tags",
            s(20000),
            lambda n: xml_block(n, False),
        ),
        Case(
            "xml, closed <invoke>s in one block",
            "xml",
            "tags",
            s(5000),
            lambda n: xml_block(n, True),
        ),
        Case("json-whole, one large call", "json", "B", s(8 * MiB), json_whole),
        Case("  reference: join + json.loads of it", "json", "B", s(8 * MiB), json_reference),
        Case("json-object, many calls", "json", "calls", s(20000), json_objects),
        Case("transduce, one long prose line", "transduce", "B", s(4 * MiB), transduce_line),
        Case("check, recording of small ctl calls", "check", "calls", s(800), check_calls),
        Case("check, recording of prose", "check", "B", s(48 * KiB), check_prose),
        Case("check, native-inc calls", "check", "calls", s(250), check_native),
    ]


def best(run: Callable[[], object], repeat: int) -> float:
    """Best of ``repeat`` runs, and of more (up to 10) while they add up to under 0.3 s:
    a 10 ms case needs more samples than a 1 s one on a shared machine."""
    times: list[float] = []
    while len(times) < repeat or (sum(times) < 0.3 and len(times) < 10):
        gc.collect()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def peak(run: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def size_text(n: int, unit: str) -> str:
    if unit == "B":
        return f"{n / MiB:.2f} MiB" if n >= MiB else f"{n / KiB:.0f} KiB"
    return f"{n:,} {unit}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every N by this")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--only", action="append", default=[], help="a case group (repeatable)")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc runs")
    opts = ap.parse_args()
    print(f"{'case':44} {'N':>12} {'t(N) s':>8} {'t(4N) s':>8} {'×':>6} "
          f"{'mem(N)':>9} {'mem(4N)':>9} {'×':>6}")  # fmt: skip
    flagged = 0
    total = time.perf_counter()
    for case in cases(opts.scale):
        if opts.only and case.group not in opts.only:
            continue
        times, mems = [], []
        for n in case.sizes:
            run = case.build(n)
            times.append(best(run, opts.repeat))
            mems.append(0 if opts.no_memory else peak(run))
            del run
        t_ratio = times[1] / max(times[0], 1e-9)
        m_ratio = mems[1] / max(mems[0], 1) if not opts.no_memory else 0.0
        flag = "  SUPERLINEAR" if t_ratio > FLAG or m_ratio > FLAG else ""
        flagged += bool(flag)
        mem = (
            f"{mems[0] / KiB:8.0f}K {mems[1] / KiB:8.0f}K {m_ratio:6.2f}"
            if not opts.no_memory
            else ""
        )
        print(
            f"{case.name:44} {size_text(case.sizes[0], case.unit):>12} {times[0]:8.3f} "
            f"{times[1]:8.3f} {t_ratio:6.2f} {mem}{flag}",
            flush=True,
        )
    print(f"\n{flagged} case(s) over {FLAG:.0f}x; total {time.perf_counter() - total:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
