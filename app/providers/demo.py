"""The built-in demo model: a scripted chat-completions server inside an httpx transport.

``DemoTransport`` speaks the real wire format (SSE ``chat.completion.chunk``\\ s,
``delta.content`` or ``delta.tool_calls`` pieces, ``finish_reason``, a usage chunk,
``[DONE]``) so the *whole* client path — ``OpenAIProvider``, SSE parsing, the mode
adapters, the transducers — runs exactly as against a real endpoint, with no
socket, key or network. It is stateless: the step is derived from the request's
``messages`` (one model response per assistant message already there), so
resumed sessions and repairs land on the right step.

The script itself is in ``demo_script.py``; the sample project the task works on
is ``frontier/app/demo_project`` (copy it with ``make_demo_workspace``).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import httpx

from frontier.app.providers.demo_script import (
    DEMO_MODEL,
    MODES,
    Step,
    closing_step,
    render_text,
    script,
)
from frontier.app.providers.openai import OpenAIProvider
from frontier.app.vocab import NATIVE_MODES
from frontier.app.wire.sse import encode_sse

DEMO_BASE_URL = "http://demo.invalid/v1"
"""Never resolved: requests go to the transport, not the network."""
DEFAULT_RATE = 60.0
"""Tokens per second, about a local 7B model on a laptop GPU."""
DEFAULT_TTFT = 0.3
"""Seconds before the first token (when ``rate > 0``): the model "reads the prompt"."""

_TOKEN = re.compile(r" ?\w{1,6}| ?[^\w\s]{1,3}|\s", re.UNICODE)

Sleep = Callable[[float], Awaitable[Any]]


def split_tokens(text: str) -> list[str]:
    """Pieces of about one token (a word part, a punctuation run, one whitespace).

    The pieces concatenate back to ``text`` exactly; streaming them one per chunk
    makes frames arrive split at arbitrary points, as real models do.
    """
    return _TOKEN.findall(text)


def step_index(messages: list[dict[str, Any]]) -> int:
    """Which scripted response this request asks for.

    One per assistant message so far; the count of user messages after the task
    covers a response whose kept text was empty (a loop may then append only the
    feedback message).
    """
    roles = [m.get("role") for m in messages if isinstance(m, dict)]
    return max(roles.count("assistant"), roles.count("user") - 1, 0)


def was_declined(messages: list[dict[str, Any]]) -> bool:
    """Did the feedback to the last response report a denied approval (``[denied]``)?"""
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") == "assistant":
            return False
        content = message.get("content")
        if isinstance(content, str) and "[denied]" in content:
            return True
    return False


def pick_step(mode: str, messages: list[dict[str, Any]]) -> Step:
    steps = script(mode)
    index = step_index(messages)
    if index > 0 and was_declined(messages):
        return closing_step(mode, declined=True)
    if index < len(steps):
        return steps[index]
    return closing_step(mode, declined=False)


# --------------------------------------------------------------------------- wire form


def _chunk(model: str, index: int, delta: dict[str, Any], finish: str | None = None) -> dict:
    return {
        "id": f"chatcmpl-demo-{index}",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def stream_chunks(
    step: Step, mode: str, *, model: str = DEMO_MODEL, index: int = 0, prompt_tokens: int = 0
) -> Iterator[tuple[dict[str, Any], int]]:
    """The step as ``(chunk, tokens)`` pairs in stream order; ``tokens`` paces it."""
    native = mode in NATIVE_MODES
    yield _chunk(model, index, {"role": "assistant", "content": ""}), 0
    text = step.prose if native else render_text(step, mode)
    completion = 0
    for piece in split_tokens(text):
        completion += 1
        yield _chunk(model, index, {"content": piece}), 1
    if native:
        for i, call in enumerate(step.calls):
            head = {"index": i, "id": call.id, "type": "function"}
            head["function"] = {"name": call.name, "arguments": ""}
            completion += 1
            yield _chunk(model, index, {"tool_calls": [head]}), 1
            for piece in split_tokens(json.dumps(call.arguments())):
                completion += 1
                delta = {"tool_calls": [{"index": i, "function": {"arguments": piece}}]}
                yield _chunk(model, index, delta), 1
    yield _chunk(model, index, {}, step.finish), 0
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": prompt_tokens + completion,
    }
    yield {**_chunk(model, index, {}), "choices": [], "usage": usage}, 0


class _PacedSSE(httpx.AsyncByteStream):
    """SSE bytes, one event per chunk, released at ``rate`` tokens per second."""

    def __init__(
        self, chunks: list[tuple[dict[str, Any], int]], rate: float, ttft: float, sleep: Sleep
    ) -> None:
        self._chunks = chunks
        self._rate = rate
        self._ttft = ttft
        self._sleep = sleep
        self._gen: AsyncIterator[bytes] | None = None

    def __aiter__(self) -> AsyncIterator[bytes]:
        self._gen = self._events()
        return self._gen

    async def _events(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        start = loop.time() + (self._ttft if self._rate > 0 else 0.0)
        emitted = 0
        for chunk, tokens in self._chunks:
            emitted += tokens
            if self._rate > 0 and tokens:
                delay = start + emitted / self._rate - loop.time()
                if delay > 0:
                    await self._sleep(delay)
            else:
                await asyncio.sleep(0)  # as fast as possible, but let the UI and tools run
            yield encode_sse([json.dumps(chunk, ensure_ascii=False)])
        yield encode_sse(["[DONE]"])

    async def aclose(self) -> None:
        if self._gen is not None:
            await self._gen.aclose()  # type: ignore[attr-defined]


class DemoTransport(httpx.AsyncBaseTransport):
    """The scripted model for ``mode`` (one of ``MODES``) at ``rate`` tokens/s (0 = no delay)."""

    def __init__(
        self,
        mode: str,
        rate: float = DEFAULT_RATE,
        *,
        ttft: float | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if mode not in MODES:
            raise ValueError(
                f"the demo model has no script for protocol {mode!r}; use one of {', '.join(MODES)}"
            )
        if rate < 0:
            raise ValueError(f"demo token rate must be >= 0 tokens/s (0 = no delay), got {rate}")
        self.mode = mode
        self.rate = rate
        self.ttft = DEFAULT_TTFT if ttft is None else ttft
        self._sleep = sleep
        self.requests = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            listing = {"object": "list", "data": [{"id": DEMO_MODEL, "object": "model"}]}
            return httpx.Response(200, json=listing)
        if request.method != "POST" or not path.endswith("/chat/completions"):
            error = {
                "error": {"message": f"the demo model serves POST /chat/completions, not {path}"}
            }
            return httpx.Response(404, json=error)
        try:
            body = json.loads(await request.aread())
            messages = body["messages"]
            if not isinstance(messages, list):
                raise TypeError("messages is not a list")
        except (ValueError, KeyError, TypeError) as exc:
            error = {"error": {"message": f"invalid chat completions request: {exc}"}}
            return httpx.Response(400, json=error)
        index = self.requests
        self.requests += 1
        step = pick_step(self.mode, messages)
        prompt_tokens = math.ceil(len(json.dumps(messages)) / 4)
        chunks = list(
            stream_chunks(
                step,
                self.mode,
                model=str(body.get("model") or DEMO_MODEL),
                index=index,
                prompt_tokens=prompt_tokens,
            )
        )
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream; charset=utf-8"},
            stream=_PacedSSE(chunks, self.rate, self.ttft, self._sleep),
        )


def demo_provider(mode: str, rate: float = DEFAULT_RATE, **kwargs: Any) -> OpenAIProvider:
    """An ``OpenAIProvider`` wired to the demo model (what ``frontier demo`` uses)."""
    return OpenAIProvider(DEMO_BASE_URL, DEMO_MODEL, transport=DemoTransport(mode, rate, **kwargs))


# --------------------------------------------------------------------------- sample project


def demo_project_dir() -> Path:
    """The bundled sample project (read-only package data; never work in it)."""
    return Path(str(resources.files("frontier.app").joinpath("demo_project")))


def make_demo_workspace(dest: Path) -> Path:
    """Copy the sample project into ``dest`` (created; must be empty) and return it.

    The demo only ever touches this scratch copy, never the user's files.
    """
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"demo workspace {dest} is not empty; choose a new directory")
    shutil.copytree(
        demo_project_dir(),
        dest,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    return dest


__all__ = [
    "DEFAULT_RATE",
    "DEMO_BASE_URL",
    "DemoTransport",
    "demo_project_dir",
    "demo_provider",
    "make_demo_workspace",
    "pick_step",
    "split_tokens",
    "step_index",
    "stream_chunks",
]
