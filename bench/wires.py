"""Wires: when a native call starts on each wire, and how soon the first request leaves.

    .venv/bin/python bench/wires.py                       # all three parts, ~3 min
    .venv/bin/python bench/wires.py --only eager --repeats 5 --prose-seconds 3
    .venv/bin/python bench/wires.py --only first --starts 9 --importtime 25

Printed side by side with references measured in the same run (the machine is shared
and noisy: ratios and same-run comparisons, never absolute targets, and nothing is
asserted).

**(a) eager start per wire** (``--only eager``). A scripted loopback server (aiohttp on
127.0.0.1, in a thread of this process: one clock for both sides) speaks each wire —
``openai-chat``, ``openai-responses``, ``anthropic-messages`` — and streams, at
``--rate`` tokens/s (one event per token), a sentence, one complete ``read`` call, then
``--prose-seconds`` of prose, then the API's end. Everything after the server is real:
``ModelClient`` (the wire's adapter, httpx), ``AgentLoop`` in ``native-inc`` and
``native-eos``, ``ToolBoundary`` with ``PolicyApprover("auto")`` reading a file of a
temp workspace, a ``SessionStore``. A second request (carrying the result) is answered
with one closing sentence, so the turn ends ``done``. Per wire and mode it prints:

* ``start - done``: from the server writing the event that completes the call —
  Responses ``response.output_item.done``, Anthropic ``content_block_stop``; Chat
  Completions has no per-call signal, so its done event is the finish chunk (the
  call's only proof, after the prose) — to the loop's ``ToolStarted`` (the server
  stamps the event as its write begins);
* ``start - end``: the same start against the server having written the stream's last
  event (negative: the call started before the stream ended);
* ``ready - done``: the transducer's ``CallReady`` against the done event (the rest
  of ``start - done`` is the boundary: argument check, approval, durable commit).

Expected: native-inc on Responses and Anthropic starts the call milliseconds after its
done event, ``--prose-seconds`` before the stream ends; on Chat only at the finish;
native-eos always at the end of the stream.

**(b) first-request latency** (``--only first``). ``frontier run --prompt hi --base-url
http://127.0.0.1:PORT/v1 --model m --wire W`` as a subprocess (a temp workspace, data
and config dirs, a dummy key) against a loopback server in this process that records
when each request arrives: the time from just before the process is spawned to the
first model request (``POST .../chat/completions``, ``/responses``, ``/messages``)
arriving, beside ``python -c pass`` of the same interpreter (spawn to exit), run
alternately ``--starts`` times each; p50 and min (``--baseline DIR`` adds an older tree,
``git archive`` unpacked as ``DIR/frontier``, to the alternation). Requests before the model request
(the window and tools probes: ``GET /props``, ``/models``) are listed with their own
times. Every process gets compiled bytecode (a private ``PYTHONPYCACHEPREFIX``, an
untimed warm-up each), as an installed package would: with ``PYTHONDONTWRITEBYTECODE``
(set in some shells) every start recompiles every module. The goal (issue 20): the
first model request within 0.4 s.

Where the time goes, for the first wire: the same ``main`` in a harness (``HARNESS``)
that stamps when the interpreter is ready, the first ``socket.connect`` and how long
the model catalogue's first lookup takes; one harnessed start under ``-X importtime``
names the modules imported before the first connection, and ``--breakdown`` rounds then
alternate a harnessed start with fresh processes that only import those modules, timed
inside them (all of them; with the stdlib and third-party ones imported first, untimed:
Frontier's own; with ``click`` unimportable: without httpx's command-line client). The
importtime run's top ``--importtime`` imports by cumulative and by self time are
printed too (profiling inflates them: they say where, not how much).

**(c) transducer throughput kept** (``--only transducer``): ``bench/transducer.py``'s
whole-process case, called as it is (``case_processes``): ``frontier transduce
--protocol ctl-heredoc`` on 64 heredoc calls of ~1 MiB against ``python -c
json.loads`` of the same calls, best of 3 (target ratio >= 2.0). The same figure is
``.venv/bin/python bench/transducer.py --process``. With ``--baseline`` it alternates
with the older tree, ``--transducer-rounds`` times each (``frontier transduce`` is then
the older tree's, through ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.events import CallReady, Event, ToolFinished, ToolStarted, TurnEnded
from frontier.app.model.registry import codec
from frontier.app.model.transport import ModelClient
from frontier.app.session.store import SessionStore
from frontier.tools.boundary import ToolBoundary
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry

WIRES = ("openai-chat", "openai-responses", "anthropic-messages")
MODES = ("native-inc", "native-eos")
PATHS = {
    "openai-chat": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic-messages": "/v1/messages",
}
DONE_EVENT = {
    "openai-chat": "finish chunk",
    "openai-responses": "output_item.done",
    "anthropic-messages": "content_block_stop",
}
INTRO = "I'll read the notes first."
PROSE = (
    "While that runs, here is the plan: read the notes, check which steps they list, "
    "compare them with the code, and write down what is missing before changing anything. "
)
CLOSING = "The notes say what I expected; nothing else to do."
NOTES = "alpha beta gamma\n"
CALL_ID = "call_1"
CALL_ARGS = json.dumps({"path": "notes.txt"})
TOKEN_CHARS = 4

now = time.perf_counter


# --------------------------------------------------------------------------- the streams


@dataclass(frozen=True)
class Out:
    """One server-sent event: its bytes, whether it is a paced token, and a mark to stamp
    when it has been written (``done``: the event that completes the call)."""

    data: bytes
    token: bool = False
    mark: str = ""


def tokens(text: str) -> list[str]:
    return [text[i : i + TOKEN_CHARS] for i in range(0, len(text), TOKEN_CHARS)]


def prose(seconds: float, rate: float) -> list[str]:
    count = max(1, round(seconds * rate))
    text = PROSE * (count * TOKEN_CHARS // len(PROSE) + 1)
    return tokens(text)[:count]


def _data(obj: Any) -> bytes:
    return f"data: {json.dumps(obj)}\n\n".encode()


def _event(name: str, obj: Any) -> bytes:
    return f"event: {name}\ndata: {json.dumps(obj)}\n\n".encode()


def chat_body(intro: Sequence[str], args: Sequence[str], after: Sequence[str]) -> list[Out]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _data({"object": "chat.completion.chunk", "model": "m", "choices": [choice]})

    out = [Out(chunk({"role": "assistant", "content": ""}))]
    out += [Out(chunk({"content": t}), True) for t in intro]
    head = {"index": 0, "id": CALL_ID, "type": "function"}
    head["function"] = {"name": "read", "arguments": ""} if args else {"name": "read"}
    if args:
        out.append(Out(chunk({"tool_calls": [head]}), True))
        for piece in args:
            delta = {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
            out.append(Out(chunk(delta), True))
    out += [Out(chunk({"content": t}), True) for t in after]
    out.append(Out(chunk({}, "tool_calls" if args else "stop"), mark="done" if args else ""))
    usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    out.append(Out(_data({"object": "chat.completion.chunk", "choices": [], "usage": usage})))
    out.append(Out(b"data: [DONE]\n\n"))
    return out


def responses_body(intro: Sequence[str], args: Sequence[str], after: Sequence[str]) -> list[Out]:
    out: list[Out] = []
    seq = 0
    output: list[dict[str, Any]] = []

    def ev(kind: str, token: bool = False, mark: str = "", **fields: Any) -> None:
        nonlocal seq
        out.append(Out(_event(kind, {"type": kind, "sequence_number": seq, **fields}), token, mark))
        seq += 1

    response = {"id": "resp_1", "object": "response", "model": "m", "output": []}
    ev("response.created", response={**response, "status": "in_progress"})

    def message(pieces: Sequence[str]) -> None:
        at = len(output)
        item = {"id": f"msg_{at}", "type": "message", "role": "assistant", "content": []}
        ev("response.output_item.added", output_index=at, item={**item, "status": "in_progress"})
        where = {"item_id": item["id"], "output_index": at, "content_index": 0}
        ev("response.content_part.added", **where, part={"type": "output_text", "text": ""})
        for piece in pieces:
            ev("response.output_text.delta", True, **where, delta=piece)
        text = "".join(pieces)
        ev("response.output_text.done", **where, text=text)
        part = {"type": "output_text", "text": text, "annotations": []}
        ev("response.content_part.done", **where, part=part)
        item = {**item, "status": "completed", "content": [part]}
        ev("response.output_item.done", output_index=at, item=item)
        output.append(item)

    message(intro)
    if args:
        at = len(output)
        item = {"id": f"fc_{at}", "type": "function_call", "call_id": CALL_ID, "name": "read"}
        added = {**item, "arguments": "", "status": "in_progress"}
        ev("response.output_item.added", True, output_index=at, item=added)
        for piece in args:
            ev("response.function_call_arguments.delta", True, item_id=item["id"],
               output_index=at, delta=piece)  # fmt: skip
        whole = "".join(args)
        ev("response.function_call_arguments.done", item_id=item["id"], output_index=at,
           arguments=whole)  # fmt: skip
        item = {**item, "arguments": whole, "status": "completed"}
        ev("response.output_item.done", mark="done", output_index=at, item=item)
        output.append(item)
    if after:
        message(after)
    usage = {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110}
    final = {**response, "status": "completed", "output": output, "usage": usage}
    ev("response.completed", response=final)
    return out


def anthropic_body(intro: Sequence[str], args: Sequence[str], after: Sequence[str]) -> list[Out]:
    out: list[Out] = []

    def ev(kind: str, token: bool = False, mark: str = "", **fields: Any) -> None:
        out.append(Out(_event(kind, {"type": kind, **fields}), token, mark))

    start = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": []}
    start |= {"stop_reason": None, "usage": {"input_tokens": 100, "output_tokens": 1}}
    ev("message_start", message=start)
    ev("ping")
    index = 0

    def text(pieces: Sequence[str]) -> None:
        nonlocal index
        ev("content_block_start", index=index, content_block={"type": "text", "text": ""})
        for piece in pieces:
            delta = {"type": "text_delta", "text": piece}
            ev("content_block_delta", True, index=index, delta=delta)
        ev("content_block_stop", index=index)
        index += 1

    text(intro)
    if args:
        block = {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}
        ev("content_block_start", True, index=index, content_block=block)
        for piece in args:
            delta = {"type": "input_json_delta", "partial_json": piece}
            ev("content_block_delta", True, index=index, delta=delta)
        ev("content_block_stop", mark="done", index=index)
        index += 1
    if after:
        text(after)
    reason = "tool_use" if args else "end_turn"
    ev("message_delta", delta={"stop_reason": reason}, usage={"output_tokens": 10})
    ev("message_stop")
    return out


BODIES: dict[str, Callable[[Sequence[str], Sequence[str], Sequence[str]], list[Out]]] = {
    "openai-chat": chat_body,
    "openai-responses": responses_body,
    "anthropic-messages": anthropic_body,
}


def call_response(
    wire: str, prose_seconds: float, rate: float, arguments: str = CALL_ARGS
) -> list[Out]:
    return BODIES[wire](tokens(INTRO), tokens(arguments), prose(prose_seconds, rate))


def closing_response(wire: str) -> list[Out]:
    return BODIES[wire](tokens(CLOSING), (), ())


# --------------------------------------------------------------------------- the server


@dataclass
class Script:
    """What the server answers in one run, and what it saw and when."""

    responses: list[list[Out]]
    rate: float
    marks: dict[str, float] = field(default_factory=dict)
    requests: list[tuple[float, str, str]] = field(default_factory=list)
    """(arrival, method, path) of every request."""


class Server:
    """A loopback endpoint for every wire (the three POST paths; any GET is a 404)."""

    def __init__(self) -> None:
        self.script: Script | None = None
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}/v1"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        arrived = now()
        script = self.script
        if script is not None:
            script.requests.append((arrived, request.method, request.path))
        if request.method != "POST" or request.path not in PATHS.values() or script is None:
            return web.json_response({"error": {"message": "not here"}}, status=404)
        await request.read()
        if not script.responses:
            return web.json_response({"error": {"message": "no more responses"}}, status=500)
        body = script.responses.pop(0)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        loop = asyncio.get_running_loop()
        begin = loop.time()
        emitted = 0
        try:
            for out in body:
                if out.token and script.rate > 0:
                    emitted += 1
                    delay = begin + emitted / script.rate - loop.time()
                    if delay > 0:
                        await asyncio.sleep(delay)
                if out.mark:  # stamped as the write begins (after it, the client may be first)
                    script.marks[out.mark] = now()
                await resp.write(out.data)
            script.marks.setdefault("end", now())
            await resp.write_eof()
        except ConnectionError:
            pass
        return resp


class ThreadedServer:
    """``Server`` on its own event loop in a thread: the loop under test never delays
    the server's writes, and both read one clock (``perf_counter``)."""

    def __init__(self) -> None:
        self.server = Server()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> Server:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self._loop).result(10)
        return self.server

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


# --------------------------------------------------------------------------- (a) eager start


@dataclass
class Eager:
    wire: str
    mode: str
    done: float
    """Seconds from the done event to ToolStarted."""
    end: float
    """Seconds from the stream's end to ToolStarted (negative: before the end)."""
    ready: float
    """Seconds from the done event to CallReady."""
    stream: float
    """Seconds from the first request to the stream's end."""


async def eager_once(
    server: Server, wire: str, mode: str, args: argparse.Namespace, store: SessionStore, base: Path
) -> Eager:
    script = Script(
        [call_response(wire, args.prose_seconds, args.rate), closing_response(wire)], args.rate
    )
    stamps: dict[str, float] = {}
    results: list[str] = []
    ended: list[TurnEnded] = []

    def observe(event: Event) -> None:
        if isinstance(event, CallReady):
            stamps.setdefault("ready", now())
        elif isinstance(event, ToolStarted):
            stamps.setdefault("started", now())
        elif isinstance(event, ToolFinished):
            results.append(event.result.kind)
        elif isinstance(event, TurnEnded):
            ended.append(event)

    with tempfile.TemporaryDirectory(prefix="frontier-wires-", dir=base) as tmp:
        workspace = Path(tmp)
        (workspace / "notes.txt").write_text(NOTES)
        sid = store.create_session(str(workspace), "m", server.url, mode)
        registry = default_registry()
        boundary = ToolBoundary(
            registry, workspace, PolicyApprover("auto"), store.persistence(sid), emit=observe
        )
        adapter = codec(wire)
        client = ModelClient(adapter, server.url, "m", "bench-key")
        loop = AgentLoop(
            client=client,
            boundary=boundary,
            registry=registry,
            mode=get_mode(mode),
            emit=observe,
            store=store,
            session_id=sid,
            max_turns=3,
            signals_call_done=adapter.signals_call_done,
        )
        server.script = script
        try:
            await loop.send("Read notes.txt.")
        finally:
            server.script = None
            await client.aclose()
    reason = ended[-1].reason if ended else "no TurnEnded"
    if reason != "done" or results != ["ok"] or "started" not in stamps:
        raise SystemExit(
            f"{wire} {mode}: the turn ended {reason!r} with results {results} (expected one "
            f"ok read); fix the script in bench/wires.py before trusting figures"
        )
    done, end = script.marks["done"], script.marks["end"]
    first = script.requests[0][0]
    started = stamps["started"]
    return Eager(wire, mode, started - done, started - end, stamps["ready"] - done, end - first)


def _ms(values: Sequence[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    if len(ms) == 1:
        return f"{ms[0]:9.1f}"
    return f"{statistics.median(ms):9.1f} ({ms[0]:.1f} … {ms[-1]:.1f})"


def _s(values: Sequence[float]) -> str:
    s = sorted(values)
    if len(s) == 1:
        return f"{s[0]:+7.3f}"
    return f"{statistics.median(s):+7.3f} ({s[0]:+.3f} … {s[-1]:+.3f})"


async def eager(args: argparse.Namespace) -> None:
    print(
        f"\n(a) eager start: a complete read call, then {args.prose_seconds:g} s of prose at "
        f"{args.rate:g} tokens/s; {args.repeats} runs per wire and mode, interleaved; median "
        "(min … max)"
    )
    runs: list[Eager] = []
    with tempfile.TemporaryDirectory(prefix="frontier-wires-") as tmp, ThreadedServer() as server:
        base = Path(tmp)
        store = SessionStore.open(base / "sessions.db")
        try:
            for _ in range(args.warmup):  # imports, first connection, first commit
                await eager_once(server, WIRES[0], MODES[0], args, store, base)
            for r in range(args.repeats):
                for wire in WIRES:
                    for mode in MODES:
                        runs.append(await eager_once(server, wire, mode, args, store, base))
                print(f"  repeat {r + 1}/{args.repeats} done", flush=True)
        finally:
            store.close()
    head = (
        f"{'wire':<19} {'mode':<11} {'done event':<19} {'start - done ms':<28} "
        f"{'start - end s':<28} {'ready - done ms':<28} {'stream s':>8}"
    )
    print(head)
    print("-" * len(head))
    for wire in WIRES:
        for mode in MODES:
            rs = [r for r in runs if r.wire == wire and r.mode == mode]
            print(
                f"{wire:<19} {mode:<11} {DONE_EVENT[wire]:<19} {_ms([r.done for r in rs]):<28} "
                f"{_s([r.end for r in rs]):<28} {_ms([r.ready for r in rs]):<28} "
                f"{statistics.median(r.stream for r in rs):8.3f}"
            )
    ref = [r.end for r in runs if r.mode == "native-eos"]
    print(
        "reference, same run: native-eos start - end over every wire "
        f"{_s(ref).strip()} s (it waits for the end by design)"
    )


# --------------------------------------------------------------------------- (b) first request


def make_session(root: Path, env: dict[str, str], responses: int = 1, native: bool = False) -> str:
    """A stored session, made by ``frontier run`` against this file's loopback server: in
    ``root/ws`` (made if missing), ``responses`` responses each reading a line of
    ``notes.txt`` (a native call with ``native``, else the wire's call in the session's
    default mode), then one closing answer; its id. Each call reads another line: the
    same call answered the same way three times is refused, and the turn stopped, as a
    model repeating itself (stop 57)."""
    ws = root / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "notes.txt").write_text(NOTES * max(responses, 1))
    with ThreadedServer() as server:
        bodies = [call_response("openai-chat", 0.0, 0.0, _read_line(n)) for n in range(responses)]
        server.script = Script([*bodies, closing_response("openai-chat")], 0.0)
        argv = [*frontier_argv(), "run", "--prompt", "read notes.txt", "--base-url"]
        argv += [server.url, "--model", "m", "--wire", "openai-chat", "--workspace", str(ws)]
        argv += ["--approval", "auto", "--max-turns", str(responses + 1)]
        argv += ["--protocol", "native-inc"] if native else []
        done = subprocess.run(argv, env=env, capture_output=True, check=False, cwd=ws)
        if done.returncode != 0:
            raise SystemExit(f"frontier run: exit {done.returncode}\n{done.stderr.decode()}")
    listed = subprocess.run(
        [*frontier_argv(), "sessions", "--json"], env=env, capture_output=True, check=True
    )
    return str(json.loads(listed.stdout)[0]["id"])


def _read_line(n: int) -> str:
    return CALL_ARGS if n == 0 else json.dumps({"path": "notes.txt", "offset": n + 1, "limit": 1})


def frontier_argv() -> list[str]:
    script = Path(sys.executable).with_name("frontier")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "frontier.app.cli"]


def baseline_script(root: Path) -> list[str]:
    """The console script as pip writes it, calling the tree's ``cli.entry`` (or, in a tree
    older than stop 34, which has none, ``cli.main``); ``-m`` would time ``runpy`` as well."""
    script = root / "frontier-baseline"
    script.write_text(
        "import re\nimport sys\nfrom frontier.app import cli\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(getattr(cli, 'entry', cli.main)())\n"
    )
    return [sys.executable, str(script)]


@dataclass
class Start:
    first_any: float | None
    first_model: float | None
    total: float
    before: list[tuple[float, str]]
    """(seconds from spawn, "METHOD path") of the requests before the model request."""
    rc: int
    stderr: bytes = b""
    t0: float = 0.0
    """``perf_counter()`` just before the spawn."""


async def start_once(
    server: Server, argv: list[str], env: dict[str, str], wire: str | None, timeout: float
) -> Start:
    script = Script([closing_response(wire)] if wire else [], 0.0)
    server.script = script
    t0 = now()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        _, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        _, err = await proc.communicate()
    total = now() - t0
    server.script = None
    model = [
        t for t, method, path in script.requests if method == "POST" and path in PATHS.values()
    ]
    first_model = model[0] - t0 if model else None
    before = [
        (t - t0, f"{method} {path}")
        for t, method, path in script.requests
        if first_model is None or t - t0 < first_model
    ]
    first_any = script.requests[0][0] - t0 if script.requests else None
    return Start(first_any, first_model, total, before, proc.returncode or 0, err, t0)


def _p50_min(values: Sequence[float]) -> str:
    if not values:
        return f"{'-':>14}"
    return f"{statistics.median(values):7.3f} {min(values):6.3f}"


HARNESS = """
import socket, sys, time, json
marks = {"ready": time.perf_counter()}
connect = socket.socket.connect
def connecting(self, address):
    if "connect" not in marks:
        marks["connect"] = time.perf_counter()
        sys.stderr.write("%s\\n" % MARK)
        sys.stderr.flush()
    return connect(self, address)
socket.socket.connect = connecting
import frontier.app.model.catalogue as catalogue
original = catalogue._catalogue
def timed():
    began = time.perf_counter()
    try:
        return original()
    finally:
        marks.setdefault("catalogue", time.perf_counter() - began)
catalogue._catalogue = timed
from frontier.app.cli import main
sys.argv = ["frontier", *sys.argv[1:]]
try:
    code = main()
finally:
    sys.stderr.write("%s %s\\n" % (MARK, json.dumps(marks)))
sys.exit(code)
"""
"""``frontier run`` as ``python -c HARNESS run ...``: the same ``main``, with the moment the
interpreter is ready, the first connection (``socket.connect``; a line ``MARK`` on stderr,
among the ``-X importtime`` lines, so the imports before it can be told from those after)
and the duration of the first ``catalogue._catalogue()`` call (the model catalogue read and
its patterns compiled) written to stderr at exit. ``perf_counter`` is CLOCK_MONOTONIC on
Linux: the same clock in every process."""
MARK = "@@bench-wires@@"


def importtime_rows(text: str) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """``-X importtime`` lines as (self us, cumulative us, name): before and after the
    harness's first-connection mark."""
    before: list[tuple[int, int, str]] = []
    after: list[tuple[int, int, str]] = []
    rows = before
    for line in text.splitlines():
        if line == MARK:
            rows = after
            continue
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        parts = line[len("import time:") :].split("|")
        if len(parts) != 3:
            continue
        try:
            rows.append((int(parts[0]), int(parts[1]), parts[2].rstrip()))
        except ValueError:
            continue
    return before, after


def importtime_table(rows: list[tuple[int, int, str]], top: int) -> list[str]:
    lines: list[str] = []
    lines.append(f"  top {top} by cumulative time (s), nesting as printed by -X importtime:")
    for _, cum, name in sorted(rows, key=lambda r: -r[1])[:top]:
        lines.append(f"    {cum / 1e6:7.3f}  {name}")
    lines.append(f"  top {top} by self time (s):")
    for own, _, name in sorted(rows, key=lambda r: -r[0])[:top]:
        lines.append(f"    {own / 1e6:7.3f}  {name.strip()}")
    return lines


async def first_request(args: argparse.Namespace) -> None:
    wires = args.wires
    print(
        f"\n(b) first-request latency: `frontier run --prompt hi --base-url "
        f"http://127.0.0.1:PORT/v1 --model m --wire W` vs `python -c pass`, {args.starts} "
        "starts each, alternating; seconds from spawn; workspace: "
        + (
            f"a git repository of {args.repo_files:,} files"
            if args.repo_files
            else "an empty folder (no git)"
        )
    )
    server = Server()
    await server.start()
    with tempfile.TemporaryDirectory(prefix="frontier-wires-start-") as tmp:
        root = Path(tmp)
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPROFILEIMPORTTIME")
            and not k.startswith("FRONTIER_")
        }
        env |= {
            "PYTHONPYCACHEPREFIX": str(root / "pycache"),
            "FRONTIER_DATA_DIR": str(root / "data"),
            "FRONTIER_CONFIG_DIR": str(root / "config"),
            "FRONTIER_API_KEY": "bench-key",
        }
        (root / "ws").mkdir()
        if args.repo_files:
            make_repo(root / "ws", args.repo_files)

        def frontier(wire: str) -> list[str]:
            return [
                *frontier_argv(),
                "run",
                "--prompt",
                "hi",
                "--base-url",
                server.url,
                "--model",
                "m",
                "--wire",
                wire,
                "--workspace",
                str(root / "ws"),
            ]

        reference = [sys.executable, "-c", "pass"]
        cases: list[tuple[str, list[str], str | None, dict[str, str]]] = [
            ("python -c pass", reference, None, env)
        ]
        cases += [(wire, frontier(wire), wire, env) for wire in wires]
        if args.baseline:
            # an older tree (``git archive REV`` unpacked as DIR/frontier): no ``--wire``,
            # which it may not know; a loopback URL means Chat Completions to every version
            old_env = {**env, "PYTHONPATH": str(Path(args.baseline).resolve())}
            old_env["PYTHONPYCACHEPREFIX"] = str(root / "pycache-baseline")
            old_env["FRONTIER_DATA_DIR"] = str(root / "data-baseline")  # its own schema
            no_wire = [a for a in frontier("openai-chat") if a not in ("--wire", "openai-chat")]
            no_wire = [*baseline_script(root), *no_wire[len(frontier_argv()) :]]
            cases.append(("openai-chat, baseline", no_wire, "openai-chat", old_env))
        results: dict[str, list[Start]] = {name: [] for name, _, _, _ in cases}
        try:
            for name, argv, wire, case_env in cases:  # warm-up: bytecode is written
                warm = await start_once(server, argv, case_env, wire, args.timeout)
                if wire and warm.first_model is None:
                    raise SystemExit(
                        f"{name}: no model request arrived (exit {warm.rc}); stderr:\n"
                        + warm.stderr.decode("utf-8", "replace")[-2000:]
                    )
            for _ in range(args.starts):
                for name, argv, wire, case_env in cases:
                    run = await start_once(server, argv, case_env, wire, args.timeout)
                    results[name].append(run)
            breakdown: Breakdown | None = None
            if wires and args.breakdown:
                breakdown = await measure_breakdown(
                    server, frontier(wires[0])[len(frontier_argv()) :], env, wires[0], args
                )
        finally:
            await server.stop()
    ref = statistics.median(s.total for s in results["python -c pass"])
    print(
        f"{'process':<21} {'first model request':>20} {'first request':>15} "
        f"{'whole process':>15} {'p50 ÷ python':>13}  requests before the model request"
    )
    print(f"{'':<21} {'p50     min':>20} {'p50    min':>15} {'p50    min':>15}")
    for name, starts in results.items():
        model = [s.first_model for s in starts if s.first_model is not None]
        anyreq = [s.first_any for s in starts if s.first_any is not None]
        total = [s.total for s in starts]
        mine = statistics.median(model) if model else statistics.median(total)
        before = ""
        if starts and starts[0].before:
            seen: dict[str, list[float]] = {}
            for s in starts:
                for t, what in s.before:
                    seen.setdefault(what, []).append(t)
            before = ", ".join(f"{w} @{statistics.median(ts):.3f}" for w, ts in seen.items())
        print(
            f"{name:<21} {_p50_min(model):>20} {_p50_min(anyreq):>15} {_p50_min(total):>15} "
            f"{mine / ref:12.1f}x  {before}"
        )
    print(
        f"goal: the first model request within 0.400 s of start; python -c pass p50 {ref:.3f} s "
        "in the same run"
    )
    if breakdown is not None:
        print_breakdown(wires[0], breakdown, args.importtime)


def make_repo(ws: Path, files: int) -> None:
    """``ws`` as a git repository of ``files`` small committed files, 250 to a folder: the
    session's environment runs ``git status`` there before the first request (an empty
    folder is no repository, and git never ran)."""
    for i in range(files):
        folder = ws / "src" / f"d{i // 250}"
        if i % 250 == 0:
            folder.mkdir(parents=True)
        (folder / f"f{i % 250}.py").write_text(f"x = {i}\n")
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    for argv in (["init", "-q"], ["add", "-A"], [*identity, "commit", "-q", "-m", "files"]):
        subprocess.run(["git", *argv], cwd=ws, check=True, capture_output=True)
    subprocess.run(["git", "status"], cwd=ws, check=True, capture_output=True)  # warm


def _marks(run: Start) -> dict[str, float]:
    """The harness's stamps, as seconds from the spawn (``catalogue``: a duration)."""
    for line in reversed(run.stderr.decode("utf-8", "replace").splitlines()):
        if line.startswith(MARK + " "):
            raw: dict[str, float] = json.loads(line[len(MARK) + 1 :])
            return {k: v if k == "catalogue" else v - run.t0 for k, v in raw.items()}
    raise SystemExit(
        "the harness wrote no marks; stderr:\n" + run.stderr.decode("utf-8", "replace")[-2000:]
    )


@dataclass
class Breakdown:
    harnessed: list[tuple[Start, dict[str, float]]]
    imports: list[float]
    """In-process times of importing the modules the run imported before its first
    connection, and nothing else, each in a fresh process."""
    modules: list[str]
    profile: tuple[dict[str, float], str]
    without_cli: list[float] = field(default_factory=list)
    """The same imports with ``click`` made unimportable: httpx then skips its command-line
    client (``httpx._main``: click, pygments, rich), as in an install without the test
    extras (``click`` comes with import-linter)."""
    own: list[float] = field(default_factory=list)
    """The same imports with every other module (stdlib, third party) imported first,
    untimed: Frontier's own modules."""


async def measure_breakdown(
    server: Server, run_args: list[str], env: dict[str, str], wire: str, args: argparse.Namespace
) -> Breakdown:
    """One harnessed start under ``-X importtime`` (which modules are imported before the
    first connection), then ``--breakdown`` rounds of: a harnessed start, and a process
    importing just those modules (timed inside it)."""
    harness = [sys.executable, "-c", f"MARK = {MARK!r}\n{HARNESS}", *run_args]
    prof_env = {**env, "PYTHONPROFILEIMPORTTIME": "1"}
    run = await start_once(server, harness, prof_env, wire, args.timeout)
    text = run.stderr.decode("utf-8", "replace")
    before, _ = importtime_rows(text)
    modules = list(dict.fromkeys(n.strip() for _, _, n in before if not n.startswith("  ")))
    modules = [m for m in modules if m != "frontier.app.model.catalogue"] + [
        "frontier.app.model.catalogue"  # the harness imports it first; the run needs it too
    ]
    others = list(
        dict.fromkeys(n.strip() for _, _, n in before if not n.strip().startswith("frontier"))
    )
    code = (
        "import importlib, sys, time\n"
        "def load(names):\n    for m in names:\n"
        "        try:\n            importlib.import_module(m)\n"
        "        except ImportError:\n            pass  # tried and missed by the run too\n"
        "if sys.argv[1:] == ['no-click']:\n    sys.modules['click'] = None\n"
        f"if sys.argv[1:] == ['frontier']:\n    load({others!r})\n"
        "began = time.perf_counter()\n"
        f"load({modules!r})\n"
        "sys.stderr.write(repr(time.perf_counter() - began))\n"
    )
    out = Breakdown([], [], modules, (_marks(run), text))
    for _ in range(args.breakdown):
        run = await start_once(server, harness, env, wire, args.timeout)
        out.harnessed.append((run, _marks(run)))
        variants = (([], out.imports), (["no-click"], out.without_cli), (["frontier"], out.own))
        for variant, into in variants:
            only = [sys.executable, "-c", code, *variant]
            done = await start_once(server, only, env, None, args.timeout)
            into.append(float(done.stderr.decode().strip().splitlines()[-1]))
    return out


def print_breakdown(wire: str, b: Breakdown, top: int) -> None:
    def p50(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    runs = b.harnessed
    ready = p50([m["ready"] for _, m in runs])
    connect = p50([m["connect"] for _, m in runs if "connect" in m])
    model = p50([s.first_model for s, _ in runs if s.first_model is not None])
    catalogue = p50([m["catalogue"] for _, m in runs if "catalogue" in m])
    imports = p50(b.imports)
    cli = imports - p50(b.without_cli)
    own = p50(b.own)
    rest = connect - ready - imports - catalogue
    print(
        f"\nwhere the time goes: `frontier run --wire {wire}` in a harness (the same main, "
        f"stamped), p50 of {len(runs)}, alternating with the import-only processes:"
    )
    rows = [
        ("interpreter ready (the harness's first line), from spawn", ready),
        (f"imports: the {len(b.modules)} top-level modules the run imports before its first "
         "connection, imported alone in a fresh process (timed inside it)", imports),
        ("  of which Frontier's own modules (the others imported first, untimed)", own),
        ("  of which httpx's command-line client (click, pygments, rich: only because click is "
         "installed, by the test extras)", cli),
        ("the model catalogue's first lookup (file read, patterns compiled)", catalogue),
        ("the rest of the start-up (arguments, config, store, session, instructions, ...)", rest),
        ("= first connection (socket.connect), from spawn", connect),
        ("probes (GET /props, /models) until the model request arrives", model - connect),
        ("= first model request, from spawn", model),
    ]  # fmt: skip
    for name, value in rows:
        print(f"  {value:7.3f}  {name}")
    print("  (the rest: a difference of p50s of different processes, a rough figure)")
    marks, text = b.profile
    before, after = importtime_rows(text)
    top_before = sum(cum for _, cum, name in before if not name.startswith("  ")) / 1e6
    top_after = sum(cum for _, cum, name in after if not name.startswith("  ")) / 1e6
    print(
        f"\n-X importtime, one harnessed start (profiling adds its own time: first connection "
        f"{marks.get('connect', float('nan')):.3f} s in that run); imports before the first "
        f"connection {top_before:.3f} s, after it {top_after:.3f} s:"
    )
    print("\n".join(importtime_table(before, top)))


# --------------------------------------------------------------------------- (c) transducer


def transducer(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from transducer import case_processes  # bench/transducer.py

    trees: list[tuple[str, str | None]] = [("this tree", None)]
    if args.baseline:
        trees.append(("baseline", str(Path(args.baseline).resolve())))
    rounds = args.transducer_rounds if args.baseline else 1
    print(
        "\n(c) transducer throughput, whole processes (bench/transducer.py --process)"
        + (f"; {rounds} rounds, this tree and the baseline alternating" if args.baseline else "")
    )
    print(f"{'':<62} {'ctl s':>8} {'json s':>8} {'ratio':>6}  faults ctl/json")
    ratios: dict[str, list[float]] = {name: [] for name, _ in trees}
    saved = os.environ.get("PYTHONPATH")
    try:
        for _ in range(rounds):
            for tree, path in trees:
                if path is None:
                    os.environ.pop("PYTHONPATH", None)
                    if saved is not None:
                        os.environ["PYTHONPATH"] = saved
                else:
                    os.environ["PYTHONPATH"] = path
                name, ours, ref, f_ours, f_ref = case_processes(64)
                ratios[tree].append(ref / ours)
                label = f"{tree}: {name.split(',')[0]}"
                print(f"{label:<62} {ours:8.3f} {ref:8.3f} {ref / ours:6.2f}  {f_ours}/{f_ref}")
    finally:
        os.environ.pop("PYTHONPATH", None)
        if saved is not None:
            os.environ["PYTHONPATH"] = saved
    for tree, values in ratios.items():
        print(
            f"  {tree}: ratio {min(values):.2f}–{max(values):.2f} (json.loads time / ctl time, "
            "best of 3 each; target >= 2.0)"
        )


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--only",
        default="eager,first,transducer",
        help="comma-separated parts: eager, first, transducer (default all)",
    )
    ap.add_argument("--prose-seconds", type=float, default=3.0, help="prose after the call")
    ap.add_argument("--rate", type=float, default=50.0, help="tokens (events) per second")
    ap.add_argument("--repeats", type=int, default=3, help="(a) runs per wire and mode")
    ap.add_argument("--warmup", type=int, default=1, help="(a) untimed runs first")
    ap.add_argument("--starts", type=int, default=7, help="(b) timed starts per process")
    ap.add_argument(
        "--wires", default=",".join(WIRES), help="(b) comma-separated wires (default all)"
    )
    ap.add_argument(
        "--breakdown", type=int, default=5, help="(b) harnessed starts (0: no breakdown)"
    )
    ap.add_argument(
        "--importtime", type=int, default=20, help="(b) top imports to print (0: no profile run)"
    )
    ap.add_argument("--timeout", type=float, default=60.0, help="(b) seconds per process")
    ap.add_argument(
        "--repo-files",
        type=int,
        default=0,
        metavar="N",
        help="(b) the workspace is a git repository of N committed files (default: an empty "
        "folder, where the session's environment runs no git)",
    )
    ap.add_argument(
        "--baseline",
        metavar="DIR",
        help="(b) also start an older tree, unpacked as DIR/frontier (`git archive REV | tar -x "
        "-C DIR/frontier`), with PYTHONPATH=DIR, in the same alternation; (c) too",
    )
    ap.add_argument(
        "--transducer-rounds", type=int, default=3, help="(c) rounds with --baseline (default 3)"
    )
    args = ap.parse_args()
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    unknown = parts - {"eager", "first", "transducer"}
    if unknown:
        ap.error(f"unknown part(s) {', '.join(sorted(unknown))}")
    args.wires = [w for w in args.wires.split(",") if w]
    for wire in args.wires:
        if wire not in WIRES:
            ap.error(f"unknown wire {wire!r}; choose from {', '.join(WIRES)}")
    print(
        f"python {platform.python_version()}, {os.cpu_count()} cpus, load {os.getloadavg()}; "
        f"command: {' '.join(['python', *sys.argv])}"
    )
    if "eager" in parts:
        asyncio.run(eager(args))
    if "first" in parts:
        asyncio.run(first_request(args))
    if "transducer" in parts:
        transducer(args)
    print(f"\nload after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
