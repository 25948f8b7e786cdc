"""CTL transducer throughput and memory, side by side with ``json.loads`` in the same run.

    .venv/bin/python bench/transducer.py            # the issue's sizes (16 MiB, 100k calls, 64 MiB)
    .venv/bin/python bench/transducer.py --quick    # 1/8 of the sizes, for a busy machine
    .venv/bin/python bench/transducer.py --process  # only the whole-process comparison
    .venv/bin/python bench/transducer.py --start 15  # only `transduce` start-up, empty input

Whole processes (printed first): ``frontier transduce --protocol ctl-heredoc
--chunk 65536 --summary`` on 64 heredoc calls of ~1 MiB each (64 MiB on
stdin) against ``python -c 'json.loads(stdin)'`` of the same calls as one
JSON array — start-up, imports and reading stdin included on both sides,
best of ``--best-of`` (5), run alternately in the same run (with ``--baseline DIR``
an earlier tree's ``frontier transduce`` too). Both get compiled bytecode (a
private ``PYTHONPYCACHEPREFIX``, one untimed warm-up each), as an installed
package would; with ``PYTHONDONTWRITEBYTECODE`` every edited module would be
recompiled on each start.

Cases: (a) one heredoc argument of ~80-byte lines (and the same size of real
Python source from the stdlib, where the TAG's bytes are not rare), (b) one
length-prefixed argument, (c) many small calls. The reference is
``json.loads`` of the equivalent JSON payload (one object per call: for (c)
one ``json.loads`` per call; a single list is printed too). Ratio = reference
time / transducer time, so >= 1.0 means CTL is at least as fast. Times are the
best of ``--repeat`` runs, ``json.loads`` and the transducer run alternately
(the machine may be shared).

Like ``json.loads``' input string, the chunks exist before the clock starts
(a client gets them from the socket as separate ``bytes``); the row marked
"sliced in loop" cuts them from the stream inside the timed loop instead, for
comparison with the first version of this benchmark.

Memory: peak traced allocations while feeding (input built beforehand,
events dropped as they come) for a 1 MiB and a 64 MiB stream of 64 KiB calls.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import sysconfig
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from frontier.app.cst.base import calls_of
from frontier.app.cst.ctl import CtlTransducer
from frontier.app.events import ToolCall

MiB = 1 << 20


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def best_pair(
    ours: Callable[[], object], ref: Callable[[], object], repeat: int
) -> tuple[float, float]:
    """Best times of ``ours`` and ``ref``, run alternately so both see the same machine load."""
    mine, theirs = [], []
    for _ in range(repeat):
        theirs.append(best(ref, 1))
        mine.append(best(ours, 1))
    return min(mine), min(theirs)


def the_call(chunks: list[bytes], max_arg: int) -> ToolCall:
    t = CtlTransducer(max_arg=max_arg)
    events = [e for chunk in chunks for e in t.feed(chunk)] + t.finish(True)
    [call] = calls_of(events)
    return call


def feed_all(chunks: list[bytes], max_arg: int) -> int:
    t = CtlTransducer(max_arg=max_arg)
    calls = 0
    for chunk in chunks:
        for event in t.feed(chunk):
            calls += event.type == "call"
    t.finish(True)
    return calls


def feed_sliced(data: bytes, chunk: int, max_arg: int) -> int:
    t = CtlTransducer(max_arg=max_arg)
    calls = 0
    for i in range(0, len(data), chunk):
        for event in t.feed(data[i : i + chunk]):
            calls += event.type == "call"
    t.finish(True)
    return calls


def split(data: bytes, chunk: int) -> list[bytes]:
    return [data[i : i + chunk] for i in range(0, len(data), chunk)]


def text_lines(size: int) -> str:
    line = "    result = compute(alpha, beta, gamma)  # a typical line of source code, ~80 B\n"
    return line * (size // len(line))


def python_source(size: int) -> str:
    """``size`` bytes of the stdlib's own Python files (with no line equal to ``EOF``)."""
    parts: list[str] = []
    total = 0
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py")):
        try:
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        parts.append(text.replace("\nEOF\n", "\nEOF_\n"))
        total += len(text.encode())
        if total >= size:
            break
    raw = "".join(parts).encode()[:size]
    return raw[: raw.rfind(b"\n") + 1].decode("utf-8")


def case_big(
    form: str, size: int, chunks: list[int], repeat: int, source: bool = False
) -> list[tuple[str, float, float]]:
    content = python_source(size) if source else text_lines(size)
    raw = content.encode()
    if form == "heredoc":
        arg = b"arg content <<EOF\n" + raw + b"EOF\n"
    else:
        arg = b"arg content %d\n" % len(raw) + raw
    data = b"call c1 write\narg path big.py\n" + arg + b"end\n"
    payload = json.dumps(
        {"id": "c1", "name": "write", "arguments": {"path": "big.py", "content": content}}
    )
    for chunk in chunks:  # the value is right (str, every byte) whatever the chunking
        assert the_call(split(data, chunk), 2 * size).args["content"] == content

    def ref() -> object:
        return json.loads(payload)

    rows = []
    what = f"{form} {len(raw) / MiB:.0f} MiB{' of stdlib source' if source else ''}"
    for chunk in chunks:
        pieces = split(data, chunk)
        ours, theirs = best_pair(lambda p=pieces: feed_all(p, 2 * size), ref, repeat)
        rows.append((f"{what}, chunk {chunk}", ours, theirs))
    if form == "heredoc" and not source:
        ours, theirs = best_pair(lambda: feed_sliced(data, chunks[0], 2 * size), ref, repeat)
        rows.append((f"{what}, chunk {chunks[0]}, sliced in loop", ours, theirs))
    return rows


def case_small(count: int, chunks: list[int], repeat: int) -> list[tuple[str, float, float]]:
    data = b"".join(
        b"call c%d read\narg path src/module_%d.py\narg encoding utf-8\nend\n" % (i, i)
        for i in range(count)
    )
    objects = [
        json.dumps(
            {
                "id": f"c{i}",
                "name": "read",
                "arguments": {"path": f"src/module_{i}.py", "encoding": "utf-8"},
            }
        )
        for i in range(count)
    ]
    array = "[" + ",".join(objects) + "]"
    assert feed_all(split(data, 65536), MiB) == count
    per_object = best(lambda: [json.loads(o) for o in objects], repeat)
    one_list = best(lambda: json.loads(array), repeat)
    rows = []
    for chunk in chunks:
        pieces = split(data, chunk)
        ours = best(lambda p=pieces: feed_all(p, MiB), repeat)
        rows.append(
            (f"{count:,} small calls, chunk {chunk} (vs loads per object)", ours, per_object)
        )
    rows.append(
        (f"{count:,} small calls, chunk {chunks[-1]} (vs loads of one list)", ours, one_list)
    )
    return rows


def frontier_argv() -> list[str]:
    """The ``frontier`` executable next to this interpreter, or ``python -m`` of the CLI."""
    script = Path(sys.executable).with_name("frontier")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "frontier.app.cli"]


def timed_process(argv: list[str], stdin: Path, env: dict[str, str]) -> tuple[float, bytes, int]:
    """Wall time, stdout and minor page faults of one whole process reading ``stdin``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    with stdin.open("rb") as f:
        start = time.perf_counter()
        proc = subprocess.run(argv, stdin=f, capture_output=True, env=env, check=True)
        elapsed = time.perf_counter() - start
    return elapsed, proc.stdout, resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - before


def case_processes(
    calls: int, repeat: int = 5, baselines: list[str] | None = None
) -> list[tuple[str, float, float, int, int]]:
    """``frontier transduce`` vs ``json.loads`` as whole processes (see the module doc).

    For each of ``baselines`` (a directory holding a ``frontier`` package, e.g. ``git
    archive`` of an earlier commit) that tree's ``frontier transduce`` runs too, with
    ``PYTHONPATH`` set to it, in the same rounds. Each row: best of ``repeat``."""
    content = text_lines(MiB - 4096)
    with tempfile.TemporaryDirectory(prefix="frontier-bench-") as tmp:
        root = Path(tmp)
        ctl_in, json_in = root / "calls.ctl", root / "calls.json"
        with ctl_in.open("w", encoding="utf-8") as f:
            for i in range(calls):
                f.write(
                    f"call c{i} write\narg path f{i}.py\narg content <<EOF\n{content}EOF\nend\n"
                )
        json_in.write_text(
            json.dumps(
                [
                    {
                        "id": f"c{i}",
                        "name": "write",
                        "arguments": {"path": f"f{i}.py", "content": content},
                    }
                    for i in range(calls)
                ]
            ),
            encoding="utf-8",
        )
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.pop("PYTHONPATH", None)
        env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        ours = [*frontier_argv(), "transduce", "--protocol", "ctl-heredoc", "--chunk", "65536"]
        ours.append("--summary")
        ref = [sys.executable, "-c", "import json, sys; json.loads(sys.stdin.buffer.read())"]
        trees = [("this tree", env)]
        for tree in baselines or []:
            trees.append((tree, {**env, "PYTHONPATH": tree}))
        for _, tree_env in trees:
            _, out, _ = timed_process(ours, ctl_in, tree_env)  # warm-up: bytecode is written
            summary = json.loads(out.splitlines()[-1])
            assert (summary["calls"], summary["errors"]) == (calls, 0), summary
        timed_process(ref, json_in, env)
        theirs: list[tuple[float, int]] = []
        mine: dict[str, list[tuple[float, int]]] = {label: [] for label, _ in trees}
        for _ in range(repeat):
            elapsed, _, faults = timed_process(ref, json_in, env)
            theirs.append((elapsed, faults))
            for label, tree_env in trees:
                elapsed, _, faults = timed_process(ours, ctl_in, tree_env)
                mine[label].append((elapsed, faults))
        size = ctl_in.stat().st_size
    t_ref, f_ref = min(theirs)
    what = f"{calls} heredoc calls of ~1 MiB ({size / MiB:.0f} MiB)"
    rows = []
    for label, runs in mine.items():
        t_ours, f_ours = min(runs)
        rows.append((f"{label}: {what}", t_ours, t_ref, f_ours, f_ref))
    return rows


def case_start(runs: int, baselines: list[str] | None) -> list[tuple[str, float, float]]:
    """``frontier transduce --protocol ctl-heredoc --summary`` on empty input (start-up and
    exit alone), each tree and ``python -c pass`` alternating; (name, min, p50) seconds."""
    with tempfile.TemporaryDirectory(prefix="frontier-bench-") as tmp:
        empty = Path(tmp) / "empty"
        empty.write_bytes(b"")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.pop("PYTHONPATH", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        ours = [*frontier_argv(), "transduce", "--protocol", "ctl-heredoc", "--summary"]
        runs_of: list[tuple[str, list[str], dict[str, str]]] = [
            ("python -c pass", [sys.executable, "-c", "pass"], env),
            ("this tree", ours, env),
        ]
        runs_of += [(tree, ours, {**env, "PYTHONPATH": tree}) for tree in baselines or []]
        times: dict[str, list[float]] = {name: [] for name, _, _ in runs_of}
        for _, argv, run_env in runs_of:
            timed_process(argv, empty, run_env)  # warm-up: bytecode is written
        for _ in range(runs):
            for name, argv, run_env in runs_of:
                times[name].append(timed_process(argv, empty, run_env)[0])
    return [(name, min(ts), sorted(ts)[len(ts) // 2]) for name, ts in times.items()]


def loadavg() -> str:
    """The 1-minute load average (the machine is shared: say how busy it was)."""
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def peak_state(total: int, chunk: int = 65536, arg: int = 64 * 1024) -> tuple[int, int]:
    """Peak traced bytes feeding a ``total``-byte stream of calls with ``arg``-byte heredocs."""
    body = text_lines(arg).encode()
    one = b"call c1 write\narg path f.py\narg content <<EOF\n" + body + b"EOF\nend\n"
    data = one * max(1, total // len(one))
    tracemalloc.start()
    tracemalloc.reset_peak()
    t = CtlTransducer()
    calls = 0
    for i in range(0, len(data), chunk):
        calls += sum(e.type == "call" for e in t.feed(data[i : i + chunk]))
    t.finish(True)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, calls


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1/8 of the sizes")
    parser.add_argument("--process", action="store_true", help="only the whole-process case")
    parser.add_argument(
        "--repeat", type=int, default=5, help="runs per 16 MiB case (small calls: at most 3)"
    )
    parser.add_argument(
        "--best-of", type=int, default=5, help="rounds of the whole-process case (best of N)"
    )
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        action="append",
        help="also run that tree's frontier (PYTHONPATH=DIR) in the same rounds, e.g. after "
        "git archive HEAD | tar -x -C DIR/frontier (repeatable)",
    )
    parser.add_argument(
        "--start",
        type=int,
        metavar="N",
        help="only the start-up on empty input, N alternating runs per tree",
    )
    args = parser.parse_args()
    if args.start:
        load = loadavg()
        rows_start = case_start(args.start, args.baseline)
        print(f"frontier transduce on empty input, {args.start} runs (load {load} -> {loadavg()})")
        print(f"{'process':<40} {'min s':>8} {'p50 s':>8}")
        for name, low, mid in rows_start:
            print(f"{name:<40} {low:8.3f} {mid:8.3f}")
        return
    scale = 8 if args.quick else 1
    load = loadavg()
    rows = case_processes(64, args.best_of, args.baseline)  # ~1 s a round: --quick keeps it whole
    head = f"whole processes, best of {args.best_of} (load {load} -> {loadavg()})"
    print(f"{head:<62} {'ctl s':>8} {'json s':>8} {'ratio':>6}  {'faults ctl/json':>15}")
    for name, ours, ref, f_ours, f_ref in rows:
        faults = f"{f_ours}/{f_ref}"
        print(f"{name:<62} {ours:8.3f} {ref:8.3f} {ref / ours:6.2f}  {faults:>15}")
    print("(target: ratio >= 2.0)")
    print()
    if args.process:
        return
    big = 16 * MiB // scale
    chunks = [4096, 65536]
    rows = case_big("heredoc", big, chunks, args.repeat)
    rows += case_big("heredoc", big, chunks[:1], args.repeat, source=True)
    rows += case_big("length", big, chunks, args.repeat)
    rows += case_small(100_000 // scale, chunks, min(args.repeat, 3))
    print(f"{'case':<62} {'ctl s':>8} {'json s':>8} {'ratio':>6}")
    for name, ours, ref in rows:
        print(f"{name:<62} {ours:8.4f} {ref:8.4f} {ref / ours:6.2f}")
    small_peak, small_calls = peak_state(1 * MiB)
    large_peak, large_calls = peak_state(64 * MiB // scale)
    print()
    print(f"peak state, 1 MiB stream ({small_calls} calls): {small_peak / 1024:8.1f} KiB")
    print(
        f"peak state, {64 // scale} MiB stream ({large_calls} calls): {large_peak / 1024:8.1f} KiB"
    )
    print(f"ratio large/small: {large_peak / small_peak:.3f} (target <= 1.10)")


if __name__ == "__main__":
    main()
