"""The built-in demo model: a scripted chat-completions server inside an httpx transport.

``DemoTransport`` speaks the real Chat Completions wire (SSE ``chat.completion.chunk``\\ s,
``delta.content`` or ``delta.tool_calls`` pieces, ``finish_reason``, a usage chunk,
``[DONE]``) so the *whole* client path — the transport, SSE parsing, the chat wire's
adapter, the mode adapters, the transducers — runs exactly as against a real endpoint, with no
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

from frontier.app.model.demo_script import (
    DECLINED,
    DEMO_BASE_URL,
    DEMO_MODEL,
    FINISHED,
    MODES,
    Step,
    closing_step,
    render_text,
    script,
)
from frontier.app.model.http import httpx
from frontier.app.model.registry import codec
from frontier.app.model.transport import ModelClient
from frontier.app.record import replace
from frontier.app.vocab import NATIVE_MODES
from frontier.app.wire.sse import encode_sse

DEFAULT_RATE = 60.0
"""Tokens per second, about a local 7B model on a laptop GPU."""
DEFAULT_TTFT = 0.3
"""Seconds before the first token (when ``rate > 0``): the model "reads the prompt"."""

_TOKEN = re.compile(r" ?\w{1,6}| ?[^\w\s]{1,3}|\s", re.UNICODE)

Sleep = Callable[[float], Awaitable[Any]]
Clock = Callable[[], float]


def split_tokens(text: str) -> list[str]:
    """Pieces of about one token (a word part, a punctuation run, one whitespace).

    The pieces concatenate back to ``text`` exactly; streaming them one per chunk
    makes frames arrive split at arbitrary points, as real models do.
    """
    return _TOKEN.findall(text)


def step_index(messages: list[dict[str, Any]]) -> int:
    """Which scripted response this request asks for, if every step so far succeeded.

    One per assistant message so far; the count of user messages after the task
    covers a response whose kept text was empty (a loop may then append only the
    feedback message). :func:`pick_step` also accounts for steps that must be redone.
    """
    roles = [m.get("role") for m in messages if isinstance(m, dict)]
    return max(roles.count("assistant"), roles.count("user") - 1, 0)


UNFINISHED = ("denied", "cancelled", "interrupted", "not_executed", "not_applied")
"""Result kinds that mean a step's work did not happen: the story does not move past it."""
_KINDS = "|".join(UNFINISHED)
_UNFINISHED_FRAME = re.compile(r"result [A-Za-z0-9_.:-]{1,64} exit=\S+ \d+\n\[(" + _KINDS + r")\]")
_UNFINISHED_TOOL = re.compile(r"\[(" + _KINDS + r")\]")
_CARRIED_FRAME = re.compile(r"(^|\n)result [A-Za-z0-9_.:-]{1,64} exit=\S+ \d+\n")
_FEEDBACK = re.compile(r"result [A-Za-z0-9_.:-]{1,64} exit=\S+ \d+\n|error (truncated|contract)\b")
"""A ``user`` message the loop wrote (result frames, repair prompts), not one a person typed
(the same test as the session store's, ``session/timeline.py``)."""
CLOSING_PROSE = (DECLINED[:40], FINISHED[:40])
_CUT_SHORT = re.compile(r"\[Reply (interrupted|failed)\b[^\n]*\]\Z")
"""The marker the loop keeps after a reply the person interrupted or the server failed
(``agent/loop.py``): that reply did not do its step."""
RESUMED_PREFIX = "Picking up where we stopped. "
"""Said before a step offered again because its work did not happen."""


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _reports_unfinished(message: dict[str, Any]) -> bool:
    """A result in ``message`` says its call's work did not happen (denied, cancelled…):
    a native ``tool`` message starting ``[kind]``, or a CTL frame whose body does."""
    text = _text(message)
    if message.get("role") == "tool":
        return _UNFINISHED_TOOL.match(text) is not None
    return _UNFINISHED_FRAME.search(text) is not None


def was_declined(messages: list[dict[str, Any]]) -> bool:
    """Did the feedback to the last response report a denied approval (``[denied]``)?"""
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") == "assistant":
            return False
        content = message.get("content")
        if isinstance(content, str) and "[denied]" in content:
            return True
    return False


def story_position(messages: list[dict[str, Any]]) -> tuple[int, bool]:
    """``(step, redo)``: where the story stands, read from the conversation alone.

    Each response moves the story one step on, unless its feedback says its work did
    not happen (a call denied, cancelled, interrupted, never run): that step is then
    offered again when the person next speaks (``redo``), so the story never claims
    work that was denied or never ran. A run that stopped before recording its last
    response carries that response's results into the next typed message: they move
    the story on when they are done (the work happened: never do it twice), and leave
    it there, as a redo, when one is not. With no result at all (stopped before a call
    ran, or during its review) the step is simply offered again. A closing reply
    (declined, script complete) moves nothing.
    A response whose kept text was empty left only its feedback: that counts as it.
    """
    position = 0
    redo = False
    in_response = False  # the messages since the last typed one belong to a response
    held_back = False  # this response's step was already taken back
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        text = _text(message)
        feedback = role == "tool" or (role == "user" and _FEEDBACK.match(text) is not None)
        if role == "assistant" or (feedback and not in_response):
            in_response, held_back = True, False
            if role == "assistant" and (
                text.startswith(CLOSING_PROSE) or _CUT_SHORT.search(text.rstrip())
            ):
                held_back = True  # a closing reply, or one cut short, is no step
                continue
            position += 1
            redo = False
        if feedback and not held_back and _reports_unfinished(message):
            position, redo, held_back = max(0, position - 1), True, True
        elif role == "user" and not feedback:
            in_response = False
            if _CARRIED_FRAME.search(text):
                # results carried over from a run that stopped before recording its last
                # response: that step's work happened unless a result says otherwise
                if _reports_unfinished(message):
                    redo = True
                else:
                    position, redo = position + 1, False
    return position, redo


def _last_reply(messages: list[dict[str, Any]]) -> str | None:
    """The text of the last assistant message, if any."""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            return _text(message)
    return None


def pick_step(mode: str, messages: list[dict[str, Any]]) -> Step:
    """The response for this request: the next step of the story, the step whose work
    did not happen (offered again once the person speaks), or a closing reply."""
    steps = script(mode)
    position, redo = story_position(messages)
    if was_declined(messages):
        return closing_step(mode, declined=True)
    cut = steps[position - 1] if 0 < position < len(steps) else None
    if cut is not None and cut.finish == "length" and mode not in NATIVE_MODES:
        whole = render_text(replace(cut, cut_before=None), mode)
        if _last_reply(messages) == whole:
            position += 1  # the cut step was continued to its end (prefill): no resend is due
    if position >= len(steps):
        return closing_step(mode, declined=False)
    step = steps[position]
    if redo:
        return replace(step, prose=RESUMED_PREFIX + step.prose)
    return step


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
    step: Step,
    mode: str,
    *,
    model: str = DEMO_MODEL,
    index: int = 0,
    prompt_tokens: int = 0,
    max_tokens: int | None = None,
    prefix: str | None = None,
    echo: bool = True,
) -> Iterator[tuple[dict[str, Any], int]]:
    """The step as ``(chunk, tokens)`` pairs in stream order; ``tokens`` paces it.

    ``max_tokens`` cuts the text after that many pieces (``finish_reason: length``), as
    a server does. ``prefix``: the request ended with this assistant message and the
    step *continues* it (a text mode's whole rendering, uncut, after the prefix; from
    the start if the prefix is not the step's) — ``echo`` sends the prefix back first,
    merged with the first new piece, as llama.cpp does (docs/protocol.md, "Continuation").
    """
    native = mode in NATIVE_MODES
    yield _chunk(model, index, {"role": "assistant", "content": ""}), 0
    finish = step.finish
    if prefix is not None and not native:
        full = render_text(replace(step, cut_before=None), mode)
        text = full[len(prefix) :] if full.startswith(prefix) else full
        finish = "stop" if step.finish == "length" else step.finish
    else:
        text = step.prose if native else render_text(step, mode)
    deltas: list[dict[str, Any]] = [{"content": piece} for piece in split_tokens(text)]
    if native:
        for i, call in enumerate(step.calls):
            head = {"index": i, "id": call.id, "type": "function"}
            head["function"] = {"name": call.name, "arguments": ""}
            deltas.append({"tool_calls": [head]})
            for piece in split_tokens(json.dumps(call.arguments())):
                deltas.append({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    if max_tokens is not None and len(deltas) > max_tokens:
        deltas, finish = deltas[:max_tokens], "length"
    if prefix and echo and not native:
        first = deltas[0]["content"] if deltas else ""
        deltas[:1] = [{"content": prefix + first}]  # the echo is no token
    completion = 0
    for delta in deltas:
        completion += 1
        yield _chunk(model, index, delta), 1
    yield _chunk(model, index, {}, finish), 0
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": prompt_tokens + completion,
    }
    yield {**_chunk(model, index, {}), "choices": [], "usage": usage}, 0


class _PacedSSE(httpx.AsyncByteStream):
    """SSE bytes, one event per chunk, released at ``rate`` tokens per second."""

    def __init__(
        self,
        chunks: list[tuple[dict[str, Any], int]],
        rate: float,
        ttft: float,
        sleep: Sleep,
        clock: Clock | None,
    ) -> None:
        self._chunks = chunks
        self._rate = rate
        self._ttft = ttft
        self._sleep = sleep
        self._clock = clock
        self._gen: AsyncIterator[bytes] | None = None

    def __aiter__(self) -> AsyncIterator[bytes]:
        self._gen = self._events()
        return self._gen

    async def _events(self) -> AsyncIterator[bytes]:
        clock = self._clock or asyncio.get_running_loop().time
        start = clock() + (self._ttft if self._rate > 0 else 0.0)
        emitted = 0
        for chunk, tokens in self._chunks:
            emitted += tokens
            if self._rate > 0 and tokens:
                delay = start + emitted / self._rate - clock()
                if delay > 0:
                    await self._sleep(delay)
            else:
                await asyncio.sleep(0)  # as fast as possible, but let the UI and tools run
            yield encode_sse([json.dumps(chunk, ensure_ascii=False)])
        yield encode_sse(["[DONE]"])

    async def aclose(self) -> None:
        if self._gen is not None:
            await self._gen.aclose()  # type: ignore[attr-defined]


Responder = Callable[[list[dict[str, Any]]], Step]
"""Picks the step for a request's messages (default: the demo story, ``pick_step``)."""


class DemoTransport(httpx.AsyncBaseTransport):
    """The scripted model for ``mode`` (one of ``MODES``) at ``rate`` tokens/s (0 = no delay).

    ``prefill``: the model continues a request's trailing assistant message (and says so
    like llama.cpp: ``GET /props`` answers), echoing it back first when ``echo``.
    ``responder`` replaces the demo story (tests and benchmarks script their own).
    Every request honours ``max_tokens``.
    """

    def __init__(
        self,
        mode: str,
        rate: float = DEFAULT_RATE,
        *,
        ttft: float | None = None,
        sleep: Sleep = asyncio.sleep,
        clock: Clock | None = None,
        prefill: bool = False,
        echo: bool = True,
        responder: Responder | None = None,
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
        self._clock = clock
        """What pacing reads the time from (default: the event loop's clock)."""
        self.requests = 0
        self.prefill = prefill
        self.echo = echo
        self.responder = responder
        self.bodies: list[dict[str, Any]] = []
        """Every chat request's JSON body, in order (tests read what was sent)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            listing = {"object": "list", "data": [{"id": DEMO_MODEL, "object": "model"}]}
            return httpx.Response(200, json=listing)
        if request.method == "GET" and path == "/props" and self.prefill:
            return httpx.Response(200, json={"model_path": DEMO_MODEL, "total_slots": 1})
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
        self.bodies.append(body)
        prefix: str | None = None
        last = messages[-1] if messages and isinstance(messages[-1], dict) else {}
        if self.prefill and last.get("role") == "assistant":
            prefix = str(last.get("content") or "")
            messages = messages[:-1]  # the step is the one that message began
        step = self.responder(messages) if self.responder else pick_step(self.mode, messages)
        prompt_tokens = math.ceil(len(json.dumps(messages)) / 4)
        max_tokens = body.get("max_tokens")
        chunks = list(
            stream_chunks(
                step,
                self.mode,
                model=str(body.get("model") or DEMO_MODEL),
                index=index,
                prompt_tokens=prompt_tokens,
                max_tokens=max_tokens if isinstance(max_tokens, int) and max_tokens > 0 else None,
                prefix=prefix,
                echo=self.echo,
            )
        )
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream; charset=utf-8"},
            stream=_PacedSSE(chunks, self.rate, self.ttft, self._sleep, self._clock),
        )


def demo_client(mode: str, rate: float = DEFAULT_RATE, **kwargs: Any) -> ModelClient:
    """A Chat Completions client wired to the demo model (what ``frontier demo`` uses)."""
    transport = DemoTransport(mode, rate, **kwargs)
    return ModelClient(codec("openai-chat"), DEMO_BASE_URL, DEMO_MODEL, transport=transport)


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
    "demo_client",
    "demo_project_dir",
    "make_demo_workspace",
    "pick_step",
    "split_tokens",
    "step_index",
    "stream_chunks",
]
