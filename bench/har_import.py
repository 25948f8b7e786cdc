"""``frontier import`` of a large HAR, beside reading and parsing the same file with ``json``.

    .venv/bin/python bench/har_import.py [--mib 56,111] [--runs 5] [--pretty]
                                         [--baseline DIR]

A person debugging a model's framing saves the browser's network panel as a HAR and hands
it to ``frontier import`` (or ``check``, ``replay``). A HAR holds every request of the page,
so it is mostly other traffic: here, per ``--mib`` size, 40 KB base64 images with a model's
Chat Completions stream (~48 KB of SSE, text then a native call) every ~35 entries, each
with the request body that offered the tools. Written on one line (``json.dump``, as
mitmproxy and many exporters do) or, with ``--pretty``, indented (as Chromium writes it).

Whole processes, spawn to exit, alternating: ``frontier import HAR -o OUT`` (every response
written as a recording), and the reference ``python -c`` that reads the file and
``json.loads`` it (what any reader of a HAR pays). With ``--baseline DIR`` (``DIR/frontier``,
e.g. ``git archive`` of an older commit) that tree's import alternates too; a tree that
refuses the file says so. p50 and min of ``--runs``; nothing is asserted.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable
READ_AND_PARSE = "import json, sys; json.loads(open(sys.argv[1], 'rb').read())"


def chunk(delta: dict[str, object], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {"id": "c", "object": "chat.completion.chunk", "model": "gpt-x", "choices": [choice]}
    return "data: " + json.dumps(body) + "\n\n"


def model_stream(i: int) -> str:
    """~48 KB of SSE: 300 words of text, then a native ``read`` call in 4-byte pieces."""
    out = [chunk({"content": f"word{k} "}) for k in range(300)]
    head = {"index": 0, "id": f"call_{i}", "type": "function"}
    out.append(chunk({"tool_calls": [{**head, "function": {"name": "read", "arguments": ""}}]}))
    args = json.dumps({"path": f"src/f{i}.py"})
    for j in range(0, len(args), 4):
        out.append(
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[j : j + 4]}}]})
        )
    out.append(chunk({}, "tool_calls"))
    return "".join(out) + "data: [DONE]\n\n"


def make_har(path: Path, mib: int, pretty: bool) -> int:
    """A HAR of about ``mib`` MiB; the number of model streams in it."""
    rng = random.Random(mib)
    tool = {"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}
    request = {"model": "gpt-x", "stream": True, "tools": [tool]}
    request["messages"] = [{"role": "user", "content": "x" * 20_000}]
    post = {"mimeType": "application/json", "text": json.dumps(request)}
    entries: list[dict[str, object]] = []
    size = streams = 0
    while size < mib << 20:
        if len(entries) % 35 == 0:
            streams += 1
            text = model_stream(len(entries))
            entries.append(
                {
                    "request": {
                        "method": "POST",
                        "url": "https://api.example.com/v1/chat/completions",
                        "headers": [{"name": "Authorization", "value": "Bearer sk-bench"}],
                        "postData": post,
                    },
                    "response": {
                        "status": 200,
                        "headers": [{"name": "content-type", "value": "text/event-stream"}],
                        "content": {"mimeType": "text/event-stream", "text": text},
                    },
                }
            )
            size += len(text) + len(post["text"])
        else:
            blob = base64.b64encode(rng.randbytes(40_000)).decode()
            entries.append(
                {
                    "request": {
                        "method": "GET",
                        "url": f"https://cdn.example.com/{len(entries)}.png",
                    },
                    "response": {
                        "status": 200,
                        "headers": [{"name": "content-type", "value": "image/png"}],
                        "content": {"mimeType": "image/png", "encoding": "base64", "text": blob},
                    },
                }
            )
            size += len(blob)
    doc = {
        "log": {"version": "1.2", "creator": {"name": "bench", "version": "1"}, "entries": entries}
    }
    with path.open("w") as f:
        json.dump(doc, f, indent=1 if pretty else None)
    return streams


def timed(argv: list[str], env: dict[str, str]) -> float | None:
    """Seconds spawn to exit; ``None`` when the command refused the file (exit 2)."""
    began = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True)
    took = time.perf_counter() - began
    if done.returncode == 2:
        return None
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}\n{done.stderr.decode()[-2000:]}")
    return took


def figure(values: list[float | None]) -> str:
    done = [v for v in values if v is not None]
    if len(done) < len(values):
        return "refused"
    return f"{statistics.median(done):.3f} / {min(done):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", default="56,111", help="HAR sizes, MiB (comma-separated)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pretty", action="store_true", help="indented, as Chromium writes")
    parser.add_argument("--baseline", type=Path, help="an older tree, DIR/frontier/...")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {**os.environ, "FRONTIER_DATA_DIR": str(root / "data")}
        env["FRONTIER_CONFIG_DIR"] = str(root / "config")
        arms: dict[str, tuple[list[str], dict[str, str]]] = {}
        this = ["-m", "frontier.app.cli", "import"]
        arms["frontier import"] = ([PYTHON, *this], env)
        if args.baseline:
            old = {**env, "PYTHONPATH": str(args.baseline.resolve())}
            arms["baseline import"] = ([PYTHON, *this], old)
        print(f"\nseconds, whole process, p50 / min of {args.runs}, alternating")
        print(f"{'HAR':>22} | {'json.loads (ref)':>16} | " + " | ".join(f"{a:>18}" for a in arms))
        for mib in (int(m) for m in args.mib.split(",")):
            har = root / f"page-{mib}.har"
            streams = make_har(har, mib, args.pretty)
            times: dict[str, list[float | None]] = {"ref": [], **{a: [] for a in arms}}
            for run in range(args.runs + 1):  # the first round warms caches, untimed
                got = {"ref": timed([PYTHON, "-c", READ_AND_PARSE, str(har)], env)}
                for name, (argv, arm_env) in arms.items():
                    out = root / f"out-{run}" / "r.jsonl"
                    out.parent.mkdir(exist_ok=True)
                    got[name] = timed([*argv, str(har), "-o", str(out)], arm_env)
                if run:
                    for name, value in got.items():
                        times[name].append(value)
            label = f"{har.stat().st_size / (1 << 20):.0f} MiB, {streams} streams"
            ref = times.pop("ref")
            ref_p50 = statistics.median(v for v in ref if v is not None)
            cells = []
            for name in arms:
                done = [v for v in times[name] if v is not None]
                ratio = (
                    f" {statistics.median(done) / ref_p50:.1f}x" if len(done) == args.runs else ""
                )
                cells.append(f"{figure(times[name]) + ratio:>18}")
            print(f"{label:>22} | {figure(ref):>16} | " + " | ".join(cells))
        print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
