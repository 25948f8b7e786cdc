"""Recorded model responses played back as if a server were streaming them.

Two shapes of the same thing, both keeping the recorded arrival times scaled by
a speed factor (``"max"`` = no waiting):

* ``ReplayTransport`` — an ``httpx`` transport: each chat-completions request gets
  the next recorded response as real SSE, so the *whole* client path
  (``OpenAIProvider`` → mode adapter → transducer → loop) runs against a real
  model's bytes, offline and repeatably (tests, benchmarks, bug reports).
* ``replay_stream`` — the provider's item stream (``Chunk`` … ``StreamEnd``)
  without HTTP, for code that wants a provider-shaped source directly.

Stepping and pausing for teaching live in ``frontier.app.replay_player``; this
module is about faithful timing. ``ReplayClock`` still accepts speed changes and
pause/resume while playing, so a UI can steer a live replay.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from frontier.app.cst import safejson
from frontier.app.providers.base import Chunk, StreamEnd

Sleep = Callable[[float], Awaitable[Any]]


@dataclass(frozen=True)
class Recorded:
    """One response: SSE ``data`` strings with seconds since the request was sent."""

    events: tuple[tuple[float, str], ...]
    finish_reason: str | None = None
    """As recorded; ``None`` when the recording stopped before the response ended."""
    mode: str = ""
    model: str = ""


def parse_speed(value: float | str | None) -> float | None:
    """``"max"``/``None`` → ``None`` (no waiting); else a positive factor (2 = twice as fast)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("max", "inf")):
        return None
    try:
        speed = float(value)
    except ValueError:
        raise ValueError(f"replay speed must be a number > 0 or 'max', got {value!r}") from None
    if not speed > 0:
        raise ValueError(f"replay speed must be a number > 0 or 'max', got {value!r}")
    return speed


# --------------------------------------------------------------------------- loading


def as_recorded(obj: Any) -> Recorded:
    """Normalise a recording from ``session.record`` or the session store (duck-typed):
    ``events`` as ``(t, data)`` pairs or objects with ``.t``/``.data``."""
    if isinstance(obj, Recorded):
        return obj
    events: list[tuple[float, str]] = []
    for item in obj.events:
        if isinstance(item, tuple | list):
            t, data = item[0], item[1]
        elif isinstance(item, dict):
            t, data = item["t"], item["data"]
        else:
            t, data = item.t, item.data
        events.append((float(t), data if isinstance(data, str) else json.dumps(data)))
    return Recorded(
        tuple(events),
        getattr(obj, "finish_reason", None),
        str(getattr(obj, "mode", "") or ""),
        str(getattr(obj, "model", "") or ""),
    )


def load_recording(path: str | Path) -> Recorded:
    """Read a recording file (``docs/recording-format.md``; ``session.record`` reads it).

    Raises ``frontier.app.session.record.RecordingError`` (a ``ValueError``) naming
    the file and line when it is not a readable recording.
    """
    from frontier.app.session.record import read_recording

    return as_recorded(read_recording(Path(path)))


# --------------------------------------------------------------------------- timing


class ReplayClock:
    """Releases recorded instants at ``speed`` × their original pace.

    Speed changes and pause/resume take effect immediately, even in the middle
    of a long gap: the wait is re-anchored at the current recording position.
    ``now``/``sleep`` are injectable so tests run on a fake clock.
    """

    def __init__(
        self,
        speed: float | str | None = 1.0,
        *,
        sleep: Sleep = asyncio.sleep,
        now: Callable[[], float] | None = None,
    ) -> None:
        self.speed = parse_speed(speed)
        self._sleep = sleep
        self._now = now
        self.position = 0.0
        """Recording seconds already played (of the current response)."""
        self._anchor: tuple[float, float] | None = None
        self._running = asyncio.Event()
        self._running.set()
        self._changed = asyncio.Event()

    def _time(self) -> float:
        return self._now() if self._now is not None else asyncio.get_running_loop().time()

    def restart(self) -> None:
        """A new response begins: its times count from 0 again."""
        self.position = 0.0
        self._anchor = None

    def set_speed(self, speed: float | str | None) -> None:
        self._reanchor()
        self.speed = parse_speed(speed)
        self._changed.set()

    def pause(self) -> None:
        self._reanchor()
        self._running.clear()
        self._changed.set()

    def resume(self) -> None:
        self._anchor = None
        self._running.set()
        self._changed.set()

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    def _reanchor(self) -> None:
        """Fix the recording position reached so far before the pace changes."""
        if self._anchor is not None and self.speed is not None and self._running.is_set():
            pos0, wall0 = self._anchor
            self.position = max(self.position, pos0 + (self._time() - wall0) * self.speed)
        self._anchor = None

    async def reach(self, t: float) -> None:
        """Return when recording time ``t`` is due."""
        while True:
            if not self._running.is_set():
                await self._running.wait()
            if self.speed is None or t <= self.position:
                break
            now = self._time()
            if self._anchor is None:
                self._anchor = (self.position, now)
            pos0, wall0 = self._anchor
            delay = wall0 + (t - pos0) / self.speed - now
            if delay <= 0:
                break
            self._changed.clear()
            if await self._wait(delay):
                break
        self.position = max(self.position, t)

    async def _wait(self, delay: float) -> bool:
        """Sleep ``delay``; False if a speed/pause change interrupted it."""
        sleeper = asyncio.ensure_future(self._sleep(delay))
        changed = asyncio.ensure_future(self._changed.wait())
        try:
            done, _ = await asyncio.wait({sleeper, changed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (sleeper, changed):
                task.cancel()
        return sleeper in done and not changed.done()


# --------------------------------------------------------------------------- sources


async def replay_stream(
    recording: Recorded | Any, speed: float | str | None = 1.0, *, clock: ReplayClock | None = None
) -> AsyncIterator[Chunk | StreamEnd]:
    """The recording as ``OpenAIProvider.stream`` items, at the recorded pace.

    Ends like a live stream would: the recorded finish_reason, ``error`` for an
    ``{"error": ...}`` object, ``disconnect`` when the recording has no end.
    """
    rec = as_recorded(recording)
    clock = clock or ReplayClock(speed)
    clock.restart()
    usage: dict[str, Any] = {}
    finish: str | None = None
    skipped = 0
    for t, data in rec.events:
        await clock.reach(t)
        if data.strip() == "[DONE]":
            break
        try:
            obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            skipped += 1
            continue
        if obj.get("error"):
            yield StreamEnd("error", usage, error=str(obj["error"]), skipped=skipped)
            return
        for choice in obj.get("choices") or ():
            if isinstance(choice, dict) and choice.get("finish_reason"):
                finish = str(choice["finish_reason"])
        if isinstance(obj.get("usage"), dict):
            usage = obj["usage"]
        yield Chunk(obj, data, t)
    end = finish or rec.finish_reason
    if end is None or end == "stopped":
        yield StreamEnd("disconnect", usage, skipped=skipped, detail="the recording ends here")
    else:
        yield StreamEnd(end, usage, skipped=skipped)


class _RecordedSSE(httpx.AsyncByteStream):
    def __init__(self, rec: Recorded, clock: ReplayClock) -> None:
        self._rec = rec
        self._clock = clock
        self._gen: AsyncIterator[bytes] | None = None

    def __aiter__(self) -> AsyncIterator[bytes]:
        self._gen = self._events()
        return self._gen

    async def _events(self) -> AsyncIterator[bytes]:
        self._clock.restart()
        done = False
        for t, data in self._rec.events:
            await self._clock.reach(t)
            done = done or data.strip() == "[DONE]"
            yield "".join(f"data: {line}\n" for line in data.split("\n")).encode() + b"\n"
        if not done and self._rec.finish_reason not in (None, "disconnect", "stopped"):
            yield b"data: [DONE]\n\n"

    async def aclose(self) -> None:
        if self._gen is not None:
            await self._gen.aclose()  # type: ignore[attr-defined]


class ReplayTransport(httpx.AsyncBaseTransport):
    """Serves recorded responses, in order, to successive chat-completions requests.

    A recording without an end (the process died mid-response) is replayed as a
    stream that stops without ``[DONE]`` — the client sees a disconnect, as the
    live client did. Past the last recording, requests get HTTP 410 with a message.
    """

    def __init__(
        self,
        recordings: Iterable[Recorded | Any] | Recorded | str | Path,
        speed: float | str | None = 1.0,
        *,
        clock: ReplayClock | None = None,
    ) -> None:
        if isinstance(recordings, str | Path):
            recordings = [load_recording(recordings)]
        elif isinstance(recordings, Recorded):
            recordings = [recordings]
        self.recordings: Sequence[Recorded] = [as_recorded(r) for r in recordings]
        self.clock = clock or ReplayClock(speed)
        self.served = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.rstrip("/").endswith("/chat/completions"):
            return httpx.Response(
                404, json={"error": {"message": "replay serves chat/completions"}}
            )
        if self.served >= len(self.recordings):
            message = (
                f"the replay has no more recorded responses ({len(self.recordings)} served); "
                "the run asked for more than was recorded"
            )
            return httpx.Response(410, json={"error": {"message": message}})
        rec = self.recordings[self.served]
        self.served += 1
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream; charset=utf-8"},
            stream=_RecordedSSE(rec, self.clock),
        )


__all__ = [
    "Recorded",
    "ReplayClock",
    "ReplayTransport",
    "as_recorded",
    "load_recording",
    "parse_speed",
    "replay_stream",
]
