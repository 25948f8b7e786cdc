"""What keeping known secrets out of a request costs (``ModelClient._build``), beside
building the same request as before (httpx encoding ``json=``), in the same run.

    .venv/bin/python bench/request_redact.py [--runs 7]

A Chat Completions body of a long session: the system prompt and N rounds, each a tool
result of a 4 KB file, about 10 KB / 100 KB / 1 MB / 4 MB in all. The client holds a key
and two API-key variables' values (what a hosted session's scrubber knows); the history
holds none of them (the common case) or one, 100 results in. Best of ``--runs``, in-process.
Nothing is asserted: a request is built once per model request.
"""

from __future__ import annotations

import argparse
import os
import time

KEY = "sk-bench-0123456789abcdefXYZ"
OTHER = "sk-ant-bench0123456789other"
SIZES = (10_000, 100_000, 1_000_000, 4_000_000)


def body(size: int, secret: bool) -> dict[str, object]:
    chunk = "".join(f"    line {i}: value = compute({i}, 'x')\n" for i in range(100))[:4000]
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are a coding agent."}]
    total, n = 0, 0
    while total < size:
        text = chunk if not (secret and n == 100) else chunk + f"\nkey={OTHER}\n"
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": text})
        total += len(text)
        n += 1
    return {"model": "m", "messages": messages, "stream": True}


def best(runs: int, work: object) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    os.environ["ANTHROPIC_API_KEY"] = OTHER
    import httpx

    from frontier.app import fastjson
    from frontier.app.secrets import Scrubber

    scrubber = Scrubber.from_env(KEY)
    client = httpx.Client()
    url = "http://127.0.0.1:9/v1/chat/completions"
    print(f"load {os.getloadavg()[0]:.2f}; best of {args.runs}")
    print(f"{'body':>9} {'secret':>6} {'json= (before)':>15} {'redacted':>10} {'ratio':>6}")
    for size in SIZES:
        for secret in (False, True):
            b = body(size, secret)

            def before(b: dict[str, object] = b) -> None:
                client.build_request("POST", url, json=b)

            def after(b: dict[str, object] = b) -> None:
                text = fastjson.dumps(b, ensure_ascii=False, separators=(",", ":"))
                data = scrubber.redact(text).encode("utf-8")
                client.build_request("POST", url, content=data)

            t0, t1 = best(args.runs, before), best(args.runs, after)
            print(
                f"{size / 1000:>7.0f}KB {'yes' if secret else 'no':>6} {t0 * 1000:>13.2f}ms "
                f"{t1 * 1000:>8.2f}ms {t1 / t0:>6.2f}"
            )


if __name__ == "__main__":
    main()
