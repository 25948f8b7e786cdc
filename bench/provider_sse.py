"""Client overhead: chunks/s through ``ModelClient`` (Chat Completions wire) vs a bare
httpx line reader.

Both read the same SSE body (N content chunks + finish + [DONE]) from the same
aiohttp server on 127.0.0.1 in the same run; the bare reader is the reference
(``aiter_lines`` + ``json.loads``, no fault handling). The client does the whole
path: the transport's sniff and SSE decoding, the wire adapter's deltas. Also
reports the demo transport at rate 0 (no socket). Figures: best of R runs.

    .venv/bin/python bench/provider_sse.py [--chunks 20000] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import httpx
from aiohttp import web

from frontier.app.model.conversation import AssistantTurn, Item, UserText
from frontier.app.model.demo_script import DEMO_TASK
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import WireEvent
from frontier.app.model.transport import ModelClient
from frontier.app.model.wires.demo import DEMO_BASE_URL, DemoTransport


def body(n: int) -> bytes:
    piece = {"choices": [{"index": 0, "delta": {"content": "tok "}, "finish_reason": None}]}
    line = f"data: {json.dumps(piece)}\n\n".encode()
    end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return line * n + f"data: {json.dumps(end)}\n\n".encode() + b"data: [DONE]\n\n"


async def bare(url: str) -> int:
    count = 0
    async with (
        httpx.AsyncClient() as client,
        client.stream("POST", url + "/chat/completions", json={}) as response,
    ):
        async for line in response.aiter_lines():
            if line.startswith("data: ") and line[6:] != "[DONE]":
                json.loads(line[6:])
                count += 1
    return count


async def client(url: str, transport: httpx.AsyncBaseTransport | None = None) -> int:
    c = ModelClient(codec("openai-chat"), url, "m", transport=transport)
    count = 0
    request = ModelRequest(system="", items=(UserText(DEMO_TASK),))
    async for item in c.stream(request):
        count += isinstance(item, WireEvent)
    await c.aclose()
    return count


async def demo_script_run() -> int:
    """The whole ctl demo script (9 responses) through the client at rate 0."""
    c = ModelClient(codec("openai-chat"), DEMO_BASE_URL, "m", transport=DemoTransport("ctl", 0))
    items: list[Item] = [UserText(DEMO_TASK)]
    count = 0
    for _ in range(9):
        async for item in c.stream(ModelRequest(system="", items=tuple(items))):
            count += isinstance(item, WireEvent)
        items += [AssistantTurn("x"), UserText("r")]
    await c.aclose()
    return count


async def best(fn, runs: int) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    times, count = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        count = await fn()
        times.append(time.perf_counter() - t0)
    return min(times), count


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    payload = body(args.chunks)

    async def handler(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for i in range(0, len(payload), 4096):  # realistic TCP-sized writes
            await resp.write(payload[i : i + 4096])
        await resp.write_eof()
        return resp

    app = web.Application()
    app.router.add_post("/v1/chat/completions", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/v1"  # type: ignore[union-attr]
    try:
        t_ref, n_ref = await best(lambda: bare(url), args.runs)
        t_prov, n_prov = await best(lambda: client(url), args.runs)
        t_demo, n_demo = await best(demo_script_run, args.runs)
    finally:
        await runner.cleanup()
    print(f"{'reader':<34}{'chunks':>8}{'seconds':>10}{'chunks/s':>12}{'vs bare':>9}")
    for name, t, n in (
        ("bare httpx aiter_lines+json", t_ref, n_ref),
        ("ModelClient.stream (127.0.0.1)", t_prov, n_prov),
        ("demo script, 9 responses (rate 0)", t_demo, n_demo),
    ):
        ratio = (n / t) / (n_ref / t_ref)
        print(f"{name:<34}{n:>8}{t:>10.3f}{n / t:>12,.0f}{ratio:>8.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
