"""``frontier import`` of a large HAR, beside reading and parsing the same file with ``json``.

    .venv/bin/python bench/har_import.py [--mib 56,111] [--runs 5] [--pretty]
                                         [--shape page|session|turns] [--baseline DIR]
                                         [--command import|check]

A person debugging a model's framing saves the browser's network panel as a HAR and hands
it to ``frontier import`` (or ``check``, ``replay``). A HAR holds every request of the page,
so it is mostly other traffic: here, per ``--mib`` size, 40 KB base64 images with a model's
Chat Completions stream (~48 KB of SSE, text then a native call) every ~35 entries, each
with the request body that offered the tools. Written on one line (``json.dump``, as
mitmproxy and many exporters do) or, with ``--pretty``, indented (as Chromium writes it).

``--shape session``: instead, one long agent session's HAR, every entry a model stream
whose request body carries the whole conversation so far (four messages more each turn:
the person, a call, its result, a reply; eight tools offered), as a HAR of a coding agent
is; entries are added until the file reaches ``--mib``.

``--shape turns``: a session's many short turns (~2 KB of SSE: ten words, then a native
``read`` call whole), each request body carrying its latest message only, as a proxy that
logs what changed writes them: ~10,000 entries (the cap) in 25 MiB; more are left out.
What a HAR costs per entry, not per byte.

``--command check``: ``frontier check HAR`` is timed instead of ``import`` (its every-prefix
check of each response included: compare arms, not the reference).

Whole processes, spawn to exit, alternating, each with its peak RSS (``wait4``):
``frontier import HAR -o OUT`` (every response written as a recording), and the reference
``python -c`` that reads the file and ``json.loads`` it (what any reader of a HAR pays).
With ``--baseline DIR`` (``DIR/frontier``, e.g. ``git archive`` of an older commit) that
tree's import alternates too; a tree that refuses the file says so. p50 and min of
``--runs``; nothing is asserted.
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


def make_session_har(path: Path, mib: int) -> int:
    """A HAR of one long session (``--shape session``) of about ``mib`` MiB; its entries."""
    tool = {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read a file. " * 20,
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are an agent. " * 50}]
    entries: list[dict[str, object]] = []
    size = 0
    while size < mib << 20:
        i = len(entries)
        call = {"name": "read", "arguments": json.dumps({"path": f"src/f{i}.py"})}
        messages += [
            {"role": "user", "content": f"step {i}: " + "please look at the file " * 10},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": f"call_{i}", "type": "function", "function": call}],
            },
            {
                "role": "tool",
                "tool_call_id": f"call_{i}",
                "content": "\n".join(f"{k}: line of code number {k}" for k in range(12)),
            },
            {"role": "assistant", "content": [{"type": "text", "text": "I read it. " * 8}]},
        ]
        body = json.dumps(
            {"model": "gpt-x", "stream": True, "tools": [tool] * 8, "messages": messages}
        )
        text = model_stream(i)
        entries.append(
            {
                "request": {
                    "method": "POST",
                    "url": "https://api.example.com/v1/chat/completions",
                    "postData": {"mimeType": "application/json", "text": body},
                },
                "response": {
                    "status": 200,
                    "headers": [{"name": "content-type", "value": "text/event-stream"}],
                    "content": {"mimeType": "text/event-stream", "text": text},
                },
            }
        )
        size += len(body) + len(text)
    doc = {
        "log": {"version": "1.2", "creator": {"name": "bench", "version": "1"}, "entries": entries}
    }
    with path.open("w") as f:
        json.dump(doc, f)
    return len(entries)


def make_turns_har(path: Path, mib: int) -> int:
    """A HAR of many short turns (``--shape turns``) of about ``mib`` MiB; its entries."""
    tool = {
        "type": "function",
        "function": {"name": "read", "parameters": {"type": "object"}},
    }
    entries: list[dict[str, object]] = []
    size = 0
    while size < mib << 20:
        i = len(entries)
        out = [chunk({"content": f"word{k} "}) for k in range(10)]
        call = {"name": "read", "arguments": json.dumps({"path": f"src/f{i}.py"})}
        head = {"index": 0, "id": f"call_{i}", "type": "function"}
        out.append(chunk({"tool_calls": [{**head, "function": call}]}))
        text = "".join(out) + chunk({}, "tool_calls") + "data: [DONE]\n\n"
        message = {"role": "user", "content": f"step {i}"}
        body = json.dumps(
            {"model": "gpt-x", "stream": True, "tools": [tool], "messages": [message]}
        )
        entries.append(
            {
                "request": {
                    "method": "POST",
                    "url": "https://api.example.com/v1/chat/completions",
                    "headers": [{"name": "Authorization", "value": "Bearer sk-bench"}],
                    "postData": {"mimeType": "application/json", "text": body},
                },
                "response": {
                    "status": 200,
                    "headers": [{"name": "content-type", "value": "text/event-stream"}],
                    "content": {"mimeType": "text/event-stream", "text": text},
                },
                "timings": {"send": 1, "wait": 100, "receive": 50},
            }
        )
        size += len(body) + len(text) + 400  # the entry's own fields
    doc = {
        "log": {"version": "1.2", "creator": {"name": "bench", "version": "1"}, "entries": entries}
    }
    with path.open("w") as f:
        json.dump(doc, f)
    return len(entries)


Timed = tuple[float, float] | None
"""Seconds spawn to exit and peak RSS in MiB; ``None`` when the command refused the file."""


def timed(argv: list[str], env: dict[str, str]) -> Timed:
    """Seconds spawn to exit and the process's peak RSS; ``None`` when the command refused
    the file (exit 2)."""
    began = time.perf_counter()
    child = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=False
    )
    assert child.stderr is not None
    err = child.stderr.read()  # drained as it comes: a full pipe would hold the child
    _, status, usage = os.wait4(child.pid, 0)
    took = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    child.stderr.close()
    if child.returncode == 2:
        return None
    if child.returncode != 0:
        raise SystemExit(f"{argv}: exit {child.returncode}\n{err.decode()[-2000:]}")
    return took, usage.ru_maxrss / 1024


def figure(values: list[Timed]) -> str:
    done = [v for v in values if v is not None]
    if len(done) < len(values):
        return "refused"
    seconds = [t for t, _ in done]
    rss = statistics.median(r for _, r in done)
    return f"{statistics.median(seconds):.3f} / {min(seconds):.3f}, {rss:.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", default="56,111", help="HAR sizes, MiB (comma-separated)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pretty", action="store_true", help="indented, as Chromium writes")
    parser.add_argument(
        "--shape", choices=("page", "session", "turns"), default="page", help="see the module's doc"
    )
    parser.add_argument("--command", choices=("import", "check"), default="import")
    parser.add_argument("--baseline", type=Path, help="an older tree, DIR/frontier/...")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {**os.environ, "FRONTIER_DATA_DIR": str(root / "data")}
        env["FRONTIER_CONFIG_DIR"] = str(root / "config")
        arms: dict[str, tuple[list[str], dict[str, str]]] = {}
        this = ["-m", "frontier.app.cli", args.command]
        arms[f"frontier {args.command}"] = ([PYTHON, *this], env)
        if args.baseline:
            old = {**env, "PYTHONPATH": str(args.baseline.resolve())}
            arms[f"baseline {args.command}"] = ([PYTHON, *this], old)
        print(f"\nseconds, whole process, p50 / min of {args.runs}, alternating; peak RSS p50")
        print(f"{'HAR':>22} | {'json.loads (ref)':>24} | " + " | ".join(f"{a:>30}" for a in arms))
        for mib in (int(m) for m in args.mib.split(",")):
            har = root / f"{args.shape}-{mib}.har"
            if args.shape == "session":
                streams = make_session_har(har, mib)
            elif args.shape == "turns":
                streams = make_turns_har(har, mib)
            else:
                streams = make_har(har, mib, args.pretty)
            times: dict[str, list[Timed]] = {"ref": [], **{a: [] for a in arms}}
            for run in range(args.runs + 1):  # the first round warms caches, untimed
                got = {"ref": timed([PYTHON, "-c", READ_AND_PARSE, str(har)], env)}
                for name, (argv, arm_env) in arms.items():
                    out = root / f"out-{run}" / "r.jsonl"
                    out.parent.mkdir(exist_ok=True)
                    where = ["-o", str(out)] if args.command == "import" else []
                    got[name] = timed([*argv, str(har), *where], arm_env)
                if run:
                    for name, value in got.items():
                        times[name].append(value)
            label = f"{har.stat().st_size / (1 << 20):.0f} MiB, {streams} streams"
            ref = times.pop("ref")
            ref_p50 = statistics.median(v[0] for v in ref if v is not None)
            cells = []
            for name in arms:
                done = [v[0] for v in times[name] if v is not None]
                ratio = (
                    f" {statistics.median(done) / ref_p50:.1f}x" if len(done) == args.runs else ""
                )
                cells.append(f"{figure(times[name]) + ratio:>30}")
            print(f"{label:>22} | {figure(ref):>24} | " + " | ".join(cells))
        print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
