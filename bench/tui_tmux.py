"""Shared by the TUI benchmarks that drive a real terminal: a loopback model that
streams fast, and the ``frontier`` TUI in a detached tmux session.

Not a benchmark itself. ``StreamServer`` answers ``POST /v1/chat/completions`` with a
long Markdown reply, one token (~4 characters) per SSE event at ``rate`` tokens/s,
for ``seconds`` (any other request is a 404, as for a server without ``/props``);
it counts what it sent, so a client that cannot keep up shows as a lower rate.
``TmuxApp`` runs a command in a tmux session of a fixed size and reads the screen
as a user sees it (``capture-pane``) and the process's CPU time (``/proc``).

The reply never holds a capital ``Q``: the keystroke bench types ``Q`` and counts
them on the screen.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
FRONTIER = ROOT / ".venv" / "bin" / "frontier"
PYTHON = ROOT / ".venv" / "bin" / "python"
CLK_TCK = os.sysconf("SC_CLK_TCK")

_SENTENCE = (
    "the parser keeps its flags while each caller passes the value on and the tests "
    "cover every branch of the new code path before anything else changes in the module"
)
WORDS = tuple(_SENTENCE.split(" "))


def reply_pieces() -> itertools.cycle[str]:
    """An endless Markdown reply, token-sized: paragraphs, lists, tables and fences."""
    parts: list[str] = []
    for n in range(12):
        parts.append(f"## Part {n}\n\n")
        for i in range(60):
            parts.append(f"{WORDS[(i * 7 + n) % len(WORDS)]} ")
        parts.append("*grows* and **compute** takes `value`.\n\n")
        parts += ["- the parser keeps ", "its flags\n", "- `greet()` gains ", "an argument\n\n"]
        parts += ["| file | change |\n", "|---|---|\n", f"| m.py | compute({n}) |\n\n"]
        parts += ["```python\n", f"def compute_{n}(value: int) -> int:\n", "    return value\n"]
        parts += ["```\n\n"]
    assert not any("Q" in part for part in parts)
    return itertools.cycle(parts)


class StreamServer:
    """A chat-completions endpoint on 127.0.0.1 in a thread of its own."""

    def __init__(self, rate: float, seconds: float) -> None:
        self.rate = rate
        self.seconds = seconds
        self.url = ""
        self.sent = 0
        """Tokens written so far (all responses)."""
        self.started: float | None = None
        """``perf_counter`` when the first token of a response was written."""
        self.ended: float | None = None
        self.streaming = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    def __enter__(self) -> StreamServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    @property
    def achieved(self) -> float:
        """Tokens/s actually written over the response's span (backpressure included)."""
        if self.started is None:
            return 0.0
        end = self.ended or time.perf_counter()
        return self.sent / max(1e-9, end - self.started)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}/v1"

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        if request.method != "POST" or not request.path.endswith("/chat/completions"):
            return web.json_response({"error": {"message": "not here"}}, status=404)
        await request.read()
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        loop = asyncio.get_running_loop()
        begin = loop.time()
        self.started, self.ended = time.perf_counter(), None
        self.sent = 0
        self.streaming.set()
        pieces = reply_pieces()
        try:
            while loop.time() - begin < self.seconds:
                # every 5 ms the tokens due by then, one SSE event each (as servers send)
                due = int((loop.time() - begin) * self.rate) - self.sent
                if due > 0:
                    batch = b"".join(_chunk({"content": next(pieces)}) for _ in range(due))
                    await resp.write(batch)
                    self.sent += due
                await asyncio.sleep(0.005)
            self.ended = time.perf_counter()
            await resp.write(_chunk({}, "stop") + b"data: [DONE]\n\n")
            await resp.write_eof()
        except ConnectionError:
            self.ended = time.perf_counter()
        finally:
            self.streaming.clear()
        return resp


def _chunk(delta: dict[str, str], finish: str | None = None) -> bytes:
    body = {"id": "b", "object": "chat.completion.chunk", "model": "bench"}
    body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]  # type: ignore[assignment]
    return f"data: {json.dumps(body)}\n\n".encode()


class TmuxApp:
    """A command in a detached tmux session of ``width`` × ``height`` cells."""

    def __init__(self, name: str, argv: list[str], *, width: int = 120, height: int = 40) -> None:
        self.name = f"{name}-{os.getpid()}"
        self.argv = argv
        self.width, self.height = width, height
        self._tmp = tempfile.TemporaryDirectory(prefix="frontier-bench-")
        self.home = Path(self._tmp.name)
        self.pid = 0

    def __enter__(self) -> TmuxApp:
        env = {
            "FRONTIER_DATA_DIR": str(self.home / "data"),
            "FRONTIER_CONFIG_DIR": str(self.home / "config"),
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
        }
        if os.environ.get("PYTHONPATH"):  # a baseline tree: PYTHONPATH=/tmp/base bench/...
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        command = f"cd {shlex.quote(str(self.home))} && exec env {exports} {shlex.join(self.argv)}"
        size = ("-x", str(self.width), "-y", str(self.height))
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, *size, command], check=True)
        out = subprocess.run(
            ["tmux", "display-message", "-p", "-t", self.name, "#{pane_pid}"],
            check=True,
            capture_output=True,
            text=True,
        )
        self.pid = int(out.stdout.strip())
        return self

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)
        self._tmp.cleanup()

    def screen(self) -> str:
        out = subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        )
        return out.stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        flag = ["-l"] if literal else []
        subprocess.run(["tmux", "send-keys", "-t", self.name, *flag, *keys], check=True)

    def wait_for(self, predicate: object, timeout: float = 30.0) -> str:
        """Poll the screen until ``predicate(screen)`` holds; the screen then."""
        assert callable(predicate)
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if predicate(text):
                return text
            if time.monotonic() > deadline:
                sys.stderr.write(text)
                raise TimeoutError(f"{self.name}: the screen never showed what was expected")
            time.sleep(0.02)

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pid)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` (``/proc/<pid>/stat`` fields 14 and 15)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def frontier_argv(url: str, *extra: str) -> list[str]:
    """The TUI against ``url`` (no instructions, nothing asked: the bench only streams)."""
    return [
        str(FRONTIER),
        "--base-url",
        url,
        "--model",
        "bench",
        "--wire",
        "openai-chat",
        "--no-instructions",
        "--approval",
        "auto-edit",
        *extra,
    ]


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile in ms (nearest rank, as ``bench/tui_replay.py``)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0
