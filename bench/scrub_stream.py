"""``StreamScrubber`` on 1 MB of near-miss text fed in pieces, and a long key's build (stop 71).

    .venv/bin/python bench/scrub_stream.py [--runs 3] [--baseline DIR]

A command's live output and every streamed event pass through a stream scrubber, which
holds back an end of what arrived that may still become a known secret. The text here is
the hardest ordinary case: the keys' own characters, with a start of the provider's key
(1-150 characters of it) every 200 characters, fed in 4-character pieces (a model's
token) and 64-character pieces (a command's output). Then the memory and time of building
a scrubber that knows one 20 KB value (an ``api_key_file`` pointing at the wrong file's
long line): every start of every value was kept, quadratic in its length. Best of
``--runs``, in-process; ``--baseline DIR`` (a tree holding ``frontier/``) runs the same in
a child with ``PYTHONPATH=DIR`` right after, its rows under ours.
"""

from __future__ import annotations

import argparse
import os
import random
import string
import subprocess
import sys
import time
import tracemalloc

random.seed(1)
KEYS = [
    "sk-proj-" + "".join(random.choice(string.ascii_letters + string.digits) for _ in range(156)),
    "ghp_" + "".join(random.choice(string.ascii_letters) for _ in range(36)),
]
ALPHABET = string.ascii_letters + string.digits + " -_\n"


def near_miss_text() -> str:
    parts: list[str] = []
    size = 0
    while size < 1_000_000:
        parts.append("".join(random.choice(ALPHABET) for _ in range(200)))
        parts.append(KEYS[0][: random.randint(1, 150)])
        size += len(parts[-1]) + 200
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    from frontier.app.secrets import Scrubber, StreamScrubber

    suffix = ", baseline" if args.child else ""
    text = near_miss_text()
    for piece in (4, 64):
        best = float("inf")
        for _ in range(args.runs):
            start = time.perf_counter()
            stream = StreamScrubber(Scrubber(KEYS), same_length=True)
            out = [stream.feed(text[i : i + piece]) for i in range(0, len(text), piece)]
            out.append(stream.flush())
            best = min(best, time.perf_counter() - start)
        print(f"{piece}-char pieces{suffix:12} {best * 1000:8.1f} ms a MB")
    key = "k" * 19_999 + "z"
    start = time.perf_counter()
    Scrubber([key])  # timed alone: tracing slows every allocation (its regexes cached after)
    took = time.perf_counter() - start
    tracemalloc.start()
    Scrubber([key])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"one 20 KB key{suffix:14} {took * 1000:8.1f} ms, peak {peak / 1e6:.1f} MB (traced)")
    if args.baseline is not None:
        env = {**os.environ, "PYTHONPATH": args.baseline}
        command = [sys.executable, __file__, "--runs", str(args.runs), "--child"]
        subprocess.run(command, env=env, check=True)


if __name__ == "__main__":
    main()
