"""``frontier check`` where a person waits for it: a long stored session, one long native stream.

    .venv/bin/python bench/check_jobs.py [--responses 1000] [--runs 3]
                                         [--stream-mib 18] [--baseline DIR]

A session of ``--responses`` responses, each a native ``read`` call (then one closing
answer), is made once by ``frontier run`` against ``bench/wires.py``'s loopback server in a
temporary data dir; then ``frontier check SESSION`` (the default: a process per CPU past
256 KiB) and ``frontier check -j 1 SESSION`` (one process) run alternately ``--runs``
times each, whole process, and their outputs are compared byte for byte.

``--stream-mib``: also one Chat Completions stream of that many MiB as a raw SSE capture,
one native ``write_file`` call whose arguments (a ~1 MB file) arrive 12 characters a chunk,
as models send them; ``frontier check FILE``, whole process.

With ``--baseline DIR`` (``DIR/frontier``: ``git archive`` of an older commit, on
``PYTHONPATH``) each ``-j 1`` case and the stream alternate with that tree's, outputs
compared too. Seconds; nothing is asserted (the machine is shared: ratios in one run).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import wires  # bench/wires.py: its loopback server and argv


def long_stream(path: Path, mib: int) -> None:
    """A native Chat stream of about ``mib`` MiB: one call, its arguments 12 chars a chunk."""
    rng = random.Random(1)
    content = "".join(rng.choice("abcdefghij klmnop\nqrstuvwxyz") for _ in range(mib * 53_000))
    args = json.dumps({"path": "a.txt", "content": content})

    def chunk(delta: dict[str, object], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        body = {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
        return f"data: {json.dumps(body)}\n\n"

    call = {"index": 0, "id": "call_1", "type": "function"}
    out = [chunk({"role": "assistant", "content": ""})]
    out.append(
        chunk({"tool_calls": [{**call, "function": {"name": "write_file", "arguments": ""}}]})
    )
    for i in range(0, len(args), 12):
        out.append(
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[i : i + 12]}}]})
        )
    out += [chunk({}, "tool_calls"), "data: [DONE]\n\n"]
    path.write_text("".join(out))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--responses", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--stream-mib", type=int, default=0)
    ap.add_argument("--baseline", type=Path, help="an older tree, DIR/frontier/...")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="frontier-check-jobs-") as tmp:
        root = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("FRONTIER_")}
        env |= {
            "FRONTIER_DATA_DIR": str(root / "data"),
            "FRONTIER_CONFIG_DIR": str(root / "config"),
            "FRONTIER_API_KEY": "bench-key",
        }
        old = {**env, "PYTHONPATH": str(args.baseline.resolve())} if args.baseline else None
        session = wires.make_session(root, env, args.responses, native=True)
        cli = [sys.executable, "-m", "frontier.app.cli"]
        cases: dict[str, tuple[list[str], dict[str, str]]] = {
            f"check (a process per CPU, {os.cpu_count()})": (["check", session], env),
            "check -j 1 (one process)": (["check", "-j", "1", session], env),
        }
        if old is not None:
            cases["baseline check -j 1"] = (["check", "-j", "1", session], old)
        if args.stream_mib:
            stream = root / "long.sse"
            long_stream(stream, args.stream_mib)
            size = stream.stat().st_size / 1e6
            cases[f"check of one {size:.1f} MB stream"] = (["check", str(stream)], env)
            if old is not None:
                cases["baseline, the same stream"] = (["check", str(stream)], old)
        times: dict[str, list[float]] = {name: [] for name in cases}
        outputs: dict[str, bytes] = {}
        load = os.getloadavg()
        for _ in range(args.runs):
            for name, (tail, case_env) in cases.items():
                t0 = time.perf_counter()
                done = subprocess.run([*cli, *tail], env=case_env, capture_output=True, check=False)
                times[name].append(time.perf_counter() - t0)
                outputs[name] = done.stdout
        session_outputs = {v for k, v in outputs.items() if "stream" not in k}
        stream_outputs = {v for k, v in outputs.items() if "stream" in k}
        same = len(session_outputs) == 1 and len(stream_outputs) <= 1
        print(
            f"frontier check, {args.responses} stored responses and "
            f"{args.stream_mib or 'no'} MiB stream (outputs {'identical' if same else 'DIFFER'}); "
            f"{args.runs} runs alternating; seconds; load {load[0]:.2f} → {os.getloadavg()[0]:.2f}"
        )
        ref = statistics.median(times["check -j 1 (one process)"])
        for name, values in times.items():
            p50 = statistics.median(values)
            print(f"  {name:<34} p50 {p50:7.3f}  min {min(values):7.3f}  ÷ -j 1  {p50 / ref:5.2f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
